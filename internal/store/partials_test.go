package store

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Partial statistics are written atomically per job, attempt, method and
// shard, read back, removed with the job's results, and removed by
// recovery when no job record names them.
func TestPartials(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	const job, other = "aaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbb"
	write := func(job string, attempt, method, shard int, body string) {
		t.Helper()
		if err := s.WritePartial(job, attempt, method, shard, func(w io.Writer) error {
			_, err := io.WriteString(w, body)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	read := func(job string, attempt, method, shard int) (string, error) {
		r, err := s.OpenPartial(job, attempt, method, shard)
		if err != nil {
			return "", err
		}
		defer r.Close()
		b, err := io.ReadAll(r)
		return string(b), err
	}
	write(job, 1, 0, 0, "a1 m0 s0")
	write(job, 1, 1, 3, "a1 m1 s3")
	write(job, 2, 1, 3, "a2 m1 s3")
	write(job, 1, 0, 0, "replaced")
	write(other, 1, 0, 0, "other")
	for _, c := range []struct {
		attempt, method, shard int
		want                   string
	}{{1, 0, 0, "replaced"}, {1, 1, 3, "a1 m1 s3"}, {2, 1, 3, "a2 m1 s3"}} {
		if got, err := read(job, c.attempt, c.method, c.shard); err != nil || got != c.want {
			t.Errorf("attempt %d, method %d, shard %d: got %q, %v; want %q", c.attempt, c.method, c.shard, got, err, c.want)
		}
	}
	if _, err := read(job, 3, 0, 0); !errors.Is(err, ErrNotFound) {
		t.Errorf("a partial never written: got %v, want ErrNotFound", err)
	}
	if err := s.WritePartial("../x", 1, 0, 0, func(io.Writer) error { return nil }); !errors.Is(err, ErrNotFound) {
		t.Errorf("a bad job id: got %v, want ErrNotFound", err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "partials", job, ".tmp-*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	if err := s.RemoveJobResults(job); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "partials", job)); !os.IsNotExist(err) {
		t.Errorf("after RemoveJobResults: got %v, want the job's partial statistics gone", err)
	}
	if got, err := read(other, 1, 0, 0); got != "other" {
		t.Errorf("another job's partials after RemoveJobResults: got %q, %v; want them kept", got, err)
	}
	// other has no job record: recovery at the next open removes its files.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = open(t, dir)
	if _, err := os.Stat(filepath.Join(dir, "partials", other)); !os.IsNotExist(err) {
		t.Errorf("after recovery: got %v, want the partial statistics of a job without a record gone", err)
	}
	if err := s.WritePartial(job, 1, -1, 0, func(io.Writer) error { return nil }); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("a negative method: got %v, want out of range", err)
	}
}
