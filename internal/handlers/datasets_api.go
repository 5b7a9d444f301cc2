package handlers

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"
	"time"

	"mldr/internal/dataset"
	"mldr/internal/demo"
	"mldr/internal/store"
	"mldr/internal/views"
)

// apiDataset is a data set as the API shows it: the fields of API.md (id,
// name, and the summary's rows, features, labels, kind, label_cardinality,
// label_density, distinct_labelsets, warnings) and more.
type apiDataset struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	dataset.Summary
	FileName     string          `json:"file_name"`
	Bytes        int64           `json:"bytes"`
	SHA256       string          `json:"sha256"`
	CreatedAt    time.Time       `json:"created_at"`
	UpdatedAt    time.Time       `json:"updated_at"`
	Columns      []string        `json:"columns"`
	LabelColumns []string        `json:"label_columns"`
	Options      dataset.Options `json:"options"`
	Folds        int             `json:"folds"`
	Problem      string          `json:"problem,omitempty"`
	// Truncated gives the full length of each list cut at views.MaxListed
	// entries ("columns", "label_columns", "labels", "label_stats", and
	// "classes": the most classes of one variable); absent when none is.
	Truncated map[string]int `json:"truncated,omitempty"`
}

func (h *handler) toAPI(r store.DatasetRecord) apiDataset {
	a := apiDataset{ID: r.ID, Name: r.Name, Summary: r.Summary, FileName: r.FileName, Bytes: r.Bytes,
		SHA256: r.SHA256, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, Columns: r.Columns,
		LabelColumns: r.LabelColumns, Options: r.Options, Folds: r.Folds, Problem: h.store.Problem(r.ID)}
	a.bound()
	return a
}

// bound cuts each list of a at views.MaxListed entries, the first ones, and
// records the full lengths in Truncated, so that an answer stays a few MB
// whatever the number of columns, labels and classes.
func (a *apiDataset) bound() {
	cutList := func(name string, n int) int {
		if n <= views.MaxListed {
			return n
		}
		if a.Truncated == nil {
			a.Truncated = map[string]int{}
		}
		a.Truncated[name] = max(a.Truncated[name], n)
		return views.MaxListed
	}
	a.Columns = a.Columns[:cutList("columns", len(a.Columns))]
	a.LabelColumns = a.LabelColumns[:cutList("label_columns", len(a.LabelColumns))]
	a.Labels = a.Labels[:cutList("labels", len(a.Labels))]
	stats := a.LabelStats[:cutList("label_stats", len(a.LabelStats))]
	cloned := false
	for i, l := range stats {
		if n := cutList("classes", len(l.Classes)); n < len(l.Classes) {
			if !cloned {
				stats, cloned = slices.Clone(stats), true // the record's own stay whole
			}
			stats[i].Classes = l.Classes[:n]
		}
	}
	a.LabelStats = stats
}

func (h *handler) apiListDatasets(w http.ResponseWriter, r *http.Request) {
	recs, err := h.store.Datasets()
	if err != nil {
		h.fail(w, r, err)
		return
	}
	out := make([]apiDataset, 0, len(recs))
	for _, rec := range recs {
		out = append(out, h.toAPI(rec))
	}
	writeJSON(w, http.StatusOK, out)
}

func (h *handler) apiGetDataset(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, h.toAPI(datasetFrom(r)))
}

// upload receives and stores a multipart upload; pages and API share it.
func (h *handler) upload(r *http.Request) (store.DatasetRecord, map[string]string, error) {
	st, values, err := h.receiveUpload(r)
	if st != nil {
		defer st.Discard()
	}
	if err != nil {
		return store.DatasetRecord{}, values, err
	}
	opts, err := uploadOptions(values)
	if err != nil {
		return store.DatasetRecord{}, values, err
	}
	rec, err := h.store.CreateDataset(r.Context(), st, values["name"], opts)
	if err == nil {
		h.log.Info("data set stored", "id", rec.ID, "name", rec.Name, "rows", rec.Summary.Rows, "features", rec.Summary.Features)
	}
	return rec, values, err
}

func (h *handler) apiCreateDataset(w http.ResponseWriter, r *http.Request) {
	rec, _, err := h.upload(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	w.Header().Set("Location", "/api/datasets/"+rec.ID)
	writeJSON(w, http.StatusCreated, h.toAPI(rec))
}

// createDemo stores the demo set the form's "demo" field names.
func (h *handler) createDemo(r *http.Request) (store.DatasetRecord, error) {
	if err := r.ParseForm(); err != nil {
		return store.DatasetRecord{}, unreadableForm(err)
	}
	id := r.PostForm.Get("demo")
	if id == "" {
		id = r.URL.Query().Get("demo")
	}
	if id == "" {
		id = "multilabel"
	}
	set, err := demo.Make(id, demo.Seed)
	if err != nil {
		return store.DatasetRecord{}, badRequest("demo", "%v", err)
	}
	return h.store.Import(r.Context(), store.Upload{Name: set.Name, FileName: set.FileName, Source: bytes.NewReader(set.CSV)})
}

func (h *handler) apiCreateDemo(w http.ResponseWriter, r *http.Request) {
	rec, err := h.createDemo(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	w.Header().Set("Location", "/api/datasets/"+rec.ID)
	writeJSON(w, http.StatusCreated, h.toAPI(rec))
}

func (h *handler) apiDeleteDataset(w http.ResponseWriter, r *http.Request) {
	if err := h.deleteDataset(datasetFrom(r).ID); err != nil {
		h.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// relabelRequest is the body of PUT /api/datasets/{id}/labels.
type relabelRequest struct {
	Labels []string     `json:"labels"`
	Kind   dataset.Kind `json:"kind"`
}

func (h *handler) apiRelabel(w http.ResponseWriter, r *http.Request) {
	var req relabelRequest
	if err := readJSON(r, &req, relabelBody); err != nil {
		h.fail(w, r, err)
		return
	}
	rec, err := h.relabel(r, datasetFrom(r).ID, req.Labels, req.Kind)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, h.toAPI(rec))
}

// relabel changes a data set's labels, refusing (409) while a queued or
// running job uses it.
func (h *handler) relabel(r *http.Request, id string, labels []string, kind dataset.Kind) (store.DatasetRecord, error) {
	if h.jobs != nil {
		if err := h.jobs.CheckRelabel(id); err != nil {
			return store.DatasetRecord{}, err
		}
	}
	return h.store.Relabel(r.Context(), id, labels, kind)
}

// downloadData sends the data set as read, as CSV.
func (h *handler) downloadData(w http.ResponseWriter, r *http.Request) {
	rec := datasetFrom(r)
	ds, err := h.store.LoadDataset(rec.ID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", attachment(rec.Name+".csv"))
	if err := dataset.WriteCSV(w, ds); err != nil {
		h.log.Warn("sending a data set", "id", rec.ID, "err", err)
	}
}

// downloadSource sends the file as uploaded.
func (h *handler) downloadSource(w http.ResponseWriter, r *http.Request) {
	f, rec, err := h.store.OpenSource(datasetFrom(r).ID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	defer f.Close()
	name := rec.FileName
	if name == "" {
		name = rec.Name + ".csv"
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", attachment(name))
	w.Header().Set("Content-Length", fmt.Sprint(rec.Bytes))
	if _, err := io.Copy(w, f); err != nil {
		h.log.Warn("sending a source file", "id", rec.ID, "err", err)
	}
}

// attachment is a Content-Disposition header naming a download; the name
// keeps letters, digits, '.', '-' and '_' only.
func attachment(name string) string {
	clean := strings.Map(func(c rune) rune {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_' {
			return c
		}
		return '_'
	}, name)
	return mime.FormatMediaType("attachment", map[string]string{"filename": clean})
}

// deleteDataset deletes a data set, refusing (409) while jobs use it.
func (h *handler) deleteDataset(id string) error {
	if h.jobs != nil {
		return h.jobs.DeleteDataset(id)
	}
	return h.store.DeleteDataset(id)
}
