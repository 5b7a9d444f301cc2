package sharedjobs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/jackc/pgx/v5"

	"mldr/internal/jobs"
	"mldr/internal/pgmeta"
)

// Leases. Every process of the queue holds a lease in the database
// (table worker_leases, keyed by the process's River client id, which
// River writes into river_job.attempted_by when the process takes a
// queue entry) and renews it every Config.Lease/5, on the database's
// clock. A queue entry that is still running while the process that took
// it has let its lease lapse (Config.Lease without a renewal, so it died,
// froze or lost the database) is taken back (Reclaim) by whichever
// process looks first: every process looks every Config.Lease/5, once it
// has itself renewed its lease without a failure for a whole
// Config.Lease (so that after an outage of the database, which stops
// every renewal, the processes that are alive renew theirs before anyone
// judges them). Processes looking at once take turns through row locks
// that they skip rather than wait for.
//
// A job's entry is taken back by ending it (discarded, so that River's
// completion of it by a process that comes back finds it no longer
// running and changes nothing) and inserting a new one, with the record
// queued again, in one transaction; a shard task's entry is made
// available again (its statistics are the same whoever forms them).
//
// Fencing. A run holds its job as long as the record is running its
// attempt (jobs.Job.Attempts, counted by the record, one more at every
// start); a run starts only on an entry that is still this process's.
// Every write of a run's progress or outcome is made under the record's
// row lock after that check, so a run whose job was taken back writes
// nothing: its progress is dropped, its work canceled, its results
// (sealed in the staging directory by the worker, store.Files.SealJobResults)
// discarded rather than moved into place. The results of a run that
// holds its job are moved into place within the transaction that records
// it as succeeded, under the same lock, which the taking back also
// needs.

// DefaultLease is Config.Lease's default.
const DefaultLease = 15 * time.Second

// staleLease is how long after it lapsed a lease is forgotten: its
// process is long gone, and any queue entry it held was taken back.
const staleLease = 24 * time.Hour

// errFenced cancels the work of a run whose job was taken back.
var errFenced = errors.New("the job was taken back from this process (its lease lapsed) and runs elsewhere")

// newLeaseID names this process's lease and River client: host, pid and
// a random part, unique however many queues a process opens.
func newLeaseID() string {
	host, _ := os.Hostname()
	if host == "" {
		host = "host"
	}
	var b [4]byte
	rand.Read(b[:])
	return fmt.Sprintf("%s_%d_%s", host, os.Getpid(), hex.EncodeToString(b[:]))
}

// renew renews the process's lease, and keeps when its renewals began to
// succeed without a failure. After a gap longer than a lease, it checks
// the runs of this process: their jobs may have been taken back.
func (q *Queue) renew() error {
	if q.leasePaused.Load() {
		return nil
	}
	ctx, cancel := context.WithTimeout(q.ctx, q.cfg.Lease/3)
	defer cancel()
	_, err := q.pool.Exec(ctx, `INSERT INTO worker_leases (id, expires_at) VALUES ($1, now() + $2 * interval '1 millisecond')
		ON CONFLICT (id) DO UPDATE SET expires_at = excluded.expires_at`, q.leaseID, q.cfg.Lease.Milliseconds())
	now := time.Now()
	q.mu.Lock()
	gap := now.Sub(q.renewed)
	lapsed := err == nil && !q.renewed.IsZero() && gap > q.cfg.Lease
	// Renewals that failed (an outage of the database, which stops every
	// renewal and so every taking back) are not a frozen process's.
	frozen := lapsed && !q.renewedSince.IsZero()
	switch {
	case err != nil:
		q.renewedSince = time.Time{}
	case q.renewedSince.IsZero():
		q.renewedSince = now
	}
	if err == nil {
		q.renewed = now
	}
	q.mu.Unlock()
	if frozen {
		q.cfg.Logger.Warn("this process renewed no lease for longer than a lease (was it paused?); its runs whose jobs were taken back stop",
			"lease", q.leaseID, "for", gap.Round(time.Second).String())
	}
	if lapsed {
		q.checkFences()
	}
	if err != nil {
		return q.fail("renewing this process's lease", err)
	}
	return nil
}

// healthy reports whether this process has renewed its lease without a
// failure for at least a whole lease, as a process must before it
// judges another's.
func (q *Queue) healthy() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return !q.renewedSince.IsZero() && time.Since(q.renewedSince) >= q.cfg.Lease
}

// renewOnce renews the lease, once every Config.Lease/5 (every).
func (q *Queue) renewOnce() {
	if err := q.renew(); err != nil {
		q.logFailure("renewing this process's lease", err)
	}
}

// reclaimOnce takes back the entries of lapsed leases, once every
// Config.Lease/5 (every), if this process is healthy.
func (q *Queue) reclaimOnce() {
	if !q.healthy() {
		return
	}
	ctx, cancel := q.op()
	defer cancel()
	if _, err := q.Reclaim(ctx); err != nil {
		q.logFailure("taking back the jobs of lapsed leases", err)
	}
}

// every calls fn every d until the queue stops.
func (q *Queue) every(d time.Duration, fn func()) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-q.ctx.Done():
			return
		case <-t.C:
			fn()
		}
	}
}

// dropLease removes this process's lease as the queue stops: its entries
// have been queued again, and any left running are then taken back a
// lease after they began.
func (q *Queue) dropLease() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := q.pool.Exec(ctx, "DELETE FROM worker_leases WHERE id = $1", q.leaseID); err != nil {
		q.logFailure("removing this process's lease", err)
	}
}

// lostWhere is the condition on river_job j of an entry whose process
// has let its lease lapse (or has none) and that began more than a lease
// ago ($1: the lease in milliseconds).
const lostWhere = `j.state = 'running'
	AND NOT EXISTS (SELECT 1 FROM worker_leases l WHERE l.id = j.attempted_by[array_length(j.attempted_by, 1)] AND l.expires_at > now())
	AND j.attempted_at < now() - $1 * interval '1 millisecond'`

// Reclaim takes back the queue entries whose process has let its lease
// lapse: a job's entry ends (discarded) and the job is queued again under
// a new one, or fails when its runs were interrupted jobs.MaxAttempts
// times, or ends canceled when a user had canceled it; a shard task's
// entry is made available again. Each is checked again under the row
// locks, which it skips when another process holds them. It returns the
// ids of the jobs queued again or ended, and of the shard tasks' jobs.
// The leases of processes gone for more than staleLease are forgotten.
func (q *Queue) Reclaim(ctx context.Context) ([]string, error) {
	if _, err := q.pool.Exec(ctx, "DELETE FROM worker_leases WHERE expires_at < now() - $1 * interval '1 millisecond'", staleLease.Milliseconds()); err != nil {
		return nil, q.fail("forgetting the leases of processes long gone", err)
	}
	rows, err := q.pool.Query(ctx, `SELECT j.id, j.kind, j.args->>'id' FROM river_job j
		WHERE `+lostWhere+` AND j.kind = ANY($2::text[]) ORDER BY j.id`, q.cfg.Lease.Milliseconds(), []string{Kind, ShardKind})
	if err != nil {
		return nil, q.fail("finding the jobs of lapsed leases", err)
	}
	type entry struct {
		rid      int64
		kind, id string
	}
	lost, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (entry, error) {
		var e entry
		return e, r.Scan(&e.rid, &e.kind, &e.id)
	})
	if err != nil {
		return nil, q.fail("finding the jobs of lapsed leases", err)
	}
	var done []string
	for _, e := range lost {
		var took bool
		err := pgx.BeginFunc(ctx, q.pool, func(tx pgx.Tx) error {
			var err error
			if e.kind == ShardKind {
				took, err = q.reclaimShard(ctx, tx, e.rid)
			} else {
				took, err = q.reclaimRun(ctx, tx, e.rid, e.id)
			}
			return err
		})
		if err != nil {
			return done, q.fail("taking back job "+e.id, err)
		}
		if took {
			done = append(done, e.id)
		}
	}
	return done, nil
}

// lockLost locks queue entry rid if it is still lost (lostWhere) and no
// other transaction holds it.
func (q *Queue) lockLost(ctx context.Context, tx pgx.Tx, rid int64) (bool, error) {
	var one int
	err := tx.QueryRow(ctx, `SELECT 1 FROM river_job j WHERE j.id = $2 AND `+lostWhere+` FOR UPDATE SKIP LOCKED`,
		q.cfg.Lease.Milliseconds(), rid).Scan(&one)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// reclaimShard makes a lost shard task's entry available again.
func (q *Queue) reclaimShard(ctx context.Context, tx pgx.Tx, rid int64) (bool, error) {
	if ok, err := q.lockLost(ctx, tx, rid); !ok || err != nil {
		return false, err
	}
	_, err := tx.Exec(ctx, `UPDATE river_job SET state = 'available', scheduled_at = now() WHERE id = $1`, rid)
	return err == nil, err
}

// reclaimRun takes back a lost job entry rid of job id: the record first
// (the order every change of a job takes), then the entry.
func (q *Queue) reclaimRun(ctx context.Context, tx pgx.Tx, rid int64, id string) (bool, error) {
	b, ok, missing, err := pgmeta.TryLockJob(ctx, tx, id)
	if err != nil || (!ok && !missing) {
		return false, err // another process is changing the job: next time
	}
	if ok, err := q.lockLost(ctx, tx, rid); !ok || err != nil {
		return false, err
	}
	end := func(state, why string) error {
		_, err := tx.Exec(ctx, `UPDATE river_job SET state = $2, finalized_at = now(),
			metadata = metadata || jsonb_build_object('mldr_taken_back', $3::text) WHERE id = $1`, rid, state, why)
		return err
	}
	if missing {
		return true, end("cancelled", "the job was deleted")
	}
	j, err := decode(id, b)
	if err != nil {
		return false, err
	}
	now := q.cfg.Now().UTC()
	requeue := false
	switch {
	case j.Status.Terminal():
		// Its outcome is recorded; its process died before River heard.
		state := "completed"
		if j.Status == jobs.Canceled {
			state = "cancelled"
		}
		return true, end(state, "its outcome was recorded")
	case j.Phase == "canceling":
		j.Status, j.Phase, j.FinishedAt = jobs.Canceled, "canceled", &now
		err = end("cancelled", "canceled by a user; its worker process was lost")
	case j.Status == jobs.Running && j.Attempts >= jobs.MaxAttempts:
		j.Status, j.Error, j.FinishedAt = jobs.Failed, fmt.Sprintf("interrupted by restart (%d times)", j.Attempts), &now
		err = end("discarded", "its runs were interrupted too often")
	default:
		j.Status, j.Phase, j.Message, j.Progress, j.StartedAt, j.Phases = jobs.Queued, "queued again: its worker process stopped answering", "", 0, nil, nil
		requeue = true
		err = end("discarded", "the lease of its worker process lapsed; the job runs under a new entry")
	}
	if err != nil {
		return false, err
	}
	if requeue {
		if _, err := q.client.InsertTx(ctx, tx, runArgs{ID: id}, nil); err != nil {
			return false, err
		}
	}
	if err := q.save(ctx, tx, j); err != nil {
		return false, err
	}
	q.cfg.Logger.Info("a job whose worker process let its lease lapse was taken back", "id", id, "status", j.Status, "attempts", j.Attempts)
	return true, nil
}

// entryIsMine reports, within tx, whether queue entry rid is still
// running as this process's: a lapsed lease may have had it taken back
// while this process was paused.
func (q *Queue) entryIsMine(ctx context.Context, tx pgx.Tx, rid int64) (bool, error) {
	var mine bool
	err := tx.QueryRow(ctx, `SELECT state = 'running' AND attempted_by[array_length(attempted_by, 1)] = $2
		FROM river_job WHERE id = $1`, rid, q.leaseID).Scan(&mine)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	return mine, err
}

// checkFences reads the record of every job this process runs and stops
// the runs whose job is no longer theirs.
func (q *Queue) checkFences() {
	q.mu.Lock()
	runs := make(map[string]*run, len(q.running))
	for id, r := range q.running {
		runs[id] = r
	}
	q.mu.Unlock()
	for id, r := range runs {
		j, err := q.Get(id)
		switch {
		case errors.Is(err, jobs.ErrNotFound):
			r.fence()
		case err != nil:
			q.logFailure("checking that a run still holds its job", err, "id", id)
		case !r.holds(j):
			r.fence()
		}
	}
}
