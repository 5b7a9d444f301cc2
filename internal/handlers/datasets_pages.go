package handlers

import (
	"net/http"
	"time"

	"github.com/a-h/templ"
	"github.com/go-chi/chi/v5/middleware"

	"mldr/internal/dataset"
	"mldr/internal/plots"
	"mldr/internal/store"
	"mldr/web/templates"
)

// notices are the confirmations a redirect may ask a page to show; only
// these keys are accepted from the URL.
var notices = map[string]string{
	"uploaded":   "Stored. The summary below is what was read from the file.",
	"relabelled": "The file was read again with the new label columns.",
	"deleted":    "The data set was deleted.",
	"demo":       "Demo data set added. It is synthetic, made on this machine.",
}

func (h *handler) homeView(r *http.Request, form templates.UploadForm) (templates.HomeView, error) {
	recs, err := h.store.Datasets()
	if err != nil {
		return templates.HomeView{}, err
	}
	v := templates.HomeView{Page: h.page("Data sets", "datasets"), Upload: form, MaxUpload: store.FormatBytes(h.maxUpload),
		Notice: notices[r.URL.Query().Get("notice")]}
	for _, rec := range recs {
		v.Datasets = append(v.Datasets, templates.DatasetRow{
			ID: rec.ID, Name: rec.Name, FileName: rec.FileName, Kind: string(rec.Summary.Kind),
			Created: formatTime(rec.CreatedAt), Rows: rec.Summary.Rows, Features: rec.Summary.Features,
			Labels: len(rec.Summary.Labels), Problem: h.store.Problem(rec.ID),
		})
	}
	if h.jobs != nil {
		for i, j := range h.jobs.List() {
			if i == recentJobs {
				break
			}
			v.Jobs = append(v.Jobs, h.jobRow(j))
		}
	}
	v.Demos = []templates.DemoOption{
		{ID: "multilabel", Title: "a multi-label demo", Description: "600 rows, 24 features (16 informative, 8 noise), 6 correlated labels."},
		{ID: "multidim", Title: "a multi-dimensional demo", Description: "400 rows, 10 features, 3 class variables (size, colour, finish)."},
	}
	return v, nil
}

// recentJobs is how many jobs the home page lists.
const recentJobs = 5

func (h *handler) pageHome(w http.ResponseWriter, r *http.Request) {
	v, err := h.homeView(r, templates.UploadForm{})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, templates.Home(v))
}

func (h *handler) pageUpload(w http.ResponseWriter, r *http.Request) {
	rec, values, err := h.upload(r)
	if err == nil {
		http.Redirect(w, r, "/datasets/"+rec.ID+"?notice=uploaded", http.StatusSeeOther)
		return
	}
	h.refuseForm(w, r, err, func(fe *templates.FormError) (templ.Component, error) {
		v, verr := h.homeView(r, templates.UploadForm{Values: values, Error: fe})
		return templates.Home(v), verr
	})
}

func (h *handler) pageDemo(w http.ResponseWriter, r *http.Request) {
	rec, err := h.createDemo(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/datasets/"+rec.ID+"?notice=demo", http.StatusSeeOther)
}

func (h *handler) datasetView(r *http.Request, rec store.DatasetRecord, relabelErr *templates.FormError) templates.DatasetView {
	v := templates.DatasetView{
		Page: h.page(rec.Name, "datasets"), ID: rec.ID, Name: rec.Name, FileName: rec.FileName,
		Size: store.FormatBytes(rec.Bytes), Created: formatTime(rec.CreatedAt), SHA256: rec.SHA256,
		Summary: rec.Summary, Problem: h.store.Problem(rec.ID), Notice: notices[r.URL.Query().Get("notice")],
		Kind: string(rec.Options.Kind), RelabelError: relabelErr, Folds: rec.Folds,
	}
	isLabel := make(map[string]bool, len(rec.LabelColumns))
	for _, c := range rec.LabelColumns {
		isLabel[c] = true
	}
	for _, c := range rec.Columns {
		v.Columns = append(v.Columns, templates.ColumnChoice{Name: c, Label: isLabel[c]})
	}
	if v.Problem == "" && len(rec.Summary.Labels) > 0 && rec.Summary.Kind == dataset.MultiLabel {
		v.Frequency = h.datasetFigureView(r, rec, "labels")
		n, err := h.labelNMI(rec)
		var f *plots.Figure
		var alt string
		if err == nil {
			f, alt, err = n.figure()
			if len(n.labels) <= maxNMITable {
				v.NMITable = n.table()
			}
		}
		v.NMI = h.pageFigure(r, "nmi", "/api/datasets/"+rec.ID+"/plots/nmi", f, alt, err)
	}
	return v
}

// maxNMITable is the most labels whose NMI the data set page also shows as
// a table; beyond, nmi.json has the numbers.
const maxNMITable = 60

// datasetFigureView is one of a data set's figures for its page; a figure
// that cannot be drawn is logged and left out, the page still shows.
func (h *handler) datasetFigureView(r *http.Request, rec store.DatasetRecord, name string) *templates.FigureView {
	f, alt, err := h.datasetFigure(rec, name)
	return h.pageFigure(r, name, "/api/datasets/"+rec.ID+"/plots/"+name, f, alt, err)
}

// pageFigure renders a figure for a page; one that cannot be drawn is
// logged and left out, the page still shows.
func (h *handler) pageFigure(r *http.Request, id, base string, f *plots.Figure, alt string, err error) *templates.FigureView {
	fv, err := figureView(id, base, nil, f, alt, err)
	if err != nil {
		h.log.Warn("drawing a figure", "path", r.URL.Path, "figure", id, "err", err, "request_id", middleware.GetReqID(r.Context()))
		return nil
	}
	return fv
}

func (h *handler) pageDataset(w http.ResponseWriter, r *http.Request) {
	h.render(w, r, http.StatusOK, templates.DatasetPage(h.datasetView(r, datasetFrom(r), nil)))
}

func (h *handler) pageRelabel(w http.ResponseWriter, r *http.Request) {
	rec := datasetFrom(r)
	err := r.ParseForm()
	if err != nil {
		err = unreadableForm(err)
	} else {
		_, err = h.relabel(r, rec.ID, r.PostForm["labels"], dataset.Kind(r.PostForm.Get("kind")))
	}
	if err == nil {
		http.Redirect(w, r, "/datasets/"+rec.ID+"?notice=relabelled", http.StatusSeeOther)
		return
	}
	h.refuseForm(w, r, err, func(fe *templates.FormError) (templ.Component, error) {
		return templates.DatasetPage(h.datasetView(r, rec, fe)), nil
	})
}

func (h *handler) pageDelete(w http.ResponseWriter, r *http.Request) {
	if err := h.deleteDataset(datasetFrom(r).ID); err != nil {
		h.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/?notice=deleted", http.StatusSeeOther)
}

// refuseForm shows a refused form again with the error beside it, with the
// status the API would give; errors that are not the user's go to fail.
func (h *handler) refuseForm(w http.ResponseWriter, r *http.Request, err error, page func(*templates.FormError) (templ.Component, error)) {
	status, body := classify(err, "")
	if status >= 500 || status == 499 || status == http.StatusNotFound {
		h.fail(w, r, err)
		return
	}
	h.log.Info("form refused", "path", r.URL.Path, "status", status, "err", err)
	c, perr := page(&templates.FormError{Message: sentence(body.Error), Field: body.Field, Line: body.Line, Column: body.Column})
	if perr != nil {
		h.fail(w, r, perr)
		return
	}
	h.render(w, r, status, c)
}

func formatTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }
