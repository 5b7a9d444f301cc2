package analysis

import (
	"cmp"
	"context"
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"mldr/internal/knn"
)

// maxNLPP is the largest N lpp accepts. Its neighbour search is exact, so
// it compares every pair of rows: N² distance computations of O(D) each,
// 4·10⁸ at this N. The memory stays O(N·k + N·D + D²) at any N; the time
// is what grows, quadratically.
const maxNLPP = 20000

// maxLPPK bounds lpp's k: the graph keeps N·k edges.
const maxLPPK = 200

// fitLPP is locality preserving projections (He & Niyogi, "Locality
// Preserving Projections", NIPS 16, 2003, §2.2; the baseline of seed 000),
// with the product's conventions.
//
// Xc (N×D) is X with its column means removed; the graph and both matrices
// below are computed from it. The graph joins rows i and j when j is one of
// the k nearest neighbours of i, or i one of j's, by Euclidean distance, a
// row never being its own neighbour and equal distances going to the lower
// row index; k = p.K, default DefaultK, and k ≥ N is refused. W (N×N,
// symmetric, zero diagonal) has the heat-kernel weights W_ij =
// exp(−γ‖x_i − x_j‖²) on those edges (the paper's t is 1/γ; its 0/1
// weights are not offered); γ = p.Gamma, or 1 over the mean of
// ‖x_i − x_j‖² over the N·k pairs (i, j ∈ kNN(i)) (1 if that mean is 0).
// D_W = diag(W·1) holds the row sums. Rows whose squared norm, centred,
// would overflow are refused.
//
// The paper's problem (its eq. 1, written with rows as instances) is
// XcᵀLXc a = λ XcᵀD_WXc a with L = D_W − W, smallest λ first. Since
// XcᵀLXc = XcᵀD_WXc − XcᵀWXc, it reads XcᵀWXc a = (1 − λ) XcᵀD_WXc a: the
// same eigenvectors, with μ = 1 − λ, the smallest λ being the largest μ.
// The fit solves the symmetric-definite problem (both matrices D×D)
//
//	XcᵀWXc a = μ (XcᵀD_WXc + εI) a
//
// and keeps the largest μ; with ε > 0 it is the regularised
// (XcᵀLXc + εI) a = λ (XcᵀD_WXc + εI) a, still with μ = 1 − λ. The ridge
// ε = p.Ridge, default 1e-4·trace(XcᵀD_WXc)/D, keeps the right-hand side
// definite when features are constant, collinear or outnumber the rows.
// The Basis P (D×D, every direction) has unit-length columns (normalize =
// unit, the default) or satisfies Pᵀ(XcᵀD_WXc + εI)P = I (normalize = b).
//
// μ lies in [−1, 1]. A direction with μ ≤ 0 (λ ≥ 1) keeps neighbours no
// closer than values given to the rows at random would, so the Rank, the
// largest d, counts the positive μ (above rankTol·μ₁, as rankOf does),
// and thr shares out their sum. The resolved k, γ and ε are stored in the
// model's Params.
//
// No N×N matrix is formed. The exact neighbour search (knn.Search)
// takes O(N²·D) time by blocked distance products, in parallel over
// blocks of rows, or less by a k-d tree where D is small; W is kept as
// neighbour lists; XcᵀWXc = Xcᵀ(W·Xc) with the sparse W·Xc, and
// XcᵀD_WXc, take O(N·k·D + N·D²), and the eigenproblem O(D³). Memory is
// O(N·k + N·D + D²) plus the search's (knn.EstimateMemory). Fit
// refuses N above maxNLPP. With fewer rows than features both matrices are
// formed from the rows of Xc in its row space and the problem solved there
// (rowspace.go), exactly, in O(N·D·N + N³) and O(N·D + N²) memory; a ridge
// of 0 is refused then (the right-hand matrix would be singular).
func fitLPP(ctx context.Context, in Input, p Params, st stage) (*Model, error) {
	n, _ := in.X.Dims()
	k := p.K
	if k == 0 {
		k = DefaultK
	}
	if k > maxLPPK {
		return nil, invalid(ParamK, "k may be at most %d (the graph keeps N·k edges); %d is too many", maxLPPK, k)
	}
	if k >= n {
		return nil, unservable(ParamK, n-1, "k = %d neighbours needs more than %d rows; with %d rows k may be at most %d", k, k, n, n-1)
	}
	var gamma float64 // 0: from the neighbour distances
	if p.Gamma != nil {
		g, err := positive(ParamGamma, p.Gamma, 0)
		if err != nil {
			return nil, err
		}
		gamma = g
	}
	ridge, err := nonNegative(ParamRidge, p.Ridge, -1) // −1: from the data
	if err != nil {
		return nil, err
	}

	if err := ctx.Err(); err != nil {
		return nil, err
	}
	mean := columnMeans(in.X)
	search := st.sub(0.02, 0.85, "neighbours")
	nn, err := knn.Search(ctx, in.X, in.X, k, true, search.at)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, unservable("", 0, "%v", err)
	}
	if gamma == 0 {
		gamma = lppDefaultGamma(nn)
	}
	if err := st.sub(0.85, 0.87, "graph").checkpoint(ctx, 0); err != nil {
		return nil, err
	}
	w := lppGraph(nn, gamma)
	// Xc, or on the N×N path (rowspace.go) its rows in the basis of its row
	// space: XcᵀWXc = Q(UᵀWU)Qᵀ, and so for D_W.
	var rs *rowSpace
	var xc *mat.Dense
	if useRowSpace(in) {
		if rs, err = newRowSpace(ctx, in.X, mean, st.sub(0.85, 0.87, "row space")); err != nil {
			return nil, err
		}
		xc = rs.coords
	} else {
		xc = lppCentre(in.X, mean)
	}
	a, b, err := lppMatrices(ctx, xc, w, st.sub(0.87, 0.97, "XᵀWX and XᵀDX"))
	if err != nil {
		return nil, err
	}
	_, dim := in.X.Dims()
	if ridge < 0 {
		ridge = 1e-4 * meanDiag(b) * float64(b.SymmetricDim()) / float64(dim) // trace/D on either path
	}
	if rs != nil && dim >= n && ridge == 0 {
		return nil, unservable(ParamRidge, 0, "XcᵀD_WXc + εI is singular on these data (%d rows, %d features: its rank is at most %d); give a %s greater than 0",
			n, dim, n-1, ParamRidge)
	}
	addDiag(b, ridge)
	if err := st.sub(0.97, 1, "eigen-decomposition").checkpoint(ctx, 0); err != nil {
		return nil, err
	}
	l, err := cholesky(b, ParamRidge, "XcᵀD_WXc + εI")
	if err != nil {
		return nil, err
	}
	e, err := genEig(ctx, a, l, p, false) // μ ∈ [−1, 1]: indefinite
	if err != nil {
		return nil, err
	}
	if rs != nil {
		if e.vectors, err = rs.lift(ctx, e.vectors); err != nil {
			return nil, err
		}
	}
	p.Normalize = normalizeDirections(e.vectors, p)
	p.K, p.Gamma, p.Ridge = k, Float(gamma), Float(ridge)
	return newFeatureModel("lpp", p, e, rankOf(e.values), "number of positive eigenvalues of the LPP problem", mean, in.matrix())
}

// lppCentre returns Xc = X − 1·meanᵀ (N×D).
func lppCentre(x *mat.Dense, mean []float64) *mat.Dense {
	n, d := x.Dims()
	xc := mat.NewDense(n, d, nil)
	raw, cr := x.RawMatrix(), xc.RawMatrix()
	for i := range n {
		src := raw.Data[i*raw.Stride : i*raw.Stride+d]
		dst := cr.Data[i*cr.Stride : i*cr.Stride+d]
		for j, v := range src {
			dst[j] = v - mean[j]
		}
	}
	return xc
}

// lppEdge is one end of a graph edge.
type lppEdge struct {
	d float64
	j int32
}

// defaultGamma is 1 over the mean squared distance of the N·k pairs (i,
// j ∈ kNN(i)), or 1 if that mean is 0.
func lppDefaultGamma(nn *knn.Neighbours) float64 {
	sum := 0.0
	for i := range nn.Queries {
		row := 0.0
		for _, v := range nn.Dist[i*nn.K : (i+1)*nn.K] {
			row += v
		}
		sum += row
	}
	if sum == 0 {
		return 1
	}
	return float64(len(nn.Dist)) / sum
}

// graph returns W (N×N, sparse, columns ascending in every row): W_ij =
// exp(−γ·dist) when j ∈ kNN(i) or i ∈ kNN(j). The distance of a pair is
// the same seen from either end, so W is exactly symmetric.
func lppGraph(nn *knn.Neighbours, gamma float64) *sparseRows {
	n, k := nn.Queries, nn.K
	ptr := make([]int, n+1)
	for i := range n {
		ptr[i+1] += k
		for _, j := range nn.Index[i*k : (i+1)*k] {
			ptr[j+1]++
		}
	}
	for i := range n {
		ptr[i+1] += ptr[i]
	}
	edges := make([]lppEdge, ptr[n])
	fill := slices.Clone(ptr[:n])
	for i := range n {
		for t, j := range nn.Index[i*k : (i+1)*k] {
			dist := nn.Dist[i*k+t]
			edges[fill[i]] = lppEdge{d: dist, j: j}
			fill[i]++
			edges[fill[j]] = lppEdge{d: dist, j: int32(i)}
			fill[j]++
		}
	}
	w := newSparse(n, n)
	for i := range n {
		row := edges[ptr[i]:ptr[i+1]]
		slices.SortFunc(row, func(p, q lppEdge) int { return cmp.Compare(p.j, q.j) })
		for t, e := range row {
			if t == 0 || e.j != row[t-1].j {
				w.add(int(e.j), math.Exp(-gamma*e.d))
			}
		}
		w.endRow()
	}
	return w
}

// lppBlockRows is the rows lppMatrices handles at once.
const lppBlockRows = 256

// lppMatrices forms A = XcᵀWXc and B = XcᵀD_WXc (both D×D) in blocks of
// rows, never W·Xc whole: for each block, A += Xc_blockᵀ·(W·Xc)_block, the
// sparse rows of W·Xc costing O(k·D) each, and B += SᵀS with S the block's
// rows scaled by √(D_W)_ii.
func lppMatrices(ctx context.Context, xc *mat.Dense, w *sparseRows, st stage) (a, b *mat.SymDense, err error) {
	n, d := xc.Dims()
	xr := xc.RawMatrix()
	acc := mat.NewDense(d, d, nil)
	b = mat.NewSymDense(d, nil)
	wx := make([]float64, lppBlockRows*d)
	sx := make([]float64, lppBlockRows*d)
	for i0 := 0; i0 < n; i0 += lppBlockRows {
		rows := min(lppBlockRows, n-i0)
		for r := range rows {
			i := i0 + r
			src := xr.Data[i*xr.Stride : i*xr.Stride+d]
			dst := wx[r*d : (r+1)*d]
			clear(dst)
			idx, val := w.row(i)
			deg := 0.0
			for t, j := range idx {
				axpy(val[t], xr.Data[int(j)*xr.Stride:int(j)*xr.Stride+d], dst)
				deg += val[t]
			}
			sq := math.Sqrt(deg)
			for c, v := range src {
				sx[r*d+c] = sq * v
			}
		}
		xb := blas64.General{Rows: rows, Cols: d, Stride: xr.Stride, Data: xr.Data[i0*xr.Stride:]}
		blas64.Gemm(blas.Trans, blas.NoTrans, 1, xb, blas64.General{Rows: rows, Cols: d, Stride: d, Data: wx}, 1, acc.RawMatrix())
		blas64.Syrk(blas.Trans, 1, blas64.General{Rows: rows, Cols: d, Stride: d, Data: sx}, 1, b.RawSymmetric())
		if err := st.checkpoint(ctx, float64(i0+rows)/float64(n)); err != nil {
			return nil, nil, err
		}
	}
	a = mat.NewSymDense(d, nil)
	symmetrize(acc, a)
	return a, b, nil
}

// memLPP: the exact neighbour search (knn.EstimateMemory: a packed centred
// copy of X and O(N) per worker, or where D is small a k-d tree, a copy
// of X and O(N)), the graph (2·N·k edges, kept as
// sparse rows), Xc (N×D) or on the N×N path the D×N reflectors, the two
// matrices XcᵀWXc and XcᵀD_WXc (and the unsymmetrised accumulator) of
// order D (or N), the Cholesky factor, genEig; then the model.
func memLPP(p Params, s Shape) float64 {
	l := newLedger()
	n, d := float64(s.N), float64(s.D)
	kn := float64(cmp.Or(p.K, DefaultK))
	l.burst((2*l.gang(n, blockRows) + 1) * d)
	l.hold(d)
	l.burst(float64(knn.EstimateMemory(s.N, s.N, s.D, int(kn), true)) / 8)
	l.hold(1.5 * n * kn)           // the neighbours
	l.hold(n + 1 + 4*n*kn + n)     // the graph's edges and pointers
	l.hold(2*1.5*2*n*kn + 2*n + 2) // W's sparse rows
	k := d
	if rowsFor(s) {
		k = min(n, d)
		l.rowSpace(n, d)
	} else {
		l.hold(n * d)
	}
	l.hold(3*k*k + 2*float64(lppBlockRows)*k)
	l.chol(k)
	l.genEig(k)
	if rowsFor(s) {
		l.lift(d, k)
	}
	l.featureModel(n, d, min(chosenDim("lpp", p, s), k))
	return l.peak
}
