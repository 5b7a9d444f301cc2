package linalg

import (
	"context"
	"fmt"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// cholBlock is the columns of a block of the Cholesky factorisation: the
// trailing update is a product over cholBlock rows (long enough for the
// kernel to run at its speed; the trailing matrix is read and written
// once per block, so fewer, longer blocks move less memory), and the
// diagonal block's factorisation (gonum's Potrf, cholBlock³/3 flops) is
// small.
const cholBlock = 256

// solveBlock is the rows of a block of the triangular solve: each block is
// solved by gonum's Trsm (its columns shared among the goroutines), and
// the rows below get its product by the packed kernel.
const solveBlock = 64

// NotPositiveDefiniteError is the error of Cholesky when the matrix is not
// (numerically) positive definite: a pivot at or after column Col was not
// positive.
type NotPositiveDefiniteError struct {
	Col int // the first column of the block whose factorisation failed
}

func (e *NotPositiveDefiniteError) Error() string {
	return fmt.Sprintf("linalg: the matrix is not positive definite (a pivot in the block from column %d is not positive)", e.Col)
}

// Cholesky factors the symmetric positive definite n×n matrix A held in the
// upper triangle of a, in place: A = UᵀU with U upper triangular, which
// overwrites that triangle (the strict lower triangle is neither read nor
// written). a.Uplo must be blas.Upper.
//
// It is the blocked right-looking algorithm (LAPACK's dpotrf by rows): for
// each block of cholBlock columns, U₁₁ = chol(A₁₁) by gonum's Potrf,
// U₁₂ = U₁₁⁻ᵀA₁₂ by SolveUpperT, and the trailing A₂₂ −= U₁₂ᵀU₁₂ by the
// packed AVX2/FMA kernel of Gram on every core, which carries all but a
// vanishing share of the n³/3 flops. ctx is checked between blocks.
//
// A matrix that is not positive definite gives a *NotPositiveDefiniteError
// (a is then partly overwritten); a cancelled ctx gives ctx.Err().
func Cholesky(ctx context.Context, a blas64.Symmetric) error {
	if a.Uplo != blas.Upper {
		return fmt.Errorf("linalg: Cholesky takes the upper triangle, not uplo %c", a.Uplo)
	}
	n, s := a.N, a.Stride
	for k0 := 0; k0 < n; k0 += cholBlock {
		if err := ctx.Err(); err != nil {
			return err
		}
		kb := min(cholBlock, n-k0)
		diag := blas64.Symmetric{N: kb, Stride: s, Data: a.Data[k0*s+k0:], Uplo: blas.Upper}
		u11, ok := lapack64.Potrf(diag)
		if !ok {
			return &NotPositiveDefiniteError{Col: k0}
		}
		rest := n - k0 - kb
		if rest == 0 {
			break
		}
		a12 := blas64.General{Rows: kb, Cols: rest, Stride: s, Data: a.Data[k0*s+k0+kb:]}
		if err := SolveUpperT(ctx, u11, a12); err != nil {
			return err
		}
		a22 := blas64.General{Rows: rest, Cols: rest, Stride: s, Data: a.Data[(k0+kb)*s+k0+kb:]}
		addAtB(-1, a12, a12, a22, true)
	}
	return ctx.Err()
}

// SolveUpperT overwrites b (n×m) with U⁻ᵀb, the solution X of UᵀX = b, for
// the n×n upper triangular u (non-unit diagonal; with the factor
// Cholesky leaves, X = L⁻¹b for A = LLᵀ, L = Uᵀ).
//
// It is blocked forward substitution: each block of solveBlock rows of X is
// solved by gonum's Trsm against its diagonal block of U, the columns of b
// shared among up to GOMAXPROCS goroutines, and the rows below it lose
// its product with the block's part of U by the packed kernel (about all
// the n²m flops). ctx is checked between blocks.
func SolveUpperT(ctx context.Context, u blas64.Triangular, b blas64.General) error {
	n, m := u.N, b.Cols
	switch {
	case u.Uplo != blas.Upper || u.Diag != blas.NonUnit:
		return fmt.Errorf("linalg: SolveUpperT takes an upper triangle with a non-unit diagonal")
	case b.Rows != n:
		return fmt.Errorf("linalg: SolveUpperT: b has %d rows for a %d×%d triangle", b.Rows, n, n)
	}
	if n == 0 || m == 0 {
		return nil
	}
	s := u.Stride
	for i0 := 0; i0 < n; i0 += solveBlock {
		if err := ctx.Err(); err != nil {
			return err
		}
		ib := min(solveBlock, n-i0)
		uii := blas64.Triangular{N: ib, Stride: s, Data: u.Data[i0*s+i0:], Uplo: blas.Upper, Diag: blas.NonUnit}
		bi := blas64.General{Rows: ib, Cols: m, Stride: b.Stride, Data: b.Data[i0*b.Stride:]}
		trsmColumns(uii, bi)
		if rest := n - i0 - ib; rest > 0 {
			ui := blas64.General{Rows: ib, Cols: rest, Stride: s, Data: u.Data[i0*s+i0+ib:]}
			below := blas64.General{Rows: rest, Cols: m, Stride: b.Stride, Data: b.Data[(i0+ib)*b.Stride:]}
			addAtB(-1, ui, bi, below, false)
		}
	}
	return nil
}

// trsmColumns overwrites b with U⁻ᵀb by gonum's Trsm, the columns of b
// split among up to GOMAXPROCS goroutines (slices of at least 64 columns).
func trsmColumns(u blas64.Triangular, b blas64.General) {
	m := b.Cols
	parts := max(1, min(runtime.GOMAXPROCS(0), m/64))
	if float64(u.N)*float64(u.N)*float64(m) < gemmSerial {
		parts = 1
	}
	solve := func(j0, j1 int) {
		part := blas64.General{Rows: b.Rows, Cols: j1 - j0, Stride: b.Stride, Data: b.Data[j0:]}
		blas64.Trsm(blas.Left, blas.Trans, 1, u, part)
	}
	if parts == 1 {
		solve(0, m)
		return
	}
	var wg sync.WaitGroup
	for p := 1; p < parts; p++ {
		wg.Go(func() { solve(p*m/parts, (p+1)*m/parts) })
	}
	solve(0, m/parts)
	wg.Wait()
}
