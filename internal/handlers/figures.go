package handlers

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"mldr/internal/analysis"
	"mldr/internal/dataset"
	"mldr/internal/evaluate"
	"mldr/internal/jobs"
	"mldr/internal/plots"
	"mldr/web/templates"
)

// plotQuery is what a job's plots can be asked: the method, the two
// components, what colours the points, a log scale, the metric.
type plotQuery struct {
	Method string
	// X and Y are the components on the projection's axes, from 1; 0
	// when not given (then 1 and 2, or 1 and 1 for a method of d = 1).
	X, Y   int
	Colour string
	Log    bool
	Metric string
	// DAxis is the curves' d axis: "linear", "log", or "" to choose (log
	// when the values of d span a factor of 20 or more).
	DAxis string
}

// parsePlotQuery reads the plot options of q. An option given with a
// value it cannot take is a 400 naming the option, the value and what it
// may be; an absent (or empty) option keeps its default. What depends on
// the job (a component above a method's d, a metric it did not report,
// a label it does not have) is checked where the job is known.
func parsePlotQuery(q url.Values) (plotQuery, error) {
	p := plotQuery{Method: q.Get("method"), Colour: q.Get("colour"), Metric: q.Get("metric"), DAxis: q.Get("daxis")}
	if p.DAxis != "" && p.DAxis != "linear" && p.DAxis != "log" {
		return p, badRequest("daxis", "daxis must be linear or log, not %q", cut(p.DAxis, maxNameInError))
	}
	switch v := q.Get("log"); v {
	case "", "0":
	case "1":
		p.Log = true
	default:
		return p, badRequest("log", "log must be 1 (a logarithmic scale for spectra) or 0, not %q", cut(v, maxNameInError))
	}
	var err error
	if p.X, err = component(q, "x"); err != nil {
		return p, err
	}
	if p.Y, err = component(q, "y"); err != nil {
		return p, err
	}
	return p, nil
}

// component reads the projection axis name ("x" or "y"): a component
// number from 1, or 0 when absent.
func component(q url.Values, name string) (int, error) {
	s := q.Get(name)
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, badRequest(name, "%s must be a component number, a whole number from 1 to the method's d, not %q", name, cut(s, maxNameInError))
	}
	return n, nil
}

// components resolves the projection's components for a method keeping d
// of them: the ones asked for, else 1 and 2 (1 and 1 when d = 1).
func (p plotQuery) components(d int) (x, y int) {
	return cmp.Or(p.X, 1), cmp.Or(p.Y, min(2, d))
}

// checkComponents refuses components above a method's d, naming them.
func (p plotQuery) checkComponents(m jobs.MethodResult) error {
	d := m.Eigen.D
	for _, c := range []struct {
		name string
		v    int
	}{{"x", p.X}, {"y", p.Y}} {
		if c.v > d {
			return badRequest(c.name, "%s = %d is not a component of %s, which keeps d = %d; %s must be from 1 to %d",
				c.name, c.v, methodName(m.Method), d, c.name, d)
		}
	}
	return nil
}

// downloadFlag reads ?download=: 1 asks for an attachment, 0 or absent
// not.
func downloadFlag(q url.Values) (bool, error) {
	switch v := q.Get("download"); v {
	case "", "0":
		return false, nil
	case "1":
		return true, nil
	default:
		return false, badRequest("download", "download must be 1 (save the file) or 0, not %q", cut(v, maxNameInError))
	}
}

func (p plotQuery) values(name string) url.Values {
	v := url.Values{}
	switch name {
	case "spectrum":
		v.Set("method", p.Method)
		if p.Log {
			v.Set("log", "1")
		}
	case "projection":
		v.Set("method", p.Method)
		if p.X > 0 {
			v.Set("x", strconv.Itoa(p.X))
		}
		if p.Y > 0 {
			v.Set("y", strconv.Itoa(p.Y))
		}
		if p.Colour != "" {
			v.Set("colour", p.Colour)
		}
	case "curves":
		v.Set("metric", p.Metric)
		if p.DAxis != "" {
			v.Set("daxis", p.DAxis)
		}
	}
	return v
}

// figureView renders a figure for a page: inline SVG, its metadata for
// hover, links to its SVG and PNG. err is the error of building f: a
// figure the data do not allow (errNoFigure, a plots.InputError) becomes a
// note in its place; any other error is returned.
func figureView(id, base string, q url.Values, f *plots.Figure, alt string, err error) (*templates.FigureView, error) {
	var svg string
	var meta []byte
	if err == nil {
		svg, err = f.InlineSVG()
	}
	if err == nil {
		meta, err = json.Marshal(f.Meta())
	}
	if msg, ok := undrawable(err); ok {
		return &templates.FigureView{ID: id, Title: alt, Alt: alt, Note: msg}, nil
	}
	if err != nil {
		return nil, err
	}
	qs := ""
	if len(q) > 0 {
		qs = "?" + q.Encode()
	}
	return &templates.FigureView{ID: id, Title: alt, SVG: svg, Meta: string(meta), Alt: alt,
		SVGURL: base + ".svg" + qs, PNG: base + ".png" + qs}, nil
}

// noFigure is a figure the data do not allow; the plot API answers 422.
func noFigure(format string, args ...any) error {
	return &httpError{status: http.StatusUnprocessableEntity, msg: fmt.Sprintf(format, args...)}
}

// undrawable tells whether err says a figure cannot be drawn from these
// data, and why.
func undrawable(err error) (string, bool) {
	var he *httpError
	var ie *plots.InputError
	switch {
	case errors.As(err, &he) && he.status == http.StatusUnprocessableEntity:
		return sentence(he.msg) + ".", true
	case errors.As(err, &ie):
		return "This plot cannot be drawn from these results (" + ie.Error() + ").", true
	}
	return "", false
}

// baselineColour is the colour of the ori baseline, after the methods'.
const baselineColour = 7

// colourHex is a method's colour as CSS, from its place in the page's
// order of methods.
func colourHex(order []string, method string) string {
	r, g, b, _ := plots.SeriesColor(slices.Index(order, method)).RGBA()
	return fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, b>>8)
}

// thrOf is the energy threshold that chose a method's d: the one given, or
// the default when neither d nor thr was; 0 when d was given.
func thrOf(m jobs.MethodResult) float64 {
	p := m.Manifest.Params
	desc, _ := analysis.Lookup(m.Method)
	switch {
	case p.Thr != 0:
		return p.Thr
	case p.D == 0 && slices.Contains(desc.Takes, analysis.ParamThr):
		return analysis.DefaultThr
	}
	return 0
}

// spectrumFigure is a method's eigenvalue spectrum, its bars in the
// method's colour on the page (its place in order).
func spectrumFigure(m jobs.MethodResult, order []string, log bool, yMax float64) (*plots.Figure, string, error) {
	name := methodName(m.Method)
	if !slices.ContainsFunc(m.Eigen.Eigenvalues, func(v float64) bool { return v > 0 }) {
		return nil, "", noFigure("no spectrum: none of %s's eigenvalues is positive (its objective is indefinite), so they have no shares of a sum to show; its d is given, not chosen by energy", name)
	}
	f, err := plots.Spectrum(plots.SpectrumInput{Title: name + ": eigenvalue spectrum", Eigenvalues: m.Eigen.Eigenvalues,
		D: m.Eigen.D, Thr: thrOf(m), Log: log, MaxComponents: 60, YMax: yMax, Color: slices.Index(order, m.Method)})
	alt := fmt.Sprintf("Bars of the %d eigenvalues of %s as shares of their sum, with the cumulative share; d = %d keeps %.1f%%.",
		len(m.Eigen.Eigenvalues), name, m.Eigen.D, 100*m.Eigen.Energy)
	return f, alt, err
}

// datasets loads each data set, and each job's labels, once for the
// figures of one request.
type datasets struct {
	store  DatasetStore
	jobs   JobService
	loaded map[string]*dataset.Dataset
	runs   map[string]*jobs.RunLabels
}

func (h *handler) datasets() *datasets {
	return &datasets{store: h.store, jobs: h.jobs, loaded: map[string]*dataset.Dataset{}, runs: map[string]*jobs.RunLabels{}}
}

func (d *datasets) load(id string) (*dataset.Dataset, error) {
	if ds, ok := d.loaded[id]; ok {
		return ds, nil
	}
	ds, err := d.store.LoadDataset(id)
	if err != nil {
		return nil, err
	}
	d.loaded[id] = ds
	return ds, nil
}

// runLabels returns the labels job ran with, nil for results from before
// jobs kept them.
func (d *datasets) runLabels(job jobs.Job) (*jobs.RunLabels, error) {
	if l, ok := d.runs[job.ID]; ok {
		return l, nil
	}
	l, err := d.jobs.RunLabels(job.ID)
	if err != nil {
		return nil, err
	}
	d.runs[job.ID] = l
	return l, nil
}

// labelsOf returns, for every projected row, its labels (0/1 or class
// indices) as the job ran with them, and a data set that names them (its
// Kind, Labels and Categories; no rows). Results from before jobs kept
// their labels take them from the training or the test data set as it is
// now, unless its labels have changed since the job (mf is one of the
// job's manifests): then the figure is not drawn, and says why.
func (d *datasets) labelsOf(job jobs.Job, mf *jobs.Manifest, p *jobs.Projected) (*dataset.Dataset, [][]float64, error) {
	run, err := d.runLabels(job)
	if err != nil {
		return nil, nil, err
	}
	out := make([][]float64, len(p.Row))
	if run != nil {
		for i, r := range p.Row {
			if out[i] = run.Row(p.Split[i] == jobs.PartTest && run.TestRows > 0, r-1); out[i] == nil {
				return nil, nil, fmt.Errorf("job %s: projected row %d (%s) has no labels in %s", job.ID, r, p.Split[i], jobs.FileLabels)
			}
		}
		return &dataset.Dataset{Kind: run.Kind, Labels: run.Labels, Categories: run.Categories}, out, nil
	}
	if err := d.unchangedSince(job, mf); err != nil {
		return nil, nil, err
	}
	train, err := d.load(job.Request.Dataset)
	if err != nil {
		return nil, nil, err
	}
	var test *dataset.Dataset
	if job.Request.TestDataset != "" {
		if test, err = d.load(job.Request.TestDataset); err != nil {
			return nil, nil, err
		}
	}
	if !slices.Equal(train.Labels, mf.Labels) {
		return nil, nil, labelsChanged(job)
	}
	for i, r := range p.Row {
		src := train
		if p.Split[i] == jobs.PartTest && test != nil {
			src = test
		}
		if r < 1 || r > src.Rows() {
			return nil, nil, labelsChanged(job)
		}
		out[i] = src.Y.RawRowView(r - 1)
	}
	return train, out, nil
}

// unchangedSince refuses the data sets of a job whose results do not keep
// their labels when either was relabelled after the job started.
func (d *datasets) unchangedSince(job jobs.Job, mf *jobs.Manifest) error {
	if job.StartedAt == nil {
		return labelsChanged(job)
	}
	for _, id := range []string{job.Request.Dataset, job.Request.TestDataset} {
		if id == "" {
			continue
		}
		rec, err := d.store.Dataset(id)
		if err != nil {
			return err
		}
		if rec.UpdatedAt.After(*job.StartedAt) {
			return labelsChanged(job)
		}
	}
	return nil
}

func labelsChanged(job jobs.Job) error {
	return noFigure("no projection plot: the labels of data set %s changed after job %s ran, and its results are older than the record "+
		"of the labels a job ran with, so its points cannot be coloured by them; run the job again to see the plot", job.Request.Dataset, job.ID)
}

// colourOptions lists what may colour a projection's points.
func colourOptions(ds *dataset.Dataset) []templates.Option {
	var o []templates.Option
	// A select of every label would grow with q (a page of many MB at
	// 100 000 labels): it offers the first maxLabelOptions; any label
	// still colours the points by name (?colour=label:NAME).
	labels := ds.Labels[:min(len(ds.Labels), maxLabelOptions)]
	if ds.Kind == dataset.MultiDim {
		for _, l := range labels {
			o = append(o, templates.Option{Value: "class:" + l, Text: "class of " + l})
		}
		return append(o, templates.Option{Value: "set", Text: "combination of classes"})
	}
	o = append(o, templates.Option{Value: "count", Text: "number of labels"}, templates.Option{Value: "set", Text: "label set"})
	for _, l := range labels {
		o = append(o, templates.Option{Value: "label:" + l, Text: "label " + l})
	}
	return o
}

// maxGroups is how many groups get their own colour; the rest are grey.
const maxGroups = 7

// groups assigns every row a colour group and names the groups.
func groups(ds *dataset.Dataset, y [][]float64, colour string) (group []int, legend []string, sequential bool, err error) {
	group = make([]int, len(y))
	switch {
	case colour == "count" && ds.Kind == dataset.MultiLabel:
		top := 0 // the most labels a row has, so that the palette spans what is there
		for i, row := range y {
			n := 0
			for _, v := range row {
				n += int(v)
			}
			group[i] = min(n, maxGroups-1)
			top = max(top, group[i])
		}
		for n := range top + 1 {
			switch {
			case n == maxGroups-1:
				legend = append(legend, fmt.Sprintf("%d or more labels", n))
			case n == 1:
				legend = append(legend, "1 label")
			default:
				legend = append(legend, fmt.Sprintf("%d labels", n))
			}
		}
		return group, legend, true, nil
	case strings.HasPrefix(colour, "label:") && ds.Kind == dataset.MultiLabel:
		j := slices.Index(ds.Labels, strings.TrimPrefix(colour, "label:"))
		if j < 0 {
			return nil, nil, false, badRequest("colour", "colour %q names no label of this job; its labels are %s", cut(colour, maxNameInError), nameList(ds.Labels))
		}
		for i, row := range y {
			group[i] = int(row[j])
		}
		return group, []string{"without " + ds.Labels[j], "with " + ds.Labels[j]}, false, nil
	case strings.HasPrefix(colour, "class:") && ds.Kind == dataset.MultiDim:
		j := slices.Index(ds.Labels, strings.TrimPrefix(colour, "class:"))
		if j < 0 {
			return nil, nil, false, badRequest("colour", "colour %q names no class variable of this job; its class variables are %s", cut(colour, maxNameInError), nameList(ds.Labels))
		}
		keys := make([]string, len(y))
		for i, row := range y {
			keys[i] = ds.Labels[j] + " = " + ds.Categories[j][int(row[j])]
		}
		group, legend = topGroups(keys, "other classes")
		return group, legend, false, nil
	case colour == "set":
		keys := make([]string, len(y))
		for i, row := range y {
			var names []string
			for j, v := range row {
				switch {
				case ds.Kind == dataset.MultiDim:
					names = append(names, ds.Categories[j][int(v)])
				case v != 0:
					names = append(names, ds.Labels[j])
				}
			}
			keys[i] = "{" + strings.Join(names, ", ") + "}"
			if keys[i] == "{}" {
				keys[i] = "no label"
			}
		}
		group, legend = topGroups(keys, "other sets")
		return group, legend, false, nil
	}
	if ds.Kind == dataset.MultiDim {
		return nil, nil, false, badRequest("colour", "colour must be set or class:NAME (NAME a class variable) for this job's multi-dimensional data, not %q", cut(colour, maxNameInError))
	}
	return nil, nil, false, badRequest("colour", "colour must be count, set or label:NAME (NAME a label) for this job's multi-label data, not %q", cut(colour, maxNameInError))
}

// maxNamesInError is how many names an error lists before "…".
const maxNamesInError = 10

// nameList is names quoted and joined, the first maxNamesInError of them,
// then how many more.
func nameList(names []string) string {
	var b strings.Builder
	for i, n := range names[:min(len(names), maxNamesInError)] {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(cut(n, maxNameInError)))
	}
	if more := len(names) - maxNamesInError; more > 0 {
		fmt.Fprintf(&b, " and %s more", plots.GroupDigits(more))
	}
	return b.String()
}

// topGroups gives the most frequent keys a group each (at most
// maxGroups), in frequency order; the rest get −1 (grey), named other.
func topGroups(keys []string, other string) ([]int, []string) {
	count := map[string]int{}
	for _, k := range keys {
		count[k]++
	}
	uniq := make([]string, 0, len(count))
	for k := range count {
		uniq = append(uniq, k)
	}
	slices.SortFunc(uniq, func(a, b string) int { return cmp.Or(cmp.Compare(count[b], count[a]), cmp.Compare(a, b)) })
	limit := maxGroups
	if len(uniq) > maxGroups {
		limit = maxGroups - 1 // leave room for "other" in the legend
	}
	idx := map[string]int{}
	var legend []string
	for i, k := range uniq[:min(limit, len(uniq))] {
		idx[k] = i
		legend = append(legend, fmt.Sprintf("%s (%d)", k, count[k]))
	}
	group := make([]int, len(keys))
	for i, k := range keys {
		g, ok := idx[k]
		if !ok {
			g = -1
		}
		group[i] = g
	}
	if len(uniq) > limit {
		legend = append(legend, other)
	}
	return group, legend
}

// projectionFigure plots a method's projected rows on two components:
// q's, by default 1 and 2; a component above the method's d is a 400.
func (h *handler) projectionFigure(res *jobs.Results, m jobs.MethodResult, q plotQuery, data *datasets, xr, yr *[2]float64) (*plots.Figure, string, []templates.Option, error) {
	d := m.Eigen.D
	if err := q.checkComponents(m); err != nil {
		return nil, "", nil, err
	}
	q.X, q.Y = q.components(d)
	p, err := h.jobs.Projected(res.Job.ID, m.Method, q.X-1, q.Y-1)
	if err != nil {
		return nil, "", nil, err
	}
	ds, y, err := data.labelsOf(res.Job, m.Manifest, p)
	if err != nil {
		return nil, "", nil, err
	}
	opts := colourOptions(ds)
	if q.Colour == "" {
		q.Colour = opts[0].Value
	}
	group, legend, seq, err := groups(ds, y, q.Colour)
	if err != nil {
		return nil, "", nil, err
	}
	in := plots.ProjectionInput{Group: group, Legend: legend, Sequential: seq, XRange: xr, YRange: yr}
	what := "rows"
	if m.Manifest.Space == analysis.LabelSpace {
		what = "label codes"
	}
	in.Title = fmt.Sprintf("%s: %s on components %d and %d", methodName(m.Method), what, q.X, q.Y)
	in.XLabel, in.YLabel = fmt.Sprintf("component %d", q.X), fmt.Sprintf("component %d", q.Y)
	for i := range p.Row {
		in.X = append(in.X, p.Coords[i][0])
		if d == 1 {
			in.Y = append(in.Y, 0)
		} else {
			in.Y = append(in.Y, p.Coords[i][1])
		}
		in.Test = append(in.Test, p.Split[i] == "test")
		in.Hover = append(in.Hover, fmt.Sprintf("row %d (%s)", p.Row[i], p.Split[i]))
	}
	f, err := plots.Projection(in)
	alt := fmt.Sprintf("Scatter plot of %d %s of %s on components %d and %d, coloured by %s.", len(p.Row), what, methodName(m.Method), q.X, q.Y, optionText(opts, q.Colour))
	return f, alt, opts, err
}

func optionText(opts []templates.Option, v string) string {
	for _, o := range opts {
		if o.Value == v {
			return o.Text
		}
	}
	return v
}

// metricOrder lists the metrics in the order the pages offer them.
var metricOrder = []string{evaluate.HammingLoss, evaluate.RankingLoss, evaluate.OneError, evaluate.Coverage, evaluate.AveragePrecision,
	evaluate.SubsetAccuracy, evaluate.ExampleAccuracy, evaluate.ExampleF1, evaluate.MicroF1, evaluate.MacroF1,
	evaluate.HammingScore, evaluate.ExactMatch, evaluate.SubExactMatch, evaluate.EncodingError, evaluate.PredictionError, evaluate.LossBound}

// metricOptions lists the metrics a run reported.
func metricOptions(mf *jobs.MetricsFile) []templates.Option {
	present := map[string]bool{}
	for _, r := range mf.Rows {
		for k := range r.Metrics {
			present[k] = true
		}
	}
	var o []templates.Option
	for _, k := range metricOrder {
		if present[k] {
			o = append(o, templates.Option{Value: k, Text: strings.ReplaceAll(k, "_", " ")})
		}
	}
	return o
}

// checkMetric refuses a metric that is not among a job's, opts (from
// metricOptions), naming the ones it has.
func checkMetric(opts []templates.Option, metric string) error {
	if slices.ContainsFunc(opts, func(o templates.Option) bool { return o.Value == metric }) {
		return nil
	}
	names := make([]string, len(opts))
	for i, o := range opts {
		names[i] = o.Value
	}
	return badRequest("metric", "metric %q is not one of this job's metrics; they are %s", cut(metric, maxNameInError), strings.Join(names, ", "))
}

// meanRows groups a run's mean rows by method: the methods in the job's
// order, the ori baseline last.
func meanRows(res *jobs.Results) (methods []string, rows map[string][]evaluate.Row) {
	rows = map[string][]evaluate.Row{}
	for _, r := range res.Metrics.Rows {
		if r.Fold == nil {
			rows[r.Method] = append(rows[r.Method], r)
		}
	}
	for _, m := range append(res.Job.Request.MethodIDs(), evaluate.Ori) {
		if len(rows[m]) > 0 {
			methods = append(methods, m)
		}
	}
	return methods, rows
}

// curvesFigure is a metric against d, one line per method, ori dashed.
// order gives each method its colour: the method's place in it, the same
// in every plot of a page. daxis is "linear" or "log" (see dAxis).
func curvesFigure(res *jobs.Results, metric string, order []string, daxis string, yr *[2]float64) (*plots.Figure, string, error) {
	methods, rows := meanRows(res)
	in := plots.CurvesInput{Title: strings.ReplaceAll(metric, "_", " ") + " against d", YLabel: strings.ReplaceAll(metric, "_", " "),
		XLabel: "d (dimension kept)", YRange: yr, XLog: daxis == "log"}
	bestName, bestD, best := "", 0, math.NaN()
	lower := evaluate.LowerIsBetter(metric)
	for _, m := range methods {
		s := plots.Series{Name: methodName(m), Color: slices.Index(order, m)}
		if m == evaluate.Ori {
			s.Baseline, s.Color, s.Name = true, baselineColour, "ori (no reduction)"
		}
		for _, r := range rows[m] {
			v, ok := r.Metrics[metric]
			if !ok || math.IsNaN(v) { // undefined on every fold: no point
				continue
			}
			s.X = append(s.X, float64(r.D))
			s.Y = append(s.Y, v)
			if r.Std != nil {
				s.Err = append(s.Err, zeroNaN(r.Std[metric]))
			}
			if m != evaluate.Ori && (math.IsNaN(best) || (lower && v < best) || (!lower && v > best)) {
				bestName, bestD, best = methodName(m), r.D, v
			}
		}
		if len(s.Err) != len(s.Y) {
			s.Err = nil
		}
		if len(s.X) > 0 {
			in.Series = append(in.Series, s)
		}
	}
	if len(in.Series) == 0 {
		return nil, "", noFigure("no curves: %s was not reported, or is undefined, for every method and d of job %s", strings.ReplaceAll(metric, "_", " "), res.Job.ID)
	}
	f, err := plots.Curves(in)
	better := "higher"
	if lower {
		better = "lower"
	}
	alt := fmt.Sprintf("Line chart of %s against d for %d methods, with the baseline without reduction dashed; %s is better.",
		strings.ReplaceAll(metric, "_", " "), methodSeries(in.Series), better)
	if bestName != "" {
		alt += fmt.Sprintf(" Best: %s at d = %d (%.4g).", bestName, bestD, best)
	}
	return f, alt, err
}

// methodSeries counts the series that are methods, not the baseline.
func methodSeries(series []plots.Series) int {
	n := 0
	for _, s := range series {
		if !s.Baseline {
			n++
		}
	}
	return n
}

// zeroNaN is v, or 0 for NaN (an undefined deviation draws no error bar).
func zeroNaN(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}

// dAxis resolves the curves' d axis: the one asked for, else "log" when
// the values of d of the jobs span a factor of 20 or more (label-space
// methods at d ≤ q beside feature methods at d up to D), else "linear".
func dAxis(asked string, all ...*jobs.Results) string {
	if asked != "" {
		return asked
	}
	lo, hi := math.Inf(1), 0.0
	for _, res := range all {
		if res.Metrics == nil {
			continue
		}
		for _, r := range res.Metrics.Rows {
			if r.Method != evaluate.Ori && r.D > 0 {
				lo, hi = min(lo, float64(r.D)), max(hi, float64(r.D))
			}
		}
	}
	if hi >= 20*lo {
		return "log"
	}
	return "linear"
}

// metricsTableView is the numbers behind the curves.
func metricsTableView(res *jobs.Results, metric string) *templates.MetricsTable {
	methods, rows := meanRows(res)
	t := &templates.MetricsTable{Metric: strings.ReplaceAll(metric, "_", " "), Best: "higher"}
	if evaluate.LowerIsBetter(metric) {
		t.Best = "lower"
	}
	var ds []int
	cell := map[string]map[int]string{}
	for _, m := range methods {
		t.Columns = append(t.Columns, methodName(m))
		cell[m] = map[int]string{}
		for _, r := range rows[m] {
			v, ok := r.Metrics[metric]
			if !ok {
				continue
			}
			s := strconv.FormatFloat(v, 'f', 4, 64)
			if math.IsNaN(v) {
				s = "undefined"
			} else if sd := r.Std[metric]; r.Std != nil && !math.IsNaN(sd) {
				s += " ± " + strconv.FormatFloat(sd, 'f', 4, 64)
			}
			d := r.D
			if m == evaluate.Ori {
				d = 0 // one row for the baseline
			}
			cell[m][d] = s
			if !slices.Contains(ds, d) {
				ds = append(ds, d)
			}
		}
	}
	slices.Sort(ds)
	for _, d := range ds {
		row := templates.MetricsRow{D: d}
		for _, m := range methods {
			c, ok := cell[m][d]
			if m == evaluate.Ori {
				c, ok = cell[m][0], true
			}
			if !ok {
				c = "—"
			}
			row.Cells = append(row.Cells, c)
		}
		if d > 0 {
			t.Rows = append(t.Rows, row)
		}
	}
	return t
}

func methodName(id string) string {
	if id == evaluate.Ori {
		return "ori"
	}
	if m, ok := analysis.Lookup(id); ok {
		return m.Name
	}
	return id
}
