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
type dataFiles struct {
	mu      sync.Mutex
	ok      map[string]fileIdentity // path → the file whose checksum matched
	budget  int64                   // bytes of matrices the cache may hold
	bytes   int64                   // bytes it holds
	allowed map[string]bool         // paths it may hold (KeepData)
	order   *list.List              // of *dataEntry, most recently used first
	entries map[string]*list.Element
}

type dataEntry struct {
	path  string
	id    fileIdentity
	ds    *dataset.Dataset
	bytes int64
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

// loaded records that the file at p read cleanly as ds, and keeps ds when
// the budget and KeepData allow, dropping the least recently used others
// to make room.
func (d *dataFiles) loaded(p string, id fileIdentity, ds *dataset.Dataset) {
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
	if !d.allowed[p] || n > d.budget {
		return
	}
	for d.bytes+n > d.budget {
		d.drop(d.order.Back())
	}
	c := *ds
	d.entries[p] = d.order.PushFront(&dataEntry{path: p, id: id, ds: &c, bytes: n})
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

// keep allows the paths of keep only, dropping the others.
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
}

func (d *dataFiles) drop(el *list.Element) {
	e := d.order.Remove(el).(*dataEntry)
	delete(d.entries, e.path)
	d.bytes -= e.bytes
}

// matrixBytes is what a data set's matrices take.
func matrixBytes(ds *dataset.Dataset) int64 {
	var n int64
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
