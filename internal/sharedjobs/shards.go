package sharedjobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"mldr/internal/jobs"
	"mldr/internal/store"
)

// Out-of-core jobs across workers. A job that runs out of
// core (jobs.ShardTasks) first has its statistics formed by shard tasks:
// the process that took the job inserts one River job per method and row
// shard (kind ShardKind, queue ShardQueue), which any worker process runs
// (in one of its worker children, as a job: jobs.Job.Task) and which
// write their statistics to the shared data directory
// (store.Files.WritePartial). When every one has ended, the job runs as
// usual: it reads the statistics the tasks formed, forms any that are
// missing itself (a task that failed), merges them, solves, and projects
// the rows in one pass over the shards.
//
// The shard tasks have their own River queue, so that they run while the
// jobs waiting for them hold the slots of the default one; a process runs
// at most Config.Workers worker children at once whatever they do (its
// slots), so that its memory stays what -workers × -max-job-memory
// allows. A task belongs to one attempt of its job: one whose job is no
// longer running that attempt does nothing. A canceled job cancels its
// tasks.

// ShardKind is the River job kind of a shard task, and ShardQueue the
// River queue shard tasks run on.
const (
	ShardKind  = "mldr_shard"
	ShardQueue = "mldr_shards"
	// shardAttempts is how many times River runs a shard task that
	// fails before it gives up (the job then forms those statistics
	// itself).
	shardAttempts = 3
)

// shardArgs are a shard task's arguments: the job, the attempt it serves
// and the piece.
type shardArgs struct {
	ID      string `json:"id"`
	Attempt int    `json:"attempt"`
	Method  int    `json:"method"`
	Shard   int    `json:"shard"`
}

// Kind names the River job kind.
func (shardArgs) Kind() string { return ShardKind }

// InsertOpts puts shard tasks on their own queue.
func (shardArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: ShardQueue, MaxAttempts: shardAttempts}
}

// shardWorker is River's worker of the kind ShardKind.
type shardWorker struct {
	river.WorkerDefaults[shardArgs]
	q *Queue
}

// Work runs one shard task; an error makes River run it again.
func (w *shardWorker) Work(ctx context.Context, rj *river.Job[shardArgs]) error {
	return w.q.runShard(ctx, rj.Args)
}

// runShard forms the statistics of one shard task, unless its job no
// longer runs the attempt the task serves.
func (q *Queue) runShard(ctx context.Context, a shardArgs) error {
	j, err := q.Get(a.ID)
	if errors.Is(err, jobs.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if j.Status != jobs.Running || j.Attempts != a.Attempt {
		return nil // the job ended, or runs again under another attempt
	}
	release, err := q.slot(ctx)
	if err != nil {
		return err
	}
	defer release()
	task := jobs.Job{ID: j.ID, Status: jobs.Running, Request: j.Request, Attempts: a.Attempt,
		Task: &jobs.ShardTask{Attempt: a.Attempt, Method: a.Method, Shard: a.Shard}}
	if _, err := q.execute(ctx, task, func(float64, string, string) {}); err != nil {
		q.cfg.Logger.Warn("a shard task failed", "id", a.ID, "attempt", a.Attempt, "method", a.Method+1, "shard", a.Shard+1, "err", err)
		return err
	}
	return nil
}

// slot waits for one of the process's Config.Workers slots of work, and
// returns its release.
func (q *Queue) slot(ctx context.Context) (func(), error) {
	select {
	case q.slots <- struct{}{}:
		return func() { <-q.slots }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// formShards has the statistics of job's out-of-core run formed by shard
// tasks, when it runs out of core, and waits until every task has ended.
// It reports the tasks done, and returns when ctx ends (canceling the
// tasks left) with its error.
func (q *Queue) formShards(ctx context.Context, job jobs.Job, report jobs.Report) error {
	if q.cfg.ShardTasks == nil {
		return nil
	}
	tasks, err := q.cfg.ShardTasks(job, job.Attempts)
	if err != nil || len(tasks) < 2 {
		return err // an error here is the run's own, which it finds again
	}
	params := make([]river.InsertManyParams, len(tasks))
	for i, t := range tasks {
		params[i] = river.InsertManyParams{Args: shardArgs{ID: job.ID, Attempt: t.Attempt, Method: t.Method, Shard: t.Shard}}
	}
	octx, cancel := q.op()
	res, err := q.client.InsertMany(octx, params)
	cancel()
	if err != nil {
		return q.fail("queueing the shard tasks of job "+job.ID, err)
	}
	ids := make([]int64, len(res))
	for i, r := range res {
		ids[i] = r.Job.ID
	}
	report(0.02, "fitting the shards' statistics", fmt.Sprintf("0 of %d shard tasks done", len(ids)))
	t := time.NewTicker(q.cfg.ProgressEvery)
	defer t.Stop()
	for {
		done, workers, err := q.shardsDone(ctx, ids)
		switch {
		case err != nil && ctx.Err() == nil:
			q.logFailure("reading the state of shard tasks", err, "id", job.ID)
		case err == nil:
			report(0.02+0.7*float64(done)/float64(len(ids)), "fitting the shards' statistics",
				fmt.Sprintf("%d of %d shard tasks done, on %d worker processes", done, len(ids), workers))
			if done == len(ids) {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			q.cancelShards(ids)
			return ctx.Err()
		case <-t.C:
		}
	}
}

// shardsDone counts the River jobs of ids that have ended, and the
// processes that ran the completed ones.
func (q *Queue) shardsDone(ctx context.Context, ids []int64) (done, workers int, err error) {
	octx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	err = q.pool.QueryRow(octx, `SELECT count(*) FILTER (WHERE state IN ('completed', 'cancelled', 'discarded')),
		count(DISTINCT attempted_by[array_length(attempted_by, 1)]) FILTER (WHERE state = 'completed')
		FROM river_job WHERE id = ANY($1)`, ids).Scan(&done, &workers)
	return done, workers, err
}

// cancelShards cancels the shard tasks of ids that have not ended.
func (q *Queue) cancelShards(ids []int64) {
	ctx, cancel := q.op()
	defer cancel()
	for _, id := range ids {
		if _, err := q.client.JobCancel(ctx, id); err != nil && !errors.Is(err, river.ErrNotFound) {
			q.logFailure("canceling a shard task", err, "river_job", id)
		}
	}
}

// removePartials removes what a job's shard tasks wrote, once it has
// ended or is queued again (a new attempt has tasks of its own).
func (q *Queue) removePartials(id string) {
	if err := q.cfg.Results.RemovePartials(id); err != nil && !errors.Is(err, store.ErrNotFound) {
		q.cfg.Logger.Warn("removing a job's partial statistics", "id", id, "err", err)
	}
}
