package handlers

import (
	"cmp"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/a-h/templ"
	"github.com/go-chi/chi/v5/middleware"

	"mldr/internal/dataset"
	"mldr/internal/plots"
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
	for _, rec := range recs {
		v.Datasets = append(v.Datasets, templates.DatasetRow{
			ID: rec.ID, Name: rec.Name, FileName: rec.FileName, Kind: string(rec.Summary.Kind),
			Created: views.FormatTime(rec.CreatedAt), Rows: rec.Summary.Rows, Features: rec.Summary.Features,
			Labels: len(rec.Summary.Labels), Problem: h.store.Problem(rec.ID),
		})
	}
	if h.jobs != nil {
		for i, j := range h.jobs.List() {
			if i == recentJobs {
				break
			}
			v.Jobs = append(v.Jobs, h.build.JobRow(j))
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
		Size: store.FormatBytes(rec.Bytes), Created: views.FormatTime(rec.CreatedAt), SHA256: rec.SHA256,
		Summary: rec.Summary, Problem: h.store.Problem(rec.ID), Notice: notices[r.URL.Query().Get("notice")],
		Kind: string(rec.Options.Kind), RelabelError: relabelErr, Folds: rec.Folds,
	}
	relabelColumns(&v, rec)
	s := rec.Summary
	c, err := chooseLabels(s, rec.ID, r.URL.Query(), maxShownLabels)
	var choiceErr *templates.FormError
	if err != nil {
		_, body := classify(err, "")
		choiceErr = &templates.FormError{Message: views.Sentence(body.Error), Field: body.Field}
		c = labelChoice{idx: defaultLabels(s, maxShownLabels), total: len(s.Labels)}
	}
	if c.partial() || choiceErr != nil {
		v.Choice = choiceView(s, c, choiceErr)
	}
	if len(s.LabelStats) == len(s.Labels) {
		for _, j := range c.idx {
			v.LabelRows = append(v.LabelRows, s.LabelStats[j])
		}
		if s.Kind == dataset.MultiDim {
			v.ClassTables = classTables(v.LabelRows)
		}
	}
	if v.Problem == "" && len(s.Labels) > 0 && s.Kind == dataset.MultiLabel {
		f, alt, err := h.datasetFigure(rec, "labels", c)
		v.Frequency = h.pageFigure(r, "labels", "/api/datasets/"+rec.ID+"/plots/labels", c.query(s), f, alt, err)
		n, err := h.labelNMI(rec, c)
		f = nil
		alt = ""
		if err == nil {
			f, alt, err = n.figure()
			if len(n.labels) <= maxNMITable {
				v.NMITable = n.table()
			}
		}
		v.NMI = h.pageFigure(r, "nmi", "/api/datasets/"+rec.ID+"/plots/nmi", c.query(s), f, alt, err)
	}
	return v
}

// relabelColumns fills the relabel form: a check box per column up to
// maxColumnChecks columns, else the first names and a text field of the
// label columns' names.
func relabelColumns(v *templates.DatasetView, rec store.DatasetRecord) {
	v.LabelColumns = rec.LabelColumns
	if len(rec.Columns) <= maxColumnChecks {
		isLabel := make(map[string]bool, len(rec.LabelColumns))
		for _, c := range rec.LabelColumns {
			isLabel[c] = true
		}
		v.Columns = make([]templates.ColumnChoice, 0, len(rec.Columns))
		for _, c := range rec.Columns {
			v.Columns = append(v.Columns, templates.ColumnChoice{Name: c, Label: isLabel[c]})
		}
		return
	}
	v.ColumnCount = len(rec.Columns)
	v.ColumnPreview = rec.Columns[:maxColumnPreview]
	if len(rec.LabelColumns) <= maxListed {
		v.LabelNames = strings.Join(rec.LabelColumns, "\n")
	}
}

// choiceView is the page's notice and form for a part of the labels.
func choiceView(s dataset.Summary, c labelChoice, fe *templates.FormError) *templates.LabelChoice {
	noun := labelNoun(s.Kind)
	what := "the heatmap, the frequency plot and the table show"
	if s.Kind == dataset.MultiDim {
		what = "the class tables show"
	}
	which := fmt.Sprintf("the %s most frequent", plots.GroupDigits(len(c.idx)))
	switch {
	case c.chosen && len(c.idx) == 1:
		which = "the one you chose"
	case c.chosen:
		which = fmt.Sprintf("the %s you chose", plots.GroupDigits(len(c.idx)))
	case s.Kind == dataset.MultiDim:
		which = fmt.Sprintf("the first %s", plots.GroupDigits(len(c.idx)))
	}
	v := &templates.LabelChoice{Notice: fmt.Sprintf("%s: %s %s; choose others below.", countOf(c.total, strings.TrimSuffix(noun, "s"), noun), what, which),
		Noun: noun, Max: maxShownLabels, Error: fe, Chosen: c.chosen}
	listed := map[int]bool{}
	for _, j := range topLabels(s, maxLabelOptions) {
		listed[j] = true
	}
	if s.Kind == dataset.MultiDim || len(s.LabelStats) != len(s.Labels) {
		listed = map[int]bool{}
		for j := range min(len(s.Labels), maxLabelOptions) {
			listed[j] = true
		}
	}
	chosen := map[int]bool{}
	var typed []string
	for _, j := range c.idx {
		chosen[j] = c.chosen
		if c.chosen && !listed[j] {
			typed = append(typed, s.Labels[j])
		}
	}
	v.Typed = strings.Join(typed, ", ")
	for j, name := range s.Labels {
		if !listed[j] {
			continue
		}
		text := name
		if s.Kind == dataset.MultiLabel && j < len(s.LabelStats) {
			text = fmt.Sprintf("%s (%.1f%%)", name, 100*s.LabelStats[j].Frequency)
		}
		v.Options = append(v.Options, templates.LabelOption{Name: name, Text: text, Selected: chosen[j]})
	}
	v.Unlisted = len(s.Labels) - len(v.Options)
	return v
}

// classTables are the class tables of the chosen class variables, each
// with its most frequent maxShownClasses classes (in category order).
func classTables(stats []dataset.LabelStat) []templates.ClassTable {
	out := make([]templates.ClassTable, 0, len(stats))
	for _, l := range stats {
		t := templates.ClassTable{Name: l.Name, Constant: l.Constant, Total: len(l.Classes), Classes: l.Classes}
		if len(l.Classes) > maxShownClasses {
			order := make([]int, len(l.Classes))
			for i := range order {
				order[i] = i
			}
			slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(l.Classes[b].Count, l.Classes[a].Count) })
			keep := slices.Sorted(slices.Values(order[:maxShownClasses]))
			t.Classes = make([]dataset.ClassCount, len(keep))
			for i, c := range keep {
				t.Classes[i] = l.Classes[c]
			}
			t.Hidden = len(l.Classes) - maxShownClasses
			for _, c := range order[maxShownClasses:] {
				t.HiddenRows += l.Classes[c].Count
			}
		}
		out = append(out, t)
	}
	return out
}

// maxNMITable is the most labels whose NMI the data set page also shows as
// a table; beyond, nmi.json has the numbers.
const maxNMITable = 60

// pageFigure renders a figure for a page; one that cannot be drawn is
// logged and left out, the page still shows.
func (h *handler) pageFigure(r *http.Request, id, base string, q url.Values, f *plots.Figure, alt string, err error) *templates.FigureView {
	fv, err := views.Figure(id, base, q, f, alt, err)
	if err != nil {
		h.log.Warn("drawing a figure", "path", r.URL.Path, "figure", id, "err", err, "request_id", middleware.GetReqID(r.Context()))
		return nil
	}
	return fv
}

// pageDataset shows a data set; a refused ?labels= choice answers 400 with
// the page of the default choice and the error beside the choice form.
func (h *handler) pageDataset(w http.ResponseWriter, r *http.Request) {
	v := h.datasetView(r, datasetFrom(r), nil)
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
