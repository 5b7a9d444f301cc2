package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	"mldr/internal/analysis"
	"mldr/internal/dataset"
	"mldr/internal/evaluate"
)

// uploadFiles uploads a data file and, when xml is not nil, its Mulan
// label file, and returns the answer's status and body.
func uploadFiles(ctx context.Context, t *testing.T, url, name string, data, xml []byte) jtResp {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for _, f := range []struct {
		field, name string
		body        []byte
	}{{"file", name, data}, {"xml", "labels.xml", xml}} {
		if f.body == nil {
			continue
		}
		w, err := mw.CreateFormFile(f.field, f.name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(f.body)
	}
	mw.Close()
	return jtDo(ctx, t, "POST", url+"/api/datasets", mw.FormDataContentType(), &b)
}

// TestSparseJobsBinary uploads medical (Mulan's sparse ARFF with its label
// file) to the real binary, which stores it sparse, and runs pca, mddmp,
// cplst and mvmd with ML-kNN over 3 folds and a grid of d (and the
// baseline ori, on the sparse rows): the job succeeds and every metric
// equals an in-process evaluate.Run on the dense matrix of the same
// numbers to 1e-9. Then a libsvm upload, also stored sparse, and a job on
// it.
func TestSparseJobsBinary(t *testing.T) {
	arff := mustRead(t, sharedFile(t, "medical/medical.arff"))
	xml := mustRead(t, sharedFile(t, "medical/medical.xml"))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	a := start(t, t.TempDir(), "-workers", "1")

	r := uploadFiles(ctx, t, a.url, "medical.arff", arff, xml)
	jtWantStatus(t, "upload of medical", r, http.StatusCreated)
	var d struct {
		ID       string  `json:"id"`
		Rows     int     `json:"rows"`
		Features int     `json:"features"`
		Storage  string  `json:"storage"`
		NonZeros int64   `json:"nonzeros"`
		Density  float64 `json:"density"`
	}
	if err := json.Unmarshal(r.Body, &d); err != nil {
		t.Fatal(err)
	}
	if d.Storage != "sparse" || d.Rows != 978 || d.Features != 1449 || d.NonZeros == 0 {
		t.Fatalf("medical: got %+v, want 978 rows × 1449 features stored sparse", d)
	}
	page := jtGet(ctx, t, a.url+"/datasets/"+d.ID)
	if want := `<span data-testid="storage">sparse</span>`; page.Status != http.StatusOK || !strings.Contains(string(page.Body), want) {
		t.Errorf("the data set's page: got %d, want 200 saying %q", page.Status, want)
	}

	req := map[string]any{"dataset": d.ID, "methods": []string{"pca", "mddmp", "cplst", "mvmd"}, "params": map[string]any{"d": 4},
		"split": map[string]any{"kind": "kfold", "folds": 3}, "evaluate": map[string]any{"classifier": "mlknn", "dims": []int{2, 8}}}
	id := jtSubmit(ctx, t, a, req)
	j := jtPoll(ctx, t, a, id, "the medical job ends", func(j jtJob) bool { return jtTerminal(j.Status) })
	if j.Status != "succeeded" {
		t.Fatalf("the medical job: got %s %q, want succeeded", j.Status, j.Error)
	}
	r = jtGet(ctx, t, a.url+"/api/jobs/"+id+"/metrics.json")
	jtWantStatus(t, "metrics.json", r, http.StatusOK)
	var got struct{ Rows []evaluate.Row }
	if err := json.Unmarshal(r.Body, &got); err != nil {
		t.Fatal(err)
	}

	// The same evaluation in process, on the dense matrix.
	labels, err := dataset.ParseLabelXML(bytes.NewReader(xml))
	if err != nil {
		t.Fatal(err)
	}
	ds, err := dataset.Load(bytes.NewReader(arff), dataset.Options{Labels: labels})
	if err != nil {
		t.Fatal(err)
	}
	splits, err := evaluate.KFold(ds.Rows(), 3, 1) // the request's default seed
	if err != nil {
		t.Fatal(err)
	}
	spec := evaluate.Spec{Grid: evaluate.Grid{Dims: []int{2, 8}}, Options: evaluate.Options{Classifier: evaluate.ClassifierMLkNN}}
	for _, m := range []string{"pca", "mddmp", "cplst", "mvmd"} {
		desc, _ := analysis.Lookup(m)
		spec.Methods = append(spec.Methods, evaluate.MethodRun{ID: m, Params: analysis.Params{D: 4}.Only(desc.Takes)})
	}
	want, err := evaluate.Run(ctx, analysis.Input{X: ds.Dense(), Y: ds.Y, FeatureNames: ds.Features.Strings()}, splits, spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Rows) != len(want.Rows) {
		t.Fatalf("metrics.json: %d rows, want %d", len(got.Rows), len(want.Rows))
	}
	for i, w := range want.Rows {
		g := got.Rows[i]
		fold := func(f *int) int {
			if f == nil {
				return 0
			}
			return *f
		}
		if g.Method != w.Method || g.D != w.D || fold(g.Fold) != fold(w.Fold) {
			t.Fatalf("row %d: got %s d=%d, want %s d=%d", i, g.Method, g.D, w.Method, w.D)
		}
		for k, wv := range w.Metrics {
			gv, ok := g.Metrics[k]
			if !ok || !(math.Abs(gv-wv) <= 1e-9*(1+math.Abs(wv)) || math.IsNaN(gv) && math.IsNaN(wv)) {
				t.Errorf("%s d=%d %s: got %v, want %v", w.Method, w.D, k, gv, wv)
			}
		}
	}

	// A libsvm upload: stored sparse, and a job on it succeeds.
	var svm strings.Builder
	for i := range 400 {
		fmt.Fprintf(&svm, "%d,%d", i%3, 3+i%2)
		for f := range 400 {
			if (i*7+f*3)%23 == 0 {
				fmt.Fprintf(&svm, " %d:%d", f+1, 1+(i+f)%5)
			}
		}
		svm.WriteByte('\n')
	}
	r = uploadFiles(ctx, t, a.url, "words.svm", []byte(svm.String()), nil)
	jtWantStatus(t, "upload of a libsvm file", r, http.StatusCreated)
	var l struct {
		ID      string `json:"id"`
		Storage string `json:"storage"`
	}
	if err := json.Unmarshal(r.Body, &l); err != nil || l.Storage != "sparse" {
		t.Fatalf("the libsvm data set: got %s (%v), want stored sparse", r.Body, err)
	}
	id = jtSubmit(ctx, t, a, map[string]any{"dataset": l.ID, "methods": []string{"pca", "cplst"}, "params": map[string]any{"d": 3},
		"split": map[string]any{"kind": "holdout", "test_fraction": 0.25}, "evaluate": map[string]any{"classifier": "ridge"}})
	j = jtPoll(ctx, t, a, id, "the libsvm job ends", func(j jtJob) bool { return jtTerminal(j.Status) })
	if j.Status != "succeeded" {
		t.Fatalf("the libsvm job: got %s %q, want succeeded", j.Status, j.Error)
	}
	if r := jtGet(ctx, t, a.url+"/jobs/"+id); r.Status != http.StatusOK {
		t.Errorf("the libsvm job's page: got %d, want 200", r.Status)
	}
}
