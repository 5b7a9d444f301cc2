package plots

import (
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// This file holds the drawing pieces gonum/plot does not provide: bars
// whose width follows the axis (and which can be hatched or start at a log
// floor), reference lines and bands spanning the data area, hatching, and
// legend thumbnails.

// hatch draws 45° lines spaced sp apart over r.
func hatch(c draw.Canvas, r vg.Rectangle, sp vg.Length, sty draw.LineStyle) {
	h := r.Max.Y - r.Min.Y
	clip := draw.Canvas{Canvas: c.Canvas, Rectangle: r}
	var lines [][]vg.Point
	for x := r.Min.X - h; x < r.Max.X; x += sp {
		lines = append(lines, []vg.Point{{X: x, Y: r.Min.Y}, {X: x + h, Y: r.Max.Y}})
	}
	clip.StrokeLines(sty, clip.ClipLinesXY(lines...)...)
}

// fillText draws txt at pt like draw.Canvas.FillText, but text centred
// vertically (YCenter) is centred on its digits and capitals rather than on
// its whole box, descenders included, which reads as sitting low.
func fillText(c draw.Canvas, sty text.Style, pt vg.Point, txt string) {
	if sty.YAlign == draw.YCenter && sty.Rotation == 0 {
		pt.Y += sty.FontExtents().Descent / 2
	}
	c.FillText(sty, pt, txt)
}

// rect returns the rectangle with corners (x0, y0) and (x1, y1), in any
// order.
func rect(x0, y0, x1, y1 vg.Length) vg.Rectangle {
	return vg.Rectangle{
		Min: vg.Point{X: min(x0, x1), Y: min(y0, y1)},
		Max: vg.Point{X: max(x0, x1), Y: max(y0, y1)},
	}
}

// corners returns r's corners, counter-clockwise from the bottom left.
func corners(r vg.Rectangle) []vg.Point {
	return []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}}
}

// hbars draws horizontal bars from 0: bar i at y = len(vals)−1−i (the
// first on top), 0.62 of a row thick. Constant rows get a hatched grey band
// across the whole axis and a grey bar; each bar's value is written at its
// end.
type hbars struct {
	vals     []float64
	constant []bool
	color    color.Color
}

// Plot implements plot.Plotter.
func (b *hbars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	n := len(b.vals)
	half := (trY(1) - trY(0)) * 0.31
	lsty := aligned(textStyle(noteSize, false, inkColor()), draw.XLeft, draw.YCenter)
	for i, v := range b.vals {
		y := trY(float64(n - 1 - i))
		fill := b.color
		if b.constant[i] {
			band := rect(trX(p.X.Min), y-half*1.45, trX(p.X.Max), y+half*1.45)
			c.FillPolygon(constantFill(), corners(band))
			hatch(c, band, vg.Points(4), draw.LineStyle{Color: constantHatch(), Width: vg.Points(0.6)})
			fill = OtherColor()
		}
		if v > 0 {
			c.FillPolygon(fill, corners(rect(trX(0), y-half, trX(v), y+half)))
		}
		// The share at the bar's end: outside, or inside in white when
		// the bar reaches the end of the axis.
		label := formatShare(v)
		w := lsty.Width(label) + vg.Points(6)
		if trX(v)+w > c.Max.X {
			sty := aligned(lsty, draw.XRight, draw.YCenter)
			sty.Color = color.White
			if luminance(fill) > 0.4 {
				sty.Color = color.Black
			}
			fillText(c, sty, vg.Point{X: trX(v) - vg.Points(3), Y: y}, label)
		} else {
			fillText(c, lsty, vg.Point{X: trX(v) + vg.Points(3), Y: y}, label)
		}
	}
}

// formatShare writes a share in [0, 1] with two decimals ("0.42", "1",
// "0").
func formatShare(v float64) string {
	s := strconv.FormatFloat(v, 'f', 2, 64)
	switch s {
	case "0.00":
		if v > 0 {
			return "<0.01"
		}
		return "0"
	case "1.00":
		return "1"
	}
	return s
}

// vbars draws vertical bars at x = 1, 2, … from the axis floor (0, or the
// bottom of a log axis) to vals[i], 0.8 of a unit wide.
type vbars struct {
	vals  []float64
	color color.Color
}

// Plot implements plot.Plotter.
func (b *vbars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	half := (trX(1) - trX(0)) * 0.4
	floor := 0.0
	if _, log := p.Y.Scale.(plot.LogScale); log {
		floor = p.Y.Min
	}
	for i, v := range b.vals {
		if v <= floor {
			continue
		}
		x := trX(float64(i + 1))
		top := trY(math.Min(v, p.Y.Max))
		pts := c.ClipPolygonXY(corners(rect(x-half, trY(floor), x+half, top)))
		if len(pts) > 0 {
			c.FillPolygon(b.color, pts)
		}
	}
}

// DataRange implements plot.DataRanger.
func (b *vbars) DataRange() (xmin, xmax, ymin, ymax float64) {
	ymax = math.Inf(-1)
	for _, v := range b.vals {
		ymax = math.Max(ymax, v)
	}
	return 0.5, float64(len(b.vals)) + 0.5, 0, ymax
}

// Thumbnail implements plot.Thumbnailer.
func (b *vbars) Thumbnail(c *draw.Canvas) { boxThumb{fill: b.color}.Thumbnail(c) }

// hline is a horizontal line at y across the data area.
type hline struct {
	y   float64
	sty draw.LineStyle
}

// Plot implements plot.Plotter.
func (l hline) Plot(c draw.Canvas, p *plot.Plot) {
	_, trY := p.Transforms(&c)
	y := trY(l.y)
	if c.ContainsY(y) {
		c.StrokeLine2(l.sty, c.Min.X, y, c.Max.X, y)
	}
}

// DataRange implements plot.DataRanger: the line asks for its y only.
func (l hline) DataRange() (xmin, xmax, ymin, ymax float64) {
	return math.Inf(1), math.Inf(-1), l.y, l.y
}

// Thumbnail implements plot.Thumbnailer.
func (l hline) Thumbnail(c *draw.Canvas) { lineThumb{line: l.sty}.Thumbnail(c) }

// vline is a vertical line at x across the data area.
type vline struct {
	x   float64
	sty draw.LineStyle
}

// Plot implements plot.Plotter.
func (l vline) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	x := trX(l.x)
	if c.ContainsX(x) {
		c.StrokeLine2(l.sty, x, c.Min.Y, x, c.Max.Y)
	}
}

// DataRange implements plot.DataRanger: the line asks for its x only.
func (l vline) DataRange() (xmin, xmax, ymin, ymax float64) {
	return l.x, l.x, math.Inf(1), math.Inf(-1)
}

// Thumbnail implements plot.Thumbnailer: a short vertical stroke.
func (l vline) Thumbnail(c *draw.Canvas) {
	x := c.Center().X
	c.StrokeLine2(l.sty, x, c.Min.Y-vg.Points(2), x, c.Max.Y+vg.Points(2))
}

// hband fills the horizontal band y0…y1 across the data area.
type hband struct {
	y0, y1 float64
	fill   color.Color
}

// Plot implements plot.Plotter.
func (b hband) Plot(c draw.Canvas, p *plot.Plot) {
	_, trY := p.Transforms(&c)
	pts := c.ClipPolygonY(corners(rect(c.Min.X, trY(b.y0), c.Max.X, trY(b.y1))))
	if len(pts) > 0 {
		c.FillPolygon(b.fill, pts)
	}
}

// DataRange implements plot.DataRanger.
func (b hband) DataRange() (xmin, xmax, ymin, ymax float64) {
	return math.Inf(1), math.Inf(-1), b.y0, b.y1
}

// lineThumb is a legend thumbnail: a line with an optional marker and an
// optional band behind.
type lineThumb struct {
	line  draw.LineStyle
	glyph *draw.GlyphStyle
	band  color.Color
}

// Thumbnail implements plot.Thumbnailer.
func (t lineThumb) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	if t.band != nil {
		c.FillPolygon(t.band, corners(rect(c.Min.X, c.Min.Y, c.Max.X, c.Max.Y)))
	}
	if t.line.Width > 0 {
		c.StrokeLine2(t.line, c.Min.X, y, c.Max.X, y)
	}
	if t.glyph != nil {
		c.DrawGlyphNoClip(*t.glyph, c.Center())
	}
}

// glyphThumb is a legend thumbnail: one marker.
type glyphThumb struct{ glyph draw.GlyphStyle }

// Thumbnail implements plot.Thumbnailer.
func (t glyphThumb) Thumbnail(c *draw.Canvas) { c.DrawGlyphNoClip(t.glyph, c.Center()) }

// boxThumb is a legend thumbnail: a filled, optionally hatched square.
type boxThumb struct {
	fill  color.Color
	hatch bool
}

// Thumbnail implements plot.Thumbnailer.
func (t boxThumb) Thumbnail(c *draw.Canvas) {
	ctr := c.Center()
	s := min(c.Max.Y-c.Min.Y, vg.Points(10)) / 2
	r := rect(ctr.X-s, ctr.Y-s, ctr.X+s, ctr.Y+s)
	c.FillPolygon(t.fill, corners(r))
	if t.hatch {
		hatch(*c, r, vg.Points(3), draw.LineStyle{Color: constantHatch(), Width: vg.Points(0.6)})
		c.StrokeLines(draw.LineStyle{Color: constantHatch(), Width: vg.Points(0.5)}, append(corners(r), r.Min))
	}
}
