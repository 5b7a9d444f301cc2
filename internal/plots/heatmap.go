package plots

import (
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// NMIHeatmap draws the q×q matrix m of normalised mutual information
// between labels (values in [0, 1], as analysis.LabelNMI gives) as a square
// heatmap with the sequential, colour-blind-safe viridis palette on a fixed
// 0…1 scale, shown by a colour bar beside it. Label names are on both axes
// (row i from the top, column j from the left; the column names turn 45° or
// 90° when they do not fit), and each cell shows its value when q ≤ 12.
// Constant labels (constant[i], nil: none) have "(constant)" after their
// name and their row and column hatched grey instead of coloured.
//
// m must have q rows of q finite values in [0, 1] (1e-9 of rounding either
// side is tolerated and clamped); anything else, an empty labels, more
// than MaxHeatmapLabels labels or a constant of the wrong length is an
// *InputError.
func NMIHeatmap(labels []string, m [][]float64, constant []bool) (*Figure, error) {
	return NMIHeatmapPart(labels, m, constant, Part{})
}

// NMIHeatmapPart is NMIHeatmap of some of a data set's labels, which its
// subtitle says (see Part).
func NMIHeatmapPart(labels []string, m [][]float64, constant []bool, part Part) (*Figure, error) {
	q := len(labels)
	if q == 0 {
		return nil, inputErr("labels", "is empty, want at least one label")
	}
	if q > MaxHeatmapLabels {
		return nil, inputErr("labels", "has %d labels, want at most %d (choose which to show)", q, MaxHeatmapLabels)
	}
	if len(m) != q {
		return nil, inputErr("m", "has %d rows, want %d (one per label)", len(m), q)
	}
	if constant != nil {
		if err := checkLen("constant", len(constant), q, "label"); err != nil {
			return nil, err
		}
	}
	const slack = 1e-9
	vals := make([][]float64, q)
	for i, row := range m {
		if len(row) != q {
			return nil, inputErr(fmt.Sprintf("m[%d]", i), "has %d values, want %d (one per label)", len(row), q)
		}
		if err := checkFinite(fmt.Sprintf("m[%d]", i), row); err != nil {
			return nil, err
		}
		vals[i] = make([]float64, q)
		for j, v := range row {
			if v < -slack || v > 1+slack {
				return nil, inputErr(fmt.Sprintf("m[%d][%d]", i, j), "is %v, want a value in [0, 1]", v)
			}
			vals[i][j] = math.Min(1, math.Max(0, v))
		}
	}
	labels, constant = clone(labels), boolsOrFalse(constant, q)

	// Cells of 36 pt, smaller for many labels (the map at most 440 pt,
	// cells at least 9 pt), larger for very few (the map at least 200 pt,
	// so that the colour bar beside it reads).
	fq := float64(q)
	cell := vg.Length(math.Max(9, math.Min(440/fq, math.Max(36, 200/fq))))
	tick := vg.Length(math.Min(tickSize, math.Max(7, float64(cell)*0.75)))
	names := make([]string, q)
	nConst := 0
	for i, l := range labels {
		names[i] = shorten(l)
		if constant[i] {
			names[i] += " (constant)"
			nConst++
		}
	}
	tsty := textStyle(tick, false, inkColor())
	rotation := columnRotation(tsty, names, cell)
	subtitle := part.subtitle(q)
	if nConst > 0 {
		subtitle += fmt.Sprintf(", %d constant (hatched grey)", nConst)
	}

	build := func() *scene {
		p := newPlot()
		for _, a := range []*plot.Axis{&p.X, &p.Y} {
			a.Min, a.Max = -0.5, float64(q)-0.5
			a.Padding = 0
			a.Tick.Length = 0
			a.Tick.Label.Font.Size = tick
			a.LineStyle.Width = 0
		}
		xt := make([]plot.Tick, q)
		yt := make([]plot.Tick, q)
		for i, s := range names {
			xt[i] = plot.Tick{Value: float64(i), Label: s}
			yt[i] = plot.Tick{Value: float64(q - 1 - i), Label: s}
		}
		p.X.Tick.Marker = plot.ConstantTicks(xt)
		p.Y.Tick.Marker = plot.ConstantTicks(yt)
		rotateColumnNames(p, tsty, rotation)
		hm := plotter.NewHeatMap(nmiGrid{vals: vals, constant: constant}, viridisPalette(256))
		hm.Min, hm.Max = 0, 1
		hm.NaN = constantFill()
		p.Add(heatCells{hm}, &cellMarks{vals: vals, constant: constant, annotate: q <= 12})
		return &scene{
			plot:  p,
			side:  &colorBar{name: "normalised mutual information", short: "NMI", key: constantKey(nConst)},
			dataW: vg.Length(q) * cell,
			meta: Meta{
				Kind:     "heatmap",
				Rows:     clone(labels),
				Cols:     clone(labels),
				Values:   cloneMatrix(vals),
				Constant: clone(constant),
			},
		}
	}

	const title = "Label normalised mutual information"
	s := build()
	left, right, bottom, top := insets(s.plot)
	side := vg.Length(q) * cell
	content := 2*margin + left + side + right + sideGap + s.side.width()
	w := max(content, 2*margin+titleStyle().Width(title)+vg.Points(20))
	return &Figure{
		title:    title,
		subtitle: subtitle,
		width:    w,
		minWidth: content,
		height:   2*margin + headerHeight(title, subtitle, w) + top + side + bottom,
		build:    build,
	}, nil
}

// nmiGrid is the NMI matrix as a plotter.GridXYZ: column c at x = c, matrix
// row i at y = q−1−i (the first row on top). Cells of constant labels are
// NaN, which the heatmap fills grey.
type nmiGrid struct {
	vals     [][]float64
	constant []bool
}

func (g nmiGrid) Dims() (c, r int) { return len(g.vals), len(g.vals) }
func (g nmiGrid) X(c int) float64  { return float64(c) }
func (g nmiGrid) Y(r int) float64  { return float64(r) }
func (g nmiGrid) Z(c, r int) float64 {
	i := len(g.vals) - 1 - r
	if g.constant[i] || g.constant[c] {
		return math.NaN()
	}
	return g.vals[i][c]
}

// heatCells draws a plotter.HeatMap without its glyph boxes, which would
// pad the axes when cells are small; the cells meet the axes exactly.
type heatCells struct{ hm *plotter.HeatMap }

// Plot implements plot.Plotter.
func (h heatCells) Plot(c draw.Canvas, p *plot.Plot) { h.hm.Plot(c, p) }

// DataRange implements plot.DataRanger.
func (h heatCells) DataRange() (xmin, xmax, ymin, ymax float64) { return h.hm.DataRange() }

// cellMarks hatches the cells of constant labels and, with annotate, writes
// every other cell's value in black or white, whichever reads on it.
type cellMarks struct {
	vals     [][]float64
	constant []bool
	annotate bool
}

// Plot implements plot.Plotter.
func (m *cellMarks) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	q := len(m.vals)
	cellH := trY(1) - trY(0)
	sty := aligned(textStyle(min(noteSize, cellH*0.38), false, inkColor()), draw.XCenter, draw.YCenter)
	line := draw.LineStyle{Color: constantHatch(), Width: vg.Points(0.6)}
	for i := range q {
		y := float64(q - 1 - i)
		for j := range q {
			x := float64(j)
			if m.constant[i] || m.constant[j] {
				hatch(c, rect(trX(x-0.5), trY(y-0.5), trX(x+0.5), trY(y+0.5)), vg.Points(4), line)
				continue
			}
			if !m.annotate {
				continue
			}
			v := m.vals[i][j]
			sty.Color = inkColor()
			if luminance(viridis(v)) < 0.3 {
				sty.Color = rgb(0xFFFFFF)
			}
			fillText(c, sty, vg.Point{X: trX(x), Y: trY(y)}, strconv.FormatFloat(v, 'f', 2, 64))
		}
	}
}

// cloneMatrix copies a matrix row by row.
func cloneMatrix(m [][]float64) [][]float64 {
	out := make([][]float64, len(m))
	for i, r := range m {
		out[i] = clone(r)
	}
	return out
}

// constantKey is the colour bar's key to constant labels' cells, nil when
// there are none.
func constantKey(nConst int) *barKey {
	if nConst == 0 {
		return nil
	}
	return &barKey{text: "constant", hatch: true}
}

// columnRotation returns the angle at which the column names of a heatmap
// with cells cell wide are written in tsty: level when the widest fits its
// cell, 45° when a line of text fits, else 90°.
func columnRotation(tsty text.Style, names []string, cell vg.Length) float64 {
	var widest vg.Length
	for _, s := range names {
		widest = max(widest, tsty.Width(s))
	}
	switch {
	case widest <= cell*0.9:
		return 0
	case tsty.Height("Mg") <= cell*0.7:
		return math.Pi / 4
	default:
		return math.Pi / 2
	}
}

// rotateColumnNames turns p's x tick labels, written in tsty, by rotation
// (nothing for 0).
func rotateColumnNames(p *plot.Plot, tsty text.Style, rotation float64) {
	if rotation == 0 {
		return
	}
	// Rotated names end under their column. gonum anchors them a little
	// above the bottom of the ticks, so at 45° half a line would reach
	// into the cells: invisible ticks as long as that half line keep
	// them clear.
	p.X.Tick.Label.Rotation = rotation
	p.X.Tick.Label.XAlign = draw.XRight
	p.X.Tick.Label.YAlign = draw.YCenter
	p.X.Tick.Length = tsty.Height("Mg")*0.5*vg.Length(math.Sin(rotation)) + vg.Points(2)
	p.X.Tick.Color = color.Transparent
}
