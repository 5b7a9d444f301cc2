package store

import "golang.org/x/sys/unix"

// newWriteback returns a writeback for f, or nil when f is not a file of
// the operating system.
func newWriteback(f File) *writeback {
	fd, ok := f.(interface{ Fd() uintptr })
	if !ok {
		return nil
	}
	w := &writeback{ch: make(chan [2]int64, 8), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for r := range w.ch {
			// Only a start: the fsync that follows is what makes the file
			// durable, and reports what failed.
			_ = unix.SyncFileRange(int(fd.Fd()), r[0], r[1], unix.SYNC_FILE_RANGE_WRITE)
		}
	}()
	return w
}
