package handlers

import (
	"net/http"

	"mldr/internal/analysis"
	"mldr/internal/dataset"
)

// nmiResponse is the body of GET /api/datasets/{id}/nmi.json.
type nmiResponse struct {
	Labels []string    `json:"labels"`
	Matrix [][]float64 `json:"matrix"`
	// Constant marks labels that never vary: their row and column are 0.
	Constant []bool `json:"constant"`
}

// apiNMI answers the label normalised mutual information matrix of a
// multi-label data set.
func (h *handler) apiNMI(w http.ResponseWriter, r *http.Request) {
	rec := datasetFrom(r)
	if rec.Summary.Kind != dataset.MultiLabel {
		h.fail(w, r, &httpError{status: http.StatusUnprocessableEntity,
			msg: "the label mutual information is defined for multi-label data; this data set has class variables"})
		return
	}
	ds, err := h.store.LoadDataset(rec.ID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	m, constant := analysis.LabelNMI(ds.Y)
	q := m.SymmetricDim()
	out := nmiResponse{Labels: ds.Labels, Matrix: make([][]float64, q), Constant: constant}
	for i := range q {
		out.Matrix[i] = make([]float64, q)
		for j := range q {
			out.Matrix[i][j] = m.At(i, j)
		}
	}
	writeJSON(w, http.StatusOK, out)
}
