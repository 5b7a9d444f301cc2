package explore

import (
	"fmt"

	"mldr/internal/evaluate"
	"mldr/internal/jobs"
)

// ErrorColours are the per-row error colours of a job's evaluation: for
// each method and d, the row's Hamming loss and whether it was predicted
// exactly.
func ErrorColours(f *jobs.RowErrorsFile) []Colour {
	var out []Colour
	seen := map[string]bool{}
	for _, r := range f.Records {
		at := fmt.Sprintf("%s:%d", r.Method, r.D)
		if seen[at] {
			continue // two percentages with one d
		}
		seen[at] = true
		d := fmt.Sprintf("d = %d", r.D)
		if r.DPerVariable > 0 {
			d = fmt.Sprintf("d = %d per class variable", r.DPerVariable)
		}
		if r.Method == evaluate.Ori {
			d = "no reduction"
		}
		out = append(out,
			Colour{Key: "error:hamming:" + at, Text: fmt.Sprintf("Hamming loss of the row, %s at %s", r.Method, d), Type: Continuous},
			Colour{Key: "error:exact:" + at, Text: fmt.Sprintf("exact match of the row, %s at %s", r.Method, d), Type: Categorical,
				Categories: []string{"all right", "not all right"}})
	}
	return out
}
