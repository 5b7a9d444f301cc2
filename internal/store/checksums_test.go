package store_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mldr/internal/store"
)

// commitResults stores files as the results of a new job, with a record
// so that Open keeps them.
func commitResults(t testing.TB, s *store.Store, files map[string][]byte) string {
	t.Helper()
	id := store.NewID()
	if err := s.SaveJob(id, []byte("{}")); err != nil {
		t.Fatal(err)
	}
	r, err := s.StageJobResults(id)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Discard()
	for rel, b := range files {
		if err := r.WriteFile(rel, func(w io.Writer) error { _, err := w.Write(b); return err }); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.CommitJobResults(r); err != nil {
		t.Fatal(err)
	}
	return id
}

func openPlain(t testing.TB, dir string) *store.Store {
	t.Helper()
	s, err := store.Open(store.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestChecksumsWritten(t *testing.T) {
	s := openPlain(t, t.TempDir())
	files := map[string][]byte{"pca/model.json": []byte("{}\n"), "metrics.json": []byte("[]\n"), "pca/projected.csv": []byte("row,split,c1\n1,all,2\n")}
	id := commitResults(t, s, files)
	b, err := os.ReadFile(filepath.Join(s.JobDir(id), store.ChecksumsFile))
	if err != nil {
		t.Fatal(err)
	}
	var sums store.Checksums
	if err := json.Unmarshal(b, &sums); err != nil {
		t.Fatal(err)
	}
	// sha256sum of the bytes: printf '{}\n' | sha256sum
	const wantModel = "ca3d163bab055381827226140568f3bef7eaac187cebd76878e0b63e9e442356"
	if got := sums.Files["pca/model.json"]; sums.Algorithm != "sha256" || got.SHA256 != wantModel || got.Size != 3 {
		t.Errorf("got %+v for model.json (algorithm %q), want size 3 and %s", got, sums.Algorithm, wantModel)
	}
	if len(sums.Files) != len(files) {
		t.Errorf("got %d files listed, want %d", len(sums.Files), len(files))
	}
	for rel := range files {
		if err := s.VerifyJobResult(id, rel); err != nil {
			t.Errorf("%s: %v", rel, err)
		}
	}
	if left, _ := os.ReadDir(filepath.Join(s.Dir(), "tmp")); len(left) != 0 {
		t.Errorf("tmp/ holds %d entries after a commit", len(left))
	}
}

func TestStagedResultNames(t *testing.T) {
	s := openPlain(t, t.TempDir())
	r, err := s.StageJobResults(store.NewID())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Discard()
	for _, rel := range []string{"", "/abs", "../x", "a/../../x", "a//b", "./a", store.ChecksumsFile} {
		if err := r.WriteFile(rel, func(io.Writer) error { return nil }); err == nil {
			t.Errorf("WriteFile(%q): got no error", rel)
		}
	}
	write := func(io.Writer) error { return nil }
	if err := r.WriteFile("a/b.csv", write); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteFile("a/b.csv", write); err == nil {
		t.Error("writing a/b.csv twice: got no error")
	}
	wantErr := errors.New("encoder failed")
	if err := r.WriteFile("c.csv", func(io.Writer) error { return wantErr }); !errors.Is(err, wantErr) || !strings.Contains(err.Error(), "c.csv") {
		t.Errorf("got %v, want the writer's error naming c.csv", err)
	}
	if _, err := s.StageJobResults("../../etc"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("an invalid job id: got %v, want ErrNotFound", err)
	}
}

// Each way a result file can go bad is reported as corrupt, naming the
// file and the job; a file the job did not write and results from before
// checksums are not.
func TestVerifyJobResult(t *testing.T) {
	files := map[string][]byte{"m/projected.csv": bytes.Repeat([]byte("1,train,0.5\n"), 1000), "m/model.json": []byte("{}\n")}
	cases := []struct {
		name    string
		spoil   func(t *testing.T, dir string)
		rel     string
		corrupt bool
	}{
		{"intact", func(*testing.T, string) {}, "m/projected.csv", false},
		{"a byte flipped", func(t *testing.T, dir string) { flip(t, filepath.Join(dir, "m", "projected.csv"), 5000) }, "m/projected.csv", true},
		{"truncated", func(t *testing.T, dir string) { must(t, os.Truncate(filepath.Join(dir, "m", "projected.csv"), 100)) }, "m/projected.csv", true},
		{"grown", func(t *testing.T, dir string) { appendTo(t, filepath.Join(dir, "m", "model.json"), "\n") }, "m/model.json", true},
		{"removed", func(t *testing.T, dir string) { must(t, os.Remove(filepath.Join(dir, "m", "model.json"))) }, "m/model.json", true},
		{"not listed", func(t *testing.T, dir string) {
			must(t, os.WriteFile(filepath.Join(dir, "m", "extra.npy"), []byte("x"), 0o600))
		}, "m/extra.npy", true},
		{"neither listed nor present", func(*testing.T, string) {}, "m/projection.npy", false},
		{"checksums undecodable", func(t *testing.T, dir string) { appendTo(t, filepath.Join(dir, store.ChecksumsFile), "}") }, "m/model.json", true},
		{"no checksums (results from before)", func(t *testing.T, dir string) {
			must(t, os.Remove(filepath.Join(dir, store.ChecksumsFile)))
			flip(t, filepath.Join(dir, "m", "projected.csv"), 5000)
		}, "m/projected.csv", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := openPlain(t, t.TempDir())
			id := commitResults(t, s, files)
			c.spoil(t, s.JobDir(id))
			err := s.VerifyJobResult(id, c.rel)
			if !c.corrupt {
				if err != nil {
					t.Fatalf("got %v, want nil", err)
				}
				return
			}
			var ce *store.CorruptResultError
			if !errors.As(err, &ce) || !errors.Is(err, store.ErrCorruptResult) {
				t.Fatalf("got %v, want a CorruptResultError", err)
			}
			wantFile := c.rel
			if c.name == "checksums undecodable" {
				wantFile = store.ChecksumsFile
			}
			if ce.Job != id || ce.File != wantFile || !strings.Contains(err.Error(), "corrupt") {
				t.Errorf("got job %q file %q (%v), want job %s file %s", ce.Job, ce.File, err, id, wantFile)
			}
		})
	}
}

// A verified file is remembered by path, size and modification time: a
// change that keeps all three goes unseen until the next start, any other
// is seen at once.
func TestVerifiedFilesRemembered(t *testing.T) {
	dir := t.TempDir()
	s := openPlain(t, dir)
	id := commitResults(t, s, map[string][]byte{"m/projected.csv": bytes.Repeat([]byte("1,train,0.5\n"), 1000)})
	p := filepath.Join(s.JobDir(id), "m", "projected.csv")
	if err := s.VerifyJobResult(id, "m/projected.csv"); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(p)
	flip(t, p, 10)
	must(t, os.Chtimes(p, st.ModTime(), st.ModTime()))
	if err := s.VerifyJobResult(id, "m/projected.csv"); err != nil {
		t.Errorf("same size and time: got %v, want nil (remembered)", err)
	}
	must(t, os.Chtimes(p, st.ModTime().Add(time.Second), st.ModTime().Add(time.Second)))
	if err := s.VerifyJobResult(id, "m/projected.csv"); !errors.Is(err, store.ErrCorruptResult) {
		t.Errorf("after the time changed: got %v, want ErrCorruptResult", err)
	}
	must(t, os.Chtimes(p, st.ModTime(), st.ModTime()))
	s.Close()
	s2 := openPlain(t, dir)
	if err := s2.VerifyJobResult(id, "m/projected.csv"); !errors.Is(err, store.ErrCorruptResult) {
		t.Errorf("after a restart: got %v, want ErrCorruptResult", err)
	}
}

func flip(t *testing.T, p string, at int) {
	t.Helper()
	b, err := os.ReadFile(p)
	must(t, err)
	b[at] ^= 0x20
	must(t, os.WriteFile(p, b, 0o600))
}

func appendTo(t *testing.T, p, s string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	must(t, err)
	_, err = f.WriteString(s)
	must(t, err)
	must(t, f.Close())
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// BenchmarkVerifyJobResult checks one result file of a named size: "first"
// hashes it (the first read after a start), "remembered" finds it
// verified already.
//
//	go test -run '^$' -bench VerifyJobResult -benchmem ./internal/store/
func BenchmarkVerifyJobResult(b *testing.B) {
	for _, size := range []struct {
		name  string
		bytes int
	}{{"1MiB", 1 << 20}, {"16MiB", 16 << 20}, {"100MiB", 100 << 20}} {
		s := openPlain(b, b.TempDir())
		id := commitResults(b, s, map[string][]byte{"m/projected.csv": bytes.Repeat([]byte("12,train,0.123456789\n"), size.bytes/21)})
		for _, mode := range []string{"first", "remembered"} {
			b.Run(fmt.Sprintf("%s/%s", size.name, mode), func(b *testing.B) {
				b.SetBytes(int64(size.bytes))
				for b.Loop() {
					if mode == "first" {
						s.ForgetVerified()
					}
					if err := s.VerifyJobResult(id, "m/projected.csv"); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
