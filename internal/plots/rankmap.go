package plots

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// MaxRankDatasets is the most data sets RankHeatmap draws, a row each: 100
// rows of 10 pt are a figure about 1 100 pt tall. A caller with more
// chooses which to show.
const MaxRankDatasets = 100

// avgRowY is where RankHeatmap centres its average-rank row on the y axis:
// a quarter of a row below the last data set's row (at y = 0) and its gap.
const avgRowY = -1.25

// minRankBarHeight is the least height of RankHeatmap's data area that
// gets a colour bar; lower ones rely on the numbers in the cells.
const minRankBarHeight = 110

// RankHeatmapInput is what RankHeatmap draws.
type RankHeatmapInput struct {
	// Title is the figure's title; "" gives "Ranks by data set". A study
	// names the metric here.
	Title string
	// Methods name the columns, Datasets the rows.
	Methods, Datasets []string
	// Ranks[i][j] is method j's rank on data set i: 1 = best, ties
	// sharing the average of their ranks, NaN for no result.
	Ranks [][]float64
	// AvgRanks are the methods' average ranks for the last row, as the
	// study computed them; nil averages each column over the data sets
	// with a result.
	AvgRanks []float64
}

// RankHeatmap draws the methods' ranks on each data set as a heatmap: a
// row per data set (in the order given), a column per method, each cell
// coloured by its rank on the viridis scale from dark (1, the best) to
// light (k) and, where the number fits, showing it; cells without a result
// (NaN) are grey with "—". A last row, set a little apart, gives each
// method's average rank. Column names turn 45° or 90° when they do not fit;
// cells shrink with many data sets and methods so that 50 × 30 still
// reads; a colour bar keyed 1…k stands beside the map when it is tall
// enough. Names longer than 28 characters are cut with "…" (Meta keeps
// them whole).
//
// No methods or data sets, more than MaxRankMethods methods or
// MaxRankDatasets data sets, a Ranks that does not have a row of len(Methods)
// ranks per data set, a rank (or given average rank) that is infinite or
// outside [1, len(Methods)], or an AvgRanks of the wrong length is an
// *InputError.
func RankHeatmap(in RankHeatmapInput) (*Figure, error) {
	k, n := len(in.Methods), len(in.Datasets)
	switch {
	case k == 0:
		return nil, inputErr("Methods", "is empty, want at least one method")
	case k > MaxRankMethods:
		return nil, inputErr("Methods", "has %d methods, want at most %d (choose which to show)", k, MaxRankMethods)
	case n == 0:
		return nil, inputErr("Datasets", "is empty, want at least one data set")
	case n > MaxRankDatasets:
		return nil, inputErr("Datasets", "has %d data sets, want at most %d (choose which to show)", n, MaxRankDatasets)
	case len(in.Ranks) != n:
		return nil, inputErr("Ranks", "has %d rows, want %d (one per data set)", len(in.Ranks), n)
	}
	ranks := make([][]float64, n)
	missing := false
	for i, row := range in.Ranks {
		f := fmt.Sprintf("Ranks[%d]", i)
		if len(row) != k {
			return nil, inputErr(f, "has %d values, want %d (one per method)", len(row), k)
		}
		if err := checkRanks(f, row, k, true); err != nil {
			return nil, err
		}
		ranks[i] = clone(row)
		for _, v := range row {
			missing = missing || math.IsNaN(v)
		}
	}
	avg := clone(in.AvgRanks)
	if avg != nil {
		if err := checkLen("AvgRanks", len(avg), k, "method"); err != nil {
			return nil, err
		}
		if err := checkRanks("AvgRanks", avg, k, true); err != nil {
			return nil, err
		}
	} else {
		avg = columnMeans(ranks, k)
	}
	m := rankMap{methods: clone(in.Methods), datasets: clone(in.Datasets), ranks: ranks, avg: avg,
		missing: missing, averaged: in.AvgRanks == nil, title: cmp.Or(in.Title, "Ranks by data set")}
	return m.figure(rankCellW(k, 440)), nil
}

// rankMap is what a rank heatmap shows, checked.
type rankMap struct {
	methods, datasets []string
	ranks             [][]float64
	avg               []float64
	// missing says some rank is NaN; averaged that avg are the column
	// means of the ranks rather than the caller's.
	missing, averaged bool
	title             string
}

// rankCellW is the width of a column when k of them share about room:
// 16…44 pt.
func rankCellW(k int, room vg.Length) vg.Length {
	return vg.Length(math.Max(16, math.Min(44, float64(room)/float64(k))))
}

// figure lays the heatmap out with columns cellW wide; printed, its
// columns share what the print width leaves them (see rankCellW).
func (m rankMap) figure(cellW vg.Length) *Figure {
	k, n := len(m.methods), len(m.datasets)
	methods, datasets, ranks, avg, missing := m.methods, m.datasets, m.ranks, m.avg, m.missing

	// Cells 10…30 pt high: small for many data sets, and high enough for
	// few that the colour bar has room.
	rows := float64(n) - avgRowY + 0.5 // the data rows, the gap and the average row
	cellH := vg.Length(math.Min(30, math.Max(math.Max(10, math.Min(20, 520/float64(n))), 150/rows)))
	dataH := vg.Length(rows) * cellH
	ytick := vg.Length(math.Min(tickSize, math.Max(7, float64(cellH)*0.8)))
	xtick := vg.Length(math.Min(tickSize, math.Max(7, float64(cellW)*0.75)))
	colNames := make([]string, k)
	for j, m := range methods {
		colNames[j] = shorten(m)
	}
	xsty := textStyle(xtick, false, inkColor())
	rotation := columnRotation(xsty, colNames, cellW)

	var side *colorBar
	if dataH >= minRankBarHeight {
		side = &colorBar{name: "rank (1 = best)", short: "rank", flip: true}
		barH := dataH
		if missing {
			side.key = &barKey{text: "no result"}
			barH -= colorBarKeyRoom
		}
		side.ticks = rankBarTicks(k, barH)
	}

	subtitle := fmt.Sprintf("ranks of %s on %s, 1 = best (darkest), ties sharing their average rank",
		plural(k, "method", "methods"), plural(n, "data set", "data sets"))
	if missing {
		subtitle += "; — no result"
		if m.averaged {
			subtitle += " (averages over the data sets with a result)"
		}
	}

	build := func() *scene {
		p := newPlot()
		p.X.Min, p.X.Max = -0.5, float64(k)-0.5
		p.Y.Min, p.Y.Max = avgRowY-0.5, float64(n)-0.5
		for _, a := range []*plot.Axis{&p.X, &p.Y} {
			a.Padding = 0
			a.Tick.Length = 0
			a.LineStyle.Width = 0
		}
		p.X.Tick.Label.Font.Size = xtick
		p.Y.Tick.Label.Font.Size = ytick
		xt := make([]plot.Tick, k)
		for j, s := range colNames {
			xt[j] = plot.Tick{Value: float64(j), Label: s}
		}
		yt := make([]plot.Tick, 0, n+1)
		for i, d := range datasets {
			yt = append(yt, plot.Tick{Value: float64(n - 1 - i), Label: shorten(d)})
		}
		yt = append(yt, plot.Tick{Value: avgRowY, Label: "average rank"})
		p.X.Tick.Marker = plot.ConstantTicks(xt)
		p.Y.Tick.Marker = plot.ConstantTicks(yt)
		rotateColumnNames(p, xsty, rotation)
		p.Add(&rankCells{ranks: ranks, avg: avg, k: k})
		s := &scene{
			plot:  p,
			dataW: vg.Length(k) * cellW,
			meta: Meta{
				Kind:   "ranks",
				Rows:   clone(datasets),
				Cols:   clone(methods),
				Values: zeroNaN(ranks),
				Avg:    zeroNaN([][]float64{avg})[0],
			},
		}
		if side != nil {
			s.side = side
		}
		return s
	}

	title := m.title
	left, right, bottom, top := insets(build().plot)
	content := 2*margin + left + vg.Length(k)*cellW + right
	if side != nil {
		content += sideGap + side.width()
	}
	w := max(content, 2*margin+titleStyle().Width(title)+vg.Points(20))
	others := content - vg.Length(k)*cellW // what is not the columns
	return &Figure{
		title:    title,
		subtitle: subtitle,
		width:    w,
		minWidth: content,
		height:   2*margin + headerHeight(title, subtitle, w) + top + dataH + bottom,
		relayout: func(w vg.Length) *Figure { return m.figure(rankCellW(k, w-others)).widen(w) },
		build:    build,
	}
}

// columnMeans is the mean of each of the k columns of m over its rows
// that are not NaN; NaN for a column of NaN.
func columnMeans(m [][]float64, k int) []float64 {
	out := make([]float64, k)
	for j := range k {
		sum, cnt := 0.0, 0
		for _, row := range m {
			if !math.IsNaN(row[j]) {
				sum += row[j]
				cnt++
			}
		}
		out[j] = math.NaN()
		if cnt > 0 {
			out[j] = sum / float64(cnt)
		}
	}
	return out
}

// zeroNaN copies m with NaN written as 0, which JSON can carry (and which
// no rank is).
func zeroNaN(m [][]float64) [][]float64 {
	out := cloneMatrix(m)
	for _, row := range out {
		for j, v := range row {
			if math.IsNaN(v) {
				row[j] = 0
			}
		}
	}
	return out
}

// rankBarTicks labels the colour bar of ranks 1…k, barH tall, 1 at the
// top: every rank when the labels have room (16 pt each), else every 2nd
// (1, 3, 5, …) or 1 and every 5th or 10th, and k when it is not too close
// to the last of those.
func rankBarTicks(k int, barH vg.Length) []barTick {
	if k == 1 {
		return []barTick{{pos: 1, label: "1"}}
	}
	per := barH / vg.Length(k-1)
	step := 10
	for _, s := range []int{1, 2, 5} {
		if per*vg.Length(s) >= 16 {
			step = s
			break
		}
	}
	var ts []barTick
	last := 0
	for r := 1; r <= k; r++ {
		every := (step <= 2 && (r-1)%step == 0) || (step > 2 && r%step == 0)
		if r == 1 || every || (r == k && 2*(k-last) >= step+1) {
			ts = append(ts, barTick{pos: 1 - float64(r-1)/float64(k-1), label: strconv.Itoa(r)})
			last = r
		}
	}
	return ts
}

// rankColor is the colour of rank r of k: viridis from dark (1) to light
// (k).
func rankColor(r float64, k int) color.Color {
	if k <= 1 {
		return viridis(0)
	}
	return viridis((r - 1) / float64(k-1))
}

// formatCellRank writes a rank as short as it is exact to two decimals:
// "3", "2.5", "3.33".
func formatCellRank(v float64) string {
	return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)
}

// rankCells draws RankHeatmap's cells: data set i's row centred at y =
// n−1−i, method j's column at x = j, and the average row at avgRowY.
type rankCells struct {
	ranks [][]float64
	avg   []float64
	k     int
}

// Plot implements plot.Plotter.
func (m *rankCells) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	n := len(m.ranks)
	cellW, cellH := trX(1)-trX(0), trY(1)-trY(0)
	size := min(noteSize, cellH*0.62)
	sty := aligned(textStyle(size, false, inkColor()), draw.XCenter, draw.YCenter)
	// cell fills the cell at (x, y), a hair inside so that white lines
	// part the cells, and writes txt when it fits.
	cell := func(x, y, r float64, txt string) {
		fill := constantFill()
		if !math.IsNaN(r) {
			fill = rankColor(r, m.k)
		}
		const hair = 0.4
		c.FillPolygon(fill, corners(rect(trX(x-0.5)+hair, trY(y-0.5)+hair, trX(x+0.5)-hair, trY(y+0.5)-hair)))
		if size < 6 || sty.Width(txt) > cellW-vg.Points(3) {
			return
		}
		sty.Color = inkColor()
		switch {
		case math.IsNaN(r):
			sty.Color = mutedColor()
		case luminance(fill) < 0.3:
			sty.Color = rgb(0xFFFFFF)
		}
		fillText(c, sty, vg.Point{X: trX(x), Y: trY(y)}, txt)
	}
	for i, row := range m.ranks {
		for j, r := range row {
			txt := "—"
			if !math.IsNaN(r) {
				txt = formatCellRank(r)
			}
			cell(float64(j), float64(n-1-i), r, txt)
		}
	}
	for j, r := range m.avg {
		txt := "—"
		if !math.IsNaN(r) {
			// Two decimals, or one where two do not fit.
			txt = formatRank(r)
			if sty.Width(txt) > cellW-vg.Points(3) {
				txt = strconv.FormatFloat(r, 'f', 1, 64)
			}
		}
		cell(float64(j), avgRowY, r, txt)
	}
}
