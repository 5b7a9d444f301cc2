package handlers

import (
	"cmp"
	"net/http"
	"slices"

	"mldr/internal/jobs"
	"mldr/internal/store"
	"mldr/internal/views"
	"mldr/web/templates"
)

// studyRecords looks up the data sets a study form names, refusing fewer
// than two, unknown ones and a mix of kinds with what to do instead.
func (h *handler) studyRecords(ids []string) ([]store.DatasetRecord, error) {
	var recs []store.DatasetRecord
	for _, id := range ids {
		if slices.ContainsFunc(recs, func(r store.DatasetRecord) bool { return r.ID == id }) {
			continue
		}
		rec, err := h.store.Dataset(id)
		if err != nil {
			return nil, notFound("there is no data set with id %q; tick the data sets to compare on the data sets page", id)
		}
		if len(recs) > 0 && rec.Summary.Kind != recs[0].Summary.Kind {
			return nil, badRequest("datasets", "%s is %s and %s is %s: a study compares methods on data sets of one kind; tick only %s ones or only %s ones",
				rec.Name, rec.Summary.Kind.Words(), recs[0].Name, recs[0].Summary.Kind.Words(), recs[0].Summary.Kind.Words(), rec.Summary.Kind.Words())
		}
		recs = append(recs, rec)
	}
	if len(recs) < 2 {
		return nil, badRequest("datasets", "a study compares methods over at least two data sets: tick two or more data sets of one kind on the data sets page, then Compare methods on these data sets")
	}
	if len(recs) > jobs.MaxStudyDatasets {
		return nil, badRequest("datasets", "a study may cover at most %d data sets, not %d", jobs.MaxStudyDatasets, len(recs))
	}
	return recs, nil
}

// studyView is the analysis form in study mode (see
// views.Builder.StudyForm).
func (h *handler) studyView(recs []store.DatasetRecord, form templates.AnalyzeForm, checked []string, fe *templates.FormError) templates.AnalyzeView {
	v := h.build.StudyForm(recs, form, checked, fe)
	v.Page = h.page("New study", "datasets")
	return v
}

// pageStudy is the form of a new study over the data sets ticked on the
// data sets page (?datasets=…&datasets=…).
func (h *handler) pageStudy(w http.ResponseWriter, r *http.Request) {
	recs, err := h.studyRecords(r.URL.Query()["datasets"])
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, templates.AnalyzePage(h.studyView(recs, views.DefaultStudyForm(recs), nil, nil)))
}

// pageSubmitStudy turns the study form into a job request over its data
// sets.
func (h *handler) pageSubmitStudy(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		h.fail(w, r, unreadableForm(err))
		return
	}
	recs, err := h.studyRecords(r.PostForm["datasets"])
	if err != nil {
		h.fail(w, r, err)
		return
	}
	form := analyzeFormFrom(r.PostForm, recs[0])
	form.HasFolds = !slices.ContainsFunc(recs, func(r store.DatasetRecord) bool { return r.Folds == 0 })
	form.SeedDim = views.SeedDimText(recs...)
	methods := r.PostForm["methods"]
	form.RankBaseline = r.PostForm.Get("rank_baseline")
	req, err := requestFromForm("", methods, form)
	switch form.RankBaseline {
	case "", "rank": // the default is not sent
	case "show":
		req.RankBaseline = new(false)
	default:
		err = cmp.Or(err, badRequest("rank_baseline", "the baseline is ranked with the methods (\"rank\") or shown but left out of the ranks (\"show\"), not %q", views.CutName(form.RankBaseline)))
	}
	for _, rec := range recs {
		req.Datasets = append(req.Datasets, rec.ID)
	}
	h.submitAnalysis(w, r, req, err, func(fe *templates.FormError) templates.AnalyzeView {
		return h.studyView(recs, form, methods, fe)
	})
}
