package handlers

import (
	"math"
	"net/http"

	"github.com/go-chi/chi/v5"

	"mldr/internal/jobs"
	"mldr/internal/views"
	"mldr/web/templates"
)

// jobNotices are the confirmations a redirect may ask for.
var jobNotices = map[string]string{
	"canceled": "The job was canceled.",
	"deleted":  "The job was deleted.",
	"started":  "The job is queued. This page follows it as it runs.",
}

func (h *handler) pageJobs(w http.ResponseWriter, r *http.Request) {
	v := templates.JobsView{Page: h.page("Jobs", "jobs"), Notice: jobNotices[r.URL.Query().Get("notice")]}
	list, err := h.jobs.List()
	if err != nil {
		h.fail(w, r, err)
		return
	}
	v.Jobs = h.build.JobRows(list)
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

func (h *handler) pageJob(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	j, err := h.jobs.Get(id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	v := templates.JobView{Page: h.page("Job "+id[:min(8, len(id))], "jobs"), Job: h.build.JobHeader(j), Notice: jobNotices[r.URL.Query().Get("notice")]}
	if j.Status == jobs.Succeeded {
		if v.Results, err = h.resultsView(r, j.ID); err != nil {
			h.fail(w, r, err)
			return
		}
	}
	h.render(w, r, http.StatusOK, templates.JobPage(v))
}

// pageJobResults is the results section alone, for the script that shows
// them when the job finishes.
func (h *handler) pageJobResults(w http.ResponseWriter, r *http.Request) {
	res, err := h.resultsView(r, chi.URLParam(r, "id"))
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

// resultsView is job id's results section with the choices of r's query;
// nil if the job has not succeeded.
func (h *handler) resultsView(r *http.Request, id string) (*templates.ResultsView, error) {
	q, err := parsePlotQuery(r.URL.Query())
	if err != nil {
		return nil, err
	}
	return h.build.Results(id, views.ResultsOptions{Plot: q, Study: func() (views.StudyOptions, error) { return parseStudyQuery(r.URL.Query()) }})
}

// pageJobLabels is a job's per-label results, a page of labels at a time
// (?q= finds labels by name, ?sort=, ?order=, ?metric=, ?page=).
func (h *handler) pageJobLabels(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	q := r.URL.Query()
	page, err := queryInt(q, "page", 1, 1, math.MaxInt32)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	v, err := h.build.LabelResults(id, views.LabelResultsOptions{Search: q.Get("q"), Sort: q.Get("sort"), Order: q.Get("order"), Metric: q.Get("metric"), Page: page})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	v.Page = h.page("Per-label results, job "+id[:min(8, len(id))], "jobs")
	h.render(w, r, http.StatusOK, templates.LabelResultsPage(*v))
}
