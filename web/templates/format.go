package templates

import (
	"fmt"
	"mldr/internal/dataset"
	"strconv"
)

func itoa(n int) string { return strconv.Itoa(n) }

func ariaInvalid(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func kindName(k string) string { return dataset.Kind(k).Words() }

func percent(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) }

func decimal(f *float64, digits int) string {
	if f == nil {
		return "—"
	}
	return strconv.FormatFloat(*f, 'f', digits, 64)
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', 4, 64) }

func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12] + "…"
	}
	return h
}

// invalid reports whether a refusal concerns one of the fields.
func invalid(e *FormError, fields ...string) bool {
	if e == nil {
		return false
	}
	for _, f := range fields {
		if e.Field == f {
			return true
		}
	}
	return false
}

func labelWord(kind string) string {
	if kind == "multidim" {
		return "class variables"
	}
	return "labels"
}

// dLimits states each method's largest d on this data set.
func dLimits(ms []MethodChoice) string {
	s := ""
	for _, m := range ms {
		if m.Disabled || m.MaxDim == 0 {
			continue
		}
		if s != "" {
			s += ", "
		}
		s += m.ID + " " + itoa(m.MaxDim)
	}
	return s
}

func chosen(jobs []CompareJob, id string) bool {
	for _, j := range jobs {
		if j.ID == id {
			return true
		}
	}
	return false
}

// group writes n with its thousands separated by a space: 5000 → "5 000".
func group(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + group(-n)
	}
	out := make([]byte, 0, len(s)+len(s)/3)
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ' ')
		}
		out = append(out, s[i])
	}
	return string(out)
}

// analyzeAction is where the analysis form posts: a data set's analyze
// page, or /study for a study.
func analyzeAction(v AnalyzeView) string {
	if len(v.Study) > 0 {
		return "/study"
	}
	return "/datasets/" + v.DatasetID + "/analyze"
}

// choiceValue is a study's d-choice as the value of the page's "at"
// control: "own", "d:N" or "percent:P".
func choiceValue(c StudyChoice) string {
	switch {
	case c.D != "":
		return "d:" + c.D
	case c.Percent != "":
		return "percent:" + c.Percent
	}
	return "own"
}

// studyAt is the "at" value of a study's chosen d-choice.
func studyAt(s StudyView) string {
	return choiceValue(StudyChoice{D: s.D, Percent: s.Percent})
}

// rankText is a method's rank, "≥ 10" when only a lower bound is known.
func rankText(rank int, atLeast bool) string {
	if atLeast {
		return "≥ " + itoa(rank)
	}
	return itoa(rank)
}

// storageText says how many of a data set's feature cells are not zero,
// the caption under its storage ("sparse"): "2.0 % of 100 000 000 cells
// are non-zero"; "" for a record made before storage was recorded.
func storageText(s dataset.Summary) string {
	if s.Storage == "" {
		return ""
	}
	cells := s.Rows * s.Features
	share := "no"
	if cells > 0 {
		p := 100 * s.Density
		share = fmt.Sprintf("%.1f %%", p)
		if p < 0.1 && p > 0 {
			share = fmt.Sprintf("%.2g %%", p)
		}
		share += " of " + group(cells)
	}
	return share + " cells are non-zero"
}
