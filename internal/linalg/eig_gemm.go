package linalg

import (
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// Blocking of gemm: a kc × nc block of B (256 KiB) stays in a core's L2
// cache while every row of A passes over it.
const (
	gemmKC = 256
	gemmNC = 256
	// gemmSerial is the flop count under which gemm runs on one goroutine.
	gemmSerial = 1 << 20
)

// gemm computes C = beta·C + alpha·A·B for row-major A (m×k), B (k×n) and C
// (m×n) with strides lda, ldb and ldc; beta = 0 ignores C's prior content.
//
// It is the matrix multiplication of the eigen-solvers. gonum's Dgemm
// updates C by axpys of 64 entries (load, multiply, add, store per entry)
// and runs at about 10–15 GFLOP/s on the two cores of the benchmark
// machine; the matrix-vector kernel behind gonum's Dgemv with a transposed
// matrix keeps four entries of y in registers per load of x and runs at
// twice that. gemm therefore computes each row of C, per block of B, as
// y ← y + Bᵀx with x a row of A: C_i,J += A_i,K B_K,J. The rows of C are
// split over GOMAXPROCS goroutines, which share the block of B.
func gemm(m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	if beta != 1 {
		for i := range m {
			row := c[i*ldc : i*ldc+n]
			if beta == 0 {
				clear(row)
			} else {
				for j := range row {
					row[j] *= beta
				}
			}
		}
	}
	if k == 0 || alpha == 0 {
		return
	}
	parts := runtime.GOMAXPROCS(0)
	if float64(m)*float64(n)*float64(k) < gemmSerial || m < 2*parts {
		gemmRows(0, m, n, k, alpha, a, lda, b, ldb, c, ldc)
		return
	}
	var wg sync.WaitGroup
	for p := 1; p < parts; p++ {
		wg.Add(1)
		go func(i0, i1 int) {
			defer wg.Done()
			gemmRows(i0, i1, n, k, alpha, a, lda, b, ldb, c, ldc)
		}(p*m/parts, (p+1)*m/parts)
	}
	gemmRows(0, m/parts, n, k, alpha, a, lda, b, ldb, c, ldc)
	wg.Wait()
}

// gemmRows adds alpha·A·B to rows i0…i1−1 of C.
func gemmRows(i0, i1, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	bl := blas64.Implementation()
	for j0 := 0; j0 < n; j0 += gemmNC {
		jb := min(gemmNC, n-j0)
		for l0 := 0; l0 < k; l0 += gemmKC {
			lb := min(gemmKC, k-l0)
			bb := b[l0*ldb+j0:]
			for i := i0; i < i1; i++ {
				bl.Dgemv(blas.Trans, lb, jb, alpha, bb, ldb, a[i*lda+l0:i*lda+l0+lb], 1, 1, c[i*ldc+j0:i*ldc+j0+jb], 1)
			}
		}
	}
}

// gemmNT computes C = beta·C + alpha·A·Bᵀ for row-major A (m×k), B (n×k)
// and C (m×n): the same blocking as gemm, with the kernel for an
// untransposed matrix, y ← y + B_J,K x with x a row of A.
func gemmNT(m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	if beta != 1 {
		for i := range m {
			row := c[i*ldc : i*ldc+n]
			if beta == 0 {
				clear(row)
			} else {
				for j := range row {
					row[j] *= beta
				}
			}
		}
	}
	if k == 0 || alpha == 0 {
		return
	}
	parts := runtime.GOMAXPROCS(0)
	if float64(m)*float64(n)*float64(k) < gemmSerial || m < 2*parts {
		gemmNTRows(0, m, n, k, alpha, a, lda, b, ldb, c, ldc)
		return
	}
	var wg sync.WaitGroup
	for p := 1; p < parts; p++ {
		wg.Add(1)
		go func(i0, i1 int) {
			defer wg.Done()
			gemmNTRows(i0, i1, n, k, alpha, a, lda, b, ldb, c, ldc)
		}(p*m/parts, (p+1)*m/parts)
	}
	gemmNTRows(0, m/parts, n, k, alpha, a, lda, b, ldb, c, ldc)
	wg.Wait()
}

// gemmNTRows adds alpha·A·Bᵀ to rows i0…i1−1 of C.
func gemmNTRows(i0, i1, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	bl := blas64.Implementation()
	for j0 := 0; j0 < n; j0 += gemmNC {
		jb := min(gemmNC, n-j0)
		for l0 := 0; l0 < k; l0 += gemmKC {
			lb := min(gemmKC, k-l0)
			bb := b[j0*ldb+l0:]
			for i := i0; i < i1; i++ {
				bl.Dgemv(blas.NoTrans, jb, lb, alpha, bb, ldb, a[i*lda+l0:i*lda+l0+lb], 1, 1, c[i*ldc+j0:i*ldc+j0+jb], 1)
			}
		}
	}
}
