package linalg

import (
	"context"
	"fmt"
	"runtime"

	"gonum.org/v1/gonum/blas/blas64"

	"mldr/internal/linalg/internal/kernel"
)

// Cross adds to c (D×Q) the cross product of the rows of x (N×D), shifted
// by shift, with Q further values per row,
//
//	c += Σ_r (x_r − shift)·y_rᵀ,
//
// where yRow(r, dst) writes y_r into dst (Q values, all zero before the
// call). shift may be nil (no shift). It is Gram with another right-hand
// side: a block of rows of x is packed, shifted on the way, into panels,
// the block's y_r into panels of their own, and the micro-kernel adds the
// block to every 4×12 tile of c, on every core (each goroutine with its
// own D×Q accumulator). Between rounds of rows, progress (if not nil) is
// called from the calling goroutine with the rows done so far, and an
// error it returns stops the work, as does ctx.
//
// For the cross product of centred features with labels when each row
// has several labels of a few dozen: N·D·Q multiply-adds at the kernel's
// speed cost less than adding each centred row to its labels' columns.
func Cross(ctx context.Context, x blas64.General, shift []float64, q int, yRow func(r int, dst []float64), c blas64.General, progress func(rowsDone int) error) error {
	n, d := x.Rows, x.Cols
	switch {
	case c.Rows != d || c.Cols != q:
		return fmt.Errorf("cross: c is %d×%d, want %d×%d", c.Rows, c.Cols, d, q)
	case shift != nil && len(shift) != d:
		return fmt.Errorf("cross: shift has %d values for %d columns", len(shift), d)
	}
	if n == 0 || d == 0 || q == 0 {
		return nil
	}
	workers := max(1, min(runtime.GOMAXPROCS(0), (n+gramBlock-1)/gramBlock))
	ws := make([]*crossWorker, workers)
	for i := range ws {
		ws[i] = newCrossWorker(d, q)
	}
	if err := rounds(ctx, n, workers, progress, func(i, lo, hi int) { ws[i].rows(x, shift, yRow, lo, hi) }); err != nil {
		return err
	}
	for i := range d {
		dst := c.Data[i*c.Stride : i*c.Stride+q]
		for _, w := range ws {
			for j, v := range w.acc[i*w.ld : i*w.ld+q] {
				dst[j] += v
			}
		}
	}
	return nil
}

// crossWorker owns an accumulator and the packing buffers of one
// goroutine of Cross.
type crossWorker struct {
	x      gramWorker // packs the shifted rows of x (its acc is not used)
	q      int
	panels int       // panels of y
	ld     int       // row stride of acc: panels·12
	acc    []float64 // (x.panels·12)×ld
	pack   []float64 // y's panels × gramBlock × 12
	row    []float64 // one row of y, padded to ld
}

func newCrossWorker(d, q int) *crossWorker {
	xp := (d + panelWidth - 1) / panelWidth
	yp := (q + panelWidth - 1) / panelWidth
	w := &crossWorker{
		x: gramWorker{d: d, panels: xp, ld: xp * panelWidth, pack: make([]float64, xp*gramBlock*panelWidth)},
		q: q, panels: yp, ld: yp * panelWidth,
	}
	w.acc = make([]float64, xp*panelWidth*w.ld)
	w.pack = make([]float64, yp*gramBlock*panelWidth)
	w.row = make([]float64, w.ld)
	return w
}

// rows adds rows [lo, hi) to the accumulator, a block at a time.
func (w *crossWorker) rows(x blas64.General, shift []float64, yRow func(int, []float64), lo, hi int) {
	for b0 := lo; b0 < hi; b0 += gramBlock {
		k := min(gramBlock, hi-b0)
		w.x.packBlock(x, shift, nil, b0, k)
		stride := k * panelWidth
		for r := range k {
			clear(w.row)
			yRow(b0+r, w.row[:w.q])
			for p := range w.panels {
				copy(w.pack[p*stride+r*panelWidth:p*stride+(r+1)*panelWidth], w.row[p*panelWidth:])
			}
		}
		for jp := range w.panels {
			b := w.pack[jp*stride:]
			for i0 := 0; i0 < w.x.panels*panelWidth; i0 += tileRows {
				a := w.x.pack[(i0/panelWidth)*stride+i0%panelWidth:]
				kernel.Tile(k, a, b, w.acc[i0*w.ld+jp*panelWidth:], w.ld)
			}
		}
	}
}
