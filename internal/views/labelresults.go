package views

import (
	"cmp"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"mldr/internal/jobs"
	"mldr/web/templates"
)

// LabelResultsPageSize is how many labels a page of a job's per-label
// results shows.
const LabelResultsPageSize = 50

// LabelResultsOptions are the choices of a per-label results page.
type LabelResultsOptions struct {
	// Search keeps the labels whose names hold it, case aside.
	Search string
	// Sort is "rows" (the label's rows, the default), "name", or a
	// cell's key ("pca_d100") to sort by its Metric.
	Sort string
	// Order is "desc" or "asc"; the default is desc, asc for name.
	Order string
	// Metric is "f1" (the default), "precision" or "recall".
	Metric string
	// Page is the 1-based page; 0 means the first.
	Page int
}

// labelMetric is a metric a per-label results page shows: its key, its
// name, its value from the counts, and why it is undefined (NaN).
type labelMetric struct {
	key, name string
	of        func(jobs.LabelCounts) float64
	undefined string
}

// labelMetrics are the metrics a per-label results page offers.
var labelMetrics = []labelMetric{
	{"f1", "F1", jobs.LabelCounts.F1, "undefined: no tested row has the label and none was predicted to"},
	{"precision", "precision", jobs.LabelCounts.Precision, "undefined: no tested row was predicted to have the label"},
	{"recall", "recall", jobs.LabelCounts.Recall, "undefined: no tested row has the label"},
}

// LabelResults builds page o of job id's per-label results (see
// jobs.FileLabelResults). A choice the page does not offer, or a page
// beyond the last, is a *BadOption naming the valid ones; a job without
// per-label results answers the jobs.Service's error.
func (b *Builder) LabelResults(id string, o LabelResultsOptions) (*templates.LabelResultsView, error) {
	j, err := b.jobs.Get(id)
	if err != nil {
		return nil, err
	}
	lr, err := b.jobs.LabelResults(id)
	if err != nil {
		return nil, err
	}
	v := &templates.LabelResultsView{JobID: id, Dataset: j.Request.Dataset, Total: len(lr.Labels),
		Download: "/api/jobs/" + id + "/" + jobs.FileLabelResults, JobURL: "/jobs/" + id}
	if rec, err := b.store.Dataset(j.Request.Dataset); err == nil {
		v.Dataset = rec.Name
	}
	metric := slices.IndexFunc(labelMetrics, func(m labelMetric) bool { return m.key == cmp.Or(o.Metric, "f1") })
	for _, m := range labelMetrics {
		v.MetricOptions = append(v.MetricOptions, templates.Option{Value: m.key, Text: m.name})
	}
	if metric < 0 {
		return nil, badOption("metric", "metric must be one of f1, precision, recall, not %q", CutName(o.Metric))
	}
	m := labelMetrics[metric]
	v.Metric, v.MetricName = m.key, m.name
	v.MetricHead = strings.ToUpper(m.name[:1]) + m.name[1:]
	v.SortOptions = []templates.Option{{Value: "rows", Text: "rows with the label"}, {Value: "name", Text: "name"}}
	sortCell := -1
	for c, cell := range lr.Cells {
		head := templates.LabelCellHead{Key: cell.Key(), Method: MethodName(cell.Method), D: cell.D}
		v.Cells = append(v.Cells, head)
		v.SortOptions = append(v.SortOptions, templates.Option{Value: head.Key, Text: fmt.Sprintf("%s of %s, d = %d", m.name, head.Method, head.D)})
		if head.Key == o.Sort {
			sortCell = c
		}
	}
	v.Sort = cmp.Or(o.Sort, "rows")
	if sortCell < 0 && v.Sort != "rows" && v.Sort != "name" {
		keys := []string{"rows", "name"}
		for _, c := range v.Cells {
			keys = append(keys, c.Key)
		}
		return nil, badOption("sort", "sort must be one of %s, not %q", strings.Join(keys, ", "), CutName(o.Sort))
	}
	v.Order = o.Order
	if v.Order == "" {
		v.Order = "desc"
		if v.Sort == "name" {
			v.Order = "asc"
		}
	}
	v.OrderOptions = []templates.Option{{Value: "desc", Text: "descending"}, {Value: "asc", Text: "ascending"}}
	if v.Order != "desc" && v.Order != "asc" {
		return nil, badOption("order", "order must be asc or desc, not %q", CutName(o.Order))
	}

	// The labels the search finds, in the order asked (ties by the data
	// set's order; undefined values last either way).
	v.Search = strings.TrimSpace(o.Search)
	needle := strings.ToLower(v.Search)
	var idx []int
	for l, r := range lr.Labels {
		if needle == "" || strings.Contains(strings.ToLower(r.Name), needle) {
			idx = append(idx, l)
		}
	}
	sign := 1
	if v.Order == "desc" {
		sign = -1
	}
	slices.SortStableFunc(idx, func(a, c int) int {
		la, lc := lr.Labels[a], lr.Labels[c]
		switch {
		case v.Sort == "rows":
			return sign * cmp.Compare(la.Rows, lc.Rows)
		case v.Sort == "name":
			return sign * strings.Compare(strings.ToLower(la.Name), strings.ToLower(lc.Name))
		}
		x, y := m.of(la.Counts[sortCell]), m.of(lc.Counts[sortCell])
		if nx, ny := math.IsNaN(x), math.IsNaN(y); nx || ny {
			return cmp.Compare(b2i(nx), b2i(ny))
		}
		return sign * cmp.Compare(x, y)
	})
	v.Matching = len(idx)
	v.Pages = max(1, (len(idx)+LabelResultsPageSize-1)/LabelResultsPageSize)
	v.PageNumber = max(1, o.Page)
	if v.PageNumber > v.Pages {
		return nil, badOption("page", "page %d is beyond the last, %d (%d labels, %d a page)", o.Page, v.Pages, len(idx), LabelResultsPageSize)
	}
	from := (v.PageNumber - 1) * LabelResultsPageSize
	to := min(len(idx), from+LabelResultsPageSize)
	v.From, v.To = min(from+1, to), to
	for _, l := range idx[from:to] {
		r := lr.Labels[l]
		row := templates.LabelResultRow{Name: r.Name, Rows: r.Rows, Tested: r.Tested}
		for _, c := range r.Counts {
			val := templates.LabelValue{Title: fmt.Sprintf("%d right, %d predicted wrongly, %d missed", c.TP, c.FP, c.FN)}
			if x := m.of(c); math.IsNaN(x) {
				val.Text, val.Undefined, val.Title = "—", true, m.undefined
			} else {
				val.Text = strconv.FormatFloat(x, 'f', 3, 64)
			}
			row.Values = append(row.Values, val)
		}
		v.Rows = append(v.Rows, row)
	}
	page := func(n int) string {
		q := url.Values{}
		if v.Search != "" {
			q.Set("q", v.Search)
		}
		q.Set("sort", v.Sort)
		q.Set("order", v.Order)
		q.Set("metric", v.Metric)
		q.Set("page", strconv.Itoa(n))
		return "/jobs/" + id + "/labels?" + q.Encode()
	}
	if v.PageNumber > 1 {
		v.PrevURL = page(v.PageNumber - 1)
	}
	if v.PageNumber < v.Pages {
		v.NextURL = page(v.PageNumber + 1)
	}
	return v, nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
