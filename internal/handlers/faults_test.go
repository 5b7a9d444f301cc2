package handlers_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"mldr/internal/handlers"
	"mldr/internal/jobs"
	"mldr/internal/store"
	"mldr/internal/store/faultfs"
)

// newFaultyServer is a server with a real job runner over a store whose
// file system fails on demand.
func newFaultyServer(t *testing.T) (*server, *faultfs.FS) {
	t.Helper()
	dir := t.TempDir()
	ffs := faultfs.New(nil)
	st, err := store.Open(store.Config{Dir: dir, FS: ffs})
	if err != nil {
		t.Fatal(err)
	}
	exec := jobs.NewExecutor(st, "test")
	runner, err := jobs.New(jobs.Config{Store: st, Execute: exec.Execute, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	svc := jobs.NewService(runner, st, jobs.Limits{MaxCells: 1 << 30})
	s := &server{t: t, dir: dir, store: st, max: 1 << 30}
	s.http = httptest.NewServer(handlers.New(handlers.Config{Store: st, Jobs: svc, MaxUpload: 1 << 30, Version: "test"}))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		runner.Shutdown(ctx)
		s.close()
	})
	return s, ffs
}

// A full disk during an upload answers 507 with a clear sentence, stores
// nothing, and the next upload succeeds once there is room again; so does
// a failing device, with a 500.
func TestUploadOnFullDisk(t *testing.T) {
	cases := []struct {
		name   string
		fault  func(*faultfs.FS)
		status int
		msg    string
	}{
		{"disk full at the first write", func(f *faultfs.FS) { f.FailFrom(faultfs.Write, 1, syscall.ENOSPC) }, http.StatusInsufficientStorage,
			"the disk of the data directory is full; nothing was stored"},
		{"disk full when the binary form is written", func(f *faultfs.FS) { f.FailNth(faultfs.Write, 2, syscall.ENOSPC) }, http.StatusInsufficientStorage,
			"the disk of the data directory is full; nothing was stored"},
		{"disk full at the staging directory", func(f *faultfs.FS) { f.FailNth(faultfs.Mkdir, 1, syscall.ENOSPC) }, http.StatusInsufficientStorage,
			"the disk of the data directory is full; nothing was stored"},
		{"a failing fsync", func(f *faultfs.FS) { f.FailNth(faultfs.Sync, 1, syscall.EIO) }, http.StatusInternalServerError,
			"something went wrong on the server"},
		{"a failing rename", func(f *faultfs.FS) { f.FailNth(faultfs.Rename, 2, syscall.EIO) }, http.StatusInternalServerError,
			"something went wrong on the server"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, ffs := newFaultyServer(t)
			before := s.snapshot()
			c.fault(ffs)
			resp, body := s.upload("/api/datasets", part{name: "file", file: "a.csv", body: smallCSV})
			fired := ffs.Fired()
			ffs.Heal()
			if fired == 0 {
				t.Fatal("the fault did not fire")
			}
			if resp.StatusCode != c.status {
				t.Fatalf("got %d %s, want %d", resp.StatusCode, body, c.status)
			}
			if e := decode[apiErr](t, body); !strings.HasPrefix(e.Error, c.msg) {
				t.Errorf("got error %q, want %q", e.Error, c.msg)
			}
			if after := s.snapshot(); after != before {
				t.Errorf("the failed upload changed the data directory:\nbefore %s\nafter %s", before, after)
			}
			resp, body = s.upload("/api/datasets", part{name: "file", file: "a.csv", body: smallCSV})
			if resp.StatusCode != http.StatusCreated {
				t.Fatalf("the upload after the fault: got %d %s, want 201", resp.StatusCode, body)
			}
			id := decode[apiDataset](t, body).ID
			if resp, _ := s.do("GET", "/api/datasets/"+id+"/data.csv", "", nil); resp.StatusCode != http.StatusOK {
				t.Errorf("data.csv of the upload after the fault: got %d, want 200", resp.StatusCode)
			}
		})
	}
}

// A full disk while a job writes its results fails the job with a clear
// error and no results; run again once there is room, it succeeds.
func TestJobOnFullDisk(t *testing.T) {
	s, ffs := newFaultyServer(t)
	ds := s.demo("multilabel")
	ffs.FailFrom(faultfs.Write, 3, syscall.ENOSPC)
	resp, j := s.submit(`{"dataset": "` + ds + `", "methods": ["pca", "plst"], "params": {"d": 2}}`)
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("submit: got %d %v", resp.StatusCode, j)
	}
	id := j["id"].(string)
	failed := s.waitJob(id, jobs.Failed)
	ffs.Heal()
	if !strings.Contains(failed.Error, "the disk of the data directory is full") {
		t.Errorf("got job error %q, want it to say the disk is full", failed.Error)
	}
	if resp, _ := s.do("GET", "/api/jobs/"+id+"/projected.csv?method=pca", "", nil); resp.StatusCode != http.StatusConflict {
		t.Errorf("results of the failed job: got %d, want 409", resp.StatusCode)
	}
	for _, sub := range []string{"jobs", "tmp"} {
		if left, _ := os.ReadDir(filepath.Join(s.dir, sub)); len(left) != 0 {
			t.Errorf("%s/ holds %d entries after the failed job", sub, len(left))
		}
	}
	resp, body := s.do("POST", "/api/jobs/"+id+"/rerun", "", nil)
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("rerun: got %d %s, want 202", resp.StatusCode, body)
	}
	again := decode[map[string]any](t, body)["id"].(string)
	s.waitJob(again, jobs.Succeeded)
	if resp, _ := s.do("GET", "/api/jobs/"+again+"/projected.csv?method=pca", "", nil); resp.StatusCode != http.StatusOK {
		t.Errorf("results of the job run again: got %d, want 200", resp.StatusCode)
	}
}

// A corrupt data file of a data set is reported as such, never sent.
func TestCorruptDatasetReported(t *testing.T) {
	s := newServer(t, t.TempDir(), 1<<20)
	_, body := s.upload("/api/datasets", part{name: "file", file: "a.csv", body: smallCSV})
	id := decode[apiDataset](t, body).ID
	p := filepath.Join(s.dir, "datasets", id, "data-1.bin")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-10] ^= 0xff
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	resp, body := s.do("GET", "/api/datasets/"+id+"/data.csv", "", nil)
	if resp.StatusCode != http.StatusInternalServerError {
		t.Fatalf("got %d %s, want 500", resp.StatusCode, body)
	}
	if e := decode[apiErr](t, body); !strings.Contains(e.Error, "the stored data of this data set are corrupt") {
		t.Errorf("got error %q, want it to say the stored data are corrupt", e.Error)
	}
}

// A corrupt or missing result file is reported by name, on every route
// that reads it, and never served; the job can be run again. Results
// without checksums (written before they existed) are served.
func TestCorruptResultReported(t *testing.T) {
	s := newJobServer(t, 1, 0, nil)
	ds := s.demo("multilabel")
	_, j := s.submit(`{"dataset": "` + ds + `", "method": "pca", "params": {"d": 2}}`)
	id := j["id"].(string)
	s.waitJob(id, jobs.Succeeded)
	dir := filepath.Join(s.dir, "jobs", id, "pca")
	flip := func(path string) {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		b[len(b)/2] ^= 0x01
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// projected.csv is derived from projected.bin at its first download:
	// a corrupt projected.bin is reported when it is asked for.
	flip(filepath.Join(dir, "projected.bin"))
	if err := os.Remove(filepath.Join(dir, "eigenvalues.json")); err != nil {
		t.Fatal(err)
	}
	projected := "result file pca/projected.bin of job " + id + " is corrupt; run the job again"
	eigen := "result file pca/eigenvalues.json of job " + id + " is corrupt; run the job again"
	for _, c := range []struct {
		path   string
		status int
		msg    string
	}{
		{"/api/jobs/" + id + "/projected.csv", http.StatusInternalServerError, projected},
		{"/api/jobs/" + id + "/eigenvalues.json", http.StatusInternalServerError, eigen},
		{"/api/jobs/" + id + "/plots/spectrum.svg", http.StatusInternalServerError, eigen},
		{"/api/jobs/" + id + "/projection.csv", http.StatusOK, ""},
		{"/api/jobs/" + id + "/model.json", http.StatusOK, ""},
	} {
		resp, body := s.do("GET", c.path, "", nil)
		if resp.StatusCode != c.status {
			t.Errorf("GET %s: got %d, want %d: %.200s", c.path, resp.StatusCode, c.status, body)
			continue
		}
		if c.msg != "" {
			if e := decode[apiErr](t, body); e.Error != c.msg {
				t.Errorf("GET %s: got error %q, want %q", c.path, e.Error, c.msg)
			}
		}
	}
	resp, body := s.do("GET", "/jobs/"+id, "", nil)
	if resp.StatusCode != http.StatusInternalServerError || !strings.Contains(string(body), "is corrupt; run the job again") {
		t.Errorf("the job page: got %d, want 500 saying the result is corrupt", resp.StatusCode)
	}

	// Run it again: a new job with the same request.
	for _, c := range []struct {
		id     string
		status int
	}{{id, http.StatusAccepted}, {store.NewID(), http.StatusNotFound}, {"nonsense", http.StatusNotFound}} {
		resp, body := s.do("POST", "/api/jobs/"+c.id+"/rerun", "", nil)
		if resp.StatusCode != c.status {
			t.Fatalf("rerun %s: got %d %s, want %d", c.id, resp.StatusCode, body, c.status)
		}
		if c.status != http.StatusAccepted {
			decode[apiErr](t, body)
			continue
		}
		got := decode[map[string]any](t, body)
		again, _ := got["id"].(string)
		if again == "" || again == id || got["status"] != "queued" || resp.Header.Get("Location") != "/api/jobs/"+again {
			t.Fatalf("rerun: got %v (Location %q), want a new queued job", got, resp.Header.Get("Location"))
		}
		done := s.waitJob(again, jobs.Succeeded)
		if done.Request.Dataset != ds || done.Request.Method != "pca" || done.Request.Params.D != 2 {
			t.Errorf("the job run again asked for %+v", done.Request)
		}
		if resp, _ := s.do("GET", "/api/jobs/"+again+"/projected.csv", "", nil); resp.StatusCode != http.StatusOK {
			t.Errorf("projected.csv of the job run again: got %d, want 200", resp.StatusCode)
		}
		// Once derived, projected.csv is checked like every result file.
		flip(filepath.Join(s.dir, "jobs", again, "pca", "projected.csv"))
		resp, body = s.do("GET", "/api/jobs/"+again+"/projected.csv", "", nil)
		want := "result file pca/projected.csv of job " + again + " is corrupt; run the job again"
		if resp.StatusCode != http.StatusInternalServerError || decode[apiErr](t, body).Error != want {
			t.Errorf("a corrupt projected.csv: got %d %.200s, want 500 %q", resp.StatusCode, body, want)
		}
	}

	// Results from before checksums: served unchecked.
	if err := os.Remove(filepath.Join(s.dir, "jobs", id, store.ChecksumsFile)); err != nil {
		t.Fatal(err)
	}
	if resp, _ := s.do("GET", "/api/jobs/"+id+"/projected.csv", "", nil); resp.StatusCode != http.StatusOK {
		t.Errorf("projected.csv without checksums: got %d, want 200", resp.StatusCode)
	}
}

// A job that has not finished cannot be run again.
func TestRerunWhileRunning(t *testing.T) {
	g := newGate()
	s := newJobServer(t, 1, 0, g)
	ds := s.demo("multilabel")
	_, j := s.submit(`{"dataset": "` + ds + `", "method": "pca", "params": {"d": 2}}`)
	id := j["id"].(string)
	s.waitJob(id, jobs.Running)
	resp, body := s.do("POST", "/api/jobs/"+id+"/rerun", "", nil)
	if resp.StatusCode != http.StatusConflict {
		t.Errorf("rerun of a running job: got %d %s, want 409", resp.StatusCode, body)
	}
	g.release()
	s.waitJob(id, jobs.Succeeded)
}
