package evaluate

import (
	"fmt"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// ridgePath fits the centred ridge regressions of targets t on the first
// d columns of x (fitRidgeCentred's), for every d up to x's width, from
// one Gram matrix and one Cholesky factor: columns are centred one by one,
// so the Gram of the first d centred columns is the leading d×d block of
// the whole Gram, and the Cholesky factor of that block plus λI is the
// leading block of the whole one's (UᵀU = A, U upper triangular, holds
// block by block). Each d then costs two triangular solves with the
// leading block, where fitting it alone would form and factor the d×d
// system again: over a grid of d up to D′ the systems cost O(n·D′² + D′³)
// once instead of Σ_d O(n·d² + d³).
type ridgePath struct {
	xmean, tmean []float64
	u            blas64.Triangular // U of XcᵀXc + λI, at x's width
	xt           *mat.Dense        // XcᵀTc, x's width × t's columns
}

// newRidgePath prepares the ridge regressions of t on x's leading columns
// with penalty lambda. It needs at least as many rows as columns (the
// primal system; with fewer, fit each d with fitRidgeCentred).
func newRidgePath(x, t *mat.Dense, lambda float64) (*ridgePath, error) {
	n, d := x.Dims()
	if n < d {
		return nil, fmt.Errorf("evaluate: a ridge path needs as many rows as columns, not %d rows of %d", n, d)
	}
	xm, tm := colMeans(x), colMeans(t)
	xc, tc := centred(x, xm), centred(t, tm)
	ch, err := ridgeCholesky(xc, lambda)
	if err != nil {
		return nil, err
	}
	var u mat.TriDense
	ch.UTo(&u)
	var xt mat.Dense
	xt.Mul(xc.T(), tc)
	return &ridgePath{xmean: xm, tmean: tm, u: u.RawTriangular(), xt: &xt}, nil
}

// model is the ridge regression on the first d columns: W solves
// (U_dᵀU_d)W = (XcᵀTc)_d, with U_d the leading block of the factor, by the
// two triangular solves Cholesky.SolveTo makes.
func (p *ridgePath) model(d int) *ridgeModel {
	_, c := p.xt.Dims()
	w := mat.DenseCopyOf(p.xt.Slice(0, d, 0, c))
	ud := blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: d, Stride: p.u.Stride, Data: p.u.Data}
	raw := w.RawMatrix()
	blas64.Trsm(blas.Left, blas.Trans, 1, ud, raw)
	blas64.Trsm(blas.Left, blas.NoTrans, 1, ud, raw)
	return &ridgeModel{w: w, xmean: p.xmean[:d], tmean: p.tmean}
}
