package analysis

import (
	"context"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"mldr/internal/linalg"
	"mldr/internal/sparse"
)

// The label Gram as an operator. plst decomposes ZᵀZ = 4·YcᵀYc (q×q). Y is
// 0/1 and mostly zero on data with many labels (EURLex-4K's shape: 3 993
// labels, 5.3 a row), so a product with a block V of b vectors costs
// O((nnz(Y) + N + q)·b) from the ones of Y,
//
//	U = Yc·V = Y·V − 1·(m01ᵀV)          (N×b),
//	ZᵀZ·V = 4·(YᵀU − m01·(1ᵀU))          (q×b),
//
// against 2q² a vector for the formed matrix (32 M multiply-adds at
// q = 3 993, some 150 times more), and the q×q matrix (128 MB there) is
// never held. The trace for Total and Energy is exact from the label
// frequencies: tr(YcᵀYc) = Σ_j N·m_j(1 − m_j).
//
// labelFree chooses the route where the operator is cheaper than the
// formed matrix would be to apply and the iteration can run
// (iteratedTop: k known, well below q, and q ≥ 200). Below 200 labels,
// every golden data set, the formed matrix is decomposed directly.

// labelFree reports whether plst's fit on ones takes the operator route,
// and the k pairs it computes; in.route forces it either way.
func labelFree(in Input, ones *sparseRows, p Params) (k int, ok bool) {
	if in.route == routeGram {
		return 0, false
	}
	return labelFreeRule(ones.rows, ones.cols, float64(len(ones.idx)), p, in.route == routeFree)
}

// labelFreeRule is labelFree's rule on a shape: n rows, q labels, ones of
// them set; forced skips the cost condition.
func labelFreeRule(n, q int, ones float64, p Params, forced bool) (k int, ok bool) {
	if k, ok = iteratedTop(p, q); !ok {
		return 0, false
	}
	return k, forced || labelOpFlops(n, q, ones) < 2*float64(q)*float64(q)/opGemmSpeed
}

// labelOpFlops is the flops of one product of the label-Gram operator
// (either side) with a vector, on n rows of q labels with ones ones.
func labelOpFlops(n, q int, ones float64) float64 {
	return 4*ones + 4*float64(n) + 4*float64(q)
}

// labelGramOp is ZᵀZ = 4·YcᵀYc (order q) as a linalg.SymOp over the labels
// l in CSR form and their 0/1 column means m01: Yc·V, then Ycᵀ of it
// (centredMul, centredTMul).
func labelGramOp(l *sparse.CSR, m01 []float64) linalg.SymOp {
	n, q := l.Dims()
	var u []float64
	return linalg.SymOp{N: q, Cost: labelOpFlops(n, q, float64(l.NNZ())), Apply: func(ctx context.Context, v, av blas64.General) error {
		b := v.Cols
		if len(u) < n*b {
			u = make([]float64, n*b)
		}
		ug := blas64.General{Rows: n, Cols: b, Stride: b, Data: u[:n*b]}
		if err := centredMul(ctx, l, m01, v, ug); err != nil { // Yc·V
			return err
		}
		if err := centredTMul(ctx, l, m01, ug, av); err != nil { // Ycᵀ(Yc·V)
			return err
		}
		scaleBlock(av, 4)
		return ctx.Err()
	}}
}

// labelGramTrace is tr(ZᵀZ) = 4·Σ_j N·m_j(1 − m_j) for 0/1 labels with
// column means m01.
func labelGramTrace(n int, m01 []float64) float64 {
	t := 0.0
	for _, m := range m01 {
		t += m * (1 - m)
	}
	return 4 * float64(n) * t
}

// labelGramTop is plst's k leading pairs of ZᵀZ by the operator.
//
// With fewer rows than labels it iterates on 4·YcYcᵀ (order N) instead,
// the same non-zero eigenvalues, and lifts the directions back,
// Ycᵀu/‖Ycᵀu‖: the iteration's orthogonalisation costs its order times
// m² a restart, and on 1 186 rows of 13 330 labels (AmazonCat-13K's shape
// at a thousandth) the order q took 28 s where the order N takes a second.
func labelGramTop(ctx context.Context, ones *sparseRows, m01 []float64, k int, st stage) (eigenResult, error) {
	st.at(0)
	l := ones.csr()
	op := labelGramOp(l, m01)
	rows := ones.rows < ones.cols && k < ones.rows
	if rows {
		op = labelRowsOp(l, m01)
	}
	vals, v, err := linalg.SymEigTopOp(ctx, opProgress(op, k, st), k)
	if err != nil {
		if ctx.Err() != nil {
			return eigenResult{}, ctx.Err()
		}
		return eigenResult{}, invalid("", "the eigen-decomposition failed: %v", err)
	}
	res, err := pairResiduals(ctx, op, vals, v)
	if err != nil {
		return eigenResult{}, err
	}
	if rows {
		lifted := mat.NewDense(l.C, k, nil)
		if err := centredTMul(ctx, l, m01, v.RawMatrix(), lifted.RawMatrix()); err != nil {
			return eigenResult{}, err
		}
		unitColumns(lifted)
		v = lifted
	}
	return eigenResult{values: vals, vectors: v, order: ones.cols, total: labelGramTrace(ones.rows, m01), residuals: res}, nil
}

// labelRowsOp is 4·YcYcᵀ (order N) as a linalg.SymOp over the labels l
// in CSR form and their 0/1 column means m01: ZZᵀ, whose non-zero
// eigenvalues are ZᵀZ's.
func labelRowsOp(l *sparse.CSR, m01 []float64) linalg.SymOp {
	n, q := l.Dims()
	return centredRowsOp(l, m01, 4, labelOpFlops(n, q, float64(l.NNZ())))
}

// krylovPhase is the progress stage of formedTop.
const krylovPhase = "eigen-decomposition (block Krylov)"

// formedTop is cplst's k leading pairs of its formed q×q matrix a
// (ZᵀĤZ, positive semi-definite) by linalg.SymEigTopOp with a as the
// operator, where symEigFor would call linalg.SymEigTop (k known, 2k < q,
// linalg.TopIterates(q, k); ok false otherwise, and with in.route forcing
// the Gram route). The difference is the iteration's shape: SymEigTopOp
// tries blocks of 8 vectors, 16 a cycle, before SymEigTop's blocks of
// k + k/4, 4 a cycle. On the power-law spectra of many labels (EURLex-4K's
// shape: 3 993 labels, d = 100), whose leading values are close together,
// SymEigTop's shape predicts slow convergence and gives up for the direct
// tridiagonal method (8 s there), where the small blocks converge in about
// 1 s. The lower triangle of a is overwritten with the upper's mirror, so
// that the product is a general one on the packed kernel (linalg.Mul); a
// stays the same symmetric matrix.
func formedTop(ctx context.Context, in Input, a *mat.SymDense, p Params, st stage) (eigenResult, bool, error) {
	n := a.SymmetricDim()
	k, ok := iteratedTop(p, n)
	if in.route == routeGram || !ok {
		return eigenResult{}, false, nil
	}
	st.at(0)
	raw := a.RawSymmetric()
	for i := range n {
		for j := i + 1; j < n; j++ {
			raw.Data[j*raw.Stride+i] = raw.Data[i*raw.Stride+j]
		}
	}
	full := blas64.General{Rows: n, Cols: n, Stride: raw.Stride, Data: raw.Data}
	op := linalg.SymOp{N: n, Cost: 2 * float64(n) * float64(n), Apply: func(ctx context.Context, v, av blas64.General) error {
		if err := linalg.Mul(full, v, av); err != nil {
			return err
		}
		return ctx.Err()
	}}
	vals, v, err := linalg.SymEigTopOp(ctx, opProgress(op, k, st), k)
	if err != nil {
		if ctx.Err() != nil {
			return eigenResult{}, false, ctx.Err()
		}
		return eigenResult{}, false, invalid("", "the eigen-decomposition failed: %v", err)
	}
	res, err := pairResiduals(ctx, op, vals, v)
	if err != nil {
		return eigenResult{}, false, err
	}
	return eigenResult{values: vals, vectors: v, order: n, total: trace(a), residuals: res}, true, nil
}
