package jobs

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/analysis"
	"mldr/internal/evaluate"
	"mldr/internal/preprocess"
	"mldr/internal/store"
)

func TestValidatePreprocess(t *testing.T) {
	ds := testDatasets()
	for _, tc := range []struct {
		kind   string
		status int // 0: accepted
	}{
		{"", 0}, {"none", 0}, {"standardize", 0}, {"minmax", 0},
		{"zscore", http.StatusBadRequest}, {"Standardize", http.StatusBadRequest},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			r := Request{Dataset: "ml", Method: "pca", Preprocess: tc.kind}
			r.Normalize()
			if tc.kind == "" && r.Preprocess != "none" {
				t.Errorf("Normalize: got preprocess %q, want none", r.Preprocess)
			}
			err := r.Validate(ds, Limits{})
			if tc.status == 0 {
				if err != nil {
					t.Errorf("got %v, want accepted", err)
				}
				return
			}
			var re *RequestError
			want := `preprocess must be none, standardize or minmax, not "` + tc.kind + `"`
			if !errors.As(err, &re) || re.Status != tc.status || re.Field != "preprocess" || re.Msg != want {
				t.Errorf("got %v, want %d on preprocess: %s", err, tc.status, want)
			}
		})
	}
}

// projectedByRow reads the projected rows in dir (a method's result
// directory) by (split, row number).
func projectedByRow(t *testing.T, dir string) map[string][]float64 {
	t.Helper()
	rows := readProjectedCSV(t, dir)
	out := map[string][]float64{}
	for _, r := range rows[1:] {
		var v []float64
		for _, c := range r[2:] {
			f, err := strconv.ParseFloat(c, 64)
			if err != nil {
				t.Fatal(err)
			}
			v = append(v, f)
		}
		out[r[1]+" "+r[0]] = v
	}
	return out
}

// TestExecutePreprocess: with standardize the result models are fitted on
// the fit rows scaled by a scaler fitted on those rows alone; the manifest
// records it; Manifest.Transform of the data set's rows gives projected.csv
// exactly; metrics.json says what ran and carries the times; and a job
// without preprocessing does not reuse the scaled job's decomposition, nor
// the other way round.
func TestExecutePreprocess(t *testing.T) {
	e := newExecEnv(t)
	run := func(kind string) (Job, []string) {
		j, notes, err := e.run(Request{Dataset: e.ml.ID, Methods: []string{"pca", "plst"}, Params: analysis.Params{D: 2},
			Evaluate: &Evaluate{Classifier: "ridge"}, Preprocess: kind})
		if err != nil {
			t.Fatal(err)
		}
		return j, notes
	}
	plain, _ := run("")
	scaled, notes := run(preprocess.Standardize)
	_, notesAgain := run(preprocess.Standardize)
	_, notesPlain := run(preprocess.None)
	reused := func(notes []string) bool {
		return strings.Contains(strings.Join(notes, "|"), "reused the decomposition")
	}
	if reused(notes) || !reused(notesAgain) || !reused(notesPlain) {
		t.Errorf("cache: got notes %q (first standardize), %q (second), %q (none after none), want a reuse only in the last two", notes, notesAgain, notesPlain)
	}

	ds, err := e.store.LoadDataset(e.ml.ID)
	if err != nil {
		t.Fatal(err)
	}
	n := ds.Rows()
	h, _ := evaluate.Holdout(n, DefaultTestFraction, DefaultSeed)
	fit := mat.NewDense(len(h.Train), ds.Features.Len(), nil)
	for i, r := range h.Train {
		fit.SetRow(i, ds.X.RawRowView(r))
	}
	want, err := preprocess.Fit(fit, preprocess.Standardize, ds.Features.Strings())
	if err != nil {
		t.Fatal(err)
	}
	m, err := ReadManifest(filepath.Join(e.store.JobDir(scaled.ID), "pca"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Preprocess == nil || m.Preprocess.Kind != preprocess.Standardize || len(m.Preprocess.Offset) != ds.Features.Len() {
		t.Fatalf("manifest preprocess: got %+v, want standardize over %d features", m.Preprocess, ds.Features.Len())
	}
	for j := range want.Offset {
		if m.Preprocess.Offset[j] != want.Offset[j] || m.Preprocess.Scale[j] != want.Scale[j] {
			t.Fatalf("column %d: got offset %v scale %v, want %v %v (fitted on the holdout's training rows)", j,
				m.Preprocess.Offset[j], m.Preprocess.Scale[j], want.Offset[j], want.Scale[j])
		}
	}
	// The model was fitted on the scaled fit rows, whose means are 0.
	for j, mu := range m.Means {
		if math.Abs(mu) > 1e-9 {
			t.Fatalf("pca's mean of feature %d: got %v, want 0 (fitted on the standardized fit rows)", j, mu)
		}
	}
	mp, _ := ReadManifest(filepath.Join(e.store.JobDir(plain.ID), "pca"))
	if mp.Preprocess == nil || mp.Preprocess.Kind != preprocess.None || mp.Preprocess.Offset != nil {
		t.Errorf("manifest of a job without preprocessing: got %+v, want kind none and nothing else", mp.Preprocess)
	}

	// Transform (what POST …/transform runs) of every row = projected.csv.
	z, err := m.Transform(ds.X)
	if err != nil {
		t.Fatal(err)
	}
	proj := projectedByRow(t, filepath.Join(e.store.JobDir(scaled.ID), "pca"))
	plainProj := projectedByRow(t, filepath.Join(e.store.JobDir(plain.ID), "pca"))
	differs := false
	for i := range n {
		part := PartTrain
		if !containsInt(h.Train, i) {
			part = PartTest
		}
		key := part + " " + strconv.Itoa(i+1)
		got := proj[key]
		for c := range 2 {
			if math.Abs(got[c]-z.At(i, c)) > 1e-9*max(1, math.Abs(z.At(i, c))) {
				t.Fatalf("row %s, c%d: projected.csv has %v, Transform gives %v", key, c+1, got[c], z.At(i, c))
			}
			differs = differs || math.Abs(got[c]-plainProj[key][c]) > 1e-6
		}
	}
	if !differs {
		t.Error("the standardized projection equals the unscaled one, want the scaling to change it")
	}

	// metrics.json: the preprocessing beside the classifier, and the times.
	b, err := os.ReadFile(filepath.Join(e.store.JobDir(scaled.ID), FileMetrics))
	if err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Classifier map[string]any   `json:"classifier"`
		Preprocess string           `json:"preprocess"`
		Rows       []map[string]any `json:"rows"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	if raw.Preprocess != preprocess.Standardize || raw.Classifier["preprocess"] != nil {
		t.Errorf("metrics.json: got preprocess %q and classifier %v, want standardize beside the classifier", raw.Preprocess, raw.Classifier)
	}
	for _, r := range raw.Rows {
		fit, ok1 := r["fit_seconds"].(float64)
		eval, ok2 := r["eval_seconds"].(float64)
		if !ok1 || !ok2 || fit < 0 || eval < 0 || (r["method"] == evaluate.Ori && fit != 0) {
			t.Errorf("metrics.json row %v: want fit_seconds and eval_seconds ≥ 0, fit 0 for ori", r)
		}
	}
}

// TestExecutePreprocessOverflow: a feature too large for float64's
// arithmetic fails the job with a sentence that names it and says that
// its sums overflow, with preprocess standardize and minmax as without
// preprocessing (never "constant", nor a NaN in row 1); minmax, whose
// arithmetic holds ±1e300, scales that column and the job succeeds.
func TestExecutePreprocessOverflow(t *testing.T) {
	e := newExecEnv(t)
	data := func(big string) store.DatasetRecord {
		rows := big + ",0,0,1\n-" + big + ",1,1,0\n" + big + ",2,1,1\n-" + big + ",3,0,0\n"
		return e.importCSV("big"+big, []byte("big,small,label:a,label:b\n"+strings.Repeat(rows, 10)))
	}
	// The result models are fitted on the holdout's 32 training rows.
	bound := fmt.Sprintf("(values must stay below %.3g)", math.Sqrt(math.MaxFloat64/(4*32)))
	for _, big := range []string{"1e300", "1e308"} {
		rec := data(big)
		for _, tc := range []struct {
			kind string
			want string // the job's error; "" for none
		}{
			{preprocess.None, `pca: analysis: feature "big" has values up to ` + big[:1] + `e+` + big[2:] + ` in magnitude; with 32 rows the sums of their squares overflow float64 ` + bound},
			{preprocess.Standardize, `preprocessing the features: preprocess: feature "big" has values up to ` + big[:1] + `e+` + big[2:] + ` in magnitude; with 32 rows ` +
				`the sums of their squares in the standardize scaling overflow float64 ` + bound + `: rescale the features before you upload them`},
			{preprocess.MinMax, map[string]string{
				"1e300": "",
				"1e308": `preprocessing the features: preprocess: feature "big" has values from -1e+308 to 1e+308; their range overflows float64 in the minmax scaling`,
			}[big]},
		} {
			t.Run(big+"/"+tc.kind, func(t *testing.T) {
				_, _, err := e.run(Request{Dataset: rec.ID, Method: "pca", Params: analysis.Params{D: 1},
					Evaluate: &Evaluate{Classifier: "ridge"}, Preprocess: tc.kind})
				switch {
				case tc.want == "" && err != nil:
					t.Errorf("got %v, want the job to succeed", err)
				case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)):
					t.Errorf("got %v, want %s…", err, tc.want)
				}
			})
		}
	}
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// TestManifestTransformPreprocess: Transform applies the scaler first, and
// refuses rows of another width with both widths named.
func TestManifestTransformPreprocess(t *testing.T) {
	m := Manifest{Space: analysis.FeatureSpace, D: 1, Means: []float64{0, 0}, Projection: [][]float64{{1}, {0}},
		Preprocess: &preprocess.Scaler{Kind: preprocess.MinMax, Offset: []float64{10, 0}, Scale: []float64{0.5, 1}}}
	x := mat.NewDense(1, 2, []float64{14, 3})
	z, err := m.Transform(x)
	if err != nil {
		t.Fatal(err)
	}
	if z.At(0, 0) != 2 || x.At(0, 0) != 14 {
		t.Errorf("got %v (x now %v), want (14 − 10) · 0.5 = 2 and x untouched", z.At(0, 0), x.At(0, 0))
	}
	m.Preprocess.Offset, m.Preprocess.Scale = []float64{1, 2, 3}, []float64{1, 1, 1}
	if _, err := m.Transform(x); err == nil || !strings.Contains(err.Error(), "preprocessing is for 3 features, and the rows have 2") {
		t.Errorf("got %v, want a refusal naming 3 and 2 features", err)
	}
}
