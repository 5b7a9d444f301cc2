// Package sharedjobs is the job queue of the shared mode: several web and
// worker processes, on one or several machines, over one PostgreSQL
// database and one data location. It implements jobs.Queue, as the
// embedded jobs.Runner does, so handlers and pages cannot tell them apart.
//
// Job records stay where the store keeps them (pgmeta's jobs table, the
// same JSON as the embedded runner writes); River
// (github.com/riverqueue/river) carries the work. Submit writes the
// record and inserts a River job (kind "mldr_job", args {"id": …}) in one
// transaction. A worker process's River client runs it through the same
// jobs.Work as the embedded runner (worker.Pool.Execute) and writes each
// change of state to the record, under the record's row lock; progress is
// written at most every Config.ProgressEvery and announced with
// pg_notify on channel NotifyChannel. Every process that serves pages
// LISTENs on it and feeds its Subscribe channels, so a browser's event
// stream follows a job whichever process it talks to and whichever runs
// the job.
//
// Cancel cancels a queued job at once (River's JobCancel and the record
// in one transaction) and a running one through River's JobCancel,
// which reaches the process that runs it by LISTEN/NOTIFY and cancels the
// job's context there. Every process holds a lease that it renews every
// few seconds; the River job of a worker process that dies, freezes or
// loses the database mid-job is taken back once its lease has lapsed
// (Config.Lease) and run by another, and a run whose job was taken back
// writes nothing more (lease.go). A job whose runs were interrupted
// jobs.MaxAttempts times fails with the embedded runner's message.
// Config.RescueAfter is the longest a job may run. A result is sealed by
// the worker and moved into place by the run's process in the
// transaction that records the job as succeeded, so a job run twice
// leaves one result directory, the one of the run the record names.
//
// Every error that means the database could not be reached wraps
// store.ErrUnavailable (pgmeta.Classify), and the queue's own work does
// not log such errors: the metadata store logs an outage once.
package sharedjobs

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"

	"mldr/internal/jobs"
	"mldr/internal/pgmeta"
	"mldr/internal/store"
)

// Kind is the River job kind of a job run.
const Kind = "mldr_job"

// NotifyChannel is the PostgreSQL notification channel on which a job's
// id is announced whenever its record changes (or is deleted).
const NotifyChannel = "mldr_job"

// Defaults of Config.
const (
	// DefaultRescueAfter is how long a job may run: beyond, its context
	// is canceled (it fails). A job whose worker process died is taken
	// back far sooner, by the leases (DefaultLease).
	DefaultRescueAfter = time.Hour
	// DefaultRetryDelay is how soon a job a shutdown interrupted (or
	// River's rescuer rescued) may run again.
	DefaultRetryDelay = time.Second
	// DefaultProgressEvery is the least time between two progress writes
	// of a job.
	DefaultProgressEvery = 250 * time.Millisecond
	// rescueSlack is how much longer than Config.RescueAfter River's own
	// rescuer waits before it takes a job for stuck: a job's context ends
	// at RescueAfter, and its run then records why it failed.
	rescueSlack = time.Minute
	// opTimeout bounds one database operation of the queue.
	opTimeout = time.Minute
)

// Config configures a Queue.
type Config struct {
	// Meta holds the job records and the connections; required.
	Meta *pgmeta.Meta
	// Results removes a deleted job's result files, and the partial
	// statistics of a job that ran out of core, and moves into place (or
	// removes) the results a run's worker sealed; required.
	Results interface {
		RemoveJobResults(id string) error
		RemovePartials(id string) error
		// InstallJobResults moves the results attempt attempt of job id
		// sealed into place (store.Store.InstallJobResults).
		InstallJobResults(id string, attempt int) error
		// DiscardJobResults removes them (store.Files.DiscardJobResults).
		DiscardJobResults(id string, attempt int) error
	}
	// Execute runs a job; nil for a process that runs no jobs (role
	// web): its queue only inserts, cancels and reads. It also runs the
	// shard tasks of out-of-core jobs (jobs.Job.Task set).
	Execute jobs.Work
	// ShardTasks lists the shard tasks of an attempt of a job that runs
	// out of core (jobs.ShardTasks under this process's memory limit);
	// nil: every job runs whole where it is taken (see shards.go).
	ShardTasks func(job jobs.Job, attempt int) ([]jobs.ShardTask, error)
	// Workers is how many jobs this process runs at once; default 1.
	Workers int
	// MaxQueue is how many jobs may wait, over every process; 0: no
	// limit.
	MaxQueue int
	// RescueAfter is how long a job may run (see DefaultRescueAfter);
	// every process of a database should have the same.
	RescueAfter time.Duration
	// Lease is how long a process may go without renewing its lease
	// before the jobs it runs are taken back and run by another
	// (DefaultLease); it renews it every Lease/5. Every process of a
	// database should have the same.
	Lease time.Duration
	// RetryDelay: see DefaultRetryDelay.
	RetryDelay time.Duration
	// ProgressEvery: see DefaultProgressEvery.
	ProgressEvery time.Duration
	// Listen feeds Subscribe with the changes other processes make; a
	// process that serves pages needs it.
	Listen bool
	// Now is the clock of the records' times; default time.Now.
	Now func() time.Time
	// Logger receives what the queue and River log; nil discards.
	Logger *slog.Logger
}

// runArgs are a River job's arguments: the job record's id.
type runArgs struct {
	ID string `json:"id"`
}

// Kind names the River job kind.
func (runArgs) Kind() string { return Kind }

// Queue is the shared job queue. It implements jobs.Queue; its methods
// are safe for concurrent use.
type Queue struct {
	cfg    Config
	pool   *pgxpool.Pool
	client *river.Client[pgx.Tx]
	ctx    context.Context // the queue's own, ended by Shutdown
	cancel context.CancelFunc
	wg     sync.WaitGroup

	reads sync.Mutex    // the subscribers' reads of records, in turn
	slots chan struct{} // Workers: the jobs and shard tasks running at once

	leaseID     string      // this process's lease and River client id
	leasePaused atomic.Bool // tests: the lease is not renewed, as by a frozen process

	mu           sync.Mutex
	stopping     bool
	running      map[string]*run // the jobs this process runs
	subs         map[string]map[chan jobs.Job]struct{}
	renewed      time.Time // the last renewal of the lease
	renewedSince time.Time // since when every renewal succeeded; zero after a failure
}

var _ jobs.Queue = (*Queue)(nil)

// Migrate applies River's migrations (each in its own transaction: some
// cannot share one); give it to pgmeta.Config.Migrate, which runs it
// under the product's migration lock.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	m, err := rivermigrate.New(riverpgxv5.New(pool), nil)
	if err != nil {
		return fmt.Errorf("the job queue's migrations: %w", err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("the job queue's migrations: %w", err)
	}
	return nil
}

// fixedRetry makes a job River retries (a rescued one, one a shutdown
// interrupted) available again after a fixed delay: the queue decides
// when a job has been interrupted too often, not River's backoff.
type fixedRetry struct{ delay time.Duration }

// NextRetry says when the job may run again.
func (f fixedRetry) NextRetry(*rivertype.JobRow) time.Time { return time.Now().Add(f.delay) }

// riverMaxAttempts is River's limit on a job's attempts. The queue's own
// rule (jobs.MaxAttempts interrupted runs) ends a job first; shutdowns
// that interrupt a job count as River attempts but not as interruptions.
const riverMaxAttempts = 25

// New starts the queue: a River client on the metadata's pool, working
// jobs when cfg.Execute is set, and the listener when cfg.Listen is. The
// database must have been migrated with Migrate (pgmeta.Open does it).
func New(ctx context.Context, cfg Config) (*Queue, error) {
	if cfg.Meta == nil || cfg.Results == nil {
		return nil, errors.New("sharedjobs: Config.Meta and Config.Results are required")
	}
	cfg.Workers = max(cfg.Workers, 1)
	if cfg.RescueAfter <= 0 {
		cfg.RescueAfter = DefaultRescueAfter
	}
	if cfg.Lease <= 0 {
		cfg.Lease = DefaultLease
	}
	if cfg.RetryDelay <= 0 {
		cfg.RetryDelay = DefaultRetryDelay
	}
	if cfg.ProgressEvery <= 0 {
		cfg.ProgressEvery = DefaultProgressEvery
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	q := &Queue{cfg: cfg, pool: cfg.Meta.Pool(), running: map[string]*run{}, subs: map[string]map[chan jobs.Job]struct{}{},
		slots: make(chan struct{}, cfg.Workers), leaseID: newLeaseID()}
	workers := river.NewWorkers()
	if err := river.AddWorkerSafely(workers, &runWorker{q: q}); err != nil {
		return nil, fmt.Errorf("starting the job queue: %w", err)
	}
	if err := river.AddWorkerSafely(workers, &shardWorker{q: q}); err != nil {
		return nil, fmt.Errorf("starting the job queue: %w", err)
	}
	rc := &river.Config{
		ID:      q.leaseID, // River writes it into river_job.attempted_by: the lease says whether it lives
		Workers: workers,
		Logger:  slog.New(quietOutage{Handler: cfg.Logger.With("component", "river").Handler(), meta: cfg.Meta}),
		// A job's context ends after RescueAfter. The leases take back the
		// jobs of lost processes within seconds; River's rescuer is only a
		// backstop, after the run of a job that timed out has recorded why.
		JobTimeout:           cfg.RescueAfter,
		RescueStuckJobsAfter: cfg.RescueAfter + rescueSlack,
		RetryPolicy:          fixedRetry{cfg.RetryDelay},
		MaxAttempts:          riverMaxAttempts,
	}
	if cfg.Execute != nil {
		rc.Queues = map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: cfg.Workers}, ShardQueue: {MaxWorkers: cfg.Workers}}
	}
	client, err := river.NewClient(riverpgxv5.New(q.pool), rc)
	if err != nil {
		return nil, fmt.Errorf("starting the job queue: %w", err)
	}
	q.client = client
	q.ctx, q.cancel = context.WithCancel(context.Background())
	// The lease exists before River takes a job under its id.
	if err := q.renew(); err != nil {
		q.cancel()
		return nil, fmt.Errorf("starting the job queue: %w", err)
	}
	q.wg.Go(func() { q.every(cfg.Lease/5, q.renewOnce) })
	q.wg.Go(func() { q.every(cfg.Lease/5, q.reclaimOnce) })
	if cfg.Execute != nil {
		if err := client.Start(q.ctx); err != nil {
			q.cancel()
			q.wg.Wait()
			return nil, fmt.Errorf("starting the job queue's workers: PostgreSQL at %s: %w", cfg.Meta.Where(), err)
		}
	}
	if cfg.Execute != nil {
		q.wg.Go(func() { q.every(SweepEvery, q.sweepOnce) })
	}
	if cfg.Listen {
		ready := make(chan error, 1)
		q.wg.Go(func() { q.listen(ready) })
		select {
		case err := <-ready:
			if err != nil {
				q.Shutdown(context.Background())
				return nil, fmt.Errorf("starting the job queue: listening for job changes: PostgreSQL at %s: %w", cfg.Meta.Where(), err)
			}
		case <-ctx.Done():
			q.Shutdown(context.Background())
			return nil, ctx.Err()
		}
	}
	return q, nil
}

// op bounds one database operation; it ends with the queue, too.
func (q *Queue) op() (context.Context, context.CancelFunc) {
	return context.WithTimeout(q.ctx, opTimeout)
}

// fail wraps a database error with what was being done and where (and
// store.ErrUnavailable when the database could not be reached).
func (q *Queue) fail(what string, err error) error {
	return fmt.Errorf("%s: PostgreSQL at %s: %w", what, q.cfg.Meta.Where(), pgmeta.Classify(err))
}

// decode reads a job record.
func decode(id string, b []byte) (jobs.Job, error) {
	var j jobs.Job
	if err := json.Unmarshal(b, &j); err != nil {
		return j, fmt.Errorf("reading job %s: %w", id, err)
	}
	return j, nil
}

// notFound turns the store's not-found into the queue's.
func notFound(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return jobs.ErrNotFound
	}
	return err
}

// Submit stores a job as queued and inserts its River job, in one
// transaction. A full queue (Config.MaxQueue jobs waiting, over every
// process) is jobs.ErrQueueFull.
func (q *Queue) Submit(id string, req jobs.Request) (jobs.Job, error) {
	q.mu.Lock()
	stopping := q.stopping
	q.mu.Unlock()
	if stopping {
		return jobs.Job{}, jobs.ErrStopped
	}
	j := jobs.Job{ID: id, Status: jobs.Queued, Phase: "queued", CreatedAt: q.cfg.Now().UTC(), Request: req}
	data, err := json.Marshal(j)
	if err != nil {
		return jobs.Job{}, fmt.Errorf("encoding job %s: %w", id, err)
	}
	ctx, cancel := q.op()
	defer cancel()
	err = pgx.BeginFunc(ctx, q.pool, func(tx pgx.Tx) error {
		if q.cfg.MaxQueue > 0 {
			var waiting int
			if err := tx.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = $1
				AND state IN ('available', 'pending', 'retryable', 'scheduled')`, Kind).Scan(&waiting); err != nil {
				return err
			}
			if waiting >= q.cfg.MaxQueue {
				return jobs.ErrQueueFull
			}
		}
		if err := pgmeta.PutJob(ctx, tx, id, data); err != nil {
			return err
		}
		_, err := q.client.InsertTx(ctx, tx, runArgs{ID: id}, nil)
		return err
	})
	if errors.Is(err, jobs.ErrQueueFull) {
		return jobs.Job{}, err
	}
	if err != nil {
		return jobs.Job{}, q.fail("queueing job "+id, err)
	}
	return j, nil
}

// Get returns a job as its record says.
func (q *Queue) Get(id string) (jobs.Job, error) {
	if !store.ValidID(id) {
		return jobs.Job{}, jobs.ErrNotFound
	}
	ctx, cancel := q.op()
	defer cancel()
	b, err := q.cfg.Meta.JobRecord(ctx, id)
	if err != nil {
		return jobs.Job{}, notFound(err)
	}
	return decode(id, b)
}

// List returns every job, newest first, or why the records could not be
// read (wrapping store.ErrUnavailable when the database could not be
// reached).
func (q *Queue) List() ([]jobs.Job, error) {
	ctx, cancel := q.op()
	defer cancel()
	recs, err := q.cfg.Meta.Jobs(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing jobs: %w", err)
	}
	out := make([]jobs.Job, 0, len(recs))
	for id, b := range recs {
		j, err := decode(id, b)
		if err != nil {
			return nil, err
		}
		out = append(out, j)
	}
	slices.SortFunc(out, func(a, b jobs.Job) int { return cmp.Or(b.CreatedAt.Compare(a.CreatedAt), cmp.Compare(a.ID, b.ID)) })
	return out, nil
}

// Using lists the jobs, finished or not, that use a data set, oldest
// first, or says why the records could not be read.
func (q *Queue) Using(datasetID string) ([]jobs.Job, error) {
	var out []jobs.Job
	if datasetID == "" {
		return out, nil
	}
	all, err := q.List()
	if err != nil {
		return nil, err
	}
	for _, j := range all {
		if slices.Contains(j.Request.DatasetIDs(), datasetID) {
			out = append(out, j)
		}
	}
	slices.SortFunc(out, func(a, b jobs.Job) int { return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID)) })
	return out, nil
}

// riverJobs returns the ids of the River jobs that run job id and are
// not finished.
func riverJobs(ctx context.Context, tx pgx.Tx, id string) ([]int64, error) {
	rows, err := tx.Query(ctx, `SELECT id FROM river_job WHERE kind = $1 AND args @> jsonb_build_object('id', $2::text)
		AND state NOT IN ('cancelled', 'completed', 'discarded')`, Kind, id)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[int64])
}

// change runs fn on job id's record within a transaction holding it
// locked; fn changes the job (and may use tx) and returns whether to
// store it. The change is announced on NotifyChannel.
func (q *Queue) change(ctx context.Context, id string, fn func(tx pgx.Tx, j *jobs.Job) (bool, error)) (jobs.Job, error) {
	var j jobs.Job
	err := pgx.BeginFunc(ctx, q.pool, func(tx pgx.Tx) error {
		b, err := pgmeta.LockJob(ctx, tx, id)
		if err != nil {
			return err
		}
		if j, err = decode(id, b); err != nil {
			return err
		}
		save, err := fn(tx, &j)
		if err != nil || !save {
			return err
		}
		return q.save(ctx, tx, j)
	})
	return j, err
}

// save stores job j's record within tx, and announces the change on
// NotifyChannel.
func (q *Queue) save(ctx context.Context, tx pgx.Tx, j jobs.Job) error {
	data, err := json.Marshal(j)
	if err != nil {
		return fmt.Errorf("encoding job %s: %w", j.ID, err)
	}
	if err := pgmeta.PutJob(ctx, tx, j.ID, data); err != nil {
		return err
	}
	_, err = tx.Exec(ctx, "SELECT pg_notify($1, $2)", NotifyChannel, j.ID)
	return err
}

// Cancel stops a queued job at once, and a running one at its next check
// of its context, on whichever process runs it. A finished job cannot be
// canceled (jobs.ErrConflict).
func (q *Queue) Cancel(id string) (jobs.Job, error) {
	if !store.ValidID(id) {
		return jobs.Job{}, jobs.ErrNotFound
	}
	ctx, cancel := q.op()
	defer cancel()
	var conflict error
	j, err := q.change(ctx, id, func(tx pgx.Tx, j *jobs.Job) (bool, error) {
		if j.Status.Terminal() {
			conflict = fmt.Errorf("job %s has %s: %w", id, j.Status, jobs.ErrConflict)
			return false, nil
		}
		ids, err := riverJobs(ctx, tx, id)
		if err != nil {
			return false, err
		}
		for _, rid := range ids {
			// A queued River job is canceled here; a running one is
			// marked, and its process told by NOTIFY on commit.
			if _, err := q.client.JobCancelTx(ctx, tx, rid); err != nil {
				return false, err
			}
		}
		if j.Status == jobs.Queued {
			// Even if a worker has just taken its River job: that worker
			// finds the record canceled and does not run it.
			now := q.cfg.Now().UTC()
			j.Status, j.Phase, j.FinishedAt = jobs.Canceled, "canceled", &now
		} else {
			j.Phase = "canceling"
		}
		return true, nil
	})
	if err != nil {
		return jobs.Job{}, q.fail("canceling job "+id, notFound(err))
	}
	if conflict != nil {
		return j, conflict
	}
	return j, nil
}

// Delete removes a job that is not running, with its record, its
// selections and its results.
func (q *Queue) Delete(id string) error {
	if !store.ValidID(id) {
		return jobs.ErrNotFound
	}
	ctx, cancel := q.op()
	defer cancel()
	var conflict error
	err := pgx.BeginFunc(ctx, q.pool, func(tx pgx.Tx) error {
		b, err := pgmeta.LockJob(ctx, tx, id)
		if err != nil {
			return err
		}
		j, err := decode(id, b)
		if err != nil {
			return err
		}
		if j.Status == jobs.Running {
			conflict = fmt.Errorf("job %s is running; cancel it first: %w", id, jobs.ErrConflict)
			return nil
		}
		ids, err := riverJobs(ctx, tx, id)
		if err != nil {
			return err
		}
		for _, rid := range ids {
			if _, err := q.client.JobCancelTx(ctx, tx, rid); err != nil {
				return err
			}
		}
		if err := pgmeta.DeleteJobTx(ctx, tx, id); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, "SELECT pg_notify($1, $2)", NotifyChannel, id)
		return err
	})
	if errors.Is(err, store.ErrNotFound) {
		return jobs.ErrNotFound
	}
	if err != nil {
		return q.fail("deleting job "+id, err)
	}
	if conflict != nil {
		return conflict
	}
	q.closeSubs(id)
	return q.cfg.Results.RemoveJobResults(id)
}

// Running returns the ids of the jobs this process runs.
func (q *Queue) Running() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := make([]string, 0, len(q.running))
	for id := range q.running {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// Shutdown stops the queue: no job starts here any more; running jobs
// finish (drain) until ctx is done, then are canceled and queued again,
// for any worker process. It returns when they have stopped.
func (q *Queue) Shutdown(ctx context.Context) error {
	q.mu.Lock()
	q.stopping = true
	q.mu.Unlock()
	var err error
	if q.cfg.Execute != nil {
		if err = q.client.Stop(ctx); err != nil {
			// stop-and-cancel: interrupted jobs are queued again.
			sctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			if serr := q.client.StopAndCancel(sctx); serr != nil {
				q.cfg.Logger.Error("stopping the job queue's workers", "err", serr)
			}
			cancel()
		}
	}
	q.cancel()
	q.wg.Wait()
	q.dropLease()
	return err
}
