package analysis

import (
	"context"

	"gonum.org/v1/gonum/mat"
)

// The label-distance graph embeddings (seed 002) maximise
// Σ_ij A_ij‖Pᵀx_i − Pᵀx_j‖² with PᵀP = I: the top-d eigenvectors of XᵀLX,
// L = D_A − A the graph Laplacian (B = I). Every distance they use has the
// form A = r1ᵀ + 1rᵀ − UKUᵀ (r_i a per-row quantity, U an N×c matrix, K c×c),
// and then, since L1 = 0 and 1ᵀXc = 0,
//
//	XᵀLX = XcᵀLXc = Xcᵀ·diag(δ)·Xc + (XcᵀU)·K·(XcᵀU)ᵀ,
//	δ_i = Σ_j A_ij = N·r_i + Σ_j r_j − u_iᵀK(Uᵀ1),
//
// one weighted Gram and one D×c product: no N×N matrix. (A's diagonal does
// not matter: it cancels in L.) Cost O(N·D² + N·c·D + D³). With fewer rows
// than features the same is formed from the rows U of Xc in its row space
// (rowspace.go: XᵀLX = Q(UᵀLU)Qᵀ) in O(D·N² + N³).
//
//   - ge-hamming: A_ij = count(y_i ⊕ y_j): r = |y|, U = Y, K = 2I.
//   - ge-euclid-y: A_ij = ‖y_i − y_j‖²: r = ‖y‖², U = Y, K = 2I. On 0/1
//     labels this is the Hamming distance, so it gives ge-hamming's result.
//   - ge-gh: A_ij = count(y_i ∨ y_j) − y_iᵀFy_j (eq. 10), F the label NMI
//     matrix: count(y_i ∨ y_j) = |y_i| + |y_j| − y_iᵀy_j, so r = |y|, U = Y,
//     K = I + F. With independent labels F = I: Hamming (Theorem 1).
//   - ge-euclid-x: A_ij = ‖x_i − x_j‖²: r = ‖xc‖², U = Xc, K = 2I, so
//     XᵀLX = Xcᵀdiag(δ)Xc + 2C², δ_i = N‖xc_i‖² + tr C, C = XcᵀXc.
//
// For multi-dimensional data Y is the one-hot Z.

func fitGEHamming(ctx context.Context, in Input, p Params, st stage) (*Model, error) {
	u := in.labelRows()
	return fitGraph(ctx, "ge-hamming", in, p, st, u, nil, rowSums(u, false))
}

func fitGEEuclidY(ctx context.Context, in Input, p Params, st stage) (*Model, error) {
	u := in.labelRows()
	return fitGraph(ctx, "ge-euclid-y", in, p, st, u, nil, rowSums(u, true))
}

func fitGEGH(ctx context.Context, in Input, p Params, st stage) (*Model, error) {
	u := in.labelRows()
	f, _ := nmiOf(u)
	k := identityScaled(u.cols, 1)
	k.AddSym(k, f)
	return fitGraph(ctx, "ge-gh", in, p, st, u, k, rowSums(u, false))
}

// fitGraph solves the label-distance graph embedding for
// A = r1ᵀ + 1rᵀ − UKUᵀ. A nil k is K = 2I, which is then never formed (it
// would be c×c: 128 MB at q = 4 000).
func fitGraph(ctx context.Context, id string, in Input, p Params, st stage, u *sparseRows, k *mat.SymDense, r []float64) (*Model, error) {
	n := float64(u.rows)
	sumU := make([]float64, u.cols)
	total := 0.0
	for i := range u.rows {
		idx, val := u.row(i)
		for a, j := range idx {
			sumU[j] += val[a]
		}
		total += r[i]
	}
	var ks mat.VecDense
	if k != nil {
		ks.MulVec(k, mat.NewVecDense(u.cols, sumU))
	} else {
		ks.ScaleVec(2, mat.NewVecDense(u.cols, sumU))
	}
	delta := make([]float64, u.rows)
	for i := range u.rows {
		idx, val := u.row(i)
		d := n*r[i] + total
		for a, j := range idx {
			d -= val[a] * ks.AtVec(int(j))
		}
		delta[i] = d
	}
	s, err := featureStats(ctx, in, statsSpec{labels: u, weights: delta}, useRowSpace(in), st.sub(0, 0.75, "XᵀLX"))
	if err != nil {
		return nil, err
	}
	if err := st.checkpoint(ctx, 0.75); err != nil {
		return nil, err
	}
	var ck mat.Dense
	if k != nil {
		ck.Mul(s.cross, k)
	} else {
		ck.Scale(2, s.cross)
	}
	var term mat.Dense
	term.Mul(&ck, s.cross.T())
	sym := mat.NewSymDense(s.d, nil)
	symmetrize(&term, sym)
	sym.AddSym(sym, s.wgram)
	// Hamming and Euclidean distances are ≥ 0, so L is a Laplacian and
	// XᵀLX semi-definite; ge-gh's A may have negative entries.
	e, err := symEigFor(ctx, sym, p, id != "ge-gh")
	if err != nil {
		return nil, err
	}
	if e, err = s.up(ctx, e); err != nil {
		return nil, err
	}
	return newFeatureModel(id, p, e, rankOf(e.values), "number of positive eigenvalues of XᵀLX", s.mean, in.matrix())
}

// fitGEEuclidX is the graph embedding with A_ij = ‖x_i − x_j‖² (see above).
func fitGEEuclidX(ctx context.Context, in Input, p Params, st stage) (*Model, error) {
	_, norms := centredSqNorms(in)
	n := len(norms)
	total := 0.0
	for _, v := range norms {
		total += v
	}
	delta := make([]float64, n)
	for i := range n {
		delta[i] = float64(n)*norms[i] + total
	}
	s, err := featureStats(ctx, in, statsSpec{gram: true, weights: delta}, useRowSpace(in), st.sub(0, 0.75, "XᵀLX"))
	if err != nil {
		return nil, err
	}
	if err := st.checkpoint(ctx, 0.75); err != nil {
		return nil, err
	}
	var cc mat.Dense
	cc.Mul(s.gram, s.gram)
	sym := mat.NewSymDense(s.d, nil)
	symmetrize(&cc, sym)
	sym.ScaleSym(2, sym)
	sym.AddSym(sym, s.wgram)
	e, err := symEigFor(ctx, sym, p, true)
	if err != nil {
		return nil, err
	}
	if e, err = s.up(ctx, e); err != nil {
		return nil, err
	}
	return newFeatureModel("ge-euclid-x", p, e, rankOf(e.values), "number of positive eigenvalues of XᵀLX", s.mean, in.matrix())
}

// rowSums is Σ_j u_ij per row, or Σ_j u_ij² when squares.
func rowSums(u *sparseRows, squares bool) []float64 {
	r := make([]float64, u.rows)
	for i := range u.rows {
		_, val := u.row(i)
		for _, v := range val {
			if squares {
				v *= v
			}
			r[i] += v
		}
	}
	return r
}

func identityScaled(n int, v float64) *mat.SymDense {
	s := mat.NewSymDense(n, nil)
	addDiag(s, v)
	return s
}

// columnMeans is the mean of each column of x.
func columnMeans(x *mat.Dense) []float64 {
	mean, _ := meansOfColumns(context.Background(), x.RawMatrix(), stage{}) // no context to stop: no error
	return mean
}

// memGraph: the sparse labels and per-row sums, the weighted Gram
// Xcᵀdiag(δ)Xc and XcᵀU (D×D, D×c; or N×N-path forms), (XcᵀU)K(XcᵀU)ᵀ and
// its symmetric copy, the decomposition. K = 2I is never formed.
func memGraph(p Params, s Shape) float64 {
	c, nnz := labelColumns(s)
	n := float64(s.N)
	return nnzPlus(s, nnz, 2*n+featureFit("ge-hamming", p, s, rowsFor(s), memSpec{weighted: true, c: c}, func(l *memoryLedger, k float64) float64 {
		l.hold(k*c + 2*k*k)
		l.eig(k)
		return k
	}))
}

// memGEGH is memGraph with K = I + F formed: the label NMI matrix F (q×q,
// three times: the counts, F and K) and K's use (twice).
func memGEGH(p Params, s Shape) float64 {
	c, _ := labelColumns(s)
	return memGraph(p, s) + 5*c*c
}

// memGEEuclidX: the row norms, XcᵀXc and the weighted Gram, C² and its
// symmetric copy, the decomposition.
func memGEEuclidX(p Params, s Shape) float64 {
	n, d := float64(s.N), float64(s.D)
	return 2*n + 2*d + featureFit("ge-euclid-x", p, s, rowsFor(s), memSpec{gram: true, weighted: true}, func(l *memoryLedger, k float64) float64 {
		l.hold(2 * k * k)
		l.eig(k)
		return k
	})
}
