package dataset

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"runtime"
	"sync"
	"unsafe"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/sparse"
)

// Check says which checks ViewBinary makes of a stored data set beyond its
// layout (magic, header, sizes), which it always checks.
type Check int

const (
	// CheckAll verifies the CRC-32C and the values (what Validate checks
	// of a dense data set: finite features, label codes), in one pass over
	// the file, a chunk at a time.
	CheckAll Check = iota
	// CheckValues checks the values but not the checksum, for a file whose
	// checksum was verified before (ReadBinaryVerified's case).
	CheckValues
	// CheckTrusted checks neither: the file, exactly as it is (store.Files
	// knows it by path, size, times, device and inode), was verified and
	// its values checked before.
	CheckTrusted
)

// viewChunk is how many bytes the one pass of CheckAll sums and then
// checks at a time: small enough that the check reads them from the cache.
const viewChunk = 1 << 16

// ViewBinary returns the data set stored in b, the whole of a file
// WriteBinary wrote. When b starts at a multiple of 8 bytes and so do the
// arrays in it (every file written since WriteBinary pads its header; a
// sparse file of version 2), on a little-endian machine, the matrices are
// b's memory itself, without a copy, and inPlace is true: they are valid
// as long as b is, and whoever owns b must keep it while any of them is
// in use. Otherwise the data set is read from b as ReadBinary reads it,
// into memory of its own, and inPlace is false.
//
// check says what is verified beyond the layout; a damaged file gives an
// error wrapping ErrCorrupt, as ReadBinary's. In place, the values of a
// sparse file are checked by Validate after the checksum, in a second
// pass.
func ViewBinary(b []byte, check Check) (ds *Dataset, inPlace bool, err error) {
	size := int64(len(b))
	aligned := len(b) > 0 && uintptr(unsafe.Pointer(&b[0]))%8 == 0 && littleEndian
	if aligned && bytes.HasPrefix(b, sparseMagic) {
		if ds, ok, err := viewSparse(b, check); ok || err != nil {
			return ds, ok, err
		}
	} else if aligned && bytes.HasPrefix(b, binaryMagic) {
		if ds, ok, err := viewDense(b, check); ok || err != nil {
			return ds, ok, err
		}
	}
	if check == CheckAll {
		ds, err = ReadBinary(bytes.NewReader(b), size)
	} else {
		ds, err = ReadBinaryVerified(bytes.NewReader(b), size)
	}
	return ds, false, err
}

// viewHeader reads the 16 bytes of magic and length at the start of b and
// returns the header's bytes and where the arrays start; ok is false when
// they do not start at a multiple of 8 bytes.
func viewHeader(b []byte) (hb []byte, off int, ok bool, err error) {
	if len(b) < 16 {
		return nil, 0, false, corrupt("reading the header: the file has %d bytes", len(b))
	}
	hlen := binary.LittleEndian.Uint64(b[8:16])
	if hlen > uint64(len(b)-16) {
		return nil, 0, false, corrupt("header length %d exceeds the file size %d", hlen, len(b))
	}
	off = 16 + int(hlen)
	return b[16:off], off, off%8 == 0, nil
}

// viewDense is ViewBinary for the dense form; ok is false when its arrays
// are not aligned (a file written before the header was padded).
func viewDense(b []byte, check Check) (*Dataset, bool, error) {
	hb, off, ok, err := viewHeader(b)
	if err != nil || !ok {
		return nil, false, err
	}
	h, err := decodeDenseHeader(hb, int64(len(b)))
	if err != nil {
		return nil, false, err
	}
	d := h.dataset()
	if err := d.checkKind(); err != nil {
		return nil, false, corrupt("%v", err)
	}
	nf, nl := h.Features.Len(), h.Labels.Len()
	xs := floatsAt(b, off, h.Rows*nf)
	yAt := off + 8*h.Rows*nf
	var ys []float64
	if h.LabelNNZ == nil {
		ys = floatsAt(b, yAt, h.Rows*nl)
	}
	if check != CheckTrusted {
		if err := d.checkDense(b, off, xs, ys, check == CheckAll); err != nil {
			return nil, false, err
		}
	}
	d.X = denseOf(h.Rows, nf, xs)
	if err := viewLabels(b, yAt, &h, d, check); err != nil {
		return nil, false, err
	}
	return d, true, nil
}

// viewLabels sets d's labels to the Y section at byte at of b, which h
// describes: Y over b's memory, or YSparse's arrays in it, checked (but
// for the checksum, which covers the whole file) unless check is
// CheckTrusted.
func viewLabels(b []byte, at int, h *binaryHeader, d *Dataset, check Check) error {
	nl := h.Labels.Len()
	if h.LabelNNZ == nil {
		d.Y = denseOf(h.Rows, nl, floatsAt(b, at, h.Rows*nl))
		return nil
	}
	rows, nnz := h.Rows, int(*h.LabelNNZ)
	pad := int(sparsePad(*h.LabelNNZ))
	indAt := at + 8*(rows+1)
	valAt := indAt + 4*nnz + pad
	if pad > 0 && binary.LittleEndian.Uint32(b[valAt-4:valAt]) != 0 {
		return corrupt("the padding after the label indices is not zero")
	}
	d.YSparse = &sparse.CSR{R: rows, C: nl, Ptr: sliceAt[int64](b, at, rows+1), Ind: sliceAt[int32](b, indAt, nnz), Val: floatsAt(b, valAt, nnz)}
	if check == CheckTrusted {
		return nil
	}
	if err := d.YSparse.Check(); err != nil {
		return corrupt("the sparse labels: %v", err)
	}
	for _, v := range d.YSparse.Val {
		if v != 1 {
			return corrupt("a sparse label entry is %v, not 1", v)
		}
	}
	return nil
}

// checkDense makes the checks of CheckAll (sum set) or CheckValues on the
// dense file b, whose X and Y are xs and ys after off bytes of magic and
// header: one pass (onePass), each chunk summed and then checked.
func (d *Dataset) checkDense(b []byte, off int, xs, ys []float64, sum bool) error {
	nl := d.Labels.Len()
	nx := len(xs)
	all := floatsAt(b, off, len(xs)+len(ys)) // X then Y, as in the file
	check := func(lo, hi int) error {
		lo, hi = lo/8, hi/8 // values, not bytes
		if lo < nx {
			if err := checkFinite(all[lo:min(hi, nx)]); err != nil {
				return err
			}
		}
		if hi > nx {
			from := max(lo, nx)
			return d.checkLabels(all[from:hi], from-nx, nl)
		}
		return nil
	}
	if ys == nil { // sparse labels: their bytes are summed, and checked by viewLabels
		check = func(lo, hi int) error {
			lo, hi = lo/8, min(hi/8, nx)
			if lo < hi {
				return checkFinite(all[lo:hi])
			}
			return nil
		}
	}
	crc, err := onePass(b[off:len(b)-4], sum, check)
	if err != nil {
		return corrupt("%v", err)
	}
	if sum && binary.LittleEndian.Uint32(b[len(b)-4:]) != crc32Combine(crc32.Checksum(b[:off], castagnoli), crc, int64(len(b)-4-off)) {
		return corrupt("checksum mismatch")
	}
	return nil
}

// onePassPart is the fewest bytes onePass gives a goroutine.
const onePassPart = 4 << 20

// onePass goes once over b, a chunk of viewChunk bytes at a time, adding
// each to the CRC-32C (sum set) and then, while it is in the cache,
// calling check (nil: none) with its start and end in b. Parts of at
// least onePassPart bytes go to GOMAXPROCS goroutines, whose checksums are
// combined. It returns the checksum of b (0 without sum) or the first
// part's error.
func onePass(b []byte, sum bool, check func(lo, hi int) error) (uint32, error) {
	parts := max(1, min(runtime.GOMAXPROCS(0), len(b)/onePassPart))
	per := (len(b)/parts + viewChunk - 1) / viewChunk * viewChunk
	crcs := make([]uint32, parts)
	errs := make([]error, parts)
	panics := make([]any, parts)
	var wg sync.WaitGroup
	for i := range parts {
		lo, hi := min(i*per, len(b)), min((i+1)*per, len(b))
		if i == parts-1 {
			hi = len(b)
		}
		wg.Go(func() {
			defer func() { panics[i] = recover() }()
			crc := uint32(0)
			for c := lo; c < hi; c += viewChunk {
				e := min(c+viewChunk, hi)
				if sum {
					crc = crc32.Update(crc, castagnoli, b[c:e])
				}
				if check != nil {
					if err := check(c, e); err != nil {
						errs[i] = err
						return
					}
				}
			}
			crcs[i] = crc
		})
	}
	wg.Wait()
	repanic(panics)
	crc := uint32(0)
	for i := range parts {
		if errs[i] != nil {
			return 0, errs[i]
		}
		lo, hi := min(i*per, len(b)), min((i+1)*per, len(b))
		if i == parts-1 {
			hi = len(b)
		}
		crc = crc32Combine(crc, crcs[i], int64(hi-lo))
	}
	return crc, nil
}

// checkKind makes the checks of Validate that do not read the values: a
// known kind, and a category list for each class variable.
func (d *Dataset) checkKind() error {
	switch d.Kind {
	case MultiLabel:
	case MultiDim:
		if len(d.Categories) != d.Labels.Len() {
			return fmt.Errorf("dataset: %d class variables but %d category lists", d.Labels.Len(), len(d.Categories))
		}
	default:
		return fmt.Errorf("dataset: unknown kind %q", d.Kind)
	}
	return nil
}

// checkFinite is Validate's check of X on the values v.
func checkFinite(v []float64) error {
	for _, x := range v {
		if x-x != 0 { // NaN or ±Inf
			return fmt.Errorf("dataset: X holds %v", x)
		}
	}
	return nil
}

// checkLabels is Validate's check of Y on the values v, which start at
// value from of Y (row-major, nl columns).
func (d *Dataset) checkLabels(v []float64, from, nl int) error {
	if d.Kind == MultiLabel {
		for k, x := range v {
			if x != 0 && x != 1 {
				return fmt.Errorf("dataset: Y[%d][%d] = %v is not 0 or 1", (from+k)/nl, (from+k)%nl, x)
			}
		}
		return nil
	}
	j := from % nl
	for k, x := range v {
		if x != float64(int(x)) || x < 0 || int(x) >= len(d.Categories[j]) {
			return fmt.Errorf("dataset: Y[%d][%d] = %v is not a category of %q", (from+k)/nl, j, x, d.Labels.At(j))
		}
		if j++; j == nl {
			j = 0
		}
	}
	return nil
}

// viewSparse is ViewBinary for version 2 of the sparse form; ok is false
// when its arrays are not aligned (a header not padded: not written by
// WriteBinary).
func viewSparse(b []byte, check Check) (*Dataset, bool, error) {
	hb, off, ok, err := viewHeader(b)
	if err != nil || !ok {
		return nil, false, err
	}
	var h sparseHeader
	if err := json.Unmarshal(hb, &h); err != nil {
		return nil, false, corrupt("decoding the header: %v", err)
	}
	size := int64(len(b))
	nf, nl := h.Features.Len(), h.Labels.Len()
	yb, fits := h.labelBytes(size)
	if h.Rows < 0 || h.NNZ < 0 || int64(h.Rows) > size/8 || h.NNZ > size/12 || !fits {
		return nil, false, corrupt("the header describes %d rows, %d entries and %d labels, which do not fit the file size %d", h.Rows, h.NNZ, nl, size)
	}
	rows, nnz := h.Rows, int(h.NNZ)
	pad := int(sparsePad(h.NNZ))
	if int64(off)+8*int64(rows+1)+12*h.NNZ+int64(pad)+yb+4 != size {
		return nil, false, corrupt("the header describes %d rows, %d entries and %d labels, which does not match the file size %d", h.Rows, h.NNZ, nl, size)
	}
	ptrAt := off
	indAt := ptrAt + 8*(rows+1)
	valAt := indAt + 4*nnz + pad
	yAt := valAt + 8*nnz
	if pad > 0 && binary.LittleEndian.Uint32(b[valAt-4:valAt]) != 0 {
		return nil, false, corrupt("the padding after the column indices is not zero")
	}
	if check == CheckAll {
		crc, _ := onePass(b[:len(b)-4], true, nil)
		if binary.LittleEndian.Uint32(b[len(b)-4:]) != crc {
			return nil, false, corrupt("checksum mismatch")
		}
	}
	d := h.binaryHeader.dataset()
	d.Sparse = &sparse.CSR{R: rows, C: nf, Ptr: sliceAt[int64](b, ptrAt, rows+1), Ind: sliceAt[int32](b, indAt, nnz), Val: floatsAt(b, valAt, nnz)}
	if err := viewLabels(b, yAt, &h.binaryHeader, d, CheckTrusted); err != nil {
		return nil, false, err
	}
	if check == CheckTrusted {
		err = d.checkKind()
	} else {
		err = d.Validate()
	}
	if err != nil {
		return nil, false, corrupt("%v", err)
	}
	return d, true, nil
}

// sliceAt is the n values of type T at byte off of b, in b's memory; off
// is a multiple of T's size, and b's start too.
func sliceAt[T int64 | int32 | float64](b []byte, off, n int) []T {
	if n == 0 {
		return []T{}
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[off])), n)
}

// floatsAt is sliceAt for float64.
func floatsAt(b []byte, off, n int) []float64 { return sliceAt[float64](b, off, n) }

// denseOf is the rows×cols matrix over v, empty when it has no values
// (mat.NewDense refuses a zero dimension).
func denseOf(rows, cols int, v []float64) *mat.Dense {
	if rows == 0 || cols == 0 {
		return &mat.Dense{}
	}
	return mat.NewDense(rows, cols, v)
}
