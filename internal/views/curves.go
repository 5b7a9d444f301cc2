package views

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"mldr/internal/evaluate"
	"mldr/internal/jobs"
	"mldr/internal/plots"
	"mldr/web/templates"
)

// metricOrder lists the metrics in the order the pages offer them: the
// multi-label ones, then those of extreme classification
// (evaluate.XCMetricKeys), the multi-dimensional ones and the label-space
// methods' errors.
var metricOrder = slices.Concat([]string{evaluate.HammingLoss, evaluate.RankingLoss, evaluate.OneError, evaluate.Coverage, evaluate.AveragePrecision,
	evaluate.SubsetAccuracy, evaluate.ExampleAccuracy, evaluate.ExampleF1, evaluate.ExamplePrecision, evaluate.ExampleRecall, evaluate.MicroF1, evaluate.MacroF1},
	evaluate.XCMetricKeys,
	[]string{evaluate.HammingScore, evaluate.ExactMatch, evaluate.SubExactMatch, evaluate.EncodingError, evaluate.PredictionError, evaluate.LossBound})

// MetricOptions lists the metrics a run reported, in the pages' order.
func MetricOptions(mf *jobs.MetricsFile) []templates.Option {
	present := map[string]bool{}
	for _, r := range mf.Rows {
		for k := range r.Metrics {
			present[k] = true
		}
	}
	var o []templates.Option
	for _, k := range metricOrder {
		if present[k] {
			o = append(o, templates.Option{Value: k, Text: metricText(k)})
		}
	}
	return o
}

// manyLabels is the number of labels from which a job's pages open on
// precision at 1 (DefaultMetric).
const manyLabels = 100

// DefaultMetric is the metric a job's page and its curves show when none
// is asked for: precision at 1 on data with manyLabels labels or more,
// when the run reported it (with thousands of labels, Hamming loss tells
// methods apart only in its fourth decimal, and the extreme
// classification literature reports P@k), else the first of opts, the
// run's metrics in the pages' order; "" when opts is empty.
func DefaultMetric(res *jobs.Results, opts []templates.Option) string {
	if len(opts) == 0 {
		return ""
	}
	labels := 0
	for _, m := range res.Methods {
		if m.Manifest != nil {
			labels = max(labels, len(m.Manifest.Labels))
		}
	}
	if labels >= manyLabels && slices.ContainsFunc(opts, func(o templates.Option) bool { return o.Value == evaluate.PrecisionAt1 }) {
		return evaluate.PrecisionAt1
	}
	return opts[0].Value
}

// CheckMetric refuses a metric that is not among a job's, opts (from
// MetricOptions), naming the ones it has: *BadOption of "metric".
func CheckMetric(opts []templates.Option, metric string) error {
	if slices.ContainsFunc(opts, func(o templates.Option) bool { return o.Value == metric }) {
		return nil
	}
	names := make([]string, len(opts))
	for i, o := range opts {
		names[i] = o.Value
	}
	return badOption("metric", "metric %q is not one of this job's metrics; they are %s", cut(metric, maxNameInError), strings.Join(names, ", "))
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

// OneD reports whether res was evaluated at a single d for every method
// (its curves are then a dot plot, see Curves, and the d axis has no use).
func OneD(res *jobs.Results) bool {
	if res.Metrics == nil {
		return false
	}
	methods, rows := meanRows(res)
	one := false
	for _, m := range methods {
		if m == evaluate.Ori {
			continue
		}
		if len(rows[m]) != 1 {
			return false
		}
		one = true
	}
	return one
}

// Curves is a metric against d, one line per method, ori dashed, and its
// text alternative. order gives each method its colour: the method's
// place in it, the same in every plot of a page. daxis is "linear" or
// "log" (see DAxis); yr, when not nil, is the y range (shared by the
// curves of several jobs). A metric no method has a value of is
// *Undrawable.
func Curves(res *jobs.Results, metric string, order []string, daxis string, yr *[2]float64) (*plots.Figure, string, error) {
	methods, rows := meanRows(res)
	in := plots.CurvesInput{Title: metricText(metric) + " against d", YLabel: metricText(metric),
		XLabel: "d (dimension kept)", YRange: yr, XLog: daxis == "log"}
	bestName, bestD, best := "", 0, math.NaN()
	lower := evaluate.LowerIsBetter(metric)
	for _, m := range methods {
		s := plots.Series{Name: EvaluatedName(m), Color: slices.Index(order, m)}
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
				bestName, bestD, best = EvaluatedName(m), r.D, v
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
		return nil, "", undrawable("no curves: %s was not reported, or is undefined, for every method and d of job %s", metricText(metric), res.Job.ID)
	}
	if ds := singleD(in.Series); ds != nil {
		return oneD(in, ds, metric, lower, bestName, bestD, best)
	}
	f, err := plots.Curves(in)
	better := "higher"
	if lower {
		better = "lower"
	}
	alt := fmt.Sprintf("Line chart of %s against d for %d methods, with the baseline without reduction dashed; %s is better.",
		metricText(metric), methodSeries(in.Series), better)
	if bestName != "" {
		alt += fmt.Sprintf(" Best: %s at d = %d (%.4g).", bestName, bestD, best)
	}
	return f, alt, err
}

// singleD is the d of each method's series when every one has a single
// point (an evaluation at one d), else nil.
func singleD(series []plots.Series) []int {
	var ds []int
	for _, s := range series {
		if s.Baseline {
			continue
		}
		if len(s.X) != 1 {
			return nil
		}
		ds = append(ds, int(s.X[0]))
	}
	return ds
}

// oneD draws the curves of an evaluation at one d as a dot plot
// (plots.Dots): a curve of one point would be a lone error bar. The title
// says the d, "d = 6 for every method", or, when the methods were
// evaluated at different single d, that each has its own, and the rows
// then name it.
func oneD(in plots.CurvesInput, ds []int, metric string, lower bool, bestName string, bestD int, best float64) (*plots.Figure, string, error) {
	same := !slices.ContainsFunc(ds, func(d int) bool { return d != ds[0] })
	what := fmt.Sprintf("d = %d for every method", ds[0])
	if !same {
		what = "each method at its own d"
		k := 0
		for i := range in.Series {
			if !in.Series[i].Baseline {
				in.Series[i].Name += fmt.Sprintf(" (d = %d)", ds[k])
				k++
			}
		}
	}
	in.Title = metricText(metric) + ", " + what
	f, err := plots.Dots(in)
	better := "higher"
	if lower {
		better = "lower"
	}
	alt := fmt.Sprintf("Dot plot of %s, %s, for %d methods with their standard deviations, the baseline without reduction dashed; %s is better.",
		metricText(metric), what, methodSeries(in.Series), better)
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

// DAxis resolves the curves' d axis: the one asked for, else "log" when
// the values of d of the jobs span a factor of 20 or more (label-space
// methods at d ≤ q beside feature methods at d up to D), else "linear".
func DAxis(asked string, all ...*jobs.Results) string {
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
