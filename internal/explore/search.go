package explore

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"mldr/internal/dataset"
)

// Search finds the rows a query names, in the view's order, by row
// number or by labels:
//
//   - row numbers and ranges: "12", "12-20", "row 12", several with commas
//     ("3, 7, 40-45");
//   - labels: terms joined by "and", "&", "," or "but", each a label (or
//     for multi-dimensional data "variable=class") that the row has, or,
//     after "not" or "!", does not have: "amazed-suprised and quiet-still
//     but not sad-lonely".
//
// A query is one or the other. Label names match exactly, then ignoring
// case. An unknown label or a malformed number is a *KeyError naming it.
func (v *View) Search(query string) ([]int, error) {
	q := strings.TrimSpace(query)
	if q == "" {
		return nil, &KeyError{Key: "q", Msg: "give a query: row numbers (12, 40-45) or labels (a and b but not c)"}
	}
	if rows, ok, err := v.searchNumbers(q); ok || err != nil {
		return rows, err
	}
	return v.searchLabels(q)
}

// searchNumbers reads a query of row numbers and ranges; ok is false when
// the query is not one.
func (v *View) searchNumbers(q string) ([]int, bool, error) {
	var want [][2]int
	for _, part := range strings.Split(q, ",") {
		part = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(part), "row"))
		lo, hi, isRange := strings.Cut(part, "-")
		a, errA := strconv.Atoi(strings.TrimSpace(lo))
		b, errB := a, error(nil)
		if isRange {
			b, errB = strconv.Atoi(strings.TrimSpace(hi))
		}
		if errA != nil || errB != nil {
			if len(want) == 0 {
				return nil, false, nil // not numbers: labels
			}
			return nil, true, &KeyError{Key: "q", Msg: fmt.Sprintf("%q is not a row number or a range such as 40-45", part)}
		}
		if b < a {
			a, b = b, a
		}
		want = append(want, [2]int{a, b})
	}
	var rows []int
	for i, num := range v.Number {
		n := int(num)
		if slices.ContainsFunc(want, func(r [2]int) bool { return n >= r[0] && n <= r[1] }) {
			rows = append(rows, i)
		}
	}
	return rows, true, nil
}

// searchLabels reads a query of labels, each wanted or not.
func (v *View) searchLabels(q string) ([]int, error) {
	l := v.Labels()
	fields := strings.NewReplacer("&", " and ", ",", " and ", "!", " not ").Replace(q)
	type term struct {
		label int
		not   bool
	}
	var terms []term
	not := false
	var words []string
	flush := func() error {
		if len(words) == 0 {
			if not {
				return &KeyError{Key: "q", Msg: "\"not\" must come before a label"}
			}
			return nil
		}
		name := strings.Join(words, " ")
		j := slices.Index(l.Names, name)
		if j < 0 {
			j = slices.IndexFunc(l.Names, func(s string) bool { return strings.EqualFold(s, name) })
		}
		if j < 0 {
			return &KeyError{Key: "q", Msg: fmt.Sprintf("%q is no %s of this job; they are %s", name, labelWord(v.Kind), strings.Join(l.Names, ", "))}
		}
		terms = append(terms, term{j, not})
		not, words = false, nil
		return nil
	}
	for _, w := range strings.Fields(fields) {
		switch strings.ToLower(w) {
		case "and", "but":
			if err := flush(); err != nil {
				return nil, err
			}
		case "not":
			if len(words) > 0 {
				if err := flush(); err != nil {
					return nil, err
				}
			}
			not = true
		default:
			words = append(words, w)
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	if len(terms) == 0 {
		return nil, &KeyError{Key: "q", Msg: "give at least one label"}
	}
	var rows []int
	for i := range v.Rows() {
		has := v.has(i)
		if !slices.ContainsFunc(terms, func(t term) bool { return slices.Contains(has, int32(t.label)) == t.not }) {
			rows = append(rows, i)
		}
	}
	return rows, nil
}

func labelWord(k dataset.Kind) string {
	if k == dataset.MultiDim {
		return "variable=class"
	}
	return "label"
}
