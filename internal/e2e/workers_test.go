package e2e

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// demo adds the multi-label demo data set and returns its id.
func demo(ctx context.Context, t *testing.T, a *app) string {
	t.Helper()
	r := jtDo(ctx, t, "POST", a.url+"/api/datasets/demo", "application/x-www-form-urlencoded", strings.NewReader(url.Values{"kind": {"multilabel"}}.Encode()))
	jtWantStatus(t, "demo", r, http.StatusCreated)
	var d datasetInfo
	if err := json.Unmarshal(r.Body, &d); err != nil {
		t.Fatal(err)
	}
	return d.ID
}

// peakRSS is a process's peak resident memory (VmHWM), in bytes.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	m := regexp.MustCompile(`VmHWM:\s+(\d+) kB`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("no VmHWM in /proc/%d/status", pid)
	}
	kb, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return kb << 10
}

func healthy(ctx context.Context, t *testing.T, a *app, when string) {
	t.Helper()
	if r := jtGet(ctx, t, a.url+"/healthz"); r.Status != http.StatusOK {
		t.Fatalf("%s: /healthz answered %d, want 200", when, r.Status)
	}
	if a.cmd.ProcessState != nil {
		t.Fatalf("%s: the server exited: %v", when, a.cmd.ProcessState)
	}
}

// TestWorkerOutOfMemoryFailsOnlyTheJob runs a job whose worker holds ever
// more memory (a test build's hook, past any estimate) under a low
// -max-job-memory: the worker is stopped, the job fails with the memory
// sentence, the server keeps serving with little memory of its own, the
// failed job is not started again, and the next job runs.
func TestWorkerOutOfMemoryFailsOnlyTheJob(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	a := startWith(t, withHooks.binary(t), []string{"MLDR_TEST_GROW_METHOD=mddmp"}, t.TempDir(), "-workers", "1", "-max-job-memory", "96MiB")
	ds := demo(ctx, t, a)
	id := jtSubmit(ctx, t, a, map[string]any{"dataset": ds, "method": "mddmp", "params": map[string]any{"d": 2}})
	j := jtPoll(ctx, t, a, id, "the growing job ends", func(j jtJob) bool { return jtTerminal(j.Status) })
	want := "the job needed more than 96 MiB of memory (the -max-job-memory limit), so its worker process was stopped. The server is fine."
	if j.Status != "failed" || !strings.Contains(j.Error, want) {
		t.Fatalf("growing job: got %s %q, want failed with %q", j.Status, j.Error, want)
	}
	healthy(ctx, t, a, "after the worker was stopped")
	if peak := peakRSS(t, a.cmd.Process.Pid); peak > 256<<20 {
		t.Errorf("the server's peak resident memory is %d MiB, want under 256 MiB: the job's memory must be the worker's", peak>>20)
	}
	next := jtSubmit(ctx, t, a, map[string]any{"dataset": ds, "method": "pca", "params": map[string]any{"d": 2}})
	if j := jtPoll(ctx, t, a, next, "the next job ends", func(j jtJob) bool { return jtTerminal(j.Status) }); j.Status != "succeeded" {
		t.Fatalf("the next job: got %s %q, want succeeded", j.Status, j.Error)
	}
	if j := jtGetJob(ctx, t, a, id); j.Status != "failed" || j.Attempts != 1 {
		t.Errorf("the failed job afterwards: got %s after %d attempts, want failed after 1 (no crash loop)", j.Status, j.Attempts)
	}
	// Run it again stays available.
	rr := jtDo(ctx, t, "POST", a.url+"/api/jobs/"+id+"/rerun", "application/json", nil)
	jtWantStatus(t, "rerun of the failed job", rr, http.StatusAccepted)
}

// TestWorkerKilledFailsOnlyTheJob kills a job's worker with SIGKILL: the
// job fails with a sentence naming the signal, and the next job runs; a
// canceled job ends within about a second (a worker that ignores the
// cancellation is killed then: internal/worker's TestPoolCancel).
func TestWorkerKilledFailsOnlyTheJob(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	a := startWith(t, withHooks.binary(t), []string{"MLDR_TEST_HOLD_METHOD=pca"}, t.TempDir(), "-workers", "1")
	ds := demo(ctx, t, a)
	workerPid := func(id string) int {
		j := jtPoll(ctx, t, a, id, "the held job runs", func(j jtJob) bool { return j.Status == "running" && j.Phase == "holding" })
		msg := jtGetMessage(ctx, t, a, j.ID)
		pid, err := strconv.Atoi(strings.TrimPrefix(msg, "pid "))
		if err != nil || pid == a.cmd.Process.Pid {
			t.Fatalf("the held job's message %q does not name a worker's pid", msg)
		}
		return pid
	}
	id := jtSubmit(ctx, t, a, map[string]any{"dataset": ds, "method": "pca", "params": map[string]any{"d": 2}})
	if err := syscall.Kill(workerPid(id), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	j := jtPoll(ctx, t, a, id, "the killed job ends", func(j jtJob) bool { return jtTerminal(j.Status) })
	if want := "the job's worker process was killed by signal 9 (killed); the server is fine, and the job can be run again"; j.Status != "failed" || j.Error != want {
		t.Fatalf("killed job: got %s %q, want failed with %q", j.Status, j.Error, want)
	}
	healthy(ctx, t, a, "after the worker was killed")
	next := jtSubmit(ctx, t, a, map[string]any{"dataset": ds, "method": "mddmp", "params": map[string]any{"d": 2}})
	if j := jtPoll(ctx, t, a, next, "the next job ends", func(j jtJob) bool { return jtTerminal(j.Status) }); j.Status != "succeeded" {
		t.Fatalf("the next job: got %s %q, want succeeded", j.Status, j.Error)
	}

	// Cancel reaches the job in its worker.
	held := jtSubmit(ctx, t, a, map[string]any{"dataset": ds, "method": "pca", "params": map[string]any{"d": 2}})
	workerPid(held)
	t0 := time.Now()
	jtWantStatus(t, "cancel", jtDo(ctx, t, "POST", a.url+"/api/jobs/"+held+"/cancel", "application/json", nil), http.StatusAccepted)
	j = jtPoll(ctx, t, a, held, "the canceled job ends", func(j jtJob) bool { return jtTerminal(j.Status) })
	if took := time.Since(t0); j.Status != "canceled" || took > 3*time.Second {
		t.Errorf("canceled job: got %s after %v, want canceled within about a second", j.Status, took.Round(time.Millisecond))
	}
	healthy(ctx, t, a, "after the cancel")
}

// jtGetMessage is a job's message.
func jtGetMessage(ctx context.Context, t *testing.T, a *app, id string) string {
	t.Helper()
	r := jtGet(ctx, t, a.url+"/api/jobs/"+id)
	var j struct {
		Message string `json:"message"`
	}
	if err := json.Unmarshal(r.Body, &j); err != nil {
		t.Fatal(err)
	}
	return j.Message
}

// TestJobPhases runs a job in a worker process of the real binary: its
// phases (load, fit, evaluate, write, after the hand-off to the worker)
// are in the job's JSON, add up to its duration within 5 %, and show on
// its page.
func TestJobPhases(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	a := start(t, t.TempDir(), "-workers", "1")
	ds := demo(ctx, t, a)
	id := jtSubmit(ctx, t, a, map[string]any{"dataset": ds, "methods": []string{"pca", "mddmp"}, "params": map[string]any{"d": 3},
		"split": map[string]any{"kind": "kfold", "folds": 5}, "evaluate": map[string]any{"classifier": "mlknn"}})
	j := jtPoll(ctx, t, a, id, "the job to succeed", func(j jtJob) bool { return j.Status == "succeeded" })
	var names []string
	sum := 0.0
	for _, p := range j.Phases {
		names = append(names, p.Name)
		sum += p.Seconds
	}
	if strings.Join(names, ",") != "start,load,fit,write,evaluate" { // in the order they began: each method is written after its fit
		t.Errorf("phases %q, want start, load, fit, write, evaluate", names)
	}
	if d := j.FinishedAt.Sub(*j.StartedAt).Seconds(); math.Abs(sum-d) > 0.05*d {
		t.Errorf("the phases add up to %.4f s, the job took %.4f s", sum, d)
	}
	page := jtGet(ctx, t, a.url+"/jobs/"+id)
	if !strings.Contains(string(page.Body), `data-testid="job-phases"`) || !strings.Contains(string(page.Body), "By phase: start ") {
		t.Error("the job page does not say where the time went")
	}
}
