package analysis

import (
	"math"
	"math/bits"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/sparse"
)

// LabelNMI is the normalised mutual information between the binary label
// columns of y (seed 002, eq. 4–7): with p_i the mean of label i and p_ij the
// mean of (label i AND label j), I(i; j) is the mutual information of the
// full 2×2 joint table and NI = I / min(H_i, H_j). The diagonal is 1. A
// constant label has entropy 0: its row and column are 0 (diagonal
// included), and constant[i] is true. The result is q×q and symmetric, in
// [0, 1]. Cost O(N·k²) for k labels per row and O(q²); memory the q×q
// result (128 MB at q = 4 000), in which the pair counts are made.
func LabelNMI(y *mat.Dense) (nmi *mat.SymDense, constant []bool) {
	return nmiOf(binaryRows(y))
}

func nmiOf(y *sparseRows) (*mat.SymDense, []bool) {
	q, n := y.cols, float64(y.rows)
	// The pair counts go in the upper triangle of the result, which
	// they then become in place: one q×q matrix, not two.
	out := mat.NewSymDense(q, nil)
	raw := out.RawSymmetric()
	co := raw.Data
	for i := range y.rows {
		idx, _ := y.row(i) // ascending
		for x, a := range idx {
			row := co[int(a)*raw.Stride:]
			for _, b := range idx[x:] {
				row[b]++
			}
		}
	}
	p := make([]float64, q)
	h := make([]float64, q)
	constant := make([]bool, q)
	for i := range q {
		p[i] = co[i*raw.Stride+i] / n
		h[i] = entropy(p[i]) + entropy(1-p[i])
		constant[i] = h[i] == 0
	}
	for i := range q {
		row := co[i*raw.Stride:]
		row[i] = 0
		if !constant[i] {
			row[i] = 1
		}
		for j := i + 1; j < q; j++ {
			pij := row[j] / n
			row[j] = 0
			if constant[i] || constant[j] {
				continue
			}
			joint := [4]float64{pij, p[i] - pij, p[j] - pij, 1 - p[i] - p[j] + pij}
			marg := [4]float64{p[i] * p[j], p[i] * (1 - p[j]), (1 - p[i]) * p[j], (1 - p[i]) * (1 - p[j])}
			mi := 0.0
			for c, pc := range joint {
				if pc > 0 {
					mi += pc * math.Log(pc/marg[c])
				}
			}
			row[j] = min(max(mi/min(h[i], h[j]), 0), 1)
		}
	}
	return out, constant
}

// entropy is −p·log p, 0 at p = 0.
func entropy(p float64) float64 {
	if p <= 0 {
		return 0
	}
	return -p * math.Log(p)
}

// LabelNMIBlock is the block of LabelNMI's matrix with the given rows and
// columns, both indices into y's columns: block[a][b] = NI(rows[a],
// cols[b]), computed for those len(rows)·len(cols) pairs only, never the
// whole q×q matrix. rowConstant and colConstant mark the rows' and
// columns' constant labels (their entries are 0, as in LabelNMI). Each
// label is held as a bitset of its N rows, so the cost is O(N·(r+c)) to
// read y and O(r·c·N/64) for the pairs, and the memory (r+c)·N/8 bytes
// plus the block, whatever the density of y.
//
// y may be dense or a *sparse.CSR of the labels' ones (a multi-label
// data set's labels held sparse): then it is read once, entry by entry.
//
// An index outside [0, q) is a programmer's mistake and panics.
func LabelNMIBlock(y mat.Matrix, rows, cols []int) (block [][]float64, rowConstant, colConstant []bool) {
	n, q := y.Dims()
	// Bitsets of the distinct labels asked for, by label index.
	words := (n + 63) / 64
	sets := make(map[int][]uint64, len(rows)+len(cols))
	count := make(map[int]int, len(rows)+len(cols))
	for _, idx := range [][]int{rows, cols} {
		for _, j := range idx {
			if j < 0 || j >= q {
				panic("analysis: LabelNMIBlock: label index out of range")
			}
			if _, ok := sets[j]; !ok {
				sets[j] = make([]uint64, words)
			}
		}
	}
	set := func(i, j int) {
		if b, ok := sets[j]; ok {
			b[i/64] |= 1 << (i % 64)
			count[j]++
		}
	}
	if m, ok := y.(*sparse.CSR); ok {
		for i := range n {
			ind, val := m.Row(i)
			for k, j := range ind {
				if val[k] != 0 {
					set(i, int(j))
				}
			}
		}
	} else {
		for j := range sets {
			for i := range n {
				if y.At(i, j) != 0 {
					set(i, j)
				}
			}
		}
	}
	fn := float64(n)
	p := func(j int) float64 { return float64(count[j]) / fn }
	h := func(j int) float64 { return entropy(p(j)) + entropy(1-p(j)) }
	isConst := func(idx []int) []bool {
		out := make([]bool, len(idx))
		for a, j := range idx {
			out[a] = h(j) == 0
		}
		return out
	}
	rowConstant, colConstant = isConst(rows), isConst(cols)
	block = make([][]float64, len(rows))
	for a, i := range rows {
		block[a] = make([]float64, len(cols))
		if rowConstant[a] {
			continue
		}
		for b, j := range cols {
			switch {
			case colConstant[b]:
				continue
			case i == j:
				block[a][b] = 1
				continue
			}
			// The pair in LabelNMI's order (smaller index first), so
			// that the sums round as there: the block is symmetric
			// and equal to LabelNMI to the last bit.
			i, j := min(i, j), max(i, j)
			bi, pi, hi := sets[i], p(i), h(i)
			bj, pj := sets[j], p(j)
			both := 0
			for w, x := range bi {
				both += bits.OnesCount64(x & bj[w])
			}
			pij := float64(both) / fn
			joint := [4]float64{pij, pi - pij, pj - pij, 1 - pi - pj + pij}
			marg := [4]float64{pi * pj, pi * (1 - pj), (1 - pi) * pj, (1 - pi) * (1 - pj)}
			mi := 0.0
			for c, pc := range joint {
				if pc > 0 {
					mi += pc * math.Log(pc/marg[c])
				}
			}
			block[a][b] = min(max(mi/min(hi, h(j)), 0), 1)
		}
	}
	return block, rowConstant, colConstant
}
