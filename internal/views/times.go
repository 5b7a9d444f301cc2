package views

import (
	"fmt"
	"math"

	"mldr/internal/evaluate"
	"mldr/internal/jobs"
	"mldr/web/templates"
)

// TimesTable is how long each method took in the evaluation, from the
// fit and evaluation times of metrics.json's fold rows; nil when the file
// has none (written before they were kept: every time 0).
func TimesTable(res *jobs.Results) *templates.TimesTable {
	if res.Metrics == nil {
		return nil
	}
	type sums struct {
		fit, eval, total float64
		fits, evals      int
	}
	by := map[string]*sums{}
	// A fit serves every d of its method on a fold (lda: one per d): the
	// total counts each distinct (method, fold, fit time) once.
	seenFit := map[string]bool{}
	timed := false
	for _, r := range res.Metrics.Rows {
		if r.Fold == nil {
			continue
		}
		s := by[r.Method]
		if s == nil {
			s = &sums{}
			by[r.Method] = s
		}
		timed = timed || r.FitSeconds > 0 || r.EvalSeconds > 0
		s.eval += r.EvalSeconds
		s.evals++
		s.total += r.EvalSeconds
		key := fmt.Sprintf("%s %d %v", r.Method, *r.Fold, r.FitSeconds)
		if r.Method != evaluate.Ori && !seenFit[key] {
			seenFit[key] = true
			s.fit += r.FitSeconds
			s.fits++
			s.total += r.FitSeconds
		}
	}
	if !timed {
		return nil
	}
	methods, _ := meanRows(res)
	t := &templates.TimesTable{}
	for _, m := range methods {
		s := by[m]
		if s == nil {
			continue
		}
		row := templates.TimesRow{Method: MethodName(m), Fit: "—", Eval: formatSeconds(s.eval / float64(s.evals)), Total: formatSeconds(s.total)}
		if s.fits > 0 {
			row.Fit = formatSeconds(s.fit / float64(s.fits))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// formatSeconds writes a duration for people: "< 0.01 s", "0.12 s",
// "12.3 s", "1 min 3 s", "2 h 5 min".
func formatSeconds(s float64) string {
	switch {
	case math.IsNaN(s) || s < 0:
		return "—"
	case s < 0.005:
		return "< 0.01 s"
	case s < 9.995:
		return fmt.Sprintf("%.2f s", s)
	case s < 59.95:
		return fmt.Sprintf("%.1f s", s)
	}
	whole := int64(math.Round(s))
	if whole < 3600 {
		return fmt.Sprintf("%d min %d s", whole/60, whole%60)
	}
	return fmt.Sprintf("%d h %d min", whole/3600, whole%3600/60)
}
