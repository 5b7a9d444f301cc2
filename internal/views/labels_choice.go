package views

import (
	"fmt"
	"net/url"
	"slices"

	"mldr/internal/dataset"
	"mldr/internal/plots"
)

// The caps of a data set's views. They keep a page under a few MB and a
// plot under a second whatever the number of labels q and of features D;
// docs/RELIABILITY.md lists them.
const (
	// MaxShownLabels is the most labels (class variables) the data set
	// page's heatmap, frequency plot and label table (class tables) show,
	// and the most a ?labels= choice may name for them and for the plots.
	// Beyond, the page shows the most frequent (multi-label) or the first
	// (multi-dimensional) and says so.
	MaxShownLabels = 50
	// maxShownClasses is the most classes of one class variable the
	// page's class tables show (the most frequent).
	maxShownClasses = 50
	// MaxListed bounds each list of the data set API object (columns,
	// label_columns, labels, label_stats and each variable's classes)
	// and the label columns the relabel form's text field is filled with;
	// "truncated" then gives the full lengths.
	MaxListed = 10_000
	// maxColumnChecks is the most columns the relabel form offers as
	// check boxes; beyond, the label columns are named in a text field.
	maxColumnChecks = 500
	// maxColumnPreview is how many column names the page lists when
	// there are more than maxColumnChecks.
	maxColumnPreview = 20
	// maxNMITable is the most labels whose NMI the data set page also
	// shows as a table; beyond, nmi.json has the numbers.
	maxNMITable = 60
)

// LabelChoice is which of a data set's labels (or class variables) a view
// shows: their indices into the summary's labels, in the order shown.
type LabelChoice struct {
	Idx []int
	// Total is the number of the data set's labels.
	Total int
	// Chosen is true when ?labels= named them; else they are all the
	// labels, or the default part of them.
	Chosen bool
}

// DefaultChoice is the labels a view of d shows unless told: all of them
// up to most, else as DefaultLabels says.
func DefaultChoice(d *dataset.Details, most int) LabelChoice {
	return LabelChoice{Idx: DefaultLabels(d, most), Total: d.LabelCount()}
}

// partial reports whether the view shows some of the labels only.
func (c LabelChoice) partial() bool { return c.Chosen || len(c.Idx) < c.Total }

// names are the names of the chosen labels.
func (c LabelChoice) names(d *dataset.Details) []string {
	out := make([]string, len(c.Idx))
	for i, j := range c.Idx {
		out[i] = d.Labels.At(j)
	}
	return out
}

// query is the ?labels= that asks for this choice again: nil for the
// default.
func (c LabelChoice) query(d *dataset.Details) url.Values {
	if !c.Chosen {
		return nil
	}
	return url.Values{"labels": c.names(d)}
}

// which says how the shown labels were chosen, for a figure's subtitle.
func (c LabelChoice) which(kind dataset.Kind) string {
	switch {
	case c.Chosen:
		return "chosen"
	case kind == dataset.MultiDim:
		return "the first"
	}
	return "the most frequent"
}

// DefaultLabels are the labels a view shows unless told: all of them up to
// most, else the most frequent most (multi-label data; ties go to the
// earlier label) in the data's order, or the first most class variables.
func DefaultLabels(d *dataset.Details, most int) []int {
	total := d.LabelCount()
	if total <= most || d.Kind == dataset.MultiDim {
		idx := make([]int, min(total, most))
		for i := range idx {
			idx[i] = i
		}
		return idx
	}
	return slices.Sorted(slices.Values(d.Top(most)))
}

// LabelNoun is "labels" or "class variables".
func LabelNoun(k dataset.Kind) string {
	if k == dataset.MultiDim {
		return "class variables"
	}
	return "labels"
}

// countOf is "1 label" or "5 000 labels".
func countOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%s %s", plots.GroupDigits(n), many)
}
