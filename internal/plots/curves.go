package plots

import (
	"cmp"
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// bandAlpha is the opacity of a baseline's ±Err band.
const bandAlpha = 0.08

// CurvesInput is what Curves draws.
type CurvesInput struct {
	// Title is the figure's title; "" gives "Evaluation".
	Title string
	// Subtitle is a line under the title; "" for none.
	Subtitle string
	// YLabel and XLabel name the axes; "" gives "score" and "d".
	YLabel, XLabel string
	// Series are the curves, drawn and listed in this order.
	Series []Series
	// YRange fixes the y axis ([min, max]), so that several figures share
	// it; nil fits the data (error bars included).
	YRange *[2]float64
	// XLog draws d on a logarithmic axis (ticks at 1, 2, 5, 10, …), for
	// grids that span label-space methods' few dimensions and feature
	// methods' many. Every X must then be positive.
	XLog bool
}

// Series is one curve of Curves: a metric against d for one method, say.
type Series struct {
	// Name is the legend's text.
	Name string
	// Color is the series' index into SeriesColor; it also picks the
	// marker shape, so that a method keeps its look across figures.
	Color int
	// X and Y are the points. A Baseline needs only Y[0], and X may be
	// nil.
	X, Y []float64
	// Err is the standard deviation at each point, drawn as an error bar
	// (for a Baseline, Err[0] as a light band around it); nil for none.
	Err []float64
	// Baseline draws a horizontal dashed line at Y[0] across the plot,
	// e.g. the unreduced "ori" result, instead of a curve.
	Baseline bool
}

// curvesWidth is wider than the other figures: the curves stand alone
// across the page, and their legend names methods in full.
const curvesWidth = 640

// Curves draws evaluation curves: each series a line with a marker at
// every point, in SeriesColor(Color) with the marker shape of Color,
// ±Err as error bars; baselines as dashed horizontal lines (with a light
// ±Err[0] band). The legend is a column right of the plot, outside the
// data.
//
// No series, a series with no Y, an X or Err whose length is not len(Y),
// NaN or infinite values, a negative Err, or a YRange that is not finite
// and increasing is an *InputError.
func Curves(in CurvesInput) (*Figure, error) {
	if len(in.Series) == 0 {
		return nil, inputErr("Series", "is empty, want at least one series")
	}
	series := make([]Series, len(in.Series))
	for i, s := range in.Series {
		f := fmt.Sprintf("Series[%d]", i)
		if len(s.Y) == 0 {
			return nil, inputErr(f+".Y", "is empty, want at least one point")
		}
		if s.X != nil || !s.Baseline {
			if err := checkLen(f+".X", len(s.X), len(s.Y), "value of Y"); err != nil {
				return nil, err
			}
		}
		if s.Err != nil {
			if err := checkLen(f+".Err", len(s.Err), len(s.Y), "value of Y"); err != nil {
				return nil, err
			}
		}
		for _, v := range []struct {
			name string
			vs   []float64
		}{{".X", s.X}, {".Y", s.Y}, {".Err", s.Err}} {
			if err := checkFinite(f+v.name, v.vs); err != nil {
				return nil, err
			}
		}
		for j, x := range s.X {
			if in.XLog && x <= 0 {
				return nil, inputErr(fmt.Sprintf("%s.X[%d]", f, j), "is %v, want a positive value on a logarithmic axis", x)
			}
		}
		for j, e := range s.Err {
			if e < 0 {
				return nil, inputErr(fmt.Sprintf("%s.Err[%d]", f, j), "is %v, want a standard deviation ≥ 0", e)
			}
		}
		series[i] = Series{Name: s.Name, Color: s.Color, X: clone(s.X), Y: clone(s.Y), Err: clone(s.Err), Baseline: s.Baseline}
	}
	if err := checkRange("YRange", in.YRange); err != nil {
		return nil, err
	}

	// The x range: the curves', else the baselines' X, else [0, 1].
	// Whole x values (d) get whole ticks.
	intX := true
	for _, s := range series {
		for _, x := range s.X {
			intX = intX && x == math.Trunc(x)
		}
	}
	xlo, xhi := math.Inf(1), math.Inf(-1)
	for pass := 0; pass < 2 && xlo > xhi; pass++ {
		for _, s := range series {
			if s.Baseline == (pass == 0) {
				continue
			}
			for _, x := range s.X {
				xlo, xhi = math.Min(xlo, x), math.Max(xhi, x)
			}
		}
	}
	switch {
	case xlo > xhi && in.XLog:
		xlo, xhi = 1, 10
	case xlo > xhi:
		xlo, xhi = 0, 1
	}
	if xlo == xhi {
		if in.XLog {
			xlo, xhi = xlo/2, xhi*2
		} else {
			xlo, xhi = xlo-1, xhi+1
		}
	}
	if in.XLog {
		pad := math.Pow(xhi/xlo, 0.03)
		xlo, xhi = xlo/pad, xhi*pad
	} else {
		pad := 0.03 * (xhi - xlo)
		xlo, xhi = xlo-pad, xhi+pad
	}

	ylo, yhi := valueRange(series, in.YRange)

	title := cmp.Or(in.Title, "Evaluation")
	xlabel, ylabel := cmp.Or(in.XLabel, "d"), cmp.Or(in.YLabel, "score")

	build := func() *scene {
		p := newPlot()
		p.X.Label.Text, p.Y.Label.Text = xlabel, ylabel
		grid := plotter.NewGrid()
		grid.Vertical = draw.LineStyle{Color: gridColor(), Width: vg.Points(0.5)}
		grid.Horizontal = grid.Vertical
		p.Add(grid)
		var entries []legendEntry
		meta := make([]SeriesMeta, len(series))
		// Baselines first, beneath the curves.
		for _, s := range series {
			if !s.Baseline {
				continue
			}
			col := SeriesColor(s.Color)
			if s.Err != nil && s.Err[0] > 0 {
				p.Add(hband{y0: s.Y[0] - s.Err[0], y1: s.Y[0] + s.Err[0], fill: withAlpha(col, bandAlpha)})
			}
			p.Add(hline{y: s.Y[0], sty: draw.LineStyle{Color: col, Width: vg.Points(1.5), Dashes: dashed()}})
		}
		for _, s := range series {
			if s.Baseline {
				continue
			}
			col := SeriesColor(s.Color)
			xys := make(plotter.XYs, len(s.Y))
			for j := range xys {
				xys[j] = plotter.XY{X: s.X[j], Y: s.Y[j]}
			}
			if s.Err != nil {
				eb, _ := plotter.NewYErrorBars(errXYs{xys, s.Err}) // finite by validation
				eb.LineStyle = draw.LineStyle{Color: col, Width: vg.Points(1)}
				eb.CapWidth = vg.Points(5)
				p.Add(eb)
			}
			line, _ := plotter.NewLine(xys)
			line.LineStyle = draw.LineStyle{Color: col, Width: vg.Points(1.5)}
			pts, _ := plotter.NewScatter(xys)
			pts.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(3), Shape: marker{shape: shapeOf(s.Color)}}
			p.Add(line, pts)
		}
		for i, s := range series {
			col := SeriesColor(s.Color)
			if s.Baseline {
				th := lineThumb{line: draw.LineStyle{Color: col, Width: vg.Points(1.5), Dashes: dashed()}}
				if s.Err != nil && s.Err[0] > 0 {
					th.band = withAlpha(col, bandAlpha)
				}
				entries = append(entries, legendEntry{text: s.Name, thumb: th})
			} else {
				g := draw.GlyphStyle{Color: col, Radius: vg.Points(3), Shape: marker{shape: shapeOf(s.Color)}}
				entries = append(entries, legendEntry{text: s.Name, thumb: lineThumb{line: draw.LineStyle{Color: col, Width: vg.Points(1.5)}, glyph: &g}})
			}
			meta[i] = SeriesMeta{Name: s.Name, X: clone(s.X), Y: clone(s.Y), Err: clone(s.Err), Baseline: s.Baseline}
		}
		p.X.Min, p.X.Max = xlo, xhi
		p.Y.Min, p.Y.Max = ylo, yhi
		switch {
		case in.XLog:
			p.X.Scale = plot.LogScale{}
			p.X.Tick.Marker = logTicks125{}
		case intX:
			p.X.Tick.Marker = intTicks{}
		}
		return &scene{plot: p, side: &legend{entries: entries}, meta: Meta{Kind: "curves", Series: meta}}
	}
	return &Figure{title: title, subtitle: in.Subtitle, width: curvesWidth, height: 380, build: build}, nil
}

// errXYs pairs points with symmetric errors for plotter.NewYErrorBars.
type errXYs struct {
	plotter.XYs
	err []float64
}

// YError implements plotter.YErrorer.
func (e errXYs) YError(i int) (float64, float64) { return e.err[i], e.err[i] }

// valueRange is the range of the series' values (a baseline's first) with
// their error bars, widened by 5% each side; yr, when given, instead.
func valueRange(series []Series, yr *[2]float64) (lo, hi float64) {
	if yr != nil {
		return yr[0], yr[1]
	}
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, s := range series {
		for j, y := range s.Y {
			if s.Baseline && j > 0 {
				break
			}
			e := 0.0
			if s.Err != nil {
				e = s.Err[j]
			}
			lo, hi = math.Min(lo, y-e), math.Max(hi, y+e)
		}
	}
	if lo == hi {
		lo, hi = lo-1, hi+1
	}
	pad := 0.05 * (hi - lo)
	return lo - pad, hi + pad
}
