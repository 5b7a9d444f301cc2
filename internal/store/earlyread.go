package store

import (
	"errors"
	"fmt"
	"io"
	"reflect"

	"mldr/internal/dataset"
	"mldr/internal/membudget"
)

// earlyRead is the reading of an upload's data file while it arrives: a
// goroutine runs dataset.Load on what the receiving hands it through a
// pipe, so that the parsing (most of an upload's work) runs beside the
// network, the hashing and the disk instead of after them.
type earlyRead struct {
	opts dataset.Options
	done chan struct{}
	ds   *dataset.Dataset // when done, if err is nil
	err  error
}

// startEarlyRead starts reading with opts what the returned writer is
// given; the receiving must close the writer (CloseWithError) when the
// file has ended or failed. sizeHint (≤ 0: unknown) is the most bytes the
// file can have, for sizing the matrices once. stream, if not nil, gets
// the rows as they are parsed (dataset.LoadStreaming); it has written all
// it was given once the reading is done.
func startEarlyRead(opts dataset.Options, sizeHint int64, stream *dataset.BinaryStream) (*earlyRead, *io.PipeWriter) {
	pr, pw := io.Pipe()
	e := &earlyRead{opts: opts, done: make(chan struct{})}
	go func() {
		defer close(e.done)
		defer func() {
			// A reading that stopped early (a refused file, or a panic)
			// still takes the rest, so that the receiving never waits
			// for it; but one the memory budget refused ends the
			// receiving too, with that refusal: the upload is answered at
			// once, not after the whole file.
			var me *membudget.Error
			if errors.As(e.err, &me) {
				pr.CloseWithError(e.err)
				return
			}
			_, _ = io.Copy(io.Discard, pr)
			pr.Close()
		}()
		defer func() {
			// This goroutine is not the request's, whose handler turns a
			// panic into an answer: a panic here would end the server.
			// The error is not the loader's refusal, so CreateDataset
			// reads the file again, in the request's goroutine.
			if v := recover(); v != nil {
				e.ds, e.err = nil, fmt.Errorf("reading the file as it arrived: panic: %v", v)
			}
		}()
		var r io.Reader = pr
		if sizeHint > 0 {
			r = sizedReader{pr, sizeHint}
		}
		e.ds, e.err = loadEarly(r, opts, stream)
	}()
	return e, pw
}

// loadEarly is dataset.LoadStreaming, or dataset.Load without a stream; a
// test makes it panic.
var loadEarly = func(r io.Reader, opts dataset.Options, stream *dataset.BinaryStream) (*dataset.Dataset, error) {
	if stream == nil {
		return dataset.Load(r, opts)
	}
	return dataset.LoadStreaming(r, opts, stream)
}

// sizedReader tells dataset.Load how large its input will be at most (its
// Len), which a pipe cannot.
type sizedReader struct {
	io.Reader
	n int64
}

// Len is the size the input will have at most.
func (s sizedReader) Len() int { return int(s.n) }

// result waits for the reading and returns it if it was made with opts
// (their admission of memory aside): the data set, or the loader's
// refusal of the file (an *InputError, which reading it again from disk
// would repeat), or the memory budget's (a *membudget.Error). Anything
// else (other options, a failed receiving) returns ok false: read the
// file again.
func (e *earlyRead) result(opts dataset.Options) (ds *dataset.Dataset, err error, ok bool) {
	<-e.done
	if !reflect.DeepEqual(e.opts.WithoutMemory(), opts.WithoutMemory()) {
		e.ds = nil // not kept beside the second reading
		return nil, nil, false
	}
	var ie *dataset.InputError
	var me *membudget.Error
	if e.err != nil && !errors.As(e.err, &ie) && !errors.As(e.err, &me) {
		return nil, nil, false
	}
	return e.ds, e.err, true
}
