package dataset

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"math"

	"mldr/internal/sparse"
)

// The binary form of a sparse data set, as stored on disk (version 2):
//
//	magic    8 bytes  "MLDRSP\x00\x02"
//	hlen     uint64   length of the header, 16 + hlen a multiple of 8
//	header   hlen bytes of JSON (sparseHeader: the dense form's and "nnz"),
//	         padded with spaces
//	Ptr      rows+1 int64, the CSR row pointers
//	Ind      nnz int32, the column of each entry
//	pad      4 zero bytes when nnz is odd, so that Val is aligned
//	Val      nnz float64, the value of each entry
//	Y        rows×labels float64, row-major, or held sparse in the same
//	         layout as X (Ptr, Ind, pad, Val) when the header has
//	         "label_nnz" (binary.go)
//	crc      uint32   CRC-32C of everything before it
//
// All numbers are little-endian; every array starts at a multiple of 8
// bytes, so that a file can be used in place (ViewBinary). Version 1
// ("MLDRSP\x00\x01", written before) has no padding of either kind; it is
// still read. WriteBinary writes version 2 for a data set whose Sparse is
// set; ReadBinary tells the forms apart by the magic.
var (
	sparseMagic   = []byte("MLDRSP\x00\x02")
	sparseMagicV1 = []byte("MLDRSP\x00\x01")
)

// sparseHeader is the sparse form's header: the dense form's fields and
// the number of stored entries.
type sparseHeader struct {
	binaryHeader
	NNZ int64 `json:"nnz"`
}

// isSparseBinary reports whether br starts with the magic of a version of
// the sparse form, without consuming it.
func isSparseBinary(br *bufio.Reader) bool {
	m, _ := br.Peek(len(sparseMagic))
	return string(m) == string(sparseMagic) || string(m) == string(sparseMagicV1)
}

// sparsePad is the number of zero bytes version 2 of the sparse form puts
// after nnz int32 column indices.
func sparsePad(nnz int64) int64 { return 4 * (nnz % 2) }

// writeBinarySparse writes d, already validated, in the sparse form.
func writeBinarySparse(w io.Writer, d *Dataset) error {
	m := d.Sparse
	crc := crc32.New(crc32.MakeTable(crc32.Castagnoli))
	bw := bufio.NewWriterSize(io.MultiWriter(w, crc), 1<<16)
	h, err := json.Marshal(sparseHeader{binaryHeader: headerOf(d), NNZ: int64(m.NNZ())})
	if err != nil {
		return fmt.Errorf("encoding the data set header: %w", err)
	}
	h = padHeader(h)
	bw.Write(sparseMagic)
	bw.Write(binary.LittleEndian.AppendUint64(nil, uint64(len(h))))
	bw.Write(h)
	writeCSR(bw, m)
	writeLabels(bw, d)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing the data set: %w", err)
	}
	if _, err := w.Write(binary.LittleEndian.AppendUint32(nil, crc.Sum32())); err != nil {
		return fmt.Errorf("writing the data set: %w", err)
	}
	return nil
}

// writeCSR writes m's arrays in version 2's layout: Ptr, Ind, the
// padding, Val.
func writeCSR(bw *bufio.Writer, m *sparse.CSR) {
	buf := make([]byte, 0, 1<<16)
	buf = putWords(bw, buf, m.Ptr, 8, func(b []byte, v int64) []byte { return binary.LittleEndian.AppendUint64(b, uint64(v)) })
	buf = putWords(bw, buf, m.Ind, 4, func(b []byte, v int32) []byte { return binary.LittleEndian.AppendUint32(b, uint32(v)) })
	bw.Write(make([]byte, sparsePad(int64(len(m.Ind)))))
	putWords(bw, buf, m.Val, 8, appendFloat)
}

// readCSR reads a rows×cols CSR matrix of nnz entries written by
// writeCSR (padded: version 2's layout) from r.
func readCSR(r io.Reader, rows, cols int, nnz int64, padded bool) (*sparse.CSR, error) {
	m := &sparse.CSR{R: rows, C: cols}
	var err error
	if m.Ptr, err = readWords(r, rows+1, 8, func(b []byte) int64 { return int64(binary.LittleEndian.Uint64(b)) }); err != nil {
		return nil, err
	}
	if m.Ind, err = readWords(r, int(nnz), 4, func(b []byte) int32 { return int32(binary.LittleEndian.Uint32(b)) }); err != nil {
		return nil, err
	}
	var pad int64
	if padded {
		pad = sparsePad(nnz)
	}
	var zeros [4]byte
	if _, err := io.ReadFull(r, zeros[:pad]); err != nil {
		return nil, corrupt("reading values: %v", err)
	}
	if zeros != [4]byte{} {
		return nil, corrupt("the padding after the column indices is not zero")
	}
	if m.Val, err = readWords(r, int(nnz), 8, readFloat); err != nil {
		return nil, err
	}
	return m, nil
}

func appendFloat(b []byte, v float64) []byte {
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
}

// putWords writes s to w, size bytes a value encoded by put, through buf
// (returned for reuse). Errors stay in w until its Flush.
func putWords[T any](w *bufio.Writer, buf []byte, s []T, size int, put func([]byte, T) []byte) []byte {
	for len(s) > 0 {
		n := min(len(s), cap(buf)/size)
		buf = buf[:0]
		for _, v := range s[:n] {
			buf = put(buf, v)
		}
		w.Write(buf)
		s = s[n:]
	}
	return buf
}

// readBinarySparse reads the sparse form from br, whose magic isSparseBinary
// saw; size is the number of bytes it holds.
func readBinarySparse(br *bufio.Reader, size int64) (*Dataset, error) {
	crc := crc32.New(castagnoli)
	tr := io.TeeReader(br, crc)
	magic, hb, err := readHead(tr, size, "a stored data set", sparseMagic, sparseMagicV1)
	if err != nil {
		return nil, err
	}
	v2 := string(magic) == string(sparseMagic)
	hlen := len(hb)
	var h sparseHeader
	if err := json.Unmarshal(hb, &h); err != nil {
		return nil, corrupt("decoding the header: %v", err)
	}
	nf, nl := h.Features.Len(), h.Labels.Len()
	// Bound the counts by the size before multiplying them.
	yb, ok := h.labelBytes(size)
	if h.Rows < 0 || h.NNZ < 0 || int64(h.Rows) > size/8 || h.NNZ > size/12 || !ok {
		return nil, corrupt("the header describes %d rows, %d entries and %d labels, which do not fit the file size %d", h.Rows, h.NNZ, nl, size)
	}
	rows, nnz := int64(h.Rows), h.NNZ
	var pad int64
	if v2 {
		pad = sparsePad(nnz)
	}
	want := int64(16+hlen) + 8*(rows+1) + 12*nnz + pad + yb + 4
	if want != size {
		return nil, corrupt("the header describes %d rows, %d entries and %d labels, which does not match the file size %d", h.Rows, h.NNZ, nl, size)
	}
	m, err := readCSR(tr, h.Rows, nf, nnz, v2)
	if err != nil {
		return nil, err
	}
	d := h.binaryHeader.dataset()
	d.Sparse = m
	if err := readLabels(tr, nil, &h.binaryHeader, d); err != nil {
		return nil, err
	}
	if err := readTail(br, crc); err != nil {
		return nil, err
	}
	if err := d.Validate(); err != nil {
		return nil, corrupt("%v", err)
	}
	return d, nil
}

func readFloat(b []byte) float64 { return math.Float64frombits(binary.LittleEndian.Uint64(b)) }

// readWords reads n values of size bytes each, decoded by get, in blocks
// of 64 KiB.
func readWords[T any](r io.Reader, n, size int, get func([]byte) T) ([]T, error) {
	out := make([]T, n)
	buf := make([]byte, 1<<16)
	for i := 0; i < n; {
		k := min(len(buf)/size, n-i)
		if _, err := io.ReadFull(r, buf[:size*k]); err != nil {
			return nil, corrupt("reading values: %v", err)
		}
		for j := range k {
			out[i+j] = get(buf[size*j:])
		}
		i += k
	}
	return out, nil
}
