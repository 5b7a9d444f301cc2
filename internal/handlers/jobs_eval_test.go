package handlers_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"mldr/internal/evaluate"
	"mldr/internal/jobs"
)

// TestJobsAPIRefusesEvaluationParams checks that evaluation parameters the
// data cannot serve are refused at submission with 422, the field and a
// sentence naming the value and the largest allowed, instead of a job that
// fails when it runs.
func TestJobsAPIRefusesEvaluationParams(t *testing.T) {
	s := newJobServer(t, 1, 0, nil)
	ml := s.demo("multilabel") // 600 rows, 24 features
	md := s.demo("multidim")   // 400 rows
	// 10 rows; predefined fold 2 trains on 4 of them.
	var csv strings.Builder
	csv.WriteString("a,b,c,label:y,label:z\n")
	for i := range 10 {
		fmt.Fprintf(&csv, "%d,%d,%d,%d,%d\n", i, (i*7)%10, (i*3)%10, i%2, (i/2)%2)
	}
	folds := "fold,split,row\n"
	for r := 1; r <= 10; r++ {
		f1, f2 := "train", "train"
		if r > 8 {
			f1 = "test"
		}
		if r > 4 {
			f2 = "test"
		}
		folds += fmt.Sprintf("1,%s,%d\n2,%s,%d\n", f1, r, f2, r)
	}
	resp, body := s.upload("/api/datasets", part{name: "file", file: "small.csv", body: csv.String()}, part{name: "folds", file: "folds.csv", body: folds})
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("upload: got %d %s, want 201", resp.StatusCode, body)
	}
	small := decode[apiDataset](t, body).ID

	for _, tc := range []struct {
		name, body string
		status     int
		field, msg string
	}{
		{"ML-kNN k on a holdout", `{"dataset":"` + ml + `","method":"pca","params":{"d":2},"evaluate":{"k":480}}`, 422, "evaluate.k",
			"evaluate.k is 480, but ML-kNN needs fewer neighbours than training rows and the training part of the holdout has 480 rows: k may be at most 479"},
		{"ML-kNN k on k folds", `{"dataset":"` + ml + `","method":"pca","params":{"d":2},"split":{"kind":"kfold","folds":10},"evaluate":{"k":540}}`, 422, "evaluate.k",
			"evaluate.k is 540, but ML-kNN needs fewer neighbours than training rows and the training part of the smallest of the 10 folds has 540 rows: k may be at most 539"},
		{"k-NN k on multi-dimensional data", `{"dataset":"` + md + `","method":"pca","params":{"d":2},"evaluate":{"k":321}}`, 422, "evaluate.k",
			"evaluate.k is 321, but k-NN needs at least k training rows and the training part of the holdout has 320 rows: k may be at most 320"},
		{"knn k on a holdout", `{"dataset":"` + ml + `","method":"pca","params":{"d":2},"evaluate":{"classifier":"knn","k":481}}`, 422, "evaluate.k",
			"evaluate.k is 481, but k-NN needs at least k training rows and the training part of the holdout has 480 rows: k may be at most 480"},
		{"unknown classifier", `{"dataset":"` + ml + `","method":"pca","params":{"d":2},"evaluate":{"classifier":"kNN"}}`, 400, "evaluate.classifier",
			`classifier must be one of mlknn, knn, ridge, svm, none, not "kNN"`},
		{"c of knn", `{"dataset":"` + ml + `","method":"pca","params":{"d":2},"evaluate":{"classifier":"knn","c":1}}`, 400, "evaluate.c",
			"c is the svm's (LIBLINEAR's -c); the classifier knn takes none: leave it out, or choose the classifier svm"},
		{"ML-kNN k on predefined folds", `{"dataset":"` + small + `","method":"pca","params":{"d":2},"split":{"kind":"predefined"},"evaluate":{"k":4}}`, 422, "evaluate.k",
			"evaluate.k is 4, but ML-kNN needs fewer neighbours than training rows and the training part of predefined fold 2 has 4 rows: k may be at most 3"},
		{"lpp k on predefined folds", `{"dataset":"` + small + `","method":"lpp","params":{"d":1,"k":4},"split":{"kind":"predefined"},"evaluate":{"k":1}}`, 422, "params.k",
			"the evaluation fits lpp on the training part of predefined fold 2, 4 rows: k = 4 neighbours needs more than 4 rows; with 4 rows k may be at most 3"},
		{"d on k folds", `{"dataset":"` + small + `","method":"pca","params":{"d":4},"split":{"kind":"kfold","folds":2},"evaluate":{"k":1}}`, 422, "params.d",
			"the evaluation fits pca on the training part of the smallest of the 2 folds, 5 rows: d = 4 exceeds what pca can give on data of this shape: at most 3"},
		{"dims above every method", `{"dataset":"` + ml + `","methods":["pca","plst"],"evaluate":{"dims":[2,30]}}`, 422, "evaluate.dims",
			"evaluate.dims holds d = 30, more than any chosen method can give on the training part of the holdout (480 rows): at most 24 (pca)"},
		{"negative ps_a", `{"dataset":"` + ml + `","method":"pca","params":{"d":2},"evaluate":{"ps_a":-0.55}}`, 400, "evaluate.ps_a",
			"ps_a, the propensity model's exponent A (Jain et al. 2016), must be a number greater than 0 (default 0.55), not -0.55"},
		{"ps_b on multi-dimensional data", `{"dataset":"` + md + `","method":"pca","params":{"d":2},"evaluate":{"ps_b":2.6}}`, 422, "evaluate.ps_b",
			"ps_b weighs the labels of the propensity-scored metrics (psprecision_at_k, psndcg_at_k), which multi-dimensional data does not report: leave it out"},
		{"k at its largest", `{"dataset":"` + small + `","method":"pca","params":{"d":1},"split":{"kind":"predefined"},"evaluate":{"k":3}}`, 202, "", ""},
		{"knn k at its largest", `{"dataset":"` + small + `","method":"pca","params":{"d":1},"split":{"kind":"predefined"},"evaluate":{"classifier":"knn","k":4}}`, 202, "", ""},
		{"dims some method can give", `{"dataset":"` + ml + `","methods":["pca","plst"],"evaluate":{"dims":[2,24]}}`, 202, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, b := s.do("POST", "/api/jobs", "application/json", strings.NewReader(tc.body))
			if resp.StatusCode != tc.status {
				t.Fatalf("got %d %s, want %d", resp.StatusCode, b, tc.status)
			}
			if tc.status == http.StatusAccepted {
				// The largest allowed values run: the bounds are those of the run.
				s.waitJob(decode[map[string]any](t, b)["id"].(string), jobs.Succeeded)
				return
			}
			e := decode[apiErr](t, b)
			if e.Field != tc.field || e.Error != tc.msg {
				t.Errorf("got field %q, error %q\nwant field %q, error %q", e.Field, e.Error, tc.field, tc.msg)
			}
		})
	}
}

// TestJobsAPIPropensity: a job given ps_a and ps_b reports the
// extreme-classification metrics with them, metrics.json records them in
// its classifier, and the job's page says them.
func TestJobsAPIPropensity(t *testing.T) {
	s := newJobServer(t, 1, 0, nil)
	ml := s.demo("multilabel")
	resp, b := s.do("POST", "/api/jobs", "application/json",
		strings.NewReader(`{"dataset":"`+ml+`","method":"pca","params":{"d":2},"evaluate":{"classifier":"ridge","ps_a":0.5,"ps_b":0.4}}`))
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("got %d %s, want 202", resp.StatusCode, b)
	}
	id := decode[map[string]any](t, b)["id"].(string)
	s.waitJob(id, jobs.Succeeded)
	resp, b = s.do("GET", "/api/jobs/"+id+"/metrics.json", "", nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("metrics.json: got %d", resp.StatusCode)
	}
	mf := decode[jobs.MetricsFile](t, b)
	if o := mf.Classifier; o.PsA != 0.5 || o.PsB != 0.4 {
		t.Errorf("metrics.json classifier %+v, want ps_a 0.5 and ps_b 0.4", o)
	}
	for _, r := range mf.Rows {
		for _, k := range evaluate.XCMetricKeys {
			if v, ok := r.Metrics[k]; !ok || !(v >= 0 && v <= 1) {
				t.Errorf("%s d=%d: %s = %v (present %v), want a value in [0, 1]", r.Method, r.D, k, v, ok)
			}
		}
	}
	if got := s.page("/jobs/" + id).Text(); !strings.Contains(got, "A = 0.5, B = 0.4 (Jain et al. 2016)") {
		t.Errorf("the job's page does not give the propensity parameters")
	}
}
