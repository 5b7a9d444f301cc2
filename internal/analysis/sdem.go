package analysis

import "context"

// fitSDeM is supervised dimensionality reduction for multi-dimensional
// classification (seed 003, algorithm 1): the top-d eigenvectors of
// XᵀH ZZᵀ HX with Z the N×ΣK_j one-hot matrix of the class variables, i.e.
// the top-d left singular vectors of B = XcᵀZ (D×ΣK_j), eigenvalues σ².
// Each variable's one-hot block sums to 1, so HZ has rank ≤ ΣK_j − q and so
// has B: d ≤ ΣK_j − q. Cost O(N·q·D + D·(ΣK_j)²); no XᵀX. When N < D and
// N < ΣK_j, the N×N path (rowspace.go) forms the N×ΣK_j matrix UᵀZ instead.
func fitSDeM(ctx context.Context, in Input, p Params, st stage) (*Model, error) {
	z := oneHotRows(in.Y, in.Classes)
	s, err := featureStats(ctx, in, statsSpec{labels: z}, lowRankRows(in, z.cols), st.sub(0, 0.8, "XᵀHZ"))
	if err != nil {
		return nil, err
	}
	if err := st.checkpoint(ctx, 0.8); err != nil {
		return nil, err
	}
	e, err := lowRankEig(ctx, s.cross, p)
	if err != nil {
		return nil, err
	}
	if e, err = s.up(ctx, e); err != nil {
		return nil, err
	}
	return newFeatureModel("sdem", p, e, rankOf(e.values), "rank of XᵀHZ (at most ΣK_j − q)", s.mean, in.matrix())
}

// memSDeM: the one-hot Z (N·q ones), XcᵀZ (D×ΣK_j) and its thin SVD; on
// the N×N path (N < D, N < ΣK_j) the D×N reflectors and the N×ΣK_j UᵀZ.
func memSDeM(p Params, s Shape) float64 {
	c, nnz := labelColumns(s)
	rows := rowsFor(s) && float64(s.N) < c
	return nnzPlus(s, nnz, featureFit("sdem", p, s, rows, memSpec{c: c}, func(l *memoryLedger, k float64) float64 {
		l.lowRank(k, c)
		return min(k, c)
	}))
}
