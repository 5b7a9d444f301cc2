package analysis

import (
	"context"
	"runtime"
	"slices"
	"sync"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"mldr/internal/linalg"
	"mldr/internal/sparse"
)

// statsSpec says which sufficient statistics a method needs.
type statsSpec struct {
	gram   bool        // C = XcᵀXc
	labels *sparseRows // L: the cross product XcᵀL is formed when set
	// labelGram asks for LcᵀLc (with labels set).
	labelGram bool
	// weights, when set, asks for the weighted Gram Xcᵀ·diag(w)·Xc.
	weights []float64
}

// stats are the sufficient statistics of one pass over the rows.
type stats struct {
	// n is the number of rows, d the dimension of the statistics: D, or N
	// on the N×N path, where space maps them back to the D features.
	n, d      int
	dim       int           // D, the number of features
	space     *rowSpace     // the N×N path's basis, or nil
	mean      []float64     // D column means of X
	gram      *mat.SymDense // XcᵀXc (D×D)
	cross     *mat.Dense    // XcᵀL = XcᵀLc (D×c)
	labelMean []float64     // c column means of L
	labelGram *mat.SymDense // LcᵀLc (c×c)
	wgram     *mat.SymDense // Xcᵀ·diag(w)·Xc (D×D)
	// borrowed says the matrices belong to someone else (a Partial that
	// serves them to many fits): a fit that would work in their buffers
	// copies them first (ownGramAndCross).
	borrowed bool
}

// ownGramAndCross makes s.gram and s.cross the fit's own when they are
// borrowed, so that it may overwrite them.
func (s *stats) ownGramAndCross() {
	if !s.borrowed {
		return
	}
	if s.gram != nil {
		g := mat.NewSymDense(s.gram.SymmetricDim(), nil)
		g.CopySym(s.gram)
		s.gram = g
	}
	if s.cross != nil {
		s.cross = mat.DenseCopyOf(s.cross)
	}
	s.borrowed = false
}

// blockRows is how many rows a pass handles between two checks of the
// context: few enough to stop soon when canceled.
const blockRows = 4096

// computeStats makes one pass over X for the column means (unless mean, the
// means validation found, is given), then forms what spec asks for around
// them: the Gram matrices with linalg.Gram, which
// shifts every row by the means as it packs it (so XcᵀXc stays accurate
// when the means are large next to the spread: no XᵀX − N·μμᵀ
// cancellation), and the cross product with the labels in a pass of
// O(nnz(L)·D): each row, centred, adds itself to the columns of its
// non-zero labels.
func computeStats(ctx context.Context, x *mat.Dense, mean []float64, spec statsSpec, st stage) (*stats, error) {
	n, d := x.Dims()
	raw := x.RawMatrix()
	s := &stats{n: n, d: d, mean: mean}
	var err error
	if s.mean == nil {
		if s.mean, err = meansOfColumns(ctx, raw, st.sub(0, 0.1, st.name)); err != nil {
			return nil, err
		}
	}
	// The rest of the stage is shared by the passes asked for, by cost: a
	// Gram matrix costs D per value of X, the label pass about 1.
	var costs [3]float64 // gram, weighted gram, labels
	if spec.gram {
		costs[0] = float64(d)
	}
	if spec.weights != nil {
		costs[1] = float64(d)
	}
	if spec.labels != nil {
		costs[2] = 1
	}
	part := st.shares(0.1, 0.9, costs[:])
	gram := func(weights []float64, part stage) (*mat.SymDense, error) {
		g := mat.NewSymDense(d, nil)
		err := linalg.Gram(ctx, raw, s.mean, weights, g.RawSymmetric(), func(done int) error {
			return part.checkpoint(ctx, float64(done)/float64(n))
		})
		return g, err
	}
	if spec.gram {
		if s.gram, err = gram(nil, part(0)); err != nil {
			return nil, err
		}
	}
	if spec.weights != nil {
		if s.wgram, err = gram(spec.weights, part(1)); err != nil {
			return nil, err
		}
	}
	if spec.labels != nil {
		if s.cross, err = labelCross(ctx, raw, s.mean, spec.labels, part(2)); err != nil {
			return nil, err
		}
		s.labelStats(spec)
	}
	return s, nil
}

// featureStats computes what spec asks for from in's features (dense X,
// or sparse: computeStatsSparse), on the N×N path (see rowspace.go) when
// rows is set: then the statistics are those of the rows of Xc in the
// basis Q of its row space (s.d = N), s.space maps their vectors back, and
// s.mean still holds the D column means of X.
func featureStats(ctx context.Context, in Input, spec statsSpec, rows bool, st stage) (*stats, error) {
	if in.shard != nil {
		return in.shard.stats(ctx, in, spec, st)
	}
	_, d := in.dims()
	if !rows {
		s, err := statsOf(ctx, in, spec, st)
		if s != nil {
			s.dim = d
		}
		return s, err
	}
	mean := func() ([]float64, error) {
		switch {
		case in.Sparse != nil:
			return sparseMeans(ctx, in.Sparse)
		case in.knownMean() != nil:
			return in.knownMean(), nil
		}
		return meansOfColumns(ctx, in.X.RawMatrix(), st.sub(0, 0.05, st.name))
	}
	rs, shift, err := in.rowSpace(ctx, true, mean, func(shift []float64) (*rowSpace, error) {
		if in.Sparse != nil {
			return newRowSpaceSparse(ctx, in.Sparse, shift, st.sub(0.05, 0.7, "row space"))
		}
		return newRowSpace(ctx, in.X, shift, st.sub(0.05, 0.7, "row space"))
	})
	if err != nil {
		return nil, err
	}
	s, err := computeStats(ctx, rs.coords, nil, spec, st.sub(0.7, 1, st.name))
	if err != nil {
		return nil, err
	}
	s.mean, s.space, s.dim = slices.Clone(shift), rs, d // a Shared keeps shift
	return s, nil
}

// up maps a decomposition of the statistics' space to the features: on
// the N×N path its vectors (N×r) become Q·V (D×r), signs fixed; on the D×D
// path it is e itself.
func (s *stats) up(ctx context.Context, e eigenResult) (eigenResult, error) {
	if s.space == nil {
		return e, nil
	}
	v, err := s.space.lift(ctx, e.vectors)
	if err != nil {
		return eigenResult{}, err
	}
	e.vectors = v
	return e, nil
}

// lowRankRows is the path of the methods that need only XcᵀL (D×c): the
// N×N path when N < D and N < c, where the D×N reflectors cost less than
// the D×c matrix and its SVD.
func lowRankRows(in Input, c int) bool {
	n, _ := in.dims()
	switch in.path {
	case pathFeatures, pathRows:
		return useRowSpace(in)
	}
	return useRowSpace(in) && n < c
}

// meanDiag is the trace of a matrix of the statistics over D, the number
// of features (the scale of the relative ridges): on the N×N path the
// trace is the D×D matrix's, and the mean is still over D.
func (s *stats) meanDiag(m mat.Symmetric) float64 {
	return meanDiag(m) * float64(m.SymmetricDim()) / float64(s.dim)
}

// needRidge refuses a zero ridge on the N×N path: there the right-hand
// matrix XcᵀMXc + εI has rank ≤ N − 1 < D when ε = 0, so it is singular (as
// it is on the D×D path, where its Cholesky factorisation fails or is
// meaningless).
func (s *stats) needRidge(eps float64, param, what string) error {
	if s.space != nil && s.dim >= s.n && eps == 0 {
		return unservable(param, 0, "%s is singular on these data (%d rows, %d features: its rank is at most %d); give a %s greater than 0",
			what, s.n, s.dim, s.n-1, param)
	}
	return nil
}

// statsOf is computeStats on in's features, dense or sparse.
func statsOf(ctx context.Context, in Input, spec statsSpec, st stage) (*stats, error) {
	if in.shard != nil {
		return in.shard.stats(ctx, in, spec, st)
	}
	if in.Sparse != nil {
		return computeStatsSparse(ctx, in.Sparse, spec, st)
	}
	return computeStats(ctx, in.X, in.knownMean(), spec, st)
}

// sparseMeans is the column means of sparse X.
func sparseMeans(ctx context.Context, x *sparse.CSR) ([]float64, error) {
	sums, err := sparse.ColumnSums(ctx, x, nil)
	for j := range sums {
		sums[j] /= float64(x.R)
	}
	return sums, err
}

// meansOfColumns is the mean of every column of x, summed per block of rows
// (to keep rounding small) on every core.
func meansOfColumns(ctx context.Context, x blas64.General, st stage) ([]float64, error) {
	n, d := x.Rows, x.Cols
	mean := make([]float64, d)
	err := rowBlocks(ctx, n, st, func() any { return make([]float64, 2*d) }, func(acc any, lo, hi int) {
		sum := acc.([]float64)
		block := sum[d:]
		clear(block)
		for i := lo; i < hi; i++ {
			for j, v := range x.Data[i*x.Stride : i*x.Stride+d] {
				block[j] += v
			}
		}
		for j, v := range block {
			sum[j] += v
		}
	}, func(acc any) {
		for j, v := range acc.([]float64)[:d] {
			mean[j] += v
		}
	})
	if err != nil {
		return nil, err
	}
	for j := range mean {
		mean[j] /= float64(n)
	}
	return mean, nil
}

// labelCross forms XcᵀL (D×c): every row, centred by mean, is added to the
// columns of its non-zero labels, times the label's value. With few label
// columns next to the labels a row has (panels of 12 columns no more than
// 1 + the labels a row has on average: q = 20 and two labels a row, not
// q = 400) and many rows (crossAsProduct), linalg.Cross forms it as a
// product instead, N·D·c multiply-adds at the micro-kernel's speed: on
// 50 000 × 500 with q = 20, 0.08 s of CPU for the row by row pass, 0.03
// for the product.
func labelCross(ctx context.Context, x blas64.General, mean []float64, l *sparseRows, st stage) (*mat.Dense, error) {
	if crossAsProduct(l) {
		return labelCrossProduct(ctx, x, mean, l, st)
	}
	return labelCrossRows(ctx, x, mean, l, st)
}

// crossAsProduct says whether labelCross forms XcᵀL as a product: with
// few label columns next to the labels a row has, and rows enough that
// the product's packed panels (128 rows of x and of the labels a worker)
// are small next to X.
func crossAsProduct(l *sparseRows) bool {
	panels := (l.cols + 11) / 12
	return l.rows >= crossMinRows && panels*l.rows <= l.rows+len(l.idx)
}

// crossMinRows is the fewest rows for which labelCross forms a product.
const crossMinRows = 8192

// labelCrossProduct is labelCross by linalg.Cross.
func labelCrossProduct(ctx context.Context, x blas64.General, mean []float64, l *sparseRows, st stage) (*mat.Dense, error) {
	cross := mat.NewDense(x.Cols, l.cols, nil)
	err := linalg.Cross(ctx, x, mean, l.cols, func(r int, dst []float64) {
		idx, val := l.row(r)
		for k, j := range idx {
			dst[j] += val[k]
		}
	}, cross.RawMatrix(), func(done int) error {
		return st.checkpoint(ctx, float64(done)/float64(x.Rows))
	})
	return cross, err
}

// labelCrossRows is labelCross a row at a time: each row, centred, is
// added to the columns of its labels.
func labelCrossRows(ctx context.Context, x blas64.General, mean []float64, l *sparseRows, st stage) (*mat.Dense, error) {
	d, c := x.Cols, l.cols
	crossT := make([]float64, c*d) // c×D, row-major: column j of XcᵀL is crossT[j*d:(j+1)*d]
	// Each goroutine's accumulator is its c×D part of crossT, then one
	// centred row.
	err := rowBlocks(ctx, x.Rows, st, func() any { return make([]float64, (c+1)*d) }, func(acc any, lo, hi int) {
		ct := acc.([]float64)
		xc := blas64.Vector{N: d, Inc: 1, Data: ct[c*d:]}
		for i := lo; i < hi; i++ {
			idx, val := l.row(i)
			if len(idx) == 0 {
				continue
			}
			for m, v := range x.Data[i*x.Stride : i*x.Stride+d] {
				xc.Data[m] = v - mean[m]
			}
			for k, j := range idx {
				blas64.Axpy(val[k], xc, blas64.Vector{N: d, Inc: 1, Data: ct[int(j)*d : (int(j)+1)*d]})
			}
		}
	}, func(acc any) {
		for i, v := range acc.([]float64)[:c*d] {
			crossT[i] += v
		}
	})
	if err != nil {
		return nil, err
	}
	cross := mat.NewDense(d, c, nil)
	for j := range c {
		cross.SetCol(j, crossT[j*d:(j+1)*d])
	}
	return cross, nil
}

// rowBlocks runs work over the rows 0…n−1 on every core: each goroutine
// gets an accumulator from newAcc and blocks of rows, and once all rows are
// done, merge folds each accumulator in, one after the other. Between
// rounds of blocks it reports progress and stops when ctx is canceled.
func rowBlocks(ctx context.Context, n int, st stage, newAcc func() any, work func(acc any, lo, hi int), merge func(acc any)) error {
	workers := max(1, min(runtime.GOMAXPROCS(0), (n+blockRows-1)/blockRows))
	accs := make([]any, workers)
	for i := range accs {
		accs[i] = newAcc()
	}
	round := workers * blockRows
	for r0 := 0; r0 < n; r0 += round {
		var wg sync.WaitGroup
		for i, acc := range accs {
			lo, hi := r0+i*blockRows, min(n, r0+(i+1)*blockRows)
			if lo >= hi {
				continue
			}
			wg.Go(func() { work(acc, lo, hi) })
		}
		wg.Wait()
		if err := ctx.Err(); err != nil { // no progress reported once canceled
			return err
		}
		if err := st.checkpoint(ctx, float64(min(n, r0+round))/float64(n)); err != nil {
			return err
		}
	}
	for _, acc := range accs {
		merge(acc)
	}
	return nil
}

// centredLabelGram forms LcᵀLc = LᵀL − N·l̄l̄ᵀ from the sparse rows: the
// products of 0/1 labels are exact counts, so the subtraction is safe.
func centredLabelGram(l *sparseRows, mean []float64) *mat.SymDense {
	c := l.cols
	g := make([]float64, c*c)
	for i := range l.rows {
		idx, val := l.row(i)
		for a, ja := range idx {
			for b, jb := range idx {
				g[int(ja)*c+int(jb)] += val[a] * val[b]
			}
		}
	}
	out := mat.NewSymDense(c, nil)
	n := float64(l.rows)
	for a := range c {
		for b := a; b < c; b++ {
			out.SetSym(a, b, g[a*c+b]-n*mean[a]*mean[b])
		}
	}
	return out
}

// symmetrize writes (a + aᵀ)/2 into s.
func symmetrize(a *mat.Dense, s *mat.SymDense) {
	n, _ := a.Dims()
	for i := range n {
		for j := i; j < n; j++ {
			s.SetSym(i, j, (a.At(i, j)+a.At(j, i))/2)
		}
	}
}

func axpy(alpha float64, x, y []float64) {
	for i, v := range x {
		y[i] += alpha * v
	}
}
