package sharedjobs

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"mldr/internal/jobs"
)

// SweepEvery is how often a process that runs jobs repairs the records
// whose River job ended without them (Sweep).
const SweepEvery = time.Minute

// Sweep ends the records that say queued or running while no River job
// of theirs is left to run them, which happens when River ends a job
// without its worker: one interrupted by more shutdowns than River's
// attempts (River discards it), or a job canceled while running whose
// worker process then died, when River's rescuer (the backstop behind
// the leases) cancels it. Such a record
// would otherwise say "running" for ever. A record canceled by a user
// ends canceled, any other failed with a message saying what happened.
// Each record is checked again under its row lock, so a sweep never ends
// a job a worker is running or has just been given. It returns the ids of
// the records it ended.
func (q *Queue) Sweep(ctx context.Context) ([]string, error) {
	all, err := q.List()
	if err != nil {
		return nil, fmt.Errorf("sweeping the job records: %w", err)
	}
	var ended []string
	for _, j := range all {
		if j.Status.Terminal() {
			continue
		}
		var done bool
		_, err := q.change(ctx, j.ID, func(tx pgx.Tx, j *jobs.Job) (bool, error) {
			if j.Status.Terminal() {
				return false, nil
			}
			live, err := riverJobs(ctx, tx, j.ID)
			if err != nil || len(live) > 0 {
				return false, err
			}
			var last string
			err = tx.QueryRow(ctx, `SELECT coalesce((SELECT state::text FROM river_job WHERE kind = $1
				AND args @> jsonb_build_object('id', $2::text) ORDER BY id DESC LIMIT 1), '')`, Kind, j.ID).Scan(&last)
			if err != nil {
				return false, err
			}
			now := q.cfg.Now().UTC()
			switch {
			case j.Phase == "canceling" || last == "cancelled" && j.Status == jobs.Queued:
				j.Status, j.Phase = jobs.Canceled, "canceled"
			case last == "discarded":
				j.Status, j.Error = jobs.Failed, fmt.Sprintf("the job was interrupted %d times (by shutdowns or lost workers) and given up; run it again", riverMaxAttempts)
			default:
				j.Status, j.Error = jobs.Failed, fmt.Sprintf("the job's queue entry ended (%s) without it; run it again", stateOr(last, "missing"))
			}
			j.FinishedAt = &now
			done = true
			return true, nil
		})
		if err != nil {
			return ended, q.fail("sweeping job "+j.ID, err)
		}
		if done {
			q.cfg.Logger.Warn("a job's record outlived its queue entry; ended it", "id", j.ID)
			ended = append(ended, j.ID)
		}
	}
	return ended, nil
}

func stateOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// sweepOnce runs Sweep, once every SweepEvery (every).
func (q *Queue) sweepOnce() {
	ctx, cancel := q.op()
	defer cancel()
	if _, err := q.Sweep(ctx); err != nil {
		q.logFailure("sweeping the job records", err)
	}
}
