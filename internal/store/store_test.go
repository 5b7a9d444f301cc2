package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"mldr/internal/dataset"
)

const csvA = "a,b,label:x,label:y\n1,2,0,1\n3,4,1,1\n5,6,1,0\n"

func open(t *testing.T, dir string) *Store {
	t.Helper()
	s, err := Open(Config{Dir: dir, Now: func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func importCSV(t *testing.T, s *Store, name, body string) DatasetRecord {
	t.Helper()
	rec, err := s.Import(context.Background(), Upload{Name: name, FileName: name + ".csv", Source: strings.NewReader(body)})
	if err != nil {
		t.Fatalf("importing %s: %v", name, err)
	}
	return rec
}

func TestIDs(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id := NewID()
		if !ValidID(id) || seen[id] {
			t.Fatalf("NewID gave %q (valid %v, repeated %v)", id, ValidID(id), seen[id])
		}
		seen[id] = true
	}
	for _, bad := range []string{"", "../../etc/passwd", "AAAAAAAAAAAAAAAA", "aaaaaaaaaaaaaaa1", "aaaaaaaaaaaaaaaaa", "aaaaaaaa/aaaaaaa"} {
		if ValidID(bad) {
			t.Errorf("ValidID(%q) = true", bad)
		}
	}
}

func TestImportLoadDelete(t *testing.T) {
	s := open(t, t.TempDir())
	defer s.Close()
	rec := importCSV(t, s, "a", csvA)
	if rec.Summary.Rows != 3 || rec.Gen != 1 || rec.SHA256 == "" || len(rec.Columns) != 0 || rec.DetailsFile != "details-1.bin" {
		t.Errorf("got %+v", rec)
	}
	if det, err := s.Details(rec); err != nil || len(det.Columns) != 4 || det.LabelCount() != 2 {
		t.Errorf("Details: got %+v, %v; want 4 columns, 2 labels", det, err)
	}
	ds, err := s.LoadDataset(rec.ID)
	if err != nil || ds.X.At(2, 1) != 6 || ds.Y.At(2, 0) != 1 || ds.Name != "a" {
		t.Fatalf("LoadDataset: %v", err)
	}
	if err := s.DeleteDataset(rec.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Dataset(rec.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("after delete got %v, want ErrNotFound", err)
	}
	if err := s.DeleteDataset(rec.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("second delete got %v, want ErrNotFound", err)
	}
}

func TestRefusedImportLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	defer s.Close()
	_, err := s.Import(context.Background(), Upload{FileName: "x.csv", Source: strings.NewReader("a,label:y\n1,0\n2,zz\n"), Options: dataset.Options{Kind: dataset.MultiLabel}})
	var ie *dataset.InputError
	if !errors.As(err, &ie) || ie.Line != 3 {
		t.Fatalf("got %v, want an InputError on line 3", err)
	}
	_, err = s.Import(context.Background(), Upload{FileName: "x.csv", Source: strings.NewReader(csvA), MaxBytes: 10})
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Limit != 10 {
		t.Fatalf("got %v, want TooLargeError", err)
	}
	for _, sub := range []string{"tmp", "datasets"} {
		if es, _ := os.ReadDir(filepath.Join(dir, sub)); len(es) != 0 {
			t.Errorf("%s holds %d entries after refused imports", sub, len(es))
		}
	}
}

// Open cleans up after a crash at any point of an upload or a relabel.
func TestRecovery(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	keep := importCSV(t, s, "keep", csvA)
	gone := importCSV(t, s, "gone", csvA)
	s.Close()

	// A crash while receiving: a staging directory.
	os.MkdirAll(filepath.Join(dir, "tmp", "upload-123"), 0o755)
	os.WriteFile(filepath.Join(dir, "tmp", "upload-123", "source"), []byte("half"), 0o644)
	// A crash between moving files into place and committing: a directory
	// without metadata.
	orphan := filepath.Join(dir, "datasets", "orphanorphanorph")
	os.MkdirAll(orphan, 0o755)
	os.WriteFile(filepath.Join(orphan, "data-1.bin"), []byte("x"), 0o644)
	// A crash in a relabel after writing the new data file.
	stale := filepath.Join(dir, "datasets", keep.ID, "data-2.bin")
	os.WriteFile(stale, []byte("x"), 0o644)
	os.WriteFile(filepath.Join(dir, "datasets", keep.ID, ".tmp-data-2.bin-99"), []byte("x"), 0o644)
	// Files lost behind the store's back.
	os.RemoveAll(filepath.Join(dir, "datasets", gone.ID))

	s = open(t, dir)
	defer s.Close()
	if es, _ := os.ReadDir(filepath.Join(dir, "tmp")); len(es) != 0 {
		t.Errorf("staging not cleaned: %d entries", len(es))
	}
	for _, p := range []string{orphan, stale} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s survived recovery", p)
		}
	}
	if _, err := s.LoadDataset(keep.ID); err != nil {
		t.Errorf("the intact data set does not load: %v", err)
	}
	if p := s.Problem(gone.ID); !strings.Contains(p, "missing") {
		t.Errorf("got problem %q for the data set whose files vanished", p)
	}
	if s.Problem(keep.ID) != "" {
		t.Errorf("the intact data set has a problem: %q", s.Problem(keep.ID))
	}
	recs, _ := s.Datasets()
	if len(recs) != 2 {
		t.Errorf("got %d records, want 2 (none dropped silently)", len(recs))
	}
}

func TestCorruptDataIsReported(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	defer s.Close()
	rec := importCSV(t, s, "a", csvA)
	p := filepath.Join(dir, "datasets", rec.ID, rec.DataFile)
	b, _ := os.ReadFile(p)
	b[len(b)-20] ^= 0xff
	os.WriteFile(p, b, 0o644)
	if _, err := s.LoadDataset(rec.ID); !errors.Is(err, dataset.ErrCorrupt) {
		t.Errorf("got %v, want ErrCorrupt", err)
	}
}

func TestRelabel(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	defer s.Close()
	rec := importCSV(t, s, "a", csvA)
	next, err := s.Relabel(context.Background(), rec.ID, []string{"label:x"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if next.Gen != 2 || next.Summary.Features != 3 || next.DataFile != "data-2.bin" {
		t.Errorf("got %+v", next)
	}
	if _, err := os.Stat(filepath.Join(dir, "datasets", rec.ID, "data-1.bin")); !os.IsNotExist(err) {
		t.Error("the replaced data file remains")
	}
	if _, err := s.Relabel(context.Background(), rec.ID, []string{"zzz"}, ""); err == nil {
		t.Error("relabel to a missing column: got no error")
	}
	if _, err := s.Relabel(context.Background(), rec.ID, nil, ""); err == nil {
		t.Error("relabel to no label: got no error")
	}
	cur, _ := s.Dataset(rec.ID)
	if cur.Gen != 2 {
		t.Errorf("refused relabels changed the record: gen %d", cur.Gen)
	}
	ds, err := s.LoadDataset(rec.ID)
	if err != nil || ds.Features.Len() != 3 {
		t.Errorf("after relabel: %v", err)
	}
}

func TestConcurrentImports(t *testing.T) {
	s := open(t, t.TempDir())
	defer s.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for range 20 {
		wg.Go(func() {
			_, err := s.Import(context.Background(), Upload{FileName: "c.csv", Source: strings.NewReader(csvA)})
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if recs, _ := s.Datasets(); len(recs) != 20 {
		t.Errorf("got %d data sets, want 20", len(recs))
	}
}

func TestCanceledImportStoresNothing(t *testing.T) {
	s := open(t, t.TempDir())
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Import(ctx, Upload{FileName: "c.csv", Source: strings.NewReader(csvA)}); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
	if recs, _ := s.Datasets(); len(recs) != 0 {
		t.Errorf("got %d data sets", len(recs))
	}
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{300: "300 B", 1024: "1 KiB", 1 << 30: "1 GiB", 1536 << 10: "1.5 MiB"} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestDisplayName(t *testing.T) {
	for _, tc := range [][3]string{{"", "yeast.csv", "yeast"}, {" mine ", "x.csv", "mine"}, {"", `C:\data\scene.arff`, "scene"}, {"", "", "untitled"}, {"", "../../x.csv", "x"}} {
		if got := displayName(tc[0], tc[1]); got != tc[2] {
			t.Errorf("displayName(%q, %q) = %q, want %q", tc[0], tc[1], got, tc[2])
		}
	}
}

// Concurrent relabels of one data set all land, one after another, and the
// record always names a data file that exists.
func TestConcurrentRelabels(t *testing.T) {
	s := open(t, t.TempDir())
	defer s.Close()
	rec := importCSV(t, s, "a", csvA)
	choices := [][]string{{"label:x"}, {"label:y"}, {"label:x", "label:y"}, {"b", "label:y"}}
	var wg sync.WaitGroup
	for i := range 12 {
		wg.Go(func() {
			if _, err := s.Relabel(context.Background(), rec.ID, choices[i%len(choices)], ""); err != nil {
				t.Errorf("relabel %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	cur, _ := s.Dataset(rec.ID)
	if cur.Gen != 13 {
		t.Errorf("got gen %d, want 13 after 12 relabels", cur.Gen)
	}
	if _, err := s.LoadDataset(rec.ID); err != nil {
		t.Errorf("after concurrent relabels the data do not load: %v", err)
	}
}
