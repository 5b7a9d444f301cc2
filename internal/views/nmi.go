package views

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/analysis"
	"mldr/internal/dataset"
	"mldr/internal/plots"
	"mldr/internal/store"
	"mldr/web/templates"
)

// DatasetFigure makes a data set's plot name of the chosen labels c:
// "labels" (frequencies), "nmi" (the label NMI heatmap, multi-label
// data) or "rank" (every label's rows against its rank on log axes,
// multi-label data; c does not apply), and its text alternative. Another name is *NotFound; a data set
// without labels, *Undrawable.
func (b *Builder) DatasetFigure(rec store.DatasetRecord, name string, c LabelChoice) (*plots.Figure, string, error) {
	s := rec.Summary
	switch name {
	case "labels":
		if len(c.Idx) == 0 {
			return nil, "", undrawable("this data set has no labels to plot")
		}
		det, err := b.store.Details(rec)
		if err != nil {
			return nil, "", err
		}
		names := c.names(det)
		freq := make([]float64, len(c.Idx))
		constant := make([]bool, len(c.Idx))
		stats := make([]dataset.LabelStat, len(c.Idx))
		for i, j := range c.Idx {
			stats[i] = det.Stat(j)
			freq[i], constant[i] = stats[i].Frequency, stats[i].Constant
		}
		f, err := plots.LabelFrequencyPart(names, freq, constant, plots.Part{Of: c.Total, Which: c.which(s.Kind)})
		top := slices.MaxFunc(stats, func(a, b dataset.LabelStat) int { return cmp.Compare(a.Frequency, b.Frequency) })
		alt := fmt.Sprintf("Bar chart of the share of rows with each of the %d labels; the most frequent is %s (%.0f%%).", len(names), top.Name, 100*top.Frequency)
		if c.partial() {
			alt = fmt.Sprintf("Bar chart of the share of rows with each of %d of the %d labels (%s); the most frequent shown is %s (%.0f%%).",
				len(names), c.Total, c.which(s.Kind), top.Name, 100*top.Frequency)
		}
		return f, alt, err
	case "rank":
		if s.LabelCount == 0 || s.Kind != dataset.MultiLabel {
			return nil, "", notFound("the rank–frequency plot is drawn for multi-label data")
		}
		det, err := b.store.Details(rec)
		if err != nil {
			return nil, "", err
		}
		counts := make([]int, s.LabelCount)
		for j := range counts {
			counts[j] = det.Count(j)
		}
		f, err := plots.RankFrequency(counts)
		alt := fmt.Sprintf("Line on logarithmic axes of how many rows hold each of the %d labels against its rank by that number, "+
			"from %d rows for the most frequent down to the rarest.", s.LabelCount, slices.Max(counts))
		return f, alt, err
	case "nmi":
		n, err := b.labelNMI(rec, c)
		if err != nil {
			return nil, "", err
		}
		return n.figure()
	}
	return nil, "", notFound("a data set has no plot %q", name)
}

// labelNMI is the NMI matrix of some of a multi-label data set's labels.
type labelNMI struct {
	labels   []string
	values   [][]float64
	constant []bool
	// part says which labels these are, when not all.
	part plots.Part
}

// labelNMI computes the NMI of the chosen labels only: len(c.Idx)² pairs.
func (b *Builder) labelNMI(rec store.DatasetRecord, c LabelChoice) (*labelNMI, error) {
	if rec.Summary.Kind != dataset.MultiLabel {
		return nil, notFound("the label mutual information is defined for multi-label data")
	}
	if len(c.Idx) == 0 {
		return nil, undrawable("this data set has no labels to plot")
	}
	det, err := b.store.Details(rec)
	if err != nil {
		return nil, err
	}
	ds, err := b.store.LoadDataset(rec.ID)
	if err != nil {
		return nil, err
	}
	values, constant, _ := analysis.LabelNMIBlock(labelMatrix(ds), c.Idx, c.Idx)
	n := &labelNMI{labels: c.names(det), values: values, constant: constant}
	if c.partial() {
		n.part = plots.Part{Of: c.Total, Which: c.which(rec.Summary.Kind)}
	}
	return n, nil
}

// labelMatrix is ds's label matrix as it is held: Y, or YSparse.
func labelMatrix(ds *dataset.Dataset) mat.Matrix {
	if ds.YSparse != nil {
		return ds.YSparse
	}
	return ds.Y
}

// figure is the heatmap, with a text alternative naming the most
// dependent pair.
func (n *labelNMI) figure() (*plots.Figure, string, error) {
	f, err := plots.NMIHeatmapPart(n.labels, n.values, n.constant, n.part)
	alt := fmt.Sprintf("Heatmap of the normalised mutual information between the %d labels, 0 (independent) to 1.", len(n.labels))
	if n.part.Of > len(n.labels) {
		alt = fmt.Sprintf("Heatmap of the normalised mutual information between %d of the %d labels (%s), 0 (independent) to 1.", len(n.labels), n.part.Of, n.part.Which)
	}
	best, bi, bj := -1.0, 0, 0
	for i, row := range n.values {
		for j, v := range row[:i] {
			if v > best {
				best, bi, bj = v, i, j
			}
		}
	}
	if best >= 0 {
		alt += fmt.Sprintf(" The most dependent pair is %s and %s (%.2f).", n.labels[bi], n.labels[bj], best)
	}
	return f, alt, err
}

// table is the matrix as text, for the page's table.
func (n *labelNMI) table() *templates.NMITable {
	t := &templates.NMITable{Labels: n.labels, Constant: n.constant}
	for _, row := range n.values {
		cells := make([]string, len(row))
		for j, v := range row {
			cells[j] = strconv.FormatFloat(v, 'f', 2, 64)
		}
		t.Rows = append(t.Rows, cells)
	}
	return t
}
