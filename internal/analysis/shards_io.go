package analysis

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// The binary form of a Partial, little-endian:
//
//	"MLDRPART"            8 bytes, the magic
//	version               uint32, partialVersion
//	header length         uint32, at most maxPartialHeader
//	header                JSON: the partialSpec and "rows" (N)
//	mean                  D float64, then their low parts, D float64
//	XcᵀXc                 its upper triangle by rows, D(D+1)/2 float64 (Gram)
//	label means, XcᵀLc    c float64, then D×c by rows (Cross)
//	LcᵀLc                 its upper triangle by rows, c(c+1)/2 float64 (LabelGram)
//	checksum              uint32, CRC-32C (Castagnoli) of every byte before it
//
// A reader refuses another magic or version, a header out of bounds, a
// short file and a checksum that does not match, each with a sentence.

const (
	partialMagic   = "MLDRPART"
	partialVersion = 1
	// maxPartialHeader bounds the JSON header (the classes of up to
	// 2 000 000 class variables fit).
	maxPartialHeader = 32 << 20
	// maxPartialFeatures and maxPartialFloats bound what a header may
	// ask a reader to allocate: the product's column limit, and 64 GiB.
	maxPartialFeatures = 2_000_000
	maxPartialFloats   = 1 << 33
)

// partialHeader is the JSON header of the binary form.
type partialHeader struct {
	partialSpec
	Rows int `json:"rows"`
}

// WriteTo writes p in its binary form (versioned, with the spec it was
// formed for and a CRC-32C checksum) to w, and returns the bytes written.
func (p *Partial) WriteTo(w io.Writer) (int64, error) {
	head, err := json.Marshal(partialHeader{partialSpec: p.spec, Rows: p.n})
	if err != nil {
		return 0, fmt.Errorf("analysis: encoding the header of partial statistics: %w", err)
	}
	cw := &countingWriter{w: w}
	crc := crc32.New(crc32.MakeTable(crc32.Castagnoli))
	bw := bufio.NewWriterSize(io.MultiWriter(cw, crc), 1<<16)
	var fixed [16]byte
	copy(fixed[:8], partialMagic)
	binary.LittleEndian.PutUint32(fixed[8:], partialVersion)
	binary.LittleEndian.PutUint32(fixed[12:], uint32(len(head)))
	bw.Write(fixed[:])
	bw.Write(head)
	fw := floatWriter{w: bw}
	fw.put(p.mean)
	fw.put(p.meanLo)
	if p.spec.Gram {
		fw.upper(p.gram)
	}
	if p.spec.Cross {
		fw.put(p.labelMean)
		r := p.cross.RawMatrix()
		for i := range r.Rows {
			fw.put(r.Data[i*r.Stride : i*r.Stride+r.Cols])
		}
	}
	if p.spec.LabelGram {
		fw.upper(p.labelGram)
	}
	if err := bw.Flush(); err != nil {
		return cw.n, fmt.Errorf("analysis: writing partial statistics: %w", err)
	}
	var sum [4]byte
	binary.LittleEndian.PutUint32(sum[:], crc.Sum32())
	if _, err := cw.Write(sum[:]); err != nil {
		return cw.n, fmt.Errorf("analysis: writing partial statistics: %w", err)
	}
	return cw.n, nil
}

// ReadPartial reads a Partial in the binary form WriteTo writes. It refuses
// (with an error saying what and where) another format or version, a
// header out of bounds, a truncated stream and a checksum mismatch.
func ReadPartial(r io.Reader) (*Partial, error) {
	crc := crc32.New(crc32.MakeTable(crc32.Castagnoli))
	br := bufio.NewReaderSize(r, 1<<16)
	tr := io.TeeReader(br, crc)
	var fixed [16]byte
	if _, err := io.ReadFull(tr, fixed[:]); err != nil {
		return nil, shortPartial("its first 16 bytes", err)
	}
	if string(fixed[:8]) != partialMagic {
		return nil, fmt.Errorf("analysis: not partial statistics: the stream starts with %q, want %q", fixed[:8], partialMagic)
	}
	if v := binary.LittleEndian.Uint32(fixed[8:]); v != partialVersion {
		return nil, fmt.Errorf("analysis: partial statistics of version %d; this build reads version %d: form them again with this build", v, partialVersion)
	}
	size := binary.LittleEndian.Uint32(fixed[12:])
	if size > maxPartialHeader {
		return nil, fmt.Errorf("analysis: the header of the partial statistics claims %d bytes, more than the %d allowed: the file is damaged", size, maxPartialHeader)
	}
	head := make([]byte, size)
	if _, err := io.ReadFull(tr, head); err != nil {
		return nil, shortPartial("its header", err)
	}
	var h partialHeader
	dec := json.NewDecoder(bytes.NewReader(head))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		return nil, fmt.Errorf("analysis: the header of the partial statistics is not valid: %v", err)
	}
	if err := h.check(); err != nil {
		return nil, err
	}
	p := &Partial{spec: h.partialSpec, n: h.Rows}
	d, c := h.Features, h.LabelCols
	fr := floatReader{r: tr}
	p.mean = fr.get("the column means", d)
	p.meanLo = fr.get("the column means", d)
	if h.Gram {
		p.gram = fr.upper("XcᵀXc", d)
	}
	if h.Cross {
		p.labelMean = fr.get("the label means", c)
		if cross := fr.get("XcᵀL", d*c); cross != nil {
			p.cross = mat.NewDense(d, c, cross)
		}
	}
	if h.LabelGram {
		p.labelGram = fr.upper("LcᵀLc", c)
	}
	if fr.err != nil {
		return nil, fr.err
	}
	want := crc.Sum32()
	var sum [4]byte
	if _, err := io.ReadFull(br, sum[:]); err != nil {
		return nil, shortPartial("its checksum", err)
	}
	if got := binary.LittleEndian.Uint32(sum[:]); got != want {
		return nil, fmt.Errorf("analysis: the partial statistics are damaged: their CRC-32C is %08x, the file says %08x; form the shard's statistics again", want, got)
	}
	return p, nil
}

// check bounds a header read from a stream before anything is allocated
// by it.
func (h partialHeader) check() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("analysis: the header of the partial statistics is not valid: "+format, args...)
	}
	switch {
	case h.Method == "":
		return bad("no method")
	case h.Rows < 1:
		return bad("%d rows", h.Rows)
	case h.Features < 1 || h.Features > maxPartialFeatures:
		return bad("%d features (1…%d)", h.Features, maxPartialFeatures)
	case h.Labels < 1 || h.Labels > maxPartialFeatures:
		return bad("%d labels (1…%d)", h.Labels, maxPartialFeatures)
	case h.Classes != nil && len(h.Classes) != h.Labels:
		return bad("%d labels but %d category counts", h.Labels, len(h.Classes))
	case slices.ContainsFunc(h.Classes, func(k int) bool { return k < 1 }):
		return bad("a class variable without categories")
	case (h.Cross || h.LabelGram) != (h.LabelCols > 0) || h.LabelCols < 0 || h.LabelCols > maxPartialFeatures:
		return bad("%d label columns", h.LabelCols)
	case h.LabelCols > 0 && h.LabelKind != "binary" && h.LabelKind != "onehot" && h.LabelKind != "quadratic":
		return bad("label columns of the kind %q", h.LabelKind)
	case h.LabelGram && !h.Cross:
		return bad("LcᵀLc without XcᵀL")
	case partialFloats(h.partialSpec) > maxPartialFloats:
		return bad("%.3g values, more than the %d allowed", partialFloats(h.partialSpec), int64(maxPartialFloats))
	}
	return nil
}

// shortPartial is the error of a stream that ends before part.
func shortPartial(part string, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("analysis: the partial statistics end before %s: the file is truncated", part)
	}
	return fmt.Errorf("analysis: reading the partial statistics (%s): %w", part, err)
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}

// floatWriter writes float64s little-endian (errors surface at the
// bufio.Writer's Flush).
type floatWriter struct {
	w   *bufio.Writer
	buf [8]byte
}

func (f *floatWriter) put(v []float64) {
	for _, x := range v {
		binary.LittleEndian.PutUint64(f.buf[:], math.Float64bits(x))
		f.w.Write(f.buf[:])
	}
}

// upper writes the upper triangle of s by rows.
func (f *floatWriter) upper(s *mat.SymDense) {
	r := s.RawSymmetric()
	for i := range r.N {
		f.put(r.Data[i*r.Stride+i : i*r.Stride+r.N])
	}
}

// floatReader reads float64s little-endian, keeping the first error.
type floatReader struct {
	r   io.Reader
	err error
	buf [1 << 13]byte
}

// get reads n values of what, or none after an error.
func (f *floatReader) get(what string, n int) []float64 {
	if f.err != nil {
		return nil
	}
	out := make([]float64, n)
	for off := 0; off < n; {
		k := min(n-off, len(f.buf)/8)
		if _, err := io.ReadFull(f.r, f.buf[:8*k]); err != nil {
			f.err = shortPartial(what, err)
			return nil
		}
		for i := range k {
			out[off+i] = math.Float64frombits(binary.LittleEndian.Uint64(f.buf[8*i:]))
		}
		off += k
	}
	return out
}

// upper reads the upper triangle of an n×n symmetric matrix by rows.
func (f *floatReader) upper(what string, n int) *mat.SymDense {
	s := mat.NewSymDense(n, nil)
	r := s.RawSymmetric()
	for i := range n {
		row := f.get(what, n-i)
		if f.err != nil {
			return nil
		}
		copy(r.Data[i*r.Stride+i:], row)
	}
	return s
}
