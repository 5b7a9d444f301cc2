package store

// writeback starts the disk writing what was written to a file while the
// file is still being written (Linux's sync_file_range), writebackStep
// bytes at a time, from a goroutine of its own so that the writer never
// waits for the disk. The data of an upload (the file as sent, some 200 MB
// for 50 000 rows of 500 numbers, and the binary data file as large) would
// otherwise wait in the page cache until the fsync after the last byte:
// the disk then writes 400 MB while the upload waits. A nil writeback does
// nothing.
type writeback struct {
	ch       chan [2]int64 // ranges to start writing, [offset, length]
	done     chan struct{} // the goroutine has ended
	from, at int64         // the range not handed over yet
}

// writebackStep is how much is written before its writeback is started.
const writebackStep = 8 << 20

// written notes that n bytes were written at off, right after what was
// written before.
func (w *writeback) written(off, n int64) {
	if w == nil {
		return
	}
	if w.at != off {
		w.from = off // not after the last write: start from here
	}
	w.at = off + n
	if w.at-w.from < writebackStep {
		return
	}
	select {
	case w.ch <- [2]int64{w.from, w.at - w.from}:
		w.from = w.at
	default: // the disk is behind: this range goes with the next
	}
}

// stop ends the goroutine, once it has started the writeback of what it
// was handed; then the file may be synced and closed.
func (w *writeback) stop() {
	if w == nil || w.ch == nil {
		return
	}
	close(w.ch)
	<-w.done
	w.ch = nil
}
