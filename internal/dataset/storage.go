package dataset

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/sparse"
)

// Storage is the form a data set's features are held and stored in.
type Storage string

const (
	// StorageDense holds the features in X, N·D float64s.
	StorageDense Storage = "dense"
	// StorageSparse holds the features in Sparse, in CSR form: 12 bytes a
	// cell that is not zero and 8 a row.
	StorageSparse Storage = "sparse"
)

// MinSparseCells is the fewest feature cells (N·D) a data set must have
// to be held sparse: below, the dense form is at most 512 KiB and its
// kernels are the faster.
const MinSparseCells = 1 << 16

// chooseSparse reports whether an N×D feature matrix with nnz cells that
// are not zero is held sparse: when it has at least MinSparseCells cells
// and its CSR form takes at most half the bytes of the dense form, which
// is a density of about one third (the sparse kernels do more work a
// stored entry than the dense ones a cell; at a third they still do less
// in all).
func chooseSparse(rows, cols int, nnz int64) bool {
	cells := int64(rows) * int64(cols)
	return cells >= MinSparseCells && 2*sparse.SparseBytes(rows, nnz) <= 8*cells
}

// MinSparseLabelBytes is the least a dense label matrix (8·N·q bytes)
// must take for the labels to be held sparse: below, Y is small whatever
// its form, and the dense form is what the methods read.
const MinSparseLabelBytes = 1 << 20

// chooseSparseLabels reports whether a multi-label N×q label matrix with
// ones entries is held sparse (Dataset.YSparse): when its dense form
// takes at least MinSparseLabelBytes and its CSR form at most half of
// that, as for the features. A label space of thousands of labels, a
// few a row, is then held in 8 bytes a row and 12 a label a row has,
// whatever q.
func chooseSparseLabels(rows, q int, ones int64) bool {
	dense := 8 * int64(rows) * int64(q)
	return dense >= MinSparseLabelBytes && 2*sparse.SparseBytes(rows, ones) <= dense
}

// settleLabels holds the labels of a multi-label ds sparse (YSparse) when
// chooseSparseLabels says so, or as forced ("" chooses).
func settleLabels(ds *Dataset, forced Storage) {
	if ds.Kind != MultiLabel {
		return
	}
	n, q := ds.LabelDims()
	switch {
	case ds.Y != nil && (forced == StorageSparse || forced == "" && chooseSparseLabels(n, q, ds.LabelOnes())):
		ds.YSparse, ds.Y = labelsSparse(ds.Y), nil
	case ds.YSparse != nil && (forced == StorageDense || forced == "" && !chooseSparseLabels(n, q, ds.LabelOnes())):
		ds.Y, ds.YSparse = ds.DenseY(), nil
	}
}

// labelsSparse is the 0/1 label matrix y in CSR form, its ones as entries.
func labelsSparse(y *mat.Dense) *sparse.CSR {
	n, q := y.Dims()
	m := &sparse.CSR{R: n, C: q, Ptr: make([]int64, 1, n+1)}
	for i := range n {
		for j, v := range y.RawRowView(i) {
			if v != 0 {
				m.Ind = append(m.Ind, int32(j))
				m.Val = append(m.Val, 1)
			}
		}
		m.Ptr = append(m.Ptr, int64(len(m.Ind)))
	}
	return m
}

// storedZero reports whether v is left out of a sparse row: +0 only, so
// that -0 survives the round trip through the sparse form bit for bit.
func storedZero(v float64) bool { return math.Float64bits(v) == 0 }

// sparseRows is the builder's feature rows in sparse mode: CSR arrays
// being appended to.
type sparseRows struct {
	ptr []int64
	ind []int32
	val []float64
}

func newSparseRows() *sparseRows { return &sparseRows{ptr: []int64{0}} }

// add appends one row given densely (NaN, a missing value to impute, is
// kept as an entry).
func (s *sparseRows) add(row []float64) {
	for j, v := range row {
		if !storedZero(v) {
			s.ind = append(s.ind, int32(j))
			s.val = append(s.val, v)
		}
	}
	s.ptr = append(s.ptr, int64(len(s.val)))
}

// nnzOf counts the cells of dense rows that a sparse row would store
// (those that are not storedZero), without a branch: for bits b, (b | -b)
// has its top bit set unless b is 0.
func nnzOf(raw []float64) int64 {
	var nz uint64
	for _, v := range raw {
		b := math.Float64bits(v)
		nz += (b | -b) >> 63
	}
	return int64(nz)
}

// sparseEligible reports whether the builder may hold the features sparse:
// every feature column is numeric (text columns are encoded or dropped
// from the dense rows) and the load is not LoadFeatures'.
func (b *builder) sparseEligible() bool {
	if b.opts.only != nil || b.opts.storage == StorageDense {
		return false
	}
	for i := range b.cols {
		if c := &b.cols[i]; c.role == roleFeature && c.text != nil {
			return false
		}
	}
	return true
}

// decideStorage, called once sizeRows rows are in (or at the first row
// when the storage is forced), turns the builder to sparse mode when the
// rows so far are sparse enough that the whole matrix would be held
// sparse, so that the dense matrix is never built. rowsHint estimates the
// rows of the whole input (0: unknown).
func (b *builder) decideStorage(rowsHint int) {
	if b.decided {
		return
	}
	b.decided = true
	if b.sp != nil {
		// Sparse rows held sparse from the first (sparserows.go): kept
		// so if the whole matrix would be held sparse.
		rows := max(rowsHint, b.rows)
		nnz := int64(len(b.sp.val))
		if b.rows > 0 {
			nnz = int64(float64(nnz) / float64(b.rows) * float64(rows))
		}
		if !b.sparseEligible() || (b.opts.storage != StorageSparse && !chooseSparse(max(rows, 1), b.width, nnz)) {
			b.densify()
		}
		return
	}
	if !b.sparseEligible() {
		return
	}
	if b.opts.storage != StorageSparse {
		nnz := b.nnz
		rows := max(rowsHint, b.rows)
		if b.rows > 0 {
			nnz = int64(float64(nnz) / float64(b.rows) * float64(rows))
		}
		if !chooseSparse(max(rows, 1), b.width, nnz) {
			return
		}
	}
	sp := newSparseRows()
	for r := range b.rows {
		sp.add(b.raw[r*b.width : (r+1)*b.width])
	}
	b.sp, b.raw = sp, nil
}

// densify leaves sparse mode: the rows so far become dense rows again (for
// toText, which reads a column of them, and for finish when the whole
// matrix turned out not sparse enough).
func (b *builder) densify() {
	if b.sp == nil {
		return
	}
	raw := make([]float64, b.rows*b.width)
	for r := range b.rows {
		row := raw[r*b.width : (r+1)*b.width]
		for k := b.sp.ptr[r]; k < b.sp.ptr[r+1]; k++ {
			row[b.sp.ind[k]] = b.sp.val[k]
		}
	}
	b.sp, b.raw, b.nnz = nil, raw, int64(len(b.sp.val))
}

// reserveSparse reserves room for rows rows in all, at the mean entries a
// row of those so far.
func (b *builder) reserveSparse(rows int) {
	sp := b.sp
	if b.rows == 0 || rows <= b.rows {
		return
	}
	perRow := float64(len(sp.val)) / float64(b.rows)
	more := int(perRow*float64(rows-b.rows)*1.02) + 16
	sp.ind = slices.Grow(sp.ind, more)
	sp.val = reserve(sp.val, more)
	sp.ptr = slices.Grow(sp.ptr, rows-b.rows+1)
}

// finishStorage settles the form of the features before they are built:
// in auto mode, a sparse builder whose matrix turned out dense enough is
// made dense, and a dense one sparse enough made sparse (eligible data
// only); with the storage forced, the forced form.
func (b *builder) finishStorage() {
	switch {
	case b.opts.storage == StorageDense:
		b.densify()
	case b.sp != nil && b.opts.storage != StorageSparse && !chooseSparse(b.rows, b.width, int64(len(b.sp.val))):
		b.densify()
	case b.sp == nil && b.sparseEligible() && (b.opts.storage == StorageSparse || chooseSparse(b.rows, b.width, b.nnz)):
		b.decided = false
		b.opts.storage = StorageSparse
		b.decideStorage(b.rows)
	}
}

// sparseImpute replaces the missing values (NaN entries) of sparse rows by
// their column's mean, summed as addRow sums it.
func (b *builder) sparseImpute() {
	sp := b.sp
	for k, v := range sp.val {
		if v != v {
			c := b.featureBySlot(int(sp.ind[k]))
			sp.val[k] = b.meanOf(c)
		}
	}
}

// featureBySlot returns the feature column whose raw slot is slot.
func (b *builder) featureBySlot(slot int) *column {
	if b.bySlot == nil {
		b.bySlot = make([]*column, b.width)
		for i := range b.cols {
			if c := &b.cols[i]; c.role == roleFeature {
				b.bySlot[c.slot] = c
			}
		}
	}
	return b.bySlot[slot]
}

// sparseMatrix returns the sparse rows as the N×width CSR matrix; the
// builder's copy is dropped.
func (b *builder) sparseMatrix() *sparse.CSR {
	sp := b.sp
	b.sp = nil
	return &sparse.CSR{R: b.rows, C: b.width, Ptr: slices.Clip(sp.ptr), Ind: slices.Clip(sp.ind), Val: slices.Clip(sp.val)}
}

// sparseConstant counts the columns of a sparse matrix that hold one
// value in every row, as zeroVariance finds them in dense ones (a column
// with no entry, or with an entry in every row, all equal), and returns
// the first few of them (at most firstConstant, ascending). It holds
// something for the columns that have entries only, so that a matrix of
// a few entries in millions of columns costs nothing per column.
func sparseConstant(m *sparse.CSR) (count int, first []int) {
	type state struct {
		count  int
		first  float64
		differ bool
	}
	seen := make(map[int32]*state, min(len(m.Ind), m.C))
	for k, j := range m.Ind {
		v := m.Val[k]
		st := seen[j]
		if st == nil {
			st = &state{first: v}
			seen[j] = st
		} else if v != st.first {
			st.differ = true
		}
		st.count++
	}
	varies := func(j int) bool {
		st := seen[int32(j)]
		// An entry may be -0, equal to the zeros left out.
		allZero := st == nil || (!st.differ && st.first == 0)
		return !allZero && !(st.count == m.R && !st.differ)
	}
	count = m.C
	for j := range seen {
		if varies(int(j)) {
			count--
		}
	}
	for j := 0; j < m.C && len(first) < firstConstant; j++ {
		if !varies(j) {
			first = append(first, j)
		}
	}
	return count, first
}

// firstConstant is how many constant features the warning names.
const firstConstant = 10

// denseIsSparse reports whether chooseSparse would hold x sparse.
func denseIsSparse(x *mat.Dense) bool {
	r, c := x.Dims()
	raw := x.RawMatrix()
	var nnz int64
	for i := range r {
		nnz += nnzOf(raw.Data[i*raw.Stride : i*raw.Stride+c])
	}
	return chooseSparse(r, c, nnz)
}

// sparseFrom returns x in CSR form, keeping -0 (sparse.FromDense drops
// it).
func sparseFrom(x *mat.Dense) *sparse.CSR {
	r, c := x.Dims()
	raw := x.RawMatrix()
	sp := newSparseRows()
	nnz := 0
	for i := range r {
		nnz += int(nnzOf(raw.Data[i*raw.Stride : i*raw.Stride+c]))
	}
	sp.ind, sp.val = make([]int32, 0, nnz), make([]float64, 0, nnz)
	sp.ptr = make([]int64, 1, r+1)
	for i := range r {
		sp.add(raw.Data[i*raw.Stride : i*raw.Stride+c])
	}
	return &sparse.CSR{R: r, C: c, Ptr: sp.ptr, Ind: sp.ind, Val: sp.val}
}
