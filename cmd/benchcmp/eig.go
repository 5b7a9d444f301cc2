package main

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/linalg"
)

// topEig returns the k largest eigenvalues of the symmetric n×n matrix a,
// descending, and their orthonormal eigenvectors as the columns of an n×k
// matrix: linalg.SymEigTop, the product's top-k solver (block Krylov–Schur
// with a residual check and a direct fallback). numpy has no top-k solver,
// so its side is the full np.linalg.eigh.
func topEig(ctx context.Context, a *mat.SymDense, k int) ([]float64, *mat.Dense, error) {
	n := a.SymmetricDim()
	if k < 1 || k > n {
		return nil, nil, fmt.Errorf("top eigenpairs: k = %d is outside 1…%d", k, n)
	}
	vals, vecs, err := linalg.SymEigTop(ctx, a, k)
	if err != nil {
		return nil, nil, fmt.Errorf("top eigenpairs: %w", err)
	}
	return vals, vecs, nil
}
