package analysis

import "context"

// fitPCA: the top-d eigenvectors of C = XcᵀXc. The eigenvalues are those
// of C itself (N−1 times the sample covariance's).
func fitPCA(ctx context.Context, in Input, p Params, st stage) (*Model, error) {
	s, err := computeStats(ctx, in.X, statsSpec{gram: true}, st.sub(0, 0.7, "covariance"))
	if err != nil {
		return nil, err
	}
	st.sub(0.7, 0.95, "eigen-decomposition").at(0)
	e, err := symEig(ctx, s.gram)
	if err != nil {
		return nil, err
	}
	return newFeatureModel("pca", p, e, rankOf(e.values), "rank of XcᵀXc", s.mean, in.X)
}
