package plots

import (
	"fmt"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Widths of figures in print.
const (
	// ColumnWidth is one column of a two-column paper (ACM's 3.33 in,
	// IEEE's 3.5 in, Springer's 84 mm are near it).
	ColumnWidth = 3.3 * vg.Inch
	// PageWidth is the text width of a two-column paper, both columns.
	PageWidth = 7 * vg.Inch
	// MinPrintWidth and MaxPrintWidth bound what ForPrint accepts: below,
	// even a figure's print-sized text leaves its data no room; above,
	// no paper has the room.
	MinPrintWidth = 2.5 * vg.Inch
	MaxPrintWidth = 8 * vg.Inch
)

// printScale is what a printed figure is drawn at: its 12.5 pt tick labels
// print at 8 pt, its 16 pt title at 10 pt and its smallest notes (9.5 pt)
// at 6 pt, the sizes of a paper's figures beside its 9–10 pt text.
const printScale = 0.64

// minPrintLine is the thinnest line a printed figure draws, in printed
// points: thinner ones (0.5 pt grids, 0.75 pt axes at printScale) are
// drawn this wide, so that they survive printing.
const minPrintLine = 0.5

// ForPrint returns the figure laid out for a paper at width w (from
// MinPrintWidth to MaxPrintWidth; ColumnWidth and PageWidth are the usual
// ones): laid out afresh at w/printScale, so that its text prints at the
// same sizes at any width, then drawn at printScale, its lines at least
// minPrintLine thick. A figure whose content needs more room (many
// methods in a critical-difference diagram, many labels in a heatmap) is
// laid out at the width it needs and drawn smaller, so that it is still
// exactly w wide; its height follows. Text a figure sets small on screen
// already (the names of a heatmap of 50 labels, 7 pt) prints smaller than
// 6 pt. A width outside the bounds is an error.
func (f *Figure) ForPrint(w vg.Length) (*Figure, error) {
	if !(w >= MinPrintWidth && w <= MaxPrintWidth) {
		return nil, fmt.Errorf("plots: a printed figure is %.4g to %.4g in wide, not %.4g in",
			MinPrintWidth/vg.Inch, MaxPrintWidth/vg.Inch, w/vg.Inch)
	}
	g := f.resize(w / printScale)
	g.scale = float64(w / g.width)
	return g, nil
}

// resize returns the figure laid out at width w, or at the least width its
// content needs if that is more: afresh if it has a relayout, else widened.
func (f *Figure) resize(w vg.Length) *Figure {
	if f.relayout != nil {
		return f.relayout(w)
	}
	return f.widen(w)
}

// widen returns the figure w wide, or its least width (minWidth) if that
// is more, its content centred or stretched. Its height keeps the room
// below the header; the header wraps at the new width.
func (f *Figure) widen(w vg.Length) *Figure {
	g := *f
	g.width = max(w, f.minWidth)
	g.height += headerHeight(f.title, f.subtitle, g.width) - headerHeight(f.title, f.subtitle, f.width)
	return &g
}

// zoom is the scale the figure is drawn at.
func (f *Figure) zoom() float64 {
	if f.scale == 0 {
		return 1
	}
	return f.scale
}

// size is the figure's drawn size.
func (f *Figure) size() (w, h vg.Length) {
	k := vg.Length(f.zoom())
	return k * f.width, k * f.height
}

// canvas returns the figure's drawing area on c, a canvas of its drawn
// size: the figure's own width × height, scaled to fill c, with lines no
// thinner than minPrintLine once printed.
func (f *Figure) canvas(c vg.Canvas) draw.Canvas {
	k := f.zoom()
	if k != 1 {
		c.Scale(k, k)
		c = thickLines{Canvas: c, min: minPrintLine / vg.Length(k)}
	}
	return draw.Canvas{Canvas: c, Rectangle: vg.Rectangle{Max: vg.Point{X: f.width, Y: f.height}}}
}

// thickLines is a canvas that draws no line (of positive width) thinner
// than min.
type thickLines struct {
	vg.Canvas
	min vg.Length
}

// SetLineWidth implements vg.Canvas.
func (c thickLines) SetLineWidth(w vg.Length) {
	if w > 0 {
		w = max(w, c.min)
	}
	c.Canvas.SetLineWidth(w)
}
