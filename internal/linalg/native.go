package linalg

import "gonum.org/v1/gonum/mat"

// nativeSymEig, when a build tag sets it, is a native LAPACK's symmetric
// eigen-decomposition that SymEig hands its work to: every eigenvalue,
// ascending, and eigenvector k as vecRows[k·n : (k+1)·n].
var nativeSymEig func(a mat.Symmetric) (values, vecRows []float64, err error)
