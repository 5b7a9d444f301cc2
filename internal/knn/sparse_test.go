package knn

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/sparse"
)

// sparseData is n×d with about density of its cells non-zero: small
// integers (many exact ties) or Gaussian values.
func sparseData(seed uint64, n, d int, density float64, ties bool) *mat.Dense {
	rng := rand.New(rand.NewPCG(seed, 9))
	x := mat.NewDense(n, d, nil)
	for i := range n {
		for j := range d {
			if rng.Float64() < density {
				if ties {
					x.Set(i, j, float64(1+rng.IntN(2)))
				} else {
					x.Set(i, j, rng.NormFloat64())
				}
			}
		}
	}
	return x
}

// TestSearchSparse: the same neighbours and distances, to the bit, as
// Search on the dense rows and as the brute-force reference, ties
// included, with and without self, on sparse data, on data with empty
// rows (all at distance 0 of each other) and on dense data far from the
// origin (where the uncentred formula's error is largest).
func TestSearchSparse(t *testing.T) {
	for _, tc := range []struct {
		name       string
		ref, query *mat.Dense
		k          int
	}{
		{"ties", sparseData(1, 300, 40, 0.05, true), sparseData(2, 50, 40, 0.05, true), 7},
		{"gaussian", sparseData(3, 200, 60, 0.1, false), sparseData(4, 30, 60, 0.1, false), 5},
		{"mostly empty rows", sparseData(5, 100, 20, 0.01, true), sparseData(6, 20, 20, 0.01, true), 10},
		{"offset, dense", data(7, 80, 5, "offset"), data(8, 10, 5, "offset"), 4},
		{"more columns than rows", sparseData(9, 20, 500, 0.02, true), sparseData(10, 8, 500, 0.02, true), 3},
	} {
		for _, self := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/self=%v", tc.name, self), func(t *testing.T) {
				query := tc.query
				if self {
					query = tc.ref
				}
				want, err := Search(context.Background(), tc.ref, query, tc.k, self, nil)
				if err != nil {
					t.Fatal(err)
				}
				got, err := SearchSparse(context.Background(), sparse.FromDense(tc.ref), sparse.FromDense(query), tc.k, self, nil)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got.Index, want.Index) {
					t.Fatalf("neighbours differ from Search's:\ngot  %v\nwant %v", got.Index, want.Index)
				}
				if !slices.Equal(got.Dist, want.Dist) {
					t.Fatalf("distances differ from Search's:\ngot  %v\nwant %v", got.Dist, want.Dist)
				}
				idx, dist := brute(tc.ref, query, tc.k, self)
				for i := range idx {
					gi, gd := got.Row(i)
					if !slices.Equal(gi, idx[i]) || !slices.Equal(gd, dist[i]) {
						t.Fatalf("row %d: got %v %v, want %v %v", i, gi, gd, idx[i], dist[i])
					}
				}
			})
		}
	}
}

func TestSearchSparseRefused(t *testing.T) {
	ref := sparse.FromDense(sparseData(1, 10, 4, 0.5, false))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := SearchSparse(ctx, ref, ref, 2, true, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: got %v, want context.Canceled", err)
	}
	for _, tc := range []struct {
		name  string
		query *sparse.CSR
		k     int
	}{
		{"other columns", sparse.FromDense(sparseData(2, 3, 5, 0.5, false)), 2},
		{"k = 0", ref, 0},
		{"k too large", ref, 10},
	} {
		if _, err := SearchSparse(context.Background(), ref, tc.query, tc.k, true, nil); err == nil {
			t.Errorf("%s: got no error, want one", tc.name)
		}
	}
}
