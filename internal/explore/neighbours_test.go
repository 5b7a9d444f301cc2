package explore

import (
	"fmt"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/dataset"
	"mldr/internal/sparse"
)

// TestNearestFeaturesSparse: the nearest rows in feature space, and a
// feature's values, are the same whether the training and test data sets
// are held dense, sparse or one of each; the reference is Nearest on the
// dense rows. Rows 4 and 5 come from the test data set; rows 2 and 5 are
// at the same distance from row 1 (a tie: the earlier row first).
func TestNearestFeaturesSparse(t *testing.T) {
	v := testView()
	v.TrainRows = 3
	train := mat.NewDense(3, 6, []float64{
		1, 0, 0, 2, 0, 0,
		1, 0, 3, 2, 0, 0,
		0, 0, 0, 0, 0, 5,
	})
	test := mat.NewDense(2, 6, []float64{
		1, 1, 0, 2, 0, 0,
		1, 0, 0, 2, 3, 0,
	})
	names := []string{"a", "b", "c", "d", "e", "f"}
	held := func(x *mat.Dense, sp bool) *dataset.Dataset {
		ds := &dataset.Dataset{Features: dataset.ListNames(names)}
		if sp {
			ds.Sparse = sparse.FromDense(x)
		} else {
			ds.X = x
		}
		return ds
	}
	dense := func(i int) []float64 {
		t, at := v.Source(i)
		if t {
			return test.RawRowView(at)
		}
		return train.RawRowView(at)
	}
	for _, tc := range []struct{ trainSparse, testSparse bool }{{false, false}, {true, true}, {true, false}, {false, true}} {
		t.Run(fmt.Sprintf("train sparse %v, test sparse %v", tc.trainSparse, tc.testSparse), func(t *testing.T) {
			rows, err := v.Features(held(train, tc.trainSparse), held(test, tc.testSparse))
			if err != nil {
				t.Fatal(err)
			}
			for from := range v.Rows() {
				for _, k := range []int{1, 2, 4} {
					got, want := v.NearestFeatures(from, k, rows), v.Nearest(from, k, dense)
					if !slices.EqualFunc(got, want, func(a, b Neighbour) bool { return a.Row == b.Row && a.Distance == b.Distance }) {
						t.Errorf("row %d, k = %d: got %v, want %v", from+1, k, got, want)
					}
				}
			}
			if got := v.NearestFeatures(0, 2, rows); len(got) != 2 || got[0].Row != 4 || got[1].Row != 2 {
				t.Errorf("row 1, k = 2: got %v, want rows 4 then 2 (2 before 5 at the same distance)", got)
			}
			for j, name := range names {
				vals, err := v.Feature(held(train, tc.trainSparse), held(test, tc.testSparse), name)
				if err != nil {
					t.Fatal(err)
				}
				for i, got := range vals {
					if want := float32(dense(i)[j]); got != want {
						t.Errorf("feature %s, row %d: got %v, want %v", name, i+1, got, want)
					}
				}
			}
		})
	}
	if _, err := v.Features(held(train, true), nil); err == nil {
		t.Error("rows of a test data set without it: got no error")
	}
}
