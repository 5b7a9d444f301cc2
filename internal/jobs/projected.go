package jobs

import (
	"bufio"
	"encoding/binary"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strconv"
	"sync"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/export"
)

// FileProjectedRows is the projected rows as a job writes them, in binary
// (not served): projected.csv is derived from it on its first download
// (Service.ResultPath), and the pages read it (Service.Projected).
//
// A JSON header line {"version": 1, "rows": N, "d": d, "parts": [names],
// "folds": bool}, then, little-endian, in projected.csv's order: each
// row's 1-based number in its data set (N uint32), its part as an index
// into parts (N uint8), with folds the fold it is tested in, 0 for none (N
// uint32), then the components one after the other, each N float64.
// 13 + 8·d bytes a row (17 + 8·d with folds) instead of about 20·d in
// CSV, and a component is read without the others.
const FileProjectedRows = "projected.bin"

// projectedParts are the parts a row can be in, in the header's order.
var projectedParts = []string{PartTrain, PartTest, PartAll}

// projectedHeader is the first line of FileProjectedRows.
type projectedHeader struct {
	Version int      `json:"version"`
	Rows    int      `json:"rows"`
	D       int      `json:"d"`
	Parts   []string `json:"parts"`
	Folds   bool     `json:"folds"`
}

// projectedBlock is how many rows of projected.csv one goroutine formats
// at a time.
const projectedBlock = 2048

// writeProjectedRows writes FileProjectedRows of the first d components of
// z, the reduced rows of the plan's data: every row of the data (the
// training rows first, then the test rows; see plan.rowOrder) or, for mds,
// one per fit row, in their order.
func writeProjectedRows(w io.Writer, p *plan, z *mat.Dense, d int) error {
	// at is the row of z of the k-th row written.
	order := p.rowOrder()
	at := func(k int) int { return order[k] }
	if zr, _ := z.Dims(); zr == len(p.fitRows) && zr != len(p.rowSplit) { // mds: fit rows only
		order = p.fitRows
		at = func(k int) int { return k }
	}
	h := projectedHeader{Version: 1, Rows: len(order), D: d, Parts: projectedParts, Folds: p.rowFold != nil}
	hb, err := json.Marshal(h)
	if err != nil {
		return err
	}
	if _, err := w.Write(append(hb, '\n')); err != nil {
		return err
	}
	b := make([]byte, 0, 64<<10)
	put := func(v []byte) error {
		if len(b)+len(v) > cap(b) {
			if _, err := w.Write(b); err != nil {
				return err
			}
			b = b[:0]
		}
		b = append(b, v...)
		return nil
	}
	var v [8]byte
	for _, i := range order {
		if p.rowNumber[i] < 0 || p.rowNumber[i] > math.MaxUint32 {
			return fmt.Errorf("row number %d does not fit the projected rows file", p.rowNumber[i])
		}
		binary.LittleEndian.PutUint32(v[:], uint32(p.rowNumber[i]))
		if err := put(v[:4]); err != nil {
			return err
		}
	}
	for _, i := range order {
		part := slices.Index(projectedParts, p.rowSplit[i])
		if part < 0 {
			return fmt.Errorf("row %d is in no part of the projected rows file (%q)", p.rowNumber[i], p.rowSplit[i])
		}
		if err := put([]byte{byte(part)}); err != nil {
			return err
		}
	}
	if p.rowFold != nil {
		for _, i := range order {
			binary.LittleEndian.PutUint32(v[:], uint32(p.rowFold[i]))
			if err := put(v[:4]); err != nil {
				return err
			}
		}
	}
	for c := range d {
		for k := range order {
			binary.LittleEndian.PutUint64(v[:], math.Float64bits(z.At(at(k), c)))
			if err := put(v[:]); err != nil {
				return err
			}
		}
	}
	_, err = w.Write(b)
	return err
}

// errBadProjected says FileProjectedRows does not hold what its header
// says.
var errBadProjected = errors.New("the projected rows file does not match its header")

// projectedFile is FileProjectedRows open for reading.
type projectedFile struct {
	r    io.ReaderAt
	h    projectedHeader
	base int64 // where the row numbers begin, after the header line
}

// openProjected reads the header of FileProjectedRows, size bytes in r,
// and checks that the size is what it says.
func openProjected(r io.ReaderAt, size int64) (*projectedFile, error) {
	line, err := bufio.NewReaderSize(io.NewSectionReader(r, 0, min(size, 1<<16)), 4096).ReadSlice('\n')
	if err != nil {
		return nil, fmt.Errorf("%w: no header line (%v)", errBadProjected, err)
	}
	f := &projectedFile{r: r, base: int64(len(line))}
	if err := json.Unmarshal(line, &f.h); err != nil {
		return nil, fmt.Errorf("%w: %v", errBadProjected, err)
	}
	h := f.h
	if h.Version != 1 || h.Rows < 0 || h.D < 0 || len(h.Parts) == 0 || len(h.Parts) > 256 {
		return nil, fmt.Errorf("%w: version %d, %d rows, %d components, %d parts", errBadProjected, h.Version, h.Rows, h.D, len(h.Parts))
	}
	for _, part := range h.Parts {
		if !slices.Contains(projectedParts, part) {
			return nil, fmt.Errorf("%w: unknown part %q", errBadProjected, part)
		}
	}
	if want := f.offset(h.D, 0); want != size {
		return nil, fmt.Errorf("%w: %d bytes, want %d", errBadProjected, size, want)
	}
	return f, nil
}

// offset is where row i of column c begins: c = -3 the row numbers, -2
// the parts, -1 the folds, 0… the components.
func (f *projectedFile) offset(c, i int) int64 {
	n := int64(f.h.Rows)
	folds := int64(0)
	if f.h.Folds {
		folds = 4 * n
	}
	switch c {
	case -3:
		return f.base + 4*int64(i)
	case -2:
		return f.base + 4*n + int64(i)
	case -1:
		return f.base + 5*n + 4*int64(i)
	}
	return f.base + 5*n + folds + 8*(n*int64(c)+int64(i))
}

// rows reads rows [from, to): their numbers, parts and, with folds, folds
// (nil without).
func (f *projectedFile) rows(from, to int) (number []int, part []string, fold []int, err error) {
	n := to - from
	if n == 0 {
		return nil, nil, nil, nil
	}
	b := make([]byte, 4*n)
	if _, err := f.r.ReadAt(b, f.offset(-3, from)); err != nil {
		return nil, nil, nil, err
	}
	number = make([]int, n)
	for k := range number {
		number[k] = int(binary.LittleEndian.Uint32(b[4*k:]))
	}
	if _, err := f.r.ReadAt(b[:n], f.offset(-2, from)); err != nil {
		return nil, nil, nil, err
	}
	part = make([]string, n)
	for k, x := range b[:n] {
		if int(x) >= len(f.h.Parts) {
			return nil, nil, nil, fmt.Errorf("%w: row %d is in part %d of %d", errBadProjected, from+k+1, x, len(f.h.Parts))
		}
		part[k] = f.h.Parts[x]
	}
	if f.h.Folds {
		if _, err := f.r.ReadAt(b, f.offset(-1, from)); err != nil {
			return nil, nil, nil, err
		}
		fold = make([]int, n)
		for k := range fold {
			fold[k] = int(binary.LittleEndian.Uint32(b[4*k:]))
		}
	}
	return number, part, fold, nil
}

// component reads rows [from, to) of component c (0-based) into dst[k·stride],
// k = 0…to−from−1.
func (f *projectedFile) component(c, from, to int, dst []float64, stride int) error {
	b := make([]byte, 8*min(to-from, 8192))
	for from < to {
		n := min(to-from, len(b)/8)
		if _, err := f.r.ReadAt(b[:8*n], f.offset(c, from)); err != nil {
			return err
		}
		for k := range n {
			dst[k*stride] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*k:]))
		}
		dst = dst[min(n*stride, len(dst)):]
		from += n
	}
	return nil
}

// read reads every row's number, part, fold and the components cols
// (0-based; none: all of them).
func (f *projectedFile) read(cols []int) (*Projected, error) {
	if len(cols) == 0 {
		for c := range f.h.D {
			cols = append(cols, c)
		}
	}
	for _, c := range cols {
		if c < 0 || c >= f.h.D {
			return nil, fmt.Errorf("there is no component %d of %d", c+1, f.h.D)
		}
	}
	n := f.h.Rows
	row, split, fold, err := f.rows(0, n)
	if err != nil {
		return nil, err
	}
	coords := make([]float64, n*len(cols))
	for k, c := range cols {
		if n == 0 {
			break
		}
		if err := f.component(c, 0, n, coords[k:], len(cols)); err != nil {
			return nil, err
		}
	}
	p := &Projected{Row: row, Split: split, Fold: fold, Coords: make([][]float64, n)}
	for i := range n {
		p.Coords[i] = coords[i*len(cols) : (i+1)*len(cols) : (i+1)*len(cols)]
	}
	return p, nil
}

// writeProjectedCSV writes projected.csv from FileProjectedRows: row
// (1-based, in its data set), split (train, test or all), with folds the
// fold the row is tested in (empty for a row no predefined fold tests),
// then c1…cd; in the file's order.
//
// The bytes are those encoding/csv writes (no field of it needs quotes:
// numbers, part names and empty folds), made faster: blocks of rows are
// read and formatted on every core, at most two blocks a core in memory at
// once, and written in order as they come.
func writeProjectedCSV(w io.Writer, f *projectedFile) error {
	d := f.h.D
	cw := csv.NewWriter(w)
	rec := []string{"row", "split"}
	if f.h.Folds {
		rec = append(rec, "fold")
	}
	rec = append(rec, export.ComponentNames(d)...)
	for i, name := range rec {
		rec[i] = export.SafeCell(name) // fixed names, but one rule for every CSV
	}
	if err := cw.Write(rec); err != nil {
		return err
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	format := func(from, to int, b []byte) ([]byte, error) {
		number, part, fold, err := f.rows(from, to)
		if err != nil {
			return nil, err
		}
		z := make([]float64, (to-from)*d)
		for c := range d {
			if err := f.component(c, from, to, z[c:], d); err != nil {
				return nil, err
			}
		}
		for k := range to - from {
			b = strconv.AppendInt(b, int64(number[k]), 10)
			b = append(b, ',')
			b = append(b, part[k]...)
			if fold != nil {
				b = append(b, ',')
				if fold[k] > 0 {
					b = strconv.AppendInt(b, int64(fold[k]), 10)
				}
			}
			for _, v := range z[k*d : (k+1)*d] {
				b = append(b, ',')
				b = strconv.AppendFloat(b, v, 'g', -1, 64)
			}
			b = append(b, '\n')
		}
		return b, nil
	}
	return writeBlocks(w, f.h.Rows, 24*(d+2)*projectedBlock, format)
}

// writeBlocks writes the blocks of projectedBlock rows of n rows in order,
// each made by format (which appends to b) on one of the cores. The first
// error stops it.
func writeBlocks(w io.Writer, n, size int, format func(from, to int, b []byte) ([]byte, error)) error {
	workers := runtime.GOMAXPROCS(0)
	if workers == 1 || n <= projectedBlock {
		var b []byte
		for from := 0; from < n; from += projectedBlock {
			var err error
			if b, err = format(from, min(from+projectedBlock, n), b[:0]); err != nil {
				return err
			}
			if _, err := w.Write(b); err != nil {
				return err
			}
		}
		return nil
	}
	// Blocks go out in order: each has its own channel, queued in order;
	// the queue's capacity bounds the blocks formatted ahead.
	type result struct {
		b   []byte
		err error
	}
	type block struct {
		from, to int
		out      chan result
	}
	queue := make(chan chan result, 2*workers)
	work := make(chan block)
	done := make(chan struct{}) // closed when the writer stops early
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for bl := range work {
				b, err := format(bl.from, bl.to, make([]byte, 0, size))
				bl.out <- result{b, err}
			}
		})
	}
	wg.Go(func() {
		defer close(queue)
		defer close(work)
		for from := 0; from < n; from += projectedBlock {
			out := make(chan result, 1)
			select {
			case queue <- out:
			case <-done:
				return
			}
			work <- block{from: from, to: min(from+projectedBlock, n), out: out}
		}
	})
	var err error
	for out := range queue {
		r := <-out
		if err == nil {
			err = r.err
			if err == nil {
				_, err = w.Write(r.b)
			}
			if err != nil {
				close(done)
			}
		}
	}
	wg.Wait()
	return err
}
