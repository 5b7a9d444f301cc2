package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/dataset"
	"mldr/internal/sparse"
)

// Data sets stored in row shards. A data set whose stored form
// (dataset.WriteBinary) would exceed the store's shard size
// (Config.ShardSize) is stored as a directory of row shards instead of one
// data file:
//
//	datasets/<id>/data-<gen>/shard-0001.bin   rows 1…n₁, an ordinary data
//	datasets/<id>/data-<gen>/shard-0002.bin   file (dense or sparse as the
//	…                                          whole, its own CRC-32C)
//	datasets/<id>/data-<gen>/shards.json      the manifest: rows (and
//	                                           non-zero values) per shard
//
// The record's DataFile is then "data-<gen>" and its Shards list the same
// counts as the manifest. The directory is written as a data file is: in a
// temporary directory beside it (each file written and synced, the
// manifest last, the directory synced), renamed into place, and the parent
// synced; only then is the record committed. A crash leaves at worst a
// directory no record names, which Open removes.
//
// LoadRecord concatenates the shards, so that every reader of a whole data
// set is unchanged; LoadShard reads one shard alone, for the jobs that fit
// a data set larger than their memory one shard at a time.

// DefaultShardSize is the shard size when Config.ShardSize is 0: data
// sets whose stored form is larger are stored in row shards of at most
// about this many bytes.
const DefaultShardSize = 256 << 20

// shardManifest is the manifest of a shard directory.
const shardManifest = "shards.json"

// ShardInfo describes one row shard of a data set stored in shards.
type ShardInfo struct {
	// Rows is the number of rows of the shard; the shards hold the data
	// set's rows in order.
	Rows int `json:"rows"`
	// NonZeros is the shard's non-zero feature values when the data set
	// is stored sparse, else 0.
	NonZeros int64 `json:"nnz,omitempty"`
	// Bytes is the size of the shard's file.
	Bytes int64 `json:"bytes"`
}

// manifestFile is the content of shardManifest.
type manifestFile struct {
	Version int         `json:"version"`
	Shards  []ShardInfo `json:"shards"`
}

// ShardCount is the number of row shards of the data set rec describes:
// 1 for a data set stored in one file.
func ShardCount(rec DatasetRecord) int { return max(1, len(rec.Shards)) }

// shardFile is the name of shard i (0-based) in its directory.
func shardFile(i int) string { return fmt.Sprintf("shard-%04d.bin", i+1) }

// dataName is the name of generation gen's data: data-<gen>.bin for one
// file, data-<gen> for a shard directory.
func dataName(gen int, tag string, sharded bool) string {
	name := fmt.Sprintf("data-%d", gen)
	if tag != "" {
		name += "-" + tag
	}
	if sharded {
		return name
	}
	return name + ".bin"
}

// writeData writes ds, generation gen of a data set, in directory dir:
// as one data file when its stored form takes at most shardSize bytes
// (≤ 0: always), else as a directory of row shards. It returns the name
// written (DatasetRecord.DataFile) and the shards (nil for one file). A
// tag, when given, makes the name unique ("data-<gen>-<tag>.bin"): in the
// shared mode two processes may relabel one data set at once, and neither
// may overwrite or remove the file the other's record names. On error
// nothing is left in dir.
func writeData(fsys FS, dir string, gen int, tag string, ds *dataset.Dataset, shardSize int64) (string, []ShardInfo, error) {
	ranges := shardRanges(ds, shardSize)
	if len(ranges) <= 1 {
		name := dataName(gen, tag, false)
		err := writeFileAtomic(fsys, filepath.Join(dir, name), func(w io.Writer) error { return dataset.WriteBinary(w, ds) })
		return name, nil, err
	}
	name := dataName(gen, tag, true)
	shards, err := writeShardDir(fsys, dir, name, ds, ranges)
	return name, shards, err
}

// writeShardDir writes the rows of ds as one shard per range into a
// temporary directory in dir, then renames it to name.
func writeShardDir(fsys FS, dir, name string, ds *dataset.Dataset, ranges [][2]int) (shards []ShardInfo, err error) {
	tmp, err := fsys.MkdirTemp(dir, ".tmp-"+name+"-")
	if err != nil {
		return nil, fmt.Errorf("creating a directory for the shards of %s: %w", name, err)
	}
	defer func() {
		if err != nil {
			fsys.RemoveAll(tmp)
		}
	}()
	for i, r := range ranges {
		part := rowRange(ds, r[0], r[1])
		n, err := writeNew(fsys, filepath.Join(tmp, shardFile(i)), func(w io.Writer) error { return dataset.WriteBinary(w, part) })
		if err != nil {
			return nil, fmt.Errorf("writing shard %d of %d of %s: %w", i+1, len(ranges), name, err)
		}
		info := ShardInfo{Rows: r[1] - r[0], Bytes: n}
		if part.Sparse != nil {
			info.NonZeros = int64(part.Sparse.NNZ())
		}
		shards = append(shards, info)
	}
	if _, err := writeNew(fsys, filepath.Join(tmp, shardManifest), func(w io.Writer) error {
		return json.NewEncoder(w).Encode(manifestFile{Version: 1, Shards: shards})
	}); err != nil {
		return nil, fmt.Errorf("writing the manifest of %s: %w", name, err)
	}
	if err := syncDir(fsys, tmp); err != nil {
		return nil, err
	}
	final := filepath.Join(dir, name)
	if err := fsys.Rename(tmp, final); err != nil {
		return nil, fmt.Errorf("renaming the shards of %s into place: %w", name, err)
	}
	if err := syncDir(fsys, dir); err != nil {
		fsys.RemoveAll(final) // not durable: take it back rather than leave a directory no one will commit
		return nil, err
	}
	return shards, nil
}

// writeNew writes a new file at path with write, syncs and closes it, and
// returns its size. On error the file may remain: it is in a temporary
// directory, which the caller removes.
func writeNew(fsys FS, path string, write func(io.Writer) error) (int64, error) {
	f, err := fsys.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o640)
	if err != nil {
		return 0, fmt.Errorf("creating %s: %w", filepath.Base(path), err)
	}
	cw := &countWriter{w: f}
	if err := write(cw); err != nil {
		f.Close()
		return 0, err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return 0, fmt.Errorf("syncing %s: %w", filepath.Base(path), err)
	}
	if err := f.Close(); err != nil {
		return 0, fmt.Errorf("closing %s: %w", filepath.Base(path), err)
	}
	return cw.n, nil
}

// shardRanges splits the rows of ds into ranges [from, to) whose stored
// form takes at most about size bytes each (each at least one row), or
// returns one range when the whole data set's does (or size ≤ 0).
func shardRanges(ds *dataset.Dataset, size int64) [][2]int {
	n := ds.Rows()
	head := headerBytes(ds)
	q := int64(ds.Labels.Len())
	rowBytes := func(i int) int64 {
		y := 8 * q
		if m := ds.YSparse; m != nil {
			y = 8 + 12*(m.Ptr[i+1]-m.Ptr[i])
		}
		if m := ds.Sparse; m != nil {
			return 8 + 12*(m.Ptr[i+1]-m.Ptr[i]) + y
		}
		return 8*int64(ds.Features.Len()) + y
	}
	total := head
	for i := range n {
		total += rowBytes(i)
	}
	if size <= 0 || total <= size {
		return [][2]int{{0, n}}
	}
	budget := size - head
	var out [][2]int
	from, used := 0, int64(0)
	for i := range n {
		b := rowBytes(i)
		if i > from && used+b > budget {
			out = append(out, [2]int{from, i})
			from, used = i, 0
		}
		used += b
	}
	return append(out, [2]int{from, n})
}

// headerBytes bounds what a stored file of ds holds besides its rows: the
// magic, the JSON header with every name, the checksum.
func headerBytes(ds *dataset.Dataset) int64 {
	b := int64(256)
	for _, names := range []dataset.Names{ds.Features, ds.Labels} {
		if names.Numbered() {
			b += names.Bytes() + 64
			continue
		}
		for _, s := range names.Strings() {
			b += int64(len(s)) + 4
		}
	}
	for _, list := range [][]string{ds.Columns, ds.LabelColumns, ds.Warnings} {
		for _, s := range list {
			b += int64(len(s)) + 4
		}
	}
	for _, c := range ds.Categories {
		for _, s := range c {
			b += int64(len(s)) + 4
		}
	}
	return b + 2*len64(ds.Name) + 16
}

func len64(s string) int64 { return int64(len(s)) }

// rowRange is rows [from, to) of ds, sharing its memory and names.
func rowRange(ds *dataset.Dataset, from, to int) *dataset.Dataset {
	c := *ds
	if ds.YSparse != nil {
		c.YSparse = ds.YSparse.RowRange(from, to)
	} else {
		_, q := ds.Y.Dims()
		c.Y = ds.Y.Slice(from, to, 0, q).(*mat.Dense)
	}
	if m := ds.Sparse; m != nil {
		c.Sparse = m.RowRange(from, to)
		return &c
	}
	_, d := ds.X.Dims()
	c.X = ds.X.Slice(from, to, 0, d).(*mat.Dense)
	return &c
}

// readManifest reads the manifest of the shard directory dir and checks
// it against the record's shards.
func (f *Files) readManifest(rec DatasetRecord, dir string) error {
	file, err := f.fs.Open(filepath.Join(dir, shardManifest))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("the stored data of data set %s are missing; delete it and upload the file again: %w", rec.ID, err)
		}
		return fmt.Errorf("opening the stored data of data set %s: %w", rec.ID, err)
	}
	defer file.Close()
	var m manifestFile
	if err := json.NewDecoder(io.LimitReader(file, 64<<20)).Decode(&m); err != nil {
		return fmt.Errorf("reading data set %s: %w: the manifest of its shards: %v", rec.ID, dataset.ErrCorrupt, err)
	}
	if m.Version != 1 || !slices.Equal(m.Shards, rec.Shards) {
		return fmt.Errorf("reading data set %s: %w: the manifest of its shards lists %d shards that do not match its record's %d", rec.ID, dataset.ErrCorrupt, len(m.Shards), len(rec.Shards))
	}
	return nil
}

// loadSharded reads every shard of the data set rec describes and
// concatenates them into one data set, as if it were stored in one file.
// The shards are read one at a time into the whole's matrices, so it holds
// the whole and one shard at its peak.
func (f *Files) loadSharded(rec DatasetRecord) (*dataset.Dataset, error) {
	dir := f.path("datasets", rec.ID, rec.DataFile)
	st, err := f.fs.Stat(filepath.Join(dir, shardManifest))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("the stored data of data set %s are missing; delete it and upload the file again: %w", rec.ID, err)
		}
		return nil, fmt.Errorf("opening the stored data of data set %s: %w", rec.ID, err)
	}
	id := identityOf(st)
	if ds := f.data.cached(dir, id); ds != nil {
		return ds, nil
	}
	if err := f.readManifest(rec, dir); err != nil {
		return nil, err
	}
	var whole *dataset.Dataset
	var row int
	var at int64 // the next non-zero value of a sparse whole
	for i, info := range rec.Shards {
		part, err := f.readShard(rec, i)
		if err != nil {
			return nil, err
		}
		if whole == nil {
			whole = newWhole(rec, part)
		}
		if err := appendShard(whole, part, row, &at); err != nil {
			return nil, fmt.Errorf("reading data set %s: %w: shard %d of %d: %v", rec.ID, dataset.ErrCorrupt, i+1, len(rec.Shards), err)
		}
		row += info.Rows
	}
	f.data.loaded(dir, id, whole, nil)
	return whole, nil
}

// newWhole is a data set of the names of part with room for every row of
// rec's shards.
func newWhole(rec DatasetRecord, part *dataset.Dataset) *dataset.Dataset {
	n := 0
	var nnz int64
	for _, s := range rec.Shards {
		n += s.Rows
		nnz += s.NonZeros
	}
	w := *part
	if part.YSparse != nil {
		w.YSparse = &sparse.CSR{R: n, C: part.YSparse.C, Ptr: make([]int64, 1, n+1)}
	} else {
		_, q := part.Y.Dims()
		w.Y = mat.NewDense(n, q, nil)
	}
	if part.Sparse != nil {
		w.Sparse = &sparse.CSR{R: n, C: part.Sparse.C, Ptr: make([]int64, 1, n+1), Ind: make([]int32, 0, nnz), Val: make([]float64, 0, nnz)}
		return &w
	}
	_, d := part.X.Dims()
	w.X = mat.NewDense(n, d, nil)
	return &w
}

// appendShard copies the rows of part into whole from row on; at counts
// the non-zero values of a sparse whole so far.
func appendShard(whole, part *dataset.Dataset, row int, at *int64) error {
	pn := part.Rows()
	wn, q := whole.LabelDims()
	if _, pq := part.LabelDims(); pq != q || row+pn > wn || (part.Sparse == nil) != (whole.Sparse == nil) ||
		(part.YSparse == nil) != (whole.YSparse == nil) {
		return fmt.Errorf("its %d rows of %d labels do not continue the %d rows of %d labels before it", pn, pq, row, q)
	}
	if whole.YSparse != nil {
		if err := whole.YSparse.AppendRows(part.YSparse); err != nil {
			return err
		}
	} else {
		whole.Y.Slice(row, row+pn, 0, q).(*mat.Dense).Copy(part.Y)
	}
	if m := part.Sparse; m != nil {
		if err := whole.Sparse.AppendRows(m); err != nil {
			return fmt.Errorf("it has %d feature columns, not %d", m.C, whole.Sparse.C)
		}
		*at += int64(len(m.Val))
		return nil
	}
	_, d := whole.X.Dims()
	if _, pd := part.X.Dims(); pd != d {
		return fmt.Errorf("it has %d feature columns, not %d", pd, d)
	}
	whole.X.Slice(row, row+pn, 0, d).(*mat.Dense).Copy(part.X)
	return nil
}

// readShard reads shard i of the data set rec describes (stored in
// shards) into memory.
func (f *Files) readShard(rec DatasetRecord, i int) (*dataset.Dataset, error) {
	ds, _, err := f.openShard(rec, i, false)
	return ds, err
}

// openShard reads shard i of the data set rec describes (stored in
// shards) from its file: mapped when mapped is true and the files map data
// (MapData; then the second result is the mapping, to unmap with
// releaseMapping once the shard is no longer used), else into memory. Its
// checksum is verified at its first load in this process, as a data
// file's, and again when the file is not the same.
func (f *Files) openShard(rec DatasetRecord, i int, mapped bool) (*dataset.Dataset, []byte, error) {
	if i < 0 || i >= len(rec.Shards) {
		return nil, nil, fmt.Errorf("data set %s has %d shards, so there is no shard %d", rec.ID, len(rec.Shards), i+1)
	}
	p := f.path("datasets", rec.ID, rec.DataFile, shardFile(i))
	file, err := f.fs.Open(p)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil, fmt.Errorf("the stored data of data set %s are missing (shard %d of %d); delete it and upload the file again: %w", rec.ID, i+1, len(rec.Shards), err)
		}
		return nil, nil, fmt.Errorf("opening the stored data of data set %s: %w", rec.ID, err)
	}
	defer file.Close()
	st, err := file.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("opening the stored data of data set %s: %w", rec.ID, err)
	}
	id := identityOf(st)
	verified := f.data.verified(p, id)
	var ds *dataset.Dataset
	var mapping []byte
	done := false
	if mapped && f.data.mapping() {
		if b, merr := mapFile(file, st.Size()); merr == nil {
			f.data.addMapped(int64(len(b)))
			check := dataset.CheckAll
			if verified {
				check = dataset.CheckValues
			}
			var inPlace bool
			ds, inPlace, err = dataset.ViewBinary(b, check)
			if inPlace && err == nil {
				mapping = b
			} else {
				f.releaseMapping(b) // read by a copy, or refused: nothing refers to it
			}
			done = true
		}
	}
	if !done {
		read := dataset.ReadBinary
		if verified {
			read = dataset.ReadBinaryVerified
		}
		ds, err = read(file, st.Size())
	}
	if err != nil {
		return nil, nil, fmt.Errorf("reading data set %s, shard %d of %d: %w", rec.ID, i+1, len(rec.Shards), err)
	}
	f.data.markVerified(p, id)
	if ds.Rows() != rec.Shards[i].Rows {
		f.releaseMapping(mapping)
		return nil, nil, fmt.Errorf("reading data set %s: %w: shard %d of %d holds %d rows, its record says %d", rec.ID, dataset.ErrCorrupt, i+1, len(rec.Shards), ds.Rows(), rec.Shards[i].Rows)
	}
	return ds, mapping, nil
}

// releaseMapping unmaps a shard's mapping (nil: nothing).
func (f *Files) releaseMapping(b []byte) {
	if b == nil {
		return
	}
	_ = unmapFile(b) // fails only for memory that is not a mapping
	f.data.addMapped(-int64(len(b)))
}

// LoadShard reads row shard i (0-based, i < ShardCount(rec)) of the data
// set rec describes, for a job that fits it one shard at a time: for a
// data set stored in one file, shard 0 is the whole data set (LoadRecord).
// The shard is a data set of its rows alone, with the whole's names. Its
// file's checksum is verified at its first load in this process; with
// MapData the file is mapped rather than read. release must be called
// once the shard is no longer used (it unmaps the mapping, if any); the
// shard's matrices must not be used after it. Errors are LoadRecord's,
// and a shard that does not exist or does not hold the rows the record
// says.
func (f *Files) LoadShard(rec DatasetRecord, i int) (ds *dataset.Dataset, release func(), err error) {
	if !ValidID(rec.ID) {
		return nil, nil, fmt.Errorf("data set %q: %w", rec.ID, ErrNotFound)
	}
	if len(rec.Shards) == 0 {
		if i != 0 {
			return nil, nil, fmt.Errorf("data set %s is stored in one file, so there is no shard %d", rec.ID, i+1)
		}
		ds, err := f.LoadRecord(rec)
		return ds, func() {}, err
	}
	ds, mapping, err := f.openShard(rec, i, true)
	if err != nil {
		return nil, nil, err
	}
	return ds, func() { f.releaseMapping(mapping) }, nil
}
