//go:build openblas

package linalg

/*
#cgo LDFLAGS: -lopenblas
#include <stddef.h>

// LAPACK's divide-and-conquer symmetric eigen-solver, as OpenBLAS exports
// it (gfortran's calling convention: every argument by pointer, then the
// lengths of the character arguments).
extern void dsyevd_(const char *jobz, const char *uplo, const int *n, double *a, const int *lda,
	double *w, double *work, const int *lwork, int *iwork, const int *liwork, int *info,
	size_t jobz_len, size_t uplo_len);
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// Backend names the implementation of the kernels: "openblas" in a build
// with the openblas tag, where the eigen-decompositions go to LAPACK's
// dsyevd in OpenBLAS.
const Backend = "openblas"

func init() { nativeSymEig = dsyevd }

// dsyevd decomposes the symmetric matrix whose upper triangle is in the
// row-major n×n buf (the lower triangle of a column-major one) with
// LAPACK's dsyevd: every eigenvalue, ascending, and eigenvector k left in
// buf[k·n : (k+1)·n] (LAPACK's column-major result as it is).
func dsyevd(buf []float64, n int) ([]float64, error) {
	w := make([]float64, n)
	jobz, uplo := C.char('V'), C.char('L')
	cn, lda, info := C.int(n), C.int(max(1, n)), C.int(0)
	// A workspace query first.
	lwork, liwork := C.int(-1), C.int(-1)
	var wq C.double
	var iwq C.int
	C.dsyevd_(&jobz, &uplo, &cn, (*C.double)(unsafe.Pointer(&buf[0])), &lda, (*C.double)(unsafe.Pointer(&w[0])),
		&wq, &lwork, &iwq, &liwork, &info, 1, 1)
	if info != 0 {
		return nil, fmt.Errorf("dsyevd workspace query: info %d", int(info))
	}
	work := make([]float64, int(wq))
	iwork := make([]C.int, int(iwq))
	lwork, liwork = C.int(len(work)), C.int(len(iwork))
	C.dsyevd_(&jobz, &uplo, &cn, (*C.double)(unsafe.Pointer(&buf[0])), &lda, (*C.double)(unsafe.Pointer(&w[0])),
		(*C.double)(unsafe.Pointer(&work[0])), &lwork, &iwork[0], &liwork, &info, 1, 1)
	if info != 0 {
		return nil, fmt.Errorf("dsyevd: info %d (the decomposition did not converge)", int(info))
	}
	return w, nil
}
