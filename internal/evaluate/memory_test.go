package evaluate

import (
	"context"
	"fmt"
	"testing"

	"mldr/internal/analysis"
	"mldr/internal/memtest"
)

// checkRunPeak runs spec on in and splits and requires its measured peak,
// less uncounted (bytes the caller counts, not the estimate), to lie in
// [(est − 3 MiB) / 8, est]; it returns the peak.
func checkRunPeak(t *testing.T, in analysis.Input, splits []Split, spec Spec, est, uncounted int64) int64 {
	t.Helper()
	var runErr error
	peak, total := memtest.PeakWithin(est+uncounted, 8, 3<<20, func() { _, runErr = Run(context.Background(), in, splits, spec, nil) })
	if runErr != nil {
		t.Fatalf("Run: %v", runErr)
	}
	peak -= uncounted
	if peak > est {
		t.Errorf("measured peak %d bytes, above the estimate %d (total allocated %d)", peak, est, total)
	}
	if est > 8*peak+3<<20 {
		t.Errorf("estimate %d bytes, more than 8 × the measured peak %d + 3 MiB", est, peak)
	}
	t.Logf("estimate %9d  peak %9d  total %9d  estimate/peak %.2f", est, peak, total, float64(est)/float64(peak))
	return peak
}

// TestEstimateMemory runs evaluations on a small grid of shapes, specs and
// classifiers and checks measured peak ≤ estimate ≤ 8 × measured + 3 MiB
// (the fits' own 1 MiB constants and 1 MiB); -v prints the ratios.
func TestEstimateMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("measures real runs")
	}
	specs := []Spec{
		{Methods: []MethodRun{{ID: "pca", Params: analysis.Params{D: 5}}, {ID: "mddmp"}}},
		{Methods: []MethodRun{{ID: "cplst"}, {ID: "mlsi"}}, Grid: Grid{Percent: []float64{25, 50, 100}, Of: "rank"}},
		{Methods: []MethodRun{{ID: "pca"}, {ID: "kcplst"}}, Grid: Grid{Dims: []int{2, 4}}, Options: Options{Classifier: ClassifierRidge}},
		{Methods: []MethodRun{{ID: "lpp", Params: analysis.Params{K: 5}}, {ID: "ge-hamming"}}, Options: Options{Classifier: ClassifierRidge}},
		{Methods: []MethodRun{{ID: "pca"}, {ID: "mddmp"}}, Grid: Grid{Dims: []int{2, 4}}, Options: Options{Classifier: ClassifierSVM}},
		{Methods: []MethodRun{{ID: "pca"}, {ID: "mddmp"}}, Grid: Grid{Dims: []int{2, 4}}, Options: Options{Classifier: ClassifierKNN}},
		{Methods: []MethodRun{{ID: "mlcssp"}, {ID: "faie"}, {ID: "rembrandt"}, {ID: "leml"}}, Grid: Grid{Dims: []int{2, 4}}},
	}
	for _, sh := range []struct{ n, d, q int }{{200, 30, 6}, {60, 400, 5}, {500, 120, 10}} {
		for si, spec := range specs {
			t.Run(fmt.Sprintf("N=%d,D=%d,q=%d/spec%d", sh.n, sh.d, sh.q, si), func(t *testing.T) {
				in := runData(5, sh.n, sh.d, sh.q, nil)
				splits, err := KFold(sh.n, 4, 1)
				if err != nil {
					t.Fatal(err)
				}
				test := 0
				for _, s := range splits {
					test = max(test, len(s.Test))
				}
				est, err := EstimateMemory(analysis.Shape{N: sh.n, D: sh.d, Q: sh.q}, test, spec)
				if err != nil {
					t.Fatal(err)
				}
				checkRunPeak(t, in, splits, spec, est, 0)
			})
		}
	}
}

func TestEstimateMemoryRefusals(t *testing.T) {
	s := analysis.Shape{N: 100, D: 10, Q: 3}
	for _, tc := range []struct {
		name string
		s    analysis.Shape
		test int
		spec Spec
	}{
		{"no rows", analysis.Shape{N: 1, D: 10, Q: 3}, 1, Spec{}},
		{"test part too large", s, 100, Spec{}},
		{"unknown method", s, 10, Spec{Methods: []MethodRun{{ID: "nope"}}}},
		{"unknown classifier", s, 10, Spec{Options: Options{Classifier: "svc"}}},
		{"c of ridge", s, 10, Spec{Options: Options{Classifier: ClassifierRidge, C: 2}}},
		{"classifier none", s, 10, Spec{Options: Options{Classifier: ClassifierNone}}},
	} {
		if _, err := EstimateMemory(tc.s, tc.test, tc.spec); err == nil {
			t.Errorf("%s: got no error", tc.name)
		}
	}
}

// TestEstimateMemoryTransductive is TestEstimateMemory for mds, fitted on
// each split's training and test rows together: classical (nested, one
// fit per split) and metric (SMACOF: the N(N−1)/2 distances, one fit per
// d), with few starts and iterations to stay quick.
func TestEstimateMemoryTransductive(t *testing.T) {
	if testing.Short() {
		t.Skip("measures real runs")
	}
	specs := []Spec{
		{Methods: []MethodRun{{ID: "mds"}}, Grid: Grid{Dims: []int{2, 4}}, Options: Options{Classifier: ClassifierRidge}},
		{Methods: []MethodRun{{ID: "mds", Params: analysis.Params{MDSKind: analysis.MDSMetric, Starts: 1, Iterations: 20}}},
			Grid: Grid{Dims: []int{2, 3}}, Options: Options{Classifier: ClassifierRidge}},
		{Methods: []MethodRun{{ID: "mds", Params: analysis.Params{MDSKind: analysis.MDSNonmetric, D: 2, Starts: 1, Iterations: 20}}}},
	}
	for _, sh := range []struct{ n, d, q int }{{300, 30, 6}, {60, 400, 5}} {
		for si, spec := range specs {
			t.Run(fmt.Sprintf("N=%d,D=%d,q=%d/spec%d", sh.n, sh.d, sh.q, si), func(t *testing.T) {
				in := runData(5, sh.n, sh.d, sh.q, nil)
				splits, err := KFold(sh.n, 4, 1)
				if err != nil {
					t.Fatal(err)
				}
				est, err := EstimateMemory(analysis.Shape{N: sh.n, D: sh.d, Q: sh.q}, len(splits[0].Test), spec)
				if err != nil {
					t.Fatal(err)
				}
				checkRunPeak(t, in, splits, spec, est, 0)
			})
		}
	}
}
