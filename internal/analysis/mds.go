package analysis

import (
	"context"

	"gonum.org/v1/gonum/mat"
)

// mdsMaxDims is how many embedding coordinates mds keeps (and so its
// largest d): N×mdsMaxDims numbers at most.
const mdsMaxDims = 200

// fitMDS fits mds of the kind Params.MDSKind: classical (fitClassicalMDS)
// or, by SMACOF, metric or nonmetric (fitSMACOF).
func fitMDS(ctx context.Context, in Input, p Params, st stage) (*Model, error) {
	if p.SMACOF() {
		return fitSMACOF(ctx, in, p, st)
	}
	return fitClassicalMDS(ctx, in, p, st)
}

// fitClassicalMDS is classical (Torgerson) multidimensional scaling of the rows'
// Euclidean distances: the top-d eigenvectors of B = −½·H·D²·H (N×N), each
// scaled by √λ, are the embedding. For Euclidean distances B = XcXcᵀ, whose
// non-zero eigenpairs come from C = XcᵀXc: if Cv = λv then Xcv/√λ is a unit
// eigenvector of B with the same λ, so the embedding is Xc·v — PCA's scores.
// So no N×N matrix is formed and no limit on N is needed; the tests check
// this against the explicit −½HD²H. MDS is transductive: it embeds the
// rows it is fitted on and has no projection for new rows (Transform
// returns ErrTransductive); an evaluation fits it on the training and
// test rows together (evaluate.Run). The eigenvalues are those of B (its non-zero ones).
// With fewer rows than features C is decomposed on the N×N path
// (rowspace.go) and the embedding is U·V from the rows U of Xc in its row
// space.
func fitClassicalMDS(ctx context.Context, in Input, p Params, st stage) (*Model, error) {
	s, err := featureStats(ctx, in, statsSpec{gram: true}, useRowSpace(in), st.sub(0, 0.7, "Gram matrix"))
	if err != nil {
		return nil, err
	}
	st.sub(0.7, 0.9, "eigen-decomposition").at(0)
	e, err := symEigFor(ctx, s.gram, p, true)
	if err != nil {
		return nil, err
	}
	r := rankOf(e.values)
	rank := min(r, mdsMaxDims)
	total := e.positiveSum()
	d, err := chooseDimOf("mds", e.values, total, e.partial(), rank, "rank of −½HD²H (at most 200 coordinates are kept)", p)
	if err != nil {
		return nil, err
	}
	_, computed := e.vectors.Dims()
	cols := min(rank, computed) // only the leading directions may have been computed
	var emb *mat.Dense
	if s.space != nil { // the rows of Xc in the basis Q, times V: Xc·QV
		emb = mat.NewDense(s.n, cols, nil)
		emb.Mul(s.space.coords, sliceCols(e.vectors, cols))
	} else {
		emb = Project(in.matrix(), s.mean, sliceCols(e.vectors, cols))
	}
	fixSigns(emb) // the convention holds for MDS's own eigenvectors, the embedding's columns
	m := &Model{Method: "mds", Space: FeatureSpace, Params: p, Means: s.mean, Eigenvalues: e.values[:r],
		Order: max(e.order, r), Total: total, Rank: rank, RankOf: "rank of −½HD²H (at most 200 coordinates are kept)",
		RankAtLeast: rankAtLeast(e, r) && r < mdsMaxDims, Dim: d, embedding: emb}
	m.Energy = energyOf(m.Eigenvalues, d, total)
	m.Projected = mat.DenseCopyOf(emb.Slice(0, s.n, 0, d))
	return m, nil
}

// memMDS is memClassicalMDS or memSMACOF, by the kind.
func memMDS(p Params, s Shape) float64 {
	if p.SMACOF() {
		return memSMACOF(p, s)
	}
	return memClassicalMDS(p, s)
}

// memClassicalMDS: pca's statistics and decomposition (D×D, or N×N when N < D), then
// the N×min(rank, 200) embedding and its copy; no N×N distance matrix.
func memClassicalMDS(p Params, s Shape) float64 {
	l := newLedger()
	l.sparseFor(s, rowsFor(s))
	n, d := float64(s.N), float64(s.D)
	k := d
	if rowsFor(s) {
		k = min(n, d)
		l.hold(d)
		l.rowSpace(n, d)
	}
	l.stats(n, k, memSpec{gram: true})
	l.eig(k)
	r := min(k, mdsMaxDims)
	if !rowsFor(s) {
		l.hold(d * r) // the first columns of V, projected
		l.burst(d*(r+8) + l.workers*(8*d+64))
	} else {
		l.hold(k * r)
	}
	l.hold(2 * n * r) // the embedding and Projected
	return l.peak
}
