package evaluate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/analysis"
	"mldr/internal/sparse"
)

// sparseLabelled is n rows of d features, about density of them non-zero
// (positive, tf-idf-like), and q 0/1 labels, each row's 1–3 labels
// following its largest features, so that a regression from the features
// has something to predict.
func sparseLabelled(seed uint64, n, d, q int, density float64) analysis.Input {
	rng := rand.New(rand.NewPCG(seed, 5))
	x := mat.NewDense(n, d, nil)
	y := mat.NewDense(n, q, nil)
	for i := range n {
		best, at := 0.0, 0
		for j := range d {
			if rng.Float64() < density {
				v := 0.1 + rng.ExpFloat64()
				x.Set(i, j, v)
				if v > best {
					best, at = v, j
				}
			}
		}
		y.Set(i, at%q, 1)
		for range rng.IntN(3) {
			y.Set(i, rng.IntN(q), 1)
		}
	}
	return analysis.Input{X: x, Y: y}
}

// fitRidgeBiasSparse solves the system fitRidgeBias solves, from the
// sparse rows: the same weights to 1e-10 relative to the largest, the same
// predictions; and sparseRidgeWins takes it on the primal path below a
// density of 1/4, not where the rows are few or dense.
func TestRidgeBiasSparseMatchesDense(t *testing.T) {
	in := sparseLabelled(1, 900, 250, 40, 0.04)
	xs := sparse.FromDense(in.X)
	requireSparseRidge(t, "900 × 250", in.X, sparseLabelled(2, 300, 250, 40, 0.04).X)
	for _, tc := range []struct {
		name string
		x    *sparse.CSR
		want bool
	}{
		{"900 × 250 at 4 %", xs, true},
		{"200 × 250 (dual path)", sparse.FromDense(mat.DenseCopyOf(in.X.Slice(0, 200, 0, 250))), false},
		{"900 × 250 at 60 %", sparse.FromDense(sparseLabelled(3, 900, 250, 40, 0.6).X), false},
	} {
		if got := sparseRidgeWins(tc.x.R, tc.x.C, int64(tc.x.NNZ())); got != tc.want {
			t.Errorf("sparseRidgeWins(%s) = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestRidgeBiasSparseDual: with fewer rows than features (200 × 250 at
// 4 %, and 120 × 3 000 at 1 %) fitRidgeBiasSparse solves the dual system
// XXᵀ + 11ᵀ + λI formed from the sparse rows (sparseDualWins), and gives
// the dense fitRidgeBias's weights and predictions to 1e-10.
func TestRidgeBiasSparseDual(t *testing.T) {
	for _, tc := range []struct {
		n, d    int
		density float64
	}{{200, 250, 0.04}, {120, 3000, 0.01}} {
		in := sparseLabelled(5, tc.n, tc.d, 30, tc.density)
		xs := sparse.FromDense(in.X)
		if !sparseDualWins(xs.R, xs.C, int64(xs.NNZ())) || sparseRidgeWins(xs.R, xs.C, int64(xs.NNZ())) {
			t.Fatalf("%d × %d: the dual sparse route is not the one taken", tc.n, tc.d)
		}
		requireSparseRidge(t, fmt.Sprintf("%d × %d", tc.n, tc.d), in.X, sparseLabelled(6, 50, tc.d, 30, tc.density).X)
	}
}

// requireSparseRidge fits fitRidgeBias and fitRidgeBiasSparse on x (and
// its CSR form) to the same codes and requires the same weights (1e-10
// relative to the largest row sum) and predictions on the rows of test.
func requireSparseRidge(t *testing.T, what string, x, test *mat.Dense) {
	t.Helper()
	n, _ := x.Dims()
	codes := mat.NewDense(n, 7, nil)
	for i := range n {
		for j := range 7 {
			codes.Set(i, j, math.Sin(float64(i*7+j)))
		}
	}
	want, err := fitRidgeBias(x, codes, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	got, err := fitRidgeBiasSparse(t.Context(), sparse.FromDense(x), codes, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	var diff mat.Dense
	diff.Sub(got.w, want.w)
	if e, scale := mat.Norm(&diff, math.Inf(1)), mat.Norm(want.w, math.Inf(1)); e > 1e-10*scale {
		t.Errorf("%s: weights differ by %.3g (row sums), want ≤ 1e-10 × %.3g", what, e, scale)
	}
	pw := want.predict(test)
	pg, err := got.predictSparse(t.Context(), sparse.FromDense(test))
	if err != nil {
		t.Fatal(err)
	}
	var pdiff mat.Dense
	pdiff.Sub(pg, pw)
	if e := mat.Norm(&pdiff, math.Inf(1)); e > 1e-10*mat.Norm(pw, math.Inf(1)) {
		t.Errorf("%s: predictions differ by %.3g", what, e)
	}
}

// The label-space methods' evaluation on sparse features, where the
// regressor takes the sparse route (asserted), gives the dense route's
// metrics: Hamming loss and every other metric to 1e-9.
func TestRunLabelSpaceSparseRidge(t *testing.T) {
	dense := sparseLabelled(4, 1200, 300, 60, 0.03)
	sp := dense
	sp.X, sp.Sparse = nil, sparse.FromDense(dense.X)
	splits, err := KFold(1200, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	if tr := sp.Sparse.SelectRows(splits[0].Train); !sparseRidgeWins(tr.R, tr.C, int64(tr.NNZ())) {
		t.Fatal("sparseRidgeWins is false on the training part; the test would compare the dense route with itself")
	}
	spec := Spec{Grid: Grid{Dims: []int{5, 20}}, Options: Options{Classifier: ClassifierKNN},
		Methods: []MethodRun{{ID: "plst"}, {ID: "cplst"}}}
	got := runSparseAsDense(t, dense, sp, splits, spec)
	for _, n := range got.Notes {
		if strings.Contains(n, "regressor from the features") {
			t.Errorf("note %q: the sparse route makes nothing dense", n)
		}
	}
}

// TestSparseRidgeShared: plst and cplst evaluated in one run share the
// factor of their regressor's system on each split's sparse rows
// (runner.sparseRidge); their metrics equal those of each evaluated alone,
// with the same λ and with cplst's λ different (then nothing is shared).
func TestSparseRidgeShared(t *testing.T) {
	in := sparseRunData(5, 900, 200, 6, 0.05)
	splits, err := KFold(900, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !sparseRidgeWins(600, 200, int64(in.Sparse.NNZ())) {
		t.Fatal("the sparse regressor is not taken on these rows")
	}
	for _, lambda := range []float64{0.1, 1} {
		plst := MethodRun{ID: "plst"}
		cplst := MethodRun{ID: "cplst", Params: analysis.Params{Lambda: analysis.Float(lambda)}}
		spec := func(m ...MethodRun) Spec {
			return Spec{Methods: m, Grid: Grid{Dims: []int{2, 4}}, Options: Options{Classifier: ClassifierKNN}}
		}
		both, err := Run(t.Context(), in, splits, spec(plst, cplst), nil)
		if err != nil {
			t.Fatal(err)
		}
		var alone []Row
		for _, m := range []MethodRun{plst, cplst} {
			res, err := Run(t.Context(), in, splits, spec(m), nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range res.Rows {
				if r.Method != Ori {
					alone = append(alone, r)
				}
			}
		}
		var shared []Row
		for _, r := range both.Rows {
			if r.Method != Ori {
				shared = append(shared, r)
			}
		}
		requireSameMetrics(t, &Result{Rows: shared}, &Result{Rows: alone})
	}
}
