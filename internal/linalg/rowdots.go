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

// TileRows and TileCols are the shape of the tiles RowDotTiles hands
// out: TileRows rows of a by TileCols rows of b, row after row.
const (
	TileRows = kernel.Rows
	TileCols = kernel.Width
)

// Blocking of RowDotTiles: the inner dimension is taken in chunks of at
// most rowTilesKC columns (split evenly: 294 columns are two chunks of
// 147), so that a chunk of one group of b (at most 24 KB) stays in the L1
// cache while every tile of up to rowTilesMC rows of a is multiplied with
// it; those rows' chunks (at most 256 KB) stay in the L2 cache, and their
// tiles' sums (at most 12 KB) wait for the last chunk. With D = 1 000,
// multiplying each tile with the whole group at once (96 KB, from the L2
// cache) reached half the speed.
const (
	rowTilesKC = 256
	rowTilesMC = 128
)

// TileScratch holds the sums of the tiles RowDotTiles is computing: one
// for each goroutine that calls it (12 KB); its zero value is ready.
type TileScratch [rowTilesMC / TileRows][TileRows * TileCols]float64

// RowDotTiles computes the block of rows i0…i1−1 of a·bᵀ a tile at a time
// and hands each tile to tile, in the calling goroutine alone (callers
// that run several blocks at once each call it for their own): for r0 a
// multiple of TileRows and j0 of TileCols, t[i·TileCols + j] is the dot
// product of row r0+i of a with row j0+j of b. Entries of rows outside
// i0…i1−1 or of columns past b's last row are to be ignored. For each row
// of a, its tiles come in increasing j0. No block of products is
// stored: the caller keeps what it needs of each tile. a and b must have
// the same columns; scratch is the calling goroutine's. Each product is
// a sum of the D products in some order, with fused multiply-adds where
// the CPU has them: its error is within the usual bound of a dot
// product, D·u·Σ|aₜbₜ| (u = 2⁻⁵³), but its last bits are not those of
// any other summation.
func RowDotTiles(a *Panels, i0, i1 int, b *Panels, scratch *TileScratch, tile func(r0, j0 int, t *[TileRows * TileCols]float64)) {
	d, n := a.cols, b.rows
	if b.cols != d || i0 < 0 || i1 > a.rows || i0 > i1 {
		panic(fmt.Sprintf("linalg: RowDotTiles: rows %d…%d of %d×%d times the transpose of %d×%d", i0, i1, a.rows, d, n, b.cols))
	}
	if i0 == i1 || n == 0 {
		return
	}
	chunks := max(1, (d+rowTilesKC-1)/rowTilesKC)
	groupLen := d * panelWidth
	for m0 := i0 &^ (tileRows - 1); m0 < i1; m0 += rowTilesMC {
		m1 := min(m0+rowTilesMC, i1)
		tiles := scratch[:(m1-m0+tileRows-1)/tileRows]
		for j0 := 0; j0 < n; j0 += panelWidth {
			for i := range tiles {
				clear(tiles[i][:])
			}
			for ch := range chunks {
				k0, k1 := d*ch/chunks, d*(ch+1)/chunks
				if k1 == k0 {
					continue
				}
				bp := b.data[j0*d+k0*panelWidth:]
				for i := range tiles {
					r0 := m0 + i*tileRows
					kernel.Tile(k1-k0, a.data[(r0/panelWidth)*groupLen+k0*panelWidth+r0%panelWidth:], bp, tiles[i][:], panelWidth)
				}
			}
			for i := range tiles {
				tile(m0+i*tileRows, j0, &tiles[i])
			}
		}
	}
}
