package analysis

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// DefaultCCARidge is r_x, CCA's ridge on the features, when ridge is not
// given.
const DefaultCCARidge = 1.0

// ccaLabelRidge is r_y relative to the mean diagonal of YcᵀYc: just enough
// to make the label covariance definite (one-hot class variables are
// collinear).
const ccaLabelRidge = 1e-6

// fitCCA is canonical correlation analysis as a feature projection (seed
// 001, §2.2):
//
//	Xcᵀ Yc (YcᵀYc + r_y I)⁻¹ Ycᵀ Xc w = λ (XcᵀXc + r_x I) w,
//
// over the label columns that vary (constant ones are dropped first, with a
// note); for multi-dimensional data Y is the one-hot Z. r_x = ridge
// (default 1), r_y = 1e-6 × the mean diagonal of YcᵀYc. The left side has
// rank ≤ q: with YcᵀYc + r_yI = L_yL_yᵀ it is FFᵀ, F = XcᵀYc·L_y⁻ᵀ (D×q), so
// one thin SVD of the D×q matrix L⁻¹F solves it (L from the right side).
// The eigenvalues are the squared (regularised) canonical correlations.
// The directions have unit length (normalize = unit, the default, as the
// FSDR reference code), or are B-orthonormal, Pᵀ(XcᵀXc + r_xI)P = I
// (normalize = b).
// With fewer rows than features the N×N path (rowspace.go) solves it in the
// row space of Xc (r_x = 0 is refused there: XcᵀXc would be singular).
func fitCCA(ctx context.Context, in Input, p Params, st stage) (*Model, error) {
	rx, err := nonNegative(ParamRidge, p.Ridge, DefaultCCARidge)
	if err != nil {
		return nil, err
	}
	p.Ridge = Float(rx)
	s, err := featureStats(ctx, in, statsSpec{gram: true, labels: in.labelRows(), labelGram: true}, useRowSpace(in), st.sub(0, 0.7, "XᵀX and XᵀHY"))
	if err != nil {
		return nil, err
	}
	if err := s.needRidge(rx, ParamRidge, "XcᵀXc + r_xI"); err != nil {
		return nil, err
	}
	if err := st.checkpoint(ctx, 0.7); err != nil {
		return nil, err
	}
	var keep []int
	var dropped int
	c := s.labelGram.SymmetricDim()
	for j := range c {
		if s.labelGram.At(j, j) > 0 {
			keep = append(keep, j)
		} else {
			dropped++
		}
	}
	if len(keep) == 0 {
		return nil, unservable("", 0, "cca needs at least one label that varies; every label is constant in these rows")
	}
	ky := mat.NewSymDense(len(keep), nil)
	b := mat.NewDense(s.d, len(keep), nil)
	for a, ja := range keep {
		for bb, jb := range keep[a:] {
			ky.SetSym(a, a+bb, s.labelGram.At(ja, jb))
		}
		for i := range s.d {
			b.Set(i, a, s.cross.At(i, ja))
		}
	}
	addDiag(ky, ccaLabelRidge*meanDiag(ky))
	ly, err := cholesky(ky, ParamRidge, "YcᵀYc + r_yI")
	if err != nil {
		return nil, err
	}
	blas64.Trsm(blas.Right, blas.Trans, 1, ly.RawTriangular(), b.RawMatrix()) // F = B·L_y⁻ᵀ
	right := mat.NewSymDense(s.d, nil)
	right.CopySym(s.gram)
	addDiag(right, rx)
	l, err := cholesky(right, ParamRidge, "XcᵀXc + r_xI")
	if err != nil {
		return nil, err
	}
	e, err := lowRankGenEig(ctx, b, l, p)
	if err != nil {
		return nil, err
	}
	if e, err = s.up(ctx, e); err != nil {
		return nil, err
	}
	p.Normalize = normalizeDirections(e.vectors, p)
	m, err := newFeatureModel("cca", p, e, rankOf(e.values), "rank of XᵀHY", s.mean, in.matrix())
	if err != nil {
		return nil, err
	}
	if dropped > 0 {
		m.Notes = append(m.Notes, fmt.Sprintf("%d label columns are constant in these rows and were left out.", dropped))
	}
	return m, nil
}

// memCCA: C, B and YcᵀYc (D×D, D×c, c×c, c = q or ΣK_j; or N×N-path
// forms), the label side's Cholesky factor, the right-hand matrix and its
// factor, and the D×c low-rank generalised problem.
func memCCA(p Params, s Shape) float64 {
	c, nnz := labelColumns(s)
	return nnzPlus(s, nnz, featureFit("cca", p, s, rowsFor(s), memSpec{gram: true, c: c, labelGram: true}, func(l *memoryLedger, k float64) float64 {
		l.hold(c*c + k*c) // ky, b
		l.chol(c)
		l.hold(k * k) // right
		l.chol(k)
		l.hold(k * c)
		l.lowRank(k, c)
		return min(k, c)
	}))
}
