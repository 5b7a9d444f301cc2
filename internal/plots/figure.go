package plots

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"html"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// PNGDPI is the resolution of Render's PNG: twice the CSS 96 dpi, so that a
// figure shown at its natural CSS size is sharp on high-density screens.
const PNGDPI = 192

// pxPerPt converts points, the unit of the SVG viewBox, to CSS pixels.
const pxPerPt = 96.0 / 72.0

// Layout constants, in points.
const (
	margin      = 10 // around the whole figure
	headerGap   = 8  // between the header and the plot
	subtitleGap = 3  // between the title and the subtitle
	sideGap     = 14 // between the plot and its side column
)

// Figure is a finished plot: render it as SVG, PNG or PDF, at its own size
// or, through ForPrint, at the width of a paper's column or page.
//
// A Figure is immutable: its builder copied and checked the data, and every
// Render, InlineSVG and Meta lays the figure out afresh from them, so a
// Figure may be rendered from several goroutines at once.
type Figure struct {
	title    string
	subtitle string
	// width and height are the size the figure is laid out at, in its
	// own points; it is drawn scale times that size.
	width  vg.Length
	height vg.Length
	// scale is what the figure is drawn at (ForPrint sets it); 0 means 1.
	scale float64
	// minWidth is the least width the figure's content can be laid out
	// at (0: any); a figure of that width is centred in a wider one.
	minWidth vg.Length
	// relayout, when set, lays the figure out afresh at a width (at
	// least what its content needs), for a figure whose drawing depends
	// on its width beyond filling it; nil means widen does.
	relayout func(w vg.Length) *Figure
	build    func() *scene
}

// scene is one freshly built composition of a figure: the gonum plot, the
// side column drawn right of it (legend or colour bar, nil for none) and
// the parts of Meta that do not depend on the layout.
type scene struct {
	plot *plot.Plot
	side sidePanel
	// dataW, when positive, fixes the width of the data area (the heatmap
	// is square); the plot and its side column are then centred.
	dataW vg.Length
	// yLabel, when set, is the y axis' name drawn by the figure rather
	// than by gonum/plot, which places the glyph box of the label of a
	// logarithmic axis at the data midpoint and so pads the plot's top
	// by half the label's length (v0.17, axis.go verticalAxis.GlyphBoxes).
	yLabel string
	meta   Meta
}

// sidePanel is what a figure draws in the column right of its plot.
type sidePanel interface {
	// width is the width of the column.
	width() vg.Length
	// draw draws into c, the column beside the plot; data is the
	// plot's data area, for alignment.
	draw(c draw.Canvas, data vg.Rectangle)
}

// Render writes the figure: format "svg" (a complete SVG document), "png"
// (at PNGDPI, twice the CSS resolution, for sharp screens) or "pdf" (one
// page of the figure's size, its font embedded; see cp1252Text). Any other
// format is an error.
func (f *Figure) Render(w io.Writer, format string) error {
	var b []byte
	var err error
	switch format {
	case "svg":
		b, err = f.svg()
	case "png":
		b, err = f.png()
	case "pdf":
		b, err = f.pdf()
	default:
		return fmt.Errorf("plots: unknown format %q, want svg, png or pdf", format)
	}
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// Title returns the figure's title, as drawn across its top.
func (f *Figure) Title() string { return f.title }

// InlineSVG returns just the <svg …>…</svg> element, without the XML
// declaration, for embedding in HTML. It carries role="img" and
// aria-labelledby pointing at a <title> with the figure's title (and
// aria-describedby a <desc> with its subtitle, if any); its width and
// height are the natural size in CSS pixels and its viewBox is kept, so CSS
// (width: 100%; height: auto) scales it. The ids derive from the content,
// so equal figures get equal ids and different ones different ids.
func (f *Figure) InlineSVG() (string, error) {
	b, err := f.svg()
	if err != nil {
		return "", err
	}
	s := string(b)
	i := strings.Index(s, "<svg")
	if i < 0 {
		return "", fmt.Errorf("plots: internal error: no <svg> element in the rendered SVG")
	}
	s = s[i:]
	// Natural size in CSS px instead of pt, for HTML layout.
	w, h := f.size()
	s = strings.Replace(s,
		fmt.Sprintf(`width="%s" height="%s"`, ptAttr(w), ptAttr(h)),
		fmt.Sprintf(`width="%s" height="%s"`, pxAttr(w), pxAttr(h)), 1)
	return strings.TrimRight(s, "\n"), nil
}

// svg renders the complete SVG document: gonum's output with the
// accessibility attributes and a font fallback added.
func (f *Figure) svg() ([]byte, error) {
	c := vgsvg.New(f.size())
	if err := f.drawSafely(c); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("plots: writing SVG: %w", err)
	}
	return []byte(f.decorateSVG(buf.String())), nil
}

// png renders the figure at PNGDPI.
func (f *Figure) png() ([]byte, error) {
	c := vgimg.NewWith(vgimg.UseWH(f.size()), vgimg.UseDPI(PNGDPI))
	if err := f.drawSafely(c); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	// Fastest compression: encoding took about half of a figure's time at
	// deflate's default level; the fastest level encodes the golden
	// figures 1.4 times as fast into 4 % more bytes.
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, c.Image()); err != nil {
		return nil, fmt.Errorf("plots: writing PNG: %w", err)
	}
	return buf.Bytes(), nil
}

// drawSafely draws the figure on c, a canvas of its size, turning a panic
// inside gonum/plot into an error: the builders checked the data, so a
// panic here is a bug, but it must not take a web server's request down.
func (f *Figure) drawSafely(c vg.Canvas) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("plots: internal error drawing %q: %v", f.title, r)
		}
	}()
	f.drawScene(f.canvas(c), f.build())
	return nil
}

// drawScene draws the white background, the title and subtitle across the
// top, the plot, and its side column; it returns the plot's data area.
func (f *Figure) drawScene(c draw.Canvas, s *scene) vg.Rectangle {
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	body := draw.Crop(c, margin, -margin, margin, -margin)

	width := body.Max.X - body.Min.X
	y := body.Max.Y
	tsty := aligned(titleStyle(), draw.XCenter, draw.YTop)
	title := wrap(tsty, f.title, width)
	body.FillText(tsty, vg.Point{X: body.Center().X, Y: y}, title)
	y -= tsty.Height(title)
	if f.subtitle != "" {
		y -= subtitleGap
		ssty := aligned(subtitleStyle(), draw.XCenter, draw.YTop)
		sub := wrap(ssty, f.subtitle, width)
		body.FillText(ssty, vg.Point{X: body.Center().X, Y: y}, sub)
		y -= ssty.Height(sub)
	}
	body.Max.Y = y - headerGap

	var sideW vg.Length
	if s.side != nil {
		sideW = s.side.width() + sideGap
	}
	var labelW vg.Length
	lsty := textStyle(axisSize, false, inkColor())
	if s.yLabel != "" {
		labelW = lsty.Height(s.yLabel) + vg.Points(4)
	}
	main := draw.Crop(body, labelW, -sideW, 0, 0)
	if s.dataW > 0 {
		l, r, _, _ := insets(s.plot)
		w := l + s.dataW + r
		extra := (body.Max.X - body.Min.X) - (labelW + w + sideW)
		main.Min.X = body.Min.X + labelW + extra/2
		main.Max.X = main.Min.X + w
	}
	s.plot.Draw(main)
	data := s.plot.DataCanvas(main).Rectangle
	if s.yLabel != "" {
		lsty.Rotation = math.Pi / 2
		lsty = aligned(lsty, draw.XCenter, draw.YTop)
		main.FillText(lsty, vg.Point{X: main.Min.X - labelW, Y: (data.Min.Y + data.Max.Y) / 2}, s.yLabel)
	}
	if s.side != nil {
		col := main
		col.Min.X = main.Max.X + sideGap
		col.Max.X = col.Min.X + s.side.width()
		s.side.draw(col, data)
	}
	return data
}

// insets returns the room a plot's axes take around its data area.
func insets(p *plot.Plot) (left, right, bottom, top vg.Length) {
	const big = 2000
	r := vg.Rectangle{Max: vg.Point{X: big, Y: big}}
	d := p.DataCanvas(draw.Canvas{Canvas: nopCanvas{w: big, h: big}, Rectangle: r}).Rectangle
	return d.Min.X, big - d.Max.X, d.Min.Y, big - d.Max.Y
}

func titleStyle() text.Style    { return textStyle(titleSize, true, inkColor()) }
func subtitleStyle() text.Style { return textStyle(subtitleSize, false, mutedColor()) }

// headerHeight is the height the title and subtitle take, gaps included,
// in a figure w wide.
func headerHeight(title, subtitle string, w vg.Length) vg.Length {
	w -= 2 * margin
	h := titleStyle().Height(wrap(titleStyle(), title, w)) + headerGap
	if subtitle != "" {
		h += subtitleGap + subtitleStyle().Height(wrap(subtitleStyle(), subtitle, w))
	}
	return h
}

// wrap breaks s into lines no wider than w at spaces (after "; " by
// preference), but never within an equation ("α = 0.10"), for gonum's
// multi-line text.
func wrap(sty text.Style, s string, w vg.Length) string {
	if sty.Width(s) <= w {
		return s
	}
	var lines []string
	line := ""
	for _, word := range unbreakable(s) {
		next := word
		if line != "" {
			next = line + " " + word
		}
		if line != "" && (sty.Width(next) > w || strings.HasSuffix(line, ";")) {
			lines = append(lines, line)
			next = word
		}
		line = next
	}
	return strings.Join(append(lines, line), "\n")
}

// unbreakable splits s at the spaces a line may break at: each space but
// those around an "=" standing alone, so that "d = 3" stays whole.
func unbreakable(s string) []string {
	var out []string
	for _, word := range strings.Split(s, " ") {
		if n := len(out); n > 0 && (word == "=" || strings.HasSuffix(out[n-1], " =")) {
			out[n-1] += " " + word
			continue
		}
		out = append(out, word)
	}
	return out
}

// decorateSVG adds role, aria attributes, <title> and <desc> to gonum's SVG
// and a font fallback (Liberation Sans is metric-compatible with Arial, so
// the layout holds where Liberation is not installed).
func (f *Figure) decorateSVG(s string) string {
	h := fnv.New64a()
	h.Write([]byte(s))
	id := "fig-" + strconv.FormatUint(h.Sum64()&0xffffffffff, 36)

	s = strings.ReplaceAll(s, "font-family:Liberation Sans;", "font-family:Liberation Sans,Arial,Helvetica,sans-serif;")

	start := strings.Index(s, "<svg ")
	if start < 0 {
		return s
	}
	end := start + strings.Index(s[start:], ">")
	open := s[start:end] // the opening tag without its ">"
	aria := fmt.Sprintf(` role="img" aria-labelledby="%s-t"`, id)
	inner := fmt.Sprintf("<title id=\"%s-t\">%s</title>\n", id, html.EscapeString(f.title))
	if f.subtitle != "" {
		aria += fmt.Sprintf(` aria-describedby="%s-d"`, id)
		inner += fmt.Sprintf("<desc id=\"%s-d\">%s</desc>\n", id, html.EscapeString(f.subtitle))
	}
	return s[:start] + open + aria + ">\n" + inner + strings.TrimPrefix(s[end+1:], "\n")
}

// ptAttr formats a length as gonum's SVG header does.
func ptAttr(l vg.Length) string { return fmt.Sprintf("%.*gpt", 5, l.Points()) }

// pxAttr formats a length in whole CSS pixels.
func pxAttr(l vg.Length) string {
	return strconv.Itoa(int(math.Round(l.Points() * pxPerPt)))
}

// nopCanvas is a vg.Canvas that draws nothing, for laying out without
// rendering.
type nopCanvas struct{ w, h vg.Length }

func (c nopCanvas) Size() (vg.Length, vg.Length)         { return c.w, c.h }
func (nopCanvas) SetLineWidth(vg.Length)                 {}
func (nopCanvas) SetLineDash([]vg.Length, vg.Length)     {}
func (nopCanvas) SetColor(color.Color)                   {}
func (nopCanvas) Rotate(float64)                         {}
func (nopCanvas) Translate(vg.Point)                     {}
func (nopCanvas) Scale(float64, float64)                 {}
func (nopCanvas) Push()                                  {}
func (nopCanvas) Pop()                                   {}
func (nopCanvas) Stroke(vg.Path)                         {}
func (nopCanvas) Fill(vg.Path)                           {}
func (nopCanvas) FillString(font.Face, vg.Point, string) {}
func (nopCanvas) DrawImage(vg.Rectangle, image.Image)    {}
