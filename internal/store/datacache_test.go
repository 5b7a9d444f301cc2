package store

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"mldr/internal/dataset"
)

// frozenFS is OSFS whose opened files describe themselves as they were
// when freeze was called: a file changed behind its back keeps its
// identity, as a bit flipped on the medium does.
type frozenFS struct {
	OSFS
	st map[string]fs.FileInfo
}

type frozenFile struct {
	File
	st fs.FileInfo
}

func (f frozenFile) Stat() (fs.FileInfo, error) { return f.st, nil }

func (z *frozenFS) Open(name string) (File, error) {
	f, err := z.OSFS.Open(name)
	if err != nil || z.st[name] == nil {
		return f, err
	}
	return frozenFile{f, z.st[name]}, nil
}

func (z *frozenFS) freeze(t *testing.T, name string) {
	t.Helper()
	st, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	z.st[name] = st
}

// flipValue changes in place the lowest bit of the last feature value of
// a data set stored from csvA (3 rows, 2 labels after it, then the
// checksum): a number still, so only the checksum can tell.
func flipValue(t *testing.T, p string) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-4-8*3*2-8] ^= 0x01
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// A data file's checksum is verified at its first load and whenever the
// file is not the one verified (in place rewrite, replacement); a file
// with the identity of a verified one is read without it.
func TestDataFileVerifiedOnce(t *testing.T) {
	for _, c := range []struct {
		name       string
		change     func(t *testing.T, z *frozenFS, p string)
		wantErr    bool // the load after the change is refused as corrupt
		wantFrozen bool // the file kept the identity it was verified with
	}{
		{"unchanged", func(*testing.T, *frozenFS, string) {}, false, true},
		{"a value flipped, identity kept (a bit flipped on the medium)", func(t *testing.T, z *frozenFS, p string) { flipValue(t, p) }, false, true},
		{"a value flipped, rewritten in place", func(t *testing.T, z *frozenFS, p string) {
			delete(z.st, p)
			flipValue(t, p)
			later := time.Now().Add(time.Hour)
			if err := os.Chtimes(p, later, later); err != nil { // the coarse clock may not have moved
				t.Fatal(err)
			}
		}, true, false},
		{"a value flipped in a copy moved over it", func(t *testing.T, z *frozenFS, p string) {
			delete(z.st, p)
			b, _ := os.ReadFile(p)
			if err := os.WriteFile(p+".new", b, 0o600); err != nil {
				t.Fatal(err)
			}
			flipValue(t, p+".new")
			if err := os.Rename(p+".new", p); err != nil {
				t.Fatal(err)
			}
		}, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			s := open(t, dir)
			rec := importCSV(t, s, "a", csvA)
			s.Close()
			z := &frozenFS{st: map[string]fs.FileInfo{}}
			f := OpenFiles(dir, z)
			p := filepath.Join(dir, "datasets", rec.ID, rec.DataFile)
			z.freeze(t, p)
			if _, err := f.LoadRecord(rec); err != nil {
				t.Fatalf("first load: got %v, want no error", err)
			}
			c.change(t, z, p)
			_, err := f.LoadRecord(rec)
			if got := errors.Is(err, dataset.ErrCorrupt); got != c.wantErr {
				t.Errorf("load after the change: got error %v, want corrupt %v", err, c.wantErr)
			}
			// Without the frozen identity every file is verified again.
			delete(z.st, p)
			_, err = f.LoadRecord(rec)
			wantCorrupt := c.name != "unchanged"
			if got := errors.Is(err, dataset.ErrCorrupt); got != wantCorrupt {
				t.Errorf("load with the file's own identity: got error %v, want corrupt %v", err, wantCorrupt)
			}
		})
	}
}

// CacheData keeps the data sets KeepData allows within its budget: a
// second load of the same file shares the first's matrices, a changed
// file is read (and verified) again, and what KeepData leaves out or the
// budget cannot hold is read every time.
func TestDataCache(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	a, b, c := importCSV(t, s, "a", csvA), importCSV(t, s, "b", csvA), importCSV(t, s, "c", csvA)
	s.Close()
	const size = 8 * 3 * 4 // 3 rows × (2 features + 2 labels)
	for _, tc := range []struct {
		name   string
		budget int64
		keep   []DatasetRecord
		loads  []DatasetRecord
		shared []bool // whether each load shares the matrices of the one before of the same record
	}{
		{"kept", size, []DatasetRecord{a}, []DatasetRecord{a, a, a}, []bool{false, true, true}},
		{"no budget", 0, []DatasetRecord{a}, []DatasetRecord{a, a}, []bool{false, false}},
		{"budget too small", size - 1, []DatasetRecord{a}, []DatasetRecord{a, a}, []bool{false, false}},
		{"not allowed", size, []DatasetRecord{b}, []DatasetRecord{a, a}, []bool{false, false}},
		{"least recently used dropped", size, []DatasetRecord{a, b}, []DatasetRecord{a, b, a, a}, []bool{false, false, false, true}},
		{"room for two", 2 * size, []DatasetRecord{a, b}, []DatasetRecord{a, b, a, b}, []bool{false, false, true, true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := OpenFiles(dir, nil)
			f.CacheData(tc.budget)
			f.KeepData(tc.keep)
			last := map[string]*dataset.Dataset{}
			for i, rec := range tc.loads {
				ds, err := f.LoadRecord(rec)
				if err != nil {
					t.Fatal(err)
				}
				prev := last[rec.ID]
				if got := prev != nil && ds.X == prev.X && ds.Y == prev.Y; got != tc.shared[i] {
					t.Errorf("load %d (%s): got shared %v, want %v", i+1, rec.Name, got, tc.shared[i])
				}
				if prev != nil && ds == prev {
					t.Errorf("load %d: the same *Dataset twice, want a copy a caller may change", i+1)
				}
				last[rec.ID] = ds
			}
		})
	}
	t.Run("changed file read again", func(t *testing.T) {
		f := OpenFiles(dir, nil)
		f.CacheData(size)
		f.KeepData([]DatasetRecord{c})
		if _, err := f.LoadRecord(c); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "datasets", c.ID, c.DataFile)
		flipValue(t, p)
		later := time.Now().Add(time.Hour)
		if err := os.Chtimes(p, later, later); err != nil {
			t.Fatal(err)
		}
		if _, err := f.LoadRecord(c); !errors.Is(err, dataset.ErrCorrupt) {
			t.Errorf("load of the changed file: got %v, want an error wrapping dataset.ErrCorrupt", err)
		}
	})
	t.Run("KeepData drops the others", func(t *testing.T) {
		f := OpenFiles(dir, nil)
		f.CacheData(2 * size)
		f.KeepData([]DatasetRecord{a, b})
		first, _ := f.LoadRecord(a)
		f.LoadRecord(b)
		f.KeepData([]DatasetRecord{b})
		if f.data.bytes != size {
			t.Errorf("after KeepData(b): got %d bytes kept, want %d", f.data.bytes, size)
		}
		f.KeepData([]DatasetRecord{a, b})
		if again, _ := f.LoadRecord(a); again.X == first.X {
			t.Error("a was kept after KeepData left it out")
		}
	})
}
