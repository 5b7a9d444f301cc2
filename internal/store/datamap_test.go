//go:build linux

package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"mldr/internal/dataset"
)

// sparseCSV is a data set of 701 rows and 100 features, one of them not
// zero in each row: it is stored sparse, with an odd number of entries.
func sparseCSV() string {
	var b strings.Builder
	for j := range 100 {
		fmt.Fprintf(&b, "f%d,", j)
	}
	b.WriteString("label:x,label:y\n")
	for i := range 701 {
		for j := range 100 {
			if j == i%100 {
				fmt.Fprintf(&b, "%d.25,", i+1)
			} else {
				b.WriteString("0,")
			}
		}
		fmt.Fprintf(&b, "%d,%d\n", i%2, i/350%2)
	}
	return b.String()
}

// mappedFiles returns files over dir that map the data sets of recs,
// keeping up to budget bytes, and a pointer to the bytes mapped as the
// files last reported them.
func mappedFiles(dir string, budget int64, recs ...DatasetRecord) (*Files, *int64) {
	f := OpenFiles(dir, nil)
	var mapped int64
	f.CacheData(budget)
	f.MapData(func(n int64) { mapped = n })
	f.KeepData(recs)
	return f, &mapped
}

// storedSize is the size of rec's data file.
func storedSize(t *testing.T, dir string, rec DatasetRecord) int64 {
	t.Helper()
	st, err := os.Stat(filepath.Join(dir, "datasets", rec.ID, rec.DataFile))
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

// bitsOf is every number of ds's matrices as bits: X (or the sparse
// arrays), then Y.
func bitsOf(ds *dataset.Dataset) []uint64 {
	var out []uint64
	floats := func(v []float64) {
		for _, x := range v {
			out = append(out, math.Float64bits(x))
		}
	}
	if m := ds.Sparse; m != nil {
		for _, p := range m.Ptr {
			out = append(out, uint64(p))
		}
		for _, j := range m.Ind {
			out = append(out, uint64(j))
		}
		floats(m.Val)
	} else {
		floats(ds.X.RawMatrix().Data)
	}
	return append(out, bitsOfY(ds)...)
}

func bitsOfY(ds *dataset.Dataset) []uint64 {
	var out []uint64
	for _, x := range ds.Y.RawMatrix().Data {
		out = append(out, math.Float64bits(x))
	}
	return out
}

// within reports whether v's memory lies in b.
func within(v []float64, b []byte) bool {
	if len(v) == 0 || len(b) == 0 {
		return false
	}
	p, lo := uintptr(unsafe.Pointer(&v[0])), uintptr(unsafe.Pointer(&b[0]))
	return p >= lo && p+8*uintptr(len(v)) <= lo+uintptr(len(b))
}

// unpadDense rewrites the dense data file p as files were written before
// the header was padded, its arrays 4 bytes past a multiple of 8.
func unpadDense(t *testing.T, p string) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	at := 16 + int(binary.LittleEndian.Uint64(b[8:16]))
	h := slices.Clone([]byte(strings.TrimRight(string(b[16:at]), " ")))
	for (16+len(h))%8 != 4 {
		h = append(h, ' ')
	}
	out := append(binary.LittleEndian.AppendUint64(slices.Clone(b[:8]), uint64(len(h))), h...)
	out = append(out, b[at:len(b)-4]...)
	out = binary.LittleEndian.AppendUint32(out, crc32.Checksum(out, crc32.MakeTable(crc32.Castagnoli)))
	if err := os.WriteFile(p, out, 0o600); err != nil {
		t.Fatal(err)
	}
}

// A data set the cache keeps is mapped, and gives bit for bit what the
// read gives: dense and sparse, and a file written before the header was
// padded, which is read by a copy and unmapped at once.
func TestMappedLoad(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	dense, sp, old := importCSV(t, s, "dense", csvA), importCSV(t, s, "sparse", sparseCSV()), importCSV(t, s, "old", csvA)
	s.Close()
	unpadDense(t, filepath.Join(dir, "datasets", old.ID, old.DataFile))
	for _, c := range []struct {
		rec        DatasetRecord
		wantSparse bool
		wantMapped bool
	}{{dense, false, true}, {sp, true, true}, {old, false, false}} {
		t.Run(c.rec.Name, func(t *testing.T) {
			want, err := OpenFiles(dir, nil).LoadRecord(c.rec)
			if err != nil {
				t.Fatalf("read: got %v, want no error", err)
			}
			f, mapped := mappedFiles(dir, 1<<20, c.rec)
			got, err := f.LoadRecord(c.rec)
			if err != nil {
				t.Fatalf("mapped: got %v, want no error", err)
			}
			if got.IsSparse() != c.wantSparse || want.IsSparse() != c.wantSparse {
				t.Errorf("got sparse %v (read %v), want %v", got.IsSparse(), want.IsSparse(), c.wantSparse)
			}
			if g, w := bitsOf(got), bitsOf(want); !slices.Equal(g, w) {
				t.Errorf("got %v, want %v", g, w)
			}
			size := storedSize(t, dir, c.rec)
			wantBytes := int64(0)
			if c.wantMapped {
				wantBytes = size
			}
			if *mapped != wantBytes {
				t.Errorf("got %d bytes mapped, want %d", *mapped, wantBytes)
			}
			e := f.data.entries[filepath.Join(dir, "datasets", c.rec.ID, c.rec.DataFile)]
			if e == nil {
				t.Fatal("got no cache entry, want the data set kept")
			}
			m := e.Value.(*dataEntry).mapping
			if in := within(got.Y.RawMatrix().Data, m); in != c.wantMapped {
				t.Errorf("got Y in the mapping %v, want %v", in, c.wantMapped)
			}
			f.KeepData(nil)
			if *mapped != 0 {
				t.Errorf("after KeepData(nil): got %d bytes mapped, want 0", *mapped)
			}
		})
	}
}

// The mapped load finds what the read finds: a damaged file is refused
// (and unmapped at once), and a file changed in place after it was
// mapped and kept is verified again at its next load and refused.
func TestMappedLoadCorrupt(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	a, b := importCSV(t, s, "a", csvA), importCSV(t, s, "b", csvA)
	s.Close()
	pa, pb := filepath.Join(dir, "datasets", a.ID, a.DataFile), filepath.Join(dir, "datasets", b.ID, b.DataFile)

	flipValue(t, pa)
	f, mapped := mappedFiles(dir, 1<<20, a, b)
	if _, err := f.LoadRecord(a); !errors.Is(err, dataset.ErrCorrupt) {
		t.Errorf("a damaged file: got %v, want an error wrapping dataset.ErrCorrupt", err)
	}
	if *mapped != 0 || len(f.data.retired) != 0 {
		t.Errorf("after the refusal: got %d bytes mapped, %d retired, want none", *mapped, len(f.data.retired))
	}

	first, err := f.LoadRecord(b)
	if err != nil {
		t.Fatal(err)
	}
	flipValue(t, pb) // in place: the mapping sees it, the file's times change
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(pb, later, later); err != nil { // the coarse clock may not have moved
		t.Fatal(err)
	}
	if _, err := f.LoadRecord(b); !errors.Is(err, dataset.ErrCorrupt) {
		t.Errorf("a file changed in place after its load: got %v, want an error wrapping dataset.ErrCorrupt", err)
	}
	// The first load's mapping is retired, not unmapped: still readable.
	if got := len(bitsOfY(first)); got != 3*2 {
		t.Errorf("the first load's Y: got %d values, want 6", got)
	}
	if want := storedSize(t, dir, b); *mapped != want || len(f.data.retired) != 1 {
		t.Errorf("got %d bytes mapped and %d retired, want %d and 1", *mapped, len(f.data.retired), want)
	}
	f.KeepData(nil)
	if *mapped != 0 || len(f.data.retired) != 0 {
		t.Errorf("after KeepData(nil): got %d bytes mapped, %d retired, want none", *mapped, len(f.data.retired))
	}
}

// The rule for unmapping: a mapping is unmapped only by KeepData. A data
// set evicted by another load stays readable until then (a job that
// reads two data sets goes on using the first); jobs in a row on data
// sets in turn keep at most the budget plus what was evicted since the
// last KeepData, and KeepData(nil) leaves nothing mapped.
func TestUnmapRule(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	a, b := importCSV(t, s, "a", csvA), importCSV(t, s, "b", sparseCSV())
	s.Close()
	sa, sb := storedSize(t, dir, a), storedSize(t, dir, b)
	wantA, _ := OpenFiles(dir, nil).LoadRecord(a)
	wantB, _ := OpenFiles(dir, nil).LoadRecord(b)
	f, mapped := mappedFiles(dir, max(sa, sb), a, b) // room for one

	t.Run("evicted during a job", func(t *testing.T) {
		dsA, err := f.LoadRecord(a)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.LoadRecord(b); err != nil { // evicts a
			t.Fatal(err)
		}
		if _, ok := f.data.entries[filepath.Join(dir, "datasets", a.ID, a.DataFile)]; ok {
			t.Fatal("a is still kept, want it evicted by b")
		}
		if got, want := bitsOf(dsA), bitsOf(wantA); !slices.Equal(got, want) {
			t.Errorf("a after its eviction: got %v, want %v", got, want)
		}
		if *mapped != sa+sb {
			t.Errorf("got %d bytes mapped, want %d (b kept, a retired)", *mapped, sa+sb)
		}
		f.KeepData([]DatasetRecord{b}) // the next job, on b
		if *mapped != sb {
			t.Errorf("after the next job's KeepData: got %d bytes mapped, want %d", *mapped, sb)
		}
		again, err := f.LoadRecord(b)
		if err != nil || !within(again.Y.RawMatrix().Data, f.data.entries[filepath.Join(dir, "datasets", b.ID, b.DataFile)].Value.(*dataEntry).mapping) {
			t.Errorf("b in the next job: got %v, want it from the kept mapping", err)
		}
	})
	t.Run("jobs in a row", func(t *testing.T) {
		for i := range 60 {
			rec, want := a, wantA
			if i%3 == 2 {
				rec, want = b, wantB
			}
			f.KeepData([]DatasetRecord{rec}) // a job starts
			ds, err := f.LoadRecord(rec)
			if err != nil {
				t.Fatalf("job %d: got %v, want no error", i+1, err)
			}
			if !slices.Equal(bitsOf(ds), bitsOf(want)) {
				t.Fatalf("job %d: got other numbers than the read gives", i+1)
			}
			if *mapped > max(sa, sb) {
				t.Fatalf("job %d: got %d bytes mapped, want at most the budget %d", i+1, *mapped, max(sa, sb))
			}
		}
		f.KeepData(nil)
		if *mapped != 0 || len(f.data.retired) != 0 || f.data.order.Len() != 0 {
			t.Errorf("after KeepData(nil): got %d bytes mapped, %d retired, %d kept, want none", *mapped, len(f.data.retired), f.data.order.Len())
		}
	})
}
