package evaluate

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"mldr/internal/linalg"
	"mldr/internal/sparse"
)

// The label-space methods' regressor on sparse features. fitRidgeBias
// solves (X̃ᵀX̃ + λI)W = X̃ᵀT with X̃ = [X 1]; on sparse X it used a dense
// copy of both parts and gonum's Syrk on it, n·d²/2 multiply-adds: on a
// fold of EURLex-4K's shape (12 431 × 5 000 at 4.7 %) that was 9 of the
// 13 seconds plst's evaluation took, and 620 MB of copies. Here
//
//	X̃ᵀX̃ = [XᵀX  Xᵀ1; 1ᵀX  n]   (XᵀX by sparse.Gram: Σᵢ nnzᵢ²/2),
//	X̃ᵀT = [XᵀT; 1ᵀT]           (sparse.TMulDense),
//
// factored by linalg.Cholesky (UᵀU) and solved by two triangular solves,
// and the prediction is X·W_{1:d} + 1·w_{d+1} (sparse.Mul). The system is
// the same as the dense route's, its sums taken in another order: the
// weights agree to rounding (TestRidgeBiasSparseMatchesDense).
//
// sparseRidgeWins chooses it on the primal path (n > d + 1; the dual's
// n×n system is already small) for a density below 1/4: the sparse Gram's
// Σᵢ nnzᵢ² is at most nnz·d, so it then costs less than a quarter of the
// dense one however the entries fall. The rule reads the shape alone, so
// that EstimateMemory makes the same choice.

// sparseRidgeWins reports whether fitRidgeBiasSparse replaces the dense
// fitRidgeBias on n rows of d features holding nnz non-zeros.
func sparseRidgeWins(n, d int, nnz int64) bool {
	return n > d+1 && 4*float64(nnz) < float64(n)*float64(d)
}

// sparseDualWins reports whether fitRidgeBiasSparse replaces the dense
// fitRidgeBias on n ≤ d + 1 rows of d features holding nnz non-zeros (a
// density below 1/4): the dual system X̃X̃ᵀ + λI (n×n) is formed from the
// sparse rows (XXᵀ + 11ᵀ, sparse.Gram of Xᵀ) instead of from a dense copy
// of them, which at 47 000 rows of 203 882 features would take 77 GB.
func sparseDualWins(n, d int, nnz int64) bool {
	return n <= d+1 && 4*float64(nnz) < float64(n)*float64(d)
}

// sparseRegressor reports whether the label-space regressor is fitted on
// the sparse rows (sparseRidgeWins or sparseDualWins) rather than on a
// dense copy of them.
func sparseRegressor(n, d int, nnz int64) bool {
	return sparseRidgeWins(n, d, nnz) || sparseDualWins(n, d, nnz)
}

// fitRidgeBiasSparse is fitRidgeBias on the sparse x: the primal system
// when n > d + 1, the dual one otherwise (the push-through identity
// X̃ᵀ(X̃X̃ᵀ + λI)⁻¹ = (X̃ᵀX̃ + λI)⁻¹X̃ᵀ, exact).
func fitRidgeBiasSparse(ctx context.Context, x *sparse.CSR, t *mat.Dense, lambda float64) (*ridgeModel, error) {
	f, err := factorRidgeBiasSparse(ctx, x, lambda)
	if err != nil {
		return nil, err
	}
	return f.solve(ctx, t)
}

// ridgeFactor is the Cholesky factor U (upper) of fitRidgeBiasSparse's
// system on x — UᵀU = X̃ᵀX̃ + λI ((d+1)²), or with dual X̃X̃ᵀ + λI (n²) —
// which serves any targets: the label-space methods of a split that share
// λ solve with one factor.
type ridgeFactor struct {
	x      *sparse.CSR
	lambda float64
	dual   bool
	u      []float64
}

// factorRidgeBiasSparse forms X̃ᵀX̃ + λI from the sparse rows of x and
// factors it.
func factorRidgeBiasSparse(ctx context.Context, x *sparse.CSR, lambda float64) (*ridgeFactor, error) {
	n, d := x.Dims()
	if n <= d+1 {
		return factorRidgeDualSparse(ctx, x, lambda)
	}
	d1 := d + 1
	a := make([]float64, d1*d1)
	top := blas64.Symmetric{N: d, Stride: d1, Data: a, Uplo: blas.Upper}
	if err := sparse.Gram(ctx, x, nil, top, nil); err != nil {
		return nil, fmt.Errorf("forming the ridge system XᵀX: %w", err)
	}
	sums, err := sparse.ColumnSums(ctx, x, nil)
	if err != nil {
		return nil, err
	}
	for j, s := range sums {
		a[j*d1+d] = s
	}
	a[d*d1+d] = float64(n)
	for i := range d1 {
		a[i*d1+i] += lambda
	}
	sym := blas64.Symmetric{N: d1, Stride: d1, Data: a, Uplo: blas.Upper}
	if err := linalg.Cholesky(ctx, sym); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("the ridge system is not positive definite; use a larger lambda")
	}
	return &ridgeFactor{x: x, lambda: lambda, u: a}, nil
}

// factorRidgeDualSparse forms X̃X̃ᵀ + λI = XXᵀ + 11ᵀ + λI (n×n) from the
// sparse rows of x and factors it.
func factorRidgeDualSparse(ctx context.Context, x *sparse.CSR, lambda float64) (*ridgeFactor, error) {
	n, _ := x.Dims()
	a := make([]float64, n*n)
	k := blas64.Symmetric{N: n, Stride: n, Data: a, Uplo: blas.Upper}
	if err := sparse.Gram(ctx, x.Transpose(), nil, k, nil); err != nil {
		return nil, fmt.Errorf("forming the ridge system XXᵀ: %w", err)
	}
	for i := range n {
		row := a[i*n : (i+1)*n]
		for j := i; j < n; j++ {
			row[j]++
		}
		row[i] += lambda
	}
	if err := linalg.Cholesky(ctx, k); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("the ridge system is not positive definite; use a larger lambda")
	}
	return &ridgeFactor{x: x, lambda: lambda, dual: true, u: a}, nil
}

// solve returns the ridge model of targets t (n×c) on the factored rows.
func (f *ridgeFactor) solve(ctx context.Context, t *mat.Dense) (*ridgeModel, error) {
	if f.dual {
		return f.solveDual(ctx, t)
	}
	x := f.x
	n, d := x.Dims()
	_, c := t.Dims()
	d1 := d + 1
	w := mat.NewDense(d1, c, nil)
	wr := w.RawMatrix()
	if err := sparse.TMulDense(ctx, x, t.RawMatrix(), blas64.General{Rows: d, Cols: c, Stride: wr.Stride, Data: wr.Data[:d*wr.Stride]}); err != nil {
		return nil, fmt.Errorf("forming the ridge system XᵀT: %w", err)
	}
	last := wr.Data[d*wr.Stride : d*wr.Stride+c]
	for i := range n {
		for j, v := range t.RawRowView(i) {
			last[j] += v
		}
	}
	u := blas64.Triangular{N: d1, Stride: d1, Data: f.u, Uplo: blas.Upper, Diag: blas.NonUnit}
	if err := linalg.SolveUpperT(ctx, u, wr); err != nil { // Uᵀ·Y = X̃ᵀT
		return nil, err
	}
	blas64.Trsm(blas.Left, blas.NoTrans, 1, u, wr) // U·W = Y
	return &ridgeModel{w: w, bias: true}, nil
}

// solveDual is solve on the dual system: α = (X̃X̃ᵀ + λI)⁻¹T, then
// W = X̃ᵀα, its last row (the bias) 1ᵀα.
func (f *ridgeFactor) solveDual(ctx context.Context, t *mat.Dense) (*ridgeModel, error) {
	x := f.x
	n, d := x.Dims()
	_, c := t.Dims()
	alpha := mat.DenseCopyOf(t)
	ar := alpha.RawMatrix()
	u := blas64.Triangular{N: n, Stride: n, Data: f.u, Uplo: blas.Upper, Diag: blas.NonUnit}
	if err := linalg.SolveUpperT(ctx, u, ar); err != nil { // Uᵀ·Y = T
		return nil, err
	}
	blas64.Trsm(blas.Left, blas.NoTrans, 1, u, ar) // U·α = Y
	w := mat.NewDense(d+1, c, nil)
	wr := w.RawMatrix()
	if err := sparse.TMulDense(ctx, x, ar, blas64.General{Rows: d, Cols: c, Stride: wr.Stride, Data: wr.Data[:d*wr.Stride]}); err != nil {
		return nil, fmt.Errorf("forming the ridge weights Xᵀα: %w", err)
	}
	last := wr.Data[d*wr.Stride : d*wr.Stride+c]
	for i := range n {
		for j, v := range alpha.RawRowView(i) {
			last[j] += v
		}
	}
	return &ridgeModel{w: w, bias: true}, nil
}

// predictSparse is predict for a bias model on sparse rows:
// X·W_{1:d} + 1·w_{d+1}.
func (r *ridgeModel) predictSparse(ctx context.Context, x *sparse.CSR) (*mat.Dense, error) {
	n, d := x.Dims()
	_, c := r.w.Dims()
	out := mat.NewDense(n, c, nil)
	wr := r.w.RawMatrix()
	if err := sparse.Mul(ctx, x, blas64.General{Rows: d, Cols: c, Stride: wr.Stride, Data: wr.Data[:d*wr.Stride]}, out.RawMatrix()); err != nil {
		return nil, err
	}
	bias := r.w.RawRowView(d)
	for i := range n {
		row := out.RawRowView(i)
		for j, b := range bias {
			row[j] += b
		}
	}
	return out, nil
}
