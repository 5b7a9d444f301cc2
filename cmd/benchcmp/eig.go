package main

import (
	"context"
	"errors"
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// topEig returns the k largest eigenvalues of the symmetric n×n matrix a,
// descending, and their orthonormal eigenvectors as the columns of an n×k
// matrix. It is the Go side of the eigen case, kept alone in this file so
// that one function changes when the top-k solver of package linalg
// (linalg.SymEigTop) is merged: for now it takes gonum's full
// decomposition, mat.EigenSym, and keeps the top k, which is what numpy's
// np.linalg.eigh does too.
//
// It returns an error when k is not in 1…n, when ctx is done before the
// work starts (the decomposition itself cannot be interrupted), or when the
// decomposition does not converge.
func topEig(ctx context.Context, a *mat.SymDense, k int) ([]float64, *mat.Dense, error) {
	n := a.SymmetricDim()
	if k < 1 || k > n {
		return nil, nil, fmt.Errorf("top eigenpairs: k = %d is outside 1…%d", k, n)
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	var e mat.EigenSym
	if !e.Factorize(a, true) {
		return nil, nil, errors.New("top eigenpairs: the eigen-decomposition did not converge")
	}
	all := e.Values(nil) // ascending
	var v mat.Dense
	e.VectorsTo(&v)
	vals := make([]float64, k)
	vecs := mat.NewDense(n, k, nil)
	col := make([]float64, n)
	for j := range k {
		vals[j] = all[n-1-j]
		vecs.SetCol(j, mat.Col(col, n-1-j, &v))
	}
	return vals, vecs, nil
}
