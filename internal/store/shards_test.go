package store_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/dataset"
	"mldr/internal/store"
)

// shardedSparseCSV is 900 rows of 200 features, 3 of them not zero in
// each row (stored sparse), and 3 labels.
func shardedSparseCSV() string {
	var b strings.Builder
	for j := range 200 {
		fmt.Fprintf(&b, "f%d,", j)
	}
	b.WriteString("label:x,label:y,label:z\n")
	for i := range 900 {
		for j := range 200 {
			if j == i%200 || j == (i*7+3)%200 || j == (i*13+11)%200 {
				fmt.Fprintf(&b, "%d.125,", i+j+1)
			} else {
				b.WriteString("0,")
			}
		}
		fmt.Fprintf(&b, "%d,%d,%d\n", i%2, i/300%2, i%5/4)
	}
	return b.String()
}

// multiDimCSV is faultCSV's features with two class variables of 3 and 4
// categories.
func multiDimCSV() string {
	var b strings.Builder
	b.WriteString("a,b,c,label:p,label:q\n")
	for i := range 1000 {
		fmt.Fprintf(&b, "%d.25,%d.5,%d,%s,%s\n", i, i%17, i%5, []string{"lo", "mid", "hi"}[i%3], []string{"n", "e", "s", "w"}[i/7%4])
	}
	return b.String()
}

func openSharded(t *testing.T, dir string, shardSize int64) *store.Store {
	t.Helper()
	s, err := store.Open(store.Config{Dir: dir, ShardSize: shardSize})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// sameData fails unless got and want hold the same names and, bit for
// bit, the same matrices.
func sameData(t *testing.T, what string, got, want *dataset.Dataset) {
	t.Helper()
	if got.Name != want.Name || !got.Features.Equal(want.Features) || !got.Labels.Equal(want.Labels) ||
		got.Kind != want.Kind || !reflect.DeepEqual(got.Categories, want.Categories) || !slices.Equal(got.Warnings, want.Warnings) ||
		!slices.Equal(got.Columns, want.Columns) || !slices.Equal(got.LabelColumns, want.LabelColumns) {
		t.Errorf("%s: got names %q %q %q %v, want %q %q %q %v", what, got.Name, got.Features, got.Labels, got.Kind, want.Name, want.Features, want.Labels, want.Kind)
	}
	if (got.Sparse == nil) != (want.Sparse == nil) {
		t.Fatalf("%s: got sparse %v, want %v", what, got.Sparse != nil, want.Sparse != nil)
	}
	if want.Sparse != nil {
		g, w := got.Sparse, want.Sparse
		if g.R != w.R || g.C != w.C || !slices.Equal(g.Ptr, w.Ptr) || !slices.Equal(g.Ind, w.Ind) || !bitsEqual(g.Val, w.Val) {
			t.Errorf("%s: got a sparse %d×%d with %d values, want %d×%d with %d, or they differ", what, g.R, g.C, len(g.Val), w.R, w.C, len(w.Val))
		}
	} else if !denseEqual(got.X, want.X) {
		t.Errorf("%s: got X %v, want %v", what, dimsOf(got.X), dimsOf(want.X))
	}
	if !denseEqual(got.Y, want.Y) {
		t.Errorf("%s: got Y %v, want %v, or they differ", what, dimsOf(got.Y), dimsOf(want.Y))
	}
}

func dimsOf(m *mat.Dense) [2]int { r, c := m.Dims(); return [2]int{r, c} }

func denseEqual(a, b *mat.Dense) bool {
	if dimsOf(a) != dimsOf(b) {
		return false
	}
	r, _ := a.Dims()
	for i := range r {
		if !bitsEqual(a.RawRowView(i), b.RawRowView(i)) {
			return false
		}
	}
	return true
}

func bitsEqual(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

// A data set larger than the shard size is stored in row shards (the last
// one short) with their manifest, and loads equal, bit for bit, to the
// same file stored whole; each shard loads as its rows, dense or sparse.
func TestShardedLoadsEqual(t *testing.T) {
	cases := []struct {
		name      string
		body      string
		shardSize int64
		shards    int
		sparse    bool
	}{
		{"dense", faultCSV, faultShardSize, 4, false},
		{"sparse", shardedSparseCSV(), 20 << 10, 4, true},
		{"multi-dimensional", multiDimCSV(), 16 << 10, 3, false},
		{"one row a shard", strings.Join(strings.SplitAfter(faultCSV, "\n")[:6], ""), 1, 5, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			whole := openSharded(t, t.TempDir(), -1)
			dir := t.TempDir()
			sharded := openSharded(t, dir, tc.shardSize)
			wrec := importBody(t, whole, "d", tc.body)
			srec := importBody(t, sharded, "d", tc.body)
			if wrec.Shards != nil || wrec.DataFile != "data-1.bin" {
				t.Errorf("ShardSize -1: got shards %+v in %s, want none in data-1.bin", wrec.Shards, wrec.DataFile)
			}
			if len(srec.Shards) != tc.shards || srec.DataFile != "data-1" {
				t.Fatalf("got %d shards in %s, want %d in data-1", len(srec.Shards), srec.DataFile, tc.shards)
			}
			rows := 0
			for i, sh := range srec.Shards {
				rows += sh.Rows
				st, err := os.Stat(filepath.Join(dir, "datasets", srec.ID, "data-1", fmt.Sprintf("shard-%04d.bin", i+1)))
				if err != nil || st.Size() != sh.Bytes {
					t.Errorf("shard %d: got %v, want a file of %d bytes", i+1, err, sh.Bytes)
				}
				if sh.Bytes > tc.shardSize && sh.Rows > 1 {
					t.Errorf("shard %d: %d bytes, more than the shard size %d", i+1, sh.Bytes, tc.shardSize)
				}
				if (sh.NonZeros > 0) != tc.sparse {
					t.Errorf("shard %d: got %d non-zero values, want them counted only when sparse", i+1, sh.NonZeros)
				}
			}
			if last := srec.Shards[len(srec.Shards)-1]; rows != wrec.Summary.Rows || last.Rows > srec.Shards[0].Rows {
				t.Errorf("got %d rows in shards %+v, want %d, the last shard no longer than the first", rows, srec.Shards, wrec.Summary.Rows)
			}
			if _, err := os.Stat(filepath.Join(dir, "datasets", srec.ID, "data-1", "shards.json")); err != nil {
				t.Errorf("no manifest: %v", err)
			}
			want, err := whole.LoadDataset(wrec.ID)
			if err != nil {
				t.Fatal(err)
			}
			if want.IsSparse() != tc.sparse {
				t.Fatalf("the data set is stored sparse %v, want %v", want.IsSparse(), tc.sparse)
			}
			got, err := sharded.LoadDataset(srec.ID)
			if err != nil {
				t.Fatal(err)
			}
			sameData(t, "the whole", got, want)
			// A second store on the directory (another process) reads the
			// shards again.
			got, err = store.OpenFiles(dir, nil).LoadRecord(srec)
			if err != nil {
				t.Fatal(err)
			}
			sameData(t, "the whole in other files", got, want)
			from := 0
			for i, sh := range srec.Shards {
				part, release, err := sharded.LoadShard(srec, i)
				if err != nil {
					t.Fatalf("shard %d: %v", i+1, err)
				}
				sameData(t, fmt.Sprintf("shard %d", i+1), part, rowsOf(want, from, from+sh.Rows))
				release()
				from += sh.Rows
			}
			// A worker's files map each shard, and unmap it at release.
			var mapped int64
			files := store.OpenFiles(dir, nil)
			files.MapData(func(n int64) { mapped = n })
			from = 0
			for i, sh := range srec.Shards {
				part, release, err := files.LoadShard(srec, i)
				if err != nil {
					t.Fatalf("shard %d, mapped: %v", i+1, err)
				}
				sameData(t, fmt.Sprintf("shard %d, mapped", i+1), part, rowsOf(want, from, from+sh.Rows))
				if runtime.GOOS == "linux" && mapped != sh.Bytes {
					t.Errorf("shard %d: got %d bytes mapped, want its %d", i+1, mapped, sh.Bytes)
				}
				release()
				if mapped != 0 {
					t.Errorf("shard %d released: got %d bytes mapped, want 0", i+1, mapped)
				}
				from += sh.Rows
			}
			if _, _, err := sharded.LoadShard(srec, len(srec.Shards)); err == nil || !strings.Contains(err.Error(), "no shard") {
				t.Errorf("shard %d of %d: got %v, want an error saying there is no such shard", len(srec.Shards)+1, len(srec.Shards), err)
			}
			part, release, err := whole.LoadShard(wrec, 0)
			if err != nil {
				t.Fatal(err)
			}
			sameData(t, "shard 1 of a data set in one file", part, want)
			release()
		})
	}
}

// rowsOf is rows [from, to) of ds, copied.
func rowsOf(ds *dataset.Dataset, from, to int) *dataset.Dataset {
	c := *ds
	_, q := ds.Y.Dims()
	c.Y = mat.DenseCopyOf(ds.Y.Slice(from, to, 0, q))
	if m := ds.Sparse; m != nil {
		idx := make([]int, to-from)
		for i := range idx {
			idx[i] = from + i
		}
		c.Sparse = m.SelectRows(idx)
		return &c
	}
	_, d := ds.X.Dims()
	c.X = mat.DenseCopyOf(ds.X.Slice(from, to, 0, d))
	return &c
}

// A relabel writes the next generation's shards and removes the last's;
// a delete removes the shard directory; recovery removes a shard
// directory no record names and one a crash left half written.
func TestShardedRelabelDeleteRecover(t *testing.T) {
	dir := t.TempDir()
	s := openSharded(t, dir, faultShardSize)
	rec := importBody(t, s, "d", faultCSV)
	next, err := s.Relabel(context.Background(), rec.ID, []string{"label:x", "c"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if next.DataFile != "data-2" || len(next.Shards) != 4 {
		t.Fatalf("after the relabel: got %s with %d shards, want data-2 with 4", next.DataFile, len(next.Shards))
	}
	if _, err := os.Stat(filepath.Join(dir, "datasets", rec.ID, "data-1")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the replaced shards: got %v, want them gone", err)
	}
	ds, err := s.LoadDataset(rec.ID)
	if err != nil || !slices.Equal(ds.Labels.Strings(), []string{"c", "x"}) || ds.Rows() != faultRows {
		t.Fatalf("after the relabel: got %v, %v", ds, err)
	}
	// Under a shard size larger than the data set, it is stored whole.
	small := openSharded(t, dir+"-small", 1<<20)
	srec := importBody(t, small, "d", faultCSV)
	if srec.Shards != nil {
		t.Fatalf("got %d shards under a shard size of 1 MiB", len(srec.Shards))
	}

	// A crash's leftovers: the last generation's shards, and a
	// half-written next one.
	ds2 := filepath.Join(dir, "datasets", rec.ID)
	if err := os.CopyFS(filepath.Join(ds2, "data-1"), os.DirFS(filepath.Join(ds2, "data-2"))); err != nil {
		t.Fatal(err)
	}
	half := filepath.Join(ds2, ".tmp-data-3-123")
	if err := os.MkdirAll(half, 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(half, "shard-0001.bin"), []byte("MLDRDS"), 0o640); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = openSharded(t, dir, faultShardSize)
	entries, err := os.ReadDir(ds2)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{"data-2", "details-2.bin", "source"}; !slices.Equal(names, want) {
		t.Errorf("after recovery: got %q, want %q", names, want)
	}
	if _, err := s.LoadDataset(rec.ID); err != nil {
		t.Fatalf("after recovery: %v", err)
	}
	if err := s.DeleteDataset(rec.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(ds2); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after the delete: got %v, want the data set's directory gone", err)
	}
}

// A damaged shard, a missing one or a manifest that does not match the
// record is reported as corrupt or missing, never loaded.
func TestShardedCorrupt(t *testing.T) {
	cases := []struct {
		name   string
		damage func(t *testing.T, dir string)
		want   error
		shard  int // the shard LoadShard is asked for
	}{
		{"a flipped bit", func(t *testing.T, dir string) { flip(t, filepath.Join(dir, "shard-0002.bin"), 900) }, dataset.ErrCorrupt, 1},
		{"a missing shard", func(t *testing.T, dir string) { must(t, os.Remove(filepath.Join(dir, "shard-0003.bin"))) }, os.ErrNotExist, 2},
		{"another manifest", func(t *testing.T, dir string) {
			must(t, os.WriteFile(filepath.Join(dir, "shards.json"), []byte(`{"version":1,"shards":[{"rows":1000,"bytes":1}]}`), 0o640))
		}, dataset.ErrCorrupt, -1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s := openSharded(t, dir, faultShardSize)
			rec := importBody(t, s, "d", faultCSV)
			tc.damage(t, filepath.Join(dir, "datasets", rec.ID, rec.DataFile))
			if _, err := store.OpenFiles(dir, nil).LoadRecord(rec); !errors.Is(err, tc.want) {
				t.Errorf("LoadRecord: got %v, want an error wrapping %v", err, tc.want)
			}
			if tc.shard < 0 {
				return
			}
			if _, _, err := store.OpenFiles(dir, nil).LoadShard(rec, tc.shard); !errors.Is(err, tc.want) || !strings.Contains(err.Error(), fmt.Sprintf("shard %d of 4", tc.shard+1)) {
				t.Errorf("LoadShard: got %v, want an error wrapping %v that names shard %d of 4", err, tc.want, tc.shard+1)
			}
		})
	}
}
