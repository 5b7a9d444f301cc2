package pgtest

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) { Main(m) }

// A cluster of its own starts, answers, and leaves nothing behind.
func TestStartQueryStop(t *testing.T) {
	Available(t) // skips without PostgreSQL, as every user of the package does
	c, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(filepath.Base(c.Dir()), dirPrefix) || filepath.Dir(c.Dir()) != filepath.Clean(os.TempDir()) {
		t.Errorf("got cluster directory %s, want %s%s* in the temporary directory", c.Dir(), os.TempDir(), dirPrefix)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.DSN("postgres"))
	if err != nil {
		c.Stop()
		t.Fatal(err)
	}
	var version string
	err = conn.QueryRow(ctx, "SELECT version()").Scan(&version)
	conn.Close(ctx)
	if err != nil || !strings.HasPrefix(version, "PostgreSQL ") {
		t.Errorf("SELECT version(): got %q, %v; want PostgreSQL …", version, err)
	}
	sock := filepath.Join(c.Dir(), ".s.PGSQL."+strconv.Itoa(c.Port()))
	if st, err := os.Stat(sock); err != nil || st.Mode()&os.ModeSocket == 0 {
		t.Errorf("the unix socket %s: got %v, want a socket in the cluster's directory", sock, err)
	}
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(c.Dir()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after Stop, %s: got %v, want it gone", c.Dir(), err)
	}
	if _, err := pgx.Connect(ctx, c.DSN("postgres")); err == nil {
		t.Error("after Stop the server still answers")
	}
}

// NewDB gives each test its own empty database and drops it afterwards.
func TestNewDB(t *testing.T) {
	c := Available(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var names []string
	t.Run("make", func(t *testing.T) {
		for range 2 {
			dsn := NewDB(t)
			conn, err := pgx.Connect(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			var name string
			var tables int
			err = conn.QueryRow(ctx, "SELECT current_database(), (SELECT count(*) FROM pg_tables WHERE schemaname = 'public')").Scan(&name, &tables)
			conn.Close(ctx)
			if err != nil || tables != 0 {
				t.Fatalf("got database %q with %d tables, %v; want a fresh empty one", name, tables, err)
			}
			names = append(names, name)
		}
	})
	if len(names) != 2 || names[0] == names[1] {
		t.Fatalf("got databases %q, want two distinct", names)
	}
	conn, err := pgx.Connect(ctx, c.DSN("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var left int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_database WHERE datname = ANY($1)", names).Scan(&left); err != nil || left != 0 {
		t.Errorf("after the tests ended, %d of their databases are left (%v); want 0", left, err)
	}
}

// A cluster whose test binary was killed is removed by the next Main.
func TestRemoveAbandoned(t *testing.T) {
	Available(t)
	c, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	// A pid that is not running: a finished child's.
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(c.Dir(), "owner.pid"), []byte(strconv.Itoa(cmd.Process.Pid)), 0o644); err != nil {
		t.Fatal(err)
	}
	removeAbandoned()
	if _, err := os.Stat(c.Dir()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the abandoned cluster %s: got %v, want it removed", c.Dir(), err)
	}
	if _, err := os.Stat(shared.cluster.Dir()); err != nil {
		t.Errorf("this binary's own cluster: %v, want it kept", err)
	}
}

// A cluster of the test's own can be stopped and started again on its
// port, keeping its data, and paused and resumed.
func TestStopStartPause(t *testing.T) {
	c := NewCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dsn, err := c.CreateDB(ctx, "kept")
	if err != nil {
		t.Fatal(err)
	}
	query := func(timeout time.Duration) error {
		qctx, qcancel := context.WithTimeout(ctx, timeout)
		defer qcancel()
		conn, err := pgx.Connect(qctx, dsn)
		if err != nil {
			return err
		}
		defer conn.Close(context.Background())
		var one int
		return conn.QueryRow(qctx, "SELECT 1").Scan(&one)
	}
	if err := c.StopServer(); err != nil {
		t.Fatal(err)
	}
	if err := query(5 * time.Second); err == nil {
		t.Error("a stopped server answered")
	}
	if err := c.StartServer(); err != nil {
		t.Fatal(err)
	}
	if err := query(10 * time.Second); err != nil {
		t.Errorf("after StartServer, the database kept: %v", err)
	}
	if err := c.Pause(); err != nil {
		t.Fatal(err)
	}
	if err := query(time.Second); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a paused server: got %v, want a timeout", err)
	}
	if err := c.Resume(); err != nil {
		t.Fatal(err)
	}
	if err := query(10 * time.Second); err != nil {
		t.Errorf("after Resume: %v", err)
	}
}
