package store_test

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"mldr/internal/pgmeta"
	"mldr/internal/pgtest"
	"mldr/internal/store"
)

// openShared opens a Store in shared mode on dir over the database dsn,
// as the process host/pid.
func openShared(t *testing.T, dir, dsn, host string, pid int) *store.Store {
	t.Helper()
	s, err := openSharedErr(dir, dsn, host, pid)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func openSharedErr(dir, dsn, host string, pid int) (*store.Store, error) {
	m, err := pgmeta.Open(context.Background(), pgmeta.Config{URL: dsn})
	if err != nil {
		return nil, err
	}
	return store.Open(store.Config{Dir: dir, Meta: m, Host: host, PID: pid})
}

// deadPID is the id of a process that has ended.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// A second process starting on the same directory and database leaves the
// first one's uploads and results in progress alone, and removes only the
// staging that no live process can own.
func TestSharedStagingOfOthersIsKept(t *testing.T) {
	dsn := pgtest.NewDB(t)
	dir := t.TempDir()
	ctx := context.Background()
	// Process A: this test's pid, which is alive.
	a := openShared(t, dir, dsn, "hosta", os.Getpid())
	defer a.Close()
	if got, want := filepath.Base(a.StagingDir()), "hosta-"+strconv.Itoa(os.Getpid())+"-"; !strings.HasPrefix(got, want) || filepath.Dir(a.StagingDir()) != filepath.Join(dir, "tmp") {
		t.Fatalf("A's staging directory: got %s, want tmp/%s<random>", a.StagingDir(), want)
	}
	up, err := a.Stage()
	if err != nil {
		t.Fatal(err)
	}
	if err := up.ReceiveSource(ctx, "u.csv", strings.NewReader(backendCSV), 0); err != nil {
		t.Fatal(err)
	}
	job := store.NewID()
	if err := a.SaveJob(job, []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	res, err := a.StageJobResults(job)
	if err != nil {
		t.Fatal(err)
	}
	if err := res.WriteFile("metrics.json", func(w io.Writer) error { _, err := io.WriteString(w, "{}"); return err }); err != nil {
		t.Fatal(err)
	}

	// What other processes left under tmp/.
	old := time.Now().Add(-25 * time.Hour)
	leave := func(name string, mtime time.Time) string {
		p := filepath.Join(dir, "tmp", name)
		if err := os.MkdirAll(filepath.Join(p, "upload-1"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct {
		what string
		path string
		keep bool
	}{
		{"a dead process of this host", leave("hosta-"+strconv.Itoa(deadPID(t))+"-11", time.Now()), false},
		{"an earlier life of B's own pid", leave("hosta-1-12", time.Now()), false},
		{"a process of another host", leave("hostc-"+strconv.Itoa(deadPID(t))+"-13", time.Now()), true},
		{"a process of another host, older than a day", leave("hostc-77-14", old), false},
		{"an unknown name", leave("upload-15", time.Now()), true},
		{"an unknown name older than a day", leave("upload-16", old), false},
	}

	// Process B: pid 1 on the same host.
	b := openShared(t, dir, dsn, "hosta", 1)
	defer b.Close()
	for _, c := range cases {
		_, err := os.Stat(c.path)
		if kept := err == nil; kept != c.keep {
			t.Errorf("staging of %s: kept %v, want %v", c.what, kept, c.keep)
		}
	}
	if _, err := os.Stat(a.StagingDir()); err != nil {
		t.Fatalf("B's start removed A's staging directory: %v", err)
	}
	rec, err := a.CreateDataset(ctx, up, "u", store.DatasetRecord{}.Options)
	if err != nil {
		t.Fatalf("A's upload after B started: %v", err)
	}
	if err := a.CommitJobResults(res); err != nil {
		t.Fatalf("A's results after B started: %v", err)
	}
	if _, err := b.LoadDataset(rec.ID); err != nil {
		t.Errorf("B loading A's data set: %v", err)
	}
	if err := b.VerifyJobResult(job, "metrics.json"); err != nil {
		t.Errorf("B verifying A's results: %v", err)
	}
	staging := b.StagingDir()
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(staging); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("B's staging directory after Close: got %v, want it removed", err)
	}
}

// Files that no record names are kept for an hour in shared mode: another
// process may be between moving them into place and committing their
// record.
func TestSharedYoungOrphansAreKept(t *testing.T) {
	dsn := pgtest.NewDB(t)
	dir := t.TempDir()
	a := openShared(t, dir, dsn, "h", 1)
	rec := importBody(t, a, "a", backendCSV)
	a.Close()
	young := []string{
		filepath.Join(dir, "datasets", store.NewID()),
		filepath.Join(dir, "jobs", store.NewID()),
		filepath.Join(dir, "datasets", rec.ID, "data-2.bin"),
	}
	for _, p := range young[:2] {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(young[2], []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	b := openShared(t, dir, dsn, "h", 2)
	b.Close()
	for _, p := range young {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s, minutes old and without a record: got %v, want it kept", p, err)
		}
	}
	old := time.Now().Add(-2 * time.Hour)
	for _, p := range young {
		os.Chtimes(p, old, old)
	}
	c := openShared(t, dir, dsn, "h", 3)
	defer c.Close()
	for _, p := range young {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s, two hours old and without a record: got %v, want it removed", p, err)
		}
	}
}

// A data directory belongs to one metadata store: its embedded meta.db or
// one database.
func TestSharedDirectoryBinding(t *testing.T) {
	dsn1, dsn2 := pgtest.NewDB(t), pgtest.NewDB(t)
	embedded := t.TempDir()
	s, err := store.Open(store.Config{Dir: embedded})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	shared := t.TempDir()
	s = openShared(t, shared, dsn1, "h", 1)
	s.Close()
	for _, c := range []struct {
		what string
		open func() (*store.Store, error)
		want string
	}{
		{"an embedded store's directory with a database", func() (*store.Store, error) { return openSharedErr(embedded, dsn1, "h", 1) }, "holds an embedded store (meta.db)"},
		{"a database's directory with another database", func() (*store.Store, error) { return openSharedErr(shared, dsn2, "h", 1) }, "belongs to another database"},
		{"a database's directory without it", func() (*store.Store, error) { return store.Open(store.Config{Dir: shared}) }, "belongs to a shared deployment"},
	} {
		s, err := c.open()
		if err == nil {
			s.Close()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("opening %s: got %v, want an error saying %q", c.what, err, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(shared, "meta.db")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused embedded open made meta.db in the shared directory: %v", err)
	}
	s = openShared(t, shared, dsn1, "h", 1)
	s.Close()
}
