package pgmeta

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"mldr/internal/store"
)

// The job records within a caller's transaction, for the shared job
// queue: it changes a job's record together with its queue entry, and
// under a row lock, so that processes changing the same job (a web
// process canceling it, a worker process starting it) take turns.

// LockJob reads job id's record within tx and locks it (FOR UPDATE) until
// tx ends. A missing record is an error wrapping store.ErrNotFound.
func LockJob(ctx context.Context, tx pgx.Tx, id string) ([]byte, error) {
	var b []byte
	err := tx.QueryRow(ctx, "SELECT record FROM jobs WHERE id = $1 FOR UPDATE", id).Scan(&b)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("job %s: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("reading job %s: table jobs: %w", id, err)
	}
	return b, nil
}

// TryLockJob is LockJob for a caller that must not wait: ok is false,
// with no error, when another transaction holds the record, and missing
// is true when there is no record id.
func TryLockJob(ctx context.Context, tx pgx.Tx, id string) (b []byte, ok, missing bool, err error) {
	err = tx.QueryRow(ctx, "SELECT record FROM jobs WHERE id = $1 FOR UPDATE SKIP LOCKED", id).Scan(&b)
	if err == nil {
		return b, true, false, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return nil, false, false, fmt.Errorf("reading job %s: table jobs: %w", id, err)
	}
	var exists bool
	if err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM jobs WHERE id = $1)", id).Scan(&exists); err != nil {
		return nil, false, false, fmt.Errorf("reading job %s: table jobs: %w", id, err)
	}
	return nil, false, !exists, nil
}

// PutJob inserts or replaces job id's record within tx.
func PutJob(ctx context.Context, tx pgx.Tx, id string, data []byte) error {
	_, err := tx.Exec(ctx, `INSERT INTO jobs (id, record) VALUES ($1, $2)
		ON CONFLICT (id) DO UPDATE SET record = excluded.record, updated_at = now()`, id, data)
	if err != nil {
		return fmt.Errorf("storing job %s: table jobs: %w", id, err)
	}
	return nil
}

// DeleteJobTx deletes job id's selections and record within tx.
func DeleteJobTx(ctx context.Context, tx pgx.Tx, id string) error {
	if _, err := tx.Exec(ctx, "DELETE FROM selections WHERE job = $1", id); err != nil {
		return fmt.Errorf("deleting job %s: table selections: %w", id, err)
	}
	if _, err := tx.Exec(ctx, "DELETE FROM jobs WHERE id = $1", id); err != nil {
		return fmt.Errorf("deleting job %s: table jobs: %w", id, err)
	}
	return nil
}

// JobRecord reads job id's record, or an error wrapping
// store.ErrNotFound.
func (m *Meta) JobRecord(ctx context.Context, id string) ([]byte, error) {
	ctx, cancel := m.op(ctx)
	defer cancel()
	var b []byte
	err := m.pool.QueryRow(ctx, "SELECT record FROM jobs WHERE id = $1", id).Scan(&b)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("job %s: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return nil, m.failOn("jobs", err)
	}
	return b, nil
}
