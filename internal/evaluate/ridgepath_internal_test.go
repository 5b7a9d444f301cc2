package evaluate

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/analysis"
)

// TestRidgePathEqualsSeparateFits: the ridge on the first d columns,
// solved from the path's one Gram and factor, equals fitRidgeCentred on
// those columns alone, weights and predictions, to 1e-12 relative, at
// every d up to a width past the factorization's block size (64).
func TestRidgePathEqualsSeparateFits(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 3))
	for _, tc := range []struct{ n, d, c int }{{50, 5, 3}, {300, 40, 6}, {400, 130, 4}} {
		t.Run(fmt.Sprintf("%d×%d, %d targets", tc.n, tc.d, tc.c), func(t *testing.T) {
			x, xte, y := mat.NewDense(tc.n, tc.d, nil), mat.NewDense(20, tc.d, nil), mat.NewDense(tc.n, tc.c, nil)
			for _, m := range []*mat.Dense{x, xte} {
				raw := m.RawMatrix()
				for i := range raw.Data {
					raw.Data[i] = rng.NormFloat64() * (1 + float64(i%tc.d)) // columns of different scales
				}
			}
			for i := range tc.n {
				for j := range tc.c {
					if x.At(i, j%tc.d)+rng.NormFloat64() > 0.5 {
						y.Set(i, j, 1)
					}
				}
			}
			path, err := newRidgePath(x, y, 0.1)
			if err != nil {
				t.Fatal(err)
			}
			worst := 0.0
			for d := 1; d <= tc.d; d++ {
				want, err := fitRidgeCentred(firstCols(x, d), y, 0.1)
				if err != nil {
					t.Fatal(err)
				}
				got := path.model(d)
				for _, pair := range [][2]*mat.Dense{{got.w, want.w}, {got.predict(firstCols(xte, d)), want.predict(firstCols(xte, d))}} {
					r, c := pair[1].Dims()
					if gr, gc := pair[0].Dims(); gr != r || gc != c {
						t.Fatalf("d = %d: got %d×%d, want %d×%d", d, gr, gc, r, c)
					}
					for i := range r {
						for j := range c {
							g, w := pair[0].At(i, j), pair[1].At(i, j)
							worst = max(worst, math.Abs(g-w)/max(math.Abs(w), 1))
						}
					}
				}
			}
			if worst > 1e-12 {
				t.Errorf("largest relative difference from separate fits %g, want at most 1e-12", worst)
			}
			t.Logf("largest relative difference from separate fits: %g", worst)
		})
	}
}

// TestRunRidgeGridEqualsEachD: a run with the ridge classifier over a grid
// of d (one ridge path per method and fold) gives, bit for bit, the
// metrics of runs at each d alone (each fitting its own system), on
// multi-label data and on class variables.
func TestRunRidgeGridEqualsEachD(t *testing.T) {
	for _, tc := range []struct {
		name string
		data analysis.Input
	}{
		{"multi-label", runData(11, 120, 12, 4, nil)},
		{"class variables", runData(12, 120, 12, 0, []int{3, 2, 4})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			folds, err := KFold(120, 4, 3)
			if err != nil {
				t.Fatal(err)
			}
			spec := func(dims ...int) Spec {
				return Spec{Methods: []MethodRun{{ID: "pca"}, {ID: "cca"}}, Grid: Grid{Dims: dims},
					Options: Options{Classifier: ClassifierRidge}}
			}
			all, err := Run(context.Background(), tc.data, folds, spec(1, 2, 3, 4, 5, 6), nil)
			if err != nil {
				t.Fatal(err)
			}
			for d := 1; d <= 6; d++ {
				one, err := Run(context.Background(), tc.data, folds, spec(d), nil)
				if err != nil {
					t.Fatal(err)
				}
				for _, want := range one.Rows {
					if want.Method == Ori {
						continue
					}
					found := false
					for _, got := range all.Rows {
						if got.Method != want.Method || got.D != want.D || (got.Fold == nil) != (want.Fold == nil) || (got.Fold != nil && *got.Fold != *want.Fold) {
							continue
						}
						found = true
						for k, v := range want.Metrics {
							if g := got.Metrics[k]; math.Float64bits(g) != math.Float64bits(v) {
								t.Errorf("%s d = %d fold %v %s: got %v over the grid, %v alone", want.Method, d, want.Fold, k, g, v)
							}
						}
					}
					if !found {
						t.Errorf("%s d = %d fold %v: no row in the grid's run", want.Method, d, want.Fold)
					}
				}
			}
		})
	}
}
