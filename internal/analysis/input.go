package analysis

import (
	"fmt"
	"math"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"mldr/internal/sparse"
)

// Input is what a method is fitted on.
type Input struct {
	// X is the N×D feature matrix; nil when Sparse holds it.
	X *mat.Dense
	// Sparse is the N×D feature matrix in CSR form, for data whose
	// features are mostly zero; nil when X holds it. Exactly one of X and
	// Sparse is set. The methods form their statistics from the sparse
	// products without densifying it (see sparse_stats.go); lpp and kcplst,
	// which compare the rows pairwise, make it dense and say so in
	// Model.Notes.
	Sparse *sparse.CSR
	// Y is the N×q label matrix: 0/1 for multi-label data, or, for
	// multi-dimensional data, each class variable's category index
	// 0…K_j−1. It is nil when Labels holds them.
	Y *mat.Dense
	// Labels is the N×q 0/1 label matrix of multi-label data in CSR form
	// (its stored values all 1), for label spaces too wide to hold dense
	// (13 330 labels on a million rows would take 100 GiB); nil when Y
	// holds them. Exactly one of Y and Labels is set. Every method reads
	// the labels through their ones (labelRows), so both give the same
	// fit.
	Labels *sparse.CSR
	// Classes holds K_j, the number of categories of each class variable,
	// for multi-dimensional data; it is nil for multi-label data.
	Classes []int
	// FeatureNames optionally names the D features, for messages; nil
	// names them by position ("feature 3").
	FeatureNames []string

	path  pathChoice  // tests force the D×D or the N×N path with it
	route routeChoice // tests force the matrix-free or the Gram route with it
	// shard, when set, is where the statistics come from: the fits of
	// ShardStats and FitFromPartial (shards.go) hand their statsSpec to it.
	shard *shardHook
	// means are the column means of X that validation found (knownMean).
	means *knownMeans
	// shared, when set, keeps work that several fits on the same rows
	// share (WithShared).
	shared *Shared
}

// featureName names feature j (0-based) for a message.
func (in Input) featureName(j int) string {
	if j < len(in.FeatureNames) {
		return fmt.Sprintf("feature %q", in.FeatureNames[j])
	}
	return fmt.Sprintf("feature %d", j+1)
}

// minSquarable is the smallest magnitude whose square is a normal float64
// (√2⁻¹⁰²², about 1.5e-154): below it the squares lose precision, and
// below about 2.2e-162 they are 0.
var minSquarable = math.Sqrt(0x1p-1022)

// checkScale refuses features whose squares overflow or underflow float64:
// the second moments every method forms (XᵀX, XᵀY, distances) would be
// infinite, or 0, and the method would fail with a message about rank or
// non-finite matrices that does not say why. A feature overflows when its
// largest magnitude M has 4·N·M² above the largest float64 (a centred value
// is at most 2M, and N of their squares are summed); it underflows when M
// is not 0 but M² is below the smallest normal float64.
// maxAbs holds the largest magnitude of each column.
func (in Input) checkScale(maxAbs []float64) error {
	n, _ := in.dims()
	big := math.Sqrt(math.MaxFloat64 / (4 * float64(n)))
	for j, m := range maxAbs {
		switch {
		case m > big:
			return unservable("", 0, "%s has values up to %.3g in magnitude; with %d rows the sums of their squares overflow float64 "+
				"(values must stay below %.3g): rescale the features, e.g. divide the column by a power of ten or standardise it",
				in.featureName(j), m, n, big)
		case m > 0 && m < minSquarable:
			return unservable("", 0, "%s has no value larger than %.3g in magnitude; their squares underflow float64 "+
				"(values must reach %.3g), so the column would count as constant: rescale the features, e.g. multiply the column by a power of ten or standardise it",
				in.featureName(j), m, minSquarable)
		}
	}
	return nil
}

// dims is N and D, from X or Sparse.
func (in Input) dims() (n, d int) {
	if in.Sparse != nil {
		return in.Sparse.Dims()
	}
	return in.X.Dims()
}

// matrix is the feature matrix, X or Sparse, as a mat.Matrix (Project
// takes either).
func (in Input) matrix() mat.Matrix {
	if in.Sparse != nil {
		return in.Sparse
	}
	return in.X
}

// MultiDim reports whether the labels are class variables.
func (in Input) MultiDim() bool { return in.Classes != nil }

// SelectRows returns a copy of the rows of in (in that order): sparse
// features and labels stay sparse; Classes and FeatureNames are shared.
func (in Input) SelectRows(rows []int) Input {
	out := Input{Classes: in.Classes, FeatureNames: in.FeatureNames}
	if in.Labels != nil {
		out.Labels = in.Labels.SelectRows(rows)
	} else {
		_, q := in.Y.Dims()
		out.Y = mat.NewDense(len(rows), q, nil)
		for i, r := range rows {
			out.Y.SetRow(i, in.Y.RawRowView(r))
		}
	}
	if in.Sparse != nil {
		out.Sparse = in.Sparse.SelectRows(rows)
		return out
	}
	_, d := in.X.Dims()
	out.X = mat.NewDense(len(rows), d, nil)
	for i, r := range rows {
		out.X.SetRow(i, in.X.RawRowView(r))
	}
	return out
}

// scanDense reads x once, on every core: the largest magnitude of every
// column, the mean of every column, and whether every value is finite: ok
// is false and (i, j) the place of the first NaN or infinity, row by row,
// when one is not (then maxAbs and mean are nil). Validation, the scale
// check and the statistics' centring take all three from this one pass over
// the data, which on a job's 200 MB matrix costs as much as the statistics
// of mddmp. A row is summed as Σ (v − v), which is 0 when every v is finite
// and NaN otherwise; only a row that fails is searched.
//
// The means are summed exactly as meansOfColumns sums them (the blocks of
// rowBlocks, each summed on its own and then added to its goroutine's
// total, the totals added in order), so they are the same numbers to the
// last bit.
func scanDense(x blas64.General) (maxAbs, mean []float64, i, j int, ok bool) {
	n, d := x.Rows, x.Cols
	workers := max(1, min(runtime.GOMAXPROCS(0), (n+blockRows-1)/blockRows))
	part := make([][]float64, workers) // per goroutine: maxima, sums, one block's sums
	bad := make([]int, workers)        // first bad row of each goroutine's blocks, or -1
	var wg sync.WaitGroup
	for w := range workers {
		bad[w] = -1
		wg.Go(func() {
			acc := make([]float64, 3*d)
			part[w] = acc
			m, sum, block := acc[:d], acc[d:2*d], acc[2*d:]
			for lo := w * blockRows; lo < n; lo += workers * blockRows {
				clear(block)
				for i := lo; i < min(n, lo+blockRows); i++ {
					row := x.Data[i*x.Stride : i*x.Stride+d]
					var s0, s1 float64
					k := 0
					for ; k+2 <= d; k += 2 {
						v0, v1 := row[k], row[k+1]
						s0 += v0 - v0
						s1 += v1 - v1
						block[k] += v0
						block[k+1] += v1
						if a := math.Abs(v0); a > m[k] {
							m[k] = a
						}
						if a := math.Abs(v1); a > m[k+1] {
							m[k+1] = a
						}
					}
					for ; k < d; k++ {
						v := row[k]
						s0 += v - v
						block[k] += v
						if a := math.Abs(v); a > m[k] {
							m[k] = a
						}
					}
					if s0+s1 != 0 {
						bad[w] = i
						return
					}
				}
				for k, v := range block {
					sum[k] += v
				}
			}
		})
	}
	wg.Wait()
	first := -1
	for _, i := range bad {
		if i >= 0 && (first < 0 || i < first) {
			first = i
		}
	}
	if first >= 0 {
		for j, v := range x.Data[first*x.Stride : first*x.Stride+d] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, nil, first, j, false
			}
		}
	}
	maxAbs, mean = part[0][:d], make([]float64, d)
	for w, acc := range part {
		for k, v := range acc[d : 2*d] {
			mean[k] += v
		}
		if w > 0 {
			for k, v := range acc[:d] {
				maxAbs[k] = max(maxAbs[k], v)
			}
		}
	}
	for k := range mean {
		mean[k] /= float64(n)
	}
	return maxAbs, mean, 0, 0, true
}

// knownMeans are the column means of the dense matrix x, kept from the
// validation's pass (scanDense) for the statistics of the same matrix.
type knownMeans struct {
	x    *mat.Dense
	mean []float64
}

// knownMean is the column means of in.X when validation found them, nil
// otherwise (sparse features, or X replaced since).
func (in Input) knownMean() []float64 {
	if in.means != nil && in.X != nil && in.means.x == in.X {
		return in.means.mean
	}
	return nil
}

// validate checks shapes and values: at least 2 rows, finite features
// on a scale whose squares float64 holds (checkScale), labels of the
// declared kind.
// It keeps the column means of dense features that its pass found
// (knownMean).
func (in *Input) validate() error {
	means, err := in.validateRows(2)
	in.means = means
	return err
}

// validateRows is validate with at least minRows rows (a shard may hold
// one), returning the column means of dense features that it found.
func (in Input) validateRows(minRows int) (*knownMeans, error) {
	if (in.X == nil) == (in.Sparse == nil) || (in.Y == nil) == (in.Labels == nil) {
		switch {
		case in.X != nil && in.Sparse != nil:
			return nil, invalid("", "the features are given both dense and sparse; give one")
		case in.Y != nil && in.Labels != nil:
			return nil, invalid("", "the labels are given both dense and sparse; give one")
		}
		return nil, invalid("", "features or labels are missing")
	}
	if in.Labels != nil && in.Classes != nil {
		return nil, invalid("", "class variables cannot be given as sparse labels; give them dense")
	}
	n, d := in.dims()
	ny, q := in.LabelDims()
	switch {
	case n != ny:
		return nil, invalid("", "the features have %d rows but the labels %d", n, ny)
	case n < minRows:
		return nil, unservable("", 0, "a reduction needs at least %d rows, not %d", minRows, n)
	case d < 1 || q < 1:
		return nil, invalid("", "a reduction needs at least one feature and one label")
	case in.Classes != nil && len(in.Classes) != q:
		return nil, invalid("", "%d class variables but %d category counts", q, len(in.Classes))
	}
	var maxAbs []float64
	var means *knownMeans
	if in.Sparse != nil {
		if err := checkSparse(in.Sparse); err != nil {
			return nil, err
		}
		maxAbs = sparseColumnMaxAbs(in.Sparse)
	} else {
		raw := in.X.RawMatrix()
		var mean []float64
		var i, j int
		var ok bool
		if maxAbs, mean, i, j, ok = scanDense(raw); !ok {
			return nil, invalid("", "feature %d of row %d is %v; the data must be finite", j+1, i+1, raw.Data[i*raw.Stride+j])
		}
		means = &knownMeans{x: in.X, mean: mean}
	}
	if err := in.checkScale(maxAbs); err != nil {
		return nil, err
	}
	if in.Labels != nil {
		return means, checkSparseLabels(in.Labels)
	}
	yr := in.Y.RawMatrix()
	for i := range n {
		for j, v := range yr.Data[i*yr.Stride : i*yr.Stride+q] {
			if in.Classes == nil && v != 0 && v != 1 {
				return nil, invalid("", "label %d of row %d is %v; multi-label data hold 0 or 1", j+1, i+1, v)
			}
			if in.Classes != nil && (v != math.Trunc(v) || v < 0 || int(v) >= in.Classes[j]) {
				return nil, invalid("", "class variable %d of row %d is %v, not one of its %d categories", j+1, i+1, v, in.Classes[j])
			}
		}
	}
	return means, nil
}

// sparseRows is an N×c matrix in compressed rows: the label matrices of
// multi-label data (few ones per row), one-hot class variables and the
// quadratic label kernel's feature map are all sparse.
type sparseRows struct {
	rows, cols int
	ptr        []int // row i is idx[ptr[i]:ptr[i+1]]
	idx        []int32
	val        []float64
}

func (s *sparseRows) row(i int) ([]int32, []float64) {
	return s.idx[s.ptr[i]:s.ptr[i+1]], s.val[s.ptr[i]:s.ptr[i+1]]
}

func (s *sparseRows) add(j int, v float64) {
	s.idx = append(s.idx, int32(j))
	s.val = append(s.val, v)
}

func (s *sparseRows) endRow() { s.ptr = append(s.ptr, len(s.idx)) }

func newSparse(rows, cols int) *sparseRows {
	return &sparseRows{rows: rows, cols: cols, ptr: make([]int, 1, rows+1)}
}

// checkSparseLabels checks a CSR label matrix: well formed, every stored
// value 1.
func checkSparseLabels(y *sparse.CSR) error {
	if err := y.Check(); err != nil {
		return invalid("", "the sparse labels are malformed: %v", err)
	}
	for i := range y.R {
		ind, val := y.Row(i)
		for k, v := range val {
			if v != 1 {
				return invalid("", "label %d of row %d is %v; multi-label data hold 0 or 1, and sparse labels store only their ones", ind[k]+1, i+1, v)
			}
		}
	}
	return nil
}

// LabelDims is N and q, from Y or Labels.
func (in Input) LabelDims() (n, q int) {
	if in.Labels != nil {
		return in.Labels.Dims()
	}
	return in.Y.Dims()
}

// LabelMatrix is the label matrix, Y or Labels, as a mat.Matrix (a
// label-space model's Transform takes either).
func (in Input) LabelMatrix() mat.Matrix {
	if in.Labels != nil {
		return in.Labels
	}
	return in.Y
}

// csrRows holds the ones of a CSR 0/1 matrix.
func csrRows(y *sparse.CSR) *sparseRows {
	s := newSparse(y.R, y.C)
	s.idx = make([]int32, 0, y.NNZ())
	s.val = make([]float64, 0, y.NNZ())
	for i := range y.R {
		ind, _ := y.Row(i)
		for _, j := range ind {
			s.add(int(j), 1)
		}
		s.endRow()
	}
	return s
}

// binaryRows holds the ones of a 0/1 matrix.
func binaryRows(y *mat.Dense) *sparseRows {
	n, q := y.Dims()
	s := newSparse(n, q)
	for i := range n {
		for j := range q {
			if y.At(i, j) != 0 {
				s.add(j, 1)
			}
		}
		s.endRow()
	}
	return s
}

// oneHotRows is the one-hot matrix Z (N×ΣK_j) of class variables.
func oneHotRows(y *mat.Dense, classes []int) *sparseRows {
	n, q := y.Dims()
	total := 0
	for _, k := range classes {
		total += k
	}
	s := newSparse(n, total)
	for i := range n {
		off := 0
		for j := range q {
			s.add(off+int(y.At(i, j)), 1)
			off += classes[j]
		}
		s.endRow()
	}
	return s
}

// labelRows is the 0/1 label matrix the label-based methods use: Y for
// multi-label data, the one-hot Z for multi-dimensional data.
func (in Input) labelRows() *sparseRows {
	if in.MultiDim() {
		return oneHotRows(in.Y, in.Classes)
	}
	return in.ones()
}

// ones holds the ones of the multi-label matrix, from Y or Labels.
func (in Input) ones() *sparseRows {
	if in.Labels != nil {
		return csrRows(in.Labels)
	}
	return binaryRows(in.Y)
}

// dense returns s as a dense matrix (for small c, and for tests).
func (s *sparseRows) dense() *mat.Dense {
	m := mat.NewDense(s.rows, s.cols, nil)
	for i := range s.rows {
		idx, val := s.row(i)
		for k, j := range idx {
			m.Set(i, int(j), val[k])
		}
	}
	return m
}
