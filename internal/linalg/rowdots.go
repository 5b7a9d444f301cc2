package linalg

import (
	"fmt"

	"gonum.org/v1/gonum/blas/blas64"

	"mldr/internal/linalg/internal/kernel"
)

// Panels holds the rows of an N×D matrix, each minus a shift, packed for
// RowDots: the rows in groups of 12, each group stored column after
// column (12 values for each of the D columns; rows past N are 0), the
// layout of both operands of the 4×12 micro-kernel. It is packed once and
// may then be read by any number of goroutines.
type Panels struct {
	rows, cols int
	data       []float64 // data[(i/12)·cols·12 + t·12 + i%12] = x[i, t] − shift[t]
}

// NewPanels packs the rows of x (N×D) minus shift (length D; nil: no
// shift). Each entry is x[i, t] − shift[t], rounded once, the value a
// centred copy of x would hold.
func NewPanels(x blas64.General, shift []float64) *Panels {
	n, d := x.Rows, x.Cols
	if shift != nil && len(shift) != d {
		panic(fmt.Sprintf("linalg: NewPanels: shift has %d values for %d columns", len(shift), d))
	}
	groups := (n + panelWidth - 1) / panelWidth
	p := &Panels{rows: n, cols: d, data: make([]float64, groups*d*panelWidth)}
	if d == 0 {
		return p
	}
	for i := range n {
		row := x.Data[i*x.Stride : i*x.Stride+d]
		dst := p.data[(i/panelWidth)*d*panelWidth+i%panelWidth:]
		if shift == nil {
			for t, v := range row {
				dst[t*panelWidth] = v
			}
			continue
		}
		for t, v := range row {
			dst[t*panelWidth] = v - shift[t]
		}
	}
	return p
}

// Dims returns the rows and columns of the packed matrix.
func (p *Panels) Dims() (r, c int) { return p.rows, p.cols }

// PanelsLen is the float64s NewPanels allocates for n rows of d columns:
// n rounded up to a multiple of 12, times d.
func PanelsLen(n, d int) int {
	return (n + panelWidth - 1) / panelWidth * panelWidth * d
}

// Blocking of RowDots: the inner dimension is taken rowDotsKC columns at
// a time (split evenly: 294 columns are two chunks of 147), so that a
// chunk of one group of b (rowDotsKC × 12, 24 KB) stays in the L1 cache
// while every 4-row tile of a block of rowDotsMC rows of a (at most
// 128 KB, in the L2 cache) is multiplied with it. (128 rows measured no
// faster, 256 half as fast, with a 256-row block at D = 294.)
const (
	rowDotsKC = 256
	rowDotsMC = 64
)

// RowDots sets c[(i−i0)·ldc + j] to the dot product of row i of a with row
// j of b, for rows i0 ≤ i < i1 of a and every row j of b: the block of
// rows i0…i1−1 of a·bᵀ, in the calling goroutine alone (callers that run
// several blocks at once each call it for their own). a and b must have
// the same columns, and c room for i1−i0 rows of ldc ≥ b's rows. Each
// entry is a sum of the D products in some order, with fused
// multiply-adds where the CPU has them: its error is within the usual
// bound of a dot product, D·u·Σ|aₜbₜ| (u = 2⁻⁵³), but the last bits
// are not those of any other summation.
func RowDots(a *Panels, i0, i1 int, b *Panels, c []float64, ldc int) {
	d, n := a.cols, b.rows
	if b.cols != d || i0 < 0 || i1 > a.rows || i0 > i1 || ldc < n || (i1 > i0 && len(c) < (i1-i0-1)*ldc+n) {
		panic(fmt.Sprintf("linalg: RowDots: rows %d…%d of %d×%d times the transpose of %d×%d do not fit in %d values of stride %d",
			i0, i1, a.rows, d, n, b.cols, len(c), ldc))
	}
	for i := i0; i < i1; i++ {
		clear(c[(i-i0)*ldc : (i-i0)*ldc+n])
	}
	if i0 == i1 || n == 0 || d == 0 {
		return
	}
	var tmp [tileRows * panelWidth]float64
	chunks := (d + rowDotsKC - 1) / rowDotsKC
	groupLen := d * panelWidth
	for ch := range chunks {
		k0, k1 := d*ch/chunks, d*(ch+1)/chunks
		kk := k1 - k0
		// Tiles start at multiples of 4 rows of a, the edges of a tile
		// in the packed groups; those that reach outside i0…i1−1 (or
		// past b's last row) go through tmp.
		for m0 := i0 &^ (tileRows - 1); m0 < i1; m0 += rowDotsMC {
			m1 := min(m0+rowDotsMC, i1)
			for jp := 0; jp*panelWidth < n; jp++ {
				j0 := jp * panelWidth
				bp := b.data[jp*groupLen+k0*panelWidth:]
				cols := min(panelWidth, n-j0)
				for r0 := m0; r0 < m1; r0 += tileRows {
					ap := a.data[(r0/panelWidth)*groupLen+k0*panelWidth+r0%panelWidth:]
					if r0 >= i0 && r0+tileRows <= i1 && cols == panelWidth {
						kernel.Tile(kk, ap, bp, c[(r0-i0)*ldc+j0:], ldc)
						continue
					}
					clear(tmp[:])
					kernel.Tile(kk, ap, bp, tmp[:], panelWidth)
					for i := max(r0, i0); i < min(r0+tileRows, i1); i++ {
						dst := c[(i-i0)*ldc+j0 : (i-i0)*ldc+j0+cols]
						for j, v := range tmp[(i-r0)*panelWidth : (i-r0)*panelWidth+cols] {
							dst[j] += v
						}
					}
				}
			}
		}
	}
}
