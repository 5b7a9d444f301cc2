package handlers_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"mldr/internal/jobs"
)

// relabelBody asks for the data set's first n label columns as labels.
func (s *server) relabelBody(id string, n int) string {
	s.t.Helper()
	_, body := s.do("GET", "/api/datasets/"+id, "", nil)
	d := decode[apiDataset](s.t, body)
	b, _ := json.Marshal(map[string]any{"labels": d.LabelColumns[:n]})
	return string(b)
}

// A data set that a queued or running job uses cannot be relabelled (409,
// by the API and the page); once its jobs have finished it can.
func TestRelabelWhileJobsUseIt(t *testing.T) {
	g := newGate()
	s := newJobServer(t, 1, 5, g)
	ds, other := s.demo("multilabel"), s.demo("multilabel")
	_, body := s.submit(`{"dataset":"` + ds + `","method":"pca","params":{"d":2}}`)
	running := body["id"].(string)
	s.waitJob(running, jobs.Running)
	_, body = s.submit(`{"dataset":"` + other + `","method":"pca","params":{"d":2}}`)
	queued := body["id"].(string)

	for _, c := range []struct{ ds, want string }{
		{ds, "job " + running + " is running on this data set; wait for it or cancel it, then change the labels"},
		{other, "job " + queued + " is queued on this data set; wait for it or cancel it, then change the labels"},
	} {
		before := s.snapshot()
		resp, body := s.do("PUT", "/api/datasets/"+c.ds+"/labels", "application/json", strings.NewReader(s.relabelBody(c.ds, 3)))
		if resp.StatusCode != http.StatusConflict || decode[apiErr](t, body).Error != c.want {
			t.Errorf("PUT labels of %s: got %d %s, want 409 %q", c.ds, resp.StatusCode, body, c.want)
		}
		resp, page := s.postForm("/datasets/"+c.ds+"/labels", url.Values{"labels": {"beach", "sea"}})
		if sentence := "J" + c.want[1:]; resp.StatusCode != http.StatusConflict || !strings.Contains(string(page), sentence) {
			t.Errorf("the relabel form of %s: got %d, want 409 saying %q", c.ds, resp.StatusCode, sentence)
		}
		if after := s.snapshot(); after != before {
			t.Errorf("a refused relabel changed the store")
		}
	}
	g.release()
	s.waitJob(running, jobs.Succeeded)
	s.waitJob(queued, jobs.Succeeded)
	for _, id := range []string{ds, other} {
		if resp, body := s.do("PUT", "/api/datasets/"+id+"/labels", "application/json", strings.NewReader(s.relabelBody(id, 3))); resp.StatusCode != http.StatusOK {
			t.Errorf("relabel once its jobs finished: got %d %s, want 200", resp.StatusCode, body)
		}
	}
}

// A finished job's projection is coloured by the labels it ran with, also
// after its data set was relabelled.
func TestFinishedJobKeepsItsLabels(t *testing.T) {
	s := newJobServer(t, 1, 5, nil)
	ds := s.demo("multilabel")
	_, body := s.submit(`{"dataset":"` + ds + `","method":"pca","params":{"d":2}}`)
	id := body["id"].(string)
	s.waitJob(id, jobs.Succeeded)
	colours := func(doc *goquery.Document) []string {
		return doc.Find(`#colour option`).Map(func(_ int, o *goquery.Selection) string { return o.AttrOr("value", "") })
	}
	before := colours(s.page("/jobs/" + id))
	if !slices.Contains(before, "label:urban") {
		t.Fatalf("colour options before the relabel %v, want label:urban among them", before)
	}
	if resp, body := s.do("PUT", "/api/datasets/"+ds+"/labels", "application/json", strings.NewReader(s.relabelBody(ds, 3))); resp.StatusCode != http.StatusOK {
		t.Fatalf("relabel: got %d %s, want 200", resp.StatusCode, body)
	}
	_, body2 := s.do("GET", "/api/datasets/"+ds, "", nil)
	if now := decode[apiDataset](t, body2).Labels; slices.Contains(now, "urban") || len(now) != 3 {
		t.Fatalf("the data set's labels after the relabel: %v, want 3 without urban", now)
	}
	doc := s.page("/jobs/" + id + "?colour=label:urban")
	if after := colours(doc); !slices.Equal(after, before) {
		t.Errorf("colour options after the relabel: got %v, want %v", after, before)
	}
	var meta struct {
		Cols []string `json:"cols"`
	}
	raw := doc.Find(`figure[id="projection-pca"]`).AttrOr("data-meta", "")
	if err := json.Unmarshal([]byte(raw), &meta); err != nil || !slices.Equal(meta.Cols, []string{"without urban", "with urban"}) {
		t.Errorf("the projection's legend after the relabel: got %v (%v), want [without urban, with urban]", meta.Cols, err)
	}
	if resp, body := s.do("GET", "/api/jobs/"+id+"/plots/projection.svg?colour=label:urban", "", nil); resp.StatusCode != http.StatusOK {
		t.Errorf("the projection plot coloured by a former label: got %d %.200s, want 200", resp.StatusCode, body)
	}
}

// Results from before jobs kept their labels (no labels.bin) are coloured
// from the data set while it is unchanged; after a relabel the page shows
// a note in place of wrongly coloured points.
func TestOldResultsAfterRelabel(t *testing.T) {
	s := newJobServer(t, 1, 5, nil)
	ds := s.demo("multilabel")
	_, body := s.submit(`{"dataset":"` + ds + `","method":"pca","params":{"d":2}}`)
	id := body["id"].(string)
	s.waitJob(id, jobs.Succeeded)
	// Make the results look older: no labels file, not in the checksums.
	dir := filepath.Join(s.dir, "jobs", id)
	if _, err := os.Stat(filepath.Join(dir, jobs.FileLabels)); err != nil {
		t.Fatalf("the job wrote no %s: %v", jobs.FileLabels, err)
	}
	os.Remove(filepath.Join(dir, jobs.FileLabels))
	sums := filepath.Join(dir, "checksums.json")
	b, err := os.ReadFile(sums)
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]any
	json.Unmarshal(b, &c)
	delete(c["files"].(map[string]any), jobs.FileLabels)
	b, _ = json.Marshal(c)
	os.WriteFile(sums, b, 0o600)

	if resp, body := s.do("GET", "/api/jobs/"+id+"/plots/projection.svg?colour=label:urban", "", nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("old results, unchanged data set: got %d %.200s, want 200", resp.StatusCode, body)
	}
	if resp, body := s.do("PUT", "/api/datasets/"+ds+"/labels", "application/json", strings.NewReader(s.relabelBody(ds, 3))); resp.StatusCode != http.StatusOK {
		t.Fatalf("relabel: got %d %s, want 200", resp.StatusCode, body)
	}
	want := "no projection plot: the labels of data set " + ds + " changed after job " + id + " ran"
	doc := s.page("/jobs/" + id)
	if note := doc.Find(`[data-testid="method-pca"]`).Text(); !strings.Contains(strings.ToLower(note), want) {
		t.Errorf("the job page after the relabel does not say %q:\n%s", want, note)
	}
	resp, plot := s.do("GET", "/api/jobs/"+id+"/plots/projection.svg?colour=label:beach", "", nil)
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.HasPrefix(decode[apiErr](t, plot).Error, want) {
		t.Errorf("the projection plot after the relabel: got %d %s, want 422 %q…", resp.StatusCode, plot, want)
	}
}
