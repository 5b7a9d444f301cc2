package handlers

import (
	"cmp"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"mldr/internal/dataset"
	"mldr/internal/plots"
)

// The caps of a data set's views. They keep a page under a few MB and a
// plot under a second whatever the number of labels q and of features D;
// docs/RELIABILITY.md lists them.
const (
	// maxShownLabels is the most labels (class variables) the data set
	// page's heatmap, frequency plot and label table (class tables) show,
	// and the most a ?labels= choice may name for them and for the plots.
	// Beyond, the page shows the most frequent (multi-label) or the first
	// (multi-dimensional) and says so.
	maxShownLabels = 50
	// maxLabelOptions is the most labels the page's choice list offers
	// (the most frequent); others are typed by name.
	maxLabelOptions = 1000
	// maxShownClasses is the most classes of one class variable the
	// page's class tables show (the most frequent).
	maxShownClasses = 50
	// maxListed bounds each list of the data set API object (columns,
	// label_columns, labels, label_stats and each variable's classes);
	// "truncated" then gives the full lengths.
	maxListed = 10_000
	// maxColumnChecks is the most columns the relabel form offers as
	// check boxes; beyond, the label columns are named in a text field.
	maxColumnChecks = 500
	// maxColumnPreview is how many column names the page lists when
	// there are more than maxColumnChecks.
	maxColumnPreview = 20
	// maxNMICells bounds one answer of nmi.json: rows × columns.
	maxNMICells = 100_000
	// maxNMIColumns is the most labels nmi.json's matrix may have as
	// columns (all labels by default, or those ?labels= names).
	maxNMIColumns = 10_000
	// maxNameInError is where a name quoted in an error is cut.
	maxNameInError = 60
)

// labelChoice is which of a data set's labels (or class variables) a view
// shows: their indices into the summary's labels, in the order shown.
type labelChoice struct {
	idx   []int
	total int
	// chosen is true when ?labels= named them; else they are all the
	// labels, or the default part of them.
	chosen bool
}

// partial reports whether the view shows some of the labels only.
func (c labelChoice) partial() bool { return c.chosen || len(c.idx) < c.total }

// names are the names of the chosen labels.
func (c labelChoice) names(s dataset.Summary) []string {
	out := make([]string, len(c.idx))
	for i, j := range c.idx {
		out[i] = s.Labels[j]
	}
	return out
}

// query is the ?labels= that asks for this choice again: nil for the
// default.
func (c labelChoice) query(s dataset.Summary) url.Values {
	if !c.chosen {
		return nil
	}
	return url.Values{"labels": c.names(s)}
}

// which says how the shown labels were chosen, for a figure's subtitle.
func (c labelChoice) which(kind dataset.Kind) string {
	switch {
	case c.chosen:
		return "chosen"
	case kind == dataset.MultiDim:
		return "the first"
	}
	return "the most frequent"
}

// chooseLabels reads the ?labels= of q: names of s's labels, each value a
// name or names separated by commas or new lines, at most most of them.
// Without it the choice is every label when there are at most most, else
// the most frequent most labels (multi-label data, in the data's order) or
// the first most class variables. An unknown name or too many is a 400
// naming it and where the valid names are.
func chooseLabels(s dataset.Summary, id string, q url.Values, most int) (labelChoice, error) {
	total := len(s.Labels)
	idx, err := parseLabels(s, id, q["labels"], most)
	if err != nil {
		return labelChoice{}, err
	}
	if idx != nil {
		return labelChoice{idx: idx, total: total, chosen: true}, nil
	}
	return labelChoice{idx: defaultLabels(s, most), total: total}, nil
}

// defaultLabels are the labels a view shows unless told: all of them up to
// most, else the most frequent most (multi-label data; ties go to the
// earlier label) in the data's order, or the first most class variables.
func defaultLabels(s dataset.Summary, most int) []int {
	total := len(s.Labels)
	if total <= most || s.Kind == dataset.MultiDim || len(s.LabelStats) != total {
		idx := make([]int, min(total, most))
		for i := range idx {
			idx[i] = i
		}
		return idx
	}
	return slices.Sorted(slices.Values(topLabels(s, most)))
}

// topLabels are the indices of the most frequent n labels, most frequent
// first (ties: the earlier label first).
func topLabels(s dataset.Summary, n int) []int {
	idx := make([]int, len(s.LabelStats))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(s.LabelStats[b].Count, s.LabelStats[a].Count) })
	return idx[:min(n, len(idx))]
}

// parseLabels resolves the values of ?labels= to label indices, in the
// order given, without repeats; nil when no value names anything. A value
// that is a label's name is taken whole (names may hold commas); any other
// is split at commas and new lines.
func parseLabels(s dataset.Summary, id string, values []string, most int) ([]int, error) {
	word := labelNoun(s.Kind)
	tooMany := func(n int) error {
		return badRequest("labels", "%s %s chosen; these views show at most %s at a time", plots.GroupDigits(n), word, plots.GroupDigits(most))
	}
	var wholes [][]string // per value: the value, then its parts
	want := map[string]int{}
	for _, v := range values {
		v = strings.TrimSpace(v)
		if v == "" {
			continue
		}
		cand := []string{v}
		for _, p := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == '\n' || r == '\r' }) {
			if p = strings.TrimSpace(p); p != "" && p != v {
				cand = append(cand, p)
			}
		}
		for _, c := range cand {
			want[c] = -1
		}
		// Keep the map small: a choice of more than most names is
		// refused anyway (a value and its parts may count twice).
		if len(want) > 2*most+4 {
			return nil, tooMany(len(want))
		}
		wholes = append(wholes, cand)
	}
	if len(wholes) == 0 {
		return nil, nil
	}
	for j, name := range s.Labels {
		if at, ok := want[name]; ok && at < 0 {
			want[name] = j
		}
	}
	var idx []int
	seen := map[int]bool{}
	add := func(j int) {
		if !seen[j] {
			seen[j] = true
			idx = append(idx, j)
		}
	}
	for _, cand := range wholes {
		if j := want[cand[0]]; j >= 0 {
			add(j)
			continue
		}
		parts := cand[1:]
		if len(parts) == 0 {
			parts = cand
		}
		for _, p := range parts {
			j := want[p]
			if j < 0 {
				return nil, badRequest("labels", "%q is not one of the %s %s of this data set; GET /api/datasets/%s lists them (labels), and the data set's page offers the most frequent",
					cut(p, maxNameInError), plots.GroupDigits(len(s.Labels)), word, id)
			}
			add(j)
		}
	}
	if len(idx) > most {
		return nil, tooMany(len(idx))
	}
	return idx, nil
}

// labelNoun is "labels" or "class variables".
func labelNoun(k dataset.Kind) string {
	if k == dataset.MultiDim {
		return "class variables"
	}
	return "labels"
}

// cut shortens s to n runes, with "…".
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// countOf is "1 label" or "5 000 labels".
func countOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%s %s", plots.GroupDigits(n), many)
}
