package sharedjobs

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"mldr/internal/jobs"
	"mldr/internal/pgmeta"
	"mldr/internal/store"
)

// runWorker is River's worker of the kind Kind: it runs the job its
// arguments name.
type runWorker struct {
	river.WorkerDefaults[runArgs]
	q *Queue
}

// Work runs one attempt of a job. It returns nil once the job's record
// holds its outcome (River then completes its job), or once the job is
// found taken back by another process, and an error when the job is to
// run again: a shutdown interrupted it, or its record could not be
// written.
func (w *runWorker) Work(ctx context.Context, rj *river.Job[runArgs]) error {
	return w.q.run(ctx, rj.Args.ID, rj.ID)
}

// What Work returns for a job a shutdown interrupted, and for one a user
// canceled.
var (
	errRequeued = errors.New("interrupted by a shutdown; it is queued again")
	errCanceled = errors.New("canceled by a user")
)

// run is a job this process runs: its state as the last report left it,
// written to the record by flush.
type run struct {
	attempt   int // the record's attempt this run holds the job under
	mu        sync.Mutex
	job       jobs.Job
	phase     string // the phase of the run (jobs.PhaseOf) since phaseAt
	phaseAt   time.Time
	dirty     bool // reported since the last write
	canceling bool // a user canceled it (the record says "canceling")
	fenced    bool // the job was taken back: the run writes nothing more
	cancel    context.CancelCauseFunc
}

// holds reports whether the job's record j still names this run: running
// under its attempt.
func (r *run) holds(j jobs.Job) bool {
	return j.Status == jobs.Running && j.Attempts == r.attempt
}

// fence stops a run whose job was taken back: its work is canceled and
// it writes nothing more.
func (r *run) fence() {
	r.mu.Lock()
	r.fenced = true
	r.mu.Unlock()
	r.cancel(errFenced)
}

// enterPhase closes the run's current phase at now and opens name.
// Called with r.mu held.
func (r *run) enterPhase(name string, now time.Time) {
	if r.phase != "" {
		r.job.AddPhase(r.phase, now.Sub(r.phaseAt))
	}
	r.phase, r.phaseAt = name, now
}

// run runs job id under queue entry rid.
func (q *Queue) run(ctx context.Context, id string, rid int64) error {
	r, err := q.start(id, rid)
	if err != nil || r == nil {
		return err
	}
	wctx, cancel := context.WithCancelCause(ctx) // the work's: ctx, or a fence
	defer cancel(nil)
	r.cancel = cancel
	q.mu.Lock()
	q.running[id] = r
	q.mu.Unlock()
	defer func() {
		q.mu.Lock()
		delete(q.running, id)
		q.mu.Unlock()
	}()

	flushDone, stopFlush := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(flushDone)
		t := time.NewTicker(q.cfg.ProgressEvery)
		defer t.Stop()
		for {
			select {
			case <-stopFlush:
				return
			case <-t.C:
				q.flush(id, r)
			}
		}
	}()
	r.mu.Lock()
	job := r.job
	r.mu.Unlock()
	report := func(p float64, phase, msg string) { q.report(r, p, phase, msg) }
	var notes []string
	err = q.formShards(wctx, job, report) // shards.go
	if err == nil {
		var release func()
		if release, err = q.slot(wctx); err == nil {
			notes, err = q.execute(wctx, job, report)
			release()
		}
	}
	close(stopFlush)
	<-flushDone
	return q.finish(ctx, id, r, notes, err)
}

// execute calls the executor, turning a panic into an error.
func (q *Queue) execute(ctx context.Context, job jobs.Job, report jobs.Report) (notes []string, err error) {
	defer func() {
		if v := recover(); v != nil {
			q.cfg.Logger.Error("job panicked", "id", job.ID, "panic", v)
			err = fmt.Errorf("internal error: %v", v)
		}
	}()
	return q.cfg.Execute(ctx, job, report)
}

// start marks job id running under its next attempt, unless its record
// is gone (deleted), finished (canceled while queued), or says that the
// job's runs were interrupted jobs.MaxAttempts times (then it fails), or
// queue entry rid is no longer this process's (taken back while this
// process was paused): then start returns no run.
func (q *Queue) start(id string, rid int64) (*run, error) {
	ctx, cancel := q.op()
	defer cancel()
	var r *run
	_, err := q.change(ctx, id, func(tx pgx.Tx, j *jobs.Job) (bool, error) {
		now := q.cfg.Now().UTC()
		if mine, err := q.entryIsMine(ctx, tx, rid); err != nil || !mine {
			return false, err
		}
		switch {
		case j.Status.Terminal():
			return false, nil
		case j.Status == jobs.Running && j.Attempts >= jobs.MaxAttempts:
			// Its last run neither finished nor was queued again: the
			// process running it died, jobs.MaxAttempts times now.
			j.Status, j.Error, j.FinishedAt = jobs.Failed, fmt.Sprintf("interrupted by restart (%d times)", j.Attempts), &now
			q.cfg.Logger.Info("a job interrupted too often fails", "id", id, "attempts", j.Attempts)
			return true, nil
		}
		if j.Status == jobs.Running {
			q.cfg.Logger.Info("a job whose worker process died runs again", "id", id, "attempt", j.Attempts+1)
		}
		j.Status, j.StartedAt, j.FinishedAt, j.Progress, j.Phase, j.Message, j.Error = jobs.Running, &now, nil, 0, "starting", "", ""
		j.Attempts, j.Notes, j.Phases = j.Attempts+1, nil, nil
		r = &run{job: *j, attempt: j.Attempts}
		r.enterPhase(jobs.PhaseStart, now)
		return true, nil
	})
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil // deleted while queued
	}
	if err != nil {
		return nil, q.fail("starting job "+id, err)
	}
	return r, nil
}

// report takes a progress report of a running job; flush writes it.
func (q *Queue) report(r *run, p float64, phase, msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.job.Progress = min(max(r.job.Progress, p), 1) // never back
	r.job.Phase, r.job.Message = phase, msg
	if r.canceling {
		r.job.Phase = "canceling"
	}
	if name := jobs.PhaseOf(phase); name != r.phase {
		r.enterPhase(name, q.cfg.Now().UTC())
	}
	r.dirty = true
}

// flush writes a running job's progress to its record, if it changed,
// keeping what another process wrote meanwhile (a cancel's "canceling"),
// and stops the run when the record no longer names it.
func (q *Queue) flush(id string, r *run) {
	r.mu.Lock()
	if !r.dirty || r.fenced {
		r.mu.Unlock()
		return
	}
	r.dirty = false
	job := r.job
	r.mu.Unlock()
	ctx, cancel := q.op()
	defer cancel()
	fenced := false
	_, err := q.change(ctx, id, func(_ pgx.Tx, j *jobs.Job) (bool, error) {
		if !r.holds(*j) {
			fenced = true
			return false, nil
		}
		if j.Phase == "canceling" {
			job.Phase = "canceling"
			r.mu.Lock()
			r.canceling = true
			r.mu.Unlock()
		}
		*j = job
		return true, nil
	})
	if errors.Is(err, store.ErrNotFound) || fenced {
		r.fence()
		return
	}
	if err != nil {
		r.mu.Lock()
		r.dirty = true // written at the next tick
		r.mu.Unlock()
		q.logFailure("writing a job's progress", err, "id", id)
	}
}

// finish writes a run's outcome: succeeded (its sealed results moved
// into place in the same transaction), canceled by a user, failed, or
// (interrupted by a shutdown, or unable to reach the database) queued
// again, when finish returns
// errRequeued for River to run it again. A run whose job was taken back
// writes nothing and discards its results. While the database cannot be
// reached, finish tries again until it is back or the queue stops.
func (q *Queue) finish(ctx context.Context, id string, r *run, notes []string, runErr error) error {
	cause := context.Cause(ctx)
	var requeue, fenced, installed bool
	outcome := func(_ pgx.Tx, j *jobs.Job) (bool, error) {
		if !r.holds(*j) {
			fenced = true
			return false, nil
		}
		r.mu.Lock()
		*j = r.job
		r.mu.Unlock()
		end := q.cfg.Now().UTC()
		q.mu.Lock()
		stopping := q.stopping
		q.mu.Unlock()
		requeue = false
		switch {
		case runErr == nil:
			j.Status, j.Progress, j.Phase, j.Message = jobs.Succeeded, 1, "done", ""
		case ctx.Err() != nil && errors.Is(cause, river.ErrJobCancelledRemotely):
			j.Status, j.Phase = jobs.Canceled, "canceled"
		case ctx.Err() != nil && errors.Is(cause, context.DeadlineExceeded) && !stopping:
			j.Status, j.Error = jobs.Failed, fmt.Sprintf("the job ran longer than -rescue-after (%s) allows: give every process a longer -rescue-after to run it", q.cfg.RescueAfter)
		case ctx.Err() != nil:
			j.Status, j.Progress, j.Phase, j.StartedAt = jobs.Queued, 0, "queued again after a shutdown", nil
			requeue = true
		case errors.Is(pgmeta.Classify(runErr), store.ErrUnavailable) && j.Attempts < jobs.MaxAttempts:
			// The run could not reach the database (reading a data set's
			// record, say, on a connection an outage had broken): the job
			// is not at fault, and the database answers again, since this
			// outcome is being written. It runs again, up to
			// jobs.MaxAttempts runs in all.
			j.Status, j.Progress, j.Phase, j.StartedAt = jobs.Queued, 0, "queued again: the database could not be reached", nil
			requeue = true
		default:
			j.Status, j.Error = jobs.Failed, runErr.Error()
		}
		if j.Status == jobs.Succeeded && !installed {
			// Under the record's lock, which taking the job back needs too.
			if err := q.cfg.Results.InstallJobResults(id, r.attempt); err != nil {
				q.cfg.Logger.Error("moving a job's results into place", "id", id, "err", err)
				j.Status, j.Error = jobs.Failed, "the job's results could not be moved into place; the details are in the log of the worker process that ran it"
			} else {
				installed = true
			}
		}
		j.Notes = notes
		r.mu.Lock()
		r.job = *j
		r.enterPhase("", end)
		*j = r.job
		r.mu.Unlock()
		if j.Status.Terminal() {
			j.FinishedAt = &end
		} else {
			j.Phases = nil // it runs again
		}
		return true, nil
	}
	j, err := q.record(id, outcome)
	if !installed {
		if derr := q.cfg.Results.DiscardJobResults(id, r.attempt); derr != nil && !errors.Is(derr, store.ErrNotFound) {
			q.cfg.Logger.Warn("removing the unused results of a run", "id", id, "err", derr)
		}
	}
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil // deleted meanwhile: nothing to record
	case err != nil:
		// River runs it again; its results, if any, are replaced.
		return q.fail("storing the outcome of job "+id, err)
	case fenced:
		q.cfg.Logger.Info("a run whose job was taken back by another process ended; its outcome is not recorded", "id", id, "attempt", r.attempt)
		return nil // its entry has ended (Reclaim): River changes nothing
	}
	q.removePartials(id)
	q.cfg.Logger.Info("job finished", "id", id, "status", j.Status, "err", j.Error)
	switch {
	case requeue:
		return errRequeued
	case j.Status == jobs.Canceled:
		return river.JobCancel(errCanceled) // River's job ends canceled too
	}
	return nil
}

// record changes job id's record with fn (see change), trying again
// while the database cannot be reached, until it is back or the queue
// stops.
func (q *Queue) record(id string, fn func(tx pgx.Tx, j *jobs.Job) (bool, error)) (jobs.Job, error) {
	wait := recordRetry
	for {
		ctx, cancel := q.op()
		j, err := q.change(ctx, id, fn)
		cancel()
		q.mu.Lock()
		stopping := q.stopping
		q.mu.Unlock()
		if err == nil || !errors.Is(pgmeta.Classify(err), store.ErrUnavailable) || stopping {
			return j, err
		}
		select {
		case <-q.ctx.Done():
			return j, err
		case <-time.After(wait):
		}
		wait = min(2*wait, maxRecordRetry)
	}
}

// The pauses of record between its tries.
const (
	recordRetry    = 500 * time.Millisecond
	maxRecordRetry = 2 * time.Second
)
