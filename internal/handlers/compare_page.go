package handlers

import (
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"mldr/internal/jobs"
	"mldr/web/templates"
)

// pageCompare shows finished jobs side by side: the metric curves share
// their axes across the jobs; spectra and projections have their own.
func (h *handler) pageCompare(w http.ResponseWriter, r *http.Request) {
	var ids []string
	for _, v := range r.URL.Query()["jobs"] {
		for _, id := range strings.Split(v, ",") {
			if id = strings.TrimSpace(id); id != "" && !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	v := templates.CompareView{Page: h.page("Compare", "compare"), Metric: r.URL.Query().Get("metric")}
	for _, j := range h.jobs.List() {
		if j.Status == jobs.Succeeded && !j.Request.Study() {
			v.Choices = append(v.Choices, h.jobRow(j))
		}
	}
	var all []*jobs.Results
	for _, id := range ids {
		res, err := h.jobs.Results(id)
		if err != nil || res.Job.Status != jobs.Succeeded {
			v.Error = fmt.Sprintf("job %s is not a finished job", id)
			continue
		}
		if res.Job.Request.Study() {
			v.Error = fmt.Sprintf("job %s is a study over several data sets: its own page compares its methods over them (/jobs/%s)", id, id)
			continue
		}
		all = append(all, res)
	}
	if err := h.compareJobs(&v, all); err != nil {
		h.fail(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, templates.ComparePage(v))
}

func (h *handler) compareJobs(v *templates.CompareView, all []*jobs.Results) error {
	v.Warnings = append(v.Warnings, h.sameSetup(all)...)
	h.compareMetric(v, all)
	// One colour per method across the page.
	var order []string
	for _, res := range all {
		for _, id := range res.Job.Request.MethodIDs() {
			if !slices.Contains(order, id) {
				order = append(order, id)
			}
		}
	}
	// The curves share their axes; each projection has its own (methods'
	// scales differ by orders of magnitude: on shared axes one of them
	// would be a dot).
	curveRange := [2]float64{math.Inf(1), math.Inf(-1)}
	for _, res := range all {
		if res.Metrics == nil {
			continue
		}
		for _, row := range res.Metrics.Rows {
			if val, ok := row.Metrics[v.Metric]; ok && row.Fold == nil && !math.IsNaN(val) {
				s := 0.0
				if row.Std != nil {
					s = zeroNaN(row.Std[v.Metric])
				}
				curveRange = [2]float64{min(curveRange[0], val-s), max(curveRange[1], val+s)}
			}
		}
	}
	data := h.datasets()
	daxis := dAxis("", all...) // one axis for every job's curves
	for _, res := range all {
		cj := templates.CompareJob{ID: res.Job.ID, Title: fmt.Sprintf("%s on %s", strings.Join(res.Job.Request.MethodIDs(), ", "), h.jobRow(res.Job).Dataset)}
		base := "/api/jobs/" + res.Job.ID + "/plots/"
		if res.Metrics != nil && v.Metric != "" {
			f, alt, err := curvesFigure(res, v.Metric, order, daxis, spanOrNil(curveRange))
			q := url.Values{"metric": {v.Metric}, "daxis": {daxis}}
			if cj.Curves, err = figureView("curves-"+res.Job.ID, base+"curves", q, f, alt, err); err != nil {
				return err
			}
		}
		for _, m := range res.Methods {
			f, alt, err := spectrumFigure(m, order, false, 0)
			q := url.Values{"method": {m.Method}}
			fv, err := figureView("spectrum-"+res.Job.ID+"-"+m.Method, base+"spectrum", q, f, alt, err)
			if err != nil {
				return err
			}
			cj.Spectra = append(cj.Spectra, fv)
			pq := plotQuery{Method: m.Method} // components 1 and 2 (1 and 1 at d = 1)
			pf, alt, _, err := h.projectionFigure(res, m, pq, data, nil, nil)
			fv, err = figureView("projection-"+res.Job.ID+"-"+m.Method, base+"projection", pq.values("projection"), pf, alt, err)
			if err != nil {
				return err
			}
			cj.Projections = append(cj.Projections, fv)
		}
		v.Jobs = append(v.Jobs, cj)
	}
	return nil
}

// compareMetric sets the metrics the page offers, those every chosen job
// with an evaluation reported, and the one shown: the chosen one if all
// have it, else the first, saying so.
func (h *handler) compareMetric(v *templates.CompareView, all []*jobs.Results) {
	count := map[string]int{}
	evaluated := 0
	for _, res := range all {
		if res.Metrics == nil {
			continue
		}
		evaluated++
		for _, o := range metricOptions(res.Metrics) {
			count[o.Value]++
		}
	}
	for _, k := range metricOrder {
		if evaluated > 0 && count[k] == evaluated {
			v.Options = append(v.Options, templates.Option{Value: k, Text: strings.ReplaceAll(k, "_", " ")})
		}
	}
	asked := v.Metric
	switch {
	case evaluated == 0:
		v.Metric = ""
		return
	case len(v.Options) == 0:
		v.Metric = ""
		v.Warnings = append(v.Warnings, "The chosen jobs have no metric in common (multi-label and multi-dimensional data are scored by different metrics), so no curves are shown; compare jobs of one kind of data.")
		return
	case asked != "" && count[asked] != evaluated:
		v.Metric = v.Options[0].Value
		v.Warnings = append(v.Warnings, fmt.Sprintf("%q is not a metric of every chosen job, so the curves show %s, which all of them report.", cut(asked, maxNameInError), v.Options[0].Text))
	case asked == "":
		v.Metric = v.Options[0].Value
	}
}

// sameSetup warns when the jobs were not run on the same data or split,
// so that their numbers are not comparable point for point.
func (h *handler) sameSetup(all []*jobs.Results) []string {
	var data, splits []string
	for _, res := range all {
		req := res.Job.Request
		name := h.jobRow(res.Job).Dataset
		if req.TestDataset != "" {
			test := req.TestDataset
			if rec, err := h.store.Dataset(test); err == nil {
				test = rec.Name
			}
			name += " (tested on " + test + ")"
		}
		if !slices.Contains(data, name) {
			data = append(data, name)
		}
		if s := splitText(req); !slices.Contains(splits, s) {
			splits = append(splits, s)
		}
	}
	var w []string
	if len(data) > 1 {
		w = append(w, fmt.Sprintf("The chosen jobs use different data sets (%s): their numbers are not comparable point for point.", strings.Join(data, "; ")))
	}
	if len(splits) > 1 {
		w = append(w, fmt.Sprintf("The chosen jobs use different splits (%s): their numbers are not comparable point for point.", strings.Join(splits, "; ")))
	}
	return w
}

// splitText says how a job held rows out, for comparing jobs.
func splitText(req jobs.Request) string {
	sp := req.Split
	switch {
	case sp == nil:
		return "no split"
	case sp.Kind == jobs.SplitHoldout:
		return fmt.Sprintf("holdout, %g%% test rows, seed %d", 100*sp.TestFraction, sp.Seed)
	case sp.Kind == jobs.SplitKFold:
		return fmt.Sprintf("%d-fold cross-validation, seed %d", sp.Folds, sp.Seed)
	case sp.Kind == jobs.SplitPredefined:
		return "the data set's predefined folds"
	}
	return sp.Kind
}

// spanOrNil is r padded by 5% on each side, or nil (the plot fits its own
// data) if r is empty or a point.
func spanOrNil(r [2]float64) *[2]float64 {
	lo, hi := r[0], r[1]
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return nil
	}
	pad := 0.05 * (hi - lo)
	return &[2]float64{lo - pad, hi + pad}
}
