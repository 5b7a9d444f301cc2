package dataset

import (
	"bufio"
	"bytes"
	"io"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"
)

// The CSV fast path.
//
// The plain loop (csvReader.next, builder.addRow) spends most of its time
// splitting lines into fields and in strconv.ParseFloat, on one core. The
// fast path reads the data rows in chunks of whole lines and lets
// GOMAXPROCS workers parse chunks in parallel, each in one pass over the
// bytes: a number is scanned straight from the chunk into the chunk's block
// of float64s (scanNumber; strconv only for what Clinger's path cannot do),
// and label values are coded against the chunk's own small dictionary. The
// loading goroutine reads the next chunks while the workers parse, and
// commits parsed chunks in file order: it appends each block to the
// builder's matrix (sized once, as before) and maps the chunk's label codes
// to the builder's. So at most a few chunks of text and their blocks
// (chunks × chunkSize, a few MB) are held besides the matrix.
//
// A row the single pass cannot take exactly as addRow would (a missing
// value, text in a feature column, a number strconv refuses or that is
// infinite, a wrong number of fields, a quote, …) is not judged by the
// worker: the committer hands that line, split by csvReader.splitFast, to
// addRow, in its place among the rows, so every refusal, warning and
// missing-value policy is the plain loop's own. The fast path gives up, and
// the plain loop takes over from that line to the end of the input, when
//
//   - a line holds a quote: a quoted field may hold a line break, so lines
//     (and the chunks cut at them) are no longer certain from there on;
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
	cellSkip                   // a dropped column: only checked for quotes
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
}

// chunk is a piece of the input of whole lines, and what a worker made of
// it. The committer owns it but while a worker parses it.
type chunk struct {
	buf  []byte // the text: carried-over tail, then bytes read
	data []byte // the whole lines of buf (the last may lack its "\n" at the end of input)

	done chan struct{} // a worker parsed it

	// The worker's results.
	vals  []float64   // rows × width: the fast rows' features
	codes []int32     // rows × nlab: the fast rows' labels, coded in dict
	dict  []labelDict // per label column
	rows  int         // fast rows
	slow  []slowLine  // lines for addRow, in order
	lines int         // lines of data before stop (all of them if stop < 0)
	stop  int         // offset in data of the line that stops the fast path, or -1
}

// slowLine is a line for the plain path: data[start:end], without its
// line break, the line-th of the chunk (from 1), after before fast rows.
type slowLine struct {
	line, start, end, before int
}

// labelDict codes the distinct values of a label column within a chunk, in
// order of first appearance.
type labelDict struct {
	vals  [][]byte // aliasing the chunk
	first []int    // the chunk line each first appears on
	index map[string]int32
	seen  []int32 // builder's code of each value, -1 until committed
}

// dictMapAt is the number of values at which a dictionary adds its map;
// below it a linear search is faster.
const dictMapAt = 8

func (d *labelDict) reset() {
	d.vals, d.first, d.seen = d.vals[:0], d.first[:0], d.seen[:0]
	clear(d.index)
}

func (d *labelDict) find(tok []byte) int32 {
	if len(d.vals) >= dictMapAt {
		if c, ok := d.index[unsafe.String(unsafe.SliceData(tok), len(tok))]; ok {
			return c
		}
		return -1
	}
	for i, v := range d.vals {
		if string(v) == string(tok) {
			return int32(i)
		}
	}
	return -1
}

func (d *labelDict) add(tok []byte, line int) int32 {
	c := int32(len(d.vals))
	d.vals = append(d.vals, tok)
	d.first = append(d.first, line)
	if len(d.vals) >= dictMapAt {
		if d.index == nil {
			d.index = make(map[string]int32)
		}
		if len(d.index) == 0 {
			for i, v := range d.vals {
				d.index[unsafe.String(unsafe.SliceData(v), len(v))] = int32(i)
			}
		} else {
			d.index[unsafe.String(unsafe.SliceData(tok), len(tok))] = c
		}
	}
	return c
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
		case nil:
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
		// A line longer than the buffer.
		buf = append(buf, make([]byte, len(buf))...)
		buf = buf[:cap(buf)]
	}
}

// errorReader returns err on every read.
type errorReader struct{ err error }

func (e errorReader) Read([]byte) (int, error) { return 0, e.err }

// parse reads c.data: the rows it can take into c.vals and c.codes, the
// others into c.slow, until a line with a quote.
func (f *fastCSV) parse(c *chunk) {
	c.vals, c.codes, c.rows, c.slow, c.stop = c.vals[:0], c.codes[:0], 0, c.slow[:0], -1
	for i := range c.dict {
		c.dict[i].reset()
	}
	data := c.data
	if lines := bytes.Count(data, []byte{'\n'}) + 1; cap(c.vals) < lines*f.width {
		// Room for every line to be a row, so that the block is allocated
		// once for the chunk (and kept for the next ones).
		c.vals = make([]float64, 0, lines*f.width)
		c.codes = make([]int32, 0, lines*f.nlab)
	}
	line := 0
	newTok := make([][]byte, f.nlab)
	rowCodes := make([]int32, f.nlab)
	for pos := 0; pos < len(data); {
		line++
		if next, ok := f.row(c, data, pos, line, newTok, rowCodes); ok {
			pos = next
			continue
		}
		end, next := len(data), len(data)
		if k := bytes.IndexByte(data[pos:], '\n'); k >= 0 {
			end, next = pos+k, pos+k+1
		}
		text := data[pos:end]
		if n := len(text); n > 0 && text[n-1] == '\r' {
			text = text[:n-1]
		}
		if bytes.IndexByte(text, '"') >= 0 && !closesQuotes(text, f.delim) {
			c.stop, c.lines = pos, line-1
			return
		}
		if len(bytes.TrimSpace(text)) > 0 {
			c.slow = append(c.slow, slowLine{line: line, start: pos, end: pos + len(text), before: c.rows})
		}
		pos = next
	}
	c.lines = line
}

// row parses the line at data[pos:] as a fast row, appending it to c, and
// returns the offset of the next line; ok is false when the line is not a
// fast row (then c is as before). A cell is taken as csvReader.split and
// addRow would take it: spaces and tabs around a value are trimmed; a
// quoted field (after spaces) is its content, trimmed, unless it holds a
// doubled quote or is not closed on the line, which are left to
// splitQuoted; a line's "\r\n" ends it as "\n" does.
func (f *fastCSV) row(c *chunk, data []byte, pos, line int, newTok [][]byte, rowCodes []int32) (next int, ok bool) {
	n := len(c.vals)
	vals := c.vals[n : n+f.width] // parse made room for every line
	i := pos
	last := len(f.cols) - 1
	for k, col := range f.cols {
		q := i
		for q < len(data) && data[q] == ' ' {
			q++
		}
		switch {
		case q < len(data) && data[q] == '"':
			content, end, ok := quotedCell(data, q)
			if !ok {
				return 0, false
			}
			tok := trimSpace(content)
			switch col.kind {
			case cellNumber:
				v, m, ok := scanCell(tok)
				if !ok || m != len(tok) {
					return 0, false
				}
				vals[col.index] = v
			case cellLabel:
				f.label(c, col.index, tok, newTok, rowCodes)
			}
			i = end
		case col.kind == cellNumber:
			for i < len(data) && (data[i] == ' ' || data[i] == '\t') {
				i++
			}
			v, m, ok := scanCell(data[i:])
			if !ok {
				return 0, false
			}
			vals[col.index] = v
			i += m
			for i < len(data) && (data[i] == ' ' || data[i] == '\t') {
				i++
			}
		default:
			start := i
			for i < len(data) && data[i] != f.delim && data[i] != '\n' {
				if data[i] == '"' {
					return 0, false
				}
				i++
			}
			if col.kind == cellLabel {
				cell := data[start:i]
				if k == last && (i == len(data) || data[i] == '\n') && len(cell) > 0 && cell[len(cell)-1] == '\r' {
					cell = cell[:len(cell)-1]
				}
				f.label(c, col.index, trimSpace(cell), newTok, rowCodes)
			}
		}
		if k < last {
			if i == len(data) || data[i] != f.delim {
				return 0, false
			}
			i++
			continue
		}
		switch {
		case i == len(data):
		case data[i] == '\n':
			i++
		case data[i] == '\r' && (i+1 == len(data) || data[i+1] == '\n'):
			i = min(i+2, len(data))
		default:
			return 0, false
		}
	}
	// Values new to the chunk: as addRow would refuse missing labels and
	// text that is not UTF-8, leave those rows to it.
	for _, tok := range newTok {
		if tok != nil && (missingToken(tok) || !utf8.Valid(tok)) {
			return 0, false
		}
	}
	for j, tok := range newTok {
		if tok != nil {
			rowCodes[j] = c.dict[j].add(tok, line)
		}
	}
	c.vals = c.vals[:n+f.width]
	c.codes = append(c.codes, rowCodes...)
	c.rows++
	return i, true
}

// scanCell reads the number at the start of s as addRow would: n is its
// length, and ok is false when there is none or it is not finite.
func scanCell(s []byte) (v float64, n int, ok bool) {
	v, n, exact := scanNumber(s)
	if n == 0 {
		return 0, 0, false
	}
	if !exact {
		var err error
		v, err = strconv.ParseFloat(unsafe.String(&s[0], n), 64)
		if err != nil || v-v != 0 {
			return 0, 0, false
		}
	}
	return v, n, true
}

// quotedCell reads the quoted field whose opening quote is data[q]: its
// content, and the offset after its closing quote and the spaces after
// it. ok is false when the field holds a doubled quote or a line break or
// is not closed.
func quotedCell(data []byte, q int) (content []byte, end int, ok bool) {
	k := bytes.IndexByte(data[q+1:], '"')
	if k < 0 {
		return nil, 0, false
	}
	content = data[q+1 : q+1+k]
	end = q + 2 + k
	if (end < len(data) && data[end] == '"') || bytes.IndexByte(content, '\n') >= 0 {
		return nil, 0, false
	}
	for end < len(data) && data[end] == ' ' {
		end++
	}
	return content, end, true
}

// label codes a label cell in the chunk's dictionary of label j; a value
// new to it is put in newTok[j], for row to check and add.
func (f *fastCSV) label(c *chunk, j int, tok []byte, newTok [][]byte, rowCodes []int32) {
	code := c.dict[j].find(tok)
	newTok[j] = nil
	if code < 0 {
		newTok[j] = tok
	}
	rowCodes[j] = code
}

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
	b.raw = append(b.raw, c.vals[from*w:to*w]...)
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
					bc.n++
				}
			}
		}
	}
	b.rows += to - from
}
