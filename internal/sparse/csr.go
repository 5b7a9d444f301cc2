// Package sparse holds the compressed-sparse-row matrix that sparse
// feature data are stored and fitted in (text and bag-of-words data sets
// have thousands of features, most of them zero in any row), and the
// products the methods form from it without ever densifying it.
//
// It is written here rather than taken from a library: the one sparse
// package for gonum (github.com/james-bowman/sparse) is no longer
// maintained and forms XᵀX through its generic product, several times
// slower than the row-blocked Gram a method needs; what the product needs
// is one type and a handful of kernels.
package sparse

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// CSR is an N×D matrix in compressed sparse row form: row i holds the
// entries Val[Ptr[i]:Ptr[i+1]] in the columns Ind[Ptr[i]:Ptr[i+1]],
// strictly ascending. It is a mat.Matrix (At is a binary search in the
// row; kernels read the rows directly). Explicit zeros are allowed but never produced by
// this package's constructors. A CSR is read-only once built: kernels and
// views share its slices.
type CSR struct {
	// R and C are the numbers of rows and columns.
	R, C int
	// Ptr has R+1 entries, Ptr[0] = 0 and Ptr[R] = len(Ind) = len(Val).
	Ptr []int64
	// Ind holds the column of each stored entry.
	Ind []int32
	// Val holds the value of each stored entry.
	Val []float64
}

var _ mat.Matrix = (*CSR)(nil)

// ErrMalformed is wrapped by Check's errors.
var ErrMalformed = errors.New("malformed sparse matrix")

// Dims returns the numbers of rows and columns.
func (m *CSR) Dims() (r, c int) { return m.R, m.C }

// NNZ returns the number of stored entries.
func (m *CSR) NNZ() int { return len(m.Val) }

// Density returns NNZ / (R·C), 0 for an empty matrix.
func (m *CSR) Density() float64 {
	if m.R == 0 || m.C == 0 {
		return 0
	}
	return float64(m.NNZ()) / (float64(m.R) * float64(m.C))
}

// Row returns the columns and values stored in row i; the slices alias m.
func (m *CSR) Row(i int) ([]int32, []float64) {
	a, b := m.Ptr[i], m.Ptr[i+1]
	return m.Ind[a:b], m.Val[a:b]
}

// At returns entry (i, j), by binary search in row i.
func (m *CSR) At(i, j int) float64 {
	ind, val := m.Row(i)
	lo, hi := 0, len(ind)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if int(ind[mid]) < j {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(ind) && int(ind[lo]) == j {
		return val[lo]
	}
	return 0
}

// T returns the transpose of m, as a view (mat.Matrix).
func (m *CSR) T() mat.Matrix { return mat.Transpose{Matrix: m} }

// Bytes is the memory the stored entries and row pointers take.
func (m *CSR) Bytes() int64 {
	return int64(len(m.Ptr))*8 + int64(len(m.Ind))*4 + int64(len(m.Val))*8
}

// SparseBytes is the memory a CSR of r rows and nnz entries takes.
func SparseBytes(r int, nnz int64) int64 { return int64(r+1)*8 + nnz*12 }

// Dense returns m as a dense matrix.
func (m *CSR) Dense() *mat.Dense {
	out := mat.NewDense(max(m.R, 1), max(m.C, 1), nil)
	if m.R == 0 || m.C == 0 {
		return &mat.Dense{}
	}
	raw := out.RawMatrix()
	for i := range m.R {
		ind, val := m.Row(i)
		row := raw.Data[i*raw.Stride:]
		for k, j := range ind {
			row[j] = val[k]
		}
	}
	return out
}

// FromDense returns the non-zero entries of x in CSR form.
func FromDense(x *mat.Dense) *CSR {
	r, c := x.Dims()
	raw := x.RawMatrix()
	nnz := 0
	for i := range r {
		for _, v := range raw.Data[i*raw.Stride : i*raw.Stride+c] {
			if v != 0 {
				nnz++
			}
		}
	}
	m := &CSR{R: r, C: c, Ptr: make([]int64, r+1), Ind: make([]int32, 0, nnz), Val: make([]float64, 0, nnz)}
	for i := range r {
		for j, v := range raw.Data[i*raw.Stride : i*raw.Stride+c] {
			if v != 0 {
				m.Ind = append(m.Ind, int32(j))
				m.Val = append(m.Val, v)
			}
		}
		m.Ptr[i+1] = int64(len(m.Ind))
	}
	return m
}

// Builder appends rows to a CSR one entry at a time.
type Builder struct {
	m CSR
}

// NewBuilder starts a CSR with c columns; hint is the expected number of
// entries (0 if unknown).
func NewBuilder(c int, hint int) *Builder {
	b := &Builder{m: CSR{C: c, Ptr: []int64{0}}}
	if hint > 0 {
		b.m.Ind = make([]int32, 0, hint)
		b.m.Val = make([]float64, 0, hint)
	}
	return b
}

// Add appends entry (current row, j) = v; zeros are skipped. Columns must
// be added in strictly ascending order within a row (Check reports it).
func (b *Builder) Add(j int, v float64) {
	if v == 0 {
		return
	}
	b.m.Ind = append(b.m.Ind, int32(j))
	b.m.Val = append(b.m.Val, v)
}

// EndRow closes the current row.
func (b *Builder) EndRow() {
	b.m.Ptr = append(b.m.Ptr, int64(len(b.m.Ind)))
	b.m.R++
}

// Rows returns the number of rows ended so far.
func (b *Builder) Rows() int { return b.m.R }

// Build returns the matrix built so far; the builder must not be used
// after it.
func (b *Builder) Build() *CSR { m := b.m; return &m }

// Check verifies m's invariants: the lengths, Ptr non-decreasing from 0
// to NNZ, columns within [0, C) and strictly ascending in each row, and
// every value finite. Its errors wrap ErrMalformed and name the row.
func (m *CSR) Check() error {
	if m.R < 0 || m.C < 0 || len(m.Ptr) != m.R+1 || len(m.Ind) != len(m.Val) {
		return fmt.Errorf("%w: %d×%d with %d row pointers, %d columns and %d values", ErrMalformed, m.R, m.C, len(m.Ptr), len(m.Ind), len(m.Val))
	}
	if m.Ptr[0] != 0 || m.Ptr[m.R] != int64(len(m.Val)) {
		return fmt.Errorf("%w: row pointers run from %d to %d, not 0 to %d", ErrMalformed, m.Ptr[0], m.Ptr[m.R], len(m.Val))
	}
	for i := range m.R {
		if m.Ptr[i+1] < m.Ptr[i] {
			return fmt.Errorf("%w: row %d ends before it starts", ErrMalformed, i+1)
		}
		ind, val := m.Row(i)
		for k, j := range ind {
			if j < 0 || int(j) >= m.C {
				return fmt.Errorf("%w: row %d has column %d outside 1…%d", ErrMalformed, i+1, int(j)+1, m.C)
			}
			if k > 0 && j <= ind[k-1] {
				return fmt.Errorf("%w: row %d lists column %d after column %d", ErrMalformed, i+1, int(j)+1, int(ind[k-1])+1)
			}
			if math.IsNaN(val[k]) || math.IsInf(val[k], 0) {
				return fmt.Errorf("%w: row %d, column %d holds %v", ErrMalformed, i+1, int(j)+1, val[k])
			}
		}
	}
	return nil
}
