package plots

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// MaxRankMethods is the most methods CriticalDifference and RankHeatmap
// draw: 30 methods are 15 rows a side in the diagram and columns of 16 pt
// in the heatmap. A caller with more chooses which to show.
const MaxRankMethods = 30

// CriticalDifferenceInput is what CriticalDifference draws.
type CriticalDifferenceInput struct {
	// Title is the figure's title; "" gives "Critical difference
	// diagram". A study names the metric here.
	Title string
	// Methods are the methods' names, in any order.
	Methods []string
	// AvgRanks are the methods' average ranks over the data sets (1 =
	// best, ties sharing the average of their ranks), one per method.
	AvgRanks []float64
	// CD is the critical difference in rank units (Nemenyi's, Demšar
	// 2006 §3.2.2, eq. 5). 0 or NaN means none: no significance test
	// could be made, and the diagram shows the ranks without groups.
	CD float64
	// Alpha is the significance level of CD as the caller writes it
	// ("0.05"), for the subtitle; "" leaves it out.
	Alpha string
	// Datasets is the number of data sets the ranks average over, for
	// the subtitle.
	Datasets int
}

// CriticalDifference draws Demšar's critical-difference diagram (J. Demšar,
// "Statistical comparisons of classifiers over multiple data sets", JMLR 7,
// 2006, figs. 1 and 2; the layout of Orange's graph_ranks): a rank axis
// from 1 at the left (best) to k on top, ticked at the integers; above it a
// bar as long as CD, labelled "CD = 1.25"; each method an elbow line from
// its average rank down and out to its name and rank, the better half on
// the left (the best highest), the rest on the right (the worst highest);
// and thick bars joining each group of methods that do not differ
// significantly (see cliques), staggered below the axis. The figure widens
// with k so that 30 methods read; names longer than 28 characters are cut
// with "…" (Meta keeps them whole).
//
// Fewer than 2 or more than MaxRankMethods methods, an AvgRanks whose
// length is not len(Methods) or with a value that is not finite or outside
// [1, k], a negative or infinite CD, an Alpha that is not a level in
// (0, 1), or a Datasets below 1 is an *InputError.
func CriticalDifference(in CriticalDifferenceInput) (*Figure, error) {
	k := len(in.Methods)
	if k < 2 {
		return nil, inputErr("Methods", "has %s, want at least 2 (ranks compare methods)", plural(k, "method", "methods"))
	}
	if k > MaxRankMethods {
		return nil, inputErr("Methods", "has %d methods, want at most %d (choose which to show)", k, MaxRankMethods)
	}
	if err := checkLen("AvgRanks", len(in.AvgRanks), k, "method"); err != nil {
		return nil, err
	}
	if err := checkRanks("AvgRanks", in.AvgRanks, k, false); err != nil {
		return nil, err
	}
	if in.CD < 0 || math.IsInf(in.CD, 0) {
		return nil, inputErr("CD", "is %v, want a critical difference > 0 (or 0 or NaN for none)", in.CD)
	}
	if in.Alpha != "" {
		if a, err := strconv.ParseFloat(in.Alpha, 64); err != nil || !(a > 0 && a < 1) {
			return nil, inputErr("Alpha", "is %q, want a significance level in (0, 1) such as \"0.05\"", in.Alpha)
		}
	}
	if in.Datasets < 1 {
		return nil, inputErr("Datasets", "is %d, want the number of data sets ranked (at least 1)", in.Datasets)
	}

	// The methods best first; ties keep the caller's order.
	order := make([]int, k)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(in.AvgRanks[a], in.AvgRanks[b]) })
	names := make([]string, k)
	ranks := make([]float64, k)
	for i, o := range order {
		names[i], ranks[i] = in.Methods[o], in.AvgRanks[o]
	}
	cd := in.CD
	if math.IsNaN(cd) {
		cd = 0
	}

	title := cmp.Or(in.Title, "Critical difference diagram")
	d := cdDiagram{names: names, ranks: ranks, cd: cd, alpha: in.Alpha, title: title,
		subtitle: cdSubtitle(ranks, cd, in.Alpha, in.Datasets)}
	return d.figure(cdPreferredWidth, cdLeast(title)), nil
}

// cdLeast is the least width of a diagram on screen: that of the other
// figures, or of its title on one line.
func cdLeast(title string) vg.Length {
	return max(figureWidth, 2*margin+titleStyle().Width(title)+vg.Points(20))
}

// cdDiagram is what a critical-difference figure shows, checked: the
// methods best first with their ascending ranks, the critical difference
// (0 for none), its level, the title and the subtitle.
type cdDiagram struct {
	names                  []string
	ranks                  []float64
	cd                     float64
	alpha, title, subtitle string
}

// figure lays the diagram out at the preferred width, at least least wide
// (see newCDLayout); printed, it is laid out afresh at the print width.
func (d cdDiagram) figure(preferred, least vg.Length) *Figure {
	lay := newCDLayout(d.names, d.ranks, d.cd, preferred, least)
	note := "no critical difference"
	if d.cd > 0 {
		note = lay.cdLabel
		if d.alpha != "" {
			note += " at α = " + d.alpha
		}
	}

	build := func() *scene {
		p := newPlot()
		p.HideAxes()
		// x is the rank axis, stretched so that the data area (the
		// whole body under the header) maps rank r to x0 + (r−1)·step;
		// y is points up from the diagram's bottom.
		p.X.Min = 1 - lay.x0.Points()/lay.step.Points()
		p.X.Max = p.X.Min + lay.dataW.Points()/lay.step.Points()
		p.Y.Min, p.Y.Max = 0, lay.height.Points()
		p.Add(lay)
		return &scene{plot: p, meta: Meta{
			Kind:   "cd",
			Cols:   clone(d.names),
			Values: [][]float64{clone(d.ranks)},
			Note:   note,
		}}
	}
	w := lay.dataW + 2*margin
	return &Figure{
		title:    d.title,
		subtitle: d.subtitle,
		width:    w,
		height:   2*margin + headerHeight(d.title, d.subtitle, w) + lay.height,
		relayout: func(w vg.Length) *Figure { return d.figure(w, w) },
		build:    build,
	}
}

// cdSubtitle says what the ranks average over and how to read the bars.
func cdSubtitle(ranks []float64, cd float64, alpha string, datasets int) string {
	s := "average ranks over " + plural(datasets, "data set", "data sets") + ", 1 = best; "
	if !(cd > 0) {
		return s + "no critical difference (no significance test), so no groups are drawn"
	}
	test := "Nemenyi test"
	if alpha != "" {
		test += ", α = " + alpha
	}
	s += "a bar joins methods that do not differ significantly (" + test + ")"
	if g := cliques(ranks, cd); len(g) == 1 && g[0] == [2]int{0, len(ranks) - 1} {
		s += "; no two methods differ significantly"
	}
	return s
}

// cliques returns the groups of methods whose average ranks do not differ
// significantly, as the bars of the critical-difference diagram join them
// (Demšar 2006 §3.2.2 and fig. 1; Orange's graph_ranks): ranks are sorted
// ascending, and a group [i, j] (i < j, indices into ranks) is a maximal run
// of consecutive methods whose ranks span less than cd, ranks[j] −
// ranks[i] < cd. Runs contained in another run are dropped, so the groups
// come in increasing order of both ends; a method within cd of no other is
// in no group. Two methods differ significantly when their ranks differ by
// at least cd (Demšar), which is why the comparison is strict where
// Orange's is ≤. cd ≤ 0 or NaN gives nil.
func cliques(ranks []float64, cd float64) [][2]int {
	if !(cd > 0) {
		return nil
	}
	var out [][2]int
	j, last := 0, 0
	for i := range ranks {
		j = max(j, i)
		for j+1 < len(ranks) && ranks[j+1]-ranks[i] < cd {
			j++
		}
		// The run from i ends at j; it is new unless the run from an
		// earlier i already reached j.
		if j > i && (len(out) == 0 || j > last) {
			out = append(out, [2]int{i, j})
			last = j
		}
	}
	return out
}

// checkRanks refuses a rank that is not in [1, k] or, unless nanOK, not
// finite; 1e-9 of rounding either side is tolerated.
func checkRanks(field string, vs []float64, k int, nanOK bool) error {
	const slack = 1e-9
	for i, v := range vs {
		f := fmt.Sprintf("%s[%d]", field, i)
		switch {
		case math.IsNaN(v) && nanOK:
		case math.IsNaN(v) || math.IsInf(v, 0):
			return inputErr(f, "is %v, want a finite rank", v)
		case v < 1-slack || v > float64(k)+slack:
			return inputErr(f, "is %v, want a rank in [1, %d] (1 = best of %d methods)", v, k, k)
		}
	}
	return nil
}

// formatRank writes an average rank with two decimals.
func formatRank(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

// Geometry of the critical-difference diagram, in points.
const (
	cdPreferredWidth = curvesWidth // a figure across the page, as the curves
	cdMinStep        = 16          // the least room per rank on the axis
	cdMaxStep        = 110         // the most, so that k = 2 is not a plank
	cdStub           = 10          // elbow line beyond the axis' end
	cdLineGap        = 4           // between an elbow's end and its rank
	cdNameGap        = 6           // between a rank and its method's name
	cdBarExt         = 4           // a group's bar beyond its end methods
	cdBarStep        = 5.5         // between staggered bars
	cdBarGap         = 10          // the least gap between bars on one level
	cdMajorTick      = 6
	cdMinorTick      = 3
)

// cdLayout is the laid-out critical-difference diagram; it draws itself as
// a plot.Plotter filling the plot's data area. Horizontal offsets are from
// the data area's left, vertical ones down from its top.
type cdLayout struct {
	names  []string  // best first
	ranks  []float64 // ascending
	cd     float64   // 0 for none
	nLeft  int       // methods on the left, the better half
	groups [][2]int
	levels []int // the staggered level of each group, 0 nearest the axis

	nameSty, rankSty, tickSty, cdSty text.Style
	cdLabel                          string
	ticks                            []plot.Tick // labelled ticks, and minor ones without a label

	dataW, x0, step vg.Length // rank r at x0 + (r−1)·step
	nameLW, nameRW  vg.Length // widest name on each side
	rankW           vg.Length

	yCD, yTickLabel, yAxis, yBar0, yRow0, rowH, height vg.Length
}

// newCDLayout lays out the diagram of names with ascending ranks, as near
// the preferred width as the room per rank allows (see cdMinStep and
// cdMaxStep), never narrower than least nor than its text and cdMinStep
// per rank need.
func newCDLayout(names []string, ranks []float64, cd float64, preferred, least vg.Length) *cdLayout {
	k := len(names)
	l := &cdLayout{names: names, ranks: ranks, cd: cd, nLeft: (k + 1) / 2}
	l.groups = cliques(ranks, cd)

	nameSize := vg.Length(legendSize)
	if k > 14 {
		nameSize = noteSize
	}
	l.nameSty = textStyle(nameSize, false, inkColor())
	l.rankSty = textStyle(noteSize, false, mutedColor())
	for i, n := range names {
		w := l.nameSty.Width(shorten(n))
		if i < l.nLeft {
			l.nameLW = max(l.nameLW, w)
		} else {
			l.nameRW = max(l.nameRW, w)
		}
		l.rankW = max(l.rankW, l.rankSty.Width(formatRank(ranks[i])))
	}
	textL := l.nameLW + cdNameGap + l.rankW + cdLineGap + cdStub
	textR := l.nameRW + cdNameGap + l.rankW + cdLineGap + cdStub

	// The width: the preferred one if the axis then gets between
	// cdMinStep and cdMaxStep per rank, else as near as that allows, and
	// never narrower than least.
	intervals := vg.Length(k - 1)
	axisW := min(max(preferred-2*margin-textL-textR, intervals*cdMinStep), intervals*cdMaxStep)
	width := max(2*margin+textL+textR+axisW, least)
	l.dataW = width - 2*margin
	l.x0 = textL
	l.step = (l.dataW - textL - textR) / intervals

	// Tick labels: as large as the room per rank allows, every rank
	// labelled if the labels fit, else every 2nd, 5th or 10th.
	tickFont := vg.Length(tickSize)
	switch {
	case l.step < 18:
		tickFont = 9.5
	case l.step < 24:
		tickFont = noteSize
	}
	l.tickSty = textStyle(tickFont, false, inkColor())
	every := 10
	for _, e := range []int{1, 2, 5} {
		if l.step*vg.Length(e) >= l.tickSty.Width(strconv.Itoa(k))+vg.Points(5) {
			every = e
			break
		}
	}
	for r := 1; r <= k; r++ {
		t := plot.Tick{Value: float64(r)}
		if (every <= 2 && (r-1)%every == 0) || (every > 2 && (r == 1 || r%every == 0)) {
			t.Label = strconv.Itoa(r)
		}
		l.ticks = append(l.ticks, t)
		if r < k && l.step >= 20 {
			l.ticks = append(l.ticks, plot.Tick{Value: float64(r) + 0.5})
		}
	}

	// Stagger the groups' bars: each on the lowest level where it clears
	// the bars already there by cdBarGap.
	var ends []vg.Length // the right end of the last bar on each level
	for _, g := range l.groups {
		x0, x1 := l.x(ranks[g[0]])-cdBarExt, l.x(ranks[g[1]])+cdBarExt
		lv := 0
		for lv < len(ends) && x0 < ends[lv]+cdBarGap {
			lv++
		}
		if lv == len(ends) {
			ends = append(ends, 0)
		}
		ends[lv] = x1
		l.levels = append(l.levels, lv)
	}

	// Top to bottom: the CD bar and its label, the tick labels, the axis,
	// the groups' bars, the rows of names.
	y := vg.Points(2)
	if cd > 0 {
		l.cdSty = textStyle(noteSize, false, inkColor())
		l.cdLabel = "CD = " + formatRank(cd)
		if 1+cd > float64(k) {
			l.cdLabel += " (longer than the axis)"
		}
		y += l.cdSty.Height(l.cdLabel) + vg.Points(5)
		l.yCD = y
		y += vg.Points(3 + 8)
	}
	l.yTickLabel = y
	y += l.tickSty.Height("0") + vg.Points(2) + cdMajorTick
	l.yAxis = y
	if len(ends) > 0 {
		l.yBar0 = y + vg.Points(8)
		y = l.yBar0 + vg.Length(len(ends)-1)*cdBarStep + vg.Points(6)
	} else {
		y += vg.Points(4)
	}
	l.rowH = l.nameSty.Height("Mg") + vg.Points(3)
	l.yRow0 = y + l.rowH/2
	l.height = l.yRow0 + vg.Length(l.nLeft-1)*l.rowH + l.rowH/2 + vg.Points(2)
	return l
}

// x is the offset of rank r from the data area's left.
func (l *cdLayout) x(r float64) vg.Length { return l.x0 + vg.Length(r-1)*l.step }

// row is the depth (0 at the top) of the i-th best method's elbow row:
// the better half down from the best on the left, the rest up to the worst
// on the right.
func (l *cdLayout) row(i int) int {
	if i < l.nLeft {
		return i
	}
	return len(l.names) - 1 - i
}

// rowY is the offset of the i-th best method's elbow row from the top.
func (l *cdLayout) rowY(i int) vg.Length { return l.yRow0 + vg.Length(l.row(i))*l.rowH }

// elbowEnd is the offset of the outer end of the i-th best method's elbow.
func (l *cdLayout) elbowEnd(i int) vg.Length {
	if i < l.nLeft {
		return l.x0 - cdStub
	}
	return l.x(float64(len(l.names))) + cdStub
}

// textBoxes returns the i-th best method's rank and name boxes, as offsets
// from the data area's top left (y down).
func (l *cdLayout) textBoxes(i int) (rank, name vg.Rectangle) {
	y := l.rowY(i)
	rs, ns := formatRank(l.ranks[i]), shorten(l.names[i])
	rh, nh := l.rankSty.Height(rs)/2, l.nameSty.Height(ns)/2
	if i < l.nLeft {
		rx := l.elbowEnd(i) - cdLineGap // right end of the rank
		nx := rx - l.rankW - cdNameGap  // right end of the name
		return rect(rx-l.rankSty.Width(rs), y-rh, rx, y+rh), rect(nx-l.nameSty.Width(ns), y-nh, nx, y+nh)
	}
	rx := l.elbowEnd(i) + cdLineGap
	nx := rx + l.rankW + cdNameGap
	return rect(rx, y-rh, rx+l.rankSty.Width(rs), y+rh), rect(nx, y-nh, nx+l.nameSty.Width(ns), y+nh)
}

// Plot implements plot.Plotter: it draws the diagram into the data area.
func (l *cdLayout) Plot(c draw.Canvas, _ *plot.Plot) {
	X := func(off vg.Length) vg.Length { return c.Min.X + off }
	Y := func(off vg.Length) vg.Length { return c.Max.Y - off }
	ink := draw.LineStyle{Color: inkColor(), Width: vg.Points(0.9)}
	k := len(l.names)

	// The CD bar, from rank 1, with end ticks and its label above.
	if l.cd > 0 {
		x0, x1 := X(l.x(1)), X(min(l.x(1+l.cd), l.x(float64(k))))
		y := Y(l.yCD)
		c.StrokeLine2(ink, x0, y, x1, y)
		c.StrokeLine2(ink, x0, y-vg.Points(3), x0, y+vg.Points(3))
		c.StrokeLine2(ink, x1, y-vg.Points(3), x1, y+vg.Points(3))
		fillText(c, aligned(l.cdSty, draw.XCenter, draw.YBottom), vg.Point{X: (x0 + x1) / 2, Y: y + vg.Points(5)}, l.cdLabel)
	}

	// The axis, its ticks pointing up, labels above.
	ya := Y(l.yAxis)
	c.StrokeLine2(ink, X(l.x(1)), ya, X(l.x(float64(k))), ya)
	tl := aligned(l.tickSty, draw.XCenter, draw.YBottom)
	for _, t := range l.ticks {
		x := X(l.x(t.Value))
		h := vg.Length(cdMinorTick)
		if t.Value == math.Trunc(t.Value) {
			h = cdMajorTick
		}
		c.StrokeLine2(ink, x, ya, x, ya+h)
		if t.Label != "" {
			c.FillText(tl, vg.Point{X: x, Y: Y(l.yTickLabel) - l.tickSty.Height("0")}, t.Label)
		}
	}

	// Each method's elbow, its rank and its name.
	rl := aligned(l.rankSty, draw.XRight, draw.YCenter)
	nl := aligned(l.nameSty, draw.XRight, draw.YCenter)
	for i, r := range l.ranks {
		x, y := X(l.x(r)), Y(l.rowY(i))
		c.StrokeLines(ink, []vg.Point{{X: x, Y: ya}, {X: x, Y: y}, {X: X(l.elbowEnd(i)), Y: y}})
		rb, nb := l.textBoxes(i)
		if i < l.nLeft {
			fillText(c, rl, vg.Point{X: X(rb.Max.X), Y: y}, formatRank(r))
			fillText(c, nl, vg.Point{X: X(nb.Max.X), Y: y}, shorten(l.names[i]))
		} else {
			fillText(c, aligned(rl, draw.XLeft, draw.YCenter), vg.Point{X: X(rb.Min.X), Y: y}, formatRank(r))
			fillText(c, aligned(nl, draw.XLeft, draw.YCenter), vg.Point{X: X(nb.Min.X), Y: y}, shorten(l.names[i]))
		}
	}

	// The groups' bars, thick, over the elbows.
	bar := draw.LineStyle{Color: inkColor(), Width: vg.Points(3)}
	for gi, g := range l.groups {
		y := Y(l.yBar0 + vg.Length(l.levels[gi])*cdBarStep)
		c.StrokeLine2(bar, X(l.x(l.ranks[g[0]])-cdBarExt), y, X(l.x(l.ranks[g[1]])+cdBarExt), y)
	}
}
