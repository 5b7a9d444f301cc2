package linalg

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// SymEigSelect computes every eigenvalue of the symmetric n×n matrix a and
// the eigenvectors of only the k largest, k chosen from the eigenvalues:
// choose gets them all, in descending order,
// and returns k in [1, n]. It returns the n eigenvalues, descending, and
// the n×k orthonormal eigenvectors of the first k, with the sign
// convention of SymEig. It is for a caller that needs the whole spectrum to
// decide how many directions to keep, as a threshold on the eigenvalues'
// sum does, and fewer vectors than n.
//
// It is SymEigTop's direct method with k decided in the middle: the
// reduction to tridiagonal form, the eigenvalues by DSTERF, the k wanted
// eigenvectors of T by inverse iteration (or divide and conquer when k >
// n/8 or a residual fails) and the back-transformation of those k only.
// The reduction is the whole cost for small k: at n = 2000 about 0.6 s of
// SymEig's 1.4 s (eig_bench_test.go). The eigenvalues are accurate to
// ε‖A‖ and the vectors as SymEig's.
//
// SymEigSelect returns ErrBadK (wrapped) when choose returns k outside
// [1, n], and otherwise the errors of SymEig; it checks ctx between the
// stages.
func SymEigSelect(ctx context.Context, a mat.Symmetric, choose func(values []float64) int) (values []float64, vectors *mat.Dense, err error) {
	n := a.SymmetricDim()
	if n == 0 {
		return nil, nil, fmt.Errorf("linalg: %w", ErrEmpty)
	}
	u := make([]float64, n*n)
	if err := copyUpper(u, a); err != nil {
		return nil, nil, err
	}
	scale := safeScale(u, n)
	all, _, vectors, err := directSelect(ctx, u, n, scale, choose)
	if err != nil {
		return nil, nil, err
	}
	return all, vectors, nil
}
