package plots

import "fmt"

// MaxHeatmapLabels is the most labels NMIHeatmap draws: 100 labels are
// 10 000 cells of at least 9 pt, a figure of about 1 000 pt a side that
// renders in well under a second. A caller with more labels chooses which
// to show (the data set page shows at most 50).
const MaxHeatmapLabels = 100

// MaxFrequencyLabels is the most labels LabelFrequency draws, a row each:
// 200 rows are a figure about 2 800 pt tall.
const MaxFrequencyLabels = 200

// Part says that a figure shows some of a data set's labels, not all of
// them: Of is how many the data set has and Which how the shown ones were
// chosen ("the most frequent", "chosen"). The subtitle then reads "50 of
// 5 000 labels (the most frequent)". The zero Part means all labels.
type Part struct {
	Of    int
	Which string
}

// subtitle is the "N labels" part of a figure's subtitle for n shown
// labels.
func (p Part) subtitle(n int) string {
	if p.Of <= n {
		return plural(n, "label", "labels")
	}
	s := fmt.Sprintf("%s of %s labels", GroupDigits(n), GroupDigits(p.Of))
	if p.Which != "" {
		s += " (" + p.Which + ")"
	}
	return s
}
