package analysis

import (
	"context"

	"gonum.org/v1/gonum/mat"
)

// fitMVMD maximises feature variance and feature–label dependence together
// (seed 004, eq. 34–37): the top-d eigenvectors of
//
//	G = (1−β)·XcᵀXc + β·XcᵀYc·YcᵀXc,
//
// with the labels coded ±1 as in the paper, so XcᵀYc = 2·XcᵀY for the 0/1
// matrix Y: the label term is four times that of 0/1 labels. β = 0 is PCA;
// β = 1 is mddmp (its subspace, with eigenvalues 4σ²), computed then from
// the thin SVD of the D×q matrix alone. Cost O(N·D² + D³), or with fewer
// rows than features O(D·N² + N³) on the N×N path (rowspace.go): G is
// Xcᵀ((1−β)I + 4β·YcYcᵀ)Xc, which is also how the matrix-free route on
// sparse features applies it (sparse_op.go), never forming G.
func fitMVMD(ctx context.Context, in Input, p Params, st stage) (*Model, error) {
	beta, err := p.beta(1, false)
	if err != nil {
		return nil, err
	}
	p.Beta = Float(beta)
	if k, ok := matrixFree(in, p); ok && beta < 1 {
		e, mean, ok, err := fitMatrixFree(ctx, in, k, in.ones(), 1-beta, 4*beta, st.sub(0, 0.95, "XᵀX and XᵀHY"))
		if err != nil {
			return nil, err
		}
		if ok {
			return newFeatureModel("mvmd", p, e, rankOf(e.values), "rank of G", mean, in.matrix())
		}
	}
	// β = 1 needs only the D×q matrix: the N×N path would cost more.
	s, err := featureStats(ctx, in, statsSpec{gram: beta < 1, labels: in.ones()}, beta < 1 && useRowSpace(in), st.sub(0, 0.7, "XᵀX and XᵀHY"))
	if err != nil {
		return nil, err
	}
	if err := st.checkpoint(ctx, 0.7); err != nil {
		return nil, err
	}
	var b mat.Dense
	b.Scale(2, s.cross) // ±1 coding
	if beta == 1 {
		e, err := lowRankEig(ctx, &b, p)
		if err != nil {
			return nil, err
		}
		if e, err = s.up(ctx, e); err != nil {
			return nil, err
		}
		return newFeatureModel("mvmd", p, e, rankOf(e.values), "rank of XᵀHY", s.mean, in.matrix())
	}
	g := mat.NewSymDense(s.d, nil)
	g.ScaleSym(1-beta, s.gram)
	if beta > 0 {
		g.SymRankK(g, beta, &b)
	}
	e, err := symEigFor(ctx, g, p, true)
	if err != nil {
		return nil, err
	}
	if e, err = s.up(ctx, e); err != nil {
		return nil, err
	}
	return newFeatureModel("mvmd", p, e, rankOf(e.values), "rank of G", s.mean, in.matrix())
}

// memMVMD: the sparse labels, then on the matrix-free route (β < 1,
// shapeFree) what the iteration holds (memFree); else XcᵀXc and XcᵀY (D×D and D×q, or their
// N×N-path forms), the D×q ±1 copy, G and its decomposition; β = 1 needs
// only the D×q matrix and its thin SVD.
func memMVMD(p Params, s Shape) float64 {
	_, nnz := labelColumns(s)
	q := float64(s.Q)
	if p.Beta != nil && *p.Beta == 1 {
		return nnzPlus(s, nnz, featureFit("mvmd", p, s, false, memSpec{c: q}, func(l *memoryLedger, k float64) float64 {
			l.hold(k * q)
			l.lowRank(k, q)
			return min(k, q)
		}))
	}
	if k, ok := shapeFree(p, s); ok {
		l := newLedger()
		l.memFree(float64(s.N), float64(s.D), float64(k), q, sideFeatures)
		l.featureModel(float64(s.N), float64(s.D), min(chosenDim("mvmd", p, s), float64(k)))
		return nnzPlus(s, nnz, l.peak)
	}
	return nnzPlus(s, nnz, featureFit("mvmd", p, s, rowsFor(s), memSpec{gram: true, c: q}, func(l *memoryLedger, k float64) float64 {
		l.hold(k*q + k*k)
		l.burst(k * k) // SymRankK onto itself works on a copy
		l.eig(k)
		return k
	}))
}
