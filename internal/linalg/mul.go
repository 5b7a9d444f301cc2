package linalg

import (
	"fmt"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas/blas64"

	"mldr/internal/linalg/internal/kernel"
)

// Mul sets c = a·b (a is N×K, b is K×M, c is N×M) with the micro-kernel of
// Gram: b is packed once into panels of 8 columns, and each goroutine packs
// 8 rows of a at a time, transposed, and runs the 4×8 kernel over blocks of
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
	// bp[jp*k*8 + r*8 + j] = b[r, jp*8+j] (0 past m).
	bp := make([]float64, panels*k*panelWidth)
	for r := range k {
		row := b.Data[r*b.Stride : r*b.Stride+m]
		for j, v := range row {
			bp[(j/panelWidth)*k*panelWidth+r*panelWidth+j%panelWidth] = v
		}
	}
	groups := (n + panelWidth - 1) / panelWidth // groups of 8 rows of a
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
// takes: 256 rows of two 8-wide panels are 32 KB.
const mulBlock = 256

// mulRows computes the rows of c in the groups of 8 rows [g0, g1).
func mulRows(a blas64.General, bp []float64, c blas64.General, k, m, panels, g0, g1 int) {
	ap := make([]float64, k*panelWidth)
	tile := make([]float64, panelWidth*panelWidth) // 8 rows × 8 columns, ld 8
	for g := g0; g < g1; g++ {
		i0 := g * panelWidth
		rows := min(panelWidth, a.Rows-i0)
		if rows < panelWidth {
			clear(ap)
		}
		if rows == panelWidth {
			// Written in order, read from 8 rows at once.
			base := a.Data[i0*a.Stride:]
			s := a.Stride
			_ = base[7*s+k-1]
			for r := range k {
				dst := ap[r*panelWidth : r*panelWidth+panelWidth : r*panelWidth+panelWidth]
				dst[0], dst[1], dst[2], dst[3] = base[r], base[s+r], base[2*s+r], base[3*s+r]
				dst[4], dst[5], dst[6], dst[7] = base[4*s+r], base[5*s+r], base[6*s+r], base[7*s+r]
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
				kernel.Tile4x8(kk, ap[off:], b[off:], tile, panelWidth)
				kernel.Tile4x8(kk, ap[off+tileRows:], b[off:], tile[tileRows*panelWidth:], panelWidth)
			}
			j0 := jp * panelWidth
			cols := min(panelWidth, m-j0)
			for i := range rows {
				copy(c.Data[(i0+i)*c.Stride+j0:(i0+i)*c.Stride+j0+cols], tile[i*panelWidth:i*panelWidth+cols])
			}
		}
	}
}
