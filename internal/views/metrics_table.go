package views

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"mldr/internal/evaluate"
	"mldr/internal/jobs"
	"mldr/web/templates"
)

// MetricsTable is the numbers behind the curves of metric: a row per d, a
// column per method, the baseline's one value in every row.
func MetricsTable(res *jobs.Results, metric string) *templates.MetricsTable {
	methods, rows := meanRows(res)
	t := &templates.MetricsTable{Metric: metricText(metric), Best: "higher", Decoders: decoderNote(rowDecoders(res.Metrics.Rows), "λ")}
	if evaluate.LowerIsBetter(metric) {
		t.Best = "lower"
	}
	var ds []int
	cell := map[string]map[int]string{}
	for _, m := range methods {
		t.Columns = append(t.Columns, EvaluatedName(m))
		cell[m] = map[int]string{}
		for _, r := range rows[m] {
			v, ok := r.Metrics[metric]
			if !ok {
				continue
			}
			s := strconv.FormatFloat(v, 'f', 4, 64)
			if math.IsNaN(v) {
				s = "undefined"
			} else if sd := r.Std[metric]; r.Std != nil && !math.IsNaN(sd) {
				s += " ± " + strconv.FormatFloat(sd, 'f', 4, 64)
			}
			if len(r.DPerFold) > 0 { // the method's own d differed between the folds: in the row of their median
				s += fmt.Sprintf(" (d %d–%d by fold)", slices.Min(r.DPerFold), slices.Max(r.DPerFold))
			}
			d := r.D
			if m == evaluate.Ori {
				d = 0 // one row for the baseline
			}
			cell[m][d] = s
			if !slices.Contains(ds, d) {
				ds = append(ds, d)
			}
		}
	}
	slices.Sort(ds)
	for _, d := range ds {
		row := templates.MetricsRow{D: d}
		for _, m := range methods {
			c, ok := cell[m][d]
			if m == evaluate.Ori {
				c, ok = cell[m][0], true
			}
			if !ok {
				c = "—"
			}
			row.Cells = append(row.Cells, c)
		}
		if d > 0 {
			t.Rows = append(t.Rows, row)
		}
	}
	return t
}
