// Package pgmeta keeps the store's metadata (store.Meta) in PostgreSQL,
// for the shared mode: several processes, on one or several machines,
// over one database and one data location.
//
// Open connects (pgxpool), applies the product's migrations (embedded
// from migrations/, versioned in schema_migrations, forward-only) under
// a PostgreSQL advisory lock so that processes starting together migrate
// once, and refuses a database that a newer binary has migrated. Records
// are stored as bytea, so the store reads back the very bytes it wrote.
// Every error says what was being done and names the database by host,
// port and name, never by its password; one that means the database
// could not be reached wraps store.ErrUnavailable (health.go).
package pgmeta

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"mldr/internal/store"
)

// Config configures Open.
type Config struct {
	// URL is the database, postgres://user:password@host:port/name?… or
	// any form pgx accepts (key=value pairs, PG* environment variables).
	URL string
	// Logger receives the migrations applied; nil discards.
	Logger *slog.Logger
	// OpTimeout bounds each operation; 0 means DefaultOpTimeout.
	OpTimeout time.Duration
	// Migrate, if not nil, applies more migrations (the job queue's) after
	// the product's, under the same advisory lock, so that processes
	// starting together do not race. It may use any connection of pool.
	Migrate func(ctx context.Context, pool *pgxpool.Pool) error
}

// DefaultOpTimeout bounds one metadata operation when Config.OpTimeout
// is 0.
const DefaultOpTimeout = time.Minute

// connectTimeout bounds a connection's set-up when the URL sets none.
const connectTimeout = 10 * time.Second

// minPoolConns is the least pool size when the URL sets none
// (pool_max_conns): the job queue holds connections of its own (River's
// listener and producers, the progress listener), which pgx's default of
// four, on a machine of few cores, would starve.
const minPoolConns = 16

// Meta is the metadata in PostgreSQL. It implements store.Meta; its
// methods are safe for concurrent use.
type Meta struct {
	pool     *pgxpool.Pool
	where    string // host:port/database, for messages and logs
	log      *slog.Logger
	timeout  time.Duration
	instance string
	health   health
	stop     context.CancelFunc // ends the watch
	watched  chan struct{}      // closed when the watch has ended
}

var _ store.Meta = (*Meta)(nil)

// Where describes a database URL for messages and logs:
// "host:port/name as user", never the password. It returns an error if
// the URL cannot be read; the error does not contain the password either.
func Where(url string) (string, error) {
	cfg, err := pgconn.ParseConfig(url)
	if err != nil {
		return "", fmt.Errorf("the database URL is not valid: %w", err)
	}
	return describe(cfg), nil
}

func describe(cfg *pgconn.Config) string {
	return net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port))) + "/" + cfg.Database + " as " + cfg.User
}

// Open connects to the database, applies the migrations it lacks and
// returns its metadata store.
func Open(ctx context.Context, cfg Config) (*Meta, error) {
	pcfg, err := pgxpool.ParseConfig(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("the database URL is not valid: %w", err)
	}
	if pcfg.ConnConfig.ConnectTimeout == 0 {
		pcfg.ConnConfig.ConnectTimeout = connectTimeout
	}
	if !strings.Contains(cfg.URL, "pool_max_conns") {
		pcfg.MaxConns = max(pcfg.MaxConns, minPoolConns)
	}
	m := &Meta{where: describe(&pcfg.ConnConfig.Config), log: cfg.Logger, timeout: cfg.OpTimeout, health: health{poke: make(chan struct{}, 1), asks: make(chan chan error)}}
	probeCfg := pcfg.ConnConfig.Copy()
	probeCfg.ConnectTimeout = probeTimeout
	m.guardPool(pcfg)
	if m.log == nil {
		m.log = slog.New(slog.DiscardHandler)
	}
	if m.timeout <= 0 {
		m.timeout = DefaultOpTimeout
	}
	migs, err := Migrations()
	if err != nil {
		return nil, err
	}
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		return nil, m.fail("connecting", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, m.fail("connecting", err)
	}
	if err := m.migrate(ctx, pool, migs, cfg.Migrate); err != nil {
		pool.Close()
		return nil, err
	}
	if err := pool.QueryRow(ctx, "SELECT id FROM instance").Scan(&m.instance); err != nil {
		pool.Close()
		return nil, m.fail("reading the database's identity", err)
	}
	m.pool = pool
	wctx, stop := context.WithCancel(context.Background())
	m.stop, m.watched = stop, make(chan struct{})
	go func() {
		defer close(m.watched)
		m.watch(wctx, probeCfg)
	}()
	return m, nil
}

// fail wraps err with what was being done and where (and
// store.ErrUnavailable when the database could not be reached).
func (m *Meta) fail(what string, err error) error {
	return fmt.Errorf("%s: PostgreSQL at %s: %w", what, m.where, Classify(err))
}

// failOn wraps the error of an operation on table. The store that calls
// the operation says what it was doing; this says where (and
// store.ErrUnavailable when the database could not be reached).
func (m *Meta) failOn(table string, err error) error {
	return fmt.Errorf("PostgreSQL at %s, table %s: %w", m.where, table, Classify(err))
}

// op bounds one operation by the timeout.
func (m *Meta) op(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, m.timeout)
}

// Where returns the database as "host:port/name as user".
func (m *Meta) Where() string { return m.where }

// Instance returns the database's identity, made by its first migration.
func (m *Meta) Instance() string { return m.instance }

// Pool returns the connection pool, for what shares the database with
// the metadata (the shared mode's job queue).
func (m *Meta) Pool() *pgxpool.Pool { return m.pool }

// Close ends the watch and closes the connections.
func (m *Meta) Close() error {
	m.stop()
	<-m.watched
	m.pool.Close()
	return nil
}

// Datasets decodes every data set record.
func (m *Meta) Datasets(ctx context.Context) ([]store.DatasetRecord, error) {
	ctx, cancel := m.op(ctx)
	defer cancel()
	rows, err := m.pool.Query(ctx, "SELECT id, record FROM datasets")
	if err != nil {
		return nil, m.failOn("datasets", err)
	}
	var out []store.DatasetRecord
	var id string
	var b []byte
	_, err = pgx.ForEachRow(rows, []any{&id, &b}, func() error {
		var r store.DatasetRecord
		if err := json.Unmarshal(b, &r); err != nil {
			return fmt.Errorf("decoding data set %s: %w", id, err)
		}
		out = append(out, r)
		return nil
	})
	if err != nil {
		return nil, m.failOn("datasets", err)
	}
	return out, nil
}

// Dataset decodes one record.
func (m *Meta) Dataset(ctx context.Context, id string) (store.DatasetRecord, error) {
	ctx, cancel := m.op(ctx)
	defer cancel()
	var r store.DatasetRecord
	var b []byte
	err := m.pool.QueryRow(ctx, "SELECT record FROM datasets WHERE id = $1", id).Scan(&b)
	if errors.Is(err, pgx.ErrNoRows) {
		return r, fmt.Errorf("data set %s: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return r, m.failOn("datasets", err)
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, m.failOn("datasets", fmt.Errorf("decoding it: %w", err))
	}
	return r, nil
}

// PutDataset inserts or replaces a record.
func (m *Meta) PutDataset(ctx context.Context, rec store.DatasetRecord) error {
	ctx, cancel := m.op(ctx)
	defer cancel()
	b, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encoding data set %s: %w", rec.ID, err)
	}
	_, err = m.pool.Exec(ctx, `INSERT INTO datasets (id, gen, created_at, record) VALUES ($1, $2, $3, $4)
		ON CONFLICT (id) DO UPDATE SET gen = excluded.gen, created_at = excluded.created_at, record = excluded.record`,
		rec.ID, rec.Gen, rec.CreatedAt, b)
	if err != nil {
		return m.failOn("datasets", err)
	}
	return nil
}

// UpdateDataset replaces the record if its generation is still gen.
func (m *Meta) UpdateDataset(ctx context.Context, id string, gen int, next store.DatasetRecord) error {
	ctx, cancel := m.op(ctx)
	defer cancel()
	b, err := json.Marshal(next)
	if err != nil {
		return fmt.Errorf("encoding data set %s: %w", id, err)
	}
	tag, err := m.pool.Exec(ctx, "UPDATE datasets SET gen = $3, created_at = $4, record = $5 WHERE id = $1 AND gen = $2",
		id, gen, next.Gen, next.CreatedAt, b)
	if err != nil {
		return m.failOn("datasets", err)
	}
	if tag.RowsAffected() == 1 {
		return nil
	}
	var cur int
	err = m.pool.QueryRow(ctx, "SELECT gen FROM datasets WHERE id = $1", id).Scan(&cur)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return fmt.Errorf("data set %s: %w", id, store.ErrNotFound)
	case err != nil:
		return m.failOn("datasets", err)
	}
	return fmt.Errorf("data set %s is at generation %d, not %d: %w", id, cur, gen, store.ErrConflict)
}

// DeleteDataset deletes a record.
func (m *Meta) DeleteDataset(ctx context.Context, id string) error {
	ctx, cancel := m.op(ctx)
	defer cancel()
	if _, err := m.pool.Exec(ctx, "DELETE FROM datasets WHERE id = $1", id); err != nil {
		return m.failOn("datasets", err)
	}
	return nil
}

// SaveJob inserts or replaces a job record.
func (m *Meta) SaveJob(ctx context.Context, id string, data []byte) error {
	ctx, cancel := m.op(ctx)
	defer cancel()
	_, err := m.pool.Exec(ctx, `INSERT INTO jobs (id, record) VALUES ($1, $2)
		ON CONFLICT (id) DO UPDATE SET record = excluded.record, updated_at = now()`, id, data)
	if err != nil {
		return m.failOn("jobs", err)
	}
	return nil
}

// Jobs reads every job record.
func (m *Meta) Jobs(ctx context.Context) (map[string][]byte, error) {
	ctx, cancel := m.op(ctx)
	defer cancel()
	rows, err := m.pool.Query(ctx, "SELECT id, record FROM jobs")
	if err != nil {
		return nil, m.failOn("jobs", err)
	}
	out := map[string][]byte{}
	var id string
	var b []byte
	_, err = pgx.ForEachRow(rows, []any{&id, &b}, func() error {
		out[id] = append([]byte(nil), b...)
		return nil
	})
	if err != nil {
		return nil, m.failOn("jobs", err)
	}
	return out, nil
}

// DeleteJob deletes a job's selections and its record in one
// transaction.
func (m *Meta) DeleteJob(ctx context.Context, id string) error {
	ctx, cancel := m.op(ctx)
	defer cancel()
	err := pgx.BeginFunc(ctx, m.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "DELETE FROM selections WHERE job = $1", id); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "DELETE FROM jobs WHERE id = $1", id)
		return err
	})
	if err != nil {
		return m.failOn("jobs, selections", err)
	}
	return nil
}

// SaveSelection inserts or replaces a selection.
func (m *Meta) SaveSelection(ctx context.Context, job, name string, data []byte) error {
	ctx, cancel := m.op(ctx)
	defer cancel()
	_, err := m.pool.Exec(ctx, `INSERT INTO selections (job, name, record) VALUES ($1, $2, $3)
		ON CONFLICT (job, name) DO UPDATE SET record = excluded.record`, job, name, data)
	if err != nil {
		return m.failOn("selections", err)
	}
	return nil
}

// Selections reads a job's selections.
func (m *Meta) Selections(ctx context.Context, job string) (map[string][]byte, error) {
	ctx, cancel := m.op(ctx)
	defer cancel()
	rows, err := m.pool.Query(ctx, "SELECT name, record FROM selections WHERE job = $1", job)
	if err != nil {
		return nil, m.failOn("selections", err)
	}
	out := map[string][]byte{}
	var name string
	var b []byte
	_, err = pgx.ForEachRow(rows, []any{&name, &b}, func() error {
		out[name] = append([]byte(nil), b...)
		return nil
	})
	if err != nil {
		return nil, m.failOn("selections", err)
	}
	return out, nil
}

// DeleteSelection deletes one selection.
func (m *Meta) DeleteSelection(ctx context.Context, job, name string) error {
	ctx, cancel := m.op(ctx)
	defer cancel()
	tag, err := m.pool.Exec(ctx, "DELETE FROM selections WHERE job = $1 AND name = $2", job, name)
	if err != nil {
		return m.failOn("selections", err)
	}
	if tag.RowsAffected() == 0 {
		return store.ErrNotFound
	}
	return nil
}
