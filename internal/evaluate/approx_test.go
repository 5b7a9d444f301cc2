package evaluate

import (
	"math"
	"slices"
	"strings"
	"testing"

	"mldr/internal/analysis"
)

// TestRunApproximateKNN checks the k-NN vote's approximate neighbour
// search in a run: with the exact search's predicted time above the
// budget, each method's vote searches approximately and a note says so
// with the recall measured; its metrics stay near the exact search's;
// with recall 1 the run is the exact run to the bit whatever the budget.
func TestRunApproximateKNN(t *testing.T) {
	data, splits := medicalFolds(t)
	spec := Spec{Methods: []MethodRun{{ID: "pca"}, {ID: "mddmp"}}, Grid: Grid{Dims: []int{20}}, Options: Options{Classifier: ClassifierKNN}}
	run := func(spec Spec, budget float64) *Result {
		r, err := newRunner(data, splits, spec, nil)
		if err != nil {
			t.Fatal(err)
		}
		r.budget = budget
		res, err := r.run(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	exact := run(spec, 0)
	approx := run(spec, 1e-9)
	for _, res := range []*Result{exact} {
		for _, note := range res.Notes {
			if strings.Contains(note, "approximately") {
				t.Fatalf("the exact run says %q", note)
			}
		}
	}
	// medical's features are dense here, so ori's vote is approximate too.
	for _, m := range []string{Ori, "pca", "mddmp"} {
		var note string
		for _, s := range approx.Notes {
			if strings.HasPrefix(s, m+": the k-NN vote searched its 10 nearest neighbours approximately") {
				note = s
			}
		}
		if note == "" || !strings.Contains(note, "recall@10") || !strings.Contains(note, "over 2 searches") {
			t.Errorf("no note of %s's approximate search with its recall over the 2 folds in %q", m, approx.Notes)
		}
		t.Log(note)
	}
	for i, row := range approx.Rows {
		want := exact.Rows[i]
		for _, key := range []string{"precision_at_1", "precision_at_5", "hamming_loss"} {
			if d := math.Abs(row.Metrics[key] - want.Metrics[key]); d > 0.03 {
				t.Errorf("%s d=%d fold %v: %s %.4f approximate, %.4f exact", row.Method, row.D, row.Fold, key, row.Metrics[key], want.Metrics[key])
			}
		}
	}
	spec.Options.Recall = 1
	forced := run(spec, 1e-9)
	for i, row := range forced.Rows {
		for key, v := range row.Metrics {
			if w := exact.Rows[i].Metrics[key]; v != w && !(math.IsNaN(v) && math.IsNaN(w)) {
				t.Fatalf("recall 1: %s d=%d %s = %v, the exact run's %v", row.Method, row.D, key, v, w)
			}
		}
	}
}

// TestRunWithoutBaseline checks that Options.Baseline false leaves out
// ori's rows and changes no other row, and that the memory estimate no
// longer counts ori's classifier on the features.
func TestRunWithoutBaseline(t *testing.T) {
	data, splits := medicalFolds(t)
	spec := Spec{Methods: []MethodRun{{ID: "pca"}}, Grid: Grid{Dims: []int{5, 10}}, Options: Options{Classifier: ClassifierKNN}}
	with, err := Run(t.Context(), data, splits, spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	off := false
	spec.Options.Baseline = &off
	without, err := Run(t.Context(), data, splits, spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	var kept []Row
	for _, r := range with.Rows {
		if r.Method != Ori {
			kept = append(kept, r)
		}
	}
	if len(kept) == len(with.Rows) || len(without.Rows) != len(kept) {
		t.Fatalf("%d rows with the baseline, %d of them not ori; %d without", len(with.Rows), len(kept), len(without.Rows))
	}
	if !sameMetrics(without, &Result{Rows: kept}, 0) {
		t.Fatalf("the methods' rows without the baseline %+v, with it %+v", without.Rows, kept)
	}

	// Sparse rows, which ridge on ori makes dense (N·D·8 bytes): more
	// than pca's fit and classifier at d = 2.
	shape := analysis.Shape{N: 20000, D: 5000, Q: 100, NNZ: 1e6}
	est := func(baseline bool) int64 {
		s := Spec{Methods: []MethodRun{{ID: "pca", Params: analysis.Params{D: 2}}}, Options: Options{Classifier: ClassifierRidge, Baseline: &baseline}}
		b, err := EstimateMemory(shape, 4000, s)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if a, b := est(true), est(false); b >= a {
		t.Errorf("memory estimate %d bytes without the baseline, %d with it", b, a)
	} else {
		t.Logf("%.2f GiB with the baseline, %.2f GiB without", float64(a)/(1<<30), float64(b)/(1<<30))
	}
}

// TestRunFitted checks Spec.Fitted: on one split, a model fitted before
// Run on its training part is evaluated instead of a second fit — cut to
// a grid of dims, or as it is when its parameters are the method's — with
// the fit's time on its rows and a note; the metrics are those of Run's
// own fit to rounding. With several splits, a grid of percentages or
// other parameters, Run fits as before.
func TestRunFitted(t *testing.T) {
	data := medical(t)
	n, _ := data.Y.Dims()
	h, err := Holdout(n, 0.3, 1)
	if err != nil {
		t.Fatal(err)
	}
	params := analysis.Params{D: 12}
	model, err := analysis.Fit(t.Context(), "pca", data.SelectRows(h.Train), params, nil)
	if err != nil {
		t.Fatal(err)
	}
	fitted := map[string]Fitted{"pca": {Model: model, Params: params, Seconds: 42}}
	const note = "pca: evaluated with the result model fitted on the same training rows, not fitted a second time"
	for _, tc := range []struct {
		name   string
		splits []Split
		grid   Grid
		params analysis.Params
		reused bool
	}{
		{"grid of dims", []Split{h}, Grid{Dims: []int{4, 8}}, params, true},
		{"own d", []Split{h}, Grid{}, params, true},
		{"own d, other parameters", []Split{h}, Grid{}, analysis.Params{D: 6}, false},
		{"percentages", []Split{h}, Grid{Percent: []float64{1}}, params, false},
		{"two splits", []Split{h, h}, Grid{Dims: []int{4}}, params, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := Spec{Methods: []MethodRun{{ID: "pca", Params: tc.params}}, Grid: tc.grid, Options: Options{Classifier: ClassifierKNN}}
			want, err := Run(t.Context(), data, tc.splits, spec, nil)
			if err != nil {
				t.Fatal(err)
			}
			spec.Fitted = fitted
			got, err := Run(t.Context(), data, tc.splits, spec, nil)
			if err != nil {
				t.Fatal(err)
			}
			if slices.Contains(got.Notes, note) != tc.reused {
				t.Fatalf("notes %q: want the reuse said %v", got.Notes, tc.reused)
			}
			if !sameMetrics(got, want, 1e-12) {
				t.Errorf("metrics with the model given %+v, Run's own fit %+v", got.Rows, want.Rows)
			}
			for _, r := range got.Rows {
				if r.Method == "pca" && (r.FitSeconds == 42) != tc.reused {
					t.Errorf("pca d=%d fit %v s; the given model's 42 s is the reuse's (%v)", r.D, r.FitSeconds, tc.reused)
				}
			}
		})
	}
}

// medical is the shared medical data set, dense.
func medical(t *testing.T) analysis.Input {
	t.Helper()
	ds := loadShared(t, "medical/medical.csv")
	return analysis.Input{X: ds.Dense(), Y: ds.DenseY()}
}

// medicalFolds is medical with 2 folds (seed 1).
func medicalFolds(t *testing.T) (analysis.Input, []Split) {
	t.Helper()
	data := medical(t)
	n, _ := data.Y.Dims()
	splits, err := KFold(n, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	return data, splits
}
