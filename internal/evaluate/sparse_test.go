package evaluate

import (
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"mldr/internal/analysis"
	"mldr/internal/dataset"
	"mldr/internal/sparse"
)

// TestRunSparseMatchesDense evaluates methods on medical and enron from
// the dense features and from the same features in CSR form (folds of
// sparse rows, test rows projected from sparse, the ori baseline's
// neighbours found on the sparse rows) and requires the same metrics,
// row for row: the neighbours are the same, so ML-kNN's metrics are
// equal, and the projections agree to rounding.
func TestRunSparseMatchesDense(t *testing.T) {
	if testing.Short() {
		t.Skip("evaluates on two shared data sets twice")
	}
	for _, tc := range []struct {
		file       string
		classifier string
		methods    []string
	}{
		{"medical/medical.csv", ClassifierMLkNN, []string{"pca", "mddmp", "cplst", "mvmd"}},
		{"enron/enron.csv", ClassifierMLkNN, []string{"pca", "mddmp", "cplst", "mvmd"}},
		{"medical/medical.csv", ClassifierRidge, []string{"mddmp"}},
		{"medical/medical.csv", ClassifierKNN, []string{"pca"}},
		{"edm/edm.csv", ClassifierMLkNN, []string{"sdem"}},
		{"edm/edm.csv", ClassifierSVM, []string{"sdem", "lda"}},
		{"emotions/emotions.csv", ClassifierSVM, []string{"mddmp"}},
	} {
		if RaceEnabled && (tc.file == "enron/enron.csv" || len(tc.methods) > 2) {
			continue // the largest in the pass without -race
		}
		t.Run(tc.file+"/"+tc.classifier, func(t *testing.T) {
			ds := loadShared(t, tc.file)
			dense := analysis.Input{X: ds.Dense(), Y: ds.Y}
			if ds.Kind == dataset.MultiDim {
				for _, cats := range ds.Categories {
					dense.Classes = append(dense.Classes, len(cats))
				}
			}
			sp := dense
			sp.X, sp.Sparse = nil, sparse.FromDense(dense.X)
			n, _ := ds.Y.Dims()
			splits, err := KFold(n, 2, 1)
			if err != nil {
				t.Fatal(err)
			}
			spec := Spec{Grid: Grid{Dims: []int{2, 4}}, Options: Options{Classifier: tc.classifier}}
			for _, id := range tc.methods {
				spec.Methods = append(spec.Methods, MethodRun{ID: id})
			}
			got := runSparseAsDense(t, dense, sp, splits, spec)
			if tc.classifier == ClassifierRidge && !slices.ContainsFunc(got.Notes, func(s string) bool { return strings.Contains(s, "made dense") }) {
				t.Errorf("notes %q, want one saying the ridge baseline made the features dense", got.Notes)
			}
		})
	}
}

// loadShared loads a shared data set (file under ../shared/datasets),
// skipping the test when it is missing.
func loadShared(t *testing.T, file string) *dataset.Dataset {
	t.Helper()
	path := filepath.Join("..", "..", "..", "shared", "datasets", filepath.FromSlash(file))
	raw, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		t.Skipf("%s is missing: the comparison needs the shared data sets", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	ds, err := dataset.Load(strings.NewReader(string(raw)), dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func TestRunSparsePreprocessRefused(t *testing.T) {
	in := runData(4, 40, 4, 2, nil)
	in.X, in.Sparse = nil, sparse.FromDense(in.X)
	h, _ := Holdout(40, 0.25, 1)
	_, err := Run(t.Context(), in, []Split{h}, Spec{Methods: []MethodRun{{ID: "pca"}}, Options: Options{Preprocess: "standardize"}}, nil)
	if err == nil || !strings.Contains(err.Error(), "sparse data are evaluated with preprocess none") {
		t.Fatalf("got %v, want the refusal of preprocess on sparse features", err)
	}
}

// requireSameMetrics requires got to have want's rows, method and d for method
// and d, and every metric equal to 1e-9 (relative above 1; NaN for NaN).
func requireSameMetrics(t *testing.T, got, want *Result) {
	t.Helper()
	if len(got.Rows) != len(want.Rows) {
		t.Fatalf("%d rows, want %d", len(got.Rows), len(want.Rows))
	}
	for i, w := range want.Rows {
		g := got.Rows[i]
		if g.Method != w.Method || g.D != w.D {
			t.Fatalf("row %d is %s at d = %d, want %s at d = %d", i, g.Method, g.D, w.Method, w.D)
		}
		for _, k := range slices.Sorted(maps.Keys(w.Metrics)) {
			gv, wv := g.Metrics[k], w.Metrics[k]
			if !(gv == wv || math.Abs(gv-wv) <= 1e-9*max(1, math.Abs(wv)) || (math.IsNaN(gv) && math.IsNaN(wv))) {
				t.Errorf("%s at d = %d (fold %v): %s = %v, want %v", w.Method, w.D, w.Fold, k, gv, wv)
			}
		}
	}
}

// runSparseAsDense runs spec on the dense input and on the same features
// in CSR form (sp), requires the same metrics (requireSameMetrics), and
// returns the sparse run's result.
func runSparseAsDense(t *testing.T, dense, sp analysis.Input, splits []Split, spec Spec) *Result {
	t.Helper()
	want, err := Run(t.Context(), dense, splits, spec, nil)
	if err != nil {
		t.Fatalf("dense: %v", err)
	}
	got, err := Run(t.Context(), sp, splits, spec, nil)
	if err != nil {
		t.Fatalf("sparse: %v", err)
	}
	requireSameMetrics(t, got, want)
	return got
}

// TestRunSparseLabels evaluates methods on medical from dense labels and
// from the same labels in CSR form (analysis.Input.Labels), with the
// k-NN vote, which keeps them sparse (scoring a row at
// a time, the rows split among the cores when there are more than 128
// each, decoding the label-space methods in blocks of decodeBlock rows:
// medical's test parts take two of each), and with ML-kNN, for which Run makes
// them dense; and requires the same metrics and per-row errors.
func TestRunSparseLabels(t *testing.T) {
	if testing.Short() {
		t.Skip("evaluates on a shared data set twice")
	}
	ds := loadShared(t, "medical/medical.csv")
	dense := analysis.Input{X: ds.Dense(), Y: ds.DenseY()}
	// The same features (dense: the label-space regressor then takes the
	// same route in both runs, so their scores round alike and ties in
	// them break alike), the labels in CSR form.
	sl := analysis.Input{X: dense.X, Labels: sparse.FromDense(dense.Y)}
	n, _ := dense.Y.Dims()
	splits, err := KFold(n, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(splits[0].Test) <= decodeBlock {
		t.Fatalf("a test part of %d rows decodes in one block of %d; want several", len(splits[0].Test), decodeBlock)
	}
	for _, tc := range []struct {
		classifier string
		methods    []string
	}{
		{ClassifierKNN, []string{"pca", "mddmp", "plst", "cplst"}},
		{ClassifierMLkNN, []string{"plst"}},
	} {
		t.Run(tc.classifier, func(t *testing.T) {
			if RaceEnabled && len(tc.methods) > 2 {
				t.Skip("the pass without -race runs it")
			}
			spec := Spec{Grid: Grid{Dims: []int{2, 4}}, Options: Options{Classifier: tc.classifier}, RowErrors: true}
			for _, id := range tc.methods {
				spec.Methods = append(spec.Methods, MethodRun{ID: id})
			}
			if got := KeepsLabelsSparse(spec); got != (tc.classifier == ClassifierKNN) {
				t.Errorf("KeepsLabelsSparse = %v", got)
			}
			got := runSparseAsDense(t, dense, sl, splits, spec)
			want, err := Run(t.Context(), dense, splits, spec, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(got.RowErrors) != len(want.RowErrors) || len(got.RowErrors) == 0 {
				t.Fatalf("%d cells of row errors, want %d (not 0)", len(got.RowErrors), len(want.RowErrors))
			}
			for c, w := range want.RowErrors {
				g := got.RowErrors[c]
				if !slices.Equal(g.Hamming, w.Hamming) && !slices.EqualFunc(g.Hamming, w.Hamming, func(a, b float32) bool { return a == b || a != a && b != b }) {
					t.Errorf("%s at d = %d: per-row Hamming losses differ", w.Method, w.D)
				}
				if !slices.Equal(g.TP, w.TP) || !slices.Equal(g.FP, w.FP) || !slices.Equal(g.FN, w.FN) || len(w.TP) == 0 {
					t.Errorf("%s at d = %d: per-label counts differ from the dense labels' (or are missing)", w.Method, w.D)
				}
			}
		})
	}
}
