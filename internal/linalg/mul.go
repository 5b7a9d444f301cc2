package linalg

import (
	"fmt"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas/blas64"

	"mldr/internal/linalg/internal/kernel"
)

// Mul sets c = a·b (a is N×K, b is K×M, c is N×M) with the micro-kernel of
// Gram: b is packed once into panels of 12 columns, and each goroutine packs
// 12 rows of a at a time, transposed, and runs the 4×12 kernel over blocks of
// mulBlock of the inner dimension, so both operands of the kernel stay in
// the L1 cache. It is meant for tall a (the projection of N rows onto a few
// directions); gonum's Dense.Mul reaches about 13 GFLOP/s here, this
// kernel several times that.
func Mul(a, b, c blas64.General) error {
	n, k, m := a.Rows, a.Cols, b.Cols
	if b.Rows != k || c.Rows != n || c.Cols != m {
		return fmt.Errorf("mul: %d×%d times %d×%d does not fit in %d×%d", n, k, b.Rows, m, c.Rows, c.Cols)
	}
	if n == 0 || m == 0 {
		return nil
	}
	panels := (m + panelWidth - 1) / panelWidth
	// bp[jp*k*12 + r*12 + j] = b[r, jp*12+j] (0 past m).
	bp := make([]float64, panels*k*panelWidth)
	for r := range k {
		row := b.Data[r*b.Stride : r*b.Stride+m]
		for j, v := range row {
			bp[(j/panelWidth)*k*panelWidth+r*panelWidth+j%panelWidth] = v
		}
	}
	groups := (n + panelWidth - 1) / panelWidth // groups of 12 rows of a
	workers := max(1, min(runtime.GOMAXPROCS(0), groups))
	var wg sync.WaitGroup
	for w := range workers {
		g0, g1 := groups*w/workers, groups*(w+1)/workers
		wg.Go(func() { mulRows(a, bp, c, k, m, panels, g0, g1) })
	}
	wg.Wait()
	return nil
}

// mulBlock is how much of the inner dimension one call of the kernel
// takes: 128 rows of two 12-wide panels are 24 KB, in a 32 KB L1 cache.
const mulBlock = 256

// mulRows computes the rows of c in the groups of 12 rows [g0, g1).
func mulRows(a blas64.General, bp []float64, c blas64.General, k, m, panels, g0, g1 int) {
	ap := make([]float64, k*panelWidth)
	tile := make([]float64, panelWidth*panelWidth) // 12 rows × 12 columns, ld 12
	for g := g0; g < g1; g++ {
		i0 := g * panelWidth
		rows := min(panelWidth, a.Rows-i0)
		if rows < panelWidth {
			clear(ap)
		}
		if rows == panelWidth {
			// Written in order, read from 12 rows at once.
			base := a.Data[i0*a.Stride:]
			s := a.Stride
			_ = base[(panelWidth-1)*s+k-1]
			for r := range k {
				dst := ap[r*panelWidth : r*panelWidth+panelWidth : r*panelWidth+panelWidth]
				dst[0], dst[1], dst[2], dst[3] = base[r], base[s+r], base[2*s+r], base[3*s+r]
				dst[4], dst[5], dst[6], dst[7] = base[4*s+r], base[5*s+r], base[6*s+r], base[7*s+r]
				dst[8], dst[9], dst[10], dst[11] = base[8*s+r], base[9*s+r], base[10*s+r], base[11*s+r]
			}
		} else {
			for i := range rows {
				for r, v := range a.Data[(i0+i)*a.Stride : (i0+i)*a.Stride+k] {
					ap[r*panelWidth+i] = v
				}
			}
		}
		for jp := range panels {
			clear(tile)
			b := bp[jp*k*panelWidth:]
			for r0 := 0; r0 < k; r0 += mulBlock {
				kk := min(mulBlock, k-r0)
				off := r0 * panelWidth
				for t := 0; t < panelWidth; t += tileRows {
					kernel.Tile(kk, ap[off+t:], b[off:], tile[t*panelWidth:], panelWidth)
				}
			}
			j0 := jp * panelWidth
			cols := min(panelWidth, m-j0)
			for i := range rows {
				copy(c.Data[(i0+i)*c.Stride+j0:(i0+i)*c.Stride+j0+cols], tile[i*panelWidth:i*panelWidth+cols])
			}
		}
	}
}
