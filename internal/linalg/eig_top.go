package linalg

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/mat"
)

// ErrBadK is returned, wrapped, by SymEigTop for k outside [1, n].
var ErrBadK = errors.New("number of eigenpairs out of range")

// TopTol is the accuracy SymEigTop guarantees for every pair it returns:
// ‖A v − λ v‖₂ ≤ TopTol·‖A‖₂, with orthonormal vectors.
const TopTol = 1e-12

// Parameters of the block Lanczos iteration of SymEigTop, chosen on the
// benchmark matrices (see lanczosTop).
const (
	// topMinN is the order below which SymEigTop uses the direct method.
	topMinN = 200
	// topExtra is the number of block columns beyond k, at least.
	topExtra = 8
	// topFirstBlocks is the number of blocks before the first
	// Rayleigh–Ritz step, which ends the easy cases early.
	topFirstBlocks = 2
	// topBlocksPerCycle is the number of blocks added to the kept Ritz
	// vectors before each later Rayleigh–Ritz step and restart.
	topBlocksPerCycle = 4

	// opBlock, opBlocksPerCycle and opExtra are the block size, blocks
	// per cycle and Ritz vectors kept beyond k of SymEigTopOp's first
	// shape (opShape). An operator's products cost per vector, not per
	// block, so a small block and a long cycle (a polynomial of higher
	// degree per restart for the same products) pay off: on the centred
	// Gram of 20 000 × 5 000 random sparse rows (2 %), whose 20 leading
	// eigenvalues sit at the edge of a Marchenko–Pastur bulk, the dense
	// block (28, 4 a cycle) gave up after 448 products, 12 with 8 a cycle
	// took 3 060 products, 8 with 12 a cycle 1 904, 4 with 12 gave up. On
	// the rows' side of 59 312 AmazonCat-13K-shaped rows (pca, k = 100),
	// with cycles of full length from the first and ended by the
	// estimated residuals: 8 with 12 a cycle and 4 kept beyond k took 456
	// products (544 with growing cycles), 8 with 16 and 24 kept 384, 8
	// with 20 and 32 kept 384 with a larger basis.
	opBlock          = 8
	opBlocksPerCycle = 16
	opExtra          = 24

	// topDirectCost is the cost of the direct method in flops of matrix
	// multiplication, over n³: the reduction's 4n³/3 flops run at about
	// 40% of gemm's speed (the symmetric products are bound by memory
	// bandwidth). A column of the iteration costs 2n² flops for its
	// product with A and about 10n·m for the orthogonalization, projection
	// and Rayleigh–Ritz work against a basis of m vectors.
	topDirectCost = 3.0
)

// SymEigTop computes the k largest (algebraic) eigenvalues of the symmetric
// n×n matrix a, in descending order, and n×k orthonormal eigenvectors with
// the sign convention of SymEig. It is meant for k ≪ n.
//
// It runs a block Lanczos iteration with full reorthogonalization and thick
// restarts (block Krylov–Schur; Stewart, "A Krylov–Schur algorithm for large
// eigenproblems", SIAM J. Matrix Anal. Appl. 23, 2001; Zhou and Saad,
// "Block Krylov–Schur method for large symmetric eigenvalue problems",
// Numer. Algorithms 47, 2008) in which every product with A is a matrix
// multiplication of a block of b > k vectors, so that an eigenvalue of any
// multiplicity at the k-th position yields all the copies the answer needs.
// The Rayleigh–Ritz step uses the explicit projection QᵀAQ, and the
// residuals it tests are ‖AY − YΘ‖ for the actual products AY.
//
// Accuracy check: the iteration stops when every one of the k Ritz pairs
// satisfies ‖A v − λ v‖₂ ≤ TopTol·‖A‖, where ‖A‖ is the largest Ritz value
// in magnitude, a lower bound of ‖A‖₂, so the test is never weaker than
// stated. When it does not get there within the direct method's cost,
// or when the convergence seen so far predicts it will not (eigenvalues
// clustered at the k-th position relative to the spread of the spectrum,
// as for random matrices), and directly for n < 200 or when the block
// exceeds n/6 (k ≳ n/8), SymEigTop solves the problem directly instead:
// SymEig's tridiagonal reduction, the eigenvalues of T by DSTERF, its k
// wanted eigenvectors by inverse iteration with full reorthogonalization
// (each residual checked; divide and conquer if one fails), and the
// back-transformation of those k vectors only. So the result is always
// right. The start block is seeded, so results are reproducible.
//
// SymEigTop returns ErrBadK (wrapped) for k < 1 or k > n, and otherwise the
// errors of SymEig; it checks ctx between block steps.
func SymEigTop(ctx context.Context, a mat.Symmetric, k int) (values []float64, vectors *mat.Dense, err error) {
	n := a.SymmetricDim()
	if n == 0 {
		return nil, nil, fmt.Errorf("linalg: %w", ErrEmpty)
	}
	if k < 1 || k > n {
		return nil, nil, fmt.Errorf("linalg: %w: k = %d for order %d", ErrBadK, k, n)
	}
	full := make([]float64, n*n)
	if err := copyUpper(full, a); err != nil {
		return nil, nil, err
	}
	scale := safeScale(full, n)
	if TopIterates(n, k) {
		mirrorUpper(full, n)
		vals, yt, err := lanczosTop(ctx, denseRows(full, n), n, k, denseShape(k), 2*float64(n)*float64(n), 0)
		if err != nil {
			return nil, nil, err
		}
		if yt != nil {
			return unscale(vals, scale), columnsFromRows(yt, n, seq(k)), nil
		}
	}
	return directTop(ctx, full, n, k, scale)
}

// TopIterates reports whether SymEigTop and SymEigTopOp run their Krylov
// iteration for k pairs of a matrix of order n (n ≥ 200 and a block of at
// most n/6), rather than the direct method at once. A caller with a
// matrix-free operator uses it to tell whether the operator will be
// worth its while: without the iteration SymEigTopOp forms the matrix.
func TopIterates(n, k int) bool {
	return n >= topMinN && k >= 1 && 6*topBlock(k) <= n
}

// denseRows is the product with the full symmetric n×n row-major a of a
// block of vectors stored as rows: w = blk·a = (a·blkᵀ)ᵀ.
func denseRows(a []float64, n int) rowsApply {
	return func(_ context.Context, blk, w []float64, b int) error {
		gemm(b, n, n, 1, blk, n, a, n, 0, w, n)
		return nil
	}
}

// rowsApply sets w to A times the b vectors stored as the rows of blk
// (b×n row-major), their products stored as the rows of w.
type rowsApply func(ctx context.Context, blk, w []float64, b int) error

// topBlock is the block size of the Lanczos iteration for k pairs.
func topBlock(k int) int {
	return k + max(topExtra, k/4)
}

// directTop is SymEig restricted to the k largest pairs: the upper triangle
// of the n×n row-major u (scaled by scale) is reduced to tridiagonal form
// T; its eigenvalues come from DSTERF and, for k ≤ n/8, the k wanted
// eigenvectors of T from inverse iteration (tridiagVectors), or, for larger
// k or should a residual fail there, from divide and conquer; only those k
// vectors are transformed back.
func directTop(ctx context.Context, u []float64, n, k int, scale float64) ([]float64, *mat.Dense, error) {
	_, vals, vectors, err := directSelect(ctx, u, n, scale, func([]float64) int { return k })
	return vals, vectors, err
}

// directSelect is directTop with k chosen from the eigenvalues: after
// DSTERF, choose gets every eigenvalue (descending, of a itself) and
// returns k in [1, n]. It returns every eigenvalue, the k largest again
// (from divide and conquer when that computed the vectors) and their
// vectors.
func directSelect(ctx context.Context, u []float64, n int, scale float64, choose func(all []float64) int) (all, vals []float64, vectors *mat.Dense, err error) {
	t := newTridiagonal(n)
	t.a = u
	if err := t.reduce(ctx); err != nil {
		return nil, nil, nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, nil, err
	}
	w := append([]float64(nil), t.d...)
	e := append([]float64(nil), t.e...)
	if !sterf(w, e) {
		return nil, nil, nil, fmt.Errorf("linalg: eigenvalues of a %d×%d tridiagonal matrix: %w", n, n, ErrNoConvergence)
	}
	all = make([]float64, n)
	for c := range n {
		all[c] = w[n-1-c] / scale
	}
	k := choose(all)
	if k < 1 || k > n {
		return nil, nil, nil, fmt.Errorf("linalg: %w: k = %d for order %d", ErrBadK, k, n)
	}
	vals = make([]float64, k)
	for c := range k {
		vals[c] = w[n-1-c]
	}
	// Inverse iteration costs O(n·k²) for the reorthogonalization: beyond
	// n/8 vectors divide and conquer, O(n²) per merge, is cheaper.
	var yt []float64
	ok := false
	if k <= n/8 {
		yt, ok = tridiagVectors(t.d, t.e, vals)
	}
	if !ok {
		if vals, yt, err = tridiagTop(ctx, t.d, t.e, k); err != nil {
			return nil, nil, nil, err
		}
	}
	if err := t.applyQT(ctx, yt, k); err != nil {
		return nil, nil, nil, err
	}
	return all, unscale(vals, scale), columnsFromRows(yt, n, seq(k)), nil
}

// tridiagTop computes the k largest eigenpairs of the tridiagonal (d, e)
// by divide and conquer (all of them, keeping k): values descending and the
// k×n row-major vectors.
func tridiagTop(ctx context.Context, d, e []float64, k int) ([]float64, []float64, error) {
	n := len(d)
	d = append([]float64(nil), d...)
	e = append([]float64(nil), e...)
	zt := make([]float64, n*n)
	order, err := tridiagEig(ctx, d, e, zt, n)
	if err != nil {
		return nil, nil, err
	}
	vals := make([]float64, k)
	yt := make([]float64, k*n)
	for c := range k {
		r := order[n-1-c]
		copy(yt[c*n:(c+1)*n], zt[r*n:(r+1)*n])
		vals[c] = d[r]
	}
	return vals, yt, nil
}

// lanczosShape is how lanczosTop grows and restarts its basis.
type lanczosShape struct {
	// b is the block size, per the blocks added before each restart.
	b, per int
	// extra is the number of Ritz vectors kept at a restart beyond the
	// k wanted (the basis holds at most k + extra + per·b vectors).
	extra int
	// early runs every cycle to its full length from the first, and ends
	// a cycle as soon as the residuals estimated from the Krylov relation
	// pass the accuracy check (see estimator); otherwise the cycles grow
	// (topFirstBlocks blocks at first, then topFirstBlocks more a cycle up
	// to per) and each ends at its length. The explicit check decides in
	// both.
	early bool
}

// denseShape is SymEigTop's shape for k pairs: a block larger than k,
// four blocks a cycle, growing cycles.
func denseShape(k int) lanczosShape {
	b := topBlock(k)
	return lanczosShape{b: b, per: topBlocksPerCycle, extra: b / 2}
}

// lanczosTop is the block Krylov–Schur iteration of SymEigTop and
// SymEigTopOp on the symmetric n×n matrix whose products apply computes
// (opCost flops for one vector; formCost the flops of forming the matrix
// for the direct method, 0 when it is at hand), with the block, cycle and
// restart of shape. It returns the k largest Ritz values and the k×n
// row-major Ritz vectors when they pass the accuracy check, nil vectors
// when it gave up, and ctx.Err() if ctx is canceled.
//
// The basis Q (rows of qt), the products AQ (rows of aqt) and the
// projection H = QᵀAQ grow by blocks of b vectors to the cycle's length;
// then H is decomposed, the k + extra best Ritz vectors Y are kept with AY
// (and H becomes diagonal), and the iteration continues from the part of
// A·(last block) orthogonal to the old basis, which is the next block of
// the Lanczos recurrence. Before each restart the largest residual is
// extrapolated at the rate of decrease seen so far; when that predicts
// more columns than half the direct method's cost, the iteration gives up
// at once rather than when the budget is spent.
func lanczosTop(ctx context.Context, apply rowsApply, n, k int, shape lanczosShape, opCost, formCost float64) ([]float64, []float64, error) {
	b, per := shape.b, shape.per
	keepMax := k + shape.extra
	mmax := min(n, keepMax+per*b)
	// The direct method's cost in columns of this iteration (see
	// topDirectCost), forming the matrix included.
	nf := float64(n)
	direct := (topDirectCost*nf*nf*nf + formCost) / (opCost + 10*nf*float64(mmax))
	qt := make([]float64, mmax*n)
	aqt := make([]float64, mmax*n)
	h := make([]float64, mmax*mmax)
	next := make([]float64, b*n)
	coef := make([]float64, b*max(b, mmax))
	first := make([]float64, b*mmax) // the block's coefficients against the basis, for its first Gram–Schmidt pass
	rng := rand.New(rand.NewPCG(0x5eed, uint64(n)))

	for i := range next {
		next[i] = rng.NormFloat64()
	}
	orthonormalize(qt, 0, next, b, n, coef, nil, rng)
	copy(qt, next)
	nq := 0
	used := 0
	prevWorst := 1.0 // a random start has residuals of the order of ‖A‖
	prevUsed := 0
	cycle := 0
	limit := min(mmax, topFirstBlocks*b)
	if b <= k { // a small block: enough of them for k Ritz vectors and a block
		limit = min(mmax, k+2*b)
	}
	var est *estimator
	if shape.early {
		limit = mmax
		est = &estimator{mmax: mmax, b: b, r: make([]float64, b*b), c: make([]float64, b)}
	}
	for {
		// Expand by blocks.
		for {
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
			blk := qt[nq*n : (nq+b)*n]
			w := aqt[nq*n : (nq+b)*n]
			if err := apply(ctx, blk, w, b); err != nil {
				return nil, nil, err
			}
			used += b
			// H(0:nq+b, nq:nq+b) = Q Wᵀ, and its mirror image.
			gemmNT(nq+b, b, n, 1, qt, n, w, n, 0, coef, b)
			for i := range nq + b {
				for j := range b {
					v := coef[i*b+j]
					h[i*mmax+nq+j] = v
					h[(nq+j)*mmax+i] = v
					first[j*(nq+b)+i] = v
				}
			}
			nq += b
			if nq+b > limit {
				break
			}
			copy(next, w)
			orthonormalize(qt, nq, next, b, n, coef, first[:b*nq], rng)
			copy(qt[nq*n:(nq+b)*n], next)
			if est != nil && nq >= k+b {
				if est.spent += float64(b) * opCost; est.spent >= estimateCost*math.Pow(float64(nq), 3) {
					est.spent = 0
					if est.converged(ctx, h, nq, k, w, next, n) {
						break
					}
				}
			}
		}

		// Rayleigh–Ritz.
		theta, u, err := SymEig(ctx, projection(h, mmax, nq))
		if err != nil {
			return nil, nil, err
		}
		normA := math.Max(math.Abs(theta[0]), math.Abs(theta[nq-1]))
		keep := min(keepMax, nq-b)
		// Y = Uᵀ Q and AY = Uᵀ AQ for the kept columns of U.
		ut := make([]float64, keep*nq)
		for c := range keep {
			for r := range nq {
				ut[c*nq+r] = u.At(r, c)
			}
		}
		yt := make([]float64, keep*n)
		ayt := make([]float64, keep*n)
		gemm(keep, n, nq, 1, ut, nq, qt, n, 0, yt, n)
		gemm(keep, n, nq, 1, ut, nq, aqt, n, 0, ayt, n)
		// The accuracy check, on the residuals of the actual products.
		worst := 0.0
		for i := range k {
			y := yt[i*n : (i+1)*n]
			ay := ayt[i*n : (i+1)*n]
			ss := 0.0
			for j, v := range ay {
				r := v - theta[i]*y[j]
				ss += r * r
			}
			worst = math.Max(worst, math.Sqrt(ss))
		}
		if worst <= TopTol*normA {
			return theta[:k], yt[:k*n], nil
		}
		worst /= normA
		// Give up when the columns spent exceed the direct method's cost,
		// or when the convergence seen so far, extrapolated linearly,
		// needs more than half of it (early rates are optimistic).
		// The rate is per column multiplied by A; the first one, from a
		// random start, is not trusted (finite termination, as on a matrix
		// with few distinct eigenvalues, does not show in it).
		rate := math.Pow(worst/prevWorst, 1/float64(used-prevUsed))
		if float64(used) > direct || (cycle > 0 && (rate >= 0.999 ||
			math.Log(TopTol/worst)/math.Log(rate) > direct/2)) {
			return nil, nil, nil
		}
		prevWorst = worst
		prevUsed = used
		cycle++
		// The cycles grow: the second adds topFirstBlocks blocks too.
		limit = min(mmax, min(keepMax, nq-b)+min(per, cycle*topFirstBlocks)*b)
		if shape.early {
			limit = mmax
		}

		// Restart: the next Lanczos block is A·(last block) orthogonalized
		// against the whole old basis; then the basis becomes [Y, next].
		copy(next, aqt[(nq-b)*n:nq*n])
		orthonormalize(qt, nq, next, b, n, coef, nil, rng)
		copy(qt, yt)
		copy(aqt, ayt)
		for i := range keep {
			row := h[i*mmax : i*mmax+keep]
			clear(row)
			row[i] = theta[i]
		}
		nq = keep
		copy(qt[nq*n:(nq+b)*n], next)
	}
}

// orthonormalize makes the b rows of blk (each of length n) orthonormal and
// orthogonal to the first nq rows of qt (orthonormal): two passes of block
// classical Gram–Schmidt against qt ("twice is enough"; the first pass's
// coefficients blk·Qᵀ, b×nq, are taken from first when not nil: the
// iteration has them already, as its projection's new column), then two passes of
// Cholesky QR within the block (CholQR2; Fukaya et al., "CholeskyQR2: a
// simple and communication-avoiding algorithm for computing a tall-skinny
// QR factorization", 2014), all matrix multiplications. When the block is
// too ill-conditioned for Cholesky QR, modified Gram–Schmidt takes over and
// a row that loses all but 1e-10 of its norm is replaced by a random one,
// so the block keeps full rank when the Krylov space becomes invariant.
// coef is work space of b·max(b, nq) entries.
func orthonormalize(qt []float64, nq int, blk []float64, b, n int, coef, first []float64, rng *rand.Rand) {
	if nq > 0 {
		for pass := range 2 {
			// C = blk Qᵀ (b × nq); blk −= C Q.
			c := coef
			if pass == 0 && first != nil {
				c = first
			} else {
				gemmNT(b, nq, n, 1, blk, n, qt, n, 0, coef, nq)
			}
			gemm(b, n, nq, -1, c, nq, qt, n, 1, blk, n)
		}
	}
	if cholQR(blk, b, n, coef) && cholQR(blk, b, n, coef) {
		return
	}
	bl := blas64.Implementation()
	for i := 0; i < b; i++ {
		x := blk[i*n : (i+1)*n]
		before := bl.Dnrm2(n, x, 1)
		for range 2 {
			if nq > 0 {
				gemmNT(1, nq, n, 1, x, n, qt, n, 0, coef, nq)
				gemm(1, n, nq, -1, coef, nq, qt, n, 1, x, n)
			}
			for j := range i {
				q := blk[j*n : (j+1)*n]
				bl.Daxpy(n, -bl.Ddot(n, q, 1, x, 1), q, 1, x, 1)
			}
		}
		nrm := bl.Dnrm2(n, x, 1)
		if nrm <= 1e-10*before || nrm == 0 {
			// Replace by a random row and orthogonalize it again.
			for j := range x {
				x[j] = rng.NormFloat64()
			}
			i--
			continue
		}
		bl.Dscal(n, 1/nrm, x, 1)
	}
}

// cholQR orthonormalizes the b rows of x (length n) by x ← L⁻¹x with
// x xᵀ = L Lᵀ. It reports false, leaving x unchanged or partly
// transformed, when x is too ill-conditioned for it (an L_ii below 1e-6 of
// the row's norm), so that the caller falls back to Gram–Schmidt.
func cholQR(x []float64, b, n int, g []float64) bool {
	g = g[:b*b]
	gemmNT(b, b, n, 1, x, n, x, n, 0, g, b)
	diag := make([]float64, b)
	for i := range b {
		diag[i] = g[i*b+i]
	}
	var impl gonum.Implementation
	if !impl.Dpotrf(blas.Lower, b, g, b) {
		return false
	}
	for i := range b {
		if !(g[i*b+i] > 1e-6*math.Sqrt(diag[i])) {
			return false
		}
	}
	blas64.Implementation().Dtrsm(blas.Left, blas.Lower, blas.NoTrans, blas.NonUnit, b, n, 1, g, b, x, n)
	return true
}

// mirrorUpper copies the upper triangle of the row-major n×n u into its
// lower triangle, in tiles so that both sides stay in cache.
func mirrorUpper(u []float64, n int) {
	const tile = 64
	for i0 := 0; i0 < n; i0 += tile {
		i1 := min(i0+tile, n)
		for j0 := 0; j0 <= i0; j0 += tile {
			j1 := min(j0+tile, n)
			for i := i0; i < i1; i++ {
				row := u[i*n : i*n+n]
				for j := j0; j < min(j1, i); j++ {
					row[j] = u[j*n+i]
				}
			}
		}
	}
}

// unscale divides the eigenvalues by the scale applied to the matrix.
func unscale(vals []float64, scale float64) []float64 {
	if scale != 1 {
		for i := range vals {
			vals[i] /= scale
		}
	}
	return vals
}

// seq returns 0, 1, …, k−1.
func seq(k int) []int {
	s := make([]int, k)
	for i := range s {
		s[i] = i
	}
	return s
}

// projection is the leading nq×nq block of the projection h (stride mmax)
// as a symmetric matrix, the mean of its two triangles.
func projection(h []float64, mmax, nq int) *mat.SymDense {
	hs := mat.NewSymDense(nq, nil)
	for i := range nq {
		for j := i; j < nq; j++ {
			hs.SetSym(i, j, (h[i*mmax+j]+h[j*mmax+i])/2)
		}
	}
	return hs
}

// estimateCost is the flops of an estimator's test over nq³: SymEig of
// the nq×nq projection with its vectors. The iteration tests after a block
// once its products since the last test cost some four times as much.
const estimateCost = 40

// estimateMargin is the share of the check's bound an estimated residual
// must stay within: the estimates leave out the rounding of the products
// and of the basis's orthogonality, which the explicit check measures, and
// a failed check costs a Rayleigh–Ritz step and a restart, more than the
// block or two the margin adds.
const estimateMargin = 0.5

// estimator tests, within a cycle of lanczosTop, whether the k leading
// Ritz pairs of the basis so far would pass the accuracy check, from the
// Krylov relation A·Q = Q·H + F·E_lastᵀ rather than from products with
// the Ritz vectors: the residual of the Ritz vector Q·s is F·s_last (s_last
// the entries of s on the basis's last block), and with F = R·next (next
// the orthonormalized block that continues the basis, R = W_last·nextᵀ for
// the last block's products W_last) its norm is ‖Rᵀ·s_last‖. The explicit
// check on the actual products still decides whether the iteration ends.
type estimator struct {
	mmax, b int
	r, c    []float64
	// spent is the flops of the products since the last test.
	spent float64
}

// converged reports whether every one of the k leading Ritz pairs of the
// nq×nq projection h (stride mmax) has an estimated residual within
// estimateMargin·TopTol·‖A‖; w holds the products of the basis's last block and next
// the block that follows it (b rows of length n each).
func (e *estimator) converged(ctx context.Context, h []float64, nq, k int, w, next []float64, n int) bool {
	b := e.b
	gemmNT(b, b, n, 1, w, n, next, n, 0, e.r, b)
	theta, u, err := SymEig(ctx, projection(h, e.mmax, nq))
	if err != nil {
		return false
	}
	normA := math.Max(math.Abs(theta[0]), math.Abs(theta[nq-1]))
	for i := range k {
		clear(e.c)
		for j := range b {
			s := u.At(nq-b+j, i)
			for t, r := range e.r[j*b : (j+1)*b] {
				e.c[t] += s * r
			}
		}
		ss := 0.0
		for _, v := range e.c {
			ss += v * v
		}
		if !(math.Sqrt(ss) <= estimateMargin*TopTol*normA) {
			return false
		}
	}
	return true
}
