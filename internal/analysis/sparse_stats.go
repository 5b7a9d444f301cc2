package analysis

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/sparse"
)

// The statistics of sparse features. With X in CSR form (Input.Sparse) the
// centred statistics are formed from the uncentred sparse products, which
// never densify X:
//
//	XcᵀXc        = XᵀX − N·μμᵀ,
//	Xcᵀ·diag(w)·Xc = XᵀWX − sμᵀ − μsᵀ + (Σw)·μμᵀ,  s = XᵀW1,
//	XcᵀL         = XᵀL − N·μl̄ᵀ,
//
// (sparse.Gram, sparse.TMul, sparse.ColumnSums), and the training rows are
// projected as X·P − 1·μᵀP (sparse.Mul).
//
// # Cancellation
//
// The subtraction loses digits when a feature's mean is large next to its
// spread: the entries of XᵀX carry a rounding error of about
// u·(Σx_a² + N·μ_a²) (u = 2⁻⁵³), and the centred entry is only
// Σ(x_a − μ_a)². Their ratio,
//
//	κ_a = (Σ_i x_ia² + N·μ_a²) / Σ_i (x_ia − μ_a)²,
//
// bounds the relative error the subtraction adds to feature a's row: for a
// column whose non-zeros (a fraction p of the rows) share one value it is
// (1 + p)/(1 − p), about 1 on text and bag-of-words data, but it grows
// without bound as a column fills with a common non-zero value (a column
// of ones has κ = ∞). So κ_a is computed for every feature, exactly (from
// the centred non-zeros and the zeros' count, O(nnz)), and the rows of the
// statistics of every feature with κ_a > maxCancellation are formed again
// from the centred values of that feature (repairColumns): then every
// entry keeps a relative error of order κ·u ≤ 1e4·u ≈ 2e-12 of its
// features' centred scale, and the eigenvalues agree with the dense path's
// to about 1e-11 relative to the largest (the tests hold them to 1e-10).
// The repair costs O(nnz + N·b) per such feature and N·b memory for b of
// them: nothing on sparse data, about a dense copy of the columns repaired
// otherwise.

// maxCancellation is the largest κ_a left to the subtraction.
const maxCancellation = 1e4

// computeStatsSparse is computeStats for sparse X: what spec asks for,
// centred by the column means, from the sparse products.
func computeStatsSparse(ctx context.Context, x *sparse.CSR, spec statsSpec, st stage) (*stats, error) {
	n, d := x.Dims()
	s := &stats{n: n, d: d}
	sums, err := sparse.ColumnSums(ctx, x, nil)
	if err != nil {
		return nil, err
	}
	s.mean = make([]float64, d)
	for j, v := range sums {
		s.mean[j] = v / float64(n)
	}
	bad := badColumns(x, s.mean)
	if err := st.checkpoint(ctx, 0.05); err != nil {
		return nil, err
	}
	// The rest of the stage is shared by the products by their work.
	var costs [3]float64 // gram, weighted gram, labels
	nnz := float64(x.NNZ())
	perRow := nnz / float64(max(n, 1))
	if spec.gram {
		costs[0] = nnz * (perRow + 1) / 2
	}
	if spec.weights != nil {
		costs[1] = nnz * (perRow + 1) / 2
	}
	if spec.labels != nil {
		costs[2] = nnz * float64(len(spec.labels.idx)+1) / float64(max(n, 1))
	}
	part := st.shares(0.05, 0.9, costs[:])
	gram := func(weights []float64, part stage) (*mat.SymDense, error) {
		g := mat.NewSymDense(d, nil)
		if err := sparse.Gram(ctx, x, weights, g.RawSymmetric(), func(f float64) error { return part.checkpoint(ctx, f) }); err != nil {
			return nil, err
		}
		raw := g.RawSymmetric()
		if weights == nil {
			centreGram(raw.Data, raw.Stride, d, s.mean, s.mean, float64(n))
			return g, nil
		}
		ws, err := sparse.ColumnSums(ctx, x, weights)
		if err != nil {
			return nil, err
		}
		wsum := 0.0
		for _, w := range weights {
			wsum += w
		}
		for a := range d {
			row := raw.Data[a*raw.Stride:]
			for b := a; b < d; b++ {
				row[b] -= ws[a]*s.mean[b] + s.mean[a]*ws[b] - wsum*s.mean[a]*s.mean[b]
			}
		}
		return g, nil
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
		l := spec.labels.csr()
		s.cross = mat.NewDense(d, l.C, nil)
		p := part(2)
		if err := sparse.TMul(ctx, x, l, s.cross.RawMatrix(), func(f float64) error { return p.checkpoint(ctx, f) }); err != nil {
			return nil, err
		}
		s.labelStats(spec)
		cr := s.cross.RawMatrix()
		for a := range d { // XᵀL − N·μl̄ᵀ
			row := cr.Data[a*cr.Stride : a*cr.Stride+l.C]
			for j := range row {
				row[j] -= float64(n) * s.mean[a] * s.labelMean[j]
			}
		}
	}
	if len(bad) > 0 {
		if err := s.repairColumns(ctx, x, bad, spec); err != nil {
			return nil, err
		}
	}
	return s, st.checkpoint(ctx, 1)
}

// centreGram subtracts n·μνᵀ from the upper triangle of the d×d matrix in
// data (stride ld).
func centreGram(data []float64, ld, d int, mu, nu []float64, n float64) {
	for a := range d {
		row := data[a*ld:]
		na := n * mu[a]
		for b := a; b < d; b++ {
			row[b] -= na * nu[b]
		}
	}
}

// badColumns lists the features whose κ_a (see above) exceeds
// maxCancellation: Σx² and the centred Σ(x − μ)² from the non-zeros, the
// zeros adding μ² each.
func badColumns(x *sparse.CSR, mean []float64) []int {
	n, d := x.Dims()
	sq := make([]float64, d)
	cen := make([]float64, d)
	count := make([]int, d)
	for k, j := range x.Ind {
		v := x.Val[k]
		sq[j] += v * v
		c := v - mean[j]
		cen[j] += c * c
		count[j]++
	}
	var bad []int
	for a := range d {
		m2 := mean[a] * mean[a]
		centred := cen[a] + float64(n-count[a])*m2
		if sq[a]+float64(n)*m2 > maxCancellation*centred {
			bad = append(bad, a)
		}
	}
	return bad
}

// repairColumns forms again, from the centred values z_a = x_a − μ_a of
// the features in bad, their rows of the statistics spec asked for:
//
//	C_ab = Σ_i w_i z_ia z_ib               (b also in bad),
//	C_ab = Σ_i w_i z_ia x_ib − μ_b·Σ_i w_i z_ia   (b not in bad),
//	(XcᵀL)_aj = Σ_i z_ia l_ij,
//
// whose terms carry no large common part to cancel (for b not in bad,
// κ_b ≤ maxCancellation bounds what the second term can take). One pass
// over the rows: O(nnz·b + N·b²), N·b memory.
func (s *stats) repairColumns(ctx context.Context, x *sparse.CSR, bad []int, spec statsSpec) error {
	n, d := x.Dims()
	nb := len(bad)
	slot := make([]int, d)
	for j := range slot {
		slot[j] = -1
	}
	for t, a := range bad {
		slot[a] = t
	}
	type acc struct {
		weights []float64
		sym     *mat.SymDense
		rows    []float64 // nb×d: Σ w z_a x_b
		zsum    []float64 // Σ w z_a
		inner   []float64 // nb×nb: Σ w z_a z_b
	}
	var accs []*acc
	if spec.gram {
		accs = append(accs, &acc{sym: s.gram})
	}
	if spec.weights != nil {
		accs = append(accs, &acc{sym: s.wgram, weights: spec.weights})
	}
	for _, a := range accs {
		a.rows, a.zsum, a.inner = make([]float64, nb*d), make([]float64, nb), make([]float64, nb*nb)
	}
	var cross []float64 // nb×c
	var c int
	if spec.labels != nil {
		c = spec.labels.cols
		cross = make([]float64, nb*c)
	}
	z := make([]float64, nb)
	for i := range n {
		if i%blockRows == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		for t, a := range bad {
			z[t] = -s.mean[a]
		}
		ind, val := x.Row(i)
		for k, j := range ind {
			if t := slot[j]; t >= 0 {
				z[t] += val[k]
			}
		}
		for _, a := range accs {
			w := 1.0
			if a.weights != nil {
				w = a.weights[i]
			}
			for t, zt := range z {
				wz := w * zt
				a.zsum[t] += wz
				row := a.rows[t*d : (t+1)*d]
				for k, j := range ind {
					row[j] += wz * val[k]
				}
				inner := a.inner[t*nb : (t+1)*nb]
				for u, zu := range z {
					inner[u] += wz * zu
				}
			}
		}
		if cross != nil {
			lind, lval := spec.labels.row(i)
			for t, zt := range z {
				row := cross[t*c : (t+1)*c]
				for k, j := range lind {
					row[j] += zt * lval[k]
				}
			}
		}
	}
	for _, a := range accs {
		for t, fa := range bad {
			for b := range d {
				v := a.rows[t*d+b] - s.mean[b]*a.zsum[t]
				if u := slot[b]; u >= 0 {
					v = a.inner[t*nb+u]
				}
				a.sym.SetSym(fa, b, v)
			}
		}
	}
	for t, a := range bad {
		for j := range c {
			s.cross.Set(a, j, cross[t*c+j])
		}
	}
	return nil
}

// labelStats fills the label means and, if spec asks, LcᵀLc.
func (s *stats) labelStats(spec statsSpec) {
	c := spec.labels.cols
	s.labelMean = make([]float64, c)
	for i := range s.n {
		idx, val := spec.labels.row(i)
		for k, j := range idx {
			s.labelMean[j] += val[k]
		}
	}
	for j := range s.labelMean {
		s.labelMean[j] /= float64(s.n)
	}
	if spec.labelGram {
		s.labelGram = centredLabelGram(spec.labels, s.labelMean)
	}
}

// csr views the sparse rows as a sparse.CSR (the row pointers copied to
// int64; the entries shared).
func (s *sparseRows) csr() *sparse.CSR {
	ptr := make([]int64, len(s.ptr))
	for i, p := range s.ptr {
		ptr[i] = int64(p)
	}
	return &sparse.CSR{R: s.rows, C: s.cols, Ptr: ptr, Ind: s.idx, Val: s.val}
}

// newRowSpaceSparse is newRowSpace for sparse X: (X − 1·shiftᵀ)ᵀ is formed
// dense (D×N, as on the dense path) from the entries.
func newRowSpaceSparse(ctx context.Context, x *sparse.CSR, shift []float64, st stage) (*rowSpace, error) {
	n, d := x.Dims()
	at := make([]float64, d*n)
	if shift != nil {
		for j := range d {
			row := at[j*n : (j+1)*n]
			for i := range row {
				row[i] = -shift[j]
			}
		}
	}
	for i := range n {
		ind, val := x.Row(i)
		for k, j := range ind {
			at[int(j)*n+i] += val[k]
		}
	}
	return factorRowSpace(ctx, at, n, d, st)
}

// sparseColumnMaxAbs is scanDense's maxAbs for sparse X (its zeros count as 0).
func sparseColumnMaxAbs(x *sparse.CSR) []float64 {
	m := make([]float64, x.C)
	for k, j := range x.Ind {
		m[j] = max(m[j], math.Abs(x.Val[k]))
	}
	return m
}

// checkSparse refuses a malformed or non-finite sparse X, naming the row
// and the feature.
func checkSparse(x *sparse.CSR) error {
	if err := x.Check(); err != nil {
		return invalid("", "the sparse features are not usable: %v; the data must be finite", err)
	}
	return nil
}

// centredSqNorms is the column means of X and the squared norms of its
// centred rows, ‖x_i − μ‖², from the sparse rows:
// ‖μ‖² + Σ_{j ∈ row i} x_ij(x_ij − 2μ_j).
func centredSqNorms(in Input) (mean, norms []float64) {
	if in.Sparse == nil {
		mean = columnMeans(in.X)
		n, d := in.X.Dims()
		norms = make([]float64, n)
		raw := in.X.RawMatrix()
		for i := range n {
			for j, v := range raw.Data[i*raw.Stride : i*raw.Stride+d] {
				c := v - mean[j]
				norms[i] += c * c
			}
		}
		return mean, norms
	}
	x := in.Sparse
	sums, _ := sparse.ColumnSums(context.Background(), x, nil) // no context to stop: no error
	mean = make([]float64, x.C)
	mu2 := 0.0
	for j, v := range sums {
		mean[j] = v / float64(x.R)
		mu2 += mean[j] * mean[j]
	}
	norms = make([]float64, x.R)
	for i := range x.R {
		ind, val := x.Row(i)
		s := mu2
		for k, j := range ind {
			s += val[k] * (val[k] - 2*mean[j])
		}
		norms[i] = max(s, 0)
	}
	return mean, norms
}

// densified returns in with the sparse features made dense, for the
// methods whose algebra needs the rows themselves (pairwise distances),
// and the note that says so; in itself when X is already dense.
func (in Input) densified(method string) (Input, string) {
	if in.Sparse == nil {
		return in, ""
	}
	n, d := in.Sparse.Dims()
	out := in
	out.X, out.Sparse = in.Sparse.Dense(), nil
	return out, fmt.Sprintf("%s compares the rows pairwise, so the sparse features were made dense for this fit (%d × %d).", method, n, d)
}
