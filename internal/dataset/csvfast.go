package dataset

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
)

// The CSV fast path.
//
// The plain loop (csvReader.next, builder.addRow) spends about half its time
// in strconv.ParseFloat and most of the rest splitting lines into fields,
// on one core. The fast path reads the data rows in chunks of whole lines
// and lets GOMAXPROCS workers parse chunks in parallel, each in one pass
// over the bytes: a number is scanned straight from the chunk into the
// chunk's block of float64s (scanNumber; strconv only for what Clinger's
// path cannot do), and label values are coded against the chunk's own
// small dictionary, so no field is copied or converted to a string. The
// loading goroutine reads the next chunks while the workers parse, and
// commits parsed chunks in file order: it appends each block to the
// builder's matrix (sized once, as before) and maps the chunk's label codes
// to the builder's. So besides the matrix only the chunks in flight, text
// and blocks (2·GOMAXPROCS+1 of them, about 2 MB), are held.
//
// A row the single pass cannot take exactly as addRow would (a missing
// value, text in a feature column, a number strconv refuses or that is
// infinite, a wrong number of fields, a doubled quote, …) is not judged by
// the worker: the committer hands that line, split by csvReader.split, to
// addRow, in its place among the rows, so every refusal, warning and
// missing-value policy is the plain loop's own. The fast path gives up, and
// the plain loop takes over from that line to the end of the input, when
//
//   - a quoted field is not closed on its line: it holds a line break, so
//     lines (and the chunks cut at them) are no longer records from there
//     on;
//   - addRow turned a feature column into a text column (nominal=drop or
//     onehot): the workers would still read it as numbers;
//   - the reader failed: the plain loop then reports it as before, after
//     the complete lines read before it.
//
// The line numbers and the bytes consumed carry over, so messages and the
// matrix's sizing are those of the plain loop.

// defaultChunkSize is the bytes of text in a chunk. Chunks of 256 KiB,
// 1 MiB and 4 MiB load the 100 MiB benchmark CSV at the same speed within
// the noise of a shared machine (medians of 7: 363, 367 and 366 MB/s), but
// the chunks in flight, text and blocks, cost 11 MB more at 1 MiB than at
// 256 KiB (peak RSS 118 MB against 107 MB for an 84 MB matrix).
const defaultChunkSize = 256 << 10

// cellKind is what the fast path does with a column's cells.
type cellKind uint8

const (
	cellNumber cellKind = iota // a numeric feature: parsed into its slot
	cellLabel                  // a label: coded in the chunk's dictionary
	cellSkip                   // a dropped column: only split off
)

// fastColumn is one input column as the fast path sees it.
type fastColumn struct {
	kind  cellKind
	index int // the feature slot or the label index
}

// fastCSV is the fast path of one load.
type fastCSV struct {
	b       *builder
	delim   byte
	cols    []fastColumn
	labels  []*textColumn // the label columns' text, by label index
	width   int           // b.width
	nlab    int           // b.nlab
	mean    bool
	chunk   int // chunk size
	workers int
	abort   atomic.Bool // set when the committer gives up: workers skip the rest
	// numRun[k] counts the numeric feature columns from column k on, the
	// last column left out (it ends at a line break, not a delimiter), and
	// zeros4 is "0,0,0,0," (with the delimiter) as a little-endian word:
	// row takes runs of zero cells, the bulk of a sparse file, four at a
	// time.
	numRun []int
	zeros4 uint64
	// sparse is set once the builder holds its rows sparse: the workers
	// then take runs of zero cells at once and count no non-zeros
	// (chunk.zeroRuns, chunk.nnz).
	sparse atomic.Bool
}

// newFastCSV prepares the fast path for the columns b was given, or returns
// nil when the chunk size says not to use it (chunk < 0, for tests) or no
// column could take it.
func newFastCSV(b *builder, delim byte, chunk int) *fastCSV {
	if chunk < 0 {
		return nil
	}
	if chunk == 0 {
		chunk = defaultChunkSize
	}
	f := &fastCSV{b: b, delim: delim, width: b.width, nlab: b.nlab, mean: b.opts.missing() == MissingMean,
		chunk: chunk, workers: max(1, runtime.GOMAXPROCS(0))}
	for i := range b.cols {
		c := &b.cols[i]
		switch {
		case c.role == roleDrop:
			f.cols = append(f.cols, fastColumn{kind: cellSkip})
		case c.role == roleLabel && c.declared == nil:
			f.cols = append(f.cols, fastColumn{kind: cellLabel, index: len(f.labels)})
			f.labels = append(f.labels, c.text)
		case c.role == roleFeature && c.text == nil && c.typ == attrAuto:
			f.cols = append(f.cols, fastColumn{kind: cellNumber, index: c.slot})
		default:
			return nil
		}
	}
	f.numRun = make([]int, len(f.cols))
	for k := len(f.cols) - 2; k >= 0; k-- {
		if f.cols[k].kind == cellNumber {
			f.numRun[k] = f.numRun[k+1] + 1
		}
	}
	f.zeros4 = binary.LittleEndian.Uint64([]byte{'0', delim, '0', delim, '0', delim, '0', delim})
	return f
}

// run loads the data rows from br, whose first byte is on line r.line+1 at
// offset r.pos, for as long as the fast path can. When it returns without
// error, r reads the rest of the input (nothing, if all was loaded) with
// its line and offset where the fast path left them, for the plain loop.
func (f *fastCSV) run(br *bufio.Reader, r *csvReader) error {
	// The fast path reads br itself and gives r the rest at the end; till
	// then r has nothing to read (splitQuoted reads no further line of the
	// slow lines it is given: parse made sure of it).
	r.br = bufio.NewReaderSize(bytes.NewReader(nil), 16)
	slots := make([]*chunk, 2*f.workers+1)
	for i := range slots {
		slots[i] = &chunk{done: make(chan struct{}, 1), dict: make([]labelDict, f.nlab)}
	}
	var (
		work    chan *chunk
		wg      sync.WaitGroup
		head    int    // the slot to commit next
		pending int    // slots read and not yet committed
		carry   []byte // the partial line after the last chunk read
		readErr error  // the reader's error, io.EOF at the end
	)
	stopWorkers := func() {
		if work != nil {
			f.abort.Store(true)
			close(work)
			wg.Wait()
			work = nil
		}
	}
	defer stopWorkers()
	// rest hands the input from data on to the plain loop.
	rest := func(data []byte) {
		stopWorkers()
		if len(data) == 0 && pending <= 1 && len(carry) == 0 && readErr == io.EOF {
			return // all was loaded
		}
		parts := []io.Reader{bytes.NewReader(data)}
		for k := 1; k < pending; k++ {
			parts = append(parts, bytes.NewReader(slots[(head+k)%len(slots)].data))
		}
		parts = append(parts, bytes.NewReader(carry))
		switch readErr {
		case nil, errLongLine:
			parts = append(parts, br)
		case io.EOF:
		default:
			parts = append(parts, errorReader{readErr})
		}
		r.br = bufio.NewReaderSize(io.MultiReader(parts...), readBufferSize)
	}
	for {
		for pending < len(slots) && readErr == nil {
			c := slots[(head+pending)%len(slots)]
			carry, readErr = f.read(br, c, carry)
			if len(c.data) == 0 {
				break
			}
			pending++
			if work == nil && readErr == nil {
				// More than one chunk: start the workers.
				work = make(chan *chunk, len(slots))
				for range f.workers {
					wg.Go(func() {
						for c := range work {
							if !f.abort.Load() {
								f.parse(c)
							}
							c.done <- struct{}{}
						}
					})
				}
			}
			if work != nil {
				work <- c
			} else {
				f.parse(c) // the whole input is one chunk
				c.done <- struct{}{}
			}
		}
		if pending == 0 {
			rest(nil)
			return nil
		}
		c := slots[head]
		<-c.done
		from, err := f.commit(c, r)
		if err != nil {
			return err
		}
		if from >= 0 {
			rest(c.data[from:])
			return nil
		}
		head = (head + 1) % len(slots)
		pending--
	}
}

// read fills c with carry and the next bytes of br, up to its last line
// break (all of it at the end of the input), growing c.buf for a line
// longer than it. It returns the partial line after c.data and the read
// error: io.EOF at the end, or the reader's.
func (f *fastCSV) read(br *bufio.Reader, c *chunk, carry []byte) ([]byte, error) {
	for i := range c.dict {
		c.dict[i].reset() // its values alias the text about to be replaced
	}
	size := max(f.chunk, 2*len(carry))
	if cap(c.buf) < size {
		c.buf = make([]byte, size)
	}
	buf := c.buf[:cap(c.buf)]
	n := copy(buf, carry)
	for {
		m, err := io.ReadFull(br, buf[n:])
		n += m
		if err == io.ErrUnexpectedEOF {
			err = io.EOF
		}
		if err == io.EOF {
			c.buf, c.data = buf, buf[:n]
			return nil, io.EOF
		}
		nl := bytes.LastIndexByte(buf[:n], '\n')
		if err != nil || nl >= 0 {
			c.buf, c.data = buf, buf[:nl+1]
			return buf[nl+1 : n], err
		}
		if n > MaxLine+2 {
			// A line longer than any the plain loop takes: it refuses it.
			c.buf, c.data = buf, buf[:0]
			return buf[:n], errLongLine
		}
		// A line longer than the buffer.
		buf = append(buf, make([]byte, min(len(buf), MaxLine+3-len(buf)))...)
		buf = buf[:cap(buf)]
	}
}

// errLongLine stops the fast path at a line longer than MaxLine, for the
// plain loop to refuse.
var errLongLine = errors.New("a line longer than MaxLine")

// errorReader returns err on every read.
type errorReader struct{ err error }

func (e errorReader) Read([]byte) (int, error) { return 0, e.err }

// commit adds c's rows to the builder in file order, the slow lines through
// csvReader.split and addRow. It returns -1, or the offset in c.data from
// which the plain loop must go on; r's line and offset are advanced past
// what was committed.
func (f *fastCSV) commit(c *chunk, r *csvReader) (int, error) {
	b := f.b
	for j := range c.dict {
		d := &c.dict[j]
		for range d.vals {
			d.seen = append(d.seen, -1)
		}
	}
	base := r.line // the line before c's first
	done := 0
	for _, s := range c.slow {
		f.commitRows(c, done, s.before, base)
		done = s.before
		r.line = base + s.line // as the plain loop has it (splitQuoted's errors name it)
		fields, err := r.split(c.data[s.start:s.end], r.line)
		if err != nil {
			return 0, err
		}
		if err := b.addRow(r.line, fields); err != nil {
			return 0, err
		}
		if b.textFeatures > 0 {
			// addRow made a feature column text: the plain loop goes on from
			// the next line.
			next := s.end
			if next < len(c.data) && c.data[next] == '\r' {
				next++
			}
			if next < len(c.data) && c.data[next] == '\n' {
				next++
			}
			r.pos += int64(next)
			return next, nil
		}
	}
	f.commitRows(c, done, c.rows, base)
	r.line = base + c.lines
	if c.stop >= 0 {
		r.pos += int64(c.stop)
		return c.stop, nil
	}
	r.pos += int64(len(c.data))
	b.sizeFrom(r.pos)
	if err := b.admit(r.pos); err != nil {
		return 0, err
	}
	f.sparse.Store(b.sp != nil)
	return -1, nil
}

// commitRows appends c's fast rows from, to to the builder; line is the line
// before c's first.
func (f *fastCSV) commitRows(c *chunk, from, to, line int) {
	if from == to {
		return
	}
	b := f.b
	w, q := f.width, f.nlab
	if b.sp != nil && len(c.sp.ptr) == c.rows+1 {
		// The worker compressed the rows.
		lo, hi := c.sp.ptr[from], c.sp.ptr[to]
		shift := int64(len(b.sp.val)) - lo
		b.sp.ind = append(b.sp.ind, c.sp.ind[lo:hi]...)
		b.sp.val = append(b.sp.val, c.sp.val[lo:hi]...)
		for _, p := range c.sp.ptr[from+1 : to+1] {
			b.sp.ptr = append(b.sp.ptr, p+shift)
		}
	} else if b.sp != nil {
		for row := from; row < to; row++ {
			b.sp.add(c.vals[row*w : (row+1)*w])
		}
	} else {
		b.raw = append(b.raw, c.vals[from*w:to*w]...)
		if len(c.nnz) == c.rows+1 {
			b.nnz += c.nnz[to] - c.nnz[from]
		} else {
			b.nnz += nnzOf(c.vals[from*w : to*w])
		}
	}
	for row := from; row < to; row++ {
		for j, code := range c.codes[row*q : (row+1)*q] {
			d := &c.dict[j]
			g := d.seen[code]
			if g < 0 {
				g = f.labels[j].intern(d.vals[code], line+d.first[code])
				d.seen[code] = g
			}
			b.labelCodes = append(b.labelCodes, float64(g))
		}
	}
	if f.mean {
		// As addRow sums, row by row.
		for row := from; row < to; row++ {
			vals := c.vals[row*w : (row+1)*w]
			for k, col := range f.cols {
				if col.kind == cellNumber {
					bc := &b.cols[k]
					bc.sum += vals[col.index]
				}
			}
		}
	}
	b.rows += to - from
	b.streamRows(false)
}
