package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/analysis"
	"mldr/internal/dataset"
	"mldr/internal/evaluate"
	"mldr/internal/store"
)

// sparseCSV writes a seeded multi-label CSV of n rows, d features of about
// the given density (small counts, as bag-of-words data hold) and q labels
// that follow the first features, so that the methods find structure.
func sparseCSV(n, d, q int, density float64, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 7))
	var b bytes.Buffer
	for j := range d {
		fmt.Fprintf(&b, "f%d,", j+1)
	}
	for l := range q {
		fmt.Fprintf(&b, "label:l%d", l+1)
		if l < q-1 {
			b.WriteByte(',')
		}
	}
	b.WriteByte('\n')
	row := make([]int, d)
	for range n {
		for j := range row {
			row[j] = 0
			if rng.Float64() < density {
				row[j] = 1 + rng.IntN(4)
			}
		}
		for _, v := range row {
			fmt.Fprintf(&b, "%d,", v)
		}
		for l := range q {
			on := row[l] > 0 || row[q+l] > 0 || rng.Float64() < 0.15
			fmt.Fprintf(&b, "%d", map[bool]int{false: 0, true: 1}[on])
			if l < q-1 {
				b.WriteByte(',')
			}
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// importCSV stores a CSV as a data set.
func (e *execEnv) importCSV(name string, csv []byte) store.DatasetRecord {
	e.t.Helper()
	rec, err := e.store.Import(context.Background(), store.Upload{Name: name, FileName: name + ".csv", Source: bytes.NewReader(csv)})
	if err != nil {
		e.t.Fatal(err)
	}
	return rec
}

// denseInput loads a stored data set and makes its features dense: the
// reference the sparse job must agree with.
func (e *execEnv) denseInput(id string) analysis.Input {
	e.t.Helper()
	ds, err := e.store.LoadDataset(id)
	if err != nil {
		e.t.Fatal(err)
	}
	in := inputOf(ds)
	in.X, in.Sparse = ds.Dense(), nil
	return in
}

// TestExecuteSparse runs jobs on a data set stored sparse (k folds with
// ML-kNN, a holdout with ridge, a dense test data set beside it) and
// requires what a dense fit and evaluation of the same numbers give: the
// eigenvalues (1e-10 of the largest), the projected rows (1e-9, up to the
// sign of each direction) and every metric (1e-9). lpp densifies (and
// says so); the other methods work from the sparse rows.
func TestExecuteSparse(t *testing.T) {
	e := newExecEnv(t)
	const n = 400
	rec := e.importCSV("sparse", sparseCSV(n, 300, 5, 0.03, 1))
	if rec.Summary.Storage != dataset.StorageSparse {
		t.Fatalf("storage: got %q, want sparse (density %.3f)", rec.Summary.Storage, rec.Summary.Density)
	}
	testRec := e.importCSV("dense-test", sparseCSV(60, 300, 5, 0.03, 2)) // 18 000 cells: stored dense
	if testRec.Summary.Storage != dataset.StorageDense {
		t.Fatalf("test set storage: got %q, want dense", testRec.Summary.Storage)
	}
	holdout, err := evaluate.Holdout(n, 0.25, DefaultSeed)
	if err != nil {
		t.Fatal(err)
	}
	kfold, err := evaluate.KFold(n, 3, DefaultSeed)
	if err != nil {
		t.Fatal(err)
	}
	all := e.denseInput(rec.ID)
	withTest := stackInputs(all, e.denseInput(testRec.ID))
	for _, tc := range []struct {
		name    string
		req     Request
		data    analysis.Input // every row, dense
		fitRows []int
		splits  []evaluate.Split
	}{
		{"k folds, ML-kNN", Request{Dataset: rec.ID, Methods: []string{"pca", "mddmp", "cplst", "mvmd", "lpp"}, Params: analysis.Params{D: 4},
			Split: &Split{Kind: SplitKFold, Folds: 3}, Evaluate: &Evaluate{Classifier: evaluate.ClassifierMLkNN, Dims: []int{2, 4}}},
			all, seq(0, n), kfold},
		{"holdout, ridge", Request{Dataset: rec.ID, Methods: []string{"pca", "cplst"}, Params: analysis.Params{D: 3},
			Split: &Split{Kind: SplitHoldout, TestFraction: 0.25}, Evaluate: &Evaluate{Classifier: evaluate.ClassifierRidge}},
			all, holdout.Train, []evaluate.Split{holdout}},
		{"dense test set", Request{Dataset: rec.ID, TestDataset: testRec.ID, Methods: []string{"pca", "mddmp"}, Params: analysis.Params{D: 3},
			Evaluate: &Evaluate{Classifier: evaluate.ClassifierMLkNN}},
			withTest, seq(0, n), []evaluate.Split{evaluate.TrainTest(n, 60)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j, notes, err := e.run(tc.req)
			if err != nil {
				t.Fatal(err)
			}
			svc := e.serviceOver(succeeded(j))
			fitIn := subset(tc.data, tc.fitRows)
			for _, id := range j.Request.MethodIDs() {
				m, _ := analysis.Lookup(id)
				want, err := analysis.Fit(context.Background(), id, fitIn, j.Request.Params.Only(m.Takes), nil)
				if err != nil {
					t.Fatalf("%s, dense: %v", id, err)
				}
				var ef EigenFile
				readJSONFile(t, filepath.Join(e.store.JobDir(j.ID), id, FileEigenvalues), &ef)
				if len(ef.Eigenvalues) == 0 || len(ef.Eigenvalues) > len(want.Eigenvalues) || ef.D != want.Dim {
					t.Fatalf("%s: %d eigenvalues and d = %d, want at most %d and d = %d", id, len(ef.Eigenvalues), ef.D, len(want.Eigenvalues), want.Dim)
				}
				for i, g := range ef.Eigenvalues {
					if w := want.Eigenvalues[i]; math.Abs(g-w) > 1e-10*math.Abs(want.Eigenvalues[0]) {
						t.Errorf("%s: eigenvalue %d: got %.15g, want %.15g", id, i+1, g, w)
					}
				}
				rows := tc.data.Y
				var x mat.Matrix = tc.data.X
				if m.Space == analysis.LabelSpace {
					x = rows
				}
				wantRows, err := want.Transform(x)
				if err != nil {
					t.Fatal(err)
				}
				cols := seq(0, want.Dim)
				got, err := svc.Projected(j.ID, id, cols...)
				if err != nil {
					t.Fatalf("%s: projected rows: %v", id, err)
				}
				if r, _ := wantRows.Dims(); len(got.Coords) != r {
					t.Fatalf("%s: %d projected rows, want %d", id, len(got.Coords), r)
				}
				at := func(i int) int { // the row of data that projected row i is
					if got.Split[i] == PartTest && tc.req.TestDataset != "" {
						return n + got.Row[i] - 1
					}
					return got.Row[i] - 1
				}
				for c := range cols {
					sign := 1.0
					if got.Coords[0][c]*wantRows.At(at(0), c) < 0 {
						sign = -1
					}
					for i, row := range got.Coords {
						if w := sign * wantRows.At(at(i), c); math.Abs(row[c]-w) > 1e-9*(1+math.Abs(w)) {
							t.Fatalf("%s: row %d (%s), component %d: got %.15g, want %.15g", id, got.Row[i], got.Split[i], c+1, row[c], w)
						}
					}
				}
			}
			spec := evaluationSpec(j.Request)
			want, err := evaluate.Run(context.Background(), tc.data, tc.splits, spec, nil)
			if err != nil {
				t.Fatalf("dense evaluation: %v", err)
			}
			var mf MetricsFile
			readJSONFile(t, filepath.Join(e.store.JobDir(j.ID), FileMetrics), &mf)
			if len(mf.Rows) != len(want.Rows) {
				t.Fatalf("metrics: %d rows, want %d", len(mf.Rows), len(want.Rows))
			}
			for i, w := range want.Rows {
				g := mf.Rows[i]
				if g.Method != w.Method || g.D != w.D || len(g.Metrics) != len(w.Metrics) {
					t.Fatalf("metrics row %d: got %s d=%d (%d metrics), want %s d=%d (%d)", i, g.Method, g.D, len(g.Metrics), w.Method, w.D, len(w.Metrics))
				}
				for k, wv := range w.Metrics {
					if gv := g.Metrics[k]; !(math.Abs(gv-wv) <= 1e-9*(1+math.Abs(wv)) || math.IsNaN(gv) && math.IsNaN(wv)) {
						t.Errorf("%s d=%d %s: got %.15g, want %.15g", w.Method, w.D, k, gv, wv)
					}
				}
			}
			if strings.Contains(strings.Join(notes, "\n"), "lpp") != (tc.name == "k folds, ML-kNN") {
				t.Errorf("notes: %q; want lpp's note on making the features dense exactly when lpp ran", notes)
			}
		})
	}
}

func readJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestValidateSparsePreprocess: standardize and minmax are refused on a
// data set stored sparse (the training set or the test set), 422 on the
// field preprocess, naming the data set and its density; none is taken.
func TestValidateSparsePreprocess(t *testing.T) {
	ds := testDatasets()
	sp := mlRecord("sp", 1000, 200, 6)
	sp.Name = "medical"
	sp.Summary.Storage, sp.Summary.NonZeros, sp.Summary.Density = dataset.StorageSparse, 4000, 0.02
	ds["sp"] = sp
	dense := mlRecord("dn", 50, 200, 6)
	dense.Summary.LabelsDigest = sp.Summary.LabelsDigest
	dense.Summary.Storage = dataset.StorageDense
	ds["dn"] = dense
	for _, tc := range []struct {
		name       string
		req        Request
		status     int // 0: accepted
		fragment   string
		notWanting string
	}{
		{"none", Request{Dataset: "sp", Method: "pca", Preprocess: "none"}, 0, "", ""},
		{"standardize", Request{Dataset: "sp", Method: "pca", Preprocess: "standardize"}, http.StatusUnprocessableEntity,
			"data set medical is stored sparse (2.0 % of its 1 000 × 200 feature cells are non-zero): preprocess standardize would subtract each feature's mean", ""},
		{"minmax", Request{Dataset: "sp", Method: "cplst", Preprocess: "minmax"}, http.StatusUnprocessableEntity,
			"preprocess minmax would subtract each feature's minimum", ""},
		{"sparse test set", Request{Dataset: "dn", TestDataset: "sp", Method: "pca", Preprocess: "standardize"}, http.StatusUnprocessableEntity,
			"data set medical is stored sparse", ""},
		{"dense", Request{Dataset: "dn", Method: "pca", Preprocess: "standardize"}, 0, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.req
			r.Normalize()
			err := r.Validate(ds, Limits{})
			if tc.status == 0 {
				if err != nil {
					t.Errorf("got %v, want accepted", err)
				}
				return
			}
			var re *RequestError
			if !errors.As(err, &re) || re.Status != tc.status || re.Field != "preprocess" || !strings.Contains(re.Msg, tc.fragment) ||
				!strings.Contains(re.Msg, "run it with preprocess none") {
				t.Errorf("got %v, want %d on preprocess saying %q and what to do", err, tc.status, tc.fragment)
			}
		})
	}
}

// TestShiftChangesLabelSpace is why checkSparsePreprocess refuses rather
// than scale the sparse features without their offset: pca (which
// centres) is the same on features shifted by a constant per column, but
// cplst's ridge hat on X as given, and the label-space regressor of the
// evaluation (its bias penalised), are not.
func TestShiftChangesLabelSpace(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	const n, d, q = 80, 6, 3
	x, shifted, y := mat.NewDense(n, d, nil), mat.NewDense(n, d, nil), mat.NewDense(n, q, nil)
	for i := range n {
		for j := range d {
			v := rng.NormFloat64()
			x.Set(i, j, v)
			shifted.Set(i, j, v-2.5*float64(j+1))
		}
		for l := range q {
			if x.At(i, l)+0.3*rng.NormFloat64() > 0 {
				y.Set(i, l, 1)
			}
		}
	}
	fit := func(id string, x *mat.Dense) []float64 {
		m, err := analysis.Fit(context.Background(), id, analysis.Input{X: x, Y: y}, analysis.Params{D: 2}, nil)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		return m.Eigenvalues
	}
	same := func(a, b []float64) bool {
		for i := range a {
			if math.Abs(a[i]-b[i]) > 1e-9*math.Abs(a[0]) {
				return false
			}
		}
		return true
	}
	if a, b := fit("pca", x), fit("pca", shifted); !same(a, b) {
		t.Errorf("pca: eigenvalues %v on X and %v shifted; want the same", a, b)
	}
	if a, b := fit("cplst", x), fit("cplst", shifted); same(a, b) {
		t.Errorf("cplst: eigenvalues %v on X and shifted alike; scaling sparse features without their offset would then be exact", a)
	}
	spec := evaluate.Spec{Methods: []evaluate.MethodRun{{ID: "plst", Params: analysis.Params{D: 2}}}, Options: evaluate.Options{Classifier: evaluate.ClassifierMLkNN}}
	h, _ := evaluate.Holdout(n, 0.25, 1)
	run := func(x *mat.Dense) float64 {
		res, err := evaluate.Run(context.Background(), analysis.Input{X: x, Y: y}, []evaluate.Split{h}, spec, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res.Rows {
			if r.Method == "plst" {
				return r.Metrics["prediction_error"]
			}
		}
		t.Fatal("no plst row")
		return 0
	}
	if a, b := run(x), run(shifted); math.Abs(a-b) <= 1e-9*math.Abs(a) {
		t.Errorf("plst's regressor: prediction error %v on X and %v shifted; want them to differ", a, b)
	}
}
