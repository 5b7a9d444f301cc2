package jobs

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/analysis"
)

// projectedRows takes the rows a feature-space fit on every row projected
// as it was fitted (the same pointer, equal to the bit to what Transform
// makes), and projects every row anew when the fit saw only some (a
// holdout), when the rows are not in order, or when the model came from a
// cached decomposition (WithDim drops its projection).
func TestProjectedRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	const n, d, q = 300, 12, 4
	x, y := mat.NewDense(n, d, nil), mat.NewDense(n, q, nil)
	for i := range n {
		for j := range d {
			x.Set(i, j, rng.NormFloat64()+float64(j))
		}
		for j := range q {
			if rng.IntN(3) == 0 || j == i%q {
				y.Set(i, j, 1)
			}
		}
	}
	in := analysis.Input{X: x, Y: y}
	holdout := []int{}
	for i := range n {
		if i%5 != 0 {
			holdout = append(holdout, i)
		}
	}
	reversed := seq(0, n)
	for i, j := 0, n-1; i < j; i, j = i+1, j-1 {
		reversed[i], reversed[j] = reversed[j], reversed[i]
	}
	for _, tc := range []struct {
		name    string
		fitRows []int
		cached  bool
		reused  bool
	}{
		{"every row", seq(0, n), false, true},
		{"a holdout", holdout, false, false},
		{"every row, not in order", reversed, false, false},
		{"a cached decomposition", seq(0, n), true, false},
	} {
		for _, id := range []string{"mddmp", "pca"} {
			t.Run(tc.name+"/"+id, func(t *testing.T) {
				m, err := analysis.Fit(context.Background(), id, subset(in, tc.fitRows), analysis.Params{D: 3}, nil)
				if err != nil {
					t.Fatal(err)
				}
				if tc.cached {
					if m, err = m.Choose(analysis.Params{D: 3}); err != nil {
						t.Fatal(err)
					}
				}
				p := &plan{data: in, fitRows: tc.fitRows}
				got, err := projectedRows(m, p)
				if err != nil {
					t.Fatal(err)
				}
				if reused := got == m.Projected; reused != tc.reused {
					t.Errorf("took the fit's projection: %v, want %v", reused, tc.reused)
				}
				want, err := m.Transform(x)
				if err != nil {
					t.Fatal(err)
				}
				if r, c := got.Dims(); r != n || c != 3 {
					t.Fatalf("got %d×%d rows, want %d×3", r, c, n)
				}
				for i := range n {
					for j := range 3 {
						if math.Float64bits(got.At(i, j)) != math.Float64bits(want.At(i, j)) {
							t.Fatalf("row %d, component %d: %v, Transform gives %v", i, j, got.At(i, j), want.At(i, j))
						}
					}
				}
			})
		}
	}
}
