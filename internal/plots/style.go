package plots

import (
	"image/color"
	"math"

	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// paletteSize is the number of colours SeriesColor cycles through.
const paletteSize = 8

// SeriesColor returns the i-th colour of the Okabe–Ito palette (Okabe & Ito
// 2008, "Color Universal Design"), which stays distinguishable under the
// common colour-vision deficiencies: orange #E69F00, sky blue #56B4E9,
// bluish green #009E73, blue #0072B2, vermillion #D55E00, reddish purple
// #CC79A7, yellow #F0E442 and black. i cycles: SeriesColor(8) is
// SeriesColor(0), and a negative i counts from the end.
func SeriesColor(i int) color.Color {
	i %= paletteSize
	if i < 0 {
		i += paletteSize
	}
	switch i {
	case 0:
		return rgb(0xE69F00)
	case 1:
		return rgb(0x56B4E9)
	case 2:
		return rgb(0x009E73)
	case 3:
		return rgb(0x0072B2)
	case 4:
		return rgb(0xD55E00)
	case 5:
		return rgb(0xCC79A7)
	case 6:
		return rgb(0xF0E442)
	default:
		return rgb(0x000000)
	}
}

// OtherColor returns the grey (#999999, Okabe and Ito's grey) used for
// "other": points outside every named group, and constant labels.
func OtherColor() color.Color { return rgb(0x999999) }

// rgb turns 0xRRGGBB into an opaque colour.
func rgb(hex uint32) color.RGBA {
	return color.RGBA{R: uint8(hex >> 16), G: uint8(hex >> 8), B: uint8(hex), A: 0xff}
}

// withAlpha returns c at opacity a in [0, 1], premultiplied as color.RGBA
// requires.
func withAlpha(c color.Color, a float64) color.Color {
	r, g, b, _ := c.RGBA()
	return color.RGBA64{
		R: uint16(float64(r) * a), G: uint16(float64(g) * a),
		B: uint16(float64(b) * a), A: uint16(0xffff * a),
	}
}

// Neutral colours of the figures.
func inkColor() color.Color      { return rgb(0x222222) } // text and axes
func mutedColor() color.Color    { return rgb(0x555555) } // subtitles, notes
func gridColor() color.Color     { return rgb(0xE3E3E3) }
func constantFill() color.Color  { return rgb(0xE8E8E8) } // constant labels' bands and cells
func constantHatch() color.Color { return rgb(0x9A9A9A) }

// viridisStop returns the i-th of viridisStops evenly spaced samples of
// matplotlib's viridis map (van der Walt & Smith; the values of R
// viridisLite::viridis(10)): a perceptually uniform sequential map,
// readable in grey and under the common colour-vision deficiencies.
func viridisStop(i int) color.RGBA {
	switch i {
	case 0:
		return rgb(0x440154)
	case 1:
		return rgb(0x482878)
	case 2:
		return rgb(0x3E4A89)
	case 3:
		return rgb(0x31688E)
	case 4:
		return rgb(0x26828E)
	case 5:
		return rgb(0x1F9E89)
	case 6:
		return rgb(0x35B779)
	case 7:
		return rgb(0x6DCD59)
	case 8:
		return rgb(0xB4DE2C)
	default:
		return rgb(0xFDE725)
	}
}

// viridisStops is the number of samples viridisStop knows.
const viridisStops = 10

// viridis returns the viridis colour at t in [0, 1] (clamped), linearly
// interpolated between viridisStops samples.
func viridis(t float64) color.RGBA {
	if !(t > 0) { // also NaN
		return viridisStop(0)
	}
	if t >= 1 {
		return viridisStop(viridisStops - 1)
	}
	s := t * (viridisStops - 1)
	i := int(s)
	f := s - float64(i)
	a, b := viridisStop(i), viridisStop(i+1)
	mix := func(x, y uint8) uint8 { return uint8(math.Round(float64(x) + f*(float64(y)-float64(x)))) }
	return color.RGBA{R: mix(a.R, b.R), G: mix(a.G, b.G), B: mix(a.B, b.B), A: 0xff}
}

// viridisPalette is viridis as a gonum palette.Palette of n colours.
type viridisPalette int

// Colors implements palette.Palette.
func (n viridisPalette) Colors() []color.Color {
	cs := make([]color.Color, n)
	for i := range cs {
		cs[i] = viridis(float64(i) / float64(n-1))
	}
	return cs
}

// sequentialColor returns the colour of the i-th of n ordered groups: viridis
// from dark purple to green, stopping short of the yellow end, which is too
// light on a white background.
func sequentialColor(i, n int) color.Color {
	if n <= 1 {
		return viridis(0.35)
	}
	return viridis(0.85 * float64(i) / float64(n-1))
}

// luminance is the relative luminance of c in [0, 1], to pick black or white
// text over it.
func luminance(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	lin := func(v uint32) float64 {
		x := float64(v) / 0xffff
		if x <= 0.04045 {
			return x / 12.92
		}
		return math.Pow((x+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(r) + 0.7152*lin(g) + 0.0722*lin(b)
}

// Type sizes, in points. A figure is about 600 pt (800 CSS px) wide, but
// pages show it in a column of about 600 px, so 1 pt reads as about 1 px:
// the sizes are chosen for that.
const (
	titleSize    = 16
	subtitleSize = 12
	axisSize     = 14
	tickSize     = 12.5
	legendSize   = 12.5
	noteSize     = 11
)

// textStyle returns a Liberation Sans style (the sans-serif face of gonum's
// default, embedded Liberation fonts).
func textStyle(size vg.Length, bold bool, c color.Color) text.Style {
	f := font.Font{Typeface: "Liberation", Variant: "Sans"}
	if bold {
		f.Weight = xfont.WeightBold
	}
	return text.Style{
		Color:   c,
		Font:    font.From(f, size),
		Handler: plot.DefaultTextHandler,
	}
}

// aligned returns sty with the given alignment.
func aligned(sty text.Style, x text.XAlignment, y text.YAlignment) text.Style {
	sty.XAlign, sty.YAlign = x, y
	return sty
}

// newPlot returns a plot with the house look: Liberation Sans, thin dark
// axes meeting at the corner, short ticks at round values.
func newPlot() *plot.Plot {
	p := plot.New()
	p.BackgroundColor = color.White
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle = aligned(textStyle(axisSize, false, inkColor()), a.Label.TextStyle.XAlign, a.Label.TextStyle.YAlign)
		a.Label.Padding = vg.Points(4)
		a.Tick.Label = aligned(textStyle(tickSize, false, inkColor()), a.Tick.Label.XAlign, a.Tick.Label.YAlign)
		a.LineStyle = draw.LineStyle{Color: inkColor(), Width: vg.Points(0.75)}
		a.Tick.LineStyle = draw.LineStyle{Color: inkColor(), Width: vg.Points(0.75)}
		a.Tick.Length = vg.Points(5)
		a.Tick.Marker = niceTicks{n: 8}
		// The builders leave room around the data in the axis ranges
		// instead, so that the axes meet at the corner.
		a.Padding = 0
	}
	return p
}

// Line styles. Series differ by marker shape (and baselines and reference
// lines by dash pattern) as well as by colour.
func dashed() []vg.Length { return []vg.Length{vg.Points(6), vg.Points(3)} }
func dotDash() []vg.Length {
	return []vg.Length{vg.Points(7), vg.Points(2.5), vg.Points(1.5), vg.Points(2.5)}
}

// shape is a marker outline.
type shape int

const (
	shapeCircle shape = iota
	shapeSquare
	shapeTriangle
	shapeDiamond
	shapeTriangleDown
	shapePentagon
	numShapes
)

// shapeOf returns the marker shape of the i-th series or group (cycling).
func shapeOf(i int) shape {
	s := shape(i % int(numShapes))
	if s < 0 {
		s += numShapes
	}
	return s
}

// marker is a draw.GlyphDrawer for the shapes, filled or as an outline
// (test points).
type marker struct {
	shape shape
	open  bool
}

// DrawGlyph implements draw.GlyphDrawer.
func (m marker) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	r := sty.Radius
	var p vg.Path
	poly := func(n int, rot float64, scale vg.Length) {
		for k := range n {
			a := rot + 2*math.Pi*float64(k)/float64(n)
			q := vg.Point{X: pt.X + scale*r*vg.Length(math.Cos(a)), Y: pt.Y + scale*r*vg.Length(math.Sin(a))}
			if k == 0 {
				p.Move(q)
			} else {
				p.Line(q)
			}
		}
		p.Close()
	}
	switch m.shape {
	case shapeSquare:
		poly(4, math.Pi/4, 1.2)
	case shapeTriangle:
		poly(3, math.Pi/2, 1.3)
	case shapeDiamond:
		poly(4, 0, 1.3)
	case shapeTriangleDown:
		poly(3, -math.Pi/2, 1.3)
	case shapePentagon:
		poly(5, math.Pi/2, 1.15)
	default:
		p.Move(vg.Point{X: pt.X + r, Y: pt.Y})
		p.Arc(pt, r, 0, 2*math.Pi)
		p.Close()
	}
	if m.open {
		c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: vg.Points(1)})
		c.Stroke(p)
		return
	}
	c.SetColor(sty.Color)
	c.Fill(p)
}
