package plots

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// rareRows is the most rows a label may have to count as rare in
// RankFrequency's subtitle (the long tail of extreme classification data
// sets: labels that 1–5 rows have).
const rareRows = 5

// RankFrequency draws the shape of a label space whatever its size: the
// number of rows holding each label against the label's rank by that
// number (1 the most frequent), both axes logarithmic, so that a power law
// is a straight line and the long tail of rare labels runs off to the
// right. It is what a bar per label cannot show with thousands of labels.
// Labels no row holds have no place on a log axis: the subtitle counts
// them, and the labels held by at most 5 rows.
//
// counts has one entry per label (rows holding it, ≥ 0). No label, a
// negative count, or no label held by any row is an *InputError.
func RankFrequency(counts []int) (*Figure, error) {
	if len(counts) == 0 {
		return nil, inputErr("counts", "is empty, want at least one label")
	}
	var held []float64
	rare := 0
	for i, c := range counts {
		switch {
		case c < 0:
			return nil, inputErr(fmt.Sprintf("counts[%d]", i), "is %d, want a number of rows ≥ 0", c)
		case c > 0:
			held = append(held, float64(c))
			if c <= rareRows {
				rare++
			}
		}
	}
	if len(held) == 0 {
		return nil, inputErr("counts", "are all 0, want a label that some row holds")
	}
	slices.Sort(held)
	slices.Reverse(held) // descending: rank 1 the most frequent
	m := len(held)
	ranks := make([]float64, m)
	for i := range ranks {
		ranks[i] = float64(i + 1)
	}
	subtitle := fmt.Sprintf("%s held by some row; %s by 1–%d rows", plural(m, "label", "labels"), GroupDigits(rare), rareRows)
	if unused := len(counts) - m; unused > 0 {
		subtitle += fmt.Sprintf("; %s by none (not drawn)", GroupDigits(unused))
	}
	// The axes: ranks from 1 to m, counts from the smallest to the largest,
	// each widened a little on its log scale.
	xhi := math.Max(float64(m), 2) * 1.15
	ylo, yhi := held[m-1]/1.3, held[0]*1.3

	const title = "Label rank and frequency"
	build := func() *scene {
		p := newPlot()
		p.X.Label.Text = "label rank (1 = the most frequent)"
		p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
		p.X.Tick.Marker, p.Y.Tick.Marker = logTicks125{}, logTicks125{}
		p.X.Min, p.X.Max = 0.87, xhi
		p.Y.Min, p.Y.Max = ylo, yhi
		grid := plotter.NewGrid()
		grid.Vertical = draw.LineStyle{Color: gridColor(), Width: vg.Points(0.5)}
		grid.Horizontal = grid.Vertical
		p.Add(grid)
		xys := make(plotter.XYs, m)
		for i := range xys {
			xys[i] = plotter.XY{X: ranks[i], Y: held[i]}
		}
		col := SeriesColor(3)
		line, _ := plotter.NewLine(xys) // finite by construction
		line.LineStyle = draw.LineStyle{Color: col, Width: vg.Points(1.5)}
		p.Add(line)
		if m <= 60 { // few enough to mark each label
			pts, _ := plotter.NewScatter(xys)
			pts.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
			p.Add(pts)
		}
		// The y axis' name is the figure's (scene.yLabel): gonum pads a
		// log axis' top by half its label's length.
		return &scene{plot: p, yLabel: "rows holding the label", meta: Meta{Kind: "curves", Series: []SeriesMeta{{Name: "rows holding the label", X: ranks, Y: held}}}}
	}
	return &Figure{title: title, subtitle: subtitle, width: figureWidth, height: 300, build: build}, nil
}
