package handlers

import (
	"net/url"
	"strings"

	"mldr/internal/dataset"
	"mldr/internal/plots"
	"mldr/internal/views"
)

// The caps of the data set API's answers (the pages' are views').
const (
	// maxNMICells bounds one answer of nmi.json: rows × columns.
	maxNMICells = 100_000
	// maxNMIColumns is the most labels nmi.json's matrix may have as
	// columns (all labels by default, or those ?labels= names).
	maxNMIColumns = 10_000
)

// chooseLabels reads the ?labels= of q: names of s's labels, each value a
// name or names separated by commas or new lines, at most most of them.
// Without it the choice is every label when there are at most most, else
// the most frequent most labels (multi-label data, in the data's order) or
// the first most class variables. An unknown name or too many is a 400
// naming it and where the valid names are.
func chooseLabels(s *dataset.Details, id string, q url.Values, most int) (views.LabelChoice, error) {
	total := s.LabelCount()
	idx, err := parseLabels(s, id, q["labels"], most)
	if err != nil {
		return views.LabelChoice{}, err
	}
	if idx != nil {
		return views.LabelChoice{Idx: idx, Total: total, Chosen: true}, nil
	}
	return views.DefaultChoice(s, most), nil
}

// parseLabels resolves the values of ?labels= to label indices, in the
// order given, without repeats; nil when no value names anything. A value
// that is a label's name is taken whole (names may hold commas); any other
// is split at commas and new lines.
func parseLabels(s *dataset.Details, id string, values []string, most int) ([]int, error) {
	word := views.LabelNoun(s.Kind)
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
	for name, at := range want {
		if j := s.Find(name); j >= 0 && at < 0 {
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
					views.CutName(p), plots.GroupDigits(s.LabelCount()), word, id)
			}
			add(j)
		}
	}
	if len(idx) > most {
		return nil, tooMany(len(idx))
	}
	return idx, nil
}
