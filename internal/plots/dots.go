package plots

import (
	"cmp"
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Dots draws the curves of an evaluation at one d: a curve of one point
// is a lone error bar, so each method is instead a row of a dot plot
// (Cleveland's), the methods down the y axis in the series' order, each a
// marker in SeriesColor(Color) with the marker shape of Color and ±Err as
// an error bar across it; the metric runs along the x axis (in.YLabel
// names it; in.YRange, when given, fixes it). Baselines are dashed
// vertical lines (with a light ±Err[0] band), named in a legend right of
// the plot. in.Subtitle says which d. in.XLabel and in.XLog are not used.
//
// No series, a series whose Y does not have exactly one value, an X or
// Err whose length is not len(Y), NaN or infinite values, a negative Err,
// no series that is not a baseline, or a YRange that is not finite and
// increasing is an *InputError.
func Dots(in CurvesInput) (*Figure, error) {
	if len(in.Series) == 0 {
		return nil, inputErr("Series", "is empty, want at least one series")
	}
	var rows, base []Series
	for i, s := range in.Series {
		f := fmt.Sprintf("Series[%d]", i)
		if len(s.Y) != 1 {
			return nil, inputErr(f+".Y", "has %d values, want one (a single d)", len(s.Y))
		}
		if s.X != nil && len(s.X) != 1 {
			return nil, inputErr(f+".X", "has %d values, want one", len(s.X))
		}
		if s.Err != nil && len(s.Err) != 1 {
			return nil, inputErr(f+".Err", "has %d values, want one", len(s.Err))
		}
		for _, v := range []struct {
			name string
			vs   []float64
		}{{".X", s.X}, {".Y", s.Y}, {".Err", s.Err}} {
			if err := checkFinite(f+v.name, v.vs); err != nil {
				return nil, err
			}
		}
		if s.Err != nil && s.Err[0] < 0 {
			return nil, inputErr(f+".Err[0]", "is %v, want a standard deviation ≥ 0", s.Err[0])
		}
		c := Series{Name: s.Name, Color: s.Color, X: clone(s.X), Y: clone(s.Y), Err: clone(s.Err), Baseline: s.Baseline}
		if s.Baseline {
			base = append(base, c)
		} else {
			rows = append(rows, c)
		}
	}
	if len(rows) == 0 {
		return nil, inputErr("Series", "has only baselines, want at least one method")
	}
	if err := checkRange("YRange", in.YRange); err != nil {
		return nil, err
	}

	// The metric's range: every value with its error bar, widened, unless
	// fixed.
	lo, hi := valueRange(append(append([]Series(nil), rows...), base...), in.YRange)

	n := len(rows)
	title := cmp.Or(in.Title, "Evaluation")
	xlabel := cmp.Or(in.YLabel, "score")
	rowH := vg.Points(26)

	build := func() *scene {
		p := newPlot()
		p.X.Label.Text = xlabel
		p.X.Min, p.X.Max = lo, hi
		p.Y.Min, p.Y.Max = -0.5, float64(n)-0.5
		p.Y.Padding = 0
		p.Y.Tick.Length = 0
		ticks := make([]plot.Tick, n)
		for i, s := range rows {
			ticks[i] = plot.Tick{Value: float64(n - 1 - i), Label: shortenTo(s.Name, maxDotNameRunes)}
		}
		p.Y.Tick.Marker = plot.ConstantTicks(ticks)
		grid := plotter.NewGrid()
		grid.Vertical = draw.LineStyle{Color: gridColor(), Width: vg.Points(0.5)}
		grid.Horizontal = grid.Vertical
		p.Add(grid)
		var entries []legendEntry
		var meta []SeriesMeta
		// Baselines first, beneath the dots.
		for _, s := range base {
			col := SeriesColor(s.Color)
			th := lineThumb{line: draw.LineStyle{Color: col, Width: vg.Points(1.5), Dashes: dashed()}}
			if s.Err != nil && s.Err[0] > 0 {
				p.Add(vband{x0: s.Y[0] - s.Err[0], x1: s.Y[0] + s.Err[0], fill: withAlpha(col, bandAlpha)})
				th.band = withAlpha(col, bandAlpha)
			}
			p.Add(vline{x: s.Y[0], sty: th.line})
			entries = append(entries, legendEntry{text: s.Name, thumb: th})
			meta = append(meta, SeriesMeta{Name: s.Name, X: clone(s.X), Y: clone(s.Y), Err: clone(s.Err), Baseline: true})
		}
		for i, s := range rows {
			col := SeriesColor(s.Color)
			xy := plotter.XYs{{X: s.Y[0], Y: float64(n - 1 - i)}}
			if s.Err != nil {
				eb, _ := plotter.NewXErrorBars(xErrXYs{xy, s.Err}) // finite by validation
				eb.LineStyle = draw.LineStyle{Color: col, Width: vg.Points(1)}
				eb.CapWidth = vg.Points(5)
				p.Add(eb)
			}
			pts, _ := plotter.NewScatter(xy)
			pts.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(3.5), Shape: marker{shape: shapeOf(s.Color)}}
			p.Add(pts)
			meta = append(meta, SeriesMeta{Name: s.Name, X: clone(s.X), Y: clone(s.Y), Err: clone(s.Err)})
		}
		var side sidePanel
		if len(entries) > 0 {
			side = &legend{entries: entries}
		}
		return &scene{plot: p, side: side, meta: Meta{Kind: "dots", Series: meta}}
	}
	_, _, bottom, top := insets(build().plot)
	return &Figure{
		title:    title,
		subtitle: in.Subtitle,
		width:    curvesWidth,
		height:   2*margin + headerHeight(title, in.Subtitle, curvesWidth) + bottom + top + vg.Length(n)*rowH,
		build:    build,
	}, nil
}

// maxDotNameRunes bounds a dot plot's row names, longer than other
// figures' (a few rows, the names their only labels): "MDDM (orthonormal
// directions) (d = 6)" is whole.
const maxDotNameRunes = 40

// xErrXYs pairs points with symmetric errors for plotter.NewXErrorBars.
type xErrXYs struct {
	plotter.XYs
	err []float64
}

// XError implements plotter.XErrorer.
func (e xErrXYs) XError(i int) (float64, float64) { return e.err[i], e.err[i] }

// vband fills the vertical band x0…x1 across the data area.
type vband struct {
	x0, x1 float64
	fill   color.Color
}

// Plot implements plot.Plotter.
func (b vband) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	pts := c.ClipPolygonX(corners(rect(trX(b.x0), c.Min.Y, trX(b.x1), c.Max.Y)))
	if len(pts) > 0 {
		c.FillPolygon(b.fill, pts)
	}
}

// DataRange implements plot.DataRanger.
func (b vband) DataRange() (xmin, xmax, ymin, ymax float64) {
	return b.x0, b.x1, math.Inf(1), math.Inf(-1)
}
