package linalg

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// SymOp is a symmetric n×n matrix known only by its products with blocks
// of vectors: a matrix that is cheaper to apply than to form, such as
// XcᵀXc for sparse X, whose products Xᵀ(X·V) − N·μ(μᵀV) cost O(nnz) a
// vector against the D² entries of the matrix.
type SymOp struct {
	// N is the order of the matrix.
	N int
	// Apply sets av = A·v for the n×b block v (b vectors as columns); av
	// is n×b too. It must not keep v or av, and should return ctx.Err()
	// when ctx is canceled during a long product.
	Apply func(ctx context.Context, v, av blas64.General) error
	// Cost is the flops of one product with a single vector (2n² for a
	// dense matrix). SymEigTopOp weighs it against the direct method's
	// cost to decide when to give up the iteration.
	Cost float64
}

// SymEigTopOp is SymEigTop for a matrix given as an operator: the k
// largest eigenvalues of op's matrix, descending, and n×k orthonormal
// eigenvectors with the sign convention of SymEig, computed by the same
// block Krylov–Schur iteration (one implementation: SymEigTop runs it with
// its dense matrix as the operator), with the same accuracy check
// ‖A v − λ v‖₂ ≤ TopTol·‖A‖ on the residuals of the actual products.
//
// It runs with blocks of b = 8 vectors and 16 blocks a cycle, keeping
// k + 24 Ritz vectors at a restart (opShape), where SymEigTop takes
// k + max(8, k/4), 4 and k + b/2: the products cost by the vector, so a
// higher degree per restart wins on a spectrum that converges slowly, and
// a cycle ends as soon as the residuals estimated from the Krylov relation
// pass the check, so that the last cycle does not run to its full length
// for nothing; should that iteration give up, SymEigTop's block and cycle are
// tried next (a cluster of more than 8 at the top can need them). Hence
// one difference in what it guarantees: an eigenvalue of multiplicity
// above 8 straddling the k-th position may show fewer copies than it has
// when the first iteration converges (each pair returned still passes
// the check). The iteration holds the basis and its products, 2·m·n
// values for m = k + 24 + 128, or k + 1.5b + 4b with SymEigTop's block b,
// and never the n×n matrix.
//
// When the iteration does not apply (!TopIterates(n, k)) or gives up (see
// SymEigTop), the matrix is formed from op's products with blocks of the
// identity (n products of a vector, n² values) and solved by SymEigTop's
// direct method, so the result is always right; a caller that cannot
// afford the n×n matrix checks TopIterates first. Unlike SymEigTop it does
// not rescale the matrix: its entries must stay well inside the range of
// float64 (products with unit vectors must not overflow).
//
// It returns ErrBadK (wrapped) for k < 1 or k > n, ErrEmpty for n = 0,
// ErrNotFinite when a product is not finite, the errors of Apply, and
// ctx.Err() when canceled (checked between block products).
func SymEigTopOp(ctx context.Context, op SymOp, k int) (values []float64, vectors *mat.Dense, err error) {
	n := op.N
	if n <= 0 {
		return nil, nil, fmt.Errorf("linalg: %w", ErrEmpty)
	}
	if k < 1 || k > n {
		return nil, nil, fmt.Errorf("linalg: %w: k = %d for order %d", ErrBadK, k, n)
	}
	if op.Apply == nil {
		return nil, nil, fmt.Errorf("linalg: SymEigTopOp of an operator with no Apply")
	}
	cost := op.Cost
	if !(cost > 0) {
		cost = 2 * float64(n) * float64(n)
	}
	if TopIterates(n, k) {
		// The small block first, then SymEigTop's own shape.
		for _, shape := range []lanczosShape{opShape(k), denseShape(k)} {
			vals, yt, err := lanczosTop(ctx, opRows(op), n, k, shape, cost, float64(n)*cost)
			if err != nil {
				return nil, nil, err
			}
			if yt != nil {
				return vals, columnsFromRows(yt, n, seq(k)), nil
			}
		}
	}
	full, err := formOp(ctx, op)
	if err != nil {
		return nil, nil, err
	}
	scale := safeScale(full, n)
	return directTop(ctx, full, n, k, scale)
}

// opShape is SymEigTopOp's first shape for k pairs: blocks of 8 (fewer
// for a small k), 16 a cycle, 24 Ritz vectors kept beyond k, cycles of
// full length ended early by the estimated residuals.
func opShape(k int) lanczosShape {
	return lanczosShape{b: min(opBlock, topBlock(k)), per: opBlocksPerCycle, extra: opExtra, early: true}
}

// opRows adapts op to the iteration's layout (vectors as rows): each block
// is transposed to n×b, multiplied, its product transposed back and
// checked to be finite.
func opRows(op SymOp) rowsApply {
	n := op.N
	var v, av []float64
	return func(ctx context.Context, blk, w []float64, b int) error {
		if len(v) < n*b {
			v, av = make([]float64, n*b), make([]float64, n*b)
		}
		v, av := v[:n*b], av[:n*b]
		transposeInto(v, blk, b, n)
		clear(av)
		if err := op.Apply(ctx, blas64.General{Rows: n, Cols: b, Stride: b, Data: v}, blas64.General{Rows: n, Cols: b, Stride: b, Data: av}); err != nil {
			return err
		}
		for i, x := range av {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("linalg: %w: the operator's product holds %v in row %d", ErrNotFinite, x, i/b)
			}
		}
		transposeInto(w, av, n, b)
		return nil
	}
}

// transposeInto writes the transpose of the r×c row-major src into dst
// (c×r row-major), in tiles so that both sides stay in cache.
func transposeInto(dst, src []float64, r, c int) {
	const tile = 32
	for i0 := 0; i0 < r; i0 += tile {
		i1 := min(i0+tile, r)
		for j0 := 0; j0 < c; j0 += tile {
			j1 := min(j0+tile, c)
			for i := i0; i < i1; i++ {
				row := src[i*c : i*c+c]
				for j := j0; j < j1; j++ {
					dst[j*r+i] = row[j]
				}
			}
		}
	}
}

// formOp forms op's n×n matrix (row-major, both triangles) from its
// products with blocks of the identity, and checks its upper triangle is
// finite.
func formOp(ctx context.Context, op SymOp) ([]float64, error) {
	n := op.N
	const blockCols = 64
	full := make([]float64, n*n)
	for j0 := 0; j0 < n; j0 += blockCols {
		b := min(blockCols, n-j0)
		e := make([]float64, n*b)
		for c := range b {
			e[(j0+c)*b+c] = 1
		}
		ae := make([]float64, n*b)
		if err := op.Apply(ctx, blas64.General{Rows: n, Cols: b, Stride: b, Data: e}, blas64.General{Rows: n, Cols: b, Stride: b, Data: ae}); err != nil {
			return nil, err
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for i := range n {
			copy(full[i*n+j0:i*n+j0+b], ae[i*b:(i+1)*b])
		}
	}
	// Symmetrize: the operator's rounding may differ across the diagonal.
	for i := range n {
		for j := i + 1; j < n; j++ {
			m := (full[i*n+j] + full[j*n+i]) / 2
			full[i*n+j], full[j*n+i] = m, m
		}
	}
	return full, checkFinite(full, n)
}
