package linalg

import "gonum.org/v1/gonum/mat"

// nativeSymEig, when a build tag sets it, is a native LAPACK's symmetric
// eigen-decomposition: every eigenvalue, ascending, and the eigenvectors as
// the columns of a row-major matrix.
var nativeSymEig func(a mat.Symmetric) ([]float64, *mat.Dense, error)

// NativeSymEig reports whether a native eigen-solver is linked in, and
// returns it: every eigenvalue, ascending, and the eigenvectors as
// columns.
func NativeSymEig() (func(a mat.Symmetric) ([]float64, *mat.Dense, error), bool) {
	return nativeSymEig, nativeSymEig != nil
}
