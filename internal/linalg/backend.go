//go:build !openblas

package linalg

// Backend names the implementation of the kernels: "pure Go" by default;
// a build with the openblas tag hands the eigen-decompositions to
// LAPACK's dsyevd in OpenBLAS (cgo, needs libopenblas-dev).
const Backend = "pure Go"
