package jobs

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"
)

// Work does a job's work. It reports progress with report, honours
// ctx, and returns notes to keep with the job. An error fails the job,
// unless ctx was canceled.
type Work func(ctx context.Context, job Job, report Report) (notes []string, err error)

// Report tells how far a job is (0…1), in which phase, with a message.
type Report func(progress float64, phase, message string)

// Persistence keeps job records.
type Persistence interface {
	SaveJob(id string, data []byte) error
	LoadJobs() (map[string][]byte, error)
	DeleteJob(id string) error
}

// Errors of the runner.
var (
	ErrNotFound  = errors.New("no such job")
	ErrQueueFull = errors.New("too many jobs are waiting")
	ErrConflict  = errors.New("the job is in the wrong state for this")
	ErrStopped   = errors.New("the job runner is stopping")
)

// MaxAttempts is how often a job may be interrupted by a restart (or, in
// the shared mode, by the death of the process running it) before it
// fails.
const MaxAttempts = 3

// Config configures a Runner.
type Config struct {
	Store    Persistence
	Execute  Work
	Workers  int // default 1
	MaxQueue int // jobs waiting at most; 0: no limit
	Now      func() time.Time
	Logger   *slog.Logger
}

// Runner runs jobs on a bounded pool of workers. Jobs run on the runner's
// own context, never a request's. Its methods are safe for concurrent use.
type Runner struct {
	cfg    Config
	mu     sync.Mutex
	cond   *sync.Cond
	jobs   map[string]*entry
	queue  []string // queued job ids, in submission order
	ctx    context.Context
	cancel context.CancelFunc
	stop   bool // no job starts any more
	wg     sync.WaitGroup
}

type entry struct {
	job          Job
	cancel       context.CancelFunc // running jobs
	userCanceled bool
	subs         map[chan Job]struct{}
	// phase is the phase of the run (PhaseOf) since phaseAt.
	phase   string
	phaseAt time.Time
}

// enterPhase closes the entry's current phase at now and opens name.
func (e *entry) enterPhase(name string, now time.Time) {
	if e.phase != "" {
		e.job.AddPhase(e.phase, now.Sub(e.phaseAt))
	}
	e.phase, e.phaseAt = name, now
}

// New loads the stored jobs, recovers those a restart interrupted (running
// jobs are queued again; after MaxAttempts starts they fail with "interrupted
// by restart"), and starts the workers.
func New(cfg Config) (*Runner, error) {
	if cfg.Workers < 1 {
		cfg.Workers = 1
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	r := &Runner{cfg: cfg, jobs: map[string]*entry{}}
	r.cond = sync.NewCond(&r.mu)
	r.ctx, r.cancel = context.WithCancel(context.Background())
	stored, err := cfg.Store.LoadJobs()
	if err != nil {
		return nil, err
	}
	var queued []*entry
	for id, data := range stored {
		var j Job
		if err := json.Unmarshal(data, &j); err != nil {
			return nil, fmt.Errorf("reading job %s: %w", id, err)
		}
		e := &entry{job: j}
		r.jobs[id] = e
		switch j.Status {
		case Running:
			if j.Attempts >= MaxAttempts {
				now := cfg.Now().UTC()
				e.job.Status, e.job.Error, e.job.FinishedAt = Failed, fmt.Sprintf("interrupted by restart (%d times)", j.Attempts), &now
			} else {
				e.job.Status, e.job.Progress, e.job.Phase, e.job.StartedAt = Queued, 0, "queued again after a restart", nil
				queued = append(queued, e)
			}
			if err := r.save(e); err != nil {
				return nil, err
			}
			cfg.Logger.Info("recovery: job interrupted by a restart", "id", id, "status", e.job.Status)
		case Queued:
			queued = append(queued, e)
		}
	}
	slices.SortFunc(queued, func(a, b *entry) int {
		return cmp.Or(a.job.CreatedAt.Compare(b.job.CreatedAt), cmp.Compare(a.job.ID, b.job.ID))
	})
	for _, e := range queued {
		r.queue = append(r.queue, e.job.ID)
	}
	for range cfg.Workers {
		r.wg.Go(r.work)
	}
	return r, nil
}

func (r *Runner) save(e *entry) error {
	data, err := json.Marshal(e.job)
	if err != nil {
		return fmt.Errorf("encoding job %s: %w", e.job.ID, err)
	}
	return r.cfg.Store.SaveJob(e.job.ID, data)
}

// Submit stores a job as queued and queues it. The caller validated the
// request and made the id.
func (r *Runner) Submit(id string, req Request) (Job, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stop {
		return Job{}, ErrStopped
	}
	if r.cfg.MaxQueue > 0 && len(r.queue) >= r.cfg.MaxQueue {
		return Job{}, ErrQueueFull
	}
	e := &entry{job: Job{ID: id, Status: Queued, Phase: "queued", CreatedAt: r.cfg.Now().UTC(), Request: req}}
	if err := r.save(e); err != nil {
		return Job{}, err
	}
	r.jobs[id] = e
	r.queue = append(r.queue, id)
	r.cond.Signal()
	return e.job, nil
}

// work is one worker: it takes the oldest queued job until the runner
// stops.
func (r *Runner) work() {
	for {
		r.mu.Lock()
		for len(r.queue) == 0 && !r.stop {
			r.cond.Wait()
		}
		if r.stop {
			r.mu.Unlock()
			return
		}
		id := r.queue[0]
		r.queue = r.queue[1:]
		e := r.jobs[id]
		ctx, cancel := context.WithCancel(r.ctx)
		now := r.cfg.Now().UTC()
		e.cancel = cancel
		e.job.Status, e.job.StartedAt, e.job.Progress, e.job.Phase, e.job.Message = Running, &now, 0, "starting", ""
		e.job.Attempts++
		e.job.Phases, e.phase = nil, ""
		e.enterPhase(PhaseStart, now)
		if err := r.save(e); err != nil {
			r.cfg.Logger.Error("storing a job", "id", id, "err", err)
		}
		r.notify(e)
		job := e.job
		r.mu.Unlock()

		notes, err := r.run(ctx, job)
		cancel()

		r.mu.Lock()
		e.cancel = nil
		end := r.cfg.Now().UTC()
		switch {
		case err == nil:
			e.job.Status, e.job.Progress, e.job.Phase, e.job.Message = Succeeded, 1, "done", ""
		case e.userCanceled:
			e.job.Status, e.job.Phase = Canceled, "canceled"
		case ctx.Err() != nil && r.stop:
			// Interrupted by a shutdown: it runs again at the next start.
			e.job.Status, e.job.Progress, e.job.Phase = Queued, 0, "queued again after a shutdown"
			e.job.StartedAt = nil
		default:
			e.job.Status, e.job.Error = Failed, err.Error()
		}
		e.job.Notes = notes
		e.enterPhase("", end)
		if e.job.Status.Terminal() {
			e.job.FinishedAt = &end
		} else {
			e.job.Phases = nil // it runs again
		}
		if err := r.save(e); err != nil {
			r.cfg.Logger.Error("storing a job", "id", id, "err", err)
		}
		r.notify(e)
		r.cfg.Logger.Info("job finished", "id", id, "status", e.job.Status, "err", e.job.Error)
		r.mu.Unlock()
	}
}

// run calls the executor, turning a panic into an error.
func (r *Runner) run(ctx context.Context, job Job) (notes []string, err error) {
	defer func() {
		if v := recover(); v != nil {
			r.cfg.Logger.Error("job panicked", "id", job.ID, "panic", v)
			err = fmt.Errorf("internal error: %v", v)
		}
	}()
	return r.cfg.Execute(ctx, job, func(p float64, phase, msg string) { r.report(job.ID, p, phase, msg) })
}

func (r *Runner) report(id string, p float64, phase, msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.jobs[id]
	if e == nil || e.job.Status != Running {
		return
	}
	e.job.Progress = min(max(e.job.Progress, p), 1) // never back
	e.job.Phase, e.job.Message = phase, msg
	if name := PhaseOf(phase); name != e.phase {
		e.enterPhase(name, r.cfg.Now().UTC())
	}
	r.notify(e)
}

// notify sends the latest state to every subscriber, replacing a state
// they have not read yet. Called with r.mu held.
func (r *Runner) notify(e *entry) {
	for ch := range e.subs {
		select {
		case <-ch:
		default:
		}
		ch <- e.job
	}
}

// Get returns a job.
func (r *Runner) Get(id string) (Job, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.jobs[id]
	if !ok {
		return Job{}, ErrNotFound
	}
	return e.job, nil
}

// List returns every job, newest first; its error is always nil (the
// jobs are in memory).
func (r *Runner) List() ([]Job, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Job, 0, len(r.jobs))
	for _, e := range r.jobs {
		out = append(out, e.job)
	}
	slices.SortFunc(out, func(a, b Job) int { return cmp.Or(b.CreatedAt.Compare(a.CreatedAt), cmp.Compare(a.ID, b.ID)) })
	return out, nil
}

// Cancel stops a queued job at once, and a running one at its next check
// of the context. A finished job cannot be canceled (ErrConflict).
func (r *Runner) Cancel(id string) (Job, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.jobs[id]
	if !ok {
		return Job{}, ErrNotFound
	}
	switch e.job.Status {
	case Queued:
		old := e.job
		now := r.cfg.Now().UTC()
		e.job.Status, e.job.Phase, e.job.FinishedAt = Canceled, "canceled", &now
		if err := r.save(e); err != nil {
			e.job = old // not canceled: it stays queued, as stored
			return e.job, err
		}
		r.queue = slices.DeleteFunc(r.queue, func(q string) bool { return q == id })
		r.notify(e)
	case Running:
		e.userCanceled = true
		e.job.Phase = "canceling"
		e.cancel()
		r.notify(e)
	default:
		return e.job, fmt.Errorf("job %s has %s: %w", id, e.job.Status, ErrConflict)
	}
	return e.job, nil
}

// Delete removes a job that is not running, with its record and results.
func (r *Runner) Delete(id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.jobs[id]
	if !ok {
		return ErrNotFound
	}
	if e.job.Status == Running {
		return fmt.Errorf("job %s is running; cancel it first: %w", id, ErrConflict)
	}
	if err := r.cfg.Store.DeleteJob(id); err != nil {
		return err
	}
	r.queue = slices.DeleteFunc(r.queue, func(q string) bool { return q == id })
	for ch := range e.subs {
		close(ch)
	}
	e.subs = nil
	delete(r.jobs, id)
	return nil
}

// Subscribe returns a channel that receives the job's state on every
// change (only the latest is kept if the reader is slow), closed when the
// job is deleted, and a function that ends the subscription.
func (r *Runner) Subscribe(id string) (<-chan Job, func(), error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.jobs[id]
	if !ok {
		return nil, nil, ErrNotFound
	}
	ch := make(chan Job, 1)
	if e.subs == nil {
		e.subs = map[chan Job]struct{}{}
	}
	e.subs[ch] = struct{}{}
	ch <- e.job
	return ch, func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		if _, ok := e.subs[ch]; ok {
			delete(e.subs, ch)
			close(ch)
		}
	}, nil
}

// Using lists the jobs, finished or not, that use a data set as training
// or test data; its error is always nil.
func (r *Runner) Using(datasetID string) ([]Job, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Job
	if datasetID == "" {
		return out, nil
	}
	for _, e := range r.jobs {
		if slices.Contains(e.job.Request.DatasetIDs(), datasetID) {
			out = append(out, e.job)
		}
	}
	slices.SortFunc(out, func(a, b Job) int { return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID)) })
	return out, nil
}

// Shutdown stops the runner: no job starts any more; running jobs finish
// (drain) until ctx is done, then are canceled and queued again for the
// next start. It returns when every worker has stopped.
func (r *Runner) Shutdown(ctx context.Context) error {
	r.mu.Lock()
	r.stop = true
	r.cond.Broadcast()
	r.mu.Unlock()
	done := make(chan struct{})
	go func() {
		r.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
	}
	r.cancel() // stop-and-cancel: interrupted jobs are queued again
	<-done
	return ctx.Err()
}
