package plots

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The side column's panels: a legend, and the heatmap's colour bar.

// legendEntry is one line of a legend: a thumbnail and its text, or text
// alone in the text column; with neither, a gap.
type legendEntry struct {
	text  string
	thumb plot.Thumbnailer
}

// legend is a sidePanel listing entries from the top of the data area
// down, outside the data.
type legend struct{ entries []legendEntry }

const (
	thumbW   = 24 // thumbnail width, points
	thumbGap = 6  // between thumbnail and text
	entryGap = 5  // between entries
)

func legendText() text.Style { return textStyle(legendSize, false, inkColor()) }

// width implements sidePanel.
func (l *legend) width() vg.Length {
	var w vg.Length
	for _, e := range l.entries {
		w = max(w, thumbW+thumbGap+legendText().Width(e.text))
	}
	return w
}

// draw implements sidePanel.
func (l *legend) draw(c draw.Canvas, data vg.Rectangle) {
	y := data.Max.Y
	h := max(legendText().Height("Mg"), vg.Points(12))
	for _, e := range l.entries {
		switch {
		case e.text == "" && e.thumb == nil:
			y += h / 2 // a gap of half an entry
		default:
			if e.thumb != nil {
				thumb := draw.Canvas{Canvas: c.Canvas, Rectangle: rect(c.Min.X, y-h, c.Min.X+thumbW, y)}
				e.thumb.Thumbnail(&thumb)
			}
			fillText(c, aligned(legendText(), draw.XLeft, draw.YCenter), vg.Point{X: c.Min.X + thumbW + thumbGap, Y: y - h/2}, e.text)
		}
		y -= h + entryGap
	}
}

// colorBar is a sidePanel: a viridis scale as tall as the data area,
// with its tick labels and name, and a key to the grey cells under it when
// the figure has any.
type colorBar struct {
	name, short string // the scale's name, and a short one for short bars
	// ticks are the labelled positions along the bar, pos in [0, 1] from
	// the bottom; nil labels 0, 0.2, …, 1 (the NMI scale).
	ticks []barTick
	// flip puts viridis(0) at the top of the bar instead of the bottom.
	flip bool
	// key, when set, explains the grey cells with a swatch under the bar.
	key *barKey
}

// barTick is one labelled tick of a colorBar.
type barTick struct {
	pos   float64
	label string
}

// barKey is the swatch under a colorBar: text beside a grey box, hatched
// or plain as the figure's grey cells are.
type barKey struct {
	text  string
	hatch bool
}

const barW = 14 // width of the colour bar, points

// colorBarKeyRoom is the room the key takes under a colour bar, points.
const colorBarKeyRoom = 26

// tickList returns the bar's ticks, the 0…1 ones by default.
func (b *colorBar) tickList() []barTick {
	if b.ticks != nil {
		return b.ticks
	}
	ts := make([]barTick, 6)
	for k := range ts {
		v := float64(k) / 5
		ts[k] = barTick{pos: v, label: strconv.FormatFloat(v, 'g', -1, 64)}
	}
	return ts
}

// width implements sidePanel.
func (b *colorBar) width() vg.Length {
	tick := textStyle(tickSize, false, inkColor())
	var labelW vg.Length
	if b.ticks == nil {
		labelW = tick.Width("0.8")
	}
	for _, t := range b.ticks {
		labelW = max(labelW, tick.Width(t.label))
	}
	w := barW + vg.Points(4) + labelW + vg.Points(6) + textStyle(axisSize, false, inkColor()).Height(b.name)
	if b.key != nil {
		w = max(w, thumbW+thumbGap+legendText().Width(b.key.text))
	}
	return w
}

// draw implements sidePanel.
func (b *colorBar) draw(c draw.Canvas, data vg.Rectangle) {
	top, bottom := data.Max.Y, data.Min.Y
	if b.key != nil {
		bottom += colorBarKeyRoom
	}
	x0, x1 := c.Min.X, c.Min.X+barW
	const steps = 128
	h := (top - bottom) / steps
	for i := range steps {
		y := bottom + vg.Length(i)*h
		t := (float64(i) + 0.5) / steps
		if b.flip {
			t = 1 - t
		}
		// Overlap by a hair so that no seam shows between steps.
		c.FillPolygon(viridis(t), corners(rect(x0, y, x1, y+h+vg.Points(0.3))))
	}
	frame := draw.LineStyle{Color: inkColor(), Width: vg.Points(0.5)}
	c.StrokeLines(frame, []vg.Point{{X: x0, Y: bottom}, {X: x1, Y: bottom}, {X: x1, Y: top}, {X: x0, Y: top}, {X: x0, Y: bottom}})
	tick := aligned(textStyle(tickSize, false, inkColor()), draw.XLeft, draw.YCenter)
	var labelW vg.Length
	for _, t := range b.tickList() {
		y := bottom + vg.Length(t.pos)*(top-bottom)
		c.StrokeLine2(frame, x1, y, x1+vg.Points(3), y)
		fillText(c, tick, vg.Point{X: x1 + vg.Points(5), Y: y}, t.label)
		labelW = max(labelW, tick.Width(t.label))
	}
	name := textStyle(axisSize, false, inkColor())
	name.Rotation = math.Pi / 2
	name = aligned(name, draw.XCenter, draw.YTop)
	title := b.name
	if name.Width(title) > top-bottom {
		title = b.short
	}
	fillText(c, name, vg.Point{X: x1 + vg.Points(5) + labelW + vg.Points(6), Y: (top + bottom) / 2}, title)
	if b.key != nil {
		th := vg.Points(12)
		thumb := draw.Canvas{Canvas: c.Canvas, Rectangle: rect(c.Min.X, data.Min.Y, c.Min.X+thumbW, data.Min.Y+th)}
		boxThumb{fill: constantFill(), hatch: b.key.hatch}.Thumbnail(&thumb)
		fillText(c, aligned(legendText(), draw.XLeft, draw.YCenter), vg.Point{X: c.Min.X + thumbW + thumbGap, Y: data.Min.Y + th/2}, b.key.text)
	}
}
