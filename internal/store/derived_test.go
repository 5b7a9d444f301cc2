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
	"sync"
	"testing"
	"time"

	"mldr/internal/store"
)

// derivedCSV is what the tests derive: 200 KB, several buffered writes.
var derivedCSV = strings.Repeat("1,all,0.25\n", 20000)

func deriveCSV(calls *int) func(io.Writer) error {
	return func(w io.Writer) error {
		*calls++
		_, err := io.WriteString(w, derivedCSV)
		return err
	}
}

func readSums(t *testing.T, s *store.Store, id string) store.Checksums {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(s.JobDir(id), store.ChecksumsFile))
	if err != nil {
		t.Fatal(err)
	}
	var sums store.Checksums
	if err := json.Unmarshal(b, &sums); err != nil {
		t.Fatal(err)
	}
	return sums
}

// A derived result file is written once, on first use, listed with its
// checksum beside the job's files and then checked like them; a file a
// crash left in place unlisted is derived again; a listed one that no
// longer matches is corrupt and not derived again; a failing derivation
// leaves nothing.
func TestDeriveJobResult(t *testing.T) {
	const rel = "pca/projected.csv"
	boom := errors.New("the source is unreadable")
	for _, c := range []struct {
		name      string
		before    func(t *testing.T, s *store.Store, id string) // after the commit
		derive    func(calls *int) func(io.Writer) error
		wantErr   error // nil: derived and listed
		wantCalls int
	}{
		{name: "first use", derive: deriveCSV, wantCalls: 1},
		{name: "second use", before: func(t *testing.T, s *store.Store, id string) {
			var calls int
			if err := s.DeriveJobResult(id, rel, deriveCSV(&calls)); err != nil {
				t.Fatal(err)
			}
		}, derive: deriveCSV, wantCalls: 0},
		{name: "left unlisted by a crash", before: func(t *testing.T, s *store.Store, id string) {
			must(t, os.WriteFile(filepath.Join(s.JobDir(id), "pca", "projected.csv"), []byte("1,all,0.2"), 0o640))
		}, derive: deriveCSV, wantCalls: 1},
		{name: "listed and changed since", before: func(t *testing.T, s *store.Store, id string) {
			var calls int
			if err := s.DeriveJobResult(id, rel, deriveCSV(&calls)); err != nil {
				t.Fatal(err)
			}
			flip(t, filepath.Join(s.JobDir(id), "pca", "projected.csv"), 100)
		}, derive: deriveCSV, wantErr: store.ErrCorruptResult, wantCalls: 0},
		{name: "derivation fails", derive: func(calls *int) func(io.Writer) error {
			return func(w io.Writer) error {
				*calls++
				io.WriteString(w, derivedCSV[:70000])
				return boom
			}
		}, wantErr: boom, wantCalls: 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := openPlain(t, t.TempDir())
			id := commitResults(t, s, map[string][]byte{"pca/projected.bin": []byte("binary"), "pca/model.json": []byte("{}\n")})
			if c.before != nil {
				c.before(t, s, id)
			}
			before := readSums(t, s, id)
			var calls int
			err := s.DeriveJobResult(id, rel, c.derive(&calls))
			if calls != c.wantCalls {
				t.Errorf("derive called %d times, want %d", calls, c.wantCalls)
			}
			if left, _ := os.ReadDir(filepath.Join(s.Dir(), "tmp")); len(left) != 0 {
				t.Errorf("tmp/ holds %d entries", len(left))
			}
			if c.wantErr != nil {
				if !errors.Is(err, c.wantErr) || !strings.Contains(err.Error(), rel) {
					t.Fatalf("got %v, want an error naming %s and wrapping %v", err, rel, c.wantErr)
				}
				after := readSums(t, s, id)
				if len(after.Files) != len(before.Files) {
					t.Errorf("got %d files listed, want %d as before", len(after.Files), len(before.Files))
				}
				if _, listed := before.Files[rel]; !listed {
					if _, err := os.Stat(filepath.Join(s.JobDir(id), "pca", "projected.csv")); !errors.Is(err, os.ErrNotExist) {
						t.Errorf("after a failed derivation: got %v, want no %s", err, rel)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("got %v, want no error", err)
			}
			got, err := os.ReadFile(filepath.Join(s.JobDir(id), "pca", "projected.csv"))
			if err != nil || !bytes.Equal(got, []byte(derivedCSV)) {
				t.Fatalf("got %d bytes (%v), want the %d derived", len(got), err, len(derivedCSV))
			}
			sums := readSums(t, s, id)
			if want := []string{"pca/model.json", "pca/projected.bin", rel}; len(sums.Files) != len(want) {
				t.Errorf("got %d files listed, want %v", len(sums.Files), want)
			}
			if sum := sums.Files[rel]; sum.Size != int64(len(derivedCSV)) {
				t.Errorf("listed size %d, want %d", sum.Size, len(derivedCSV))
			}
			// A new store (another start) hashes it again: it matches.
			s.Close()
			s2 := openPlain(t, s.Dir())
			for _, f := range []string{rel, "pca/model.json", "pca/projected.bin"} {
				if err := s2.VerifyJobResult(id, f); err != nil {
					t.Errorf("%s after a restart: %v", f, err)
				}
			}
		})
	}
	t.Run("no results", func(t *testing.T) {
		s := openPlain(t, t.TempDir())
		var calls int
		if err := s.DeriveJobResult(store.NewID(), rel, deriveCSV(&calls)); !errors.Is(err, store.ErrNotFound) || calls != 0 {
			t.Errorf("got %v after %d calls, want ErrNotFound and none", err, calls)
		}
	})
}

// Requests that meet a file not yet derived at the same time derive it
// once, and each gets it whole.
func TestDeriveJobResultOnce(t *testing.T) {
	s := openPlain(t, t.TempDir())
	id := commitResults(t, s, map[string][]byte{"pca/projected.bin": []byte("binary")})
	var mu sync.Mutex
	calls := 0
	derive := func(w io.Writer) error {
		mu.Lock()
		calls++
		mu.Unlock()
		_, err := io.WriteString(w, derivedCSV)
		return err
	}
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			if err := s.DeriveJobResult(id, "pca/projected.csv", derive); err != nil {
				errs <- err
				return
			}
			b, err := os.ReadFile(filepath.Join(s.JobDir(id), "pca", "projected.csv"))
			if err == nil && len(b) != len(derivedCSV) {
				err = fmt.Errorf("got %d bytes, want %d", len(b), len(derivedCSV))
			}
			errs <- err
		}()
	}
	for range 4 {
		select {
		case err := <-errs:
			if err != nil {
				t.Error(err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("a derivation did not end within 10 s")
		}
	}
	if calls != 1 {
		t.Errorf("derived %d times, want once", calls)
	}
}
