package analysis

import (
	"context"
	"math"
	"sync"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"mldr/internal/linalg"
	"mldr/internal/sparse"
)

// The matrix-free route. For sparse X with many features, the D×D matrix
// of pca (XcᵀXc) or mvmd (Xcᵀ((1−β)I + 4β·YcYcᵀ)Xc) costs 8·D² bytes —
// 200 MB at D = 5 000, against 24 MB for 20 000 rows at 2 % — while its
// product with a block V of b vectors costs O(nnz·b) from the rows:
//
//	U = Xc·V = X·V − 1·(μᵀV)                       (sparse.Mul),
//	Z = (1−β)·U + 4β·Lc(LcᵀU)                       (mvmd; pca: Z = U),
//	A·V = Xcᵀ·Z = Xᵀ·Z − μ·(1ᵀZ)                   (sparse.TMulDense),
//
// so the k leading pairs come from linalg.SymEigTopOp (the Krylov–Schur
// iteration of SymEigTop on the operator) without forming the matrix, and
// the trace for Total and Energy from Σ_j ‖x_j − μ_j‖² (and for mvmd
// 4·‖XcᵀLc‖²_F, a block of rows at a time: sparse.TMulRows).
//
// # When
//
// matrixFree chooses the route when all of these hold:
//
//   - X is sparse (on either path: N ≥ D, or fewer rows than features,
//     where the alternative is the N×N path's dense D×N factorisation);
//   - the fit needs the k leading pairs of a known k (d or MaxDim; not
//     thr, which needs every eigenvalue), with 2k < D and
//     linalg.TopIterates(D, k) (otherwise the direct method would form the
//     matrix anyway);
//   - memory: the D×D matrix would take more than the sparse features
//     (8·D² > X.Bytes()): below that the Gram costs little and is faster;
//   - cost: the products, 4·nnz multiply-adds a vector, for the
//     opColumns·(k + 8) vectors an iteration typically takes, cost less
//     than opSlack times forming the Gram (Σ_i nnz_i²/2) and applying it
//     (2·D² a vector, at gemm's speed, about opGemmSpeed times the sparse
//     kernels');
//   - no feature has a mean so large next to its spread that the
//     subtraction of μ loses digits (badColumns: κ_a > maxCancellation),
//     which the Gram route repairs and the operator would not.
//
// On the wide benchmark set (20 000 × 5 000 at 2 %, d = 20) every
// condition holds and the route is taken.
const (
	// opColumns is the number of blocks of vectors an iteration typically
	// applies A to, for the cost rule.
	opColumns = 10
	// opGemmSpeed is how many times faster a dense product runs, per
	// multiply-add, than the sparse kernels' scattered ones.
	opGemmSpeed = 4
	// opSlack is how much slower than the Gram route the matrix-free one
	// may be predicted to be and still be taken for the memory it saves.
	opSlack = 2
)

// routeChoice forces the matrix-free route or the Gram route where both
// are possible, for tests that compare them on the same data; the zero
// value chooses by memory and cost.
type routeChoice int

const (
	routeAuto routeChoice = iota
	routeGram
	routeFree
)

// opPhase is the name of the progress stage of the matrix-free
// eigen-decomposition.
const opPhase = "eigen-decomposition (matrix-free)"

// matrixFree reports whether a fit of a positive semi-definite D×D matrix
// built from in's sparse features takes the matrix-free route (see above),
// and the k pairs it computes. It checks everything but the cancellation
// (badColumns, after the means).
func matrixFree(in Input, p Params) (k int, ok bool) {
	x := in.Sparse
	if x == nil || in.route == routeGram || in.path == pathRows {
		return 0, false
	}
	return freeRule(x.R, x.C, int64(x.NNZ()), p, in.route == routeFree)
}

// freeRule is matrixFree's rule on a shape: n rows, d features, nnz
// entries; forced skips the memory and cost conditions. The route it is
// weighed against is the D×D Gram when n ≥ d, else the N×N path
// (rowspace.go), whose dense D×N reflectors cost 8·D·N bytes and whose
// QR about 2·D·N² multiply-adds at gemm's speed: on 59 312 rows of
// 203 882 sparse features (AmazonCat-13K's shape at a twentieth) that
// is 97 GB, where the sparse rows hold 50 MB.
func freeRule(n, d int, nnz int64, p Params, forced bool) (k int, ok bool) {
	if k, ok = iteratedTop(p, d); !ok {
		return 0, false
	}
	if forced {
		return k, true
	}
	df, nf, nz := float64(d), float64(n), float64(nnz)
	vectors := float64(opColumns * (k + 8))
	opCost := vectors * 4 * nz
	if n < d {
		if 8*df*nf <= float64(sparse.SparseBytes(n, nnz)) {
			return 0, false
		}
		return k, opCost <= opSlack*2*df*nf*nf/opGemmSpeed
	}
	if 8*df*df <= float64(sparse.SparseBytes(n, nnz)) {
		return 0, false
	}
	perRow := nz / float64(max(n, 1))
	gramCost := nz*(perRow+1)/2 + vectors*2*df*df/opGemmSpeed
	return k, opCost <= opSlack*gramCost
}

// iteratedTop is the k leading pairs p asks of a matrix of order n, and
// whether the block Krylov iteration computes them without the matrix's
// whole decomposition: k known (d or MaxDim; not thr, which needs every
// eigenvalue, nor every pair), topMinSaving·k < n and
// linalg.TopIterates(n, k). The routes that apply an operator need it:
// otherwise the solver would form the matrix anyway.
func iteratedTop(p Params, n int) (k int, ok bool) {
	w := needOf(p)
	k = min(w.k, n)
	if w.all || w.thr > 0 || k < 1 || topMinSaving*k >= n || !linalg.TopIterates(n, k) {
		return 0, false
	}
	return k, true
}

// memFree follows fitMatrixFree on the ledger: the means and the
// cancellation check (as sparseStats), the trace's two d-vectors, for mvmd
// the blocks of XᵀL for its labels columns (a cursor a row and a block of
// up to 2 MiB per worker, the labels' row pointers), then the iteration (linalg.SymEigTopOp): the
// basis and its products (2·m·D for the m of each of its two block
// shapes), the projections (m²), the Ritz vectors at a restart, the
// operator's two N×b blocks and its per-worker sums ((workers − 1)·D·b)
// and the vectors (D·k).
//
// On the rows' side (order N) the products hold a D×b block and the
// iteration N-long vectors; on the labels' side (order c) they hold N×b
// and D×b blocks, the labels' CSR copy, and the iteration c-long vectors;
// on both the lifted directions (D×k) and their N×k images follow.
func (l *memoryLedger) memFree(n, d, k, labels float64, side freeSide) {
	l.burst((math.Ceil(n/4096) + 1) * d)
	l.hold(d)
	l.burst(3 * d)
	l.burst(2 * d)
	if labels > 0 {
		l.hold(d)
		l.burst(l.workers*(n+min(d*labels, (1<<21)/8)) + n + 1)
		l.drop(d)
	}
	switch side {
	case sideRows:
		l.topOp(d/2, n, k)
		l.burst(n * k)
	case sideLabels:
		l.hold(1.5*n + 1) // the labels' CSR: a pointer a row, 12 bytes a one (n counts them)
		l.topOp(n+d/2, labels, k)
		l.burst(2 * n * k)
	default:
		l.topOp(n, d, k)
		return
	}
	l.hold(d * k)
}

// topOp follows linalg.SymEigTopOp for k pairs of an operator of order d
// whose products hold two n×b blocks: both shapes it may try, the first's
// buffers garbage while the second's are live (its block of 8 with 16 a
// cycle and k + 24 kept, SymEigTop's b = k + max(8, k/4) with 4), the Ritz vectors at a
// restart with per-worker sums of the products ((workers − 1)·d·b), and
// the vectors (d·k).
func (l *memoryLedger) topOp(n, d, k float64) {
	b1, b2 := 8.0, k+max(8, math.Floor(k/4))
	m1 := min(d, k+24+16*b1)
	m2 := min(d, k+math.Floor(b2/2)+4*b2)
	l.hold(2*(m1+m2)*d + m1*m1 + m2*m2 + (b1+b2)*(d+m2) + 2*n*(b1+b2))
	l.burst(2*(k+b2/2)*d + (l.workers-1)*d*b2 + n + 1)
	l.hold(d * k)
}

// covOp is the operator A·V = Xcᵀ(alpha·I + gamma·LcLcᵀ)Xc·V of the
// matrix-free route (labels nil: A = alpha·XcᵀXc).
type covOp struct {
	x            *sparse.CSR
	mean         []float64
	labels       *sparseRows
	labelMean    []float64
	alpha, gamma float64
}

// linalgOp is o as a linalg.SymOp on the features' side (order D).
func (o *covOp) linalgOp() linalg.SymOp {
	n, d := o.x.Dims()
	cost := 4 * float64(o.x.NNZ())
	if o.labels != nil {
		cost += 4 * float64(len(o.labels.idx))
	}
	var u, z []float64
	var mu sync.Mutex // SymEigTopOp applies one block at a time; the lock keeps the buffers safe anyway
	return linalg.SymOp{N: d, Cost: cost, Apply: func(ctx context.Context, v, av blas64.General) error {
		mu.Lock()
		defer mu.Unlock()
		b := v.Cols
		if len(u) < n*b {
			u, z = make([]float64, n*b), make([]float64, n*b)
		}
		ug := blas64.General{Rows: n, Cols: b, Stride: b, Data: u[:n*b]}
		if err := centredMul(ctx, o.x, o.mean, v, ug); err != nil { // U = Xc·V
			return err
		}
		zg := blas64.General{Rows: n, Cols: b, Stride: b, Data: z[:n*b]}
		o.combine(ug, zg)
		if err := centredTMul(ctx, o.x, o.mean, zg, av); err != nil { // A·V = XcᵀZ
			return err
		}
		return ctx.Err()
	}}
}

// rowsOp is alpha·XcXcᵀ (order N) as a linalg.SymOp: pca's matrix on
// the rows' side, whose non-zero eigenvalues are alpha·XcᵀXc's.
func (o *covOp) rowsOp() linalg.SymOp {
	return centredRowsOp(o.x, o.mean, o.alpha, 4*float64(o.x.NNZ()))
}

// centredRowsOp is scale·XcXcᵀ (order N, Xc = X − 1·meanᵀ) as a
// linalg.SymOp for x in CSR form: Xcᵀ·V, then Xc of it (centredTMul,
// centredMul); cost is the flops of a product with one vector.
func centredRowsOp(x *sparse.CSR, mean []float64, scale, cost float64) linalg.SymOp {
	n, d := x.Dims()
	var t []float64
	var mu sync.Mutex // SymEigTopOp applies one block at a time; the lock keeps the buffer safe anyway
	return linalg.SymOp{N: n, Cost: cost, Apply: func(ctx context.Context, v, av blas64.General) error {
		mu.Lock()
		defer mu.Unlock()
		b := v.Cols
		if len(t) < d*b {
			t = make([]float64, d*b)
		}
		tg := blas64.General{Rows: d, Cols: b, Stride: b, Data: t[:d*b]}
		if err := centredTMul(ctx, x, mean, v, tg); err != nil { // Xcᵀ·V
			return err
		}
		if err := centredMul(ctx, x, mean, tg, av); err != nil { // Xc·(XcᵀV)
			return err
		}
		scaleBlock(av, scale)
		return ctx.Err()
	}}
}

// scaleBlock multiplies the n×b block a by f.
func scaleBlock(a blas64.General, f float64) {
	if f == 1 {
		return
	}
	for i := range a.Rows {
		row := a.Data[i*a.Stride : i*a.Stride+a.Cols]
		for t := range row {
			row[t] *= f
		}
	}
}

// labelsOp is gamma·FᵀF = gamma·LcᵀXcXcᵀLc (order c) as a
// linalg.SymOp: mddmp's matrix FFᵀ (F = XcᵀLc, gamma 1) on the labels'
// side, the same non-zero eigenvalues; l is the labels in CSR form.
func (o *covOp) labelsOp(l *sparse.CSR) linalg.SymOp {
	n, d := o.x.Dims()
	var w, t, s []float64
	var mu sync.Mutex
	return linalg.SymOp{N: l.C, Cost: 4*float64(o.x.NNZ()) + 4*float64(l.NNZ()), Apply: func(ctx context.Context, v, av blas64.General) error {
		mu.Lock()
		defer mu.Unlock()
		b := v.Cols
		if len(w) < n*b {
			w, s = make([]float64, n*b), make([]float64, n*b)
		}
		if len(t) < d*b {
			t = make([]float64, d*b)
		}
		wg := blas64.General{Rows: n, Cols: b, Stride: b, Data: w[:n*b]}
		tg := blas64.General{Rows: d, Cols: b, Stride: b, Data: t[:d*b]}
		sg := blas64.General{Rows: n, Cols: b, Stride: b, Data: s[:n*b]}
		if err := centredMul(ctx, l, o.labelMean, v, wg); err != nil { // Lc·V
			return err
		}
		if err := centredTMul(ctx, o.x, o.mean, wg, tg); err != nil { // F·V
			return err
		}
		if err := centredMul(ctx, o.x, o.mean, tg, sg); err != nil {
			return err
		}
		if err := centredTMul(ctx, l, o.labelMean, sg, av); err != nil { // FᵀF·V
			return err
		}
		scaleBlock(av, o.gamma)
		return nil
	}}
}

// centredMul sets out = (X − 1·meanᵀ)·v = X·v − 1·(meanᵀv) (N×b).
func centredMul(ctx context.Context, x *sparse.CSR, mean []float64, v, out blas64.General) error {
	if err := sparse.Mul(ctx, x, v, out); err != nil {
		return err
	}
	b := v.Cols
	mv := make([]float64, b)
	for j, m := range mean {
		if m != 0 {
			for t, x := range v.Data[j*v.Stride : j*v.Stride+b] {
				mv[t] += m * x
			}
		}
	}
	for i := range out.Rows {
		row := out.Data[i*out.Stride : i*out.Stride+b]
		for t := range row {
			row[t] -= mv[t]
		}
	}
	return nil
}

// centredTMul sets out = (X − 1·meanᵀ)ᵀ·w = Xᵀw − mean·(1ᵀw) (C×b).
func centredTMul(ctx context.Context, x *sparse.CSR, mean []float64, w, out blas64.General) error {
	if err := sparse.TMulDense(ctx, x, w, out); err != nil {
		return err
	}
	b := w.Cols
	sw := make([]float64, b)
	for i := range w.Rows {
		for t, x := range w.Data[i*w.Stride : i*w.Stride+b] {
			sw[t] += x
		}
	}
	for j, m := range mean {
		if m != 0 {
			row := out.Data[j*out.Stride : j*out.Stride+b]
			for t := range row {
				row[t] -= m * sw[t]
			}
		}
	}
	return nil
}

// freeSide is the order the matrix-free route iterates on. The matrix
// Xcᵀ·M·Xc (order D) shares its non-zero eigenvalues with XcXcᵀ (order
// N; pca, M = I) and with FᵀF = LcᵀXcXcᵀLc (order c; mddmp, M = LcLcᵀ),
// and the iteration's orthogonalisation costs order·m² a restart (m its
// basis's width, about 2k): on 1 186 rows of 203 882 features
// (AmazonCat-13K's shape at a thousandth) pca at d = 100 did not finish in
// 5 minutes on the order D; on the rows' side it takes seconds. The
// directions are lifted back: Xcᵀu/‖Xcᵀu‖, or Xcᵀ(Lc·u)/‖…‖.
type freeSide int

const (
	sideFeatures freeSide = iota
	sideRows
	sideLabels
)

// chooseSide picks the smallest order the matrix can be iterated on: the
// rows' when there are no labels (pca) and fewer rows than features, the
// labels' when the features' term is absent (alpha 0: mddmp) and there
// are fewer label columns than features; else the features'.
func chooseSide(n, d, c int, alpha float64) freeSide {
	switch {
	case c == 0 && n < d:
		return sideRows
	case c > 0 && alpha == 0 && c < d:
		return sideLabels
	}
	return sideFeatures
}

// liftFree turns the eigenvectors u of a side's matrix into directions of
// the features: Xcᵀu (rows' side) or Xcᵀ(Lc·u) (labels' side), each
// scaled to unit length, with the sign convention of the other routes.
func liftFree(ctx context.Context, o *covOp, side freeSide, l *sparse.CSR, u *mat.Dense) (*mat.Dense, error) {
	n, d := o.x.Dims()
	_, k := u.Dims()
	w := u.RawMatrix()
	if side == sideLabels {
		lw := mat.NewDense(n, k, nil)
		if err := centredMul(ctx, l, o.labelMean, w, lw.RawMatrix()); err != nil {
			return nil, err
		}
		w = lw.RawMatrix()
	}
	p := mat.NewDense(d, k, nil)
	if err := centredTMul(ctx, o.x, o.mean, w, p.RawMatrix()); err != nil {
		return nil, err
	}
	unitColumns(p)
	return p, nil
}

// unitColumns scales each non-zero column of p to unit length and gives
// the columns the sign convention of the other routes (fixSigns): the
// directions lifted from another side's eigenvectors.
func unitColumns(p *mat.Dense) {
	_, k := p.Dims()
	for j := range k {
		c := p.ColView(j).(*mat.VecDense)
		if nrm := mat.Norm(c, 2); nrm > 0 {
			c.ScaleVec(1/nrm, c)
		}
	}
	fixSigns(p)
}

// combine sets z = alpha·u + gamma·Lc(Lcᵀu) (n×b, contiguous).
func (o *covOp) combine(u, z blas64.General) {
	b := u.Cols
	for i, x := range u.Data {
		z.Data[i] = o.alpha * x
	}
	if o.labels == nil || o.gamma == 0 {
		return
	}
	c := o.labels.cols
	// W = Lcᵀu = Lᵀu − l̄·(1ᵀu)   (c×b).
	w := make([]float64, c*b)
	su := make([]float64, b)
	for i := range u.Rows {
		row := u.Data[i*b : (i+1)*b]
		for t, x := range row {
			su[t] += x
		}
		idx, val := o.labels.row(i)
		for m, j := range idx {
			dst := w[int(j)*b : (int(j)+1)*b]
			for t, x := range row {
				dst[t] += val[m] * x
			}
		}
	}
	lw := make([]float64, b) // l̄ᵀW
	for j, lm := range o.labelMean {
		dst := w[j*b : (j+1)*b]
		for t := range dst {
			dst[t] -= lm * su[t]
			lw[t] += lm * dst[t]
		}
	}
	// z += gamma·(L·W − 1·(l̄ᵀW)).
	for i := range u.Rows {
		row := z.Data[i*b : (i+1)*b]
		for t := range row {
			row[t] -= o.gamma * lw[t]
		}
		idx, val := o.labels.row(i)
		for m, j := range idx {
			g := o.gamma * val[m]
			for t, x := range w[int(j)*b : (int(j)+1)*b] {
				row[t] += g * x
			}
		}
	}
}

// centredTrace is tr(XcᵀXc) = Σ_j Σ_i (x_ij − μ_j)², from the non-zeros
// (centred) and the zeros' count (μ_j² each).
func centredTrace(x *sparse.CSR, mean []float64) float64 {
	n, d := x.Dims()
	cen := make([]float64, d)
	count := make([]int, d)
	for k, j := range x.Ind {
		c := x.Val[k] - mean[j]
		cen[j] += c * c
		count[j]++
	}
	t := 0.0
	for j := range d {
		t += cen[j] + float64(n-count[j])*mean[j]*mean[j]
	}
	return t
}

// crossSqNorm is ‖XcᵀLc‖²_F = Σ_aj ((XᵀL)_aj − N·μ_a·l̄_j)², from the
// blocks of rows of XᵀL (never the whole D×c matrix), summed in the order
// of the rows.
func crossSqNorm(ctx context.Context, x *sparse.CSR, mean []float64, l *sparse.CSR, labelMean []float64) (float64, error) {
	n := float64(x.R)
	parts := make([]float64, x.C) // by the first row of each block
	err := sparse.TMulRows(ctx, x, l, func(a0 int, rows blas64.General) error {
		s := 0.0
		for r := range rows.Rows {
			nm := n * mean[a0+r]
			for j, v := range rows.Data[r*rows.Stride : r*rows.Stride+rows.Cols] {
				c := v - nm*labelMean[j]
				s += c * c
			}
		}
		parts[a0] = s // blocks are disjoint: each a0 is written once
		return nil
	})
	if err != nil {
		return 0, err
	}
	t := 0.0
	for _, v := range parts {
		t += v
	}
	return t, nil
}

// fitMatrixFree is the matrix-free route of pca (labels nil, alpha 1) and
// mvmd: the column means, the cancellation check (a bad feature sends the
// fit back to the Gram route: ok false), the trace, and the k leading pairs
// of the operator.
func fitMatrixFree(ctx context.Context, in Input, k int, labels *sparseRows, alpha, gamma float64, st stage) (e eigenResult, mean []float64, ok bool, err error) {
	x := in.Sparse
	if mean, err = sparseMeans(ctx, x); err != nil {
		return eigenResult{}, nil, false, err
	}
	if len(badColumns(x, mean)) > 0 {
		return eigenResult{}, nil, false, nil
	}
	if err := st.checkpoint(ctx, 0.02); err != nil {
		return eigenResult{}, nil, false, err
	}
	op := &covOp{x: x, mean: mean, alpha: alpha, gamma: gamma}
	total := alpha * centredTrace(x, mean)
	if labels != nil && gamma != 0 {
		op.labels = labels
		op.labelMean = make([]float64, labels.cols)
		for i := range labels.rows {
			idx, val := labels.row(i)
			for m, j := range idx {
				op.labelMean[j] += val[m]
			}
		}
		for j := range op.labelMean {
			op.labelMean[j] /= float64(labels.rows)
		}
		sq, err := crossSqNorm(ctx, x, mean, labels.csr(), op.labelMean)
		if err != nil {
			return eigenResult{}, nil, false, err
		}
		total += gamma * sq
	}
	est := st.sub(0.05, 1, opPhase)
	est.at(0)
	c := 0
	if op.labels != nil {
		c = op.labels.cols
	}
	side := chooseSide(x.R, x.C, c, alpha)
	var lcsr *sparse.CSR
	lop := op.linalgOp()
	switch side {
	case sideRows:
		lop = op.rowsOp()
	case sideLabels:
		lcsr = op.labels.csr()
		lop = op.labelsOp(lcsr)
	}
	vals, v, err := linalg.SymEigTopOp(ctx, opProgress(lop, k, est), min(k, lop.N))
	if err != nil {
		if ctx.Err() != nil {
			return eigenResult{}, nil, false, ctx.Err()
		}
		return eigenResult{}, nil, false, invalid("", "the eigen-decomposition failed: %v", err)
	}
	res, err := pairResiduals(ctx, lop, vals, v)
	if err != nil {
		return eigenResult{}, nil, false, err
	}
	if side != sideFeatures {
		if v, err = liftFree(ctx, op, side, lcsr, v); err != nil {
			return eigenResult{}, nil, false, err
		}
	}
	// The order is that of the problem the path would solve: D, or N
	// with fewer rows than features (the N×N path's, whose other D − N
	// eigenvalues are exactly zero).
	order := x.C
	if useRowSpace(in) {
		order = x.R
	}
	return eigenResult{values: vals, vectors: v, order: order, total: total, residuals: res}, mean, true, nil
}
