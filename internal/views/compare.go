package views

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strings"

	"mldr/internal/jobs"
	"mldr/internal/store"
	"mldr/web/templates"
)

// Compare builds the comparison of finished jobs side by side (ids, in
// order; metric, the metric asked for, "" for the first they share): the
// metric curves share their axes across the jobs; spectra and projections
// have their own. A job that is not a finished one, or is a study, is
// said in the view's Error; the page's Page is the caller's. The jobs
// that cannot be read (the shared mode's database is unreachable) are
// the error.
func (b *Builder) Compare(metric string, ids []string) (templates.CompareView, error) {
	v := templates.CompareView{Metric: metric}
	list, err := b.jobs.List()
	if err != nil {
		return v, err
	}
	b.compareChoices(&v, list)
	var all []*jobs.Results
	for _, id := range ids {
		res, err := b.jobs.Results(id)
		if errors.Is(err, store.ErrUnavailable) {
			return v, err
		}
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
	if err := b.compareJobs(&v, all); err != nil {
		return templates.CompareView{}, err
	}
	return v, nil
}

// compareChoices sets the picker's finished jobs, grouped by data set
// (the groups in the order of their newest job, each newest first), and
// the data sets and methods its filters offer.
func (b *Builder) compareChoices(v *templates.CompareView, list []jobs.Job) {
	var done []jobs.Job
	for _, j := range list {
		if j.Status == jobs.Succeeded && !j.Request.Study() {
			done = append(done, j)
		}
	}
	slices.SortStableFunc(done, func(a, b jobs.Job) int { return b.CreatedAt.Compare(a.CreatedAt) })
	group := map[string]int{}
	var methods []string
	names := b.datasetNames() // read once for the whole list
	for _, j := range done {
		row := b.jobRow(j, names)
		k, ok := group[row.Dataset]
		if !ok {
			k = len(v.Choices)
			group[row.Dataset] = k
			v.Choices = append(v.Choices, templates.ChoiceGroup{Dataset: row.Dataset})
			v.ChoiceDatasets = append(v.ChoiceDatasets, row.Dataset)
		}
		ids := j.Request.MethodIDs()
		for _, m := range ids {
			if !slices.Contains(methods, m) {
				methods = append(methods, m)
			}
		}
		v.Choices[k].Jobs = append(v.Choices[k].Jobs, templates.Choice{ID: j.ID, Methods: row.Methods, Created: row.Created,
			MethodIDs: strings.Join(ids, " "), CreatedUnix: j.CreatedAt.Unix()})
	}
	slices.Sort(v.ChoiceDatasets)
	slices.Sort(methods)
	v.ChoiceMethods = methods
}

func (b *Builder) compareJobs(v *templates.CompareView, all []*jobs.Results) error {
	names := b.datasetNames() // read once for the page
	v.Warnings = append(v.Warnings, sameSetup(all, names)...)
	v.Linked = sameData(all)
	compareMetric(v, all)
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
	data := b.loader()
	daxis := DAxis("", all...) // one axis for every job's curves
	for _, res := range all {
		ds := b.jobRow(res.Job, names).Dataset
		cj := templates.CompareJob{ID: res.Job.ID, Dataset: ds, Title: fmt.Sprintf("%s on %s", strings.Join(res.Job.Request.MethodIDs(), ", "), ds)}
		base := "/api/jobs/" + res.Job.ID + "/plots/"
		if res.Metrics != nil && v.Metric != "" {
			f, alt, err := Curves(res, v.Metric, order, daxis, spanOrNil(curveRange))
			q := url.Values{"metric": {v.Metric}, "daxis": {daxis}}
			if cj.Curves, err = Figure("curves-"+res.Job.ID, base+"curves", q, f, alt, err); err != nil {
				return err
			}
		}
		for _, m := range res.Methods {
			f, alt, err := Spectrum(m, order, false, 0)
			q := url.Values{"method": {m.Method}}
			fv, err := Figure("spectrum-"+res.Job.ID+"-"+m.Method, base+"spectrum", q, f, alt, err)
			if err != nil {
				return err
			}
			cj.Spectra = append(cj.Spectra, fv)
			pq := PlotOptions{Method: m.Method} // components 1 and 2 (1 and 1 at d = 1)
			pf, alt, _, err := b.projection(res, m, pq, data)
			fv, err = Figure("projection-"+res.Job.ID+"-"+m.Method, base+"projection", pq.Values("projection"), pf, alt, err)
			if err != nil {
				return err
			}
			cj.Projections = append(cj.Projections, fv)
			cj.Methods = append(cj.Methods, m.Method)
			cj.Names = append(cj.Names, MethodName(m.Method))
			cj.SpaceNotes = append(cj.SpaceNotes, SpaceNote(m.Method, m.Manifest.Space))
		}
		v.Jobs = append(v.Jobs, cj)
	}
	return nil
}

// compareMetric sets the metrics the page offers, those every chosen job
// with an evaluation reported, and the one shown: the chosen one if all
// have it, else the first, saying so.
func compareMetric(v *templates.CompareView, all []*jobs.Results) {
	count := map[string]int{}
	evaluated := 0
	for _, res := range all {
		if res.Metrics == nil {
			continue
		}
		evaluated++
		for _, o := range MetricOptions(res.Metrics) {
			count[o.Value]++
		}
	}
	for _, k := range metricOrder {
		if evaluated > 0 && count[k] == evaluated {
			v.Options = append(v.Options, templates.Option{Value: k, Text: metricText(k)})
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
func sameSetup(all []*jobs.Results, names datasetNames) []string {
	var data, splits []string
	for _, res := range all {
		req := res.Job.Request
		name := names.of(req.Dataset)
		if req.TestDataset != "" {
			name += " (tested on " + names.of(req.TestDataset) + ")"
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

// sameData says whether the jobs use one data set and one test set (or
// none), so that a row number names the same row in each of them.
func sameData(all []*jobs.Results) bool {
	for _, res := range all[min(1, len(all)):] {
		a, b := all[0].Job.Request, res.Job.Request
		if a.Dataset != b.Dataset || a.TestDataset != b.TestDataset {
			return false
		}
	}
	return true
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
