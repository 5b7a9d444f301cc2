package dataset

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// A chunk and how a worker parses it (see csvfast.go).

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
	// nnz[r] counts the cells a sparse row would store in the fast rows
	// before row r (rows+1 of them), for the builder's choice of form; it
	// is left empty once the builder holds its rows sparse.
	nnz []int64
	// zeroRuns, set when the builder holds its rows sparse, makes row take
	// runs of zero cells at once, and the worker compress the fast rows
	// into sp (its row r is the chunk's r-th fast row), so that the
	// committer, which runs alone, appends them instead of searching every
	// cell of every row.
	zeroRuns bool
	sp       sparseRows
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

// dictMapAt is the number of values at which a dictionary adds its map; a
// label column mostly has two, found by comparing bytes without hashing.
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

// parse reads c.data: the rows it can take into c.vals and c.codes, the
// others into c.slow, until a line with a quoted field not closed on it.
// c's dictionaries are empty (see fastCSV.read).
func (f *fastCSV) parse(c *chunk) {
	c.vals, c.codes, c.rows, c.slow, c.stop = c.vals[:0], c.codes[:0], 0, c.slow[:0], -1
	c.nnz = c.nnz[:0]
	c.sp.ptr, c.sp.ind, c.sp.val = c.sp.ptr[:0], c.sp.ind[:0], c.sp.val[:0]
	c.zeroRuns = f.sparse.Load()
	count := !c.zeroRuns
	if count {
		c.nnz = append(c.nnz, 0)
	} else {
		c.sp.ptr = append(c.sp.ptr, 0)
	}
	data := c.data
	// Room for as many rows as the chunk can hold, so that the block is
	// allocated once (and kept for the next chunks): a line per row, and a
	// row has a delimiter between cells and a digit in each number.
	minRow := len(f.cols) - 1 + f.width
	rows := min(bytes.Count(data, []byte{'\n'})+1, len(data)/(minRow+1)+1)
	if cap(c.vals) < rows*f.width {
		c.vals = make([]float64, 0, rows*f.width)
		c.codes = make([]int32, 0, rows*f.nlab)
	}
	line := 0
	newTok := make([][]byte, f.nlab)
	rowCodes := make([]int32, f.nlab)
	for pos := 0; pos < len(data); {
		line++
		if next, ok := f.row(c, data, pos, line, newTok, rowCodes); ok {
			if count {
				c.nnz = append(c.nnz, c.nnz[c.rows-1]+nnzOf(c.vals[len(c.vals)-f.width:]))
			} else {
				c.sp.add(c.vals[len(c.vals)-f.width:])
			}
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
	if cap(c.vals)-n < f.width { // parse made room: not reached
		c.vals = append(c.vals, make([]float64, f.width)...)[:n]
	}
	vals := c.vals[n : n+f.width]
	i := pos
	last := len(f.cols) - 1
	zeroRuns := c.zeroRuns
	for k := 0; k < len(f.cols); k++ {
		if !zeroRuns {
			// A run of numeric columns, each cell a number exactly as
			// scanNumber reads it and then the delimiter: the bulk of a
			// dense file, taken without the cases below. The cell that
			// is not so (spaces, quotes, a number for strconv, a missing
			// value) goes to them, in its column.
			for r := f.numRun[k]; r > 0; r-- {
				v, m, exact := scanNumber(data[i:])
				if !exact || m > MaxCell || i+m >= len(data) || data[i+m] != f.delim {
					break
				}
				vals[f.cols[k].index] = v
				i += m + 1
				k++
			}
		}
		col := f.cols[k]
		if zeroRuns && f.numRun[k] > 0 && i+1 < len(data) && data[i+1] == f.delim && data[i] == '0' {
			// A zero cell ("0" and the delimiter) as the switch below would
			// take it, then the run of them after it four at a time: the
			// bulk of a sparse file. Dense data, whose cells are seldom
			// zero, pass by on the first test.
			vals[col.index] = 0
			i += 2
			for f.numRun[k+1] >= 4 && i+8 <= len(data) && binary.LittleEndian.Uint64(data[i:]) == f.zeros4 {
				next := f.cols[k+1].index
				clear(vals[next : next+4])
				i += 8
				k += 4
			}
			continue
		}
		q := i
		for q < len(data) && data[q] == ' ' {
			q++
		}
		switch {
		case q < len(data) && data[q] == '"':
			content, end, ok := quotedCell(data, q)
			if !ok || len(content) > MaxCell {
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
			if !ok || m > MaxCell {
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
			if i-start > MaxCell {
				return 0, false
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
