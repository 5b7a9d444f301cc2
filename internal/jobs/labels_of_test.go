package jobs

import (
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/dataset"
)

// TestRunLabelsOf: the training rows, then the test rows, as Row gives
// them.
func TestRunLabelsOf(t *testing.T) {
	train := &dataset.Dataset{Kind: dataset.MultiLabel, Labels: dataset.ListNames([]string{"a", "b"}), Y: mat.NewDense(2, 2, []float64{1, 0, 0, 1})}
	test := &dataset.Dataset{Kind: dataset.MultiLabel, Labels: dataset.ListNames([]string{"a", "b"}), Y: mat.NewDense(1, 2, []float64{1, 1})}
	for _, tc := range []struct {
		name  string
		test  *dataset.Dataset
		rows  [][]int32 // training rows, then test rows (Ones)
		tests int
	}{
		{"training only", nil, [][]int32{{0}, {1}}, 0},
		{"with a test set", test, [][]int32{{0}, {1}, {0, 1}}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := RunLabelsOf(train, tc.test)
			if l.TrainRows != 2 || l.TestRows != tc.tests || l.Kind != dataset.MultiLabel || !slices.Equal(l.Labels, train.Labels.Strings()) {
				t.Fatalf("got %d training and %d test rows of %s %q, want 2 and %d of multilabel [a b]", l.TrainRows, l.TestRows, l.Kind, l.Labels, tc.tests)
			}
			for i, want := range tc.rows {
				test, at := i >= 2, i
				if test {
					at -= 2
				}
				if got := l.Ones(test, at); !slices.Equal(got, want) {
					t.Errorf("row %d (test %v): got %v, want %v", at, test, got, want)
				}
			}
			if got := l.Ones(false, 2); got != nil {
				t.Errorf("row 2 of the training set: got %v, want none", got)
			}
		})
	}
}
