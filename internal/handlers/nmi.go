package handlers

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"mldr/internal/analysis"
	"mldr/internal/dataset"
	"mldr/internal/plots"
	"mldr/internal/store"
	"mldr/internal/views"
	"mldr/web/templates"
)

// nmiResponse is the body of GET /api/datasets/{id}/nmi.json: the rows
// offset … offset+len(Matrix)−1 of the NMI matrix of the chosen labels
// (all by default). With at most 316 labels and no query, it is the whole
// square matrix, as before paging.
type nmiResponse struct {
	// Labels are the matrix's columns; its rows are Labels[Offset:].
	Labels []string    `json:"labels"`
	Matrix [][]float64 `json:"matrix"`
	// Constant marks labels (columns) that never vary: their row and
	// column are 0.
	Constant []bool `json:"constant"`
	Offset   int    `json:"offset"`
	Limit    int    `json:"limit"`
	// Total is the number of rows of the whole matrix: len(Labels).
	Total int `json:"total"`
	// Next is the address of the next rows, if any.
	Next string `json:"next,omitempty"`
}

// apiNMI answers the label normalised mutual information of a multi-label
// data set, a block of rows at a time: ?labels= chooses the labels (at most
// maxNMIColumns; all by default), ?offset= and ?limit= the rows (by
// default and at most maxNMICells / the number of labels). Only that block
// is computed.
func (h *handler) apiNMI(w http.ResponseWriter, r *http.Request) {
	rec := datasetFrom(r)
	s := rec.Summary
	if s.Kind != dataset.MultiLabel {
		h.fail(w, r, &httpError{status: http.StatusUnprocessableEntity,
			msg: "the label mutual information is defined for multi-label data; this data set has class variables"})
		return
	}
	q := r.URL.Query()
	cols, err := parseLabels(s, rec.ID, q["labels"], maxNMIColumns)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if cols == nil {
		if len(s.Labels) > maxNMIColumns {
			h.fail(w, r, badRequest("labels", "this data set has %s labels, and nmi.json answers rows of at most %s: choose the labels with ?labels=",
				plots.GroupDigits(len(s.Labels)), plots.GroupDigits(maxNMIColumns)))
			return
		}
		cols = defaultLabels(s, len(s.Labels))
	}
	most := max(1, maxNMICells/max(1, len(cols)))
	offset, err := queryInt(q, "offset", 0, 0, len(cols))
	if err == nil {
		var limit int
		limit, err = queryInt(q, "limit", most, 1, most)
		if err == nil {
			h.sendNMI(w, r, rec, cols, offset, limit)
			return
		}
	}
	h.fail(w, r, err)
}

// sendNMI computes and sends rows offset … offset+limit−1 of the NMI of
// the labels cols.
func (h *handler) sendNMI(w http.ResponseWriter, r *http.Request, rec store.DatasetRecord, cols []int, offset, limit int) {
	ds, err := h.store.LoadDataset(rec.ID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	rows := cols[offset:min(offset+limit, len(cols))]
	block, _, constant := analysis.LabelNMIBlock(ds.Y, rows, cols)
	out := nmiResponse{Labels: make([]string, len(cols)), Matrix: block, Constant: constant,
		Offset: offset, Limit: limit, Total: len(cols)}
	for i, j := range cols {
		out.Labels[i] = rec.Summary.Labels[j]
	}
	if end := offset + len(rows); end < len(cols) {
		v := url.Values{"offset": {strconv.Itoa(end)}, "limit": {strconv.Itoa(limit)}}
		if lq := r.URL.Query()["labels"]; len(lq) > 0 {
			v["labels"] = lq
		}
		out.Next = "/api/datasets/" + rec.ID + "/nmi.json?" + v.Encode()
	}
	// Compact, unlike the other answers: the matrix is most of it.
	b, err := json.Marshal(out)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(append(b, '\n'))
}

// queryInt reads the integer query parameter name, def when absent; one
// that is not an integer in [lo, hi] is a 400 saying so.
func queryInt(q url.Values, name string, def, lo, hi int) (int, error) {
	s := q.Get(name)
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		return 0, badRequest(name, "%s must be a whole number from %d to %d, not %q", name, lo, hi, cut(s, maxNameInError))
	}
	return n, nil
}

// datasetFigure makes a data set's plots of the chosen labels: "labels"
// (frequencies) and "nmi" (the label NMI heatmap, multi-label data).
func (h *handler) datasetFigure(rec store.DatasetRecord, name string, c labelChoice) (*plots.Figure, string, error) {
	s := rec.Summary
	switch name {
	case "labels":
		if len(c.idx) == 0 || len(s.LabelStats) != len(s.Labels) {
			return nil, "", &views.Undrawable{Msg: "this data set has no labels to plot"}
		}
		names := c.names(s)
		freq := make([]float64, len(c.idx))
		constant := make([]bool, len(c.idx))
		stats := make([]dataset.LabelStat, len(c.idx))
		for i, j := range c.idx {
			stats[i] = s.LabelStats[j]
			freq[i], constant[i] = stats[i].Frequency, stats[i].Constant
		}
		f, err := plots.LabelFrequencyPart(names, freq, constant, plots.Part{Of: c.total, Which: c.which(s.Kind)})
		top := slices.MaxFunc(stats, func(a, b dataset.LabelStat) int { return cmp.Compare(a.Frequency, b.Frequency) })
		alt := fmt.Sprintf("Bar chart of the share of rows with each of the %d labels; the most frequent is %s (%.0f%%).", len(names), top.Name, 100*top.Frequency)
		if c.partial() {
			alt = fmt.Sprintf("Bar chart of the share of rows with each of %d of the %d labels (%s); the most frequent shown is %s (%.0f%%).",
				len(names), c.total, c.which(s.Kind), top.Name, 100*top.Frequency)
		}
		return f, alt, err
	case "nmi":
		n, err := h.labelNMI(rec, c)
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

// labelNMI computes the NMI of the chosen labels only: len(c.idx)² pairs.
func (h *handler) labelNMI(rec store.DatasetRecord, c labelChoice) (*labelNMI, error) {
	if rec.Summary.Kind != dataset.MultiLabel {
		return nil, notFound("the label mutual information is defined for multi-label data")
	}
	if len(c.idx) == 0 {
		return nil, &views.Undrawable{Msg: "this data set has no labels to plot"}
	}
	ds, err := h.store.LoadDataset(rec.ID)
	if err != nil {
		return nil, err
	}
	values, constant, _ := analysis.LabelNMIBlock(ds.Y, c.idx, c.idx)
	n := &labelNMI{labels: c.names(rec.Summary), values: values, constant: constant}
	if c.partial() {
		n.part = plots.Part{Of: c.total, Which: c.which(rec.Summary.Kind)}
	}
	return n, nil
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
