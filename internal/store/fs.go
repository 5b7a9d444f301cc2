package store

import (
	"io"
	"io/fs"
	"os"
)

// FS is the file system under the data directory. Every operation by which
// the store creates, fills, makes durable, moves, lists or removes files
// (uploads, relabels, job results and the recovery in Open) goes through
// it, and so do its reads of files it stages and of stored data sets, so a
// test can make any one of them fail as a full disk (syscall.ENOSPC) or a
// failing device (syscall.EIO) would; see package faultfs. OSFS is the
// real one.
//
// OpenSource is the one exception: it hands the caller an *os.File to
// serve, so it opens the file with the os package.
type FS interface {
	// MkdirAll is os.MkdirAll.
	MkdirAll(path string, perm fs.FileMode) error
	// MkdirTemp is os.MkdirTemp.
	MkdirTemp(dir, pattern string) (string, error)
	// CreateTemp is os.CreateTemp.
	CreateTemp(dir, pattern string) (File, error)
	// OpenFile is os.OpenFile.
	OpenFile(name string, flag int, perm fs.FileMode) (File, error)
	// Open is os.Open: a file to read, or a directory to sync.
	Open(name string) (File, error)
	// Rename is os.Rename.
	Rename(oldpath, newpath string) error
	// Remove is os.Remove.
	Remove(name string) error
	// RemoveAll is os.RemoveAll.
	RemoveAll(path string) error
	// ReadDir is os.ReadDir.
	ReadDir(name string) ([]fs.DirEntry, error)
	// Stat is os.Stat.
	Stat(name string) (fs.FileInfo, error)
}

// File is an open file of an FS: what *os.File offers that the store uses.
type File interface {
	io.Reader
	io.Writer
	io.Closer
	// Name is the name the file was opened with.
	Name() string
	// Sync commits the file's contents (or a directory's entries) to
	// stable storage.
	Sync() error
	// Stat describes the file.
	Stat() (fs.FileInfo, error)
}

// OSFS is the operating system's file system: the os package.
type OSFS struct{}

// MkdirAll is os.MkdirAll.
func (OSFS) MkdirAll(path string, perm fs.FileMode) error { return os.MkdirAll(path, perm) }

// MkdirTemp is os.MkdirTemp.
func (OSFS) MkdirTemp(dir, pattern string) (string, error) { return os.MkdirTemp(dir, pattern) }

// CreateTemp is os.CreateTemp.
func (OSFS) CreateTemp(dir, pattern string) (File, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// OpenFile is os.OpenFile.
func (OSFS) OpenFile(name string, flag int, perm fs.FileMode) (File, error) {
	f, err := os.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// Open is os.Open.
func (OSFS) Open(name string) (File, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// Rename is os.Rename.
func (OSFS) Rename(oldpath, newpath string) error { return os.Rename(oldpath, newpath) }

// Remove is os.Remove.
func (OSFS) Remove(name string) error { return os.Remove(name) }

// RemoveAll is os.RemoveAll.
func (OSFS) RemoveAll(path string) error { return os.RemoveAll(path) }

// ReadDir is os.ReadDir.
func (OSFS) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(name) }

// Stat is os.Stat.
func (OSFS) Stat(name string) (fs.FileInfo, error) { return os.Stat(name) }
