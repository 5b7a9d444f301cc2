package store_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"mldr/internal/pgmeta"
	"mldr/internal/pgtest"
	"mldr/internal/store"
)

// The store's behaviour is the same on each metadata store: these tests
// run every case on bbolt and on a PostgreSQL database of their own.

const backendCSV = "a,b,label:x,label:y\n1,2,0,1\n3,4,1,1\n5,6,1,0\n"

// backend opens Stores over one metadata store: each call of open gives a
// new Store (a restart) on the same records.
type backend struct {
	name string
	// setup prepares a fresh metadata store for t and returns how to open
	// a Store on dir over it, and a Meta of its own on it.
	setup func(t *testing.T) (open func(t *testing.T, dir string) *store.Store, meta func(t *testing.T, dir string) store.Meta)
}

var fixedNow = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }

var backends = []backend{
	{"bbolt", func(t *testing.T) (func(*testing.T, string) *store.Store, func(*testing.T, string) store.Meta) {
		open := func(t *testing.T, dir string) *store.Store {
			t.Helper()
			s, err := store.Open(store.Config{Dir: dir, Now: fixedNow})
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		meta := func(t *testing.T, dir string) store.Meta {
			t.Helper()
			m, err := store.OpenBoltMeta(filepath.Join(dir, "meta.db"))
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
		return open, meta
	}},
	{"postgres", func(t *testing.T) (func(*testing.T, string) *store.Store, func(*testing.T, string) store.Meta) {
		dsn := pgtest.NewDB(t)
		meta := func(t *testing.T, _ string) store.Meta {
			t.Helper()
			m, err := pgmeta.Open(context.Background(), pgmeta.Config{URL: dsn})
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
		open := func(t *testing.T, dir string) *store.Store {
			t.Helper()
			s, err := store.Open(store.Config{Dir: dir, Now: fixedNow, Meta: meta(t, dir)})
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		return open, meta
	}},
}

// forEachBackend runs test on each backend as a subtest.
func forEachBackend(t *testing.T, test func(t *testing.T, open func(*testing.T, string) *store.Store, meta func(*testing.T, string) store.Meta)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			open, meta := b.setup(t)
			test(t, open, meta)
		})
	}
}

func importBody(t *testing.T, s *store.Store, name, body string) store.DatasetRecord {
	t.Helper()
	rec, err := s.Import(context.Background(), store.Upload{Name: name, FileName: name + ".csv", Source: strings.NewReader(body)})
	if err != nil {
		t.Fatalf("importing %s: %v", name, err)
	}
	return rec
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Data set records: put, get, list newest first, relabel, delete, and all
// of it still there after a restart.
func TestBackendDatasets(t *testing.T) {
	forEachBackend(t, func(t *testing.T, open func(*testing.T, string) *store.Store, _ func(*testing.T, string) store.Meta) {
		dir := t.TempDir()
		s := open(t, dir)
		a := importBody(t, s, "a", backendCSV)
		b := importBody(t, s, "b", backendCSV)
		got, err := s.Dataset(a.ID)
		if err != nil || jsonOf(t, got) != jsonOf(t, a) {
			t.Fatalf("Dataset: got %s, %v; want %s", jsonOf(t, got), err, jsonOf(t, a))
		}
		if _, err := s.Dataset(store.NewID()); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Dataset of an unknown id: got %v, want ErrNotFound", err)
		}
		next, err := s.Relabel(context.Background(), a.ID, []string{"label:x"}, "")
		// In shared mode the name has a random part (see TestSharedRelabelsAtOnce).
		if err != nil || next.Gen != 2 || next.DataFile != "data-2.bin" && !(strings.HasPrefix(next.DataFile, "data-2-") && strings.HasSuffix(next.DataFile, ".bin")) {
			t.Fatalf("Relabel: got gen %d, file %s, %v; want gen 2, data-2.bin (data-2-<random>.bin in shared mode)", next.Gen, next.DataFile, err)
		}
		if err := s.DeleteDataset(b.ID); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteDataset(b.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("second delete: got %v, want ErrNotFound", err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}

		s = open(t, dir)
		defer s.Close()
		recs, err := s.Datasets()
		if err != nil || len(recs) != 1 || jsonOf(t, recs[0]) != jsonOf(t, next) {
			t.Fatalf("after a restart, Datasets: got %d records %v; want the relabelled one alone", len(recs), err)
		}
		ds, err := s.LoadDataset(a.ID)
		if err != nil || ds.Features.Len() != 3 {
			t.Errorf("after a restart, LoadDataset: got %v", err)
		}
		if _, err := os.Stat(filepath.Join(dir, "datasets", b.ID)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the deleted data set's files: got %v, want them gone", err)
		}
	})
}

// UpdateDataset replaces a record only at the generation the caller read.
func TestBackendUpdateDataset(t *testing.T) {
	forEachBackend(t, func(t *testing.T, _ func(*testing.T, string) *store.Store, meta func(*testing.T, string) store.Meta) {
		ctx := context.Background()
		m := meta(t, t.TempDir())
		defer m.Close()
		rec := store.DatasetRecord{ID: store.NewID(), Name: "x", Gen: 1, CreatedAt: fixedNow()}
		if err := m.PutDataset(ctx, rec); err != nil {
			t.Fatal(err)
		}
		next := rec
		next.Gen, next.Name = 2, "y"
		for _, c := range []struct {
			what string
			id   string
			gen  int
			want error
		}{
			{"a stale generation", rec.ID, 5, store.ErrConflict},
			{"an unknown id", store.NewID(), 1, store.ErrNotFound},
			{"the current generation", rec.ID, 1, nil},
			{"the same generation again", rec.ID, 1, store.ErrConflict},
		} {
			if err := m.UpdateDataset(ctx, c.id, c.gen, next); !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
				t.Errorf("UpdateDataset at %s: got %v, want %v", c.what, err, c.want)
			}
		}
		got, err := m.Dataset(ctx, rec.ID)
		if err != nil || got.Gen != 2 || got.Name != "y" {
			t.Errorf("after the update: got gen %d name %q, %v; want gen 2, y", got.Gen, got.Name, err)
		}
		if err := m.DeleteDataset(ctx, rec.ID); err != nil {
			t.Fatal(err)
		}
		if err := m.DeleteDataset(ctx, rec.ID); err != nil {
			t.Errorf("deleting a record that is gone: got %v, want no error", err)
		}
	})
}

// Job records and selections come back byte for byte; deleting a job
// deletes its selections and no other job's.
func TestBackendJobsAndSelections(t *testing.T) {
	forEachBackend(t, func(t *testing.T, open func(*testing.T, string) *store.Store, _ func(*testing.T, string) store.Meta) {
		dir := t.TempDir()
		s := open(t, dir)
		job, other := store.NewID(), store.NewID()
		// Not normalised JSON: keys out of order, spaces, a duplicate key.
		rec := []byte("{\"z\": 1,  \"a\":[1,2], \"a\": \"\\u00e9\"}\n")
		if err := s.SaveJob(job, []byte(`{}`)); err != nil {
			t.Fatal(err)
		}
		if err := s.SaveJob(job, rec); err != nil {
			t.Fatal(err)
		}
		if err := s.SaveJob(other, []byte(`{"other":true}`)); err != nil {
			t.Fatal(err)
		}
		if err := s.SaveJob("../x", rec); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("SaveJob with a bad id: got %v, want ErrNotFound", err)
		}
		for _, c := range []struct{ job, name, data string }{{job, "a", `{"rows":[1]}`}, {job, "b c", `{"rows": [2] }`}, {other, "a", `{"rows":[3]}`}, {job, "a", `{"rows":[4]}`}} {
			if err := s.SaveSelection(c.job, c.name, []byte(c.data)); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}

		s = open(t, dir)
		defer s.Close()
		jobs, err := s.LoadJobs()
		if err != nil || len(jobs) != 2 || !bytes.Equal(jobs[job], rec) {
			t.Fatalf("LoadJobs: got %q, %v; want 2 jobs, the first's bytes %q", jobs, err, rec)
		}
		sels, err := s.Selections(job)
		if err != nil || len(sels) != 2 || string(sels["a"]) != `{"rows":[4]}` || string(sels["b c"]) != `{"rows": [2] }` {
			t.Fatalf("Selections: got %q, %v", sels, err)
		}
		if err := s.DeleteSelection(job, "b c"); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteSelection(job, "b c"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("deleting a selection twice: got %v, want ErrNotFound", err)
		}
		if err := s.DeleteJob(job); err != nil {
			t.Fatal(err)
		}
		if sels, _ := s.Selections(job); len(sels) != 0 {
			t.Errorf("the deleted job's selections are left: %q", sels)
		}
		if sels, _ := s.Selections(other); len(sels) != 1 {
			t.Errorf("another job's selections: got %q, want its one", sels)
		}
		if err := s.DeleteJob(job); err != nil {
			t.Errorf("deleting a job that is gone: got %v, want no error", err)
		}
		if jobs, _ := s.LoadJobs(); len(jobs) != 1 || jobs[other] == nil {
			t.Errorf("after the delete, LoadJobs: got %q, want the other job alone", jobs)
		}
	})
}

// Twenty imports at once all land.
func TestBackendConcurrentImports(t *testing.T) {
	forEachBackend(t, func(t *testing.T, open func(*testing.T, string) *store.Store, _ func(*testing.T, string) store.Meta) {
		s := open(t, t.TempDir())
		defer s.Close()
		var wg sync.WaitGroup
		errs := make(chan error, 20)
		for range 20 {
			wg.Go(func() {
				_, err := s.Import(context.Background(), store.Upload{FileName: "c.csv", Source: strings.NewReader(backendCSV)})
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
	})
}

// After a crash, Open removes what no record names once it is old enough
// for no process to be committing it (at once with bbolt, after an hour in
// the shared mode), and keeps records whose files are gone, with a
// problem.
func TestBackendRecovery(t *testing.T) {
	forEachBackend(t, func(t *testing.T, open func(*testing.T, string) *store.Store, _ func(*testing.T, string) store.Meta) {
		dir := t.TempDir()
		s := open(t, dir)
		keep := importBody(t, s, "keep", backendCSV)
		gone := importBody(t, s, "gone", backendCSV)
		job := store.NewID()
		if err := s.SaveJob(job, []byte(`{}`)); err != nil {
			t.Fatal(err)
		}
		s.Close()

		old := time.Now().Add(-25 * time.Hour)
		mk := func(p string) string {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
			os.Chtimes(p, old, old)
			os.Chtimes(filepath.Dir(p), old, old)
			return p
		}
		staged := filepath.Dir(mk(filepath.Join(dir, "tmp", "upload-123", "source")))
		orphan := filepath.Dir(mk(filepath.Join(dir, "datasets", "orphanorphanorph", "data-1.bin")))
		stale := mk(filepath.Join(dir, "datasets", keep.ID, "data-2.bin"))
		results := filepath.Dir(mk(filepath.Join(dir, "jobs", store.NewID(), "metrics.json")))
		kept := filepath.Dir(mk(filepath.Join(dir, "jobs", job, "metrics.json")))
		if err := os.RemoveAll(filepath.Join(dir, "datasets", gone.ID)); err != nil {
			t.Fatal(err)
		}

		s = open(t, dir)
		defer s.Close()
		for _, p := range []string{staged, orphan, stale, results} {
			if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s: got %v after recovery, want it removed", p, err)
			}
		}
		if _, err := os.Stat(kept); err != nil {
			t.Errorf("the results of a recorded job: got %v, want them kept", err)
		}
		if _, err := s.LoadDataset(keep.ID); err != nil {
			t.Errorf("the intact data set does not load: %v", err)
		}
		if p := s.Problem(gone.ID); !strings.Contains(p, "missing") {
			t.Errorf("got problem %q for the data set whose files vanished, want one saying they are missing", p)
		}
		if recs, _ := s.Datasets(); len(recs) != 2 {
			t.Errorf("got %d records, want 2 (none dropped silently)", len(recs))
		}
	})
}

// Two processes (two Stores on one data directory and one database)
// relabel a data set at once: whichever commits, the file its record
// names is there, and the data set loads. With the same data file name
// for both, the loser would remove the winner's file.
func TestSharedRelabelsAtOnce(t *testing.T) {
	_, meta := backends[1].setup(t)
	dir := t.TempDir()
	open := func() *store.Store {
		s, err := store.Open(store.Config{Dir: dir, Meta: meta(t, dir)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	// b opens after the import: one test process is one host and pid, so
	// b's recovery takes a's staging directory for its own stale one.
	a := open()
	rec := importBody(t, a, "r", backendCSV)
	b := open()
	for round := range 8 {
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, s := range []*store.Store{a, b} {
			wg.Go(func() {
				_, errs[i] = s.Relabel(context.Background(), rec.ID, []string{"label:x"}, "")
			})
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil && !errors.Is(err, store.ErrConflict) {
				t.Fatalf("round %d, process %d: %v", round, i, err)
			}
		}
		cur, err := a.Dataset(rec.ID)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir, "datasets", rec.ID, cur.DataFile)); err != nil {
			t.Fatalf("round %d: the data file the record names (%s): %v", round, cur.DataFile, err)
		}
		if _, err := b.LoadDataset(rec.ID); err != nil {
			t.Fatalf("round %d: loading the relabelled data set: %v", round, err)
		}
	}
}
