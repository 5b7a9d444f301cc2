package analysis

import (
	"context"
	"math"
	"mldr/internal/linalg"

	"gonum.org/v1/gonum/mat"
)

// DefaultMLSIRidge is MLSI's ε when ridge is not given (as in the common
// MATLAB baselines).
const DefaultMLSIRidge = 1.0

// fitMLSI is multi-label informed latent semantic indexing (Yu, Yu & Tresp,
// SIGIR 2005) in its primal form, all in D-space with C = XcᵀXc and
// B = XcᵀYc (0/1 labels):
//
//	((1−β)·C·C + β·BBᵀ) w = λ (C + εI) w,
//
// β default 0.5 (the value seed 000 used), ε = ridge, default 1. P has
// unit-length columns (normalize = unit, the default, as the FSDR
// reference code) or is B-orthonormal, Pᵀ(C + εI)P = I (normalize = b).
// Cost O(N·D² + D³); with fewer rows than features the N×N path
// (rowspace.go), O(D·N² + N³): C = Q·RRᵀ·Qᵀ, so C² = Q(RRᵀ)²Qᵀ and the
// problem is solved in span(Q). ε = 0 is refused there: C + εI would be
// singular.
func fitMLSI(ctx context.Context, in Input, p Params, st stage) (*Model, error) {
	beta, err := p.beta(1, false)
	if err != nil {
		return nil, err
	}
	eps, err := nonNegative(ParamRidge, p.Ridge, DefaultMLSIRidge)
	if err != nil {
		return nil, err
	}
	p.Beta, p.Ridge = Float(beta), Float(eps)
	s, err := featureStats(ctx, in, statsSpec{gram: true, labels: in.ones()}, useRowSpace(in), st.sub(0, 0.6, "XᵀX and XᵀHY"))
	if err != nil {
		return nil, err
	}
	if err := s.needRidge(eps, ParamRidge, "XcᵀXc + εI"); err != nil {
		return nil, err
	}
	if err := st.checkpoint(ctx, 0.6); err != nil {
		return nil, err
	}
	left := mat.NewSymDense(s.d, nil)
	if beta < 1 {
		// C² = CᵀC is the Gram matrix of C's rows.
		if err := linalg.Gram(ctx, mat.DenseCopyOf(s.gram).RawMatrix(), nil, nil, left.RawSymmetric(), nil); err != nil {
			return nil, err
		}
		left.ScaleSym(1-beta, left)
	}
	if beta > 0 {
		left.SymRankK(left, beta, s.cross)
	}
	right := mat.NewSymDense(s.d, nil)
	right.CopySym(s.gram)
	addDiag(right, eps)
	l, err := cholesky(right, ParamRidge, "XcᵀXc + εI")
	if err != nil {
		return nil, err
	}
	if err := st.checkpoint(ctx, 0.7); err != nil {
		return nil, err
	}
	e, err := genEig(ctx, left, l, p, true)
	if err != nil {
		return nil, err
	}
	if e, err = s.up(ctx, e); err != nil {
		return nil, err
	}
	p.Normalize = normalizeDirections(e.vectors, p)
	return newFeatureModel("mlsi", p, e, rankOf(e.values), "rank of the MLSI problem", s.mean, in.matrix())
}

// memMLSI: C and B (D×D, D×q; or N×N-path forms), C² (a copy of C and
// linalg.Gram's accumulators), the right-hand matrix and its Cholesky
// factor, and genEig: some 12 matrices of order D (or N).
func memMLSI(p Params, s Shape) float64 {
	_, nnz := labelColumns(s)
	q := float64(s.Q)
	return nnzPlus(s, nnz, featureFit("mlsi", p, s, rowsFor(s), memSpec{gram: true, c: q}, func(l *memoryLedger, k float64) float64 {
		k8 := math.Ceil(k/8) * 8
		l.hold(k * k) // left
		l.burst(k*k + l.gang(k, 128)*(k8*k8+128*k8))
		l.hold(k * k) // right
		l.chol(k)
		l.genEig(k)
		return k
	}))
}
