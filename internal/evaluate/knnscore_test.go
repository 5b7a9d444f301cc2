package evaluate

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/analysis"
	"mldr/internal/knn"
	"mldr/internal/sparse"
)

// TestKNNHandComputed: six training points on a line, three labels, k = 3.
//
//	row:    0    1    2    3    4    5
//	x:      0    1    3   −1    5    8
//	labels: 101  110  010  100  001  100
//
// Test x = 1: squared distances 1, 0, 4, 4, 16, 49: neighbours 1, 0 and,
// of rows 2 and 3 tied at 4, row 2 (the lower index); scores 110 + 101 +
// 010 = [2 2 1], predicted where 2·score > 3: 110. (Row 3 instead would
// give [3 1 1].) Test x = 4: distances 16, 9, 1, 25, 1, 16: rows 2, 4, 1;
// [1 2 1] → 010. Test x = −3: 9, 16, 36, 4, 64, 121: rows 3, 0, 1;
// [3 1 1] → 100. Test x = 6: 36, 25, 9, 49, 1, 4: rows 4, 5, 2; [1 1 1]:
// no label has more than half the votes, so nothing is predicted.
func TestKNNHandComputed(t *testing.T) {
	xtr := mat.NewDense(6, 1, []float64{0, 1, 3, -1, 5, 8})
	ytr := mat.NewDense(6, 3, []float64{
		1, 0, 1,
		1, 1, 0,
		0, 1, 0,
		1, 0, 0,
		0, 0, 1,
		1, 0, 0,
	})
	xte := mat.NewDense(4, 1, []float64{1, 4, -3, 6})
	wantScores := [][]float64{{2, 2, 1}, {1, 2, 1}, {3, 1, 1}, {1, 1, 1}}
	wantPred := [][]float64{{1, 1, 0}, {0, 1, 0}, {1, 0, 0}, {0, 0, 0}}
	for _, tc := range []struct {
		name   string
		xtr, x mat.Matrix
	}{{"dense", xtr, xte}, {"sparse", sparse.FromDense(xtr), sparse.FromDense(xte)}} {
		t.Run(tc.name, func(t *testing.T) {
			pred, scores, err := KNN{K: 3}.predict(t.Context(), tc.xtr, ytr, tc.x)
			if err != nil {
				t.Fatal(err)
			}
			for i := range wantScores {
				if got := scores.RawRowView(i); !slices.Equal(got, wantScores[i]) {
					t.Errorf("test row %d: got scores %v, want %v", i, got, wantScores[i])
				}
				if got := pred.RawRowView(i); !slices.Equal(got, wantPred[i]) {
					t.Errorf("test row %d: got labels %v, want %v", i, got, wantPred[i])
				}
			}
		})
	}

	// k = 2 at x = 4: rows 2, 4 give [0 1 1]; one vote of two is not more
	// than half, so nothing is predicted.
	pred, scores, err := KNN{K: 2}.Predict(t.Context(), xtr, ytr, mat.NewDense(1, 1, []float64{4}))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := scores.RawRowView(0), []float64{0, 1, 1}; !slices.Equal(got, want) {
		t.Errorf("k = 2 at 4: got scores %v, want %v", got, want)
	}
	if got, want := pred.RawRowView(0), []float64{0, 0, 0}; !slices.Equal(got, want) {
		t.Errorf("k = 2 at 4: got labels %v, want %v (a tie of votes is not a majority)", got, want)
	}
}

func TestKNNRefusesTooFewRows(t *testing.T) {
	x := mat.NewDense(3, 1, []float64{0, 1, 2})
	y := mat.NewDense(3, 1, []float64{1, 0, 1})
	_, _, err := KNN{K: 4}.Predict(t.Context(), x, y, x)
	if err == nil || !strings.Contains(err.Error(), "k = 4 needs at least 4 training rows; it has 3") {
		t.Fatalf("got %v, want the refusal of k = 4 on 3 training rows", err)
	}
	if _, _, err := (KNN{K: 3}).Predict(t.Context(), x, y, x); err != nil {
		t.Errorf("k = 3 on 3 rows: got %v, want no error (the test rows are not the training rows)", err)
	}
}

// TestKNNScoresAreNeighbourLabelSums: on random data, dense and sparse,
// with duplicated rows (ties in distance), each score row is the sum of
// the label rows of the neighbours knn.Search returns, and the labels
// are those with 2·score > k.
func TestKNNScoresAreNeighbourLabelSums(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	const ntr, nte, d, q = 120, 40, 6, 7
	xtr, xte := mat.NewDense(ntr, d, nil), mat.NewDense(nte, d, nil)
	for _, x := range []*mat.Dense{xtr, xte} {
		r, _ := x.Dims()
		for i := range r {
			for j := range d {
				if rng.Float64() < 0.5 { // half zeros, and small integers: ties
					x.Set(i, j, float64(rng.IntN(3)))
				}
			}
		}
	}
	ytr := mat.NewDense(ntr, q, nil)
	for i := range ntr {
		for l := range q {
			if rng.Float64() < 0.3 {
				ytr.Set(i, l, 1)
			}
		}
	}
	for _, k := range []int{1, 4, 7} {
		nn, err := knn.Search(t.Context(), xtr, xte, k, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name   string
			xtr, x mat.Matrix
		}{{"dense", xtr, xte}, {"sparse", sparse.FromDense(xtr), sparse.FromDense(xte)}} {
			pred, scores, err := KNN{K: k}.predict(t.Context(), tc.xtr, ytr, tc.x)
			if err != nil {
				t.Fatal(err)
			}
			for i := range nte {
				want := make([]float64, q)
				idx, _ := nn.Row(i)
				for _, j := range idx {
					for l := range q {
						want[l] += ytr.At(int(j), l)
					}
				}
				if got := scores.RawRowView(i); !slices.Equal(got, want) {
					t.Errorf("%s, k = %d, row %d: got scores %v, want %v (neighbours %v)", tc.name, k, i, got, want, idx)
				}
				for l, s := range want {
					if w := float64(b2i(2*s > float64(k))); pred.At(i, l) != w {
						t.Errorf("%s, k = %d, row %d, label %d: got %v, want %v (score %v)", tc.name, k, i, l, pred.At(i, l), w, s)
					}
				}
			}
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestRunKNN evaluates ori and pca (at d = 2 and 4) with the classifier
// knn through Run and requires, on the holdout's test rows, the metrics of
// KNN's labels and scores computed here, every ranking metric and the
// extreme-classification ones included; the same run on the features in
// CSR form gives the same rows.
func TestRunKNN(t *testing.T) {
	const n, k = 150, 5
	data := runData(3, n, 6, 4, nil)
	split, err := Holdout(n, 0.2, 1)
	if err != nil {
		t.Fatal(err)
	}
	spec := Spec{Methods: []MethodRun{{ID: "pca"}}, Grid: Grid{Dims: []int{2, 4}}, Options: Options{Classifier: ClassifierKNN, K: k}}
	res, err := Run(t.Context(), data, []Split{split}, spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	train, test := data.SelectRows(split.Train), data.SelectRows(split.Test)
	want := func(xtr, xte *mat.Dense) map[string]float64 {
		pred, scores, err := KNN{K: k}.Predict(t.Context(), xtr, train.Y, xte)
		if err != nil {
			t.Fatal(err)
		}
		m := MultiLabelMetrics(test.Y, pred, scores)
		maps.Copy(m, XCMetrics(test.Y, scores, inversePropensities(train.Y, DefaultPropensityA, DefaultPropensityB)))
		return m
	}
	projected := func(d int) map[string]float64 {
		m, err := analysis.Fit(t.Context(), "pca", train, analysis.Params{D: d}, nil)
		if err != nil {
			t.Fatal(err)
		}
		ztr, err := m.Transform(train.X)
		if err != nil {
			t.Fatal(err)
		}
		zte, err := m.Transform(test.X)
		if err != nil {
			t.Fatal(err)
		}
		return want(ztr, zte)
	}
	wants := map[string]map[string]float64{"ori/6": want(train.X, test.X), "pca/2": projected(2), "pca/4": projected(4)}
	seen := 0
	for _, r := range res.Rows {
		if r.Fold == nil {
			continue
		}
		w, ok := wants[fmt.Sprintf("%s/%d", r.Method, r.D)]
		if !ok {
			t.Fatalf("unexpected row %s at d = %d", r.Method, r.D)
		}
		seen++
		for _, key := range []string{"hamming_loss", "ranking_loss", "average_precision", "coverage", "precision_at_3", "ndcg_at_5", "psprecision_at_1", "psndcg_at_5"} {
			if _, ok := r.Metrics[key]; !ok {
				t.Errorf("%s at d = %d: no %s", r.Method, r.D, key)
			}
		}
		for key, wv := range w {
			if gv := r.Metrics[key]; math.Abs(gv-wv) > 1e-12 {
				t.Errorf("%s at d = %d: %s = %v, want %v", r.Method, r.D, key, gv, wv)
			}
		}
	}
	if seen != 3 {
		t.Errorf("got %d fold rows, want 3 (ori, pca at 2 and 4)", seen)
	}

	sp := data
	sp.X, sp.Sparse = nil, sparse.FromDense(data.X)
	got, err := Run(t.Context(), sp, []Split{split}, spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := withoutTimes(got), withoutTimes(res); !sameMetrics(a, b, 1e-9) {
		t.Errorf("sparse run: got rows %+v, want the dense run's %+v", a.Rows, b.Rows)
	}
}

// TestRunKNNMultiDim: on multi-dimensional data knn is the k-NN vote of
// each class variable, the classifier mlknn names there.
func TestRunKNNMultiDim(t *testing.T) {
	data := runData(4, 100, 5, 0, []int{2, 3})
	folds, _ := KFold(100, 3, 1)
	run := func(c string) *Result {
		res, err := Run(t.Context(), data, folds, Spec{Methods: []MethodRun{{ID: "lda"}}, Options: Options{Classifier: c, K: 3}}, nil)
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		return withoutTimes(res)
	}
	if got, want := run(ClassifierKNN), run(ClassifierMLkNN); !reflect.DeepEqual(got, want) {
		t.Errorf("knn: got %+v, want mlknn's %+v", got.Rows, want.Rows)
	}
}

// sameMetrics reports whether a and b have the same rows with metrics
// equal to tol (relative above 1).
func sameMetrics(a, b *Result, tol float64) bool {
	if len(a.Rows) != len(b.Rows) {
		return false
	}
	for i, ra := range a.Rows {
		rb := b.Rows[i]
		if ra.Method != rb.Method || ra.D != rb.D || len(ra.Metrics) != len(rb.Metrics) {
			return false
		}
		for k, v := range ra.Metrics {
			if math.Abs(v-rb.Metrics[k]) > tol*max(1, math.Abs(v)) {
				return false
			}
		}
	}
	return true
}
