package linalg

import (
	"runtime"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/blas/blas64"

	"mldr/internal/linalg/internal/kernel"
)

// Blocking of addAtB: atbKC rows of the operands are packed at a time
// (a panel of 12 columns of them is 24 KB, which stays in the L1 cache
// while the tiles of a block of rows use it), and the rows of c are dealt
// to the goroutines in blocks of atbMC, four panels (the packed columns of
// a that such a block reads, 256 × 48 × 8 bytes, stay in the L2 cache).
const (
	atbKC = 256
	atbMC = 48
)

// addAtB adds alpha·AᵀB to c: a is k×m, b is k×n, c is m×n, all row-major.
// With upper, c is square and only its entries on and above the diagonal
// are read and written (the trailing update of a Cholesky factor, or a
// symmetric rank-k update when a and b are the same).
//
// Both operands are packed once per atbKC rows into the panels of Gram
// (row r of a panel holds 12 consecutive columns of that row), alpha folded
// into a's, and each 4×12 tile of c gets the kernel's sum over those rows.
// The blocks of atbMC rows of c are shared out among up to GOMAXPROCS
// goroutines, which all read the same packed panels.
func addAtB(alpha float64, a, b, c blas64.General, upper bool) {
	k, m, n := a.Rows, a.Cols, b.Cols
	if b.Rows != k || c.Rows != m || c.Cols != n || upper && m != n {
		panic("linalg: addAtB: shapes do not fit") // a bug in this package
	}
	if k == 0 || m == 0 || n == 0 || alpha == 0 {
		return
	}
	kc := min(atbKC, k)
	pa := make([]float64, ((m+panelWidth-1)/panelWidth)*kc*panelWidth)
	pb := make([]float64, ((n+panelWidth-1)/panelWidth)*kc*panelWidth)
	blocks := (m + atbMC - 1) / atbMC
	workers := max(1, min(runtime.GOMAXPROCS(0), blocks))
	if float64(k)*float64(m)*float64(n) < gemmSerial {
		workers = 1
	}
	for k0 := 0; k0 < k; k0 += kc {
		kk := min(kc, k-k0)
		packColumns(a, k0, kk, alpha, pa)
		packColumns(b, k0, kk, 1, pb)
		var next atomic.Int64
		run := func() {
			var tmp [tileRows * panelWidth]float64
			for {
				blk := int(next.Add(1) - 1)
				if blk >= blocks {
					return
				}
				atbBlock(kk, pa, pb, c, blk*atbMC, min(m, (blk+1)*atbMC), upper, &tmp)
			}
		}
		if workers == 1 {
			run()
			continue
		}
		var wg sync.WaitGroup
		for range workers - 1 {
			wg.Go(run)
		}
		run()
		wg.Wait()
	}
}

// packColumns packs rows [k0, k0+kk) of x into panels of 12 columns, each
// times alpha: dst[p·kk·12 + r·12 + j] = alpha·x[k0+r, 12p+j], 0 past the last
// column.
func packColumns(x blas64.General, k0, kk int, alpha float64, dst []float64) {
	cols := x.Cols
	panels := (cols + panelWidth - 1) / panelWidth
	stride := kk * panelWidth
	for r := range kk {
		row := x.Data[(k0+r)*x.Stride : (k0+r)*x.Stride+cols]
		for p := range panels {
			j0 := p * panelWidth
			out := dst[p*stride+r*panelWidth : p*stride+(r+1)*panelWidth]
			if j0+panelWidth <= cols {
				src := row[j0 : j0+panelWidth]
				for j := range panelWidth {
					out[j] = alpha * src[j]
				}
				continue
			}
			clear(out)
			for j := range cols - j0 {
				out[j] = alpha * row[j0+j]
			}
		}
	}
}

// atbBlock adds the packed product to rows [i0, i1) of c (i0 a multiple
// of 12): for each panel of 12 columns, every 4-row tile of the block, so
// that the panel of b stays in the L1 cache. Tiles at the edges of c or
// across its diagonal (upper) go through tmp, and only their entries
// inside c (and on or above the diagonal) are added.
func atbBlock(kk int, pa, pb []float64, c blas64.General, i0, i1 int, upper bool, tmp *[tileRows * panelWidth]float64) {
	m, n := c.Rows, c.Cols
	stride := kk * panelWidth
	jp0 := 0
	if upper {
		jp0 = i0 / panelWidth
	}
	for jp := jp0; jp*panelWidth < n; jp++ {
		j0 := jp * panelWidth
		bp := pb[jp*stride:]
		for r0 := i0; r0 < i1; r0 += tileRows {
			if upper && r0 >= j0+panelWidth {
				break // the tile is below the diagonal
			}
			ap := pa[(r0/panelWidth)*stride+r0%panelWidth:]
			if r0+tileRows <= m && j0+panelWidth <= n && (!upper || r0+tileRows-1 <= j0) {
				kernel.Tile(kk, ap, bp, c.Data[r0*c.Stride+j0:], c.Stride)
				continue
			}
			clear(tmp[:])
			kernel.Tile(kk, ap, bp, tmp[:], panelWidth)
			for i := range min(tileRows, m-r0) {
				row := c.Data[(r0+i)*c.Stride:]
				for j := range min(panelWidth, n-j0) {
					if !upper || j0+j >= r0+i {
						row[j0+j] += tmp[i*panelWidth+j]
					}
				}
			}
		}
	}
}
