package sharedjobs

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"mldr/internal/jobs"
)

// markRunning makes job id's River entry look taken by process owner an
// hour ago, its record running attempt 1 (as a process that then died or
// froze leaves it), and returns the entry's id.
func (e *env) markRunning(t *testing.T, q *Queue, id, owner string) int64 {
	t.Helper()
	ctx := context.Background()
	if _, err := q.change(ctx, id, func(_ pgx.Tx, j *jobs.Job) (bool, error) {
		now := time.Now().UTC()
		j.Status, j.Attempts, j.StartedAt, j.Phase = jobs.Running, 1, &now, "fitting pca"
		return true, nil
	}); err != nil {
		t.Fatal(err)
	}
	var rid int64
	err := e.meta.Pool().QueryRow(ctx, `UPDATE river_job SET state = 'running', attempt = 1,
		attempted_at = now() - interval '1 hour', attempted_by = ARRAY[$2]
		WHERE args->>'id' = $1 RETURNING id`, id, owner).Scan(&rid)
	if err != nil {
		t.Fatalf("marking the River job running: %v", err)
	}
	return rid
}

// Processes taking back lost entries at once take back each once: a job
// whose process has no lease is queued again under one new entry, its
// old entry discarded; a shard task's entry is made available again; an
// entry whose process holds a live lease is left alone; and the process
// that comes back finds its entry no longer its own and does not start
// the job.
func TestReclaimOnce(t *testing.T) {
	e := newEnv(t)
	long := func(c *Config) { c.Lease = time.Minute } // no background round during the test
	qa, qb := e.queue(t, nil, long), e.queue(t, nil, long)
	for i := range 2 {
		if _, err := qa.Submit(id(i), req("d")); err != nil {
			t.Fatal(err)
		}
	}
	lostRid := e.markRunning(t, qa, id(0), "a-dead-process")
	e.markRunning(t, qa, id(1), qb.leaseID)
	ctx := context.Background()
	if _, err := e.meta.Pool().Exec(ctx, `INSERT INTO worker_leases (id, expires_at) VALUES
		('gone-for-two-days', now() - interval '2 days'), ('gone-for-an-hour', now() - interval '1 hour')`); err != nil {
		t.Fatal(err)
	}
	shard, err := qa.client.Insert(ctx, shardArgs{ID: id(0), Attempt: 1, Method: 0, Shard: 3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.meta.Pool().Exec(ctx, `UPDATE river_job SET state = 'running', attempt = 1,
		attempted_at = now() - interval '1 hour', attempted_by = '{a-dead-process}' WHERE id = $1`, shard.Job.ID); err != nil {
		t.Fatal(err)
	}

	var wg sync.WaitGroup
	got := make([][]string, 2)
	errs := make([]error, 2)
	begin := make(chan struct{})
	for i, q := range []*Queue{qa, qb} {
		wg.Go(func() {
			<-begin
			got[i], errs[i] = q.Reclaim(ctx)
		})
	}
	close(begin)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("Reclaim %d: %v", i, err)
		}
	}
	all := slices.Sorted(slices.Values(append(slices.Clone(got[0]), got[1]...)))
	if want := []string{id(0), id(0)}; !slices.Equal(all, want) {
		t.Errorf("taken back: got %v and %v, want job %s's entry and its shard task's, each once", got[0], got[1], id(0))
	}
	if s := e.riverState(t, id(0)); s != "discarded,available,available" {
		t.Errorf("River entries of the lost job: got %s, want its run's discarded, its shard task's available, one new available", s)
	}
	j, err := qa.Get(id(0))
	if err != nil || j.Status != jobs.Queued || j.Phase != "queued again: its worker process stopped answering" || j.StartedAt != nil || j.Attempts != 1 {
		t.Errorf("the lost job's record: got %+v, %v; want queued again, attempt 1 kept", j, err)
	}
	if s := e.riverState(t, id(1)); s != "running" {
		t.Errorf("the entry of a process with a live lease: got %s, want it left running", s)
	}
	if again, err := qa.Reclaim(ctx); err != nil || len(again) != 0 {
		t.Errorf("a second round took back %v (%v), want nothing", again, err)
	}
	var stale []string
	rows, err := e.meta.Pool().Query(ctx, "SELECT id FROM worker_leases WHERE id LIKE 'gone-%' ORDER BY id")
	if err == nil {
		stale, err = pgx.CollectRows(rows, pgx.RowTo[string])
	}
	if err != nil || !slices.Equal(stale, []string{"gone-for-an-hour"}) {
		t.Errorf("the leases of gone processes left: got %v (%v), want only the one gone for less than a day", stale, err)
	}

	// The process that had taken entry lostRid comes back and starts it.
	if r, err := qa.start(id(0), lostRid); err != nil || r != nil {
		t.Errorf("starting the entry taken back: got %v, %v; want no run", r, err)
	}
	if j, err := qa.Get(id(0)); err != nil || j.Status != jobs.Queued {
		t.Errorf("after the refused start: got %+v, %v; want the job still queued", j, err)
	}
}

// A worker process whose lease lapses mid-job (frozen: it renews nothing,
// its work goes on) loses the job to another, which runs it under the
// next attempt and records it succeeded with its results; the first
// one's work is canceled, and its late success is discarded: the record,
// the results installed and the River entries stay the second's.
func TestLeaseLapseRunsElsewhere(t *testing.T) {
	e := newEnv(t)
	web := e.queue(t, nil, nil)
	started, stopped, release := make(chan struct{}), make(chan struct{}), make(chan struct{})
	a := e.queue(t, func(ctx context.Context, j jobs.Job, report jobs.Report) ([]string, error) {
		close(started)
		for {
			select {
			case <-ctx.Done():
				close(stopped)
				<-release
				return []string{"the first run's"}, nil // a success, late
			case <-time.After(20 * time.Millisecond):
				report(0.5, "fitting pca", "")
			}
		}
	}, func(c *Config) { c.Workers = 1 })
	if _, err := web.Submit(id(1), req("d")); err != nil {
		t.Fatal(err)
	}
	waitSignal(t, started, "the job to start")
	a.leasePaused.Store(true)
	if _, err := e.meta.Pool().Exec(context.Background(), "UPDATE worker_leases SET expires_at = now() - interval '1 second' WHERE id = $1", a.leaseID); err != nil {
		t.Fatal(err)
	}
	lapsed := time.Now()
	e.queue(t, func(ctx context.Context, j jobs.Job, report jobs.Report) ([]string, error) {
		return []string{"the second run's"}, nil
	}, nil)
	j := waitJob(t, web, id(1), "succeeded on the second attempt", func(j jobs.Job) bool { return j.Status == jobs.Succeeded })
	t.Logf("from the lapse to the job succeeded elsewhere: %v (lease %v)", time.Since(lapsed).Round(10*time.Millisecond), testLease)
	if j.Attempts != 2 || fmt.Sprint(j.Notes) != "[the second run's]" {
		t.Errorf("the record: got attempt %d, notes %v; want attempt 2 with the second run's notes", j.Attempts, j.Notes)
	}
	waitSignal(t, stopped, "the first run's work to be canceled once it lost its job")
	before, _ := json.Marshal(j)
	close(release)
	deadline := time.Now().Add(30 * time.Second)
	for len(a.Running()) > 0 {
		if time.Now().After(deadline) {
			t.Fatal("the first run did not end within 30 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	waitRiver(t, e, id(1), "discarded,completed")
	j, err := web.Get(id(1))
	if after, _ := json.Marshal(j); err != nil || string(after) != string(before) {
		t.Errorf("the record after the first run's late end:\ngot  %s (%v)\nwant %s", after, err, before)
	}
	installed, discarded := e.res.sealed()
	if want := []string{id(1) + "/2"}; !slices.Equal(installed, want) {
		t.Errorf("results moved into place: got %v, want only the second run's %v", installed, want)
	}
	if !slices.Contains(discarded, id(1)+"/1") {
		t.Errorf("results discarded: got %v, want the first run's among them", discarded)
	}
	if got := e.res.partialsRemoved(); !slices.Equal(got, []string{id(1)}) {
		t.Errorf("partial statistics removed for %v, want once, by the run that holds the job", got)
	}
}
