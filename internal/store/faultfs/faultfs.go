// Package faultfs is a store.FS that makes chosen file operations fail, as
// a full disk (syscall.ENOSPC) or a failing device (syscall.EIO) would, so
// that tests can check what the store, the job executor and the server do
// then: a clear error, nothing partial left behind, and the next operation
// succeeding once the fault is gone.
//
// A fault fails the n-th operation of one kind counted from the moment it
// is set (FailNth), or that one and every later one until Heal (FailFrom),
// the way a full disk stays full. A test loops n = 1, 2, … until the
// operation under test succeeds without the fault firing, so every write,
// fsync or rename it makes has failed once.
package faultfs

import (
	"io/fs"
	"os"
	"sync"

	"mldr/internal/store"
)

// Op is a kind of file operation.
type Op string

// The kinds of operations a fault can hit.
const (
	// Create is OpenFile with os.O_CREATE, and CreateTemp.
	Create Op = "create"
	// Open is Open, and OpenFile without os.O_CREATE.
	Open Op = "open"
	// Write is File.Write. A failing write writes the first half of its
	// bytes, as a disk that fills up midway does, then fails.
	Write Op = "write"
	// Sync is File.Sync, of a file or a directory.
	Sync Op = "sync"
	// Close is File.Close; the file is closed all the same.
	Close Op = "close"
	// Rename is Rename.
	Rename Op = "rename"
	// Mkdir is MkdirAll and MkdirTemp.
	Mkdir Op = "mkdir"
	// Remove is Remove and RemoveAll.
	Remove Op = "remove"
	// ReadDir is ReadDir.
	ReadDir Op = "readdir"
)

// Ops lists every kind of operation.
var Ops = []Op{Create, Open, Write, Sync, Close, Rename, Mkdir, Remove, ReadDir}

// FS is a store.FS over another that fails the operations its fault
// chooses. Its methods are safe for concurrent use.
type FS struct {
	base store.FS

	mu     sync.Mutex
	counts map[Op]int
	op     Op // "": no fault
	n      int
	err    error
	sticky bool
	fired  int
}

// New returns an FS over base (nil: store.OSFS) with no fault set.
func New(base store.FS) *FS {
	if base == nil {
		base = store.OSFS{}
	}
	return &FS{base: base, counts: map[Op]int{}}
}

// FailNth makes the n-th operation of kind op from now on (n ≥ 1) fail
// with err, and no other. It replaces any earlier fault and starts every
// count again.
func (f *FS) FailNth(op Op, n int, err error) { f.set(op, n, err, false) }

// FailFrom makes the n-th operation of kind op from now on (n ≥ 1) and
// every later one fail with err, until Heal. It replaces any earlier fault
// and starts every count again.
func (f *FS) FailFrom(op Op, n int, err error) { f.set(op, n, err, true) }

func (f *FS) set(op Op, n int, err error, sticky bool) {
	if n < 1 || err == nil {
		panic("faultfs: a fault needs n ≥ 1 and an error")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.op, f.n, f.err, f.sticky, f.fired = op, n, err, sticky, 0
	clear(f.counts)
}

// Heal removes the fault; the counts go on.
func (f *FS) Heal() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.op = ""
}

// Fired reports how many operations the current (or last) fault made
// fail.
func (f *FS) Fired() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.fired
}

// Count reports how many operations of kind op were made since the fault
// was set (or since New).
func (f *FS) Count(op Op) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.counts[op]
}

// hit counts an operation of kind op and returns the error it must fail
// with, or nil.
func (f *FS) hit(op Op) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.counts[op]++
	c := f.counts[op]
	if f.op != op || c < f.n || (c > f.n && !f.sticky) {
		return nil
	}
	f.fired++
	return f.err
}

func pathErr(op Op, name string, err error) error {
	return &fs.PathError{Op: string(op), Path: name, Err: err}
}

// MkdirAll is the base's MkdirAll, unless a Mkdir fault fires.
func (f *FS) MkdirAll(name string, perm fs.FileMode) error {
	if err := f.hit(Mkdir); err != nil {
		return pathErr(Mkdir, name, err)
	}
	return f.base.MkdirAll(name, perm)
}

// MkdirTemp is the base's MkdirTemp, unless a Mkdir fault fires.
func (f *FS) MkdirTemp(dir, pattern string) (string, error) {
	if err := f.hit(Mkdir); err != nil {
		return "", pathErr(Mkdir, dir, err)
	}
	return f.base.MkdirTemp(dir, pattern)
}

// CreateTemp is the base's CreateTemp, unless a Create fault fires.
func (f *FS) CreateTemp(dir, pattern string) (store.File, error) {
	if err := f.hit(Create); err != nil {
		return nil, pathErr(Create, dir, err)
	}
	file, err := f.base.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	return &faultyFile{File: file, fs: f}, nil
}

// OpenFile is the base's OpenFile, unless a Create fault (with
// os.O_CREATE) or an Open fault fires.
func (f *FS) OpenFile(name string, flag int, perm fs.FileMode) (store.File, error) {
	op := Open
	if flag&os.O_CREATE != 0 {
		op = Create
	}
	if err := f.hit(op); err != nil {
		return nil, pathErr(op, name, err)
	}
	file, err := f.base.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return &faultyFile{File: file, fs: f}, nil
}

// Open is the base's Open, unless an Open fault fires.
func (f *FS) Open(name string) (store.File, error) {
	if err := f.hit(Open); err != nil {
		return nil, pathErr(Open, name, err)
	}
	file, err := f.base.Open(name)
	if err != nil {
		return nil, err
	}
	return &faultyFile{File: file, fs: f}, nil
}

// Rename is the base's Rename, unless a Rename fault fires.
func (f *FS) Rename(oldpath, newpath string) error {
	if err := f.hit(Rename); err != nil {
		return &os.LinkError{Op: string(Rename), Old: oldpath, New: newpath, Err: err}
	}
	return f.base.Rename(oldpath, newpath)
}

// Remove is the base's Remove, unless a Remove fault fires.
func (f *FS) Remove(name string) error {
	if err := f.hit(Remove); err != nil {
		return pathErr(Remove, name, err)
	}
	return f.base.Remove(name)
}

// RemoveAll is the base's RemoveAll, unless a Remove fault fires.
func (f *FS) RemoveAll(name string) error {
	if err := f.hit(Remove); err != nil {
		return pathErr(Remove, name, err)
	}
	return f.base.RemoveAll(name)
}

// ReadDir is the base's ReadDir, unless a ReadDir fault fires.
func (f *FS) ReadDir(name string) ([]fs.DirEntry, error) {
	if err := f.hit(ReadDir); err != nil {
		return nil, pathErr(ReadDir, name, err)
	}
	return f.base.ReadDir(name)
}

// Stat is the base's Stat; it never fails by a fault.
func (f *FS) Stat(name string) (fs.FileInfo, error) { return f.base.Stat(name) }

// faultyFile is a file of the base whose writes, syncs and closes may
// fail.
type faultyFile struct {
	store.File
	fs *FS
}

func (ff *faultyFile) Write(p []byte) (int, error) {
	if err := ff.fs.hit(Write); err != nil {
		n, _ := ff.File.Write(p[:len(p)/2])
		return n, pathErr(Write, ff.Name(), err)
	}
	return ff.File.Write(p)
}

func (ff *faultyFile) Sync() error {
	if err := ff.fs.hit(Sync); err != nil {
		return pathErr(Sync, ff.Name(), err)
	}
	return ff.File.Sync()
}

func (ff *faultyFile) Close() error {
	if err := ff.fs.hit(Close); err != nil {
		ff.File.Close()
		return pathErr(Close, ff.Name(), err)
	}
	return ff.File.Close()
}
