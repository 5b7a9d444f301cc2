package jobs

import (
	"errors"
	"math"
	"net/http"
	"strings"
	"testing"

	"mldr/internal/analysis"
	"mldr/internal/dataset"
	"mldr/internal/store"
)

// fakeDatasets is a DatasetLookup over fixed records.
type fakeDatasets map[string]store.DatasetRecord

func (f fakeDatasets) Dataset(id string) (store.DatasetRecord, error) {
	r, ok := f[id]
	if !ok {
		return r, store.ErrNotFound
	}
	return r, nil
}

func mlRecord(id string, rows, features, labels int) store.DatasetRecord {
	var names []string
	for i := range labels {
		names = append(names, string(rune('a'+i)))
	}
	s := dataset.Summary{Rows: rows, Features: features, Kind: dataset.MultiLabel, LabelCount: labels,
		LabelsDigest: dataset.NamesDigest(dataset.ListNames(names))}
	return store.DatasetRecord{ID: id, Summary: s}
}

func testDatasets() fakeDatasets {
	md := store.DatasetRecord{ID: "md", Folds: 10, Summary: dataset.Summary{Rows: 150, Features: 8, Kind: dataset.MultiDim, LabelCount: 2,
		Classes: 7, MaxClasses: 4, LabelsDigest: dataset.NamesDigest(dataset.ListNames([]string{"u", "v"}))}}
	return fakeDatasets{
		"ml":    mlRecord("ml", 100, 20, 6),
		"ml2":   mlRecord("ml2", 40, 20, 6),
		"wide":  mlRecord("wide", 40, 21, 6),
		"small": mlRecord("small", 8, 3, 2),
		"md":    md,
	}
}

func TestValidate(t *testing.T) {
	ds := testDatasets()
	f := analysis.Float
	tests := []struct {
		name   string
		req    Request
		status int
		field  string
	}{
		{"no data set", Request{Method: "pca"}, 400, "dataset"},
		{"unknown data set", Request{Dataset: "nope", Method: "pca"}, 422, "dataset"},
		{"no method", Request{Dataset: "ml"}, 400, "method"},
		{"method and methods", Request{Dataset: "ml", Method: "pca", Methods: []string{"mddmp"}}, 400, "methods"},
		{"unknown method", Request{Dataset: "ml", Method: "tsne"}, 400, "method"},
		{"a method twice", Request{Dataset: "ml", Methods: []string{"pca", "pca"}}, 400, "methods"},
		{"d and thr", Request{Dataset: "ml", Method: "pca", Params: analysis.Params{D: 2, Thr: 0.9}}, 400, "params.d"},
		{"parameter not taken", Request{Dataset: "ml", Method: "pca", Params: analysis.Params{Beta: f(0.5)}}, 400, "params.beta"},
		{"parameter no chosen method takes", Request{Dataset: "ml", Methods: []string{"pca", "mddmp"}, Params: analysis.Params{Lambda: f(1)}}, 400, "params.lambda"},
		{"beta out of range", Request{Dataset: "ml", Method: "mvmd", Params: analysis.Params{Beta: f(2)}}, 400, "params.beta"},
		{"d above the bound", Request{Dataset: "ml", Method: "mddmp", Params: analysis.Params{D: 7}}, 422, "params.d"},
		{"wrong kind of data", Request{Dataset: "ml", Method: "sdem"}, 422, "method"},
		{"more neighbours than rows", Request{Dataset: "ml", Method: "lpp", Params: analysis.Params{K: 150}}, 422, "params.k"},
		{"k above its cap", Request{Dataset: "ml", Method: "lpp", Params: analysis.Params{K: 250}}, 400, "params.k"},
		{"evaluation without a split", Request{Dataset: "ml", Method: "pca", Split: &Split{Kind: SplitNone}, Evaluate: &Evaluate{}}, 400, "split"},
		{"unknown split", Request{Dataset: "ml", Method: "pca", Split: &Split{Kind: "bootstrap"}}, 400, "split.kind"},
		{"bad test fraction", Request{Dataset: "ml", Method: "pca", Split: &Split{Kind: SplitHoldout, TestFraction: 1.5}}, 400, "split.test_fraction"},
		{"too many folds", Request{Dataset: "ml", Method: "pca", Split: &Split{Kind: SplitKFold, Folds: 101}}, 400, "split.folds"},
		{"no predefined folds", Request{Dataset: "ml", Method: "pca", Split: &Split{Kind: SplitPredefined}}, 422, "split"},
		{"unknown classifier", Request{Dataset: "ml", Method: "pca", Evaluate: &Evaluate{Classifier: "svc"}}, 400, "evaluate.classifier"},
		{"c of mlknn", Request{Dataset: "ml", Method: "pca", Evaluate: &Evaluate{C: 2}}, 400, "evaluate.c"},
		{"eps of ridge", Request{Dataset: "ml", Method: "pca", Evaluate: &Evaluate{Classifier: "ridge", Eps: 0.1}}, 400, "evaluate.eps"},
		{"negative c", Request{Dataset: "ml", Method: "pca", Evaluate: &Evaluate{Classifier: "svm", C: -1}}, 400, "evaluate.c"},
		{"negative eps", Request{Dataset: "ml", Method: "pca", Evaluate: &Evaluate{Classifier: "svm", Eps: -1e-3}}, 400, "evaluate.eps"},
		{"c of knn", Request{Dataset: "ml", Method: "pca", Evaluate: &Evaluate{Classifier: "knn", C: 1}}, 400, "evaluate.c"},
		{"negative k of knn", Request{Dataset: "ml", Method: "pca", Evaluate: &Evaluate{Classifier: "knn", K: -1}}, 400, "evaluate"},
		{"knn k above the training rows", Request{Dataset: "ml", Method: "pca", Evaluate: &Evaluate{Classifier: "knn", K: 81}}, 422, "evaluate.k"},
		{"knn k above the training rows of multi-dimensional data", Request{Dataset: "md", Methods: []string{"sdem"}, Evaluate: &Evaluate{Classifier: "knn", K: 121}}, 422, "evaluate.k"},
		{"negative ps_a", Request{Dataset: "ml", Method: "pca", Evaluate: &Evaluate{PsA: -0.55}}, 400, "evaluate.ps_a"},
		{"NaN ps_b", Request{Dataset: "ml", Method: "pca", Evaluate: &Evaluate{PsB: math.NaN()}}, 400, "evaluate.ps_b"},
		{"ps_b on multi-dimensional data", Request{Dataset: "md", Methods: []string{"sdem"}, Split: &Split{Kind: SplitPredefined},
			Evaluate: &Evaluate{PsB: 2.6}}, 422, "evaluate.ps_b"},
		{"recall of mlknn", Request{Dataset: "ml", Method: "pca", Evaluate: &Evaluate{Recall: 0.9}}, 400, "evaluate.recall"},
		{"recall above 1", Request{Dataset: "ml", Method: "pca", Evaluate: &Evaluate{Classifier: "knn", Recall: 1.5}}, 400, "evaluate.recall"},
		{"negative recall", Request{Dataset: "ml", Method: "pca", Evaluate: &Evaluate{Classifier: "knn", Recall: -0.5}}, 400, "evaluate.recall"},
		{"recall on multi-dimensional data", Request{Dataset: "md", Methods: []string{"sdem"}, Split: &Split{Kind: SplitPredefined},
			Evaluate: &Evaluate{Classifier: "knn", Recall: 0.9}}, 400, "evaluate.recall"},
		{"dims and percent", Request{Dataset: "ml", Method: "pca", Evaluate: &Evaluate{Dims: []int{1}, Percent: []float64{10}}}, 400, "evaluate.dims"},
		{"bad percent", Request{Dataset: "ml", Method: "pca", Evaluate: &Evaluate{Percent: []float64{0}}}, 400, "evaluate.percent"},
		{"test set of other columns", Request{Dataset: "ml", TestDataset: "wide", Method: "pca"}, 422, "test_dataset"},
		{"test set and a split", Request{Dataset: "ml", TestDataset: "ml2", Method: "pca", Split: &Split{Kind: SplitKFold}}, 400, "split"},
		{"too many cells", Request{Dataset: "ml", Method: "pca"}, 413, "dataset"},
		{"too many rows for a pairwise method", Request{Dataset: "ml", Methods: []string{"pca", "lpp"}}, 422, "method"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lim := Limits{}
			switch tc.name {
			case "too many cells":
				lim.MaxCells = 1999
			case "too many rows for a pairwise method":
				lim.MaxPairwiseRows = 50
			}
			req := tc.req
			req.Normalize()
			err := req.Validate(ds, lim)
			var re *RequestError
			if !errors.As(err, &re) {
				t.Fatalf("got %v, want a RequestError", err)
			}
			if re.Status != tc.status || re.Field != tc.field {
				t.Errorf("got %d on %q (%s), want %d on %q", re.Status, re.Field, re.Msg, tc.status, tc.field)
			}
		})
	}
	for _, ok := range []Request{
		{Dataset: "ml", Method: "mddmp", Params: analysis.Params{D: 6}, Evaluate: &Evaluate{}},
		{Dataset: "ml", Methods: []string{"pca", "mvmd"}, Params: analysis.Params{Beta: f(0.3), Thr: 0.9}},
		{Dataset: "md", Methods: []string{"sdem", "lda"}, Split: &Split{Kind: SplitPredefined}, Evaluate: &Evaluate{Classifier: "ridge"}},
		{Dataset: "md", Methods: []string{"sdem", "pca"}, Split: &Split{Kind: SplitPredefined}, Evaluate: &Evaluate{Classifier: "svm", C: 0.5}},
		{Dataset: "ml", TestDataset: "ml2", Method: "cplst", Evaluate: &Evaluate{Dims: []int{1, 2}}},
		{Dataset: "ml", Method: "mds", Params: analysis.Params{D: 2}},
		{Dataset: "ml", Method: "pca", Evaluate: &Evaluate{Classifier: "ridge", PsA: 0.5, PsB: 0.4}},
		// knn needs at most as many neighbours as training rows (80 of
		// the holdout's), one more than ML-kNN, whose rows leave themselves out.
		{Dataset: "ml", Method: "pca", Evaluate: &Evaluate{Classifier: "knn", K: 80}},
		{Dataset: "md", Methods: []string{"sdem", "lda"}, Evaluate: &Evaluate{Classifier: "knn", K: 120}},
	} {
		ok.Normalize()
		if err := ok.Validate(ds, Limits{MaxCells: 1 << 30, MaxPairwiseRows: 50}); err != nil {
			t.Errorf("%+v: %v", ok, err)
		}
	}
}

func TestNormalize(t *testing.T) {
	r := Request{Dataset: "ml", Method: "pca", Evaluate: &Evaluate{}}
	r.Normalize()
	if r.Split.Kind != SplitHoldout || r.Split.TestFraction != 0.2 || r.Split.Seed != 1 {
		t.Errorf("an evaluation's default split: got %+v", r.Split)
	}
	if e := r.Evaluate; e.Classifier != "mlknn" || e.K != 10 || e.S != 1 || e.Lambda != 0.1 || e.C != 0 || e.Eps != 0 {
		t.Errorf("evaluation defaults: got %+v", e)
	}
	r = Request{Dataset: "ml", Method: "pca", Evaluate: &Evaluate{Classifier: "svm"}}
	r.Normalize()
	if e := r.Evaluate; e.C != 1 || e.Eps != 1e-4 {
		t.Errorf("the svm's defaults: got c = %v, eps = %v, want 1 and 0.0001", e.C, e.Eps)
	}
	r = Request{Dataset: "ml", Method: "pca"}
	r.Normalize()
	if r.Split.Kind != SplitNone {
		t.Errorf("without an evaluation: got split %+v", r.Split)
	}
	r = Request{Dataset: "ml", Method: "pca", Split: &Split{Kind: SplitKFold}}
	r.Normalize()
	if r.Split.Folds != 10 || r.Split.Seed != 1 {
		t.Errorf("kfold defaults: got %+v", r.Split)
	}
	_ = http.StatusOK
}

// The server's limit on pairwise methods lowers each method's own cap and
// never raises it, and leaves other methods alone.
func TestPairwiseRows(t *testing.T) {
	lpp, _ := analysis.Lookup("lpp")
	kcplst, _ := analysis.Lookup("kcplst")
	pca, _ := analysis.Lookup("pca")
	tests := []struct {
		m    analysis.Method
		lim  int
		want int
	}{
		{lpp, 0, lpp.MaxN},
		{lpp, 1000, 1000},
		{lpp, lpp.MaxN * 10, lpp.MaxN},
		{kcplst, 10000, kcplst.MaxN},
		{kcplst, 5000, 5000},
		{pca, 1000, 0},
	}
	for _, tc := range tests {
		if got := (Limits{MaxPairwiseRows: tc.lim}).PairwiseRows(tc.m); got != tc.want {
			t.Errorf("%s under %d: got %d, want %d", tc.m.ID, tc.lim, got, tc.want)
		}
	}
}

// TestValidateTransductiveRows: metric and nonmetric mds hold the
// distances of every pair of the rows they embed, at most
// analysis.MaxNSMACOF; evaluated, they embed each split's training and
// test rows together (and a test data set's rows besides), so a holdout
// whose training part is under the limit is still refused when the data
// are over it, naming what is embedded.
func TestValidateTransductiveRows(t *testing.T) {
	ds := fakeDatasets{
		"big":   mlRecord("big", analysis.MaxNSMACOF+600, 5, 3),
		"train": mlRecord("train", analysis.MaxNSMACOF-100, 5, 3),
		"test":  mlRecord("test", 300, 5, 3),
		"fits":  mlRecord("fits", analysis.MaxNSMACOF-100, 5, 3),
	}
	metric := analysis.Params{MDSKind: analysis.MDSMetric}
	holdout := &Split{Kind: SplitHoldout, TestFraction: 0.2}
	for _, tc := range []struct {
		name string
		req  Request
		want string // in the refusal; "" for none
	}{
		{"a holdout over the limit", Request{Dataset: "big", Method: "mds", Params: metric, Split: holdout, Evaluate: &Evaluate{}},
			"each split's training and test rows together, 5600 rows"},
		{"a test data set over it with the training set", Request{Dataset: "train", TestDataset: "test", Method: "mds", Params: metric, Evaluate: &Evaluate{}},
			"the training and test data sets together, 5200 rows"},
		{"classical has no limit", Request{Dataset: "big", Method: "mds", Split: holdout, Evaluate: &Evaluate{}}, ""},
		{"under the limit", Request{Dataset: "fits", Method: "mds", Params: metric, Split: holdout, Evaluate: &Evaluate{}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := tc.req
			req.Normalize()
			err := req.Validate(ds, Limits{MaxCells: 1 << 30})
			if tc.want == "" {
				if err != nil {
					t.Fatalf("got %v, want no refusal", err)
				}
				return
			}
			var re *RequestError
			if !errors.As(err, &re) || re.Status != http.StatusUnprocessableEntity || !strings.Contains(re.Msg, tc.want) || !strings.Contains(re.Msg, "5000") {
				t.Fatalf("got %v, want a 422 naming %q and the limit 5000", err, tc.want)
			}
		})
	}
}
