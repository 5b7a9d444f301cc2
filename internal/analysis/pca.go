package analysis

import "context"

// fitPCA: the top-d eigenvectors of C = XcᵀXc. The eigenvalues are those
// of C itself (N−1 times the sample covariance's). On sparse features
// with few pairs wanted it takes the matrix-free route (sparse_op.go):
// C is applied to blocks of vectors, never formed. With fewer rows than
// features it takes the N×N path (rowspace.go): the eigenvectors V of RRᵀ
// (N×N, Xcᵀ = QR) give P = QV, the same eigenvalues, and the D − N
// eigenvalues it leaves out are exactly zero.
func fitPCA(ctx context.Context, in Input, p Params, st stage) (*Model, error) {
	if k, ok := matrixFree(in, p); ok {
		e, mean, ok, err := fitMatrixFree(ctx, in, k, nil, 1, 0, st.sub(0, 0.95, "covariance"))
		if err != nil {
			return nil, err
		}
		if ok {
			return newFeatureModel("pca", p, e, rankOf(e.values), "rank of XcᵀXc", mean, in.matrix())
		}
	}
	s, err := featureStats(ctx, in, statsSpec{gram: true}, useRowSpace(in), st.sub(0, 0.7, "covariance"))
	if err != nil {
		return nil, err
	}
	st.sub(0.7, 0.95, "eigen-decomposition").at(0)
	e, err := symEigFor(ctx, s.gram, p, true)
	if err != nil {
		return nil, err
	}
	if e, err = s.up(ctx, e); err != nil {
		return nil, err
	}
	return newFeatureModel("pca", p, e, rankOf(e.values), "rank of XcᵀXc", s.mean, in.matrix())
}

// memPCA: on the matrix-free route (shapeFree) what the iteration holds
// (memFree), never D×D; else the D×D statistics and their decomposition (about 8·D² with the
// workers' accumulators), or on the N×N path the D×N reflectors, the N×N
// problem and the D×N lifted basis (about 2·D·N + 8·N²); then the model.
func memPCA(p Params, s Shape) float64 {
	if k, ok := shapeFree(p, s); ok {
		l := newLedger()
		l.memFree(float64(s.N), float64(s.D), float64(k), 0, chooseSide(s.N, s.D, 0, 1))
		l.featureModel(float64(s.N), float64(s.D), min(chosenDim("pca", p, s), float64(k)))
		return l.peak
	}
	return featureFit("pca", p, s, rowsFor(s), memSpec{gram: true}, func(l *memoryLedger, k float64) float64 {
		l.eig(k)
		return k
	})
}
