package handlers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"mldr/internal/handlers"
	"mldr/internal/jobs"
	"mldr/internal/store"
)

// fuzzTarget is the whole route table over a real store and job runner,
// called in-process; accepted jobs are not run (their work fails at once),
// so a fuzzed request can ask for anything.
type fuzzTarget struct {
	h        http.Handler
	ml, md   string // demo data sets
	finished string // a finished job
}

func newFuzzTarget(f *testing.F) *fuzzTarget {
	f.Helper()
	st, err := store.Open(store.Config{Dir: f.TempDir()})
	if err != nil {
		f.Fatal(err)
	}
	work := func(context.Context, jobs.Job, jobs.Report) ([]string, error) {
		return nil, errors.New("jobs are not run in the fuzz tests")
	}
	runner, err := jobs.New(jobs.Config{Store: st, Execute: work, Workers: 1, MaxQueue: 1000})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		runner.Shutdown(ctx)
		st.Close()
	})
	svc := jobs.NewService(runner, st, jobs.Limits{MaxCells: 1 << 30})
	t := &fuzzTarget{h: handlers.New(handlers.Config{Store: st, Jobs: svc, MaxUpload: 1 << 20, Version: "fuzz"})}
	demo := func(kind string) string {
		rec := t.do(f, "POST", "/api/datasets/demo?demo="+kind, "", nil)
		var d struct{ ID string }
		json.Unmarshal(rec.Body.Bytes(), &d)
		return d.ID
	}
	t.ml, t.md = demo("multilabel"), demo("multidim")
	rec := t.do(f, "POST", "/api/jobs", "application/json", strings.NewReader(`{"dataset":"`+t.ml+`","method":"pca"}`))
	var j struct{ ID string }
	json.Unmarshal(rec.Body.Bytes(), &j)
	t.finished = j.ID
	return t
}

func (t *fuzzTarget) do(tb testing.TB, method, path, ctype string, body *strings.Reader) *httptest.ResponseRecorder {
	tb.Helper()
	var req *http.Request
	if body == nil {
		req = httptest.NewRequest(method, path, nil)
	} else {
		req = httptest.NewRequest(method, path, body)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, req)
	return rec
}

// checkRefusal checks what every answer to a fuzzed request must be: one
// of the statuses the API documents, never a server error, and for the
// API a JSON error body.
func checkRefusal(t *testing.T, rec *httptest.ResponseRecorder, allowed ...int) {
	t.Helper()
	if !slices.Contains(allowed, rec.Code) {
		t.Fatalf("status %d (want one of %v): %s", rec.Code, allowed, rec.Body.String())
	}
	if rec.Code >= 400 && strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
		var e struct{ Error string }
		if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Error == "" {
			t.Fatalf("error body %q is not {\"error\": ...}", rec.Body.String())
		}
	}
}

func FuzzJobRequest(f *testing.F) {
	tg := newFuzzTarget(f)
	for _, seed := range []string{
		`{"dataset":"ML","method":"mddmp","params":{"d":3}}`,
		`{"dataset":"ML","methods":["pca","mddmp","cplst"],"params":{"thr":0.9,"lambda":0.1},"evaluate":{"classifier":"mlknn","dims":[1,2]}}`,
		`{"dataset":"MD","method":"sdem","split":{"kind":"kfold","folds":3,"seed":2},"evaluate":{"classifier":"mlknn","percent":[50,100],"of":"rank"}}`,
		`{"dataset":"ML","test_dataset":"MD","method":"pca"}`,
		`{"dataset":"MD","methods":["sdem","pca"],"split":{"kind":"kfold","folds":3},"evaluate":{"classifier":"svm","c":0.5,"eps":1e-3}}`,
		`{"dataset":"ML","method":"pca","evaluate":{"classifier":"ridge","c":-1e300}}`,
		`{"dataset":"ML","method":"lpp","params":{"k":5,"gamma":0.5,"ridge":0.001}}`,
		`{"dataset":"ML","method":"mddmp","params":{"label_kernel":"rbf","gamma":-1}}`,
		`{"dataset":"ML","method":"pca","params":{"d":1e400}}`,
		`{"dataset":"ML","method":"pca","split":{"kind":"holdout","test_fraction":1.5}}`,
		`{"dataset":"nope","method":"pca"}`, `{}`, `[]`, `null`, `{"dataset":"ML","method":"pca","x":1}`, ``,
		`{"dataset":"ML","method":"pca","dataset":"MD"}`, `{"dataset":"ML","Method":"pca","evaluate":{"k":1,"K":2}}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		body = strings.NewReplacer(`"ML"`, `"`+tg.ml+`"`, `"MD"`, `"`+tg.md+`"`).Replace(body)
		rec := tg.do(t, "POST", "/api/jobs", "application/json", strings.NewReader(body))
		checkRefusal(t, rec, 202, 400, 404, 409, 413, 415, 422, 429)
	})
}

func FuzzAnalyzeForm(f *testing.F) {
	tg := newFuzzTarget(f)
	f.Add(analysisForm("pca", "mddmp").Encode(), false)
	f.Add(analysisForm("sdem").Encode(), true)
	f.Add("methods=pca&dim_mode=d&d=abc", false)
	f.Add("methods=cplst&methods=occa&dim_mode=d&d=2&lambda=-1&classifier=ridge&grid=1,2,x", false)
	f.Add("methods=lda&split=kfold&folds=1&seed=-3&grid_mode=percent&grid=0,500&grid_of=rank", true)
	f.Add("methods=pca&classifier=svm&eval_c=1e400&eval_eps=-0", false)
	f.Add("%zz&methods", false)
	f.Fuzz(func(t *testing.T, form string, multiDim bool) {
		id := tg.ml
		if multiDim {
			id = tg.md
		}
		rec := tg.do(t, "POST", "/datasets/"+id+"/analyze", "application/x-www-form-urlencoded", strings.NewReader(form))
		checkRefusal(t, rec, 303, 400, 404, 409, 413, 422, 429)
	})
}

func FuzzUploadForm(f *testing.F) {
	tg := newFuzzTarget(f)
	f.Add("a,b,label:x\n1,2,0\n3,4,1\n", "", "", "", "", "")
	f.Add("a;b;y;z\n1;2;0;1\n3;4;1;0\n", "y,z", "", "multilabel", "reject", "")
	f.Add("a,b,c\n1,2,x\n3,,y\n", "", "-1", "multidim", "drop-rows", "")
	f.Add("@relation r\n@attribute a numeric\n@attribute y {0,1}\n@data\n1,0\n2,1\n", "", "1", "", "mean", "cls:")
	f.Fuzz(func(t *testing.T, file, labels, count, kind, missing, prefix string) {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		for k, v := range map[string]string{"labels": labels, "label_count": count, "kind": kind, "missing": missing, "label_prefix": prefix} {
			if v != "" {
				mw.WriteField(k, v)
			}
		}
		w, _ := mw.CreateFormFile("file", "fuzz.csv")
		w.Write([]byte(file))
		mw.Close()
		rec := tg.do(t, "POST", "/api/datasets", mw.FormDataContentType(), strings.NewReader(buf.String()))
		checkRefusal(t, rec, 201, 400, 413, 415, 422, 429)
	})
}

func FuzzRelabelForm(f *testing.F) {
	tg := newFuzzTarget(f)
	f.Add("labels=label%3Abeach&labels=label%3Asea&kind=multilabel")
	f.Add("labels=f1&kind=multidim")
	f.Add("labels=&kind=both")
	f.Fuzz(func(t *testing.T, form string) {
		rec := tg.do(t, "POST", "/datasets/"+tg.ml+"/labels", "application/x-www-form-urlencoded", strings.NewReader(form))
		checkRefusal(t, rec, 303, 400, 409, 413, 422, 429)
		// Put the data set back for the next input.
		tg.do(t, "POST", "/datasets/"+tg.ml+"/labels", "application/x-www-form-urlencoded",
			strings.NewReader("labels=label%3Abeach&labels=label%3Asunset&labels=label%3Asea&labels=label%3Amountain&labels=label%3Aforest&labels=label%3Aurban"))
	})
}
