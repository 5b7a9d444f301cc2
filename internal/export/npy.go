package export

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// The .npy format is specified in NEP 1 and numpy.lib.format
// (https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html).
// The constants below are numpy's own names and values (numpy 1.24.2).
const (
	npyMagic = "\x93NUMPY"
	// npyAlign is ARRAY_ALIGN: magic, version, header length and header
	// together fill a multiple of it.
	npyAlign = 64
	// npyGrowthDigits is GROWTH_AXIS_MAX_DIGITS: since numpy 1.24 (pull
	// request #20321) np.save pads the header with 21 - len(repr(rows))
	// spaces, so that the row count can grow in place, before aligning it.
	npyGrowthDigits = 21
	// npyMaxHeader is _MAX_HEADER_SIZE, numpy's own limit when loading.
	npyMaxHeader = 10000
	// npyMaxElements caps the values ReadNPY accepts (16 GiB of float64).
	npyMaxElements = 1 << 31
	// npyChunk is how many bytes of values are encoded or decoded at a time.
	npyChunk = 1 << 16
)

// WriteNPY writes the r×c matrix m to w in NumPy's .npy format, version 1.0:
// dtype '<f8' (little-endian float64), C (row-major) order, shape (r, c).
// The header is byte for byte what np.save of numpy 1.24 (and later, as long
// as the format stays) writes for such an array:
//
//	{'descr': '<f8', 'fortran_order': False, 'shape': (r, c), }
//
// followed by 21 - len(str(r)) spaces, then spaces up to a multiple of 64
// bytes (counting the 10 bytes of magic, version and length) and '\n'.
// Values are written with their exact bits (NaN payloads, -0 and denormals
// included). A matrix with no rows or no columns gives a header and no data.
//
// It returns an error if m's Dims are negative or writing to w fails.
func WriteNPY(w io.Writer, m mat.Matrix) error {
	r, c := m.Dims()
	if r < 0 || c < 0 {
		return fmt.Errorf("export: writing npy: negative shape (%d, %d)", r, c)
	}
	if _, err := w.Write(npyHeader(r, c)); err != nil {
		return fmt.Errorf("export: writing npy header: %w", err)
	}
	if r == 0 || c == 0 {
		return nil
	}
	buf := make([]byte, min(npyChunk, 8*r*c))
	n := 0
	put := func(v float64) error {
		binary.LittleEndian.PutUint64(buf[n:], math.Float64bits(v))
		n += 8
		if n < len(buf) {
			return nil
		}
		n = 0
		_, err := w.Write(buf)
		return err
	}
	if rm, ok := m.(mat.RawMatrixer); ok {
		raw := rm.RawMatrix()
		for i := range r {
			for _, v := range raw.Data[i*raw.Stride : i*raw.Stride+c] {
				if err := put(v); err != nil {
					return fmt.Errorf("export: writing npy data: %w", err)
				}
			}
		}
	} else {
		for i := range r {
			for j := range c {
				if err := put(m.At(i, j)); err != nil {
					return fmt.Errorf("export: writing npy data: %w", err)
				}
			}
		}
	}
	if n > 0 {
		if _, err := w.Write(buf[:n]); err != nil {
			return fmt.Errorf("export: writing npy data: %w", err)
		}
	}
	return nil
}

// npyHeader returns magic, version 1.0, header length and header for a C-order
// '<f8' array of shape (r, c), as numpy.lib.format._write_array_header and
// _wrap_header build them.
func npyHeader(r, c int) []byte {
	dict := fmt.Sprintf("{'descr': '<f8', 'fortran_order': False, 'shape': (%d, %d), }", r, c)
	dict += strings.Repeat(" ", max(0, npyGrowthDigits-len(strconv.Itoa(r))))
	hlen := len(dict) + 1 // the final '\n'
	// Like numpy, pad with a full npyAlign spaces when already aligned.
	pad := npyAlign - (len(npyMagic)+2+2+hlen)%npyAlign
	b := make([]byte, 0, len(npyMagic)+2+2+hlen+pad)
	b = append(b, npyMagic...)
	b = append(b, 1, 0)
	b = binary.LittleEndian.AppendUint16(b, uint16(hlen+pad))
	b = append(b, dict...)
	b = append(b, strings.Repeat(" ", pad)...)
	return append(b, '\n')
}

// ReadNPY reads a NumPy .npy array from r: format version 1.0 or 2.0, dtype
// '<f8', C order, and a 2-D shape (rows, cols) or a 1-D shape (n,), which
// gives an n×1 matrix. It reads what WriteNPY writes and what np.save writes
// for such arrays, with the exact bits of every value, and consumes exactly
// the header and the data, leaving anything after them unread.
//
// A shape with a zero dimension gives a *mat.Dense whose Dims report that
// shape and which holds no values (gonum's constructors cannot make one, but
// Slice can); only Dims and the functions of this package are meant for it.
//
// ReadNPY never allocates much more than the input holds: it refuses shapes
// of more than 1<<31 values, checks the shape against the bytes left when r
// has a Len method (as *bytes.Reader and *strings.Reader do), and otherwise
// grows the matrix as data arrives.
//
// It returns an error for a bad magic string, another format version, a
// header longer than numpy's limit of 10000 bytes or that is not a Python dict
// literal with exactly the keys 'descr', 'fortran_order' and 'shape', another
// dtype (such as '<f4', '>f8' or '|u1'), fortran_order True, a shape with
// other than 1 or 2 dimensions or too many values, input that ends early, and
// errors from r.
func ReadNPY(r io.Reader) (*mat.Dense, error) {
	var pre [8]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil {
		return nil, fmt.Errorf("export: reading npy magic and version: %w", noEOF(err))
	}
	if string(pre[:6]) != npyMagic {
		return nil, fmt.Errorf("export: reading npy: got magic %q, want %q", pre[:6], npyMagic)
	}
	var hlen int
	switch major, minor := pre[6], pre[7]; {
	case major == 1 && minor == 0:
		var b [2]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, fmt.Errorf("export: reading npy header length: %w", noEOF(err))
		}
		hlen = int(binary.LittleEndian.Uint16(b[:]))
	case major == 2 && minor == 0:
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, fmt.Errorf("export: reading npy header length: %w", noEOF(err))
		}
		l := binary.LittleEndian.Uint32(b[:])
		if l > npyMaxHeader {
			return nil, fmt.Errorf("export: reading npy: header length %d exceeds the limit of %d bytes", l, npyMaxHeader)
		}
		hlen = int(l)
	default:
		return nil, fmt.Errorf("export: reading npy: format version %d.%d is not supported, want 1.0 or 2.0", major, minor)
	}
	if hlen > npyMaxHeader {
		return nil, fmt.Errorf("export: reading npy: header length %d exceeds the limit of %d bytes", hlen, npyMaxHeader)
	}
	header := make([]byte, hlen)
	if _, err := io.ReadFull(r, header); err != nil {
		return nil, fmt.Errorf("export: reading npy header of %d bytes: %w", hlen, noEOF(err))
	}
	h, err := parseNPYHeader(header)
	if err != nil {
		return nil, err
	}
	rows, cols, err := h.matrixShape()
	if err != nil {
		return nil, err
	}
	n := rows * cols
	if n == 0 {
		var m mat.Dense
		m.SetRawMatrix(blas64.General{Rows: rows, Cols: cols, Stride: cols})
		return &m, nil
	}

	capacity := min(n, npyChunk/8)
	if l, ok := r.(interface{ Len() int }); ok {
		if left := l.Len(); left/8 < n {
			return nil, fmt.Errorf("export: reading npy data: shape %s needs %d bytes, but only %d are left", h.shapeString(), 8*n, left)
		}
		capacity = n
	}
	data := make([]float64, 0, capacity)
	buf := make([]byte, min(npyChunk, 8*n))
	for len(data) < n {
		b := buf[:min(len(buf), 8*(n-len(data)))]
		got, err := io.ReadFull(r, b)
		if err != nil {
			return nil, fmt.Errorf("export: reading npy data: shape %s needs %d bytes, read %d: %w", h.shapeString(), 8*n, 8*len(data)+got, noEOF(err))
		}
		if len(data)+len(b)/8 > cap(data) {
			// Double, as far as n: append grows large slices by only 1.25.
			grown := make([]float64, len(data), min(n, 2*cap(data)))
			copy(grown, data)
			data = grown
		}
		for k := 0; k < len(b); k += 8 {
			data = append(data, math.Float64frombits(binary.LittleEndian.Uint64(b[k:])))
		}
	}
	return mat.NewDense(rows, cols, data), nil
}

// noEOF turns io.EOF into io.ErrUnexpectedEOF: ReadNPY only reads what the
// header promised, so input that ends there ended early.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// npyHeaderInfo is the dict of an .npy header.
type npyHeaderInfo struct {
	descr   string
	fortran bool
	shape   []int64
}

// matrixShape checks the dtype, order and shape for ReadNPY and returns the
// matrix dimensions.
func (h npyHeaderInfo) matrixShape() (rows, cols int, err error) {
	if h.descr != "<f8" {
		return 0, 0, fmt.Errorf("export: reading npy: dtype %q is not supported, want '<f8' (little-endian float64)", h.descr)
	}
	if h.fortran {
		return 0, 0, errors.New("export: reading npy: fortran_order True is not supported, want C order")
	}
	var r, c int64
	switch len(h.shape) {
	case 1:
		r, c = h.shape[0], 1
	case 2:
		r, c = h.shape[0], h.shape[1]
	default:
		return 0, 0, fmt.Errorf("export: reading npy: shape %s has %d dimensions, want 2 (or 1)", h.shapeString(), len(h.shape))
	}
	// Each factor is at most npyMaxElements = 1<<31, so r*c cannot overflow;
	// the MaxInt bounds matter where int has 32 bits.
	if r > npyMaxElements || c > npyMaxElements || r > math.MaxInt || c > math.MaxInt ||
		r*c > npyMaxElements || r*c > math.MaxInt/8 {
		return 0, 0, fmt.Errorf("export: reading npy: shape %s has more than the %d values allowed", h.shapeString(), int64(npyMaxElements))
	}
	return int(r), int(c), nil
}

// shapeString formats the shape as Python does.
func (h npyHeaderInfo) shapeString() string {
	var b strings.Builder
	b.WriteByte('(')
	for i, d := range h.shape {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.FormatInt(d, 10))
	}
	if len(h.shape) == 1 {
		b.WriteByte(',')
	}
	b.WriteByte(')')
	return b.String()
}

// parseNPYHeader parses the header of an .npy file: a Python dict literal
// with exactly the keys 'descr' (a string), 'fortran_order' (True or False)
// and 'shape' (a tuple of non-negative ints), in any order and spacing,
// with single or double quotes, optional trailing commas and the 'L' suffix
// of Python 2 ints (which numpy's _filter_header drops), followed by
// whitespace (numpy's padding). Other Python syntax, such as string escapes,
// is refused.
func parseNPYHeader(b []byte) (npyHeaderInfo, error) {
	p := headerParser{s: b}
	var h npyHeaderInfo
	seen := map[string]bool{}
	p.space()
	if err := p.expect('{'); err != nil {
		return h, err
	}
	for {
		p.space()
		if p.peek() == '}' {
			p.i++
			break
		}
		key, err := p.str()
		if err != nil {
			return h, err
		}
		if seen[key] {
			return h, p.errorf("key %q appears twice", key)
		}
		seen[key] = true
		p.space()
		if err := p.expect(':'); err != nil {
			return h, err
		}
		p.space()
		switch key {
		case "descr":
			h.descr, err = p.str()
		case "fortran_order":
			h.fortran, err = p.boolean()
		case "shape":
			h.shape, err = p.tuple()
		default:
			return h, p.errorf("unexpected key %q, want only 'descr', 'fortran_order' and 'shape'", key)
		}
		if err != nil {
			return h, err
		}
		p.space()
		if p.peek() == ',' {
			p.i++
			continue
		}
		if err := p.expect('}'); err != nil {
			return h, err
		}
		break
	}
	p.space()
	if p.i < len(p.s) {
		return h, p.errorf("unexpected %q after the dict", p.s[p.i])
	}
	for _, k := range []string{"descr", "fortran_order", "shape"} {
		if !seen[k] {
			return h, fmt.Errorf("export: reading npy header: key %q is missing", k)
		}
	}
	return h, nil
}

// headerParser reads the Python literal of an .npy header.
type headerParser struct {
	s []byte
	i int
}

// errorf reports a syntax error at the current position.
func (p *headerParser) errorf(format string, args ...any) error {
	return fmt.Errorf("export: reading npy header at byte %d: %s", p.i, fmt.Sprintf(format, args...))
}

// peek returns the next byte, or 0 at the end.
func (p *headerParser) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

// space skips whitespace.
func (p *headerParser) space() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 {
		p.i++
	}
}

// expect consumes the byte c.
func (p *headerParser) expect(c byte) error {
	if p.i >= len(p.s) {
		return p.errorf("got the end of the header, want %q", c)
	}
	if p.s[p.i] != c {
		return p.errorf("got %q, want %q", p.s[p.i], c)
	}
	p.i++
	return nil
}

// str reads a string in single or double quotes, without escapes.
func (p *headerParser) str() (string, error) {
	q := p.peek()
	if q != '\'' && q != '"' {
		return "", p.errorf("want a quoted string")
	}
	start := p.i + 1
	for j := start; j < len(p.s); j++ {
		switch p.s[j] {
		case q:
			p.i = j + 1
			return string(p.s[start:j]), nil
		case '\\', '\n':
			p.i = j
			return "", p.errorf("escapes and newlines in strings are not supported")
		}
	}
	return "", p.errorf("unterminated string")
}

// boolean reads True or False.
func (p *headerParser) boolean() (bool, error) {
	for _, w := range []string{"True", "False"} {
		if strings.HasPrefix(string(p.s[p.i:]), w) {
			p.i += len(w)
			return w == "True", nil
		}
	}
	return false, p.errorf("want True or False")
}

// tuple reads a tuple of non-negative decimal ints: (), (n,) or (n, m, …).
// A parenthesised int without a comma, such as (3), is not a tuple.
func (p *headerParser) tuple() ([]int64, error) {
	if err := p.expect('('); err != nil {
		return nil, err
	}
	dims := []int64{}
	comma := false
	for {
		p.space()
		if p.peek() == ')' {
			p.i++
			break
		}
		d, err := p.integer()
		if err != nil {
			return nil, err
		}
		dims = append(dims, d)
		p.space()
		comma = p.peek() == ','
		if comma {
			p.i++
			continue
		}
		if err := p.expect(')'); err != nil {
			return nil, err
		}
		break
	}
	if len(dims) == 1 && !comma {
		return nil, p.errorf("shape (%d) is an int, not a tuple", dims[0])
	}
	return dims, nil
}

// integer reads a non-negative decimal int as Python writes it (no leading
// zeros, no underscores), with an optional Python 2 'L' suffix.
func (p *headerParser) integer() (int64, error) {
	start := p.i
	for p.i < len(p.s) && '0' <= p.s[p.i] && p.s[p.i] <= '9' {
		p.i++
	}
	digits := string(p.s[start:p.i])
	switch {
	case digits == "":
		return 0, p.errorf("want a non-negative int")
	case len(digits) > 1 && digits[0] == '0':
		return 0, p.errorf("int %s has a leading zero", digits)
	}
	d, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return 0, p.errorf("int %s is too large", digits)
	}
	if p.peek() == 'L' {
		p.i++
	}
	return d, nil
}
