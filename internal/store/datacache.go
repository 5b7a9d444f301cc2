package store

import (
	"container/list"
	"io/fs"
	"sync"

	"mldr/internal/dataset"
)

// fileIdentity tells whether a file is the one seen before: a file
// rewritten in place changes its change time (which no program can set
// back), a replaced one its inode.
type fileIdentity struct {
	size         int64
	mtime, ctime int64 // Unix nanoseconds; ctime 0 where unknown
	dev, ino     uint64
}

// maxDataVerified bounds the data files remembered as verified; beyond,
// they are forgotten and verified again at their next load.
const maxDataVerified = 4096

// dataFiles remembers, for Files, the data files whose checksum matched
// and, within a budget, the data sets read from them.
//
// With MapData, a data set the cache will keep is mapped rather than read
// (its matrices are the mapping's memory, see dataset.ViewBinary). The rule
// for unmapping: a mapping is unmapped only at a point where no data set
// the files returned is in use, which is when KeepData is called (a worker
// calls it as a job starts, after the last one ended) and nowhere else. A
// mapping whose data set leaves the cache at any other moment (evicted for
// room by another load, replaced because its file changed, or not kept at
// all) is retired: it stays mapped, still counted, until the next KeepData.
// So a slice of a mapped matrix that a job still holds never points into
// unmapped memory; between jobs nothing holds one (the decompositions a
// worker keeps are copies).
type dataFiles struct {
	mu      sync.Mutex
	ok      map[string]fileIdentity // path → the file whose checksum matched
	budget  int64                   // bytes of matrices the cache may hold
	bytes   int64                   // bytes it holds
	allowed map[string]bool         // paths it may hold (KeepData)
	order   *list.List              // of *dataEntry, most recently used first
	entries map[string]*list.Element

	mapOn    bool        // MapData: map the data sets the cache will keep
	onMapped func(int64) // hears the bytes mapped, when they change
	mapped   int64       // bytes mapped: of entries and retired mappings
	retired  [][]byte    // mappings no entry holds, unmapped at the next keep
}

type dataEntry struct {
	path    string
	id      fileIdentity
	ds      *dataset.Dataset
	bytes   int64
	mapping []byte // the file's mapping the matrices are in, or nil
}

func newDataFiles() *dataFiles {
	return &dataFiles{ok: map[string]fileIdentity{}, order: list.New(), entries: map[string]*list.Element{}}
}

// verified reports whether the file at p, as it is now, had its checksum
// verified.
func (d *dataFiles) verified(p string, id fileIdentity) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	was, ok := d.ok[p]
	return ok && was == id
}

// markVerified records that the file at p, as it is now, had its
// checksum verified (a shard, which the cache never keeps).
func (d *dataFiles) markVerified(p string, id fileIdentity) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.ok) >= maxDataVerified {
		clear(d.ok)
	}
	d.ok[p] = id
}

// mapping reports whether MapData is on (and files can be mapped here).
func (d *dataFiles) mapping() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.mapOn
}

// cached returns the data set kept from the file at p, if it is still the
// same file: a copy of the Dataset sharing its matrices and names.
func (d *dataFiles) cached(p string, id fileIdentity) *dataset.Dataset {
	d.mu.Lock()
	defer d.mu.Unlock()
	el, ok := d.entries[p]
	if !ok {
		return nil
	}
	e := el.Value.(*dataEntry)
	if e.id != id {
		d.drop(el)
		return nil
	}
	d.order.MoveToFront(el)
	c := *e.ds
	return &c
}

// mapsFor reports whether a data file at p of size bytes is to be mapped:
// MapData is on, and the cache will keep it.
func (d *dataFiles) mapsFor(p string, size int64) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.mapOn && d.allowed[p] && size <= d.budget
}

// addMapped counts n more bytes mapped (n < 0: fewer).
func (d *dataFiles) addMapped(n int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.count(n)
}

func (d *dataFiles) count(n int64) {
	d.mapped += n
	if n != 0 && d.onMapped != nil {
		d.onMapped(d.mapped)
	}
}

// loaded records that the file at p read cleanly as ds, and keeps ds when
// the budget and KeepData allow, dropping the least recently used others
// to make room. mapping is the memory ds's matrices are in (nil: their
// own); if ds is not kept it is retired, never unmapped here.
func (d *dataFiles) loaded(p string, id fileIdentity, ds *dataset.Dataset, mapping []byte) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.ok) >= maxDataVerified {
		clear(d.ok)
	}
	d.ok[p] = id
	if el, ok := d.entries[p]; ok {
		d.drop(el)
	}
	n := matrixBytes(ds)
	if mapping != nil {
		n = int64(len(mapping))
	}
	if !d.allowed[p] || n > d.budget {
		if mapping != nil {
			d.retired = append(d.retired, mapping)
		}
		return
	}
	for d.bytes+n > d.budget {
		d.drop(d.order.Back())
	}
	c := *ds
	d.entries[p] = d.order.PushFront(&dataEntry{path: p, id: id, ds: &c, bytes: n, mapping: mapping})
	d.bytes += n
}

func (d *dataFiles) setBudget(n int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.budget = max(n, 0)
	for d.bytes > d.budget {
		d.drop(d.order.Back())
	}
}

// setMap turns mapping on, with the hook that hears the bytes mapped.
func (d *dataFiles) setMap(onMapped func(int64)) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.mapOn, d.onMapped = canMap, onMapped
}

// keep allows the paths of keep only, dropping the others, and then
// unmaps the retired mappings: the caller says that no data set it was
// given is in use (see dataFiles).
func (d *dataFiles) keep(keep map[string]bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.allowed = keep
	for el := d.order.Front(); el != nil; {
		next := el.Next()
		if !keep[el.Value.(*dataEntry).path] {
			d.drop(el)
		}
		el = next
	}
	for _, m := range d.retired {
		_ = unmapFile(m) // fails only for memory that is not a mapping
		d.count(-int64(len(m)))
	}
	d.retired = nil
}

// drop takes el out of the cache, retiring its mapping.
func (d *dataFiles) drop(el *list.Element) {
	e := d.order.Remove(el).(*dataEntry)
	delete(d.entries, e.path)
	d.bytes -= e.bytes
	if e.mapping != nil {
		d.retired = append(d.retired, e.mapping)
	}
}

// matrixBytes is what a data set's matrices take.
func matrixBytes(ds *dataset.Dataset) int64 {
	var n int64
	if m := ds.Sparse; m != nil {
		n += 8*int64(len(m.Ptr)) + 4*int64(len(m.Ind)) + 8*int64(len(m.Val))
	}
	if ds.X != nil {
		n += 8 * int64(len(ds.X.RawMatrix().Data))
	}
	if ds.Y != nil {
		n += 8 * int64(len(ds.Y.RawMatrix().Data))
	}
	return n
}

// identityOf is the identity of the file st describes.
func identityOf(st fs.FileInfo) fileIdentity {
	id := fileIdentity{size: st.Size(), mtime: st.ModTime().UnixNano()}
	sysIdentity(st, &id)
	return id
}
