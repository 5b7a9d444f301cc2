package pgmeta

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
)

// PutSession records a login session by the digest of its id, until exp,
// and forgets the sessions that have expired (auth.Sessions).
func (m *Meta) PutSession(ctx context.Context, key [32]byte, exp time.Time) error {
	ctx, cancel := m.op(ctx)
	defer cancel()
	if _, err := m.pool.Exec(ctx, "DELETE FROM sessions WHERE expires_at <= now()"); err != nil {
		return m.failOn("sessions", err)
	}
	if _, err := m.pool.Exec(ctx, "INSERT INTO sessions (key, expires_at) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET expires_at = EXCLUDED.expires_at", key[:], exp); err != nil {
		return m.failOn("sessions", err)
	}
	return nil
}

// Session returns the expiry of the session whose id has digest key; ok
// is false for a session never opened or ended (auth.Sessions).
func (m *Meta) Session(ctx context.Context, key [32]byte) (exp time.Time, ok bool, err error) {
	ctx, cancel := m.op(ctx)
	defer cancel()
	err = m.pool.QueryRow(ctx, "SELECT expires_at FROM sessions WHERE key = $1", key[:]).Scan(&exp)
	if errors.Is(err, pgx.ErrNoRows) {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, false, m.failOn("sessions", err)
	}
	return exp, true, nil
}

// DeleteSession ends the session whose id has digest key, on every
// process; ending one that is not there is no error (auth.Sessions).
func (m *Meta) DeleteSession(ctx context.Context, key [32]byte) error {
	ctx, cancel := m.op(ctx)
	defer cancel()
	if _, err := m.pool.Exec(ctx, "DELETE FROM sessions WHERE key = $1", key[:]); err != nil {
		return m.failOn("sessions", err)
	}
	return nil
}
