package handlers_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"mldr/internal/jobs"
)

// TestAnalyzeNormalize: the analysis form offers normalize (unit or b) for
// the methods that take it, sends b and leaves the default unsent, and the
// job's manifest records the normalisation used; a bad value or a method
// that does not take it is refused naming the parameter.
func TestAnalyzeNormalize(t *testing.T) {
	s := newJobServer(t, 1, 10, nil)
	ml := s.demo("multilabel")
	form := s.page("/datasets/" + ml + "/analyze").Find(`form[data-testid="analyze-form"]`)
	sel := form.Find(`[data-param="normalize"] select#normalize`)
	if sel.Length() != 1 {
		t.Fatal("got no normalize select marked data-param=normalize, want one")
	}
	if got := strings.Join(sel.Find("option").Map(func(_ int, o *goquery.Selection) string { return o.AttrOr("value", "") }), ","); got != "unit,b" {
		t.Errorf("normalize options: got %s, want unit,b", got)
	}
	if got := sel.Find("option[selected]").AttrOr("value", ""); got != "unit" {
		t.Errorf("normalize default: got %q, want unit", got)
	}
	for id, want := range map[string]bool{"mlsi": true, "cca": true, "lpp": true, "lda": true, "mlda": true, "mddmf": false, "pca": false} {
		if got := strings.Contains(form.Find(`input[value=`+id+`]`).AttrOr("data-takes", ""), "normalize"); got != want {
			t.Errorf("%s data-takes has normalize: got %v, want %v", id, got, want)
		}
	}

	for _, c := range []struct{ normalize, sent, used string }{{"b", "b", "b"}, {"unit", "", "unit"}} {
		f := analysisForm("mlsi", "mddmf")
		f.Set("normalize", c.normalize)
		f.Set("classifier", "none")
		id := s.startAnalysis(ml, f)
		j := s.waitJob(id, jobs.Succeeded)
		if j.Request.Params.Normalize != c.sent {
			t.Errorf("form normalize=%s: the request has normalize %q, want %q", c.normalize, j.Request.Params.Normalize, c.sent)
		}
		for method, want := range map[string]string{"mlsi": c.used, "mddmf": ""} {
			resp, body := s.do("GET", "/api/jobs/"+id+"/model.json?method="+method, "", nil)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("model.json of %s: got status %d, want 200\n%s", method, resp.StatusCode, body)
			}
			var mf struct {
				Params map[string]any `json:"params"`
			}
			if err := json.Unmarshal(body, &mf); err != nil {
				t.Fatal(err)
			}
			got, _ := mf.Params["normalize"].(string)
			if got != want {
				t.Errorf("form normalize=%s: %s's manifest records normalize %q, want %q", c.normalize, method, got, want)
			}
		}
	}

	f := analysisForm("mlsi")
	f.Set("normalize", "l2")
	resp, body := s.postForm("/datasets/"+ml+"/analyze", f)
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("normalize=l2: got status %d, want 400\n%s", resp.StatusCode, body)
	}
	doc := parseHTML(t, body)
	if msg := doc.Find("#analyze-error").Text(); !strings.Contains(msg, `normalize must be unit (unit-length directions) or b`) {
		t.Errorf("normalize=l2: got error %q, want it to name unit and b", msg)
	}
	if doc.Find("#normalize").AttrOr("aria-invalid", "") != "true" {
		t.Error("normalize=l2: #normalize is not marked invalid")
	}

	for _, c := range []struct{ body, says string }{
		{`{"dataset":"` + ml + `","method":"mddmf","params":{"normalize":"b"}}`, "no chosen method takes the parameter normalize"},
		{`{"dataset":"` + ml + `","method":"cca","params":{"normalize":"B"}}`, `normalize must be unit (unit-length directions) or b (B-orthonormal directions, PᵀBP = I), not "B"`},
	} {
		resp, body := s.submit(c.body)
		if resp.StatusCode != http.StatusBadRequest || body["field"] != "params.normalize" || !strings.Contains(body["error"].(string), c.says) {
			t.Errorf("%s: got %d %v, want 400 with field params.normalize saying %q", c.body, resp.StatusCode, body, c.says)
		}
	}
}
