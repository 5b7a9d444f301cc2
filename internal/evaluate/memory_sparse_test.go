package evaluate

import (
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
		// sparse rows (sparseRegressor on the training part)
		ridge bool
	}{
		{Spec{Methods: []MethodRun{{ID: "pca", Params: analysis.Params{D: 5}}, {ID: "mddmp"}}}, true, false},
		{Spec{Methods: []MethodRun{{ID: "mvmd"}}, Grid: Grid{Dims: []int{2, 4, 8}}}, true, false},
		{Spec{Methods: []MethodRun{{ID: "cplst"}}, Grid: Grid{Dims: []int{2, 4}}, Options: Options{Classifier: ClassifierRidge}}, false, false},
		{Spec{Methods: []MethodRun{{ID: "pca", Params: analysis.Params{D: 4}}}, Options: Options{Classifier: ClassifierRidge}}, false, false},
		{Spec{Methods: []MethodRun{{ID: "pca", Params: analysis.Params{D: 4}}}, Options: Options{Classifier: ClassifierSVM}}, true, false},
		{Spec{Methods: []MethodRun{{ID: "pca", Params: analysis.Params{D: 4}}}, Options: Options{Classifier: ClassifierKNN}}, true, false},
		// The label-space regressor on the sparse rows where the density
		// allows (the primal system on the second shape, the dual one on
		// the first), dense otherwise.
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
				peak := checkRunPeak(t, in, splits, c.spec, est, 0)
				below := c.below && (!c.ridge || sparseRegressor(sh.n-test, sh.d, int64(in.Sparse.NNZ())))
				if below && est >= dense {
					t.Errorf("estimate %d bytes on sparse features, not below %d counted dense", est, dense)
				}
				t.Logf("dense %9d  peak %9d", dense, peak)
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

// wideLabelData is n rows of d sparse features (about 12 a row) and q
// labels held sparse (Input.Labels), 1–3 a row, the first marking a
// feature column so that the neighbours find it.
func wideLabelData(seed uint64, n, d, q int) analysis.Input {
	rng := rand.New(rand.NewPCG(seed, 4))
	xb, yb := sparse.NewBuilder(d, 12*n), sparse.NewBuilder(q, 2*n)
	for range n {
		first := rng.IntN(q)
		labels := map[int]bool{first: true}
		for range rng.IntN(3) {
			labels[rng.IntN(q)] = true
		}
		for l := range q {
			if labels[l] {
				yb.Add(l, 1)
			}
		}
		yb.EndRow()
		cols := map[int]float64{first % d: 3}
		for len(cols) < 12 {
			cols[rng.IntN(d)] += 0.5 + rng.Float64()
		}
		for j := range d {
			if v, ok := cols[j]; ok {
				xb.Add(j, v)
			}
		}
		xb.EndRow()
	}
	return analysis.Input{Sparse: xb.Build(), Labels: yb.Build()}
}

// TestEstimateMemorySparseLabels checks EstimateMemory with
// Shape.LabelsSparse against evaluations of 2 000 labels held sparse:
// measured peak ≤ estimate ≤ 8 × measured + 3 MiB; with the k-NN vote,
// which keeps them sparse, the estimate is below the one for the same
// labels dense by at least their dense N×q copy, and with ML-kNN, for which Run makes them dense, it
// is that one.
func TestEstimateMemorySparseLabels(t *testing.T) {
	if testing.Short() {
		t.Skip("measures real runs")
	}
	const n, d, q = 3000, 300, 2000
	in := wideLabelData(3, n, d, q)
	splits, err := KFold(n, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	test := 0
	for _, s := range splits {
		test = max(test, len(s.Test))
	}
	for _, tc := range []struct {
		spec   Spec
		sparse bool // Run keeps the labels sparse
	}{
		{Spec{Methods: []MethodRun{{ID: "pca", Params: analysis.Params{D: 5}}, {ID: "plst"}, {ID: "cplst"}}, Grid: Grid{Dims: []int{2, 4}}, Options: Options{Classifier: ClassifierKNN}, RowErrors: true}, true},
		{Spec{Methods: []MethodRun{{ID: "pca", Params: analysis.Params{D: 5}}}, Options: Options{Classifier: ClassifierMLkNN}}, false},
	} {
		t.Run(tc.spec.Options.Classifier, func(t *testing.T) {
			shape := analysis.Shape{N: n, D: d, Q: q, NNZ: int64(in.Sparse.NNZ()), LabelOnes: in.Labels.NNZ(), LabelsSparse: true}
			est, err := EstimateMemory(shape, test, tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			shape.LabelsSparse = false
			dense, err := EstimateMemory(shape, test, tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			if tc.sparse && dense-est < 8*n*q {
				t.Errorf("estimate %d bytes with the labels kept sparse, not below the %d counted dense by the split's dense labels (%d) at least", est, dense, 8*n*q)
			}
			if !tc.sparse && est != dense {
				t.Errorf("estimate %d bytes, want the %d of dense labels, which Run makes", est, dense)
			}
			// Run's dense copy of the labels is the caller's to count (jobs
			// admission does): measured without it.
			uncounted := int64(0)
			if !tc.sparse {
				uncounted = int64(8 * n * q)
			}
			checkRunPeak(t, in, splits, tc.spec, est, uncounted)
			t.Logf("dense %9d", dense)
		})
	}
}
