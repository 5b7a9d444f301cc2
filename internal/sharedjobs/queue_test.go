package sharedjobs

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"mldr/internal/jobs"
	"mldr/internal/pgmeta"
	"mldr/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// results records the job results a queue removes, installs and
// discards.
type results struct {
	mu        sync.Mutex
	removed   []string
	partials  []string // the jobs whose partial statistics were removed
	installed []string // id/attempt of the sealed results moved into place
	discarded []string // id/attempt of the sealed results removed
}

func (r *results) InstallJobResults(id string, attempt int) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.installed = append(r.installed, fmt.Sprintf("%s/%d", id, attempt))
	return nil
}

func (r *results) DiscardJobResults(id string, attempt int) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.discarded = append(r.discarded, fmt.Sprintf("%s/%d", id, attempt))
	return nil
}

// sealed returns what was installed and discarded.
func (r *results) sealed() (installed, discarded []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.installed), slices.Clone(r.discarded)
}

func (r *results) RemoveJobResults(id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.removed = append(r.removed, id)
	return nil
}

func (r *results) RemovePartials(id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.partials = append(r.partials, id)
	return nil
}

func (r *results) partialsRemoved() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.partials...)
}

// env is a database with its metadata, migrated for the queue.
type env struct {
	meta *pgmeta.Meta
	res  *results
}

func newEnv(t *testing.T) *env {
	t.Helper()
	m, err := pgmeta.Open(context.Background(), pgmeta.Config{URL: pgtest.NewDB(t), Migrate: Migrate})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return &env{meta: m, res: &results{}}
}

// queue starts a queue on the database: a web one (no Execute, listening)
// or a worker one.
func (e *env) queue(t *testing.T, execute jobs.Work, mod func(*Config)) *Queue {
	t.Helper()
	cfg := Config{Meta: e.meta, Results: e.res, Execute: execute, Workers: 2, Listen: execute == nil,
		RetryDelay: 10 * time.Millisecond, ProgressEvery: 20 * time.Millisecond, Lease: testLease}
	if mod != nil {
		mod(&cfg)
	}
	q, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		q.Shutdown(ctx)
	})
	return q
}

// riverState is the state of the River jobs of job id, in order.
func (e *env) riverState(t *testing.T, id string) string {
	t.Helper()
	var s string
	err := e.meta.Pool().QueryRow(context.Background(),
		`SELECT coalesce(string_agg(state::text, ',' ORDER BY id), '') FROM river_job WHERE args->>'id' = $1`, id).Scan(&s)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// waitJob waits until job id satisfies ok, or fails after 30 s.
func waitJob(t *testing.T, q *Queue, id string, what string, ok func(jobs.Job) bool) jobs.Job {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		j, err := q.Get(id)
		if err == nil && ok(j) {
			return j
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s: got %+v, %v after 30 s; want %s", id, j, err, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// testLease is the queues' lease in the tests: short, so that a lost
// process's job is taken back within seconds, and long enough for the
// renewals of a loaded machine.
const testLease = 2 * time.Second

func req(dataset string) jobs.Request {
	return jobs.Request{Dataset: dataset, Method: "pca"}
}

// id is the n-th job id of a test, in the form store.NewID gives.
func id(n int) string { return fmt.Sprintf("jobjobjobjobjo%c%c", 'a'+n/26, 'a'+n%26) }

// Submit stores a queued record and its River job together; Get, List
// and Using read the records.
func TestSubmitGetListUsing(t *testing.T) {
	e := newEnv(t)
	q := e.queue(t, nil, nil)
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	q.cfg.Now = func() time.Time { now = now.Add(time.Second); return now }
	for i, ds := range []string{"d1", "d2", "d1"} {
		j, err := q.Submit(id(i), req(ds))
		if err != nil {
			t.Fatal(err)
		}
		if j.Status != jobs.Queued || j.Phase != "queued" {
			t.Errorf("Submit: got %s %q, want queued", j.Status, j.Phase)
		}
	}
	j, err := q.Get(id(1))
	if err != nil || j.Status != jobs.Queued || j.Request.Dataset != "d2" {
		t.Errorf("Get: got %+v, %v; want the queued job on d2", j, err)
	}
	if got := e.riverState(t, id(1)); got != "available" {
		t.Errorf("River job: got %q, want available", got)
	}
	for _, bad := range []string{id(9), "../x", ""} {
		if _, err := q.Get(bad); !errors.Is(err, jobs.ErrNotFound) {
			t.Errorf("Get(%q): got %v, want ErrNotFound", bad, err)
		}
	}
	var got []string
	all, err := q.List()
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range all {
		got = append(got, j.ID)
	}
	if want := []string{id(2), id(1), id(0)}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("List: got %v, want newest first %v", got, want)
	}
	got = nil
	using, err := q.Using("d1")
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range using {
		got = append(got, j.ID)
	}
	if want := []string{id(0), id(2)}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Using(d1): got %v, want oldest first %v", got, want)
	}
	if u, err := q.Using(""); len(u) != 0 || err != nil {
		t.Errorf("Using(\"\"): got %d jobs, want none", len(u))
	}
}

// A full queue refuses a job, and stores neither its record nor its River
// job.
func TestSubmitQueueFull(t *testing.T) {
	e := newEnv(t)
	q := e.queue(t, nil, func(c *Config) { c.MaxQueue = 2 })
	for i := range 2 {
		if _, err := q.Submit(id(i), req("d")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := q.Submit(id(2), req("d")); !errors.Is(err, jobs.ErrQueueFull) {
		t.Fatalf("third job: got %v, want ErrQueueFull", err)
	}
	if _, err := q.Get(id(2)); !errors.Is(err, jobs.ErrNotFound) {
		t.Errorf("the refused job's record: got %v, want none", err)
	}
	if got := e.riverState(t, id(2)); got != "" {
		t.Errorf("the refused job's River job: got %q, want none", got)
	}
}

// A worker process runs a job a web process queued; the web process's
// subscribers see its progress and its end; the record has its phases
// and attempts.
func TestRunAcrossProcesses(t *testing.T) {
	e := newEnv(t)
	web := e.queue(t, nil, nil)
	proceed := make(chan struct{})
	e.queue(t, func(ctx context.Context, j jobs.Job, report jobs.Report) ([]string, error) {
		report(0.5, "fitting pca", "half way")
		select {
		case <-proceed:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		report(0.9, "writing pca", "")
		return []string{"a note"}, nil
	}, nil)
	if _, err := web.Submit(id(1), req("d")); err != nil {
		t.Fatal(err)
	}
	ch, end, err := web.Subscribe(id(1))
	if err != nil {
		t.Fatal(err)
	}
	defer end()
	var seen []string
	timeout := time.After(30 * time.Second)
	for done := false; !done; {
		select {
		case j := <-ch:
			seen = append(seen, fmt.Sprintf("%s %.1f %s", j.Status, j.Progress, j.Phase))
			if j.Status == jobs.Running && j.Progress == 0.5 {
				if j.Message != "half way" {
					t.Errorf("progress message: got %q, want %q", j.Message, "half way")
				}
				close(proceed)
			}
			done = j.Status.Terminal()
		case <-timeout:
			t.Fatalf("no end within 30 s; seen %v", seen)
		}
	}
	if want := "running 0.5 fitting pca"; !strings.Contains(strings.Join(seen, "|"), want) {
		t.Errorf("the subscriber saw %v, want %q among them", seen, want)
	}
	j, err := web.Get(id(1))
	if err != nil {
		t.Fatal(err)
	}
	if j.Status != jobs.Succeeded || j.Progress != 1 || j.Attempts != 1 || j.StartedAt == nil || j.FinishedAt == nil || fmt.Sprint(j.Notes) != "[a note]" {
		t.Errorf("the record: got %+v, want succeeded, progress 1, 1 attempt, times, the note", j)
	}
	var phases []string
	for _, p := range j.Phases {
		phases = append(phases, p.Name)
	}
	if want := []string{jobs.PhaseStart, jobs.PhaseFit, jobs.PhaseWrite}; fmt.Sprint(phases) != fmt.Sprint(want) {
		t.Errorf("phases: got %v, want %v", phases, want)
	}
	waitRiver(t, e, id(1), "completed")
}

// waitSignal waits until ch delivers (or is closed), or fails after 30 s
// saying what did not happen.
func waitSignal(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(30 * time.Second):
		t.Fatalf("waited 30 s for %s", what)
	}
}

func waitRiver(t *testing.T, e *env, id, want string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		got := e.riverState(t, id)
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("River job of %s: got %q after 30 s, want %q", id, got, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A failing job fails once: River does not run it again.
func TestRunFails(t *testing.T) {
	e := newEnv(t)
	calls := make(chan struct{}, 10)
	q := e.queue(t, func(ctx context.Context, j jobs.Job, report jobs.Report) ([]string, error) {
		calls <- struct{}{}
		return nil, errors.New("the job's worker process crashed (boom)")
	}, nil)
	if _, err := q.Submit(id(1), req("d")); err != nil {
		t.Fatal(err)
	}
	j := waitJob(t, q, id(1), "failed", func(j jobs.Job) bool { return j.Status.Terminal() })
	if j.Status != jobs.Failed || j.Error != "the job's worker process crashed (boom)" {
		t.Errorf("got %s %q, want failed with the executor's error", j.Status, j.Error)
	}
	waitRiver(t, e, id(1), "completed")
	if n := len(calls); n != 1 {
		t.Errorf("executor called %d times, want 1", n)
	}
}

// A run that cannot reach the database (here its executor's error wraps
// store.ErrUnavailable, as a data set's record read on a connection an
// outage broke does) is not the job's failure: the job runs again and
// succeeds. One that never can fails after jobs.MaxAttempts runs, with the
// error.
func TestRunRequeuedWhenDatabaseUnreachable(t *testing.T) {
	e := newEnv(t)
	lost := fmt.Errorf("data set d: %w", &net.OpError{Op: "read", Net: "tcp", Err: net.ErrClosed})
	var mu sync.Mutex
	calls := map[string]int{}
	q := e.queue(t, func(ctx context.Context, j jobs.Job, report jobs.Report) ([]string, error) {
		mu.Lock()
		calls[j.ID]++
		n := calls[j.ID]
		mu.Unlock()
		if j.ID == id(2) || n == 1 {
			return nil, lost
		}
		return nil, nil
	}, nil)
	for _, n := range []int{1, 2} {
		if _, err := q.Submit(id(n), req("d")); err != nil {
			t.Fatal(err)
		}
	}
	j := waitJob(t, q, id(1), "succeeded", func(j jobs.Job) bool { return j.Status.Terminal() })
	if j.Status != jobs.Succeeded || j.Attempts != 2 {
		t.Errorf("job 1: got %s after %d runs (%q), want succeeded at the second run", j.Status, j.Attempts, j.Error)
	}
	j = waitJob(t, q, id(2), "failed", func(j jobs.Job) bool { return j.Status.Terminal() })
	if j.Status != jobs.Failed || j.Attempts != jobs.MaxAttempts || j.Error != lost.Error() {
		t.Errorf("job 2: got %s after %d runs (%q), want failed after %d with %q", j.Status, j.Attempts, j.Error, jobs.MaxAttempts, lost.Error())
	}
	mu.Lock()
	defer mu.Unlock()
	if calls[id(1)] != 2 || calls[id(2)] != jobs.MaxAttempts {
		t.Errorf("executor called %v, want 2 for job 1 and %d for job 2", calls, jobs.MaxAttempts)
	}
}

// Cancel: a queued job at once (its River job too), a running one on the
// worker process that runs it; a finished job is a conflict.
func TestCancel(t *testing.T) {
	e := newEnv(t)
	web := e.queue(t, nil, nil)
	if _, err := web.Submit(id(1), req("d")); err != nil {
		t.Fatal(err)
	}
	j, err := web.Cancel(id(1))
	if err != nil || j.Status != jobs.Canceled || j.FinishedAt == nil {
		t.Fatalf("cancel a queued job: got %+v, %v; want canceled", j, err)
	}
	if got := e.riverState(t, id(1)); got != "cancelled" {
		t.Errorf("its River job: got %q, want cancelled", got)
	}
	if _, err := web.Cancel(id(1)); !errors.Is(err, jobs.ErrConflict) {
		t.Errorf("cancel it again: got %v, want ErrConflict", err)
	}
	if _, err := web.Cancel(id(9)); !errors.Is(err, jobs.ErrNotFound) {
		t.Errorf("cancel an unknown job: got %v, want ErrNotFound", err)
	}

	started := make(chan struct{})
	e.queue(t, func(ctx context.Context, j jobs.Job, report jobs.Report) ([]string, error) {
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	}, nil)
	if _, err := web.Submit(id(2), req("d")); err != nil {
		t.Fatal(err)
	}
	waitSignal(t, started, "the job to start")
	waitJob(t, web, id(2), "running", func(j jobs.Job) bool { return j.Status == jobs.Running })
	j, err = web.Cancel(id(2))
	if err != nil || j.Phase != "canceling" {
		t.Fatalf("cancel a running job: got %+v, %v; want it canceling", j, err)
	}
	j = waitJob(t, web, id(2), "canceled", func(j jobs.Job) bool { return j.Status.Terminal() })
	if j.Status != jobs.Canceled || j.Phase != "canceled" {
		t.Errorf("the running job after its cancel: got %s %q, want canceled", j.Status, j.Phase)
	}
	waitRiver(t, e, id(2), "cancelled")
}

// Delete: a queued job goes with its River job, its subscribers' channels
// close and its results are removed; a running job is a conflict.
func TestDelete(t *testing.T) {
	e := newEnv(t)
	web := e.queue(t, nil, nil)
	if _, err := web.Submit(id(1), req("d")); err != nil {
		t.Fatal(err)
	}
	ch, end, err := web.Subscribe(id(1))
	if err != nil {
		t.Fatal(err)
	}
	defer end()
	<-ch
	if err := web.Delete(id(1)); err != nil {
		t.Fatal(err)
	}
	if _, err := web.Get(id(1)); !errors.Is(err, jobs.ErrNotFound) {
		t.Errorf("Get after Delete: got %v, want ErrNotFound", err)
	}
	if got := e.riverState(t, id(1)); got != "cancelled" {
		t.Errorf("its River job: got %q, want cancelled", got)
	}
	select {
	case _, open := <-ch:
		if open {
			t.Error("the subscription got a state after the delete, want it closed")
		}
	case <-time.After(10 * time.Second):
		t.Error("the subscription was not closed by the delete")
	}
	if fmt.Sprint(e.res.removed) != fmt.Sprint([]string{id(1)}) {
		t.Errorf("results removed: got %v, want [%s]", e.res.removed, id(1))
	}
	if err := web.Delete(id(1)); !errors.Is(err, jobs.ErrNotFound) {
		t.Errorf("delete again: got %v, want ErrNotFound", err)
	}

	release := make(chan struct{})
	e.queue(t, func(ctx context.Context, j jobs.Job, report jobs.Report) ([]string, error) {
		<-release
		return nil, nil
	}, nil)
	if _, err := web.Submit(id(2), req("d")); err != nil {
		t.Fatal(err)
	}
	waitJob(t, web, id(2), "running", func(j jobs.Job) bool { return j.Status == jobs.Running })
	if err := web.Delete(id(2)); !errors.Is(err, jobs.ErrConflict) {
		t.Errorf("delete a running job: got %v, want ErrConflict", err)
	}
	close(release)
	waitJob(t, web, id(2), "succeeded", func(j jobs.Job) bool { return j.Status == jobs.Succeeded })
	if err := web.Delete(id(2)); err != nil {
		t.Errorf("delete the finished job: %v", err)
	}
}

// dieMidRun makes job id look as a worker process that died in its
// attempt-th run leaves it: its record running, its River job running,
// attempted long ago.
func (e *env) dieMidRun(t *testing.T, q *Queue, id string, attempt int) {
	t.Helper()
	ctx := context.Background()
	if _, err := q.change(ctx, id, func(_ pgx.Tx, j *jobs.Job) (bool, error) {
		now := time.Now().UTC()
		j.Status, j.Attempts, j.StartedAt, j.Phase = jobs.Running, attempt, &now, "fitting pca"
		return true, nil
	}); err != nil {
		t.Fatal(err)
	}
	tag, err := e.meta.Pool().Exec(ctx, `UPDATE river_job SET state = 'running', attempt = $2,
		attempted_at = now() - interval '1 hour', attempted_by = '{dead-worker}'
		WHERE args->>'id' = $1`, id, attempt)
	if err != nil || tag.RowsAffected() != 1 {
		t.Fatalf("marking the River job running: %v, %d rows", err, tag.RowsAffected())
	}
}

// A job whose worker process died (its entry attempted by a process
// that holds no lease) is taken back and run again by another, under the
// record's next attempt; one whose runs were interrupted
// jobs.MaxAttempts times fails with the embedded runner's message, and is
// not run.
func TestRescue(t *testing.T) {
	e := newEnv(t)
	web := e.queue(t, nil, nil)
	for i := range 2 {
		if _, err := web.Submit(id(i), req("d")); err != nil {
			t.Fatal(err)
		}
	}
	e.dieMidRun(t, web, id(0), 1)
	e.dieMidRun(t, web, id(1), jobs.MaxAttempts)
	var mu sync.Mutex
	ran := map[string]int{}
	e.queue(t, func(ctx context.Context, j jobs.Job, report jobs.Report) ([]string, error) {
		mu.Lock()
		ran[j.ID]++
		mu.Unlock()
		return nil, nil
	}, nil) // River's own rescuer would wait -rescue-after and a minute
	j := waitJob(t, web, id(0), "succeeded", func(j jobs.Job) bool { return j.Status.Terminal() })
	if j.Status != jobs.Succeeded || j.Attempts != 2 {
		t.Errorf("the rescued job: got %s after %d attempts, want succeeded after 2", j.Status, j.Attempts)
	}
	waitRiver(t, e, id(0), "discarded,completed")
	j = waitJob(t, web, id(1), "failed", func(j jobs.Job) bool { return j.Status.Terminal() })
	if want := fmt.Sprintf("interrupted by restart (%d times)", jobs.MaxAttempts); j.Status != jobs.Failed || j.Error != want || j.FinishedAt == nil {
		t.Errorf("the job interrupted %d times: got %s %q, want failed %q", jobs.MaxAttempts, j.Status, j.Error, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if ran[id(0)] != 1 || ran[id(1)] != 0 {
		t.Errorf("executor runs: got %v, want the rescued job once and the failed one never", ran)
	}
}

// A shutdown that interrupts a running job queues it again, for another
// worker process, which runs it.
func TestShutdownRequeues(t *testing.T) {
	e := newEnv(t)
	web := e.queue(t, nil, nil)
	started := make(chan struct{}, 1)
	first := e.queue(t, func(ctx context.Context, j jobs.Job, report jobs.Report) ([]string, error) {
		started <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	}, nil)
	if _, err := web.Submit(id(1), req("d")); err != nil {
		t.Fatal(err)
	}
	waitSignal(t, started, "the job to start")
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if err := first.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Shutdown with a running job: got %v, want DeadlineExceeded", err)
	}
	j, err := web.Get(id(1))
	if err != nil || j.Status != jobs.Queued || j.Phase != "queued again after a shutdown" {
		t.Fatalf("after the shutdown: got %+v, %v; want queued again", j, err)
	}
	if _, err := first.Submit(id(2), req("d")); !errors.Is(err, jobs.ErrStopped) {
		t.Errorf("Submit after Shutdown: got %v, want ErrStopped", err)
	}
	e.queue(t, func(ctx context.Context, j jobs.Job, report jobs.Report) ([]string, error) { return nil, nil }, nil)
	j = waitJob(t, web, id(1), "succeeded", func(j jobs.Job) bool { return j.Status.Terminal() })
	if j.Status != jobs.Succeeded || j.Attempts != 2 {
		t.Errorf("after another worker ran it: got %s after %d attempts, want succeeded after 2", j.Status, j.Attempts)
	}
}

// Sweep ends the records whose River job ended without them, and only
// those: a job River discarded fails saying so, a job canceled while
// running whose worker died (River cancelled its job) ends canceled, a
// queued job whose River job is still available is left alone; a second
// sweep finds nothing.
func TestSweep(t *testing.T) {
	e := newEnv(t)
	q := e.queue(t, nil, nil)
	for i := range 3 {
		if _, err := q.Submit(id(i), req("d1")); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	setRiver := func(n int, state string) {
		t.Helper()
		if _, err := e.meta.Pool().Exec(ctx, `UPDATE river_job SET state = $1, finalized_at = now() WHERE args->>'id' = $2`, state, id(n)); err != nil {
			t.Fatal(err)
		}
	}
	setRiver(0, "discarded")
	if _, err := q.change(ctx, id(1), func(_ pgx.Tx, j *jobs.Job) (bool, error) {
		j.Status, j.Phase = jobs.Running, "canceling"
		return true, nil
	}); err != nil {
		t.Fatal(err)
	}
	setRiver(1, "cancelled")
	ended, err := q.Sweep(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(ended, ",") != id(0)+","+id(1) && strings.Join(ended, ",") != id(1)+","+id(0) {
		t.Errorf("Sweep ended %v, want %s and %s", ended, id(0), id(1))
	}
	for n, want := range []struct {
		status jobs.State
		err    string
	}{{jobs.Failed, "interrupted 25 times"}, {jobs.Canceled, ""}, {jobs.Queued, ""}} {
		j, err := q.Get(id(n))
		if err != nil {
			t.Fatal(err)
		}
		if j.Status != want.status || !strings.Contains(j.Error, want.err) || (want.status.Terminal() && j.FinishedAt == nil) {
			t.Errorf("job %d: got %s %q (finished %v), want %s %q", n, j.Status, j.Error, j.FinishedAt, want.status, want.err)
		}
	}
	if again, err := q.Sweep(ctx); err != nil || len(again) != 0 {
		t.Errorf("a second sweep ended %v (%v), want none", again, err)
	}
}
