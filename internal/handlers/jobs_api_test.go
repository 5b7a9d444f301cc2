package handlers_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"mldr/internal/handlers"
	"mldr/internal/jobs"
	"mldr/internal/store"
)

// gate holds jobs whose request names the data set "held" until opened.
type gate struct {
	mu   sync.Mutex
	open chan struct{}
}

func newGate() *gate { return &gate{open: make(chan struct{})} }

func (g *gate) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-g.open:
	default:
		close(g.open)
	}
}

// newJobServer is a server with a real job runner; jobs wait at the gate
// (reporting progress 0.1 first) before the real executor runs.
func newJobServer(t testing.TB, workers, maxQueue int, g *gate) *server {
	t.Helper()
	return newJobServerLimited(t, workers, maxQueue, g, jobs.Limits{MaxCells: 1 << 30})
}

// newJobServerLimited is newJobServer with the jobs service's limits.
func newJobServerLimited(t testing.TB, workers, maxQueue int, g *gate, lim jobs.Limits) *server {
	t.Helper()
	dir := t.TempDir()
	st, err := store.Open(store.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	exec := jobs.NewExecutor(st, "test")
	work := func(ctx context.Context, j jobs.Job, report jobs.Report) ([]string, error) {
		if g != nil {
			report(0.1, "waiting at the test's gate", "")
			select {
			case <-g.open:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return exec.Execute(ctx, j, report)
	}
	runner, err := jobs.New(jobs.Config{Store: st, Execute: work, Workers: workers, MaxQueue: maxQueue})
	if err != nil {
		t.Fatal(err)
	}
	svc := jobs.NewService(runner, st, lim)
	s := &server{t: t, dir: dir, store: st, max: 1 << 30}
	s.http = httptest.NewServer(handlers.New(handlers.Config{Store: st, Jobs: svc, MaxUpload: 1 << 30, Version: "test"}))
	t.Cleanup(func() {
		if g != nil {
			g.release()
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		runner.Shutdown(ctx)
		s.close()
	})
	return s
}

func (s *server) demo(kind string) string {
	s.t.Helper()
	_, body := s.do("POST", "/api/datasets/demo?demo="+kind, "", nil)
	return decode[apiDataset](s.t, body).ID
}

func (s *server) submit(body string) (*http.Response, map[string]any) {
	s.t.Helper()
	resp, b := s.do("POST", "/api/jobs", "application/json", strings.NewReader(body))
	return resp, decode[map[string]any](s.t, b)
}

// waitJob polls a job until its status is want (within 30 s).
func (s *server) waitJob(id string, want jobs.State) jobs.Job {
	s.t.Helper()
	return s.waitJobWithin(id, want, 30*time.Second)
}

// waitJobWithin polls a job until its status is want, for at most limit.
func (s *server) waitJobWithin(id string, want jobs.State, limit time.Duration) jobs.Job {
	s.t.Helper()
	deadline := time.After(limit)
	for {
		_, b := s.do("GET", "/api/jobs/"+id, "", nil)
		j := decode[jobs.Job](s.t, b)
		if j.Status == want {
			return j
		}
		if j.Status.Terminal() {
			s.t.Fatalf("job %s ended %s (%s), want %s", id, j.Status, j.Error, want)
		}
		select {
		case <-deadline:
			s.t.Fatalf("job %s still %s after %v, want %s", id, j.Status, limit, want)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func TestJobsAPI(t *testing.T) {
	s := newJobServer(t, 2, 0, nil)
	ds := s.demo("multilabel")
	resp, body := s.submit(`{"dataset":"` + ds + `","methods":["pca","plst","mds"],"params":{"d":2},"evaluate":{"classifier":"ridge"}}`)
	if resp.StatusCode != http.StatusAccepted || body["status"] != "queued" || resp.Header.Get("Location") != "/api/jobs/"+body["id"].(string) {
		t.Fatalf("submit: got %d %v", resp.StatusCode, body)
	}
	id := body["id"].(string)
	j := s.waitJob(id, jobs.Succeeded)
	if j.Progress != 1 || j.StartedAt == nil || j.FinishedAt == nil || j.Request.Split.Kind != "holdout" {
		t.Errorf("finished job: %+v", j)
	}
	for _, tc := range []struct {
		path, ctype string
		status      int
	}{
		{"/projection.csv?method=pca", "text/csv", 200},
		{"/projection.npy?method=plst", "application/octet-stream", 200},
		{"/projection.json?method=pca", "application/json", 200},
		{"/eigenvalues.json?method=pca", "application/json", 200},
		{"/projected.csv?method=plst", "text/csv", 200},
		{"/model.json?method=pca", "application/json", 200},
		{"/metrics.json", "application/json", 200},
		{"/experiment.json", "application/json", 200},
		{"/experiment.json?method=pca", "application/json", 200},  // per job: the method is not asked
		{"/projection.csv", "application/json", 400},              // several methods: ?method= needed
		{"/projection.csv?method=mddmp", "application/json", 404}, // not run
		{"/secrets.txt?method=pca", "application/json", 404},
	} {
		resp, _ := s.do("GET", "/api/jobs/"+id+tc.path, "", nil)
		if resp.StatusCode != tc.status || !strings.HasPrefix(resp.Header.Get("Content-Type"), tc.ctype) {
			t.Errorf("GET %s: got %d %s, want %d %s", tc.path, resp.StatusCode, resp.Header.Get("Content-Type"), tc.status, tc.ctype)
		}
	}
	if resp, _ := s.do("GET", "/api/jobs/"+id+"/projection.csv?method=pca", "", nil); resp.Header.Get("Content-Disposition") != "attachment; filename=Demo__synthetic_scenes__multi-label__pca_d2_projection.csv" {
		t.Errorf("got Content-Disposition %q", resp.Header.Get("Content-Disposition"))
	}
	resp, b := s.do("GET", "/api/jobs/"+id+"/experiment.json", "", nil)
	if got := resp.Header.Get("Content-Disposition"); got != "attachment; filename=Demo__synthetic_scenes__multi-label__experiment.json" {
		t.Errorf("experiment.json: got Content-Disposition %q", got)
	}
	if e := decode[jobs.Experiment](t, b); e.Job != id || e.Request.Dataset != ds || e.Data[ds].SHA256 == "" || e.Seeds["split"] != 1 {
		t.Errorf("experiment.json: got %+v, want job %s on %s with its SHA-256 and split seed 1", e, id, ds)
	}
	resp, b = s.do("GET", "/jobs/"+id, "", nil)
	if resp.StatusCode != 200 || !strings.Contains(string(b), `href="/api/jobs/`+id+`/experiment.json"`) {
		t.Errorf("job page: got %d without the link to experiment.json", resp.StatusCode)
	}
	_, b = s.do("GET", "/api/jobs", "", nil)
	if list := decode[[]jobs.Job](t, b); len(list) != 1 || list[0].ID != id {
		t.Errorf("list: %v", list)
	}
	// Transform: new rows with the same features.
	csvRows := "sig01,sig02,sig03,sig04,sig05,sig06,sig07,sig08,sig09,sig10,sig11,sig12,sig13,sig14,sig15,sig16,noise01,noise02,noise03,noise04,noise05,noise06,noise07,noise08\n" +
		strings.Repeat("1,", 23) + "1\n" + strings.Repeat("0,", 23) + "0\n"
	resp, out := s.upload("/api/jobs/"+id+"/transform?method=pca", part{name: "file", file: "new.csv", body: csvRows})
	if resp.StatusCode != 200 || strings.Count(string(out), "\n") != 3 || !strings.HasPrefix(string(out), "c1,c2\n") {
		t.Errorf("transform: got %d %q", resp.StatusCode, out)
	}
	// No transform, each with its reason: plst reduces the labels, mds
	// places only the rows it was fitted on.
	for method, reason := range map[string]string{"plst": "reduces the label space", "mds": "transductive"} {
		resp, out = s.upload("/api/jobs/"+id+"/transform?method="+method, part{name: "file", file: "new.csv", body: csvRows})
		if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(string(out), reason) {
			t.Errorf("transform with %s: got %d %s, want 422 saying %q", method, resp.StatusCode, out, reason)
		}
	}
	resp, out = s.upload("/api/jobs/"+id+"/transform?method=pca", part{name: "file", file: "new.csv", body: "sig01\n1\n"})
	if e := decode[apiErr](t, out); resp.StatusCode != 400 || e.Line != 1 {
		t.Errorf("transform without the columns: got %d %s, want 400 on line 1", resp.StatusCode, out)
	}
	// The data set is in use: 409 until its jobs are gone.
	resp, out = s.do("DELETE", "/api/datasets/"+ds, "", nil)
	if resp.StatusCode != http.StatusConflict || !strings.Contains(string(out), "1 job uses this data set (job "+id+"); delete it first, or delete it with the data set: add ?with_jobs=1") {
		t.Errorf("delete a data set in use: got %d %s", resp.StatusCode, out)
	}
	if resp, _ := s.do("POST", "/api/jobs/"+id+"/cancel", "", nil); resp.StatusCode != http.StatusConflict {
		t.Errorf("cancel a finished job: got %d, want 409", resp.StatusCode)
	}
	if resp, _ := s.do("DELETE", "/api/jobs/"+id, "", nil); resp.StatusCode != http.StatusNoContent {
		t.Errorf("delete job: got %d", resp.StatusCode)
	}
	if resp, _ := s.do("GET", "/api/jobs/"+id, "", nil); resp.StatusCode != 404 {
		t.Errorf("deleted job: got %d, want 404", resp.StatusCode)
	}
	if resp, _ := s.do("DELETE", "/api/datasets/"+ds, "", nil); resp.StatusCode != http.StatusNoContent {
		t.Errorf("delete the data set once unused: got %d", resp.StatusCode)
	}
}

func TestJobsAPIRefusals(t *testing.T) {
	s := newJobServer(t, 1, 0, nil)
	ds := s.demo("multilabel")
	for _, tc := range []struct {
		body   string
		status int
		field  string
	}{
		{`{"dataset":"` + ds + `","method":"tsne"}`, 400, "method"},
		{`{"dataset":"` + ds + `","method":"pca","params":{"d":2,"thr":0.9}}`, 400, "params.d"},
		{`{"dataset":"` + ds + `","method":"mddmp","params":{"d":9}}`, 422, "params.d"},
		{`{"dataset":"aaaaaaaaaaaaaaaa","method":"pca"}`, 422, "dataset"},
		{`{"dataset":"` + ds + `","method":"pca","colour":1}`, 400, "colour"},
		{`{"dataset":"` + ds + `","method":"pca","params":{"d":"two"}}`, 400, "params.d"},
		{`{"dataset":`, 400, ""},
	} {
		resp, body := s.submit(tc.body)
		if resp.StatusCode != tc.status || (tc.field != "" && body["field"] != tc.field) || body["error"] == "" {
			t.Errorf("%s: got %d %v, want %d on %q", tc.body, resp.StatusCode, body, tc.status, tc.field)
		}
	}
	if _, b := s.do("GET", "/api/jobs", "", nil); strings.TrimSpace(string(b)) != "[]" {
		t.Errorf("refused requests were queued: %s", b)
	}
}

func TestJobsAPIWhileRunning(t *testing.T) {
	g := newGate()
	s := newJobServer(t, 1, 1, g)
	ds := s.demo("multilabel")
	job := `{"dataset":"` + ds + `","method":"pca","params":{"d":2}}`
	_, first := s.submit(job)
	id := first["id"].(string)
	s.waitJob(id, jobs.Running)
	_, second := s.submit(job) // queued behind it
	if resp, body := s.submit(job); resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Errorf("a full queue: got %d %v (Retry-After %q), want 429 with Retry-After", resp.StatusCode, body, resp.Header.Get("Retry-After"))
	}
	if resp, _ := s.do("GET", "/api/jobs/"+id+"/projection.csv", "", nil); resp.StatusCode != http.StatusConflict {
		t.Errorf("results of a running job: got %d, want 409", resp.StatusCode)
	}
	if resp, _ := s.do("DELETE", "/api/jobs/"+id, "", nil); resp.StatusCode != http.StatusConflict {
		t.Errorf("delete a running job: got %d, want 409", resp.StatusCode)
	}
	// Cancel the queued one: at once.
	resp, b := s.do("POST", "/api/jobs/"+second["id"].(string)+"/cancel", "", nil)
	if resp.StatusCode != http.StatusAccepted || decode[jobs.Job](t, b).Status != jobs.Canceled {
		t.Errorf("cancel queued: got %d %s", resp.StatusCode, b)
	}
	// Events of the running job, until it succeeds after the gate opens.
	req, _ := http.NewRequest("GET", s.http.URL+"/api/jobs/"+id+"/events", nil)
	eresp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer eresp.Body.Close()
	if ct := eresp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("events Content-Type %q", ct)
	}
	events := make(chan jobs.Job)
	go func() {
		defer close(events)
		sc := bufio.NewScanner(eresp.Body)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var j jobs.Job
				json.Unmarshal([]byte(data), &j)
				events <- j
			}
		}
	}()
	last, prev := jobs.Job{}, -1.0
	opened := false
	for timeout := time.After(30 * time.Second); ; {
		select {
		case j, ok := <-events:
			if !ok {
				if last.Status != jobs.Succeeded {
					t.Fatalf("the stream ended at %s", last.Status)
				}
				return
			}
			if j.Progress < prev {
				t.Errorf("progress went back: %v after %v", j.Progress, prev)
			}
			prev, last = j.Progress, j
			if !opened {
				g.release()
				opened = true
			}
		case <-timeout:
			t.Fatal("no end of the event stream within 30 s")
		}
	}
}

func TestJobsAPICancelRunning(t *testing.T) {
	g := newGate()
	s := newJobServer(t, 1, 0, g)
	ds := s.demo("multilabel")
	_, body := s.submit(`{"dataset":"` + ds + `","method":"pca"}`)
	id := body["id"].(string)
	s.waitJob(id, jobs.Running)
	if resp, _ := s.do("POST", "/api/jobs/"+id+"/cancel", "", nil); resp.StatusCode != http.StatusAccepted {
		t.Errorf("cancel running: got %d", resp.StatusCode)
	}
	j := s.waitJob(id, jobs.Canceled)
	if j.Error != "" || j.FinishedAt == nil {
		t.Errorf("canceled job: %+v", j)
	}
}

func TestJobsAPIHead(t *testing.T) {
	s := newJobServer(t, 1, 0, nil)
	ds := s.demo("multilabel")
	_, body := s.submit(`{"dataset":"` + ds + `","method":"pca","params":{"d":2}}`)
	id := body["id"].(string)
	s.waitJob(id, jobs.Succeeded)
	resp, b := s.do("HEAD", "/api/jobs/"+id+"/projection.npy", "", nil)
	if resp.StatusCode != 200 || len(b) != 0 || resp.ContentLength <= 0 {
		t.Errorf("HEAD: got %d, %d bytes, length %d", resp.StatusCode, len(b), resp.ContentLength)
	}
}
