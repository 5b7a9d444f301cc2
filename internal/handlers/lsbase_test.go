package handlers_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"mldr/internal/jobs"
)

// TestLabelSpaceBaselinesJob runs the four label-space baselines
// (mlcssp, faie, rembrandt, leml) as one job through the JSON API with
// their parameters and an evaluation, and reads what each gives: metrics
// rows at every d of the grid with the label-space errors, model.json
// with the parameters as used and, for mlcssp and faie, the decoding
// matrix (one row per label), and the projection downloads.
func TestLabelSpaceBaselinesJob(t *testing.T) {
	s := newJobServer(t, 2, 0, nil)
	ds := s.demo("multilabel")
	resp, body := s.submit(`{"dataset":"` + ds + `","methods":["mlcssp","faie","rembrandt","leml"],` +
		`"params":{"d":3,"alpha":20,"oversample":2,"power_iters":3,"iterations":50},"evaluate":{"classifier":"ridge","dims":[1,3]}}`)
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("submit: got %d %v, want 202", resp.StatusCode, body)
	}
	id := body["id"].(string)
	s.waitJob(id, jobs.Succeeded)
	_, b := s.do("GET", "/api/jobs/"+id+"/metrics.json", "", nil)
	var mf struct {
		Rows []struct {
			Method  string             `json:"method"`
			D       int                `json:"d"`
			Fold    *int               `json:"fold"`
			Metrics map[string]float64 `json:"metrics"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(b, &mf); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		method   string
		decoding bool
		param    string
	}{{"mlcssp", true, "lambda"}, {"faie", true, "alpha"}, {"rembrandt", false, "power_iters"}, {"leml", false, "iterations"}} {
		t.Run(tc.method, func(t *testing.T) {
			var ds []int
			for _, r := range mf.Rows {
				if r.Method == tc.method && r.Fold == nil {
					ds = append(ds, r.D)
					for _, k := range []string{"hamming_loss", "encoding_error", "prediction_error"} {
						if _, ok := r.Metrics[k]; !ok {
							t.Errorf("d = %d: no %s in %v", r.D, k, r.Metrics)
						}
					}
				}
			}
			if !slices.Equal(ds, []int{1, 3}) {
				t.Errorf("metrics rows at d = %v, want [1 3]", ds)
			}
			resp, b := s.do("GET", "/api/jobs/"+id+"/model.json?method="+tc.method, "", nil)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("model.json: got %d, want 200", resp.StatusCode)
			}
			var m struct {
				Params     map[string]any `json:"params"`
				Labels     []string       `json:"labels"`
				Projection [][]float64    `json:"projection"`
				Decoding   [][]float64    `json:"decoding"`
				D          int            `json:"d"`
			}
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			if _, ok := m.Params[tc.param]; !ok || m.D != 3 {
				t.Errorf("model.json: params %v, d %d; want %s recorded and d = 3", m.Params, m.D, tc.param)
			}
			if len(m.Projection) != len(m.Labels) {
				t.Errorf("projection: %d rows for %d labels", len(m.Projection), len(m.Labels))
			}
			if got := len(m.Decoding); tc.decoding && (got != len(m.Labels) || len(m.Decoding[0]) != 3) || !tc.decoding && got != 0 {
				t.Errorf("decoding: %d rows, want %v for %d labels", got, tc.decoding, len(m.Labels))
			}
			if resp, _ := s.do("GET", "/api/jobs/"+id+"/projection.npy?method="+tc.method, "", nil); resp.StatusCode != http.StatusOK {
				t.Errorf("projection.npy: got %d, want 200", resp.StatusCode)
			}
		})
	}
}

// TestAnalyzeFormLabelSpaceBaselines: the analysis form offers the
// baselines' parameters and sends them to the methods that take them
// (alpha to faie, the sketch to rembrandt, iterations to leml); a value
// that is not a whole number is refused with the field marked.
func TestAnalyzeFormLabelSpaceBaselines(t *testing.T) {
	s := newJobServer(t, 1, 0, nil)
	ds := s.demo("multilabel")
	doc := s.page("/datasets/" + ds + "/analyze")
	for _, name := range []string{"alpha", "oversample", "power_iters", "iterations"} {
		if doc.Find(`input[name="`+name+`"]`).Length() != 1 {
			t.Errorf("the form has no %s field", name)
		}
	}
	f := analysisForm("faie", "rembrandt", "leml")
	for k, v := range map[string]string{"alpha": "25", "oversample": "3", "power_iters": "4", "iterations": "30", "classifier": "none"} {
		f.Set(k, v)
	}
	id := s.startAnalysis(ds, f)
	j := s.waitJob(id, jobs.Succeeded)
	p := j.Request.Params
	if p.Alpha == nil || *p.Alpha != 25 || p.Oversample == nil || *p.Oversample != 3 || p.PowerIters == nil || *p.PowerIters != 4 || p.Iterations != 30 {
		t.Errorf("the job's parameters: %+v", p)
	}
	f.Set("iterations", "many")
	resp, body := s.postForm("/datasets/"+ds+"/analyze", f)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "iterations must be a whole number") {
		t.Errorf("iterations = many: got %d, want 400 with the sentence", resp.StatusCode)
	}
}
