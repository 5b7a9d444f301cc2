package handlers

import (
	"gonum.org/v1/gonum/mat"

	"encoding/json"
	"net/http"
	"net/url"
	"strconv"

	"mldr/internal/analysis"
	"mldr/internal/dataset"
	"mldr/internal/plots"
	"mldr/internal/store"
	"mldr/internal/views"
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
	det, err := h.store.Details(rec)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	q := r.URL.Query()
	cols, err := parseLabels(det, rec.ID, q["labels"], maxNMIColumns)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if cols == nil {
		if s.LabelCount > maxNMIColumns {
			h.fail(w, r, badRequest("labels", "this data set has %s labels, and nmi.json answers rows of at most %s: choose the labels with ?labels=",
				plots.GroupDigits(s.LabelCount), plots.GroupDigits(maxNMIColumns)))
			return
		}
		cols = views.DefaultLabels(det, s.LabelCount)
	}
	most := max(1, maxNMICells/max(1, len(cols)))
	offset, err := queryInt(q, "offset", 0, 0, len(cols))
	if err == nil {
		var limit int
		limit, err = queryInt(q, "limit", most, 1, most)
		if err == nil {
			h.sendNMI(w, r, rec, det, cols, offset, limit)
			return
		}
	}
	h.fail(w, r, err)
}

// sendNMI computes and sends rows offset … offset+limit−1 of the NMI of
// the labels cols.
func (h *handler) sendNMI(w http.ResponseWriter, r *http.Request, rec store.DatasetRecord, det *dataset.Details, cols []int, offset, limit int) {
	ds, err := h.store.LoadDataset(rec.ID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	rows := cols[offset:min(offset+limit, len(cols))]
	var y mat.Matrix = ds.Y
	if ds.YSparse != nil {
		y = ds.YSparse
	}
	block, _, constant := analysis.LabelNMIBlock(y, rows, cols)
	out := nmiResponse{Labels: make([]string, len(cols)), Matrix: block, Constant: constant,
		Offset: offset, Limit: limit, Total: len(cols)}
	for i, j := range cols {
		out.Labels[i] = det.Labels.At(j)
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
		return 0, badRequest(name, "%s must be a whole number from %d to %d, not %q", name, lo, hi, views.CutName(s))
	}
	return n, nil
}
