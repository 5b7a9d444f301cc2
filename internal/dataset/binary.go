package dataset

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"math"
	"unsafe"

	"gonum.org/v1/gonum/mat"
)

// The binary form of a data set, as stored on disk:
//
//	magic    8 bytes  "MLDRDS\x00\x01"
//	hlen     uint64   length of the header
//	header   hlen bytes of JSON (binaryHeader)
//	X        rows×features float64, row-major
//	Y        rows×labels float64, row-major; or, when the header has
//	         "label_nnz" (labels held sparse, Dataset.YSparse), Y in the
//	         sparse form's CSR layout: Ptr, Ind, pad, Val (binary_sparse.go)
//	crc      uint32   CRC-32C of everything before it
//
// All numbers are little-endian. WriteBinary pads the header's JSON with
// spaces so that X starts at a multiple of 8 bytes (16 + hlen is one), and
// a file can be used in place (ViewBinary); files written before that are
// the same format, and whether they can be is seen from hlen.
var binaryMagic = []byte("MLDRDS\x00\x01")

type binaryHeader struct {
	Name       string     `json:"name"`
	Rows       int        `json:"rows"`
	Features   Names      `json:"features"`
	Labels     Names      `json:"labels"`
	Kind       Kind       `json:"kind"`
	Categories [][]string `json:"categories,omitempty"`
	Warnings   []string   `json:"warnings,omitempty"`
	Columns    []string   `json:"columns,omitempty"`
	LabelCols  []string   `json:"label_columns,omitempty"`
	// LabelNNZ, when set, says that Y is stored sparse, with this many
	// entries (files written before sparse labels have none: Y dense).
	LabelNNZ *int64 `json:"label_nnz,omitempty"`
}

// headerOf is the header of d's binary form, but for the sparse form's
// count of entries.
func headerOf(d *Dataset) binaryHeader {
	h := binaryHeader{Name: d.Name, Rows: d.Rows(), Features: d.Features, Labels: d.Labels,
		Kind: d.Kind, Categories: d.Categories, Warnings: d.Warnings, Columns: d.Columns, LabelCols: d.LabelColumns}
	if d.YSparse != nil {
		nnz := int64(d.YSparse.NNZ())
		h.LabelNNZ = &nnz
	}
	return h
}

// labelBytes is the size in bytes of the Y section h describes, for a
// file of size bytes; ok is false when the counts cannot fit that size
// (checked before they are multiplied, so that a damaged header never
// overflows).
func (h *binaryHeader) labelBytes(size int64) (n int64, ok bool) {
	rows, nl := int64(h.Rows), int64(h.Labels.Len())
	if rows < 0 || rows > size/8 {
		return 0, false
	}
	if h.LabelNNZ == nil {
		if nl > 0 && rows > size/(8*nl) {
			return 0, false
		}
		return 8 * rows * nl, true
	}
	nnz := *h.LabelNNZ
	if nnz < 0 || nnz > size/12 {
		return 0, false
	}
	return 8*(rows+1) + 12*nnz + sparsePad(nnz), true
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// WriteBinary writes d in the binary storage form (the sparse form of
// binary_sparse.go when d.Sparse is set).
func WriteBinary(w io.Writer, d *Dataset) error {
	if err := d.Validate(); err != nil {
		return err
	}
	if d.Sparse != nil {
		return writeBinarySparse(w, d) // binary_sparse.go
	}
	crc := crc32.New(castagnoli)
	bw := bufio.NewWriterSize(io.MultiWriter(w, crc), 1<<16)
	h, err := denseHeader(d)
	if err != nil {
		return err
	}
	h = padHeader(h)
	bw.Write(binaryMagic)
	bw.Write(binary.LittleEndian.AppendUint64(nil, uint64(len(h))))
	bw.Write(h)
	writeFloats(bw, d.X)
	writeLabels(bw, d)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing the data set: %w", err)
	}
	if _, err := w.Write(binary.LittleEndian.AppendUint32(nil, crc.Sum32())); err != nil {
		return fmt.Errorf("writing the data set: %w", err)
	}
	return nil
}

// denseHeader is the JSON header of d's dense binary form, unpadded.
func denseHeader(d *Dataset) ([]byte, error) {
	h, err := json.Marshal(headerOf(d))
	if err != nil {
		return nil, fmt.Errorf("encoding the data set header: %w", err)
	}
	return h, nil
}

// padHeader appends spaces to the JSON header h (JSON allows them) until
// the 16 bytes of magic and length and h end at a multiple of 8 bytes, so
// that the arrays after it are aligned for float64 and int64.
func padHeader(h []byte) []byte {
	for (16+len(h))%8 != 0 {
		h = append(h, ' ')
	}
	return h
}

// writeFloats writes m's values, row by row, little-endian: on a
// little-endian machine straight from the matrix's memory.
func writeFloats(w *bufio.Writer, m *mat.Dense) {
	raw := m.RawMatrix()
	var b [8]byte
	for i := range raw.Rows {
		row := raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols]
		if littleEndian {
			w.Write(floatBytes(row))
			continue
		}
		for _, v := range row {
			binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
			w.Write(b[:])
		}
	}
}

// ReadBinary reads a data set written by WriteBinary. size is the number of
// bytes r holds; a mismatch with the header, a bad checksum or a malformed
// header gives an error wrapping ErrCorrupt.
func ReadBinary(r io.Reader, size int64) (*Dataset, error) {
	return readBinary(r, size, true)
}

// ReadBinaryVerified is ReadBinary for a file whose checksum the caller
// has verified before (the same file, unchanged: store.Files remembers it
// by path, size, modification time and inode): it does not compute the
// checksum again. Every other check is made; the 4 checksum bytes must
// still be there. (The sparse form is always checked: it is small.)
func ReadBinaryVerified(r io.Reader, size int64) (*Dataset, error) {
	return readBinary(r, size, false)
}

func readBinary(r io.Reader, size int64, verify bool) (*Dataset, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	if isSparseBinary(br) {
		return readBinarySparse(br, size) // binary_sparse.go
	}
	crc := crc32.New(castagnoli)
	var tr io.Reader = br
	if verify {
		tr = io.TeeReader(br, crc)
	}
	_, hb, err := readHead(tr, size, "a stored data set", binaryMagic)
	if err != nil {
		return nil, err
	}
	h, err := decodeDenseHeader(hb, size)
	if err != nil {
		return nil, err
	}
	nf := h.Features.Len()
	d := h.dataset()
	var sum hash.Hash32
	if verify {
		sum = crc
	}
	if d.X, err = readFloats(br, sum, h.Rows, nf); err != nil {
		return nil, err
	}
	if err := readLabels(br, sum, &h, d); err != nil {
		return nil, err
	}
	if err := readTail(br, sum); err != nil {
		return nil, err
	}
	if err := d.Validate(); err != nil {
		return nil, corrupt("%v", err)
	}
	return d, nil
}

// decodeDenseHeader decodes the dense form's JSON header hb and checks
// that the values it describes, with the 16 bytes before it and the 4
// after them, make size bytes.
func decodeDenseHeader(hb []byte, size int64) (binaryHeader, error) {
	var h binaryHeader
	if err := json.Unmarshal(hb, &h); err != nil {
		return h, corrupt("decoding the header: %v", err)
	}
	nf, nl := h.Features.Len(), h.Labels.Len()
	// The product may overflow for a damaged header: bound Rows first.
	tooMany := nf > 0 && int64(h.Rows) > size/(8*int64(nf))
	yb, ok := h.labelBytes(size)
	if h.Rows < 0 || tooMany || !ok || int64(len(binaryMagic)+8)+int64(len(hb))+8*int64(h.Rows)*int64(nf)+yb+4 != size {
		return h, corrupt("the header describes %d×(%d+%d) values, which does not match the file size %d", h.Rows, nf, nl, size)
	}
	return h, nil
}

// writeLabels writes d's Y section: Y's values row by row, or YSparse's
// arrays in the sparse form's layout (Ptr, Ind, pad, Val).
func writeLabels(bw *bufio.Writer, d *Dataset) {
	if d.YSparse == nil {
		writeFloats(bw, d.Y)
		return
	}
	writeCSR(bw, d.YSparse)
}

// readLabels reads the Y section h describes from r into d, adding what
// it reads to sum (nil: none).
func readLabels(r io.Reader, sum hash.Hash32, h *binaryHeader, d *Dataset) error {
	nl := h.Labels.Len()
	if h.LabelNNZ == nil {
		y, err := readFloats(r, sum, h.Rows, nl)
		d.Y = y
		return err
	}
	if sum != nil {
		r = io.TeeReader(r, sum)
	}
	m, err := readCSR(r, h.Rows, nl, *h.LabelNNZ, true)
	d.YSparse = m
	return err
}

// dataset is the data set h describes, without its matrices.
func (h *binaryHeader) dataset() *Dataset {
	return &Dataset{Name: h.Name, Features: h.Features, Labels: h.Labels, Kind: h.Kind, Categories: h.Categories, Warnings: h.Warnings,
		Columns: h.Columns, LabelColumns: h.LabelCols}
}

// littleEndian is whether this machine stores a float64 as the binary
// form does, so that values can be read straight into a []float64.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// floatChunk is how many bytes of values are read, and summed, at a time:
// small enough that the checksum reads them from the cache.
const floatChunk = 1 << 19

// readFloats reads rows×cols little-endian float64 values from r, adding
// them to sum (nil: none). On a little-endian machine they are read
// straight into the matrix's memory, a chunk at a time, without a copy.
func readFloats(r io.Reader, sum hash.Hash32, rows, cols int) (*mat.Dense, error) {
	data := make([]float64, rows*cols)
	if littleEndian {
		raw := floatBytes(data)
		for off := 0; off < len(raw); off += floatChunk {
			b := raw[off:min(off+floatChunk, len(raw))]
			if _, err := io.ReadFull(r, b); err != nil {
				return nil, corrupt("reading values: %v", err)
			}
			if sum != nil {
				sum.Write(b)
			}
		}
	} else {
		buf := make([]byte, 1<<16)
		for i := 0; i < len(data); {
			n := min(len(buf)/8, len(data)-i)
			if _, err := io.ReadFull(r, buf[:8*n]); err != nil {
				return nil, corrupt("reading values: %v", err)
			}
			if sum != nil {
				sum.Write(buf[:8*n])
			}
			for k := range n {
				data[i+k] = math.Float64frombits(binary.LittleEndian.Uint64(buf[8*k:]))
			}
			i += n
		}
	}
	if rows == 0 || cols == 0 {
		return &mat.Dense{}, nil
	}
	return mat.NewDense(rows, cols, data), nil
}

// floatBytes is the memory of v as bytes (no copy).
func floatBytes(v []float64) []byte {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 8*len(v))
}

// readHead reads the 16 bytes of a stored file's magic and header length
// and then the header from r (its size bytes in all), checking the magic
// against any of magics (what names the file in errors); it returns the
// magic found and the header.
func readHead(r io.Reader, size int64, what string, magics ...[]byte) (magic, header []byte, err error) {
	fixed := make([]byte, 16)
	if _, err := io.ReadFull(r, fixed); err != nil {
		return nil, nil, corrupt("reading the header of %s: %v", what, err)
	}
	for _, m := range magics {
		if string(fixed[:8]) == string(m) {
			magic = m
		}
	}
	if magic == nil {
		return nil, nil, corrupt("not %s (bad magic)", what)
	}
	hlen := binary.LittleEndian.Uint64(fixed[8:])
	if hlen > uint64(size) {
		return nil, nil, corrupt("header length %d exceeds the file size %d", hlen, size)
	}
	header = make([]byte, hlen)
	if _, err := io.ReadFull(r, header); err != nil {
		return nil, nil, corrupt("reading the header of %s: %v", what, err)
	}
	return magic, header, nil
}

// readTail reads a stored file's last 4 bytes from r and checks them
// against sum, the CRC-32C of everything before them (skipped when sum is
// nil: the caller verified the file before).
func readTail(r io.Reader, sum hash.Hash32) error {
	var tail [4]byte
	if _, err := io.ReadFull(r, tail[:]); err != nil {
		return corrupt("reading the checksum: %v", err)
	}
	if sum != nil && binary.LittleEndian.Uint32(tail[:]) != sum.Sum32() {
		return corrupt("checksum mismatch")
	}
	return nil
}

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
}
