package store_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"mldr/internal/store"
)

// sealResults stages files as attempt's results of job id, through a
// worker's view of the data directory (staging in the server's staging
// directory), and seals them.
func sealResults(t *testing.T, s *store.Store, id string, attempt int, files map[string]string) {
	t.Helper()
	f := store.OpenFilesStaging(s.Dir(), s.StagingDir(), nil)
	r, err := f.StageJobResults(id)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Discard()
	for rel, b := range files {
		if err := r.WriteFile(rel, func(w io.Writer) error { _, err := io.WriteString(w, b); return err }); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.SealJobResults(r, attempt); err != nil {
		t.Fatal(err)
	}
}

// Sealed results stay out of jobs/ until installed: installing attempt
// 2's replaces the earlier results with checksummed files, discarding
// attempt 1's leaves jobs/ alone, and installing results no run sealed
// is ErrNotFound, with nothing changed.
func TestSealInstallDiscard(t *testing.T) {
	s := openPlain(t, t.TempDir())
	id := commitResults(t, s, map[string][]byte{"metrics.json": []byte("old\n")})
	sealResults(t, s, id, 1, map[string]string{"metrics.json": "one\n"})
	sealResults(t, s, id, 2, map[string]string{"metrics.json": "two\n", "pca/model.json": "{}\n"})
	read := func() string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(s.JobDir(id), "metrics.json"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if got := read(); got != "old\n" {
		t.Fatalf("before any install: got %q, want the committed results", got)
	}
	if err := s.InstallJobResults(id, 2); err != nil {
		t.Fatal(err)
	}
	if got := read(); got != "two\n" {
		t.Errorf("after installing attempt 2: got %q, want its results", got)
	}
	for _, rel := range []string{"metrics.json", "pca/model.json"} {
		if err := s.VerifyJobResult(id, rel); err != nil {
			t.Errorf("installed %s: %v", rel, err)
		}
	}
	if err := s.DiscardJobResults(id, 1); err != nil {
		t.Fatal(err)
	}
	if got := read(); got != "two\n" {
		t.Errorf("after discarding attempt 1: got %q, want attempt 2's results", got)
	}
	if err := s.InstallJobResults(id, 1); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("installing the discarded attempt 1: got %v, want ErrNotFound", err)
	}
	if got := read(); got != "two\n" {
		t.Errorf("after the refused install: got %q, want attempt 2's results", got)
	}
	if left, _ := os.ReadDir(s.StagingDir()); len(left) != 0 {
		t.Errorf("the staging directory holds %d entries, want none", len(left))
	}
}

// CheckWritable leaves nothing behind, and fails when the staging
// directory cannot take a file.
func TestCheckWritable(t *testing.T) {
	s := openPlain(t, t.TempDir())
	if err := s.CheckWritable(); err != nil {
		t.Fatalf("a writable data directory: %v", err)
	}
	if left, _ := os.ReadDir(s.StagingDir()); len(left) != 0 {
		t.Errorf("the staging directory holds %d entries, want none", len(left))
	}
	if err := os.RemoveAll(s.StagingDir()); err != nil {
		t.Fatal(err)
	}
	if err := s.CheckWritable(); err == nil {
		t.Error("a data directory without its staging directory: got nil, want an error")
	}
}
