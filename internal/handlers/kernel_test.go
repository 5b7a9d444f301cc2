package handlers_test

import (
	"encoding/json"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"mldr/internal/jobs"
)

// TestAnalyzeKernelMethods: the analysis form offers the kernel
// parameters to kpca and kmddm only, sends what differs from the defaults,
// and the job fits, evaluates and records them; POST
// /api/jobs/{id}/transform projects the data set's rows through the
// kernel model as projected.csv has them; a bad value is refused naming
// its field.
func TestAnalyzeKernelMethods(t *testing.T) {
	s := newJobServer(t, 1, 10, nil)
	ml := s.demo("multilabel")
	form := s.page("/datasets/" + ml + "/analyze").Find(`form[data-testid="analyze-form"]`)
	sel := form.Find(`[data-param="kernel"] select#kernel`)
	if got := strings.Join(sel.Find("option").Map(func(_ int, o *goquery.Selection) string { return o.AttrOr("value", "") }), ","); got != "rbf,poly,linear" {
		t.Errorf("kernel options: got %q, want rbf,poly,linear", got)
	}
	for id, want := range map[string]bool{"kpca": true, "kmddm": true, "pca": false, "kcplst": false} {
		takes := strings.Fields(form.Find(`input[value=`+id+`]`).AttrOr("data-takes", ""))
		if got := slices.Contains(takes, "kernel") && slices.Contains(takes, "landmarks"); got != want {
			t.Errorf("%s data-takes %v has kernel and landmarks: got %v, want %v", id, takes, got, want)
		}
	}

	f := analysisForm("kpca", "kmddm")
	for k, v := range map[string]string{"kernel": "poly", "degree": "2", "coef0": "0.5", "landmarks": "120", "landmark_sampling": "uniform",
		"landmark_seed": "4", "dim_mode": "d", "d": "3", "classifier": "mlknn", "grid": "2, 3"} {
		f.Set(k, v)
	}
	id := s.startAnalysis(ml, f)
	j := s.waitJob(id, jobs.Succeeded)
	p := j.Request.Params
	if p.Kernel != "poly" || p.Degree != 2 || p.Coef0 == nil || *p.Coef0 != 0.5 || p.Landmarks != 120 || p.LandmarkSampling != "uniform" ||
		p.LandmarkSeed == nil || *p.LandmarkSeed != 4 {
		t.Errorf("the request's params: %+v", p)
	}
	resp, body := s.do("GET", "/api/jobs/"+id+"/model.json?method=kmddm", "", nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("model.json: got %d, want 200", resp.StatusCode)
	}
	var mf struct {
		Params     map[string]any `json:"params"`
		Kernel     map[string]any `json:"kernel"`
		KernelRows [][]float64    `json:"kernel_rows"`
		Projection [][]float64    `json:"projection"`
	}
	if err := json.Unmarshal(body, &mf); err != nil {
		t.Fatal(err)
	}
	if mf.Kernel["kind"] != "poly" || mf.Kernel["degree"] != 2.0 || mf.Params["landmarks"] != 120.0 || len(mf.KernelRows) != 120 || len(mf.Projection) != 120 {
		t.Errorf("model.json: kernel %v, params %v, %d basis rows, %d coefficient rows; want poly of degree 2 and 120 landmarks",
			mf.Kernel, mf.Params, len(mf.KernelRows), len(mf.Projection))
	}

	// The results page says what a kernel method's projection files hold.
	card := s.page("/jobs/" + id).Find(`[data-testid="method-kmddm"]`)
	if card.Find("figure svg").Length() != 2 || !strings.Contains(card.Text(), "the dual coefficients α, one row per basis row") {
		t.Errorf("kmddm's card: %d plots, downloads described as %q; want 2 plots and the dual coefficients", card.Find("figure svg").Length(), card.Text())
	}

	_, data := s.do("GET", "/api/datasets/"+ml+"/data.csv", "", nil)
	resp, out := s.upload("/api/jobs/"+id+"/transform?method=kmddm", part{name: "file", file: "rows.csv", body: string(data)})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("transform: got %d %s, want 200", resp.StatusCode, out)
	}
	_, proj := s.do("GET", "/api/jobs/"+id+"/projected.csv?method=kmddm", "", nil)
	got, want := readRows(t, out), readRows(t, proj)
	if len(got) != len(want) || len(got) == 0 {
		t.Fatalf("got %d transformed rows, want %d", len(got), len(want))
	}
	for _, w := range want {
		row, _ := strconv.Atoi(w[0])
		for c := range 3 {
			a, _ := strconv.ParseFloat(got[row-1][c], 64)
			b, _ := strconv.ParseFloat(w[2+c], 64)
			if math.Abs(a-b) > 1e-9*max(1, math.Abs(b)) {
				t.Fatalf("row %s c%d: transform gives %v, projected.csv %v", w[0], c+1, a, b)
			}
		}
	}

	for _, c := range []struct{ field, value, param, says string }{
		{"degree", "two", "params.degree", "degree must be a whole number"},
		{"landmarks", "0", "params.landmarks", "landmarks must be a whole number of at least 1"},
		{"kernel", "sigmoid", "params.kernel", `kernel must be rbf, poly or linear, not "sigmoid"`},
	} {
		f := analysisForm("kpca")
		f.Set("kernel", "poly")
		f.Set(c.field, c.value)
		resp, body := s.postForm("/datasets/"+ml+"/analyze", f)
		if resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("%s=%s: got status %d, want 400", c.field, c.value, resp.StatusCode)
		}
		doc := parseHTML(t, body)
		if msg := doc.Find("#analyze-error").Text(); !strings.Contains(msg, c.says) {
			t.Errorf("%s=%s: got error %q, want %q", c.field, c.value, msg, c.says)
		}
	}
}
