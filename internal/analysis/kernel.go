package analysis

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"mldr/internal/sparse"
)

// Kernels on feature rows, for kpca and kmddm (kernel_methods.go).

// Kernel is a kernel function on feature rows: k(a, b) =
// exp(−γ‖a − b‖²) (KernelRBF), (γ·aᵀb + c₀)^degree (KernelPoly) or aᵀb
// (KernelLinear).
type Kernel struct {
	// Kind is KernelRBF, KernelPoly or KernelLinear.
	Kind string `json:"kind"`
	// Gamma is γ of the rbf and poly kernels.
	Gamma float64 `json:"gamma,omitempty"`
	// Degree and Coef0 are the poly kernel's degree and c₀.
	Degree int     `json:"degree,omitempty"`
	Coef0  float64 `json:"coef0,omitempty"`
}

// KernelBasis is what a kernel model (kpca, kmddm) needs besides its
// dual coefficients to project a row x: the kernel and the basis rows
// b_1…b_B the coefficients belong to. A row projects to
// (k(x) − Model.Means)·P, with k(x)_j = Kernel(x, b_j).
type KernelBasis struct {
	Kernel Kernel
	// Rows are the B basis rows (B×D), in the features the model was
	// fitted on: every training row for the exact dual, the Nyström
	// landmarks otherwise.
	Rows *mat.Dense
	// Index holds each basis row's position among the rows fitted.
	Index []int
}

// Rows returns the kernel between the rows of x (N×D, dense or a
// *sparse.CSR, made dense a block of rows at a time) and the rows of
// basis (B×D): an N×B matrix (see blocks).
func (k Kernel) Rows(ctx context.Context, x mat.Matrix, basis *mat.Dense) (*mat.Dense, error) {
	n, _ := x.Dims()
	nb, _ := basis.Dims()
	out := mat.NewDense(n, nb, nil)
	err := k.blocks(ctx, x, basis, func(i0 int, kb *mat.Dense) error {
		r, _ := kb.Dims()
		out.Slice(i0, i0+r, 0, nb).(*mat.Dense).Copy(kb)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// blocks hands f the kernel between blocks of kernelBlock rows of x
// (dense or a *sparse.CSR, made dense a block at a time) and the rows of
// basis, in order: i0 is the block's first row, kb its rows×B kernel
// (a buffer reused by the next block). The context is checked between
// blocks. For the rbf kernel both sides are shifted by the column means of
// basis before ‖a‖² + ‖b‖² − 2aᵀb is formed (distances do not change, and
// far less is lost to cancellation); a tiny negative distance from
// rounding counts as 0.
func (k Kernel) blocks(ctx context.Context, x mat.Matrix, basis *mat.Dense, f func(i0 int, kb *mat.Dense) error) error {
	n, d := x.Dims()
	nb, db := basis.Dims()
	if d != db {
		return invalid("", "the rows have %d features; the model was fitted on %d", d, db)
	}
	if n == 0 {
		return nil
	}
	var shift, bsq []float64
	b := basis
	if k.Kind == KernelRBF {
		shift = columnMeans(basis)
		b, bsq = centredBy(basis, shift)
	}
	br := b.RawMatrix()
	blk := mat.NewDense(min(kernelBlock, n), d, nil)
	kbuf := mat.NewDense(min(kernelBlock, n), nb, nil)
	xsq := make([]float64, min(kernelBlock, n))
	for i0 := 0; i0 < n; i0 += kernelBlock {
		if err := ctx.Err(); err != nil {
			return err
		}
		rows := min(kernelBlock, n-i0)
		xb := blk.Slice(0, rows, 0, d).(*mat.Dense)
		switch v := x.(type) {
		case *sparse.CSR:
			xb.Copy(v.RowRange(i0, i0+rows).Dense())
		case *mat.Dense:
			xb.Copy(v.Slice(i0, i0+rows, 0, d))
		default:
			for r := range rows {
				for j := range d {
					xb.Set(r, j, x.At(i0+r, j))
				}
			}
		}
		if shift != nil {
			for r := range rows {
				row := xb.RawRowView(r)
				xsq[r] = 0
				for j := range row {
					row[j] -= shift[j]
					xsq[r] += row[j] * row[j]
				}
			}
		}
		kb := kbuf.Slice(0, rows, 0, nb).(*mat.Dense)
		dst := kb.RawMatrix()
		blas64.Gemm(blas.NoTrans, blas.Trans, 1, xb.RawMatrix(), br, 0, dst)
		for r := range rows {
			k.apply(dst.Data[r*dst.Stride:r*dst.Stride+nb], xsq, bsq, r)
		}
		if err := f(i0, kb); err != nil {
			return err
		}
	}
	return nil
}

// apply turns the inner products of one row with the basis rows into
// kernel values; xsq and bsq are the squared norms (rbf only), r the
// row's index in xsq.
func (k Kernel) apply(row, xsq, bsq []float64, r int) {
	switch k.Kind {
	case KernelRBF:
		for j, v := range row {
			row[j] = math.Exp(-k.Gamma * max(xsq[r]+bsq[j]-2*v, 0))
		}
	case KernelPoly:
		for j, v := range row {
			row[j] = powInt(k.Gamma*v+k.Coef0, k.Degree)
		}
	}
}

// pair is k(a, b) for two rows (the rbf kernel from the differences
// themselves).
func (k Kernel) pair(a, b []float64) float64 {
	s := 0.0
	if k.Kind == KernelRBF {
		for j, v := range a {
			t := v - b[j]
			s += t * t
		}
		return math.Exp(-k.Gamma * s)
	}
	for j, v := range a {
		s += v * b[j]
	}
	if k.Kind == KernelPoly {
		return powInt(k.Gamma*s+k.Coef0, k.Degree)
	}
	return s
}

// diag returns k(x_i, x_i) for every row of x (dense).
func (k Kernel) diag(x *mat.Dense) []float64 {
	n, _ := x.Dims()
	out := make([]float64, n)
	for i := range n {
		switch k.Kind {
		case KernelRBF:
			out[i] = 1
		default:
			row := x.RawRowView(i)
			s := 0.0
			for _, v := range row {
				s += v * v
			}
			if k.Kind == KernelPoly {
				s = powInt(k.Gamma*s+k.Coef0, k.Degree)
			}
			out[i] = s
		}
	}
	return out
}

// powInt is v^e for e ≥ 1 by repeated squaring.
func powInt(v float64, e int) float64 {
	r := 1.0
	for e > 0 {
		if e&1 == 1 {
			r *= v
		}
		v *= v
		e >>= 1
	}
	return r
}

// String names the kernel with its parameters, for notes.
func (k Kernel) String() string {
	switch k.Kind {
	case KernelRBF:
		return fmt.Sprintf("rbf exp(−γ‖a − b‖²), γ = %.6g", k.Gamma)
	case KernelPoly:
		return fmt.Sprintf("poly (γ·aᵀb + c₀)^%d, γ = %.6g, c₀ = %.6g", k.Degree, k.Gamma, k.Coef0)
	}
	return "linear aᵀb"
}

// Landmark choices of the Nyström route.
const (
	// SamplingKMeansPP chooses landmarks by k-means++ seeding in the
	// kernel's feature space (Oglic & Gärtner, ICML 2017): each next
	// landmark is a row drawn with probability proportional to its
	// squared feature-space distance to the nearest landmark chosen,
	// k(x, x) + k(z, z) − 2k(x, z). The default.
	SamplingKMeansPP = "kmeans++"
	// SamplingUniform draws the landmarks uniformly without replacement.
	SamplingUniform = "uniform"
)

// landmarkStream is the second word of the landmark generator's PCG
// state, so that a seed gives other numbers here than in the splits.
const landmarkStream = 0x6c616e646d61726b // "landmark"

// chooseLandmarks returns the indices (ascending) of m rows of x chosen
// as Nyström landmarks by how (SamplingKMeansPP or SamplingUniform) with
// the generator seeded by seed; with m = N, every row in order.
func chooseLandmarks(ctx context.Context, x *mat.Dense, k Kernel, m int, how string, seed uint64, st stage) ([]int, error) {
	n, _ := x.Dims()
	if m >= n {
		return seq(n), nil
	}
	rng := rand.New(rand.NewPCG(seed, landmarkStream))
	if how == SamplingUniform {
		idx := rng.Perm(n)[:m]
		slices.Sort(idx)
		return idx, nil
	}
	diag := k.diag(x)
	dist := make([]float64, n) // squared feature-space distance to the nearest landmark
	chosen := make([]bool, n)
	idx := make([]int, 0, m)
	pick := func(i int) error {
		chosen[i] = true
		idx = append(idx, i)
		zi := x.RawRowView(i)
		for j := range n {
			dj := 0.0
			if !chosen[j] {
				dj = max(diag[j]+diag[i]-2*k.pair(x.RawRowView(j), zi), 0)
			}
			if len(idx) == 1 || dj < dist[j] {
				dist[j] = dj
			}
		}
		return st.checkpoint(ctx, float64(len(idx))/float64(m))
	}
	if err := pick(rng.IntN(n)); err != nil {
		return nil, err
	}
	for len(idx) < m {
		total := 0.0
		for _, v := range dist {
			total += v
		}
		next := -1
		if total > 0 {
			u := rng.Float64() * total
			for j, v := range dist {
				if v <= 0 {
					continue
				}
				next = j
				if u -= v; u < 0 {
					break
				}
			}
		}
		if next < 0 { // every row left coincides with a landmark: draw uniformly among them
			left := make([]int, 0, n-len(idx))
			for j := range n {
				if !chosen[j] {
					left = append(left, j)
				}
			}
			next = left[rng.IntN(len(left))]
		}
		if err := pick(next); err != nil {
			return nil, err
		}
	}
	slices.Sort(idx)
	return idx, nil
}

// seq is 0, 1, …, n−1.
func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// rowsAt copies the rows idx of x.
func rowsAt(x *mat.Dense, idx []int) *mat.Dense {
	_, d := x.Dims()
	out := mat.NewDense(len(idx), d, nil)
	for r, i := range idx {
		out.SetRow(r, x.RawRowView(i))
	}
	return out
}

// Project computes (k(x) − means)·p for the rows of x (dense or a
// *sparse.CSR), k(x) the kernel between x and the basis rows, a block of
// rows at a time (never the whole N×B kernel): how a kernel model projects
// rows (Model.Transform), and so must anything that applies a stored
// kernel model, to give the same numbers. means has B entries and p B
// rows; an x with other columns than the basis rows is refused.
func (b *KernelBasis) Project(x mat.Matrix, means []float64, p *mat.Dense) (*mat.Dense, error) {
	n, _ := x.Dims()
	_, c := p.Dims()
	out := mat.NewDense(n, c, nil)
	err := b.Kernel.blocks(context.Background(), x, b.Rows, func(i0 int, kb *mat.Dense) error {
		z := Project(kb, means, p)
		r, _ := z.Dims()
		out.Slice(i0, i0+r, 0, c).(*mat.Dense).Copy(z)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
