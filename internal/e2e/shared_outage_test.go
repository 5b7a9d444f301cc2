package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mldr/internal/pgtest"
)

// unreachable is the sentence of every answer during an outage of the
// database (handlers.Unavailable).
const unreachable = "the database is unreachable; nothing was stored or changed, and the server reconnects by itself: try again in a few seconds"

// wantUnreachable checks an answer given while the database cannot be
// reached: 503 with Retry-After and the sentence, as JSON or as a page.
func wantUnreachable(t *testing.T, what string, r jtResp, asJSON bool) {
	t.Helper()
	if r.Status != http.StatusServiceUnavailable || r.Header.Get("Retry-After") == "" {
		t.Errorf("%s during the outage: got %d (Retry-After %q) %.300s, want 503 with Retry-After", what, r.Status, r.Header.Get("Retry-After"), r.Body)
		return
	}
	if asJSON {
		if e := jtAPIErr(t, what, r); e.Error != unreachable {
			t.Errorf("%s during the outage: got %q, want %q", what, e.Error, unreachable)
		}
		return
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") || !bytes.Contains(r.Body, []byte("The database is unreachable; nothing was stored or changed")) {
		t.Errorf("%s during the outage: got %s %.300s, want a page saying the database is unreachable", what, ct, r.Body)
	}
}

// waitReady polls a process's /readyz until it answers want, and returns
// how long that took; it fails the test after within.
func waitReady(ctx context.Context, t *testing.T, a *app, want int, within time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		r, err := jtSend(ctx, "GET", a.url+"/readyz", "", nil)
		if err == nil && r.Status == want {
			if want != http.StatusOK && r.Header.Get("Retry-After") == "" {
				t.Errorf("/readyz: got %d without Retry-After", r.Status)
			}
			return time.Since(start)
		}
		if time.Since(start) > within {
			t.Fatalf("/readyz of %s: got %d %s (%v) after %v, want %d", a.url, r.Status, r.Body, err, within, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// checkOutage makes the requests of a user during an outage of the
// database, web being a web process and others any other processes: the
// lists, the pages, an upload and a job submission on ds answer 503 with
// the sentence, /healthz 200 everywhere, /readyz 503 everywhere.
func checkOutage(ctx context.Context, t *testing.T, web *app, ds string, others ...*app) {
	t.Helper()
	for _, c := range []struct {
		path   string
		asJSON bool
	}{{"/api/jobs", true}, {"/api/datasets", true}, {"/jobs", false}, {"/", false}} {
		wantUnreachable(t, "GET "+c.path, jtGet(ctx, t, web.url+c.path), c.asJSON)
	}
	resp, err := http.DefaultClient.Do(uploadRequest(ctx, web.url, "refused.csv", bytes.NewReader(sharedCSV(50))))
	if err != nil {
		t.Fatalf("an upload during the outage: %v", err)
	}
	var up jtResp
	up.Status, up.Header = resp.StatusCode, resp.Header
	json.NewDecoder(resp.Body).Decode(&struct{}{})
	resp.Body.Close()
	if up.Status != http.StatusServiceUnavailable || up.Header.Get("Retry-After") == "" {
		t.Errorf("an upload during the outage: got %d, want 503 with Retry-After", up.Status)
	}
	wantUnreachable(t, "a job submission", jtPostJob(ctx, t, web, map[string]any{"dataset": ds, "method": "pca", "params": map[string]any{"d": 1}}), true)
	for _, a := range append([]*app{web}, others...) {
		if r := jtGet(ctx, t, a.url+"/healthz"); r.Status != http.StatusOK {
			t.Errorf("%s/healthz during the outage: got %d, want 200 (the process answers)", a.url, r.Status)
		}
		if r := jtGet(ctx, t, a.url+"/readyz"); r.Status != http.StatusServiceUnavailable {
			t.Errorf("%s/readyz during the outage: got %d, want 503", a.url, r.Status)
		}
	}
}

// The shared mode through two outages of its database, with the real
// binary (one web process, one worker process) on a PostgreSQL of the
// test's own: the server stopped mid-job and started again, then frozen
// (SIGSTOP) for 20 s mid-job. During each, every request that needs the
// database answers 503 with Retry-After and the sentence (never an empty
// list, null or a 500), an upload and a job submission store nothing,
// /readyz answers 503 and /healthz 200. After each, without restarting
// either process, /readyz answers 200 again, the job that was running
// succeeds with its results, and new uploads and jobs work; each process
// logs each outage in two lines, one when it begins and one when it ends.
func TestSharedDatabaseOutage(t *testing.T) {
	cluster := pgtest.NewCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	dsn, err := cluster.CreateDB(ctx, "outage")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bin := withHooks.binary(t)
	env := []string{"MLDR_TEST_JOB_DELAY=4s"} // long enough for an outage to begin mid-job
	web := startWith(t, bin, env, dir, "-database", dsn, "-role", "web")
	worker := startWith(t, bin, env, dir, "-database", dsn, "-role", "worker", "-workers", "1")
	ds, code := web.upload("shared.csv", sharedCSV(150))
	if code != http.StatusCreated {
		t.Fatalf("upload: got status %d, want 201", code)
	}
	job := map[string]any{"dataset": ds.ID, "method": "pca", "params": map[string]any{"d": 2}, "evaluate": map[string]any{"classifier": "ridge", "dims": []int{1, 2}}}
	runMidOutage := func(what string, begin, end func() error, lasts time.Duration) string {
		t.Helper()
		id := jtSubmit(ctx, t, web, job)
		jtPoll(ctx, t, web, id, "running", func(j jtJob) bool { return j.Status == "running" })
		if err := begin(); err != nil {
			t.Fatal(err)
		}
		began := time.Now()
		found := waitReady(ctx, t, web, http.StatusServiceUnavailable, 20*time.Second)
		checkOutage(ctx, t, web, ds.ID, worker)
		time.Sleep(time.Until(began.Add(lasts))) // the outage lasts what the case says
		if err := end(); err != nil {
			t.Fatal(err)
		}
		ended := time.Now()
		back := max(waitReady(ctx, t, web, http.StatusOK, 30*time.Second), waitReady(ctx, t, worker, http.StatusOK, 30*time.Second))
		j := jtPoll(ctx, t, web, id, "success", func(j jtJob) bool { return j.Status == "succeeded" })
		t.Logf("%s: /readyz 503 %v after it began; 200 on both processes %v after it ended; the job running through it succeeded %v after it ended (attempt %d)",
			what, found.Round(10*time.Millisecond), back.Round(10*time.Millisecond), time.Since(ended).Round(10*time.Millisecond), j.Attempts)
		jtWantStatus(t, what+": the job's metrics.json", jtGet(ctx, t, web.url+"/api/jobs/"+id+"/metrics.json"), http.StatusOK)
		return id
	}
	first := runMidOutage("the server stopped for 6 s", cluster.StopServer, cluster.StartServer, 6*time.Second)
	second := runMidOutage("the server frozen for 20 s", cluster.Pause, cluster.Resume, 20*time.Second)

	// Everything works again: an upload, a job.
	if _, code := web.upload("after.csv", sharedCSV(60)); code != http.StatusCreated {
		t.Errorf("an upload after the outages: got %d, want 201", code)
	}
	third := jtSubmit(ctx, t, web, job)
	jtPoll(ctx, t, web, third, "success", func(j jtJob) bool { return j.Status == "succeeded" })
	var ids []string
	for _, j := range jtListJobs(ctx, t, web) {
		ids = append(ids, j.ID)
	}
	if want := []string{third, second, first}; strings.Join(ids, ",") != strings.Join(want, ",") {
		t.Errorf("jobs listed: got %v, want the three accepted, newest first %v (none of the refused submissions)", ids, want)
	}
	if got := len(web.datasets()); got != 2 {
		t.Errorf("data sets listed: got %d, want 2 (none of the refused uploads)", got)
	}
	if got := dirNames(t, filepath.Join(dir, "datasets")); len(got) != 2 {
		t.Errorf("datasets/ holds %v, want the 2 data sets stored", got)
	}
	for _, p := range []*app{web, worker} {
		if err := p.stop(); err != nil {
			t.Errorf("stopping a process: %v\n%s", err, p.logText())
		}
		logs := p.logText()
		lost, back := strings.Count(logs, "the database is unreachable"), strings.Count(logs, "the database is reachable again")
		var loud []string
		for _, l := range strings.Split(logs, "\n") {
			if (strings.Contains(l, "level=WARN") || strings.Contains(l, "level=ERROR")) && !strings.Contains(l, "the database is unreachable") {
				loud = append(loud, l)
			}
		}
		if lost != 2 || back != 2 || len(loud) > 0 {
			t.Errorf("%s's log: got %d lines saying the database is lost, %d saying it is back and %d other warnings, want 2, 2 and none:\n%s",
				p.url, lost, back, len(loud), strings.Join(loud, "\n"))
		}
	}
	jtTmpEmpty(t, web, "after a clean stop")
}
