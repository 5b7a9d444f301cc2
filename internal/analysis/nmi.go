package analysis

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// LabelNMI is the normalised mutual information between the binary label
// columns of y (seed 002, eq. 4–7): with p_i the mean of label i and p_ij the
// mean of (label i AND label j), I(i; j) is the mutual information of the
// full 2×2 joint table and NI = I / min(H_i, H_j). The diagonal is 1. A
// constant label has entropy 0: its row and column are 0 (diagonal
// included), and constant[i] is true. The result is q×q and symmetric, in
// [0, 1]. Cost O(N·k²) for k labels per row.
func LabelNMI(y *mat.Dense) (nmi *mat.SymDense, constant []bool) {
	return nmiOf(binaryRows(y))
}

func nmiOf(y *sparseRows) (*mat.SymDense, []bool) {
	q, n := y.cols, float64(y.rows)
	co := make([]float64, q*q)
	for i := range y.rows {
		idx, _ := y.row(i)
		for _, a := range idx {
			for _, b := range idx {
				co[int(a)*q+int(b)]++
			}
		}
	}
	p := make([]float64, q)
	h := make([]float64, q)
	constant := make([]bool, q)
	for i := range q {
		p[i] = co[i*q+i] / n
		h[i] = entropy(p[i]) + entropy(1-p[i])
		constant[i] = h[i] == 0
	}
	out := mat.NewSymDense(q, nil)
	for i := range q {
		if !constant[i] {
			out.SetSym(i, i, 1)
		}
		for j := i + 1; j < q; j++ {
			if constant[i] || constant[j] {
				continue
			}
			pij := co[i*q+j] / n
			joint := [4]float64{pij, p[i] - pij, p[j] - pij, 1 - p[i] - p[j] + pij}
			marg := [4]float64{p[i] * p[j], p[i] * (1 - p[j]), (1 - p[i]) * p[j], (1 - p[i]) * (1 - p[j])}
			mi := 0.0
			for c, pc := range joint {
				if pc > 0 {
					mi += pc * math.Log(pc/marg[c])
				}
			}
			out.SetSym(i, j, min(max(mi/min(h[i], h[j]), 0), 1))
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
