package explore

import (
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/dataset"
	"mldr/internal/jobs"
)

// denseOf is an r×c matrix of the values v, row by row.
func denseOf(r, c int, v ...float64) *mat.Dense { return mat.NewDense(r, c, v) }

// TestSetsAndClasses: Sets indexes the sets Colours lists, as Values does,
// and Classes gives each variable's class of a row.
func TestSetsAndClasses(t *testing.T) {
	p := &jobs.Projected{Row: []int{1, 2, 3, 4}, Split: []string{"all", "all", "all", "all"}}
	for _, tc := range []struct {
		name    string
		labels  *jobs.RunLabels
		classes [][]int
	}{
		{"multi-label", jobs.RunLabelsOf(&dataset.Dataset{Kind: dataset.MultiLabel, Labels: dataset.ListNames([]string{"a", "b"}),
			Y: denseOf(4, 2, 1, 0, 0, 1, 1, 0, 1, 1)}, nil), [][]int{nil, nil, nil, nil}},
		{"multi-dimensional", jobs.RunLabelsOf(&dataset.Dataset{Kind: dataset.MultiDim, Labels: dataset.ListNames([]string{"u", "v"}),
			Categories: [][]string{{"x", "y"}, {"p", "q", "r"}}, Y: denseOf(4, 2, 0, 2, 1, 0, 0, 2, 1, 1)}, nil),
			[][]int{{0, 2}, {1, 0}, {0, 2}, {1, 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := NewView(p, tc.labels)
			if err != nil {
				t.Fatal(err)
			}
			sets, counts, of := v.Sets()
			var want Colour
			for _, c := range v.Colours() {
				if c.Key == "set" {
					want = c
				}
			}
			if !slices.Equal(sets, want.Categories) || !slices.Equal(counts, want.Counts) {
				t.Errorf("Sets: got %q %v, want %q %v (Colours' set)", sets, counts, want.Categories, want.Counts)
			}
			values, err := v.Values("set")
			if err != nil {
				t.Fatal(err)
			}
			for i := range of {
				if float32(of[i]) != values[i] {
					t.Errorf("row %d: got set %d, want %v (Values)", i, of[i], values[i])
				}
				if got := v.Classes(i); !slices.Equal(got, tc.classes[i]) {
					t.Errorf("row %d: got classes %v, want %v", i, got, tc.classes[i])
				}
			}
		})
	}
}
