package linalg

// nativeSymEig, when a build tag sets it, is a native LAPACK's symmetric
// eigen-decomposition that SymEig hands its work to. It takes the upper
// triangle of a row-major n×n matrix in buf and returns every eigenvalue,
// ascending, leaving eigenvector k in buf[k·n : (k+1)·n].
var nativeSymEig func(buf []float64, n int) (values []float64, err error)
