package analysis

import (
	"cmp"
	"context"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// maxNLPP is the largest N lpp accepts. Its neighbour search is exact, so
// it compares every pair of rows: N² distance computations of O(D) each,
// 4·10⁸ at this N. The memory stays O(N·k + N·D + D²) at any N; the time
// is what grows, quadratically.
const maxNLPP = 20000

// maxLPPK bounds lpp's k: the graph keeps N·k edges.
const maxLPPK = 200

// lppScratch bounds, in float64s, the block of distances one worker of the
// neighbour search holds (8 MiB): rows·N ≤ lppScratch.
const lppScratch = 1 << 20

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
// The Basis P (D×D, every direction) satisfies Pᵀ(XcᵀD_WXc + εI)P = I.
//
// μ lies in [−1, 1]. A direction with μ ≤ 0 (λ ≥ 1) keeps neighbours no
// closer than values given to the rows at random would, so the Rank, the
// largest d, counts the positive μ (above rankTol·μ₁, as rankOf does),
// and thr shares out their sum. The resolved k, γ and ε are stored in the
// model's Params.
//
// No N×N matrix is formed. The exact neighbour search (lppNeighbours)
// takes O(N²·D) time, in parallel over blocks of rows; W is kept as
// neighbour lists; XcᵀWXc = Xcᵀ(W·Xc) with the sparse W·Xc, and
// XcᵀD_WXc, take O(N·k·D + N·D²), and the eigenproblem O(D³). Memory is
// O(N·k + N·D + D²) plus a block of distances per search worker. Fit
// refuses N above maxNLPP.
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
	xc := lppCentre(in.X, mean)
	nn, err := lppNeighbours(ctx, in.X, xc, k, lppSearchRows(n), st.sub(0.02, 0.85, "neighbours"))
	if err != nil {
		return nil, err
	}
	if gamma == 0 {
		gamma = nn.defaultGamma()
	}
	if err := st.sub(0.85, 0.87, "graph").checkpoint(ctx, 0); err != nil {
		return nil, err
	}
	w := nn.graph(gamma)
	a, b, err := lppMatrices(ctx, xc, w, st.sub(0.87, 0.97, "XᵀWX and XᵀDX"))
	if err != nil {
		return nil, err
	}
	if ridge < 0 {
		ridge = 1e-4 * meanDiag(b)
	}
	addDiag(b, ridge)
	if err := st.sub(0.97, 1, "eigen-decomposition").checkpoint(ctx, 0); err != nil {
		return nil, err
	}
	l, err := cholesky(b, ParamRidge, "XcᵀD_WXc + εI")
	if err != nil {
		return nil, err
	}
	e, err := genEig(a, l)
	if err != nil {
		return nil, err
	}
	p.K, p.Gamma, p.Ridge = k, Float(gamma), Float(ridge)
	return newFeatureModel("lpp", p, e, rankOf(e.values), "number of positive eigenvalues of the LPP problem", mean, in.X)
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

// lppSearchRows is how many rows one block of the neighbour search takes:
// blockRows, or fewer so that their distances to all N rows fit in
// lppScratch.
func lppSearchRows(n int) int {
	return max(1, min(blockRows, lppScratch/n))
}

// lppKNN holds the k nearest neighbours of every row.
type lppKNN struct {
	n, k int
	// idx[i*k:(i+1)*k] are the neighbours of row i, nearest first, equal
	// distances by lower index.
	idx []int32
	// dist holds their squared distances, lppDist of the rows of X.
	dist []float64
}

// lppDist is the squared Euclidean distance of two rows, summed in order.
// It is the distance that defines the neighbours, ties included, and the
// one the weights use; it is exactly symmetric. The conversion rounds each
// square, so that no fused multiply-add makes the result depend on the
// compiler.
func lppDist(a, b []float64) float64 {
	s := 0.0
	for t, v := range a {
		d := v - b[t]
		s += float64(d * d)
	}
	return s
}

// lppSearch is the shared, read-only state of a neighbour search, and its
// output, whose rows each block owns.
type lppSearch struct {
	x, xc blas64.General
	norm  []float64 // ‖xc_i‖²
	// tol·(‖xc_i‖² + ‖xc_j‖²) bounds how far the Gemm distance of i and j
	// can be from lppDist of them (see block).
	tol float64
	out *lppKNN
}

// lppCand is a candidate neighbour.
type lppCand struct {
	d float64
	j int32
}

// lppNeighbours finds the k nearest neighbours of every row of x, by
// lppDist, ties by lower index, without an N×N matrix. Blocks of rows rows
// are compared with all N rows through one Gemm on the centred rows xc
// (‖a‖² + ‖b‖² − 2aᵀb, negatives clamped at 0), by a bounded number of
// workers (GOMAXPROCS) that each own the output rows of their block. The
// Gemm distances only shortlist: every row whose Gemm distance could,
// within its rounding error, be among the k smallest is measured again
// with lppDist, and the k smallest of those are kept, so the result is the
// exact one, independent of rounding, of the blocks and of the workers.
// Memory: O(N·k) for the output, rows·N per worker. Progress is reported,
// and ctx checked, from the calling goroutine as blocks finish.
func lppNeighbours(ctx context.Context, x, xc *mat.Dense, k, rows int, st stage) (*lppKNN, error) {
	n, d := xc.Dims()
	s := &lppSearch{
		x: x.RawMatrix(), xc: xc.RawMatrix(), norm: make([]float64, n),
		// The Gemm distance, the centring and lppDist each err by at most
		// about (D+3)·u·(‖a‖² + ‖b‖²) (u the unit roundoff, 2⁻⁵³): twice
		// that total is a safe bound.
		tol: 8 * float64(d+4) * 0x1p-53,
		out: &lppKNN{n: n, k: k, idx: make([]int32, n*k), dist: make([]float64, n*k)},
	}
	for i := range n {
		row := s.xc.Data[i*s.xc.Stride : i*s.xc.Stride+d]
		v := 0.0
		for _, a := range row {
			v += float64(a * a)
		}
		if !(v <= math.MaxFloat64/64) {
			return nil, unservable("", 0, "row %d is too large for squared distances; rescale the features", i+1)
		}
		s.norm[i] = v
	}
	blocks := (n + rows - 1) / rows
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var next atomic.Int64
	done := make(chan struct{}, blocks) // never blocks a worker
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), blocks) {
		wg.Go(func() {
			g := make([]float64, rows*n)
			heap := make([]float64, 0, k)
			var cand []lppCand
			for wctx.Err() == nil {
				b := int(next.Add(1)) - 1
				if b >= blocks {
					return
				}
				cand = s.block(b*rows, min((b+1)*rows, n), k, g, heap, cand)
				done <- struct{}{}
			}
		})
	}
	err := st.checkpoint(ctx, 0)
	for finished := 0; err == nil && finished < blocks; {
		select {
		case <-done:
			finished++
			err = st.checkpoint(ctx, float64(finished)/float64(blocks))
		case <-ctx.Done():
			err = ctx.Err()
		}
	}
	cancel()
	wg.Wait()
	if err != nil {
		return nil, err
	}
	return s.out, nil
}

// block finds the neighbours of rows i0…i1−1, with g (≥ (i1−i0)·N), heap
// (capacity k) and cand as scratch; it returns cand for reuse.
//
// For row i, the Gemm distance g_j of row j is within e_j = tol·(‖xc_i‖² +
// ‖xc_j‖²) of lppDist. With T the k-th smallest g_j + e_j, at least k rows
// lie within T, so every true neighbour has g_j − e_j ≤ T: those rows are
// the candidates, measured exactly and sorted by (distance, index).
func (s *lppSearch) block(i0, i1, k int, g, heap []float64, cand []lppCand) []lppCand {
	n, d := s.xc.Rows, s.xc.Cols
	m := i1 - i0
	a := blas64.General{Rows: m, Cols: d, Stride: s.xc.Stride, Data: s.xc.Data[i0*s.xc.Stride:]}
	c := blas64.General{Rows: m, Cols: n, Stride: n, Data: g[:m*n]}
	blas64.Gemm(blas.NoTrans, blas.Trans, 1, a, s.xc, 0, c)
	for r := range m {
		i := i0 + r
		row := c.Data[r*n : (r+1)*n]
		ni := s.norm[i]
		h := heap[:0]
		for j, v := range row {
			dj := max(ni+s.norm[j]-2*v, 0)
			row[j] = dj
			if j != i {
				h = lppPush(h, dj+s.tol*(ni+s.norm[j]), k)
			}
		}
		t := h[0]
		xi := s.x.Data[i*s.x.Stride : i*s.x.Stride+d]
		cand = cand[:0]
		for j, dj := range row {
			if j != i && dj-s.tol*(ni+s.norm[j]) <= t {
				cand = append(cand, lppCand{d: lppDist(xi, s.x.Data[j*s.x.Stride:j*s.x.Stride+d]), j: int32(j)})
			}
		}
		slices.SortFunc(cand, func(p, q lppCand) int {
			return cmp.Or(cmp.Compare(p.d, q.d), cmp.Compare(p.j, q.j))
		})
		for t, cd := range cand[:k] {
			s.out.idx[i*k+t] = cd.j
			s.out.dist[i*k+t] = cd.d
		}
	}
	return cand
}

// lppPush keeps in the max-heap h the k smallest values pushed so far.
func lppPush(h []float64, v float64, k int) []float64 {
	if len(h) < k {
		h = append(h, v)
		for c := len(h) - 1; c > 0; {
			p := (c - 1) / 2
			if h[p] >= h[c] {
				break
			}
			h[p], h[c] = h[c], h[p]
			c = p
		}
		return h
	}
	if v >= h[0] {
		return h
	}
	h[0] = v
	for p := 0; ; {
		c := 2*p + 1
		if c >= len(h) {
			break
		}
		if c+1 < len(h) && h[c+1] > h[c] {
			c++
		}
		if h[p] >= h[c] {
			break
		}
		h[p], h[c] = h[c], h[p]
		p = c
	}
	return h
}

// defaultGamma is 1 over the mean squared distance of the N·k pairs (i,
// j ∈ kNN(i)), or 1 if that mean is 0.
func (nn *lppKNN) defaultGamma() float64 {
	sum := 0.0
	for i := range nn.n {
		row := 0.0
		for _, v := range nn.dist[i*nn.k : (i+1)*nn.k] {
			row += v
		}
		sum += row
	}
	if sum == 0 {
		return 1
	}
	return float64(len(nn.dist)) / sum
}

// graph returns W (N×N, sparse, columns ascending in every row): W_ij =
// exp(−γ·dist) when j ∈ kNN(i) or i ∈ kNN(j). The distance of a pair is
// the same seen from either end, so W is exactly symmetric.
func (nn *lppKNN) graph(gamma float64) *sparseRows {
	n, k := nn.n, nn.k
	ptr := make([]int, n+1)
	for i := range n {
		ptr[i+1] += k
		for _, j := range nn.idx[i*k : (i+1)*k] {
			ptr[j+1]++
		}
	}
	for i := range n {
		ptr[i+1] += ptr[i]
	}
	edges := make([]lppCand, ptr[n])
	fill := slices.Clone(ptr[:n])
	for i := range n {
		for t, j := range nn.idx[i*k : (i+1)*k] {
			dist := nn.dist[i*k+t]
			edges[fill[i]] = lppCand{d: dist, j: j}
			fill[i]++
			edges[fill[j]] = lppCand{d: dist, j: int32(i)}
			fill[j]++
		}
	}
	w := newSparse(n, n)
	for i := range n {
		row := edges[ptr[i]:ptr[i+1]]
		slices.SortFunc(row, func(p, q lppCand) int { return cmp.Compare(p.j, q.j) })
		for t, e := range row {
			if t == 0 || e.j != row[t-1].j {
				w.add(int(e.j), math.Exp(-gamma*e.d))
			}
		}
		w.endRow()
	}
	return w
}

// lppMatrices forms A = XcᵀWXc and B = XcᵀD_WXc (both D×D) in blocks of
// rows, never W·Xc whole: for each block, A += Xc_blockᵀ·(W·Xc)_block, the
// sparse rows of W·Xc costing O(k·D) each, and B += SᵀS with S the block's
// rows scaled by √(D_W)_ii.
func lppMatrices(ctx context.Context, xc *mat.Dense, w *sparseRows, st stage) (a, b *mat.SymDense, err error) {
	n, d := xc.Dims()
	xr := xc.RawMatrix()
	acc := mat.NewDense(d, d, nil)
	b = mat.NewSymDense(d, nil)
	wx := make([]float64, blockRows*d)
	sx := make([]float64, blockRows*d)
	for i0 := 0; i0 < n; i0 += blockRows {
		rows := min(blockRows, n-i0)
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
