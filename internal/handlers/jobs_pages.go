package handlers

import (
	"cmp"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"mldr/internal/analysis"
	"mldr/internal/jobs"
	"mldr/web/templates"
)

// jobNotices are the confirmations a redirect may ask for.
var jobNotices = map[string]string{
	"canceled": "The job was canceled.",
	"deleted":  "The job was deleted.",
	"started":  "The job is queued. This page follows it as it runs.",
}

func (h *handler) jobRow(j jobs.Job) templates.JobRow {
	r := templates.JobRow{ID: j.ID, DatasetID: j.Request.Dataset, Dataset: j.Request.Dataset, Methods: strings.Join(j.Request.MethodIDs(), ", "),
		Status: string(j.Status), Created: formatTime(j.CreatedAt), Phase: j.Phase, Progress: j.Progress,
		Active: !j.Status.Terminal(), Done: j.Status == jobs.Succeeded}
	if rec, err := h.store.Dataset(j.Request.Dataset); err == nil {
		r.Dataset = rec.Name
	}
	if j.Request.Study() {
		r.DatasetID, r.Dataset = "", h.studyName(j.Request)
		r.Done = false // a study is compared on its own page, not with other jobs
	}
	if j.StartedAt != nil {
		end := time.Now()
		if j.FinishedAt != nil {
			end = *j.FinishedAt
		}
		r.Duration = formatDuration(end.Sub(*j.StartedAt))
	}
	return r
}

// studyName names a study for a list: its count of data sets and the
// first few names.
func (h *handler) studyName(req jobs.Request) string {
	const shown = 3
	var names []string
	for _, id := range req.Datasets[:min(shown, len(req.Datasets))] {
		name := id
		if rec, err := h.store.Dataset(id); err == nil {
			name = rec.Name
		}
		names = append(names, name)
	}
	more := ""
	if len(req.Datasets) > shown {
		more = ", …"
	}
	return fmt.Sprintf("study over %d data sets (%s%s)", len(req.Datasets), strings.Join(names, ", "), more)
}

func formatDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
	return d.Round(time.Second).String()
}

func (h *handler) pageJobs(w http.ResponseWriter, r *http.Request) {
	v := templates.JobsView{Page: h.page("Jobs", "jobs"), Notice: jobNotices[r.URL.Query().Get("notice")]}
	for _, j := range h.jobs.List() {
		v.Jobs = append(v.Jobs, h.jobRow(j))
	}
	h.render(w, r, http.StatusOK, templates.JobsPage(v))
}

func (h *handler) pageCancelJob(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	if _, err := h.jobs.Cancel(id); err != nil {
		h.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/jobs/"+id+"?notice=canceled", http.StatusSeeOther)
}

// pageRerunJob runs a finished job's request again, as a new job.
func (h *handler) pageRerunJob(w http.ResponseWriter, r *http.Request) {
	j, err := h.jobs.Rerun(chi.URLParam(r, "id"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/jobs/"+j.ID+"?notice=started", http.StatusSeeOther)
}

func (h *handler) pageDeleteJob(w http.ResponseWriter, r *http.Request) {
	if err := h.jobs.Delete(chi.URLParam(r, "id")); err != nil {
		h.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/jobs?notice=deleted", http.StatusSeeOther)
}

func (h *handler) jobHeader(j jobs.Job) templates.JobHeader {
	hd := templates.JobHeader{ID: j.ID, Status: string(j.Status), Phase: j.Phase, Message: j.Message, Error: j.Error,
		DatasetID: j.Request.Dataset, DatasetName: j.Request.Dataset, Methods: j.Request.MethodIDs(), Progress: j.Progress,
		Created: j.CreatedAt.Format(time.RFC3339), Active: !j.Status.Terminal()}
	if j.Status != jobs.Succeeded {
		hd.Notes = j.Notes // a succeeded job's notes stand with its results
	}
	if rec, err := h.store.Dataset(j.Request.Dataset); err == nil {
		hd.DatasetName = rec.Name
	}
	for _, id := range j.Request.Datasets {
		l := templates.Link{ID: id, Name: id}
		if rec, err := h.store.Dataset(id); err == nil {
			l.Name = rec.Name
		}
		hd.Study = append(hd.Study, l)
	}
	hd.Elapsed = "not started yet"
	if j.StartedAt != nil {
		hd.Started = j.StartedAt.Format(time.RFC3339Nano)
		end := time.Now()
		if j.FinishedAt != nil {
			end = *j.FinishedAt
			hd.Finished = j.FinishedAt.Format(time.RFC3339Nano)
		}
		hd.Elapsed = formatDuration(end.Sub(*j.StartedAt))
	}
	req := j.Request
	add := func(k, v string) { hd.Settings = append(hd.Settings, templates.Setting{Name: k, Value: v}) }
	add("methods", strings.Join(req.MethodIDs(), ", "))
	if t := paramsText(req.Params); t != "" {
		add("parameters", t)
	}
	if req.Split != nil {
		s := req.Split.Kind
		switch req.Split.Kind {
		case jobs.SplitHoldout:
			s = fmt.Sprintf("holdout, %.0f%% test rows, seed %d", 100*req.Split.TestFraction, req.Split.Seed)
		case jobs.SplitKFold:
			s = fmt.Sprintf("%d-fold cross-validation, seed %d", req.Split.Folds, req.Split.Seed)
		case jobs.SplitPredefined:
			s = "the data set's predefined folds"
		case jobs.SplitTestSet:
			s = "fitted on the training data set, evaluated on the test set"
		}
		add("split", s)
	}
	if req.Preprocess != "" && req.Preprocess != "none" {
		add("preprocessing", req.Preprocess+", fitted on the training rows")
	}
	if req.TestDataset != "" {
		name := req.TestDataset
		if rec, err := h.store.Dataset(req.TestDataset); err == nil {
			name = rec.Name
		}
		add("test set", name)
	}
	if e := req.Evaluate; e != nil {
		add("classifier", fmt.Sprintf("%s (k = %d, s = %g, λ = %g)", e.Classifier, e.K, e.S, e.Lambda))
		switch {
		case len(e.Dims) > 0:
			add("values of d", strings.Trim(fmt.Sprint(e.Dims), "[]"))
		case len(e.Percent) > 0:
			add("values of d", fmt.Sprintf("%s %% of the %s", strings.Trim(fmt.Sprint(e.Percent), "[]"), cmpOr(e.Of, "features")))
		}
	}
	return hd
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func (h *handler) pageJob(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	j, err := h.jobs.Get(id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	v := templates.JobView{Page: h.page("Job "+id[:min(8, len(id))], "jobs"), Job: h.jobHeader(j), Notice: jobNotices[r.URL.Query().Get("notice")]}
	if j.Status == jobs.Succeeded {
		q, err := parsePlotQuery(r.URL.Query())
		var res *templates.ResultsView
		if err == nil {
			res, err = h.resultsView(j.ID, q, r.URL.Query())
		}
		if err != nil {
			h.fail(w, r, err)
			return
		}
		v.Results = res
	}
	h.render(w, r, http.StatusOK, templates.JobPage(v))
}

// pageJobResults is the results section alone, for the script that shows
// them when the job finishes.
func (h *handler) pageJobResults(w http.ResponseWriter, r *http.Request) {
	q, err := parsePlotQuery(r.URL.Query())
	var res *templates.ResultsView
	if err == nil {
		res, err = h.resultsView(chi.URLParam(r, "id"), q, r.URL.Query())
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if res == nil {
		h.fail(w, r, &httpError{status: http.StatusConflict, msg: "the job has not succeeded"})
		return
	}
	h.render(w, r, http.StatusOK, templates.Results(*res))
}

// resultsView builds a succeeded job's results; nil if it has not
// succeeded. raw is the page's query, for a study's choices.
func (h *handler) resultsView(id string, q plotQuery, raw url.Values) (*templates.ResultsView, error) {
	res, err := h.jobs.Results(id)
	if err != nil {
		return nil, err
	}
	if res.Job.Status != jobs.Succeeded {
		return nil, nil
	}
	// The components offered go up to the largest d; a method of smaller
	// d shows its first two.
	maxD := 2
	for _, m := range res.Methods {
		maxD = max(maxD, m.Eigen.D)
	}
	for _, c := range []struct {
		name string
		v    int
	}{{"x", q.X}, {"y", q.Y}} {
		if c.v > maxD {
			return nil, badRequest(c.name, "%s = %d is not a component of this job's methods; %s must be from 1 to %d", c.name, c.v, c.name, maxD)
		}
	}
	q.X, q.Y = cmp.Or(q.X, 1), cmp.Or(q.Y, 2)
	v := &templates.ResultsView{JobID: id, X: q.X, Y: q.Y, Log: q.Log, Notes: res.Job.Notes}
	if res.Comparison != nil {
		sq, err := parseStudyQuery(raw)
		if err != nil {
			return nil, err
		}
		if v.Study, err = studyView(id, res.Comparison, sq); err != nil {
			return nil, err
		}
		if v.Study.Dataset, err = studyDataset(res, sq); err != nil {
			return nil, err
		}
		for i, ds := range res.Comparison.Comparisons[0].Datasets {
			v.Study.Datasets = append(v.Study.Datasets, templates.Option{Value: ds, Text: res.Comparison.Comparisons[0].DatasetNames[i]})
		}
		res = studyRows(res, v.Study.Dataset)
		q.Metric = v.Study.Metric
	}
	data := h.datasets()
	base := "/api/jobs/" + id + "/plots/"
	if res.Metrics != nil {
		v.MetricOptions = metricOptions(res.Metrics)
		if q.Metric == "" && len(v.MetricOptions) > 0 {
			q.Metric = v.MetricOptions[0].Value
		}
		if err := checkMetric(v.MetricOptions, q.Metric); err != nil && len(v.MetricOptions) > 0 {
			return nil, err
		}
		v.Metric = q.Metric
		v.DAxis = dAxis(q.DAxis, res)
		f, alt, err := curvesFigure(res, v.Metric, res.Job.Request.MethodIDs(), v.DAxis, nil)
		if v.Curves, err = figureView("curves", base+"curves", q.values("curves"), f, alt, err); err != nil {
			return nil, err
		}
		v.Table = metricsTableView(res, v.Metric)
		v.Times = timesTableView(res)
		v.MetricsDownload = "/api/jobs/" + id + "/metrics.json"
	}
	for _, m := range res.Methods {
		mv := templates.MethodView{ID: m.Method, Name: methodName(m.Method), Space: string(m.Manifest.Space), Paper: m.Manifest.Paper,
			D: m.Eigen.D, Energy: m.Eigen.Energy, Rank: m.Eigen.Rank, Colour: colourHex(res.Job.Request.MethodIDs(), m.Method)}
		v.MaxComponent = max(v.MaxComponent, m.Eigen.D)
		mq := q
		mq.Method = m.Method
		if mq.X > m.Eigen.D || mq.Y > m.Eigen.D { // the page's choice is beyond this method's d: its first two (the title says which)
			mq.X, mq.Y = 1, min(2, m.Eigen.D)
		}
		f, alt, err := spectrumFigure(m, res.Job.Request.MethodIDs(), q.Log, 0)
		if mv.Spectrum, err = figureView("spectrum-"+m.Method, base+"spectrum", mq.values("spectrum"), f, alt, err); err != nil {
			return nil, err
		}
		pf, alt, opts, err := h.projectionFigure(res, m, mq, data, nil, nil)
		if _, ok := undrawable(err); err != nil && !ok {
			return nil, err
		}
		if v.ColourOptions == nil && opts != nil {
			v.ColourOptions = opts
			if mq.Colour == "" {
				v.Colour = opts[0].Value
			} else {
				v.Colour = mq.Colour
			}
		}
		if mv.Projection, err = figureView("projection-"+m.Method, base+"projection", mq.values("projection"), pf, alt, err); err != nil {
			return nil, err
		}
		for _, file := range jobs.MethodFiles {
			if m.Manifest.Projection == nil && strings.HasPrefix(file, "projection.") {
				continue
			}
			mv.Downloads = append(mv.Downloads, templates.Download{Name: file, URL: "/api/jobs/" + id + "/" + file + "?method=" + m.Method, Description: fileDescriptions[file]})
		}
		v.Methods = append(v.Methods, mv)
	}
	v.MaxComponent = max(v.MaxComponent, 2)
	return v, nil
}

var fileDescriptions = map[string]string{
	jobs.FileProjectionCSV:  "the projection matrix, one row per original dimension",
	jobs.FileProjectionJSON: "the same as JSON",
	jobs.FileProjectionNPY:  "the same for NumPy (np.load)",
	jobs.FileEigenvalues:    "every eigenvalue, d and the energy kept",
	jobs.FileProjected:      "the reduced rows, with their part of the split",
	jobs.FileModel:          "the manifest: method, parameters, seed, data set hash, version, means, projection",
}

// paramsText writes the parameters p gives as "d = 5, β = 0.5".
func paramsText(p analysis.Params) string {
	var parts []string
	num := func(name string, v *float64) {
		if v != nil {
			parts = append(parts, name+" = "+strconv.FormatFloat(*v, 'g', -1, 64))
		}
	}
	if p.D != 0 {
		parts = append(parts, "d = "+strconv.Itoa(p.D))
	}
	if p.Thr != 0 {
		parts = append(parts, "thr = "+strconv.FormatFloat(p.Thr, 'g', -1, 64))
	}
	num("β", p.Beta)
	num("γ", p.Gamma)
	num("λ", p.Lambda)
	num("ridge", p.Ridge)
	if p.LabelKernel != "" {
		parts = append(parts, "label kernel = "+p.LabelKernel)
	}
	if p.K != 0 {
		parts = append(parts, "k = "+strconv.Itoa(p.K))
	}
	if p.Normalize != "" {
		parts = append(parts, "normalize = "+p.Normalize)
	}
	return strings.Join(parts, ", ")
}
