package plots

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// SpectrumInput is what Spectrum draws.
type SpectrumInput struct {
	// Title is the figure's title; "" gives "Eigenvalue spectrum".
	Title string
	// Eigenvalues are the method's eigenvalues, best first, as
	// analysis.Model gives them. At least one must be positive.
	Eigenvalues []float64
	// D is the chosen dimension, marked by a vertical line; 0 for none.
	// At most len(Eigenvalues).
	D int
	// Thr is the energy threshold, drawn as a horizontal dashed line; 0
	// for none. In [0, 1].
	Thr float64
	// Log draws the shares on a logarithmic axis.
	Log bool
	// MaxComponents draws only the first n components (but at least D);
	// 0 draws all.
	MaxComponents int
	// YMax fixes the top of the share axis, so that several spectra share
	// it; 0 fits the data.
	YMax float64
	// Color colours the bars, SeriesColor(Color): the method's colour on
	// its page. The lines are in ink, told apart by their dashes.
	Color int
	// Order is how many eigenvalues the method's matrix has when
	// Eigenvalues are only its leading ones (analysis.Model.Order); 0 or
	// len(Eigenvalues) when they are all.
	Order int
	// Total is what the shares are of (analysis.Model.Total: the sum of
	// the positive eigenvalues, or the trace when only the leading ones
	// were computed); 0: the sum of the positive Eigenvalues. It may not
	// be less than that sum.
	Total float64
}

// Spectrum draws an eigenvalue spectrum: a bar per component with its
// share of the sum of the positive eigenvalues, λᵢ / Σλ⁺ (the quantity the
// thr rule of analysis accumulates), and a line with the cumulative share,
// on the axis "share of the eigenvalue sum" against "component" (1, 2, …).
// Negative eigenvalues (indefinite matrices, such as occa's) count as 0:
// their bars have no height, and the subtitle says how many there were. Thr
// is drawn as a dashed horizontal line (legend "thr = 0.99"), D as a
// dash-dotted vertical line at component d (legend "d = 5"). With Log the
// share axis is logarithmic, from a power of ten below the smallest
// positive share drawn; zero shares then draw nothing and the cumulative
// line is held at that floor. The legend is right of the plot, outside the
// data.
//
// When only the leading eigenvalues were computed (Order > len), the shares
// are of Total and the subtitle says so: "20 of 5,000 eigenvalues computed;
// they hold 93.1% of the trace", and the axis reads "share of the trace".
//
// No eigenvalues, a NaN or infinite one, none positive, D outside
// [0, len(Eigenvalues)], Thr outside [0, 1], a negative MaxComponents, a
// negative or non-finite YMax, an Order below len(Eigenvalues) (but 0), or
// a non-finite Total or one below the positive eigenvalues' sum is an
// *InputError.
func Spectrum(in SpectrumInput) (*Figure, error) {
	n := len(in.Eigenvalues)
	if n == 0 {
		return nil, inputErr("Eigenvalues", "is empty, want at least one eigenvalue")
	}
	if err := checkFinite("Eigenvalues", in.Eigenvalues); err != nil {
		return nil, err
	}
	var sum float64
	nNeg := 0
	for _, l := range in.Eigenvalues {
		if l > 0 {
			sum += l
		} else if l < 0 {
			nNeg++
		}
	}
	if !(sum > 0) {
		return nil, inputErr("Eigenvalues", "has no positive eigenvalue, so shares of their sum are undefined")
	}
	switch {
	case in.D < 0 || in.D > n:
		return nil, inputErr("D", "is %d, want 0 (none) to %d (the number of eigenvalues)", in.D, n)
	case math.IsNaN(in.Thr) || in.Thr < 0 || in.Thr > 1:
		return nil, inputErr("Thr", "is %v, want 0 (none) or a share in (0, 1]", in.Thr)
	case in.MaxComponents < 0:
		return nil, inputErr("MaxComponents", "is %d, want 0 (all) or more", in.MaxComponents)
	case math.IsNaN(in.YMax) || math.IsInf(in.YMax, 0) || in.YMax < 0:
		return nil, inputErr("YMax", "is %v, want 0 (auto) or a positive share", in.YMax)
	case in.Order != 0 && in.Order < n:
		return nil, inputErr("Order", "is %d, want 0 or at least the %d eigenvalues given", in.Order, n)
	case math.IsNaN(in.Total) || math.IsInf(in.Total, 0) || in.Total != 0 && in.Total < sum*(1-1e-9):
		return nil, inputErr("Total", "is %v, want 0 (their sum) or at least the positive eigenvalues' sum %v", in.Total, sum)
	}
	computed := sum // the positive eigenvalues given
	if in.Total > 0 {
		sum = in.Total
	}

	k := n
	if in.MaxComponents > 0 {
		k = min(in.MaxComponents, n)
	}
	k = max(k, in.D)
	share := make([]float64, k)
	cum := make([]float64, k)
	var acc float64
	for i := range k {
		share[i] = math.Max(in.Eigenvalues[i], 0) / sum
		acc += share[i]
		cum[i] = math.Min(acc, 1)
	}
	xs := make([]float64, k)
	for i := range xs {
		xs[i] = float64(i + 1)
	}

	// The share axis.
	var ymin, ymax float64
	if in.Log {
		lo := math.Inf(1)
		for i := range k {
			if share[i] > 0 {
				lo = math.Min(lo, share[i])
			}
		}
		// A power of ten below the smallest share, at least a factor 2
		// below it so that its bar shows.
		ymin = math.Pow(10, math.Floor(math.Log10(lo)+1e-9))
		if lo/ymin < 2 {
			ymin /= 10
		}
		ymax = 1.25 // clear of the frame
		if in.YMax > 0 {
			ymax = in.YMax
			ymin = math.Min(ymin, ymax/10)
		}
	} else {
		ymax = math.Max(cum[k-1], in.Thr)
		for _, s := range share {
			ymax = math.Max(ymax, s)
		}
		ymax *= 1.03 // clear of the frame
		if in.YMax > 0 {
			ymax = in.YMax
		}
	}

	// The shares are of the eigenvalue sum, or of the trace when only the
	// leading eigenvalues were computed: the axis and the notes say which.
	of, kept := "the eigenvalue sum", "the sum"
	if in.Order > n {
		of, kept = "the trace", "the trace"
	}
	var notes []string
	if in.Order > n {
		notes = append(notes, fmt.Sprintf("%s of %s eigenvalues computed; they hold %s of the trace",
			GroupDigits(n), GroupDigits(in.Order), strconv.FormatFloat(100*math.Min(computed/sum, 1), 'f', 1, 64)+"%"))
	}
	if k < n {
		notes = append(notes, fmt.Sprintf("first %s of %s components", GroupDigits(k), GroupDigits(n)))
	}
	if nNeg > 0 {
		notes = append(notes, plural(nNeg, "negative eigenvalue", "negative eigenvalues")+" counted as 0")
	}
	if in.D > 0 {
		notes = append(notes, fmt.Sprintf("d = %d keeps %s of %s", in.D, strconv.FormatFloat(cum[in.D-1], 'f', 3, 64), kept))
	}
	note := strings.Join(notes, "; ")
	title := in.Title
	if title == "" {
		title = "Eigenvalue spectrum"
	}
	thr, d, logY := in.Thr, in.D, in.Log

	build := func() *scene {
		p := newPlot()
		p.X.Label.Text = "component"
		ylabel := "share of " + of
		p.Y.Label.Text = ylabel
		p.X.Min, p.X.Max = 0.4, float64(k)+0.6
		p.X.Tick.Marker = intTicks{}
		p.X.Padding = 0
		p.Y.Padding = 0
		p.Y.Min, p.Y.Max = ymin, ymax
		yLabel := ""
		if logY {
			p.Y.Scale = plot.LogScale{}
			p.Y.Tick.Marker = logTicks{}
			p.Y.Label.Text, yLabel = "", ylabel // see scene.yLabel
		} else if ymax >= 0.5 {
			p.Y.Tick.Marker = shareTicks{}
		}
		grid := plotter.NewGrid()
		grid.Vertical.Color = nil
		grid.Horizontal = draw.LineStyle{Color: gridColor(), Width: vg.Points(0.5)}
		bars := &vbars{vals: share, color: SeriesColor(in.Color)}

		drawn := clone(cum)
		if logY {
			for i := range drawn {
				drawn[i] = math.Max(drawn[i], ymin)
			}
		}
		xys := make(plotter.XYs, k)
		for i := range xys {
			xys[i] = plotter.XY{X: xs[i], Y: drawn[i]}
		}
		line, _ := plotter.NewLine(xys) // finite by construction
		line.LineStyle = draw.LineStyle{Color: inkColor(), Width: vg.Points(1.5)}
		cumThumb := lineThumb{line: line.LineStyle}
		p.Add(grid, bars, line)
		if k <= 40 {
			pts, _ := plotter.NewScatter(xys)
			pts.GlyphStyle = draw.GlyphStyle{Color: inkColor(), Radius: vg.Points(2.5), Shape: marker{shape: shapeCircle}}
			p.Add(pts)
			cumThumb.glyph = &pts.GlyphStyle
		}
		entries := []legendEntry{
			{text: "share", thumb: bars},
			{text: "cumulative share", thumb: cumThumb},
		}
		if thr > 0 {
			l := hline{y: thr, sty: draw.LineStyle{Color: mutedColor(), Width: vg.Points(1), Dashes: dashed()}}
			p.Add(l)
			entries = append(entries, legendEntry{text: "thr = " + strconv.FormatFloat(thr, 'g', -1, 64), thumb: l})
		}
		if d > 0 {
			l := vline{x: float64(d), sty: draw.LineStyle{Color: inkColor(), Width: vg.Points(1.5), Dashes: dotDash()}}
			p.Add(l)
			entries = append(entries, legendEntry{text: "d = " + strconv.Itoa(d), thumb: l})
		}
		// The plotters' data ranges must not move the axes set above.
		p.X.Min, p.X.Max = 0.4, float64(k)+0.6
		p.Y.Min, p.Y.Max = ymin, ymax
		return &scene{
			plot:   p,
			side:   &legend{entries: entries},
			yLabel: yLabel,
			meta: Meta{
				Kind: "spectrum",
				Series: []SeriesMeta{
					{Name: "share", X: clone(xs), Y: clone(share)},
					{Name: "cumulative", X: clone(xs), Y: clone(cum)},
				},
				Note: note,
			},
		}
	}
	return &Figure{title: title, subtitle: note, width: figureWidth, height: 340, build: build}, nil
}
