package linalg

import (
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"

	"mldr/internal/linalg/internal/kernel"
)

// gemmBLAS is gonum's BLAS with Dgemm on the package's 4×12 micro-kernel
// for products large enough to pay for packing (gemmFast). Everything
// else, and Dgemm on small or unusual arguments, is gonum's own.
//
// Every Dgemm of the program goes through it, once the package is
// imported (init): gonum's mat products and LAPACK's blocked routines
// (the QR of the N×N path and its Q applied by Dormqr, Dpotrf's Cholesky
// factorisation) spent most of an evaluation's time in gonum's Dgemm,
// about 5–13 GFLOP/s here against 30–40 for the kernel. The results are
// not gonum's to the bit (sums are taken in another order), but each
// element is summed by one goroutine in a fixed order, so they do not
// depend on the number of cores.
type gemmBLAS struct{ gonum.Implementation }

func init() { blas64.Use(gemmBLAS{}) }

// gemmMinFlops is the smallest m·n·k gemmBLAS takes to the kernel: below
// it packing costs more than it saves.
const gemmMinFlops = 1 << 18

// Dgemm computes C = alpha·op(A)·op(B) + beta·C, as BLAS's dgemm.
func (g gemmBLAS) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if !gemmFast(tA, tB, m, n, k, a, lda, b, ldb, c, ldc) {
		g.Implementation.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	for i := range m {
		row := c[i*ldc : i*ldc+n]
		switch beta {
		case 0:
			clear(row)
		case 1:
		default:
			for j := range row {
				row[j] *= beta
			}
		}
	}
	if alpha == 0 {
		return
	}
	kernelGemm(tA != blas.NoTrans, tB != blas.NoTrans, m, n, k, alpha, a, lda, b, ldb, c, ldc)
}

// gemmFast reports whether Dgemm takes the kernel: a product of at least
// gemmMinFlops with every dimension at least a tile's, and arguments BLAS
// accepts (gonum's Dgemm checks and panics on the others).
func gemmFast(tA, tB blas.Transpose, m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) bool {
	if m < panelWidth || n < panelWidth || k < tileRows || m*n*k < gemmMinFlops {
		return false
	}
	ok := func(t blas.Transpose) bool { return t == blas.NoTrans || t == blas.Trans || t == blas.ConjTrans }
	if !ok(tA) || !ok(tB) {
		return false
	}
	ar, ac := m, k // A as stored
	if tA != blas.NoTrans {
		ar, ac = k, m
	}
	br, bc := k, n
	if tB != blas.NoTrans {
		br, bc = n, k
	}
	return lda >= ac && ldb >= bc && ldc >= n &&
		len(a) >= (ar-1)*lda+ac && len(b) >= (br-1)*ldb+bc && len(c) >= (m-1)*ldc+n
}

// gemmNCols is the most columns of op(B) one packed block holds: with
// the inner dimension in blocks of mulBlock, a block is at most 1 MiB,
// all the memory Dgemm takes besides a few KiB a core (memory admission
// counts the fits' large matrices, not this).
const gemmNCols = 512

// kernelGemm adds alpha·op(A)·op(B) to C a block of op(B) at a time
// (mulBlock rows of the inner dimension by gemmNCols columns, packed into
// panels of 12 columns with alpha folded in); for each block the rows of
// C, in groups of 12, are shared out among the cores, each group's part
// of op(A) packed and multiplied by the block's panels with the kernel,
// and the 12×12 tile added to C. Each element of C is summed by one
// goroutine in the same order whatever the number of cores.
func kernelGemm(transA, transB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	bp := make([]float64, min(k, mulBlock)*(min(n, gemmNCols)+panelWidth-1)/panelWidth*panelWidth)
	groups := (m + panelWidth - 1) / panelWidth
	workers := max(1, min(runtime.GOMAXPROCS(0), groups))
	scratch := make([][]float64, workers)
	for w := range scratch {
		scratch[w] = make([]float64, mulBlock*panelWidth+panelWidth*panelWidth)
	}
	for j0 := 0; j0 < n; j0 += gemmNCols {
		nn := min(gemmNCols, n-j0)
		panels := (nn + panelWidth - 1) / panelWidth
		for r0 := 0; r0 < k; r0 += mulBlock {
			kk := min(mulBlock, k-r0)
			// bp[jp·kk·12 + r·12 + j] = alpha·op(B)[r0+r, j0+12jp+j], 0 past n.
			clear(bp[:panels*kk*panelWidth])
			at := func(r, j int) int { return (j/panelWidth)*kk*panelWidth + r*panelWidth + j%panelWidth }
			if transB { // op(B)[r, j] = B[j, r]: read B's rows in order
				for j := range nn {
					row := b[(j0+j)*ldb+r0 : (j0+j)*ldb+r0+kk]
					for r, v := range row {
						bp[at(r, j)] = alpha * v
					}
				}
			} else {
				for r := range kk {
					for j, v := range b[(r0+r)*ldb+j0 : (r0+r)*ldb+j0+nn] {
						bp[at(r, j)] = alpha * v
					}
				}
			}
			var wg sync.WaitGroup
			for w := range workers {
				g0, g1 := groups*w/workers, groups*(w+1)/workers
				wg.Go(func() {
					gemmRowGroups(transA, m, nn, kk, a[gemmAOffset(transA, r0, lda):], lda, bp, c[j0:], ldc, panels, g0, g1, scratch[w])
				})
			}
			wg.Wait()
		}
	}
}

// gemmAOffset is where op(A)'s column r0 starts in A.
func gemmAOffset(transA bool, r0, lda int) int {
	if transA {
		return r0 * lda
	}
	return r0
}

// gemmRowGroups adds to the n columns of C in the groups of 12 rows
// [g0, g1) their products with the k packed rows of the panels bp; a is
// op(A) from the block's first column on, scratch a worker's.
func gemmRowGroups(transA bool, m, n, k int, a []float64, lda int, bp, c []float64, ldc, panels, g0, g1 int, scratch []float64) {
	ap := scratch[:k*panelWidth] // ap[r·12 + i] = op(A)[i0+i, r]
	tile := scratch[mulBlock*panelWidth:]
	for g := g0; g < g1; g++ {
		i0 := g * panelWidth
		rows := min(panelWidth, m-i0)
		if rows < panelWidth {
			clear(ap)
		}
		if transA { // op(A)[i, r] = A[r, i]: 12 consecutive values of each row of A
			for r := range k {
				copy(ap[r*panelWidth:r*panelWidth+rows], a[r*lda+i0:r*lda+i0+rows])
			}
		} else {
			for i := range rows {
				for r, v := range a[(i0+i)*lda : (i0+i)*lda+k] {
					ap[r*panelWidth+i] = v
				}
			}
		}
		for jp := range panels {
			clear(tile)
			off := jp * k * panelWidth
			for t := 0; t < panelWidth; t += tileRows {
				kernel.Tile(k, ap[t:], bp[off:], tile[t*panelWidth:], panelWidth)
			}
			cols := min(panelWidth, n-jp*panelWidth)
			for i := range rows {
				dst := c[(i0+i)*ldc+jp*panelWidth : (i0+i)*ldc+jp*panelWidth+cols]
				for j, v := range tile[i*panelWidth : i*panelWidth+cols] {
					dst[j] += v
				}
			}
		}
	}
}
