package pgmeta

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"mldr/internal/pgtest"
	"mldr/internal/store"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func openT(t *testing.T, url string) *Meta {
	t.Helper()
	m, err := Open(context.Background(), Config{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// Processes that start together on a new database migrate it once: each
// Open waits for the migration lock, and finds the work done.
func TestConcurrentOpensMigrateOnce(t *testing.T) {
	dsn := pgtest.NewDB(t)
	const n = 6
	metas := make([]*Meta, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			metas[i], errs[i] = Open(context.Background(), Config{URL: dsn})
		})
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Open %d of %d at once: %v", i, n, err)
			continue
		}
		defer metas[i].Close()
		if metas[i].Instance() == "" || metas[i].Instance() != metas[0].Instance() {
			t.Errorf("Open %d: got instance %q, want %q, the same for all", i, metas[i].Instance(), metas[0].Instance())
		}
	}
	migs, err := Migrations()
	if err != nil {
		t.Fatal(err)
	}
	conn := connect(t, dsn)
	var applied, instances int
	if err := conn.QueryRow(context.Background(), "SELECT (SELECT count(*) FROM schema_migrations), (SELECT count(*) FROM instance)").Scan(&applied, &instances); err != nil {
		t.Fatal(err)
	}
	if applied != len(migs) || instances != 1 {
		t.Errorf("got %d rows in schema_migrations and %d in instance, want %d and 1", applied, instances, len(migs))
	}
}

func connect(t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// Reopening a migrated database applies nothing and keeps its identity.
func TestReopen(t *testing.T) {
	dsn := pgtest.NewDB(t)
	first := openT(t, dsn)
	id := first.Instance()
	first.Close()
	if again := openT(t, dsn); again.Instance() != id {
		t.Errorf("reopened: got instance %q, want %q", again.Instance(), id)
	}
}

// A database migrated by a newer binary is refused, not used.
func TestNewerDatabaseIsRefused(t *testing.T) {
	dsn := pgtest.NewDB(t)
	openT(t, dsn).Close()
	if _, err := connect(t, dsn).Exec(context.Background(), "INSERT INTO schema_migrations (version, name) VALUES (9999, '9999_future.sql')"); err != nil {
		t.Fatal(err)
	}
	m, err := Open(context.Background(), Config{URL: dsn})
	if err == nil {
		m.Close()
	}
	if err == nil || !strings.Contains(err.Error(), "schema version 9999, newer than this program knows") {
		t.Errorf("got %v, want an error saying the database is at a newer schema version", err)
	}
}

// Migrations are numbered 1, 2, 3… and each file says what it does.
func TestMigrationFiles(t *testing.T) {
	migs, err := Migrations()
	if err != nil {
		t.Fatal(err)
	}
	if len(migs) == 0 || migs[0].Name != "0001_metadata.sql" {
		t.Fatalf("got %d migrations, the first %v; want 0001_metadata.sql first", len(migs), migs)
	}
	for _, m := range migs {
		if !strings.HasPrefix(m.SQL, "--") {
			t.Errorf("migration %s does not start with a comment saying what it does", m.Name)
		}
	}
}

// A database that cannot be reached gives an error naming its host and
// port, and never its password.
func TestUnreachableDatabase(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close() // nothing listens there now
	const password = "s3cret-pw-123"
	for _, c := range []struct {
		what, url string
		want      []string
	}{
		{"a closed port", fmt.Sprintf("postgres://mldr:%s@127.0.0.1:%d/mldr?connect_timeout=5", password, port),
			[]string{"connecting", fmt.Sprintf("127.0.0.1:%d/mldr as mldr", port)}},
		{"a malformed URL", fmt.Sprintf("postgres://mldr:%s@127.0.0.1:notaport/mldr", password),
			[]string{"the database URL is not valid"}},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		m, err := Open(ctx, Config{URL: c.url})
		cancel()
		if err == nil {
			m.Close()
			t.Errorf("%s: got no error", c.what)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: got %q, want it to say %q", c.what, err, w)
			}
		}
		if strings.Contains(err.Error(), password) {
			t.Errorf("%s: the error shows the password: %q", c.what, err)
		}
	}
	if w, err := Where(fmt.Sprintf("postgres://u:%s@db.example:6543/x", password)); err != nil || w != "db.example:6543/x as u" {
		t.Errorf("Where: got %q, %v; want db.example:6543/x as u", w, err)
	}
}

// Config.Migrate runs after the product's migrations, under the same
// lock: processes opening together run it one at a time, each after the
// product's tables exist; its failure fails Open, saying what and where.
func TestMigrateHook(t *testing.T) {
	dsn := pgtest.NewDB(t)
	const n = 4
	var mu sync.Mutex
	inside, most, calls := 0, 0, 0
	hook := func(ctx context.Context, pool *pgxpool.Pool) error {
		mu.Lock()
		inside++
		calls++
		most = max(most, inside)
		mu.Unlock()
		defer func() {
			mu.Lock()
			inside--
			mu.Unlock()
		}()
		var tables int
		if err := pool.QueryRow(ctx, "SELECT count(*) FROM pg_tables WHERE tablename IN ('jobs', 'datasets')").Scan(&tables); err != nil {
			return err
		}
		if tables != 2 {
			return fmt.Errorf("the hook ran before the product's tables existed (%d of 2)", tables)
		}
		time.Sleep(50 * time.Millisecond) // long enough for the others to be waiting
		return nil
	}
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			m, err := Open(context.Background(), Config{URL: dsn, Migrate: hook})
			errs[i] = err
			if err == nil {
				m.Close()
			}
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("open %d: %v", i, err)
		}
	}
	if calls != n || most != 1 {
		t.Errorf("the hook ran %d times, at most %d at once; want %d times, one at a time", calls, most, n)
	}
	_, err := Open(context.Background(), Config{URL: dsn, Migrate: func(context.Context, *pgxpool.Pool) error { return errors.New("no such version") }})
	if err == nil || !strings.Contains(err.Error(), "applying the job queue's migrations: PostgreSQL at 127.0.0.1:") || !strings.Contains(err.Error(), "no such version") {
		t.Errorf("a failing hook: got %v, want an error saying what failed and where", err)
	}
}

// The job records within a caller's transaction: read and locked, stored,
// deleted with their selections; a missing one is store.ErrNotFound.
func TestJobTx(t *testing.T) {
	m := openT(t, pgtest.NewDB(t))
	ctx := context.Background()
	const id = "bbbbbbbbbbbbbbbb"
	err := pgx.BeginFunc(ctx, m.Pool(), func(tx pgx.Tx) error {
		if _, err := LockJob(ctx, tx, id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("LockJob of a missing record: got %v, want ErrNotFound", err)
		}
		return PutJob(ctx, tx, id, []byte(`{"v":1}`))
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.SaveSelection(ctx, id, "s", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if b, err := m.JobRecord(ctx, id); err != nil || string(b) != `{"v":1}` {
		t.Errorf("JobRecord: got %q, %v; want {\"v\":1}", b, err)
	}
	// The lock holds a second writer until the first commits.
	tx, err := m.Pool().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LockJob(ctx, tx, id); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- m.SaveJob(ctx, id, []byte(`{"v":3}`)) }()
	select {
	case err := <-done:
		t.Fatalf("a second writer went past the lock: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	if err := PutJob(ctx, tx, id, []byte(`{"v":2}`)); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the second writer still waits after the commit")
	}
	if b, _ := m.JobRecord(ctx, id); string(b) != `{"v":3}` {
		t.Errorf("after both writers: got %q, want the second's {\"v\":3}", b)
	}
	err = pgx.BeginFunc(ctx, m.Pool(), func(tx pgx.Tx) error { return DeleteJobTx(ctx, tx, id) })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.JobRecord(ctx, id); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("JobRecord after DeleteJobTx: got %v, want ErrNotFound", err)
	}
	if sels, err := m.Selections(ctx, id); err != nil || len(sels) != 0 {
		t.Errorf("selections after DeleteJobTx: got %v, %v; want none", sels, err)
	}
}

// A record's bytes come back as they were stored, whatever they are.
func TestSameBytesBack(t *testing.T) {
	m := openT(t, pgtest.NewDB(t))
	ctx := context.Background()
	for _, rec := range [][]byte{[]byte(`{"b":1,  "a":2, "a":3}`), {0, 1, 2, 0xff}, []byte("\n")} {
		if err := m.SaveJob(ctx, "aaaaaaaaaaaaaaaa", rec); err != nil {
			t.Fatal(err)
		}
		got, err := m.Jobs(ctx)
		if err != nil || string(got["aaaaaaaaaaaaaaaa"]) != string(rec) {
			t.Errorf("got %q, %v; want %q", got["aaaaaaaaaaaaaaaa"], err, rec)
		}
	}
}
