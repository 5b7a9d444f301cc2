package pgmeta

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The product's migrations: migrations/NNNN_name.sql, applied in order of
// NNNN, each once, each in its own transaction with its row in
// schema_migrations. They are forward-only: a released file never
// changes, a change is a new file.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

// Advisory lock keys (pg_advisory_lock takes a bigint): "mldr" then a
// number.
const (
	// lockMigrate is held while a process checks and applies migrations,
	// so that processes starting together migrate once.
	lockMigrate int64 = 0x6d6c6472_0001
)

// Migration is one file of migrations/.
type Migration struct {
	Version int    // NNNN
	Name    string // the file name
	SQL     string
}

// Migrations returns the product's migrations in the order they apply.
func Migrations() ([]Migration, error) {
	entries, err := fs.ReadDir(migrationFiles, "migrations")
	if err != nil {
		return nil, fmt.Errorf("reading the embedded migrations: %w", err)
	}
	var out []Migration
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || len(num) != 4 || v < 1 {
			return nil, fmt.Errorf("migration %s: its name must be NNNN_name.sql", e.Name())
		}
		b, err := migrationFiles.ReadFile(path.Join("migrations", e.Name()))
		if err != nil {
			return nil, fmt.Errorf("reading migration %s: %w", e.Name(), err)
		}
		out = append(out, Migration{Version: v, Name: e.Name(), SQL: string(b)})
	}
	slices.SortFunc(out, func(a, b Migration) int { return a.Version - b.Version })
	for i, m := range out {
		if m.Version != i+1 {
			return nil, fmt.Errorf("migration %s: versions must run 1, 2, 3… without gaps or repeats", m.Name)
		}
	}
	return out, nil
}

// migrate applies the migrations the database lacks, then more (see
// Config.Migrate), under the migration lock. A database already at a
// version this binary does not know is an error: it was migrated by a
// newer binary.
func (m *Meta) migrate(ctx context.Context, pool *pgxpool.Pool, migs []Migration, more func(context.Context, *pgxpool.Pool) error) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return m.fail("connecting to migrate", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", lockMigrate); err != nil {
		return m.fail("waiting for the migration lock", err)
	}
	defer func() {
		// A failed unlock (the connection broke) frees the lock anyway
		// when the session ends; make sure it does end.
		if _, err := conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", lockMigrate); err != nil {
			conn.Conn().Close(context.Background())
		}
	}()
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version integer PRIMARY KEY,
		name text NOT NULL,
		applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return m.fail("creating schema_migrations", err)
	}
	var current int
	if err := conn.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM schema_migrations").Scan(&current); err != nil {
		return m.fail("reading the schema version", err)
	}
	latest := len(migs)
	if current > latest {
		return fmt.Errorf("the database at %s is at schema version %d, newer than this program knows (%d): it was migrated by a newer MLDR Explorer; run that version or a later one (migrations are forward-only)", m.where, current, latest)
	}
	for _, mig := range migs[current:] {
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, mig.SQL); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", mig.Version, mig.Name)
			return err
		})
		if err != nil {
			return m.fail("applying migration "+mig.Name, err)
		}
		m.log.Info("metadata: applied a migration", "database", m.where, "migration", mig.Name)
	}
	if more != nil {
		if err := more(ctx, pool); err != nil {
			return m.fail("applying the job queue's migrations", err)
		}
	}
	return nil
}
