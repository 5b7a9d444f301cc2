package evaluate

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"mldr/internal/analysis"
	"mldr/internal/sparse"
)

// sparseRunData is runData with all but about density of the feature
// cells set to 0, in CSR form (the labels still follow the first
// features).
func sparseRunData(seed uint64, n, d, q int, density float64) analysis.Input {
	in := runData(seed, n, d, q, nil)
	rng := rand.New(rand.NewPCG(seed, 9))
	for i := range n {
		row := in.X.RawRowView(i)
		for j := range row {
			if rng.Float64() >= density {
				row[j] = 0
			}
		}
	}
	return analysis.Input{Sparse: sparse.FromDense(in.X), Y: in.Y}
}

// TestEstimateMemorySparse checks EstimateMemory with Shape.NNZ against
// evaluations on sparse features, as TestEstimateMemory does on dense
// ones: measured peak ≤ estimate ≤ 8 × measured + 3 MiB, and the estimate
// below the one for the same shape counted dense (the split's copies and
// the neighbour search's are CSR) unless a regressor makes the features
// dense.
func TestEstimateMemorySparse(t *testing.T) {
	if testing.Short() {
		t.Skip("measures real runs")
	}
	specs := []struct {
		spec  Spec
		below bool // the estimate is below the dense one
		// ridge: below only where the label-space regressor takes the
		// sparse rows (sparseRidgeWins on the training part)
		ridge bool
	}{
		{Spec{Methods: []MethodRun{{ID: "pca", Params: analysis.Params{D: 5}}, {ID: "mddmp"}}}, true, false},
		{Spec{Methods: []MethodRun{{ID: "mvmd"}}, Grid: Grid{Dims: []int{2, 4, 8}}}, true, false},
		{Spec{Methods: []MethodRun{{ID: "cplst"}}, Grid: Grid{Dims: []int{2, 4}}, Options: Options{Classifier: ClassifierRidge}}, false, false},
		{Spec{Methods: []MethodRun{{ID: "pca", Params: analysis.Params{D: 4}}}, Options: Options{Classifier: ClassifierRidge}}, false, false},
		{Spec{Methods: []MethodRun{{ID: "pca", Params: analysis.Params{D: 4}}}, Options: Options{Classifier: ClassifierSVM}}, true, false},
		{Spec{Methods: []MethodRun{{ID: "pca", Params: analysis.Params{D: 4}}}, Options: Options{Classifier: ClassifierKNN}}, true, false},
		// The label-space regressor on the sparse rows where the primal
		// path and the density allow (the second shape), dense otherwise.
		{Spec{Methods: []MethodRun{{ID: "plst"}, {ID: "cplst"}}, Grid: Grid{Dims: []int{2, 4}}, Options: Options{Classifier: ClassifierKNN}}, true, true},
	}
	for _, sh := range []struct {
		n, d, q int
		density float64
	}{{400, 600, 5, 0.02}, {900, 200, 6, 0.05}} {
		for si, c := range specs {
			t.Run(fmt.Sprintf("N=%d,D=%d,q=%d,density=%v/spec%d", sh.n, sh.d, sh.q, sh.density, si), func(t *testing.T) {
				in := sparseRunData(5, sh.n, sh.d, sh.q, sh.density)
				splits, err := KFold(sh.n, 3, 1)
				if err != nil {
					t.Fatal(err)
				}
				test := 0
				for _, s := range splits {
					test = max(test, len(s.Test))
				}
				shape := analysis.Shape{N: sh.n, D: sh.d, Q: sh.q, NNZ: int64(in.Sparse.NNZ())}
				est, err := EstimateMemory(shape, test, c.spec)
				if err != nil {
					t.Fatal(err)
				}
				shape.NNZ = 0
				dense, err := EstimateMemory(shape, test, c.spec)
				if err != nil {
					t.Fatal(err)
				}
				var runErr error
				peak, total := measurePeak(func() { _, runErr = Run(context.Background(), in, splits, c.spec, nil) })
				if runErr != nil {
					t.Fatalf("Run: %v", runErr)
				}
				if peak > est {
					t.Errorf("measured peak %d bytes, above the estimate %d (total allocated %d)", peak, est, total)
				}
				if est > 8*peak+3<<20 {
					t.Errorf("estimate %d bytes, more than 8 × the measured peak %d + 3 MiB", est, peak)
				}
				below := c.below && (!c.ridge || sparseRidgeWins(sh.n-test, sh.d, int64(in.Sparse.NNZ())))
				if below && est >= dense {
					t.Errorf("estimate %d bytes on sparse features, not below %d counted dense", est, dense)
				}
				t.Logf("estimate %9d  dense %9d  peak %9d  total %9d  estimate/peak %.2f", est, dense, peak, total, float64(est)/float64(peak))
			})
		}
	}
}

// EstimateMemory counts a fit on a grid as Run makes it, computing the
// directions up to the grid's largest d only: a 1 500-feature pca whose
// grid stops at d = 10 is estimated near the same pca fitted at d = 10
// with no grid (the grid's metric rows aside), not as the whole
// decomposition, which is what a
// fit with no d and no grid computes (its default thr needs every
// eigenvalue) and what the grid's fit was counted as before.
func TestEstimateMemoryGridMaxDim(t *testing.T) {
	s := analysis.Shape{N: 20000, D: 5000, Q: 10, NNZ: 2_000_000}
	est := func(spec Spec) int64 {
		spec.Options = Options{Classifier: ClassifierKNN}
		b, err := EstimateMemory(s, 4000, spec)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	grid := est(Spec{Methods: []MethodRun{{ID: "pca"}}, Grid: Grid{Dims: []int{10}}})
	own := est(Spec{Methods: []MethodRun{{ID: "pca", Params: analysis.Params{D: 10}}}})
	whole := est(Spec{Methods: []MethodRun{{ID: "pca"}}})
	if grid >= (own+whole)/2 {
		t.Errorf("estimate with the grid d = 10: %d bytes; at d = 10 with no grid: %d; the whole decomposition: %d; want the first nearer the second", grid, own, whole)
	}
}
