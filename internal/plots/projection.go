package plots

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// DefaultMaxPoints is the number of points Projection draws at most when
// ProjectionInput.MaxPoints is 0.
const DefaultMaxPoints = 5000

// maxLegendGroups is the number of groups a projection's legend lists;
// further ones are summed up in one line.
const maxLegendGroups = 18

// ProjectionInput is what Projection draws.
type ProjectionInput struct {
	// Title is the figure's title; "" gives "Projection".
	Title string
	// XLabel and YLabel name the axes; "" gives "component 1" and
	// "component 2".
	XLabel, YLabel string
	// X and Y are the points' coordinates, one per row.
	X, Y []float64
	// Test marks the test rows; nil: all rows are training rows.
	Test []bool
	// Group is each row's group, an index into Legend, or -1 for "other"
	// (grey). nil: one group, and no group legend.
	Group []int
	// Legend names the groups.
	Legend []string
	// Sequential says the groups are ordered (e.g. counts of labels): they
	// are coloured along a sequential palette instead of by category.
	Sequential bool
	// Hover is each row's hover text for Meta; nil: the group's name.
	Hover []string
	// MaxPoints is the most points drawn; above it an evenly spread
	// subsample is drawn. 0 means DefaultMaxPoints.
	MaxPoints int
	// XRange and YRange fix the axes ([min, max]), so that several
	// projections share them; nil fits the data.
	XRange, YRange *[2]float64
}

// Projection draws rows projected on two directions as a scatter: training
// rows as filled markers, test rows as open ones, coloured by group (Okabe–
// Ito colours, or viridis when Sequential) with a marker shape per group as
// well, and the "other" group (-1) in small grey circles drawn beneath the
// rest. The legend — the groups, then the training/test marker key — is a
// column right of the plot, outside the data.
//
// Above MaxPoints rows it draws a deterministic subsample of MaxPoints:
// within every (group, training/test) stratum, rows evenly spread through
// the data's order, strata sized in proportion and each non-empty one kept
// (so a stratum count above MaxPoints can exceed it by a few). The subtitle
// and Meta say "5 000 of 24 170 points shown".
//
// An empty X, lengths that differ from len(X), NaN or infinite
// coordinates, a group outside [-1, len(Legend)), a negative MaxPoints or a
// range that is not finite and increasing is an *InputError.
func Projection(in ProjectionInput) (*Figure, error) {
	n := len(in.X)
	if n == 0 {
		return nil, inputErr("X", "is empty, want at least one point")
	}
	if err := checkLen("Y", len(in.Y), n, "point"); err != nil {
		return nil, err
	}
	for _, o := range []struct {
		name string
		n    int
		set  bool
	}{{"Test", len(in.Test), in.Test != nil}, {"Group", len(in.Group), in.Group != nil}, {"Hover", len(in.Hover), in.Hover != nil}} {
		if o.set {
			if err := checkLen(o.name, o.n, n, "point"); err != nil {
				return nil, err
			}
		}
	}
	if err := checkFinite("X", in.X); err != nil {
		return nil, err
	}
	if err := checkFinite("Y", in.Y); err != nil {
		return nil, err
	}
	for i, g := range in.Group {
		if g < -1 || g >= len(in.Legend) {
			return nil, inputErr(fmt.Sprintf("Group[%d]", i), "is %d, want -1 (other) or an index into Legend (%d names)", g, len(in.Legend))
		}
	}
	if in.MaxPoints < 0 {
		return nil, inputErr("MaxPoints", "is %d, want 0 (default %d) or more", in.MaxPoints, DefaultMaxPoints)
	}
	if err := checkRange("XRange", in.XRange); err != nil {
		return nil, err
	}
	if err := checkRange("YRange", in.YRange); err != nil {
		return nil, err
	}

	test := boolsOrFalse(in.Test, n)
	groups := clone(in.Group)
	named := groups != nil
	if !named {
		groups = make([]int, n)
	}
	names := clone(in.Legend)
	if !named {
		names = nil
	}
	limit := in.MaxPoints
	if limit == 0 {
		limit = DefaultMaxPoints
	}
	shown := subsample(groups, test, limit)

	// Colours and shapes by group; other (-1) is grey small circles.
	// Markers shrink as points crowd.
	nGroups, sequential := max(len(names), 1), in.Sequential
	radius := 2.6
	switch {
	case len(shown) > 3000:
		radius = 1.7
	case len(shown) > 1000:
		radius = 2.1
	}
	colorOf := func(g int) (c glyphSpec) {
		switch {
		case g < 0:
			return glyphSpec{color: OtherColor(), shape: shapeCircle, radius: radius * 0.8}
		case !named:
			return glyphSpec{color: SeriesColor(3), shape: shapeCircle, radius: radius}
		case sequential:
			return glyphSpec{color: sequentialColor(g, nGroups), shape: shapeOf(g), radius: radius}
		default:
			return glyphSpec{color: SeriesColor(g), shape: shapeOf(g), radius: radius}
		}
	}
	// The legend's markers keep the full size.
	keyOf := func(g int) glyphSpec {
		k := colorOf(g)
		k.radius *= 2.6 / radius
		return k
	}

	// Draw order: other beneath, then the rest in the data's order.
	order := clone(shown)
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Compare(min(groups[a], 0)+1, min(groups[b], 0)+1)
	})

	anyTest, anyOther := false, false
	present := make([]bool, len(names))
	for _, i := range shown {
		anyTest = anyTest || test[i]
		if groups[i] < 0 {
			anyOther = true
		} else if named {
			present[groups[i]] = true
		}
	}

	xr, yr := fitRange(in.X, in.XRange), fitRange(in.Y, in.YRange)

	// Meta's points: those drawn, i.e. inside the axes.
	points := make([]Point, 0, len(shown))
	for _, i := range shown {
		if in.X[i] < xr[0] || in.X[i] > xr[1] || in.Y[i] < yr[0] || in.Y[i] > yr[1] {
			continue
		}
		label := "other"
		switch {
		case in.Hover != nil:
			label = in.Hover[i]
		case groups[i] >= 0 && named:
			label = names[groups[i]]
		case groups[i] >= 0:
			label = ""
		}
		if in.Hover == nil && test[i] {
			label = strings.TrimSpace(label + " (test)")
		}
		points = append(points, Point{X: round5(in.X[i]), Y: round5(in.Y[i]), Label: label, Group: groups[i], Test: test[i]})
	}

	var note string
	if len(shown) < n {
		note = fmt.Sprintf("%s of %s points shown", GroupDigits(len(shown)), GroupDigits(n))
	}
	subtitle := note
	if subtitle == "" {
		subtitle = plural(n, "point", "points")
	}
	if anyTest {
		nTest := 0
		for _, i := range shown {
			if test[i] {
				nTest++
			}
		}
		subtitle += fmt.Sprintf(" (%s test)", GroupDigits(nTest))
	}

	title := cmp.Or(in.Title, "Projection")
	xlabel, ylabel := cmp.Or(in.XLabel, "component 1"), cmp.Or(in.YLabel, "component 2")
	xs, ys := clone(in.X), clone(in.Y)

	build := func() *scene {
		p := newPlot()
		p.X.Label.Text, p.Y.Label.Text = xlabel, ylabel
		grid := plotter.NewGrid()
		grid.Vertical = draw.LineStyle{Color: gridColor(), Width: vg.Points(0.5)}
		grid.Horizontal = grid.Vertical
		xys := make(plotter.XYs, len(order))
		for k, i := range order {
			xys[k] = plotter.XY{X: xs[i], Y: ys[i]}
		}
		sc, _ := plotter.NewScatter(xys) // finite by validation
		sc.GlyphStyleFunc = func(k int) draw.GlyphStyle {
			i := order[k]
			return colorOf(groups[i]).style(test[i])
		}
		p.Add(grid, boxless{sc})
		p.X.Min, p.X.Max = xr[0], xr[1]
		p.Y.Min, p.Y.Max = yr[0], yr[1]

		var entries []legendEntry
		listed := 0
		for g, name := range names {
			if !present[g] {
				continue
			}
			if listed == maxLegendGroups {
				more := 0
				for _, p := range present[g:] {
					if p {
						more++
					}
				}
				entries = append(entries, legendEntry{text: fmt.Sprintf("… %d more", more)})
				break
			}
			entries = append(entries, legendEntry{text: shorten(name), thumb: glyphThumb{keyOf(g).style(false)}})
			listed++
		}
		if anyOther {
			entries = append(entries, legendEntry{text: "other", thumb: glyphThumb{keyOf(-1).style(false)}})
		}
		if anyTest {
			if len(entries) > 0 {
				entries = append(entries, legendEntry{}) // a gap
			}
			key := glyphSpec{color: inkColor(), shape: shapeCircle, radius: 2.6}
			entries = append(entries,
				legendEntry{text: "training", thumb: glyphThumb{key.style(false)}},
				legendEntry{text: "test", thumb: glyphThumb{key.style(true)}})
		}
		var side sidePanel
		if len(entries) > 0 {
			side = &legend{entries: entries}
		}
		return &scene{
			plot: p,
			side: side,
			meta: Meta{
				Kind:   "scatter",
				Cols:   clone(names),
				Points: clone(points),
				Shown:  len(shown),
				Total:  n,
				Note:   note,
			},
		}
	}
	return &Figure{title: title, subtitle: subtitle, width: figureWidth, height: 400, build: build}, nil
}

// glyphSpec is how a group's points look.
type glyphSpec struct {
	color  color.Color
	shape  shape
	radius float64
}

// style is the glyph of a training point, or with open of a test point
// (an outline, a little larger so that it weighs the same).
func (g glyphSpec) style(open bool) draw.GlyphStyle {
	r := vg.Points(g.radius)
	if open {
		r += vg.Points(0.5)
	}
	return draw.GlyphStyle{Color: g.color, Radius: r, Shape: marker{shape: g.shape, open: open}}
}

// fitRange returns r, or the range of vs widened by 4% each side (±1
// around a single value).
func fitRange(vs []float64, r *[2]float64) [2]float64 {
	if r != nil {
		return *r
	}
	lo, hi := slices.Min(vs), slices.Max(vs)
	if lo == hi {
		return [2]float64{lo - 1, hi + 1}
	}
	pad := 0.04 * (hi - lo)
	return [2]float64{lo - pad, hi + pad}
}

// round5 rounds v to 5 significant digits, to keep Meta small; at most a
// hundredth of a point on a figure.
func round5(v float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 5, 64), 64)
	return r
}

// subsample returns the indices of the rows to draw, ascending: all of
// them when there are at most limit, else about limit rows chosen per
// stratum (group, training/test) evenly through the data's order. Strata
// get limit in proportion to their size by largest remainders (ties to the
// earlier stratum), and each non-empty stratum at least one row.
func subsample(groups []int, test []bool, limit int) []int {
	n := len(groups)
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	if n <= limit {
		return all
	}
	// Strata in order of first appearance.
	key := func(i int) [2]int {
		t := 0
		if test[i] {
			t = 1
		}
		return [2]int{groups[i], t}
	}
	index := map[[2]int]int{}
	var strata [][]int
	for i := range n {
		k := key(i)
		s, ok := index[k]
		if !ok {
			s = len(strata)
			index[k] = s
			strata = append(strata, nil)
		}
		strata[s] = append(strata[s], i)
	}
	quota := make([]int, len(strata))
	frac := make([]float64, len(strata))
	total := 0
	for s, rows := range strata {
		exact := float64(limit) * float64(len(rows)) / float64(n)
		quota[s] = max(1, int(exact))
		frac[s] = exact - math.Floor(exact)
		total += quota[s]
	}
	byFrac := make([]int, len(strata))
	for s := range byFrac {
		byFrac[s] = s
	}
	slices.SortStableFunc(byFrac, func(a, b int) int { return cmp.Compare(frac[b], frac[a]) })
	for k := 0; total < limit && k < len(byFrac); k++ {
		if s := byFrac[k]; quota[s] < len(strata[s]) {
			quota[s]++
			total++
		}
	}
	for total > limit {
		// Only from the min-1 rule: take from the largest quota.
		s := 0
		for t := range quota {
			if quota[t] > quota[s] {
				s = t
			}
		}
		if quota[s] <= 1 {
			break
		}
		quota[s]--
		total--
	}
	var out []int
	for s, rows := range strata {
		m := len(rows)
		for k := range quota[s] {
			out = append(out, rows[int((float64(k)+0.5)*float64(m)/float64(quota[s]))])
		}
	}
	slices.Sort(out)
	return out
}

// boxless draws a scatter without giving the plot its glyph boxes: the
// data range is already widened to hold every glyph, and building thousands
// of boxes on each render cost more than drawing the points.
type boxless struct{ s *plotter.Scatter }

func (b boxless) Plot(c draw.Canvas, p *plot.Plot) { b.s.Plot(c, p) }

func (b boxless) DataRange() (xmin, xmax, ymin, ymax float64) { return b.s.DataRange() }
