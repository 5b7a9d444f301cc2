package handlers

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"path"
	"strings"

	"github.com/go-chi/chi/v5"

	"mldr/internal/jobs"
	"mldr/internal/plots"
	"mldr/internal/views"
)

// apiJobPlot serves one of a job's plots as SVG, PNG or PDF.
func (h *handler) apiJobPlot(w http.ResponseWriter, r *http.Request) {
	name, format, ok := plotFile(chi.URLParam(r, "file"))
	if !ok {
		h.fail(w, r, notFound(plotFormats))
		return
	}
	id := chi.URLParam(r, "id")
	res, err := h.jobs.Results(id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if res.Job.Status != jobs.Succeeded {
		h.fail(w, r, &httpError{status: http.StatusConflict, msg: fmt.Sprintf("job %s has %s; its plots are there once it has succeeded", id, res.Job.Status)})
		return
	}
	q, err := parsePlotQuery(r.URL.Query())
	var file figureFile
	if err == nil {
		file, err = parseFigureFile(r.URL.Query())
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	var f *plots.Figure
	var sq views.StudyOptions
	if res.Comparison != nil {
		if sq, err = parseStudyQuery(r.URL.Query()); err != nil {
			h.fail(w, r, err)
			return
		}
	}
	switch name {
	case "cd", "ranks":
		if res.Comparison == nil {
			h.fail(w, r, notFound("the %s plot is a study's: this job ran on one data set; run a study over several (datasets) to compare methods over them", name))
			return
		}
		c, err2 := views.PickComparison(res.Comparison, sq)
		if err2 != nil {
			h.fail(w, r, err2)
			return
		}
		if name == "cd" {
			f, _, err = views.CD(*c, sq.Alpha)
		} else {
			f, _, err = views.Ranks(*c)
		}
	case "curves":
		if res.Comparison != nil { // a study: the curves of one of its data sets
			ds, err2 := views.StudyDataset(res, sq)
			if err2 != nil {
				h.fail(w, r, err2)
				return
			}
			res = views.StudyRows(res, ds)
		}
		if res.Metrics == nil {
			h.fail(w, r, notFound("this job ran no evaluation, so it has no curves"))
			return
		}
		opts := views.MetricOptions(res.Metrics)
		if q.Metric == "" {
			q.Metric = views.DefaultMetric(res, opts)
		}
		if err := views.CheckMetric(opts, q.Metric); err != nil {
			h.fail(w, r, err)
			return
		}
		f, _, err = views.Curves(res, q.Metric, res.Job.Request.MethodIDs(), views.DAxis(q.DAxis, res), nil)
	case "spectrum", "projection":
		m, err2 := methodResult(res, q.Method)
		if err2 != nil {
			h.fail(w, r, err2)
			return
		}
		if name == "spectrum" {
			f, _, err = views.Spectrum(m, res.Job.Request.MethodIDs(), q.Log, 0)
		} else {
			f, _, _, err = h.build.Projection(res, m, q)
		}
	default:
		h.fail(w, r, notFound("a job has no plot %q; its plots are curves, spectrum and projection, and a study's cd and ranks", name))
		return
	}
	var ie *plots.InputError
	if errors.As(err, &ie) { // the data do not allow this plot: never a 500
		err = &views.Undrawable{Msg: "this plot cannot be drawn from these results (" + ie.Error() + ")"}
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.sendFigure(w, r, f, format, name, file)
}

func methodResult(res *jobs.Results, method string) (jobs.MethodResult, error) {
	if method == "" && len(res.Methods) == 1 {
		return res.Methods[0], nil
	}
	for _, m := range res.Methods {
		if m.Method == method {
			return m, nil
		}
	}
	ids := strings.Join(res.Job.Request.MethodIDs(), ", ")
	if method == "" {
		return jobs.MethodResult{}, badRequest("method", "this job ran several methods: add ?method= one of %s", ids)
	}
	return jobs.MethodResult{}, badRequest("method", "method %q is not one of this job's methods; they are %s", views.CutName(method), ids)
}

// apiDatasetPlot serves a data set's plots: labels and nmi, of the labels
// ?labels= names (at most views.MaxShownLabels), else of the page's default
// choice.
func (h *handler) apiDatasetPlot(w http.ResponseWriter, r *http.Request) {
	name, format, ok := plotFile(chi.URLParam(r, "file"))
	if !ok {
		h.fail(w, r, notFound(plotFormats))
		return
	}
	rec := datasetFrom(r)
	file, err := parseFigureFile(r.URL.Query())
	if err != nil {
		h.fail(w, r, err)
		return
	}
	det, err := h.store.Details(rec)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	c, err := chooseLabels(det, rec.ID, r.URL.Query(), views.MaxShownLabels)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	f, _, err := h.build.DatasetFigure(rec, name, c)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.sendFigure(w, r, f, format, name, file)
}

// plotFormats says what a figure's file may be called.
const plotFormats = "plots are NAME.svg, NAME.png or NAME.pdf"

// figureTypes are the content types of a figure's formats.
var figureTypes = map[string]string{"svg": "image/svg+xml", "png": "image/png", "pdf": "application/pdf"}

// plotFile splits a figure's file name into its name and its format.
func plotFile(file string) (name, format string, ok bool) {
	ext := path.Ext(file)
	if _, ok := figureTypes[strings.TrimPrefix(ext, ".")]; !ok {
		return "", "", false
	}
	return strings.TrimSuffix(file, ext), ext[1:], true
}

// sendFigure renders f in format, at the printed width file asks for if
// any, as an attachment if it asks for one.
func (h *handler) sendFigure(w http.ResponseWriter, r *http.Request, f *plots.Figure, format, name string, file figureFile) {
	if file.width > 0 {
		var err error
		if f, err = f.ForPrint(file.width); err != nil {
			h.fail(w, r, fmt.Errorf("sizing the %s figure for print: %w", name, err))
			return
		}
	}
	var buf bytes.Buffer
	if err := f.Render(&buf, format); err != nil {
		h.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", figureTypes[format])
	w.Header().Set("Cache-Control", "no-store")
	if file.download {
		w.Header().Set("Content-Disposition", attachment(name+"."+format))
	}
	_, _ = buf.WriteTo(w)
}
