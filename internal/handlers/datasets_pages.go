package handlers

import (
	"cmp"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/a-h/templ"
	"github.com/go-chi/chi/v5/middleware"

	"mldr/internal/dataset"
	"mldr/internal/jobs"
	"mldr/internal/store"
	"mldr/internal/views"
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
	v.Datasets = views.DatasetRows(recs, h.store.Problem)
	if h.jobs != nil {
		list, err := h.jobs.List()
		if err != nil {
			return templates.HomeView{}, err
		}
		v.Jobs = h.build.JobRows(list[:min(recentJobs, len(list))])
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

// datasetView is a data set's page: the labels r's ?labels= chooses (a
// refused choice is said beside the choice form, with the default shown),
// and relabelErr beside the relabel form. A figure that fails to draw is
// logged and left out; the page still shows.
func (h *handler) datasetView(r *http.Request, rec store.DatasetRecord, relabelErr, deleteErr *templates.FormError) templates.DatasetView {
	o := views.DatasetOptions{RelabelError: relabelErr, DeleteError: deleteErr, Problem: h.store.Problem(rec.ID)}
	if h.jobs != nil {
		if u, err := h.jobs.UseOf(rec.ID); err == nil {
			o.Use = &u
		} else {
			h.log.Warn("listing the jobs of a data set", "id", rec.ID, "err", err, "request_id", middleware.GetReqID(r.Context()))
		}
	}
	det, err := h.store.Details(rec)
	if err != nil {
		h.log.Warn("reading a data set's details", "id", rec.ID, "err", err, "request_id", middleware.GetReqID(r.Context()))
		if o.Problem == "" {
			o.Problem = "its stored details are missing or unreadable; delete it and upload the file again"
		}
	} else {
		o.Details = det
		if o.Choice, err = chooseLabels(det, rec.ID, r.URL.Query(), views.MaxShownLabels); err != nil {
			_, body := classify(err, "")
			o.ChoiceError = &templates.FormError{Message: views.Sentence(body.Error), Field: body.Field}
			o.Choice = views.DefaultChoice(det, views.MaxShownLabels)
		}
	}
	v, dropped := h.build.Dataset(rec, o)
	for _, d := range dropped {
		h.log.Warn("drawing a figure", "path", r.URL.Path, "figure", d.Figure, "err", d.Err, "request_id", middleware.GetReqID(r.Context()))
	}
	v.Page, v.Notice = h.page(rec.Name, "datasets"), notices[r.URL.Query().Get("notice")]
	return v
}

// pageDataset shows a data set; a refused ?labels= choice answers 400 with
// the page of the default choice and the error beside the choice form.
func (h *handler) pageDataset(w http.ResponseWriter, r *http.Request) {
	v := h.datasetView(r, datasetFrom(r), nil, nil)
	status := http.StatusOK
	if v.Choice != nil && v.Choice.Error != nil {
		status = http.StatusBadRequest
	}
	h.render(w, r, status, templates.DatasetPage(v))
}

func (h *handler) pageRelabel(w http.ResponseWriter, r *http.Request) {
	rec := datasetFrom(r)
	err := r.ParseForm()
	if err != nil {
		err = unreadableForm(err)
	} else {
		_, err = h.relabel(r, rec.ID, relabelNames(r.PostForm), dataset.Kind(r.PostForm.Get("kind")))
	}
	if err == nil {
		http.Redirect(w, r, "/datasets/"+rec.ID+"?notice=relabelled", http.StatusSeeOther)
		return
	}
	h.refuseForm(w, r, err, func(fe *templates.FormError) (templ.Component, error) {
		return templates.DatasetPage(h.datasetView(r, rec, fe, nil)), nil
	})
}

// pageDelete deletes a data set from its page's confirmation: with its
// form's with_jobs=1, the jobs that use it too, so long as they are as
// many as the confirmation said (its field jobs); a refusal shows the page
// again with why beside the form.
func (h *handler) pageDelete(w http.ResponseWriter, r *http.Request) {
	rec := datasetFrom(r)
	err := r.ParseForm()
	if err != nil {
		err = unreadableForm(err)
	} else {
		err = h.deleteConfirmed(rec.ID, r.PostForm)
	}
	if err == nil {
		http.Redirect(w, r, "/?notice=deleted", http.StatusSeeOther)
		return
	}
	h.refuseForm(w, r, err, func(fe *templates.FormError) (templ.Component, error) {
		return templates.DatasetPage(h.datasetView(r, rec, nil, fe)), nil
	})
}

// deleteConfirmed deletes data set id as a confirmation form asks: its
// with_jobs, and jobs, the number of jobs it was shown would go; when as
// many jobs no longer use the data set, it refuses (409) so that the
// person reads the new count.
func (h *handler) deleteConfirmed(id string, form url.Values) error {
	withJobs, err := parseWithJobs(form.Get(jobs.WithJobsParam))
	if err != nil {
		return err
	}
	if withJobs && h.jobs != nil {
		u, err := h.jobs.UseOf(id)
		if err != nil {
			return err
		}
		if shown := form.Get("jobs"); shown != strconv.Itoa(len(u.Jobs)) {
			return &jobs.RequestError{Status: http.StatusConflict, Field: "jobs", Msg: fmt.Sprintf(
				"%s this data set now, not %s as the confirmation said; read it again and confirm", u.Use(), cmp.Or(shown, "0"))}
		}
	}
	return h.deleteDataset(id, withJobs)
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
	c, perr := page(&templates.FormError{Message: views.Sentence(body.Error), Field: body.Field, Line: body.Line, Column: body.Column})
	if perr != nil {
		h.fail(w, r, perr)
		return
	}
	h.render(w, r, status, c)
}

// relabelNames are the label columns a relabel form names: its check
// boxes ("labels"), or its text field ("label_names", one per line) when
// the file has too many columns for check boxes.
func relabelNames(form url.Values) []string {
	if _, ok := form["label_names"]; !ok {
		return form["labels"]
	}
	var names []string
	for _, v := range form["label_names"] {
		for _, n := range strings.Split(v, "\n") {
			if n = strings.TrimSpace(n); n != "" {
				names = append(names, n)
			}
		}
	}
	return names
}
