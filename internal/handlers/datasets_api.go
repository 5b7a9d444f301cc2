package handlers

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"mldr/internal/dataset"
	"mldr/internal/demo"
	"mldr/internal/jobs"
	"mldr/internal/store"
	"mldr/internal/views"
)

// apiDatasetItem is a data set as the list of data sets shows it: the
// fields of API.md (id, name, and the summary's rows, features,
// label_count, kind, label_cardinality, label_density,
// distinct_labelsets, warnings) and more, of a size bounded whatever the
// data set's width.
type apiDatasetItem struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	dataset.Summary
	FileName  string          `json:"file_name"`
	Bytes     int64           `json:"bytes"`
	SHA256    string          `json:"sha256"`
	CreatedAt time.Time       `json:"created_at"`
	UpdatedAt time.Time       `json:"updated_at"`
	Options   dataset.Options `json:"options"`
	Folds     int             `json:"folds"`
	Problem   string          `json:"problem,omitempty"`
}

// apiDataset is one data set as GET /api/datasets/{id} and an upload's
// answer show it: its item and the lists of its details (columns, label
// columns, labels and their statistics), each cut at views.MaxListed
// entries; GET /api/datasets/{id}/labels pages through every label.
type apiDataset struct {
	apiDatasetItem
	Columns      []string            `json:"columns"`
	LabelColumns []string            `json:"label_columns"`
	Labels       []string            `json:"labels"`
	LabelStats   []dataset.LabelStat `json:"label_stats"`
	// Truncated gives the full length of each list cut at views.MaxListed
	// entries ("columns", "label_columns", "labels", "label_stats", and
	// "classes": the most classes of one variable); absent when none is.
	Truncated map[string]int `json:"truncated,omitempty"`
}

func (h *handler) toItem(r store.DatasetRecord) apiDatasetItem {
	return apiDatasetItem{ID: r.ID, Name: r.Name, Summary: r.Summary, FileName: r.FileName, Bytes: r.Bytes,
		SHA256: r.SHA256, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, Options: r.Options, Folds: r.Folds, Problem: h.store.Problem(r.ID)}
}

// toAPI is the data set r with the lists of its details, cut at
// views.MaxListed entries each, so that an answer stays a few MB whatever
// the number of columns, labels and classes.
func (h *handler) toAPI(r store.DatasetRecord) (apiDataset, error) {
	a := apiDataset{apiDatasetItem: h.toItem(r)}
	det, err := h.store.Details(r)
	if err != nil {
		return a, err
	}
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
	a.Columns = det.Columns[:cutList("columns", len(det.Columns))]
	a.LabelColumns = det.LabelColumns[:cutList("label_columns", len(det.LabelColumns))]
	q := det.LabelCount()
	a.Labels = det.Labels.Head(cutList("labels", q))
	a.LabelStats = make([]dataset.LabelStat, cutList("label_stats", q))
	for j := range a.LabelStats {
		st := det.Stat(j)
		st.Classes = st.Classes[:cutList("classes", len(st.Classes))]
		a.LabelStats[j] = st
	}
	return a, nil
}

// sendDataset answers the data set rec with the lists of its details.
func (h *handler) sendDataset(w http.ResponseWriter, r *http.Request, status int, rec store.DatasetRecord) {
	a, err := h.toAPI(rec)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, status, a)
}

// apiListDatasets lists the data sets from their records alone: it reads
// no data set's details, so that it costs the same whatever their width.
func (h *handler) apiListDatasets(w http.ResponseWriter, r *http.Request) {
	recs, err := h.store.Datasets()
	if err != nil {
		h.fail(w, r, err)
		return
	}
	out := make([]apiDatasetItem, 0, len(recs))
	for _, rec := range recs {
		out = append(out, h.toItem(rec))
	}
	writeJSON(w, http.StatusOK, out)
}

func (h *handler) apiGetDataset(w http.ResponseWriter, r *http.Request) {
	h.sendDataset(w, r, http.StatusOK, datasetFrom(r))
}

// maxLabelPage is the most labels one answer of GET .../labels holds.
const maxLabelPage = 10_000

// labelPage is a page of a data set's labels (GET /api/datasets/{id}/labels).
type labelPage struct {
	Labels []labelEntry `json:"labels"`
	Offset int          `json:"offset"`
	Limit  int          `json:"limit"`
	Total  int          `json:"total"`
	Order  string       `json:"order"`
	// Next is the address of the next page, if any.
	Next string `json:"next,omitempty"`
}

// labelEntry is one label of a page: its index among the data set's
// labels and its statistics.
type labelEntry struct {
	Index int `json:"index"`
	dataset.LabelStat
}

// apiLabels pages through a data set's labels and their statistics:
// ?order=index (the data's order, the default) or frequency (the most
// frequent first, ties to the earlier), ?offset= and ?limit= (at most
// maxLabelPage).
func (h *handler) apiLabels(w http.ResponseWriter, r *http.Request) {
	rec := datasetFrom(r)
	det, err := h.store.Details(rec)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	q := r.URL.Query()
	total := det.LabelCount()
	order := cmp.Or(q.Get("order"), "index")
	if order != "index" && order != "frequency" {
		h.fail(w, r, badRequest("order", "order must be index or frequency, not %q", views.CutName(order)))
		return
	}
	offset, err := queryInt(q, "offset", 0, 0, total)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	limit, err := queryInt(q, "limit", min(1000, maxLabelPage), 1, maxLabelPage)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	end := min(offset+limit, total)
	var idx []int
	if order == "frequency" {
		idx = det.Top(end)[offset:]
	} else {
		for j := offset; j < end; j++ {
			idx = append(idx, j)
		}
	}
	out := labelPage{Labels: make([]labelEntry, len(idx)), Offset: offset, Limit: limit, Total: total, Order: order}
	for k, j := range idx {
		out.Labels[k] = labelEntry{Index: j, LabelStat: det.Stat(j)}
	}
	if end < total {
		v := url.Values{"offset": {strconv.Itoa(end)}, "limit": {strconv.Itoa(limit)}, "order": {order}}
		out.Next = "/api/datasets/" + rec.ID + "/labels?" + v.Encode()
	}
	writeJSON(w, http.StatusOK, out)
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
	h.sendDataset(w, r, http.StatusCreated, rec)
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
	h.sendDataset(w, r, http.StatusCreated, rec)
}

func (h *handler) apiDeleteDataset(w http.ResponseWriter, r *http.Request) {
	withJobs, err := parseWithJobs(r.URL.Query().Get(jobs.WithJobsParam))
	if err == nil {
		err = h.deleteDataset(datasetFrom(r).ID, withJobs)
	}
	if err != nil {
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
	h.sendDataset(w, r, http.StatusOK, rec)
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

// downloadData sends the data set as read, as CSV, unless that would be
// far more than it holds (views.CSVRefused: 422).
func (h *handler) downloadData(w http.ResponseWriter, r *http.Request) {
	rec := datasetFrom(r)
	if why := views.CSVRefused(rec); why != "" {
		h.fail(w, r, &httpError{status: http.StatusUnprocessableEntity, msg: "this data set is not offered as CSV: " + why})
		return
	}
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

// parseWithJobs reads the with_jobs parameter of a data set's deletion:
// "1" or "true" deletes its jobs with it; "", "0" or "false" does not.
func parseWithJobs(v string) (bool, error) {
	switch v {
	case "", "0", "false":
		return false, nil
	case "1", "true":
		return true, nil
	}
	return false, badRequest(jobs.WithJobsParam, "%s must be 1 (delete the jobs that use the data set with it) or 0, not %q", jobs.WithJobsParam, views.CutName(v))
}

// deleteDataset deletes a data set: with withJobs, the jobs that use it
// too; without, it refuses (409) while jobs use it.
func (h *handler) deleteDataset(id string, withJobs bool) error {
	if h.jobs != nil {
		return h.jobs.DeleteDataset(id, withJobs)
	}
	return h.store.DeleteDataset(id)
}
