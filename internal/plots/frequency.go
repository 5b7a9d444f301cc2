package plots

import (
	"fmt"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// figureWidth is the width of the figures that do not size themselves to
// their data: 480 pt, 640 CSS px.
const figureWidth = 480

// maxNameRunes is where long label names are cut (with "…") on axes; Meta
// keeps them whole.
const maxNameRunes = 28

// LabelFrequency draws each label's share of rows as a horizontal bar, the
// labels top to bottom in the order given, their names on the axis and the
// share written at each bar's end, on a 0…1 axis "share of rows". The
// figure grows with the number of labels (a row per label; 60 labels stay
// legible). Constant labels (present in every row or in none) are marked:
// their name is followed by "(constant)" and their row is hatched grey.
//
// labels, freq and constant (nil: none constant) have one entry per label;
// freq values are shares in [0, 1]. An empty labels, mismatched lengths, or
// a share that is NaN, infinite or outside [0, 1], or more than
// MaxFrequencyLabels labels, is an *InputError.
func LabelFrequency(labels []string, freq []float64, constant []bool) (*Figure, error) {
	return LabelFrequencyPart(labels, freq, constant, Part{})
}

// LabelFrequencyPart is LabelFrequency of some of a data set's labels,
// which its subtitle says (see Part).
func LabelFrequencyPart(labels []string, freq []float64, constant []bool, part Part) (*Figure, error) {
	n := len(labels)
	if n == 0 {
		return nil, inputErr("labels", "is empty, want at least one label")
	}
	if n > MaxFrequencyLabels {
		return nil, inputErr("labels", "has %d labels, want at most %d (choose which to show)", n, MaxFrequencyLabels)
	}
	if err := checkLen("freq", len(freq), n, "label"); err != nil {
		return nil, err
	}
	if constant != nil {
		if err := checkLen("constant", len(constant), n, "label"); err != nil {
			return nil, err
		}
	}
	if err := checkFinite("freq", freq); err != nil {
		return nil, err
	}
	for i, f := range freq {
		if f < 0 || f > 1 {
			return nil, inputErr(fmt.Sprintf("freq[%d]", i), "is %v, want a share in [0, 1]", f)
		}
	}
	labels, freq, constant = clone(labels), clone(freq), boolsOrFalse(constant, n)

	rowH, tick := vg.Points(17), vg.Length(tickSize)
	if n > 24 {
		rowH, tick = vg.Points(13.5), vg.Points(9.5)
	}
	nConst := 0
	for _, c := range constant {
		if c {
			nConst++
		}
	}
	subtitle := part.subtitle(n)
	if nConst > 0 {
		subtitle += fmt.Sprintf(", %d constant (hatched grey)", nConst)
	}

	build := func() *scene {
		p := newPlot()
		p.X.Label.Text = "share of rows"
		p.X.Min, p.X.Max = 0, 1
		p.X.Tick.Marker = shareTicks{}
		p.X.Padding = 0
		p.Y.Min, p.Y.Max = -0.5, float64(n)-0.5
		p.Y.Padding = 0
		p.Y.Tick.Length = 0
		p.Y.Tick.Label.Font.Size = tick
		ticks := make([]plot.Tick, n)
		for i, l := range labels {
			name := shorten(l)
			if constant[i] {
				name += " (constant)"
			}
			ticks[i] = plot.Tick{Value: float64(n - 1 - i), Label: name}
		}
		p.Y.Tick.Marker = plot.ConstantTicks(ticks)
		grid := plotter.NewGrid()
		grid.Vertical = draw.LineStyle{Color: gridColor(), Width: vg.Points(0.5)}
		grid.Horizontal.Color = nil
		p.Add(grid, &hbars{vals: freq, constant: constant, color: SeriesColor(3)})

		vals := make([][]float64, n)
		for i, f := range freq {
			vals[i] = []float64{f}
		}
		return &scene{plot: p, meta: Meta{
			Kind:     "frequency",
			Rows:     clone(labels),
			Values:   vals,
			Constant: clone(constant),
		}}
	}

	const title = "Label frequency"
	_, _, bottom, top := insets(build().plot)
	return &Figure{
		title:    title,
		subtitle: subtitle,
		width:    figureWidth,
		height:   2*margin + headerHeight(title, subtitle, figureWidth) + bottom + top + vg.Length(n)*rowH,
		build:    build,
	}, nil
}

// shorten cuts a name longer than maxNameRunes runes, ending it with "…".
func shorten(s string) string { return shortenTo(s, maxNameRunes) }

// shortenTo cuts s to at most n runes, the last an ellipsis when cut.
func shortenTo(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// plural writes "1 label" or "14 labels", thousands grouped ("24 170").
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return GroupDigits(n) + " " + many
}

// GroupDigits writes n with its thousands separated by a space: 24170 →
// "24 170", 5000 → "5 000"; the figures and the pages that show them
// write counts alike.
func GroupDigits(n int) string {
	s := strconv.Itoa(n)
	sign := ""
	if n < 0 {
		sign, s = "-", s[1:]
	}
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ' ')
		}
		out = append(out, s[i])
	}
	return sign + string(out)
}
