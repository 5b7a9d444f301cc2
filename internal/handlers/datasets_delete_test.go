package handlers_test

import (
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mldr/internal/jobs"
)

// finished submits a job and waits for it to succeed; it returns its id.
func (s *server) finished(body string) string {
	s.t.Helper()
	resp, out := s.submit(body)
	if resp.StatusCode != http.StatusAccepted {
		s.t.Fatalf("submit %s: got %d %v, want 202", body, resp.StatusCode, out)
	}
	id := out["id"].(string)
	s.waitJob(id, jobs.Succeeded)
	return id
}

// leftOnDisk lists the paths under the data directory that name one of
// ids.
func (s *server) leftOnDisk(ids ...string) []string {
	s.t.Helper()
	var left []string
	err := filepath.WalkDir(s.dir, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		for _, id := range ids {
			if strings.Contains(p, id) {
				left = append(left, p)
			}
		}
		return nil
	})
	if err != nil {
		s.t.Fatal(err)
	}
	return left
}

func TestDeleteDatasetWithJobs(t *testing.T) {
	s := newJobServer(t, 1, 0, nil)
	ds, other := s.demo("multilabel"), s.demo("multilabel")
	pca := func(id string) string { return `{"dataset":"` + id + `","method":"pca","params":{"d":2}}` }
	gone := []string{s.finished(pca(ds)), s.finished(pca(ds)),
		s.finished(`{"datasets":["` + ds + `","` + other + `"],"methods":["pca"],"params":{"d":2},"split":{"kind":"kfold","folds":2},"evaluate":{"classifier":"ridge"}}`)}
	kept := s.finished(pca(other))
	for _, id := range append(gone, kept) {
		if _, err := os.Stat(s.store.JobDir(id)); err != nil {
			t.Fatalf("job %s has no results on disk before the deletion: %v", id, err)
		}
	}

	for _, tc := range []struct {
		query  string
		status int
		want   string
	}{
		{"", http.StatusConflict, "3 jobs (1 of them a study) use this data set (the first is " + gone[0] + "); delete them first, or delete them with the data set: add ?with_jobs=1"},
		{"?with_jobs=0", http.StatusConflict, "add ?with_jobs=1"},
		{"?with_jobs=yes", http.StatusBadRequest, `with_jobs must be 1 (delete the jobs that use the data set with it) or 0, not \"yes\"`},
	} {
		resp, out := s.do("DELETE", "/api/datasets/"+ds+tc.query, "", nil)
		if resp.StatusCode != tc.status || !strings.Contains(string(out), tc.want) {
			t.Errorf("DELETE %s: got %d %s, want %d saying %q", tc.query, resp.StatusCode, out, tc.status, tc.want)
		}
	}
	if resp, _ := s.do("GET", "/api/datasets/"+ds, "", nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("the refused data set: got %d, want 200", resp.StatusCode)
	}

	if resp, out := s.do("DELETE", "/api/datasets/"+ds+"?with_jobs=1", "", nil); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE ?with_jobs=1: got %d %s, want 204", resp.StatusCode, out)
	}
	for _, id := range gone {
		if resp, _ := s.do("GET", "/api/jobs/"+id, "", nil); resp.StatusCode != http.StatusNotFound {
			t.Errorf("job %s of the deleted data set: got %d, want 404", id, resp.StatusCode)
		}
	}
	if left := s.leftOnDisk(append(gone, ds)...); len(left) > 0 {
		t.Errorf("left on disk: got %v, want nothing", left)
	}
	if resp, _ := s.do("GET", "/api/jobs/"+kept+"/projection.csv", "", nil); resp.StatusCode != http.StatusOK {
		t.Errorf("the other data set's job: got %d, want 200", resp.StatusCode)
	}
	if resp, _ := s.do("GET", "/api/datasets/"+other, "", nil); resp.StatusCode != http.StatusOK {
		t.Errorf("the other data set: got %d, want 200", resp.StatusCode)
	}
	for _, q := range []string{"", "?with_jobs=1"} {
		if resp, _ := s.do("DELETE", "/api/datasets/"+ds+q, "", nil); resp.StatusCode != http.StatusNotFound {
			t.Errorf("DELETE %s of a deleted data set: got %d, want 404", q, resp.StatusCode)
		}
	}
	// Without jobs, with_jobs changes nothing.
	if resp, _ := s.do("DELETE", "/api/jobs/"+kept, "", nil); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("delete job: got %d, want 204", resp.StatusCode)
	}
	if resp, out := s.do("DELETE", "/api/datasets/"+other+"?with_jobs=1", "", nil); resp.StatusCode != http.StatusNoContent {
		t.Errorf("DELETE ?with_jobs=1 of an unused data set: got %d %s, want 204", resp.StatusCode, out)
	}
}

// A running job refuses the deletion of its data set; a queued one goes
// with it.
func TestDeleteDatasetWithRunningJobs(t *testing.T) {
	g := newGate()
	s := newJobServer(t, 1, 0, g)
	ds, other := s.demo("multilabel"), s.demo("multilabel")
	_, out := s.submit(`{"dataset":"` + ds + `","method":"pca","params":{"d":2}}`)
	running := out["id"].(string)
	s.waitJob(running, jobs.Running)
	_, out = s.submit(`{"dataset":"` + other + `","method":"pca","params":{"d":2}}`)
	queued := out["id"].(string)

	resp, body := s.do("DELETE", "/api/datasets/"+ds+"?with_jobs=1", "", nil)
	if want := "job " + running + " is running on this data set; cancel it, then delete the data set with its jobs"; resp.StatusCode != http.StatusConflict || !strings.Contains(string(body), want) {
		t.Errorf("DELETE with a running job: got %d %s, want 409 saying %q", resp.StatusCode, body, want)
	}
	if resp, _ := s.do("GET", "/api/jobs/"+running, "", nil); resp.StatusCode != http.StatusOK {
		t.Errorf("the running job: got %d, want 200", resp.StatusCode)
	}
	if resp, body := s.do("DELETE", "/api/datasets/"+other+"?with_jobs=1", "", nil); resp.StatusCode != http.StatusNoContent {
		t.Errorf("DELETE with a queued job: got %d %s, want 204", resp.StatusCode, body)
	}
	if resp, _ := s.do("GET", "/api/jobs/"+queued, "", nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("the queued job of the deleted data set: got %d, want 404", resp.StatusCode)
	}
	g.release()
	s.waitJob(running, jobs.Succeeded)
}

// The data set's page confirms a deletion with the count of the jobs that
// go with it, and a count that changed since is refused.
func TestDeleteDatasetPage(t *testing.T) {
	s := newJobServer(t, 1, 0, nil)
	ds := s.demo("multilabel")
	pca := `{"dataset":"` + ds + `","method":"pca","params":{"d":2}}`
	ids := []string{s.finished(pca), s.finished(pca)}

	resp, body := s.do("GET", "/datasets/"+ds, "", nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("data set page: got %d, want 200", resp.StatusCode)
	}
	doc := parseHTML(t, body)
	form := doc.Find(`[data-testid="delete-form"]`)
	if got, want := strings.Join(strings.Fields(form.Find(`[data-testid="delete-jobs"]`).Text()), " "), "This removes the stored file, its summary and the 2 jobs that use it, with their results. It cannot be undone."; got != want {
		t.Errorf("confirmation: got %q, want %q", got, want)
	}
	if got := form.Find(`input[name="with_jobs"]`).AttrOr("value", ""); got != "1" {
		t.Errorf("with_jobs: got %q, want 1", got)
	}
	if got := form.Find(`input[name="jobs"]`).AttrOr("value", ""); got != "2" {
		t.Errorf("jobs: got %q, want 2", got)
	}
	button := form.Find(`[data-testid="delete-confirm"]`)
	if got, want := strings.Join(strings.Fields(button.Text()), " "), "Delete Demo: synthetic scenes (multi-label) and 2 jobs"; got != want {
		t.Errorf("button: got %q, want %q", got, want)
	}
	if got := button.AttrOr("aria-describedby", ""); got != "delete-what" || doc.Find("#delete-what").Length() != 1 {
		t.Errorf("button: aria-describedby %q, want delete-what, which the page has", got)
	}

	post := func(v url.Values) (*http.Response, []byte) {
		return s.do("POST", "/datasets/"+ds+"/delete", "application/x-www-form-urlencoded", strings.NewReader(v.Encode()))
	}
	resp, body = post(url.Values{"with_jobs": {"1"}, "jobs": {"1"}})
	doc = parseHTML(t, body)
	if want := "2 jobs use this data set now, not 1 as the confirmation said; read it again and confirm"; resp.StatusCode != http.StatusConflict || !strings.Contains(doc.Find(`#delete-error`).Text(), want) {
		t.Errorf("a stale count: got %d %q, want 409 saying %q", resp.StatusCode, doc.Find(`#delete-error`).Text(), want)
	}
	if doc.Find(`[data-testid="delete-form"]`).ParentsFiltered("details[open]").Length() != 1 {
		t.Error("a refused deletion: the delete form is not open")
	}
	resp, body = post(url.Values{})
	if resp.StatusCode != http.StatusConflict || !strings.Contains(parseHTML(t, body).Find(`#delete-error`).Text(), "2 jobs use this data set") {
		t.Errorf("no confirmation of the jobs: got %d, want 409 counting them", resp.StatusCode)
	}
	resp, _ = post(url.Values{"with_jobs": {"1"}, "jobs": {"2"}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/?notice=deleted" {
		t.Fatalf("confirmed: got %d to %q, want 303 to /?notice=deleted", resp.StatusCode, resp.Header.Get("Location"))
	}
	for _, id := range ids {
		if resp, _ := s.do("GET", "/api/jobs/"+id, "", nil); resp.StatusCode != http.StatusNotFound {
			t.Errorf("job %s: got %d, want 404", id, resp.StatusCode)
		}
	}
	if left := s.leftOnDisk(append(ids, ds)...); len(left) > 0 {
		t.Errorf("left on disk: got %v, want nothing", left)
	}
}
