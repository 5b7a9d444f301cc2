package analysis

import (
	"fmt"
	"math"
	"runtime"
	"strings"
)

// EstimateMemory returns the peak number of bytes Fit(ctx, id, in, p, …) allocates
// for data of shape s, not counting in.X and in.Y themselves (the caller owns them),
// or an error for an unknown method. It follows the path Fit will take (the N×N
// Gram path when N < D, the quadratic kernel's q(q+1)/2 columns, N² for lpp/kcplst/mds, …).
//
// The estimate is an upper bound of the live heap at the fit's peak, not of
// what the Go runtime holds: with the default GOGC the heap may grow to
// about twice the live bytes between two collections unless a memory limit
// (GOMEMLIMIT, debug.SetMemoryLimit) makes it collect sooner. It follows
// each fit stage by stage (memoryLedger), counting every matrix as live
// until the function that made it returns, and the worker goroutines'
// buffers at runtime.GOMAXPROCS(0) of them. Parameters it cannot know —
// the dimension thr will choose, the number of ones in Y when
// s.LabelOnes is 0 — are taken at their largest. The test
// TestEstimateMemory measures it against real fits.
func EstimateMemory(id string, p Params, s Shape) (int64, error) {
	m, ok := Lookup(id)
	if !ok {
		return 0, invalid("method", "unknown method %q; the methods are %s", id, strings.Join(IDs(), ", "))
	}
	if s.N < 1 || s.D < 1 || s.Q < 1 {
		return 0, invalid("", "a shape needs at least one row, feature and label, not N = %d, D = %d, q = %d", s.N, s.D, s.Q)
	}
	if m.mem == nil {
		return 0, fmt.Errorf("analysis: %s has no memory estimate", id) // a bug: every method has one
	}
	units := m.mem(p, s)
	if s.NNZ > 0 && m.densify {
		units += float64(s.N) * float64(s.D) // the dense copy of the sparse features
	}
	units *= memoryMargin
	bytes := 8*units + memoryOverhead
	if bytes > math.MaxInt64/2 {
		return math.MaxInt64 / 2, nil
	}
	return int64(bytes), nil
}

// memoryMargin covers what the ledgers do not follow buffer by buffer
// (gonum's internal copies, the collector's timing): TestEstimateMemory
// measured peaks up to 1.15 times the ledger's.
const memoryMargin = 1.25

// memoryOverhead is the constant margin of every estimate: the small
// slices, closures, maps and goroutine stacks of a fit, which do not grow
// with the data, and the garbage of a small fit, which the collector may
// not reclaim before it ends (its peak is then its total allocation).
const memoryOverhead = 1 << 20

// memoryLedger follows a fit's heap in float64s (8 bytes): hold adds what
// stays live, burst what is live only for a moment on top of it, drop what
// is released; peak is the largest total seen. A released buffer is not
// gone at once: the collector reclaims it during a later cycle, which may
// end after the next stage has allocated its own (measured: pca's peak at
// small D is its Gram workers' released accumulators plus the
// eigen-solver's buffers), so the ledger keeps the last burst, and what
// was dropped since, as garbage on top of what follows until the next
// burst. Counts are float64 so that absurd shapes saturate instead of
// overflowing.
type memoryLedger struct {
	held, garbage, peak float64
	workers             float64 // runtime.GOMAXPROCS(0)
	// nnz, when not 0, says the statistics are formed from sparse features
	// of nnz entries (computeStatsSparse).
	nnz float64
}

// sparseFor makes the ledger follow the sparse statistics for a shape
// with sparse features, unless the fit takes the N×N path (rows), whose
// statistics are dense.
func (l *memoryLedger) sparseFor(s Shape, rows bool) {
	if !rows {
		l.nnz = float64(s.NNZ)
	}
}

func newLedger() *memoryLedger {
	return &memoryLedger{workers: float64(runtime.GOMAXPROCS(0))}
}

func (l *memoryLedger) hold(u float64) {
	l.held += u
	l.peak = max(l.peak, l.held+l.garbage)
}

func (l *memoryLedger) burst(u float64) {
	l.peak = max(l.peak, l.held+l.garbage+u)
	l.garbage = u
}

func (l *memoryLedger) drop(u float64) {
	l.held -= u
	l.garbage += u
}

// gang is how many goroutines a pass over n rows in blocks of block rows
// starts (rowBlocks, linalg.Gram).
func (l *memoryLedger) gang(n, block float64) float64 {
	return max(1, min(l.workers, math.Ceil(n/block)))
}

// labelRows holds a sparse N×c matrix of nnz non-zeros (int32 index and
// float64 value each, and the row pointers), built by append: up to twice
// the room, and the old slices live while they grow.
func (l *memoryLedger) labelRows(n, nnz float64) {
	l.burst(4.5*nnz + n + 1)
	l.hold(3*nnz + n + 1)
}

// memSpec mirrors statsSpec for the estimate.
type memSpec struct {
	gram, weighted, labelGram bool
	c                         float64 // label columns of the cross product (0: none)
}

// stats follows computeStats on n rows of d columns: the column means, the
// Gram matrices (d² each, and every worker's d'² accumulator and packed
// rows while they are formed), the cross product (its c×d transpose, every
// worker's copy and the d×c result) and c×c label Gram.
func (l *memoryLedger) stats(n, d float64, spec memSpec) {
	if l.nnz > 0 {
		l.sparseStats(n, d, spec)
		return
	}
	wm := l.gang(n, blockRows)
	l.burst((2*wm + 1) * d)
	l.hold(d)
	d12 := math.Ceil(d/12) * 12 // the kernel's panels of 12 columns
	wg := l.gang(n, 128)
	if spec.gram {
		l.hold(d * d)
		l.burst(wg * (d12*d12 + 128*d12))
	}
	if spec.weighted {
		l.hold(d * d)
		l.burst(wg * (d12*d12 + 256*d12))
	}
	if spec.c > 0 {
		c := spec.c
		cross := c*d + wm*(c+1)*d + c*d // row by row (labelCrossRows)
		if n >= crossMinRows {
			// Or as a product (labelCrossProduct): each worker's
			// accumulator and packed panels of x and of the labels.
			c12 := math.Ceil(c/12) * 12
			cross = max(cross, c*d+wg*(d12*c12+128*(d12+c12)+c12))
		}
		l.burst(cross)
		l.hold(c*d + c)
		if spec.labelGram {
			l.burst(c * c)
			l.hold(c * c)
		}
	}
}

// sparseStats follows computeStatsSparse: the column sums (one d-vector
// per block of 4096 rows) and means, the cancellation check (3 d-vectors),
// then each product: the Gram matrices with their column index (12 bytes
// an entry, and the cost of each column; d², no per-worker copy), the
// weighted column sums, the D×c cross product (TMul: a cursor a row per
// worker), the c×c label Gram. The
// repair of features whose mean is large next to their spread adds N·b
// for b of them, which the estimate does not know (none on sparse data).
func (l *memoryLedger) sparseStats(n, d float64, spec memSpec) {
	sums := (math.Ceil(n/4096) + 1) * d
	l.burst(sums)
	l.hold(d)
	l.burst(3 * d)
	index := 1.5*l.nnz + 2*d
	if spec.gram {
		l.hold(d * d)
		l.burst(index)
	}
	if spec.weighted {
		l.hold(d * d)
		l.burst(index + sums)
	}
	if spec.c > 0 {
		c := spec.c
		l.hold(c*d + c)
		l.burst(l.workers*n + d + n + 1) // TMul: a cursor a row per worker, the blocks' costs, L's row pointers
		if spec.labelGram {
			l.burst(c * c)
			l.hold(c * c)
		}
	}
}

// rowSpace follows newRowSpace: the D×N copy of Xcᵀ that holds the
// reflectors, the workspace, and the N×k coordinates U.
func (l *memoryLedger) rowSpace(n, d float64) {
	k := min(n, d)
	l.hold(d*n + k)
	l.burst(float64(rowSpaceWork(int(min(n, 1<<30)))))
	l.hold(n * k)
}

// lift follows rowSpace.lift of r vectors: the D×r result and workspace.
func (l *memoryLedger) lift(d, r float64) {
	l.hold(d * r)
	l.burst(float64(rowSpaceWork(int(min(r, 1<<30)))))
}

// eig follows symEig of an n×n matrix: linalg.SymEig's working copy, the
// tridiagonal solver's and the back-transformation's buffers (measured at
// under 6.5·n² with the vectors in the pure-Go build), or LAPACK dsyevd's copy and 1 + 6n +
// 2n² workspace; then the n×n vectors stay.
func (l *memoryLedger) eig(n float64) {
	l.burst(7*n*n + 64*n)
	l.hold(n*n + n)
}

// chol follows cholesky: mat.Cholesky's copy and the factor it gives.
func (l *memoryLedger) chol(n float64) {
	l.burst(n * n)
	l.hold(n * n)
}

// lowRank follows lowRankEig of a d×r matrix: the d×d product and its
// decomposition when r > d; else the route through the r×r Gram
// (lowRankTop: G, linalg.Gram's accumulators, the decomposition, U and the
// residuals, taken at their largest, every pair), which lowRankEig
// collects when it refuses, before gonum's thin SVD runs (its copy, U and
// workspace: measured at under 4·d·r); and the U it returns.
func (l *memoryLedger) lowRank(d, r float64) {
	if r > d {
		l.hold(d * d)
		l.eig(d)
		return
	}
	r8 := math.Ceil(r/8) * 8
	l.burst(r*r + l.gang(d, 128)*(r8*r8+128*r8) + 7*r*r + 64*r + 2*d*r)
	l.garbage = 0 // runtime.GC before the SVD
	l.burst(4*d*r + 6*r*r + 64*(d+r))
	l.hold(d*r + r)
}

// genEig follows genEig on n×n: the copy, its symmetric form, the
// decomposition.
func (l *memoryLedger) genEig(n float64) {
	l.hold(2 * n * n)
	l.eig(n)
}

// featureModel follows newFeatureModel: P's copy (d×dim), the projection of
// the n training rows (linalg.Mul packs P and a block of rows per worker)
// and Projected (n×dim).
func (l *memoryLedger) featureModel(n, d, dim float64) {
	dim8 := math.Ceil(dim/8) * 8
	l.hold(d * dim)
	l.burst(d*dim8 + l.workers*(8*d+64) + dim)
	l.hold(n * dim)
}

// chosenDim is the largest d the fit can choose: p.D, or the bound of the
// shape when thr chooses it.
func chosenDim(id string, p Params, s Shape) float64 {
	if p.D > 0 {
		return float64(p.D)
	}
	return float64(max(1, dimBound(Method{ID: id}, p, s)))
}

// labelOnes is Σ|y_i|, the ones of Y: s.LabelOnes, or N·q when unknown.
func labelOnes(s Shape) float64 {
	if s.LabelOnes > 0 {
		return float64(s.LabelOnes)
	}
	return float64(s.N) * float64(s.Q)
}

// labelColumns is the columns of the 0/1 label matrix the label-based
// methods use, and its ones: q and Y's ones, or for multi-dimensional data
// ΣK_j and N·q (one per class variable).
func labelColumns(s Shape) (c, nnz float64) {
	if s.Classes == nil {
		return float64(s.Q), labelOnes(s)
	}
	sum := 0
	for _, k := range s.Classes {
		sum += k
	}
	return float64(sum), float64(s.N) * float64(len(s.Classes))
}

// featureFit is the ledger of the feature-space fits that go through
// featureStats: the N×N path when rows (the row space, then statistics of
// dimension k = min(N, D)), else the statistics of dimension D; solve adds
// the method's own work in dimension k and says how many vectors it gives,
// which the N×N path lifts to D; then the model.
func featureFit(id string, p Params, s Shape, rows bool, spec memSpec, solve func(l *memoryLedger, k float64) (vectors float64)) float64 {
	l := newLedger()
	l.sparseFor(s, rows)
	n, d := float64(s.N), float64(s.D)
	k := d
	if rows {
		k = min(n, d)
		l.burst((2*l.gang(n, blockRows) + 1) * d)
		l.hold(d) // the means of X
		l.rowSpace(n, d)
	}
	l.stats(n, k, spec)
	r := solve(l, k)
	if rows {
		l.lift(d, r)
	}
	l.featureModel(n, d, min(chosenDim(id, p, s), r))
	return l.peak
}

// shapeFree is matrixFree for a shape: sparse features (NNZ > 0), on
// either path. It cannot know the cancellation check, which would send a fit
// back to the Gram route (features whose non-zeros nearly fill the column
// with a common value: not text or bag-of-words data).
func shapeFree(p Params, s Shape) (int, bool) {
	if s.NNZ <= 0 {
		return 0, false
	}
	return freeRule(s.N, s.D, s.NNZ, p, false)
}

// rowsFor is useRowSpace for a shape.
func rowsFor(s Shape) bool { return s.N < s.D }

// nnzPlus adds a sparse label matrix of nnz ones, held from before the
// statistics to the end of the fit, to a fit's peak: append's doubling
// may leave up to twice the room, and a copy of the old slices is live
// while it grows.
func nnzPlus(s Shape, nnz, peak float64) float64 { return peak + 4.5*nnz + float64(s.N) + 1 }
