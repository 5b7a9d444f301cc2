package store

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// idEncoding turns 10 random bytes into 16 lowercase letters and digits.
var idEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// NewID returns a fresh random identifier of 16 characters from [a-z2-7].
func NewID() string {
	var b [10]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return idEncoding.EncodeToString(b[:])
}

// NameID is the id that name stands for: name itself when it has
// NewID's form, else one made from name's SHA-256, so that the same name
// always gives the same id (webapp run stores the data sets its spec
// names under them).
func NameID(name string) string {
	if ValidID(name) {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	return idEncoding.EncodeToString(sum[:10])
}

// ValidID reports whether s has the form NewID gives. Every id from a URL is
// checked with it before it touches the file system.
func ValidID(s string) bool {
	if len(s) != 16 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= '2' && c <= '7') {
			return false
		}
	}
	return true
}

// writeFileAtomic writes the new file path through a temporary file in
// the same directory: write, fsync, close, rename, fsync the directory.
// Readers see no file or the whole file, never a part. On any error
// nothing is left at path nor beside it, so it must not be used to replace
// a file that must survive a failure.
func writeFileAtomic(fsys FS, path string, write func(io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	f, err := fsys.CreateTemp(dir, ".tmp-"+base+"-*")
	if err != nil {
		return fmt.Errorf("creating a temporary file for %s: %w", base, err)
	}
	if err = write(f); err != nil {
		f.Close()
		fsys.Remove(f.Name())
		return fmt.Errorf("writing %s: %w", base, err)
	}
	return installTemp(fsys, f, path) // which cleans up after itself
}

// installTemp makes the written temporary file f durable and moves it to
// path, in f's directory: fsync, close, rename, fsync the directory. On
// any error nothing is left at path nor at f's name.
func installTemp(fsys FS, f File, path string) error {
	base := filepath.Base(path)
	if err := f.Sync(); err != nil {
		f.Close()
		fsys.Remove(f.Name())
		return fmt.Errorf("syncing %s: %w", base, err)
	}
	if err := f.Close(); err != nil {
		fsys.Remove(f.Name())
		return fmt.Errorf("closing %s: %w", base, err)
	}
	if err := fsys.Rename(f.Name(), path); err != nil {
		fsys.Remove(f.Name())
		return fmt.Errorf("renaming %s into place: %w", base, err)
	}
	if err := syncDir(fsys, filepath.Dir(path)); err != nil {
		fsys.Remove(path) // not durable: take it back rather than leave a file no one will commit
		return err
	}
	return nil
}

// syncDir makes a rename or creation in dir durable.
func syncDir(fsys FS, dir string) error {
	d, err := fsys.Open(dir)
	if err != nil {
		return fmt.Errorf("opening directory %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return fmt.Errorf("syncing directory %s: %w", dir, err)
	}
	return nil
}

// ctxReader stops a copy when ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// spool copies r to a new file at path, fsyncs it, and returns its size. At
// most limit bytes are accepted (limit ≤ 0: no limit); beyond it the copy
// stops with a *TooLargeError. On error the file may remain, part written:
// it is in a staging directory, which the caller discards.
func spool(ctx context.Context, fsys FS, path string, r io.Reader, limit int64, w ...io.Writer) (int64, error) {
	n, f, err := receive(ctx, fsys, path, r, limit, w...)
	if err != nil {
		return n, err
	}
	return n, syncClose(f)
}

// spoolBuffer is the size of the pieces receive writes: a multipart part
// gives at most 4 KiB a read, and a write (a system call, a hash update,
// a pipe's hand-over) for each would cost more than the copying.
const spoolBuffer = 256 << 10

// receive is spool without the fsync: it returns the file open, written
// but not synced, for syncClose (on error it has closed it).
func receive(ctx context.Context, fsys FS, path string, r io.Reader, limit int64, w ...io.Writer) (n int64, _ File, err error) {
	f, err := fsys.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return 0, nil, fmt.Errorf("creating %s: %w", filepath.Base(path), err)
	}
	defer func() {
		if err != nil {
			f.Close()
		}
	}()
	src := io.Reader(ctxReader{ctx, r})
	if limit > 0 {
		src = io.LimitReader(src, limit+1)
	}
	dst := io.MultiWriter(append([]io.Writer{f}, w...)...)
	buf := make([]byte, spoolBuffer)
	wb := newWriteback(f) // the disk writes the file as it arrives
	defer wb.stop()
	for eof := false; !eof; {
		// Fill buf, or take what came before the end (io.ReadFull would
		// not tell a reader's own io.ErrUnexpectedEOF, a body cut short,
		// from the end).
		k := 0
		for k < len(buf) {
			m, rerr := src.Read(buf[k:])
			k += m
			if rerr == io.EOF {
				eof = true
				break
			}
			if rerr != nil {
				return n, nil, fmt.Errorf("receiving the file: %w", rerr)
			}
		}
		if k > 0 {
			if _, err := dst.Write(buf[:k]); err != nil {
				return n, nil, fmt.Errorf("receiving the file: %w", err)
			}
			wb.written(n, int64(k))
			n += int64(k)
		}
	}
	if limit > 0 && n > limit {
		return n, nil, &TooLargeError{Limit: limit}
	}
	return n, f, nil
}

// syncClose makes a file that receive wrote durable and closes it.
func syncClose(f File) error {
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("syncing %s: %w", filepath.Base(f.Name()), err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("closing %s: %w", filepath.Base(f.Name()), err)
	}
	return nil
}
