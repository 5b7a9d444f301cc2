package sparse

import "fmt"

// SelectRows returns the rows idx of m, in that order, as a new CSR (the
// training or test part of a split). Indices may repeat; each must be in
// [0, R), or it panics, as slicing would.
func (m *CSR) SelectRows(idx []int) *CSR {
	nnz := int64(0)
	for _, i := range idx {
		if i < 0 || i >= m.R {
			panic(fmt.Sprintf("sparse: row %d of a matrix of %d rows", i, m.R))
		}
		nnz += m.Ptr[i+1] - m.Ptr[i]
	}
	out := &CSR{R: len(idx), C: m.C, Ptr: make([]int64, len(idx)+1), Ind: make([]int32, 0, nnz), Val: make([]float64, 0, nnz)}
	for r, i := range idx {
		ind, val := m.Row(i)
		out.Ind = append(out.Ind, ind...)
		out.Val = append(out.Val, val...)
		out.Ptr[r+1] = int64(len(out.Ind))
	}
	return out
}

// RowSqNorms returns ‖x_i‖² for every row, summed in column order.
func (m *CSR) RowSqNorms() []float64 {
	out := make([]float64, m.R)
	for i := range m.R {
		_, val := m.Row(i)
		s := 0.0
		for _, v := range val {
			s += float64(v * v)
		}
		out[i] = s
	}
	return out
}

// Dot is the dot product of two sparse rows (columns ascending), summed in
// column order.
func Dot(ai []int32, av []float64, bi []int32, bv []float64) float64 {
	s := 0.0
	p, q := 0, 0
	for p < len(ai) && q < len(bi) {
		switch {
		case ai[p] == bi[q]:
			s += float64(av[p] * bv[q])
			p++
			q++
		case ai[p] < bi[q]:
			p++
		default:
			q++
		}
	}
	return s
}

// Dist is the squared Euclidean distance of two sparse rows, summed in
// ascending column order over the columns either holds: the same number,
// to the last bit, as knn.Dist on the dense rows (whose other terms are
// exact zeros), so neighbours and their ties come out the same.
func Dist(ai []int32, av []float64, bi []int32, bv []float64) float64 {
	s := 0.0
	p, q := 0, 0
	for p < len(ai) || q < len(bi) {
		var d float64
		switch {
		case q == len(bi) || (p < len(ai) && ai[p] < bi[q]):
			d = av[p]
			p++
		case p == len(ai) || bi[q] < ai[p]:
			d = -bv[q]
			q++
		default:
			d = av[p] - bv[q]
			p++
			q++
		}
		s += float64(d * d)
	}
	return s
}

// Transpose returns mᵀ as a new CSR (C×R): row j lists the rows of m that
// hold column j, ascending. O(nnz + R + C).
func (m *CSR) Transpose() *CSR {
	t := &CSR{R: m.C, C: m.R, Ptr: make([]int64, m.C+1), Ind: make([]int32, m.NNZ()), Val: make([]float64, m.NNZ())}
	for _, j := range m.Ind {
		t.Ptr[j+1]++
	}
	for j := range m.C {
		t.Ptr[j+1] += t.Ptr[j]
	}
	next := make([]int64, m.C)
	copy(next, t.Ptr[:m.C])
	for i := range m.R {
		ind, val := m.Row(i)
		for k, j := range ind {
			p := next[j]
			next[j]++
			t.Ind[p] = int32(i)
			t.Val[p] = val[k]
		}
	}
	return t
}

// RowRange returns rows [from, to) of m, sharing m's column indices and
// values (only the row pointers are new). It panics on a range outside
// [0, R], as slicing would.
func (m *CSR) RowRange(from, to int) *CSR {
	if from < 0 || to < from || to > m.R {
		panic(fmt.Sprintf("sparse: rows [%d, %d) of a matrix of %d rows", from, to, m.R))
	}
	base, end := m.Ptr[from], m.Ptr[to]
	ptr := make([]int64, to-from+1)
	for i := range ptr {
		ptr[i] = m.Ptr[from+i] - base
	}
	return &CSR{R: to - from, C: m.C, Ptr: ptr, Ind: m.Ind[base:end], Val: m.Val[base:end]}
}

// Stack returns the rows of a over those of b as a new CSR (either may be
// a RowRange, whose pointers need not start at 0). It panics when their
// columns differ: callers stack parts of the same columns.
func Stack(a, b *CSR) *CSR {
	if a.C != b.C {
		panic(fmt.Sprintf("sparse: stacking rows of %d columns over rows of %d", a.C, b.C))
	}
	nnz := a.Ptr[a.R] - a.Ptr[0] + b.Ptr[b.R] - b.Ptr[0]
	out := &CSR{R: a.R + b.R, C: a.C, Ptr: make([]int64, 0, a.R+b.R+1), Ind: make([]int32, 0, nnz), Val: make([]float64, 0, nnz)}
	for _, p := range a.Ptr {
		out.Ptr = append(out.Ptr, p-a.Ptr[0])
	}
	base := a.Ptr[a.R] - a.Ptr[0]
	for _, p := range b.Ptr[1:] {
		out.Ptr = append(out.Ptr, base+p-b.Ptr[0])
	}
	out.Ind = append(append(out.Ind, a.Ind[a.Ptr[0]:a.Ptr[a.R]]...), b.Ind[b.Ptr[0]:b.Ptr[b.R]]...)
	out.Val = append(append(out.Val, a.Val[a.Ptr[0]:a.Ptr[a.R]]...), b.Val[b.Ptr[0]:b.Ptr[b.R]]...)
	return out
}

// AppendRows appends the rows of part, which has m's columns, after the
// rows of m held in its Ptr so far (m.Ptr holds the row pointers of the
// rows appended before, from 0). m.R is the number of rows m will have in
// the end and is not changed.
func (m *CSR) AppendRows(part *CSR) error {
	if part.C != m.C {
		return fmt.Errorf("sparse: rows of %d columns appended to a matrix of %d", part.C, m.C)
	}
	if len(m.Ptr)-1+part.R > m.R {
		return fmt.Errorf("sparse: %d rows appended after %d to a matrix of %d", part.R, len(m.Ptr)-1, m.R)
	}
	at := m.Ptr[len(m.Ptr)-1]
	for i := 1; i <= part.R; i++ {
		m.Ptr = append(m.Ptr, at+part.Ptr[i])
	}
	m.Ind = append(m.Ind, part.Ind...)
	m.Val = append(m.Val, part.Val...)
	return nil
}

// SymmetricDifference counts the indices in one of the ascending lists a
// and b but not in both (the Hamming distance of the 0/1 rows they hold).
func SymmetricDifference(a, b []int32) int {
	i, j, common := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			common++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return len(a) + len(b) - 2*common
}
