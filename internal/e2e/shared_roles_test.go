package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"mldr/internal/pgtest"
)

// workerHealth is a worker process's GET /healthz.
type workerHealth struct {
	Status  string   `json:"status"`
	Role    string   `json:"role"`
	Running []string `json:"running"`
}

func (a *app) workerHealth(ctx context.Context, t *testing.T) workerHealth {
	t.Helper()
	r := jtGet(ctx, t, a.url+"/healthz")
	var h workerHealth
	if r.Status != http.StatusOK || json.Unmarshal(r.Body, &h) != nil || h.Role != "worker" {
		t.Fatalf("worker /healthz: got %d %s, want 200 with role worker", r.Status, r.Body)
	}
	return h
}

// sharedRequests are the requests the test runs, each several times: small
// fits with an evaluation, so that each writes metrics.json.
func sharedRequests(ds string) []map[string]any {
	return []map[string]any{
		{"dataset": ds, "method": "pca", "params": map[string]any{"d": 2}, "evaluate": map[string]any{"classifier": "ridge", "dims": []int{1, 2}}},
		{"dataset": ds, "method": "mddmp", "params": map[string]any{"d": 2}, "evaluate": map[string]any{"classifier": "mlknn", "dims": []int{2}}},
		{"dataset": ds, "methods": []string{"pca", "mddmp"}, "params": map[string]any{"d": 2}, "evaluate": map[string]any{"classifier": "ridge", "dims": []int{1, 2}}},
		{"dataset": ds, "method": "pca", "params": map[string]any{"d": 1}, "preprocess": "standardize", "evaluate": map[string]any{"classifier": "mlknn", "dims": []int{1}}},
	}
}

// The shared mode with the real binary and its default flags: one web
// process and two worker processes on one database and one data
// directory. Of 20 jobs submitted to the web process, one worker process
// is killed with SIGKILL while it runs some; every job still succeeds,
// once (one record, one result directory each), the killed worker's jobs
// on their second attempt, on the other worker, within 60 s of the kill
// (its lease lapses after 15 s), and each job's metrics.json is identical
// to the same request's in the embedded mode, but for its wall times. A
// cancel sent to the web process stops a job running on a worker, and the
// web process's event stream follows that job.
func TestSharedRolesSurviveAKilledWorker(t *testing.T) {
	dsn := pgtest.NewDB(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bin := withHooks.binary(t)
	// Every job waits a second in its worker, so that the kill finds one
	// running; an lpp job holds until it is canceled.
	env := []string{"MLDR_TEST_JOB_DELAY=1s", "MLDR_TEST_HOLD_METHOD=lpp"}
	web := startWith(t, bin, env, dir, "-database", dsn, "-role", "web")
	workers := []*app{
		startWith(t, bin, env, dir, "-database", dsn, "-role", "worker", "-workers", "2"),
		startWith(t, bin, env, dir, "-database", dsn, "-role", "worker", "-workers", "2"),
	}
	csv := sharedCSV(150)
	ds, code := web.upload("shared.csv", csv)
	if code != http.StatusCreated {
		t.Fatalf("upload to the web process: got status %d, want 201", code)
	}
	reqs := sharedRequests(ds.ID)
	const n = 20
	ids := make([]string, n)
	for i := range n {
		ids[i] = jtSubmit(ctx, t, web, reqs[i%len(reqs)])
	}

	// Kill the first worker process seen running a job.
	var killed *app
	var killedJobs []string
	for killed == nil {
		for _, w := range workers {
			if h := w.workerHealth(ctx, t); len(h.Running) > 0 {
				killed, killedJobs = w, h.Running
				break
			}
		}
		select {
		case <-ctx.Done():
			t.Fatal("no worker process ran a job in time")
		case <-time.After(20 * time.Millisecond):
		}
	}
	killed.kill()
	killedAt := time.Now()
	t.Logf("killed a worker process running %v", killedJobs)
	// When each of its jobs runs again elsewhere, and when it succeeds.
	var again, done time.Duration
	for pending := slices.Clone(killedJobs); len(pending) > 0; {
		for _, id := range slices.Clone(pending) {
			j := jtGetJob(ctx, t, web, id)
			if j.Attempts >= 2 && again == 0 {
				again = time.Since(killedAt)
			}
			if j.Status == "succeeded" {
				pending = slices.DeleteFunc(pending, func(p string) bool { return p == id })
			}
		}
		if time.Since(killedAt) > time.Minute {
			t.Fatalf("the killed worker's jobs %v had not succeeded elsewhere within 60 s", pending)
		}
		time.Sleep(50 * time.Millisecond)
	}
	done = time.Since(killedAt)
	t.Logf("SIGKILL → the killed worker's jobs running on the other worker after %v, all succeeded after %v (default -lease 15s)",
		again.Round(100*time.Millisecond), done.Round(100*time.Millisecond))

	for i, id := range ids {
		j := jtPoll(ctx, t, web, id, "success", func(j jtJob) bool { return j.Status == "succeeded" })
		if slices.Contains(killedJobs, id) && j.Attempts != 2 {
			t.Errorf("job %d (%s), whose worker was killed: got %d attempts, want 2", i, id, j.Attempts)
		}
	}
	if got := len(jtListJobs(ctx, t, web)); got != n {
		t.Errorf("jobs listed: got %d, want %d", got, n)
	}
	names := dirNames(t, filepath.Join(dir, "jobs"))
	slices.Sort(names)
	want := slices.Clone(ids)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("result directories: got %v, want one per job %v", names, want)
	}
	shared := make([][]byte, n)
	for i, id := range ids {
		r := jtGet(ctx, t, web.url+"/api/jobs/"+id+"/metrics.json")
		jtWantStatus(t, "metrics.json of job "+id, r, http.StatusOK)
		shared[i] = r.Body
	}

	// Cancel, through the web process, a job that runs on the surviving
	// worker, while following its event stream through the web process.
	hold := jtSubmit(ctx, t, web, map[string]any{"dataset": ds.ID, "method": "lpp", "params": map[string]any{"d": 2}})
	events := make(chan []jtJob, 1)
	followErr := make(chan error, 1)
	// The cancel is sent once the stream has shown the job holding: the
	// stream sends a job's latest state, and a state replaced before the
	// web process relays it is never shown.
	holding := make(chan struct{})
	var once sync.Once
	go func() {
		ev, err := jtFollow(ctx, web.url, hold, func(j jtJob) {
			if j.Status == "running" && j.Phase == "holding" {
				once.Do(func() { close(holding) })
			}
		})
		events <- ev
		followErr <- err
	}()
	survivor := workers[0]
	if survivor == killed {
		survivor = workers[1]
	}
	for !slices.Contains(survivor.workerHealth(ctx, t).Running, hold) {
		select {
		case <-ctx.Done():
			t.Fatal("the job to cancel did not start on the surviving worker in time")
		case <-time.After(20 * time.Millisecond):
		}
	}
	select {
	case <-holding:
	case <-ctx.Done():
		t.Fatal("the web process's event stream did not show the job holding in time")
	}
	r := jtDo(ctx, t, "POST", web.url+"/api/jobs/"+hold+"/cancel", "", nil)
	jtWantStatus(t, "cancel through the web process (running: accepted)", r, http.StatusAccepted)
	j := jtPoll(ctx, t, web, hold, "cancellation", func(j jtJob) bool { return j.Status == "canceled" })
	if j.Phase != "canceled" {
		t.Errorf("the canceled job: got phase %q, want canceled", j.Phase)
	}
	for slices.Contains(survivor.workerHealth(ctx, t).Running, hold) {
		select {
		case <-ctx.Done():
			t.Fatal("the worker still runs the canceled job")
		case <-time.After(20 * time.Millisecond):
		}
	}
	ev := <-events
	if err := <-followErr; err != nil {
		t.Fatalf("following the job through the web process: %v", err)
	}
	jtCheckEvents(t, hold, ev)
	var sawHolding bool
	for _, e := range ev {
		sawHolding = sawHolding || e.Status == "running" && e.Phase == "holding"
	}
	if !sawHolding || ev[len(ev)-1].Status != "canceled" {
		t.Errorf("the web process's event stream: got %v, want a running event in phase holding, then canceled", eventSummary(ev))
	}

	for _, p := range append([]*app{web}, workers...) {
		if p == killed {
			continue
		}
		if err := p.stop(); err != nil {
			t.Errorf("stopping a process: %v\n%s", err, p.logs)
		}
	}

	// The same requests in the embedded mode give the same metrics.json,
	// but for its wall times (fit_seconds, eval_seconds), which no two
	// runs share.
	emb := startWith(t, bin, nil, t.TempDir(), "-workers", "2")
	eds, code := emb.upload("shared.csv", csv)
	if code != http.StatusCreated || eds.SHA256 != ds.SHA256 {
		t.Fatalf("upload to the embedded server: got %d, %s; want 201, the same file", code, eds.SHA256)
	}
	for k, req := range sharedRequests(eds.ID) {
		id := jtSubmit(ctx, t, emb, req)
		jtPoll(ctx, t, emb, id, "success", func(j jtJob) bool { return j.Status == "succeeded" })
		r := jtGet(ctx, t, emb.url+"/api/jobs/"+id+"/metrics.json")
		jtWantStatus(t, "embedded metrics.json", r, http.StatusOK)
		want := withoutTimes(r.Body)
		for i := k; i < n; i += len(reqs) {
			if got := withoutTimes(shared[i]); !bytes.Equal(got, want) {
				t.Errorf("job %d (%s): metrics.json, its times aside, differs from the embedded mode's for the same request:\nshared:   %s\nembedded: %s", i, ids[i], got, want)
			}
		}
	}
	if err := emb.stop(); err != nil {
		t.Errorf("stopping the embedded server: %v", err)
	}
}

// eventSummary shows events as status/phase, for messages.
func eventSummary(ev []jtJob) string {
	var b strings.Builder
	for _, e := range ev {
		fmt.Fprintf(&b, "%s/%s ", e.Status, e.Phase)
	}
	return b.String()
}
