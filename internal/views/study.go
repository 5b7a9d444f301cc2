package views

import (
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"mldr/internal/comparison"
	"mldr/internal/jobs"
	"mldr/web/templates"
)

// StudyOptions choose what a study's page and plots show: a comparison
// (metric and d-choice), the α of the critical difference, and the data
// set whose curves are shown. The handlers read them from the query.
type StudyOptions struct {
	Metric string
	// D and Percent choose the comparison at d = D or at Percent % (both
	// empty: each method at its own d).
	D, Percent string
	Alpha      string
	Dataset    string
}

// choiceKey names a comparison's d-choice as the query gives it.
func choiceKey(c comparison.Comparison) (d, percent string) {
	if c.D != nil {
		return strconv.Itoa(*c.D), ""
	}
	if c.Percent != nil {
		return "", strconv.FormatFloat(*c.Percent, 'g', -1, 64)
	}
	return "", ""
}

// choiceText says a d-choice in words.
func choiceText(c comparison.Comparison) string {
	switch {
	case c.D != nil:
		return fmt.Sprintf("d = %d", *c.D)
	case c.Percent != nil && c.PercentOf == "rank":
		return fmt.Sprintf("d = %s %% of each method's rank", strconv.FormatFloat(*c.Percent, 'g', -1, 64))
	case c.Percent != nil:
		return fmt.Sprintf("d = %s %% of the features", strconv.FormatFloat(*c.Percent, 'g', -1, 64))
	case c.CommonD != nil:
		return fmt.Sprintf("d = %d for every method", *c.CommonD)
	}
	return "each method at its own d"
}

// PickComparison finds the comparison the query asks for; an empty metric
// or choice means the first there is. A metric or choice the study does
// not have is a *BadOption that lists those it has; a study that compared
// nothing, *Undrawable.
func PickComparison(f *comparison.File, q StudyOptions) (*comparison.Comparison, error) {
	if len(f.Comparisons) == 0 {
		return nil, undrawable("this study compared nothing: no method has a score on its data sets")
	}
	var metrics []string
	for _, c := range f.Comparisons {
		if !slices.Contains(metrics, c.Metric) {
			metrics = append(metrics, c.Metric)
		}
	}
	metric := q.Metric
	if metric == "" {
		metric = defaultStudyMetric(metrics)
	}
	if !slices.Contains(metrics, metric) {
		return nil, badOption("metric", "this study has no metric %q; its metrics are %s", metric, strings.Join(metrics, ", "))
	}
	var choices []string
	for i := range f.Comparisons {
		c := &f.Comparisons[i]
		if c.Metric != metric {
			continue
		}
		d, p := choiceKey(*c)
		if (q.D == "" && q.Percent == "") || (q.D == d && q.Percent == p) {
			return c, nil
		}
		choices = append(choices, choiceText(*c))
	}
	return nil, badOption("d", "this study has no comparison at d=%q percent=%q; it has %s", q.D, q.Percent, strings.Join(choices, "; "))
}

// defaultStudyMetric is the metric a study shows first: the first of the
// pages' usual order it has.
func defaultStudyMetric(metrics []string) string {
	for _, m := range metricOrder {
		if slices.Contains(metrics, m) {
			return m
		}
	}
	return metrics[0]
}

// StudyRows are the metrics of a study's data set: its rows of
// metrics.json, as the curves and tables of a job on it would show them.
func StudyRows(res *jobs.Results, dataset string) *jobs.Results {
	one := *res
	mf := *res.Metrics
	mf.Rows = nil
	for _, r := range res.Metrics.Rows {
		if r.Dataset == dataset {
			mf.Rows = append(mf.Rows, r)
		}
	}
	one.Metrics = &mf
	return &one
}

// StudyDataset picks the data set whose curves a study's page shows: the
// query's, or the first. One not in the study is a
// *BadOption listing them.
func StudyDataset(res *jobs.Results, q StudyOptions) (string, error) {
	ids := res.Job.Request.Datasets
	if q.Dataset == "" {
		return ids[0], nil
	}
	if !slices.Contains(ids, q.Dataset) {
		return "", badOption("dataset", "this study did not run on data set %q; its data sets are %s", q.Dataset, strings.Join(ids, ", "))
	}
	return q.Dataset, nil
}

// Study builds a study's comparison section.
func Study(id string, f *comparison.File, q StudyOptions) (*templates.StudyView, error) {
	c, err := PickComparison(f, q)
	if err != nil {
		return nil, err
	}
	v := &templates.StudyView{Metric: c.Metric, Alpha: q.Alpha, Better: c.Better, Choice: choiceText(*c), Notes: c.Notes}
	v.D, v.Percent = choiceKey(*c)
	for _, o := range f.Comparisons {
		if !slices.ContainsFunc(v.MetricOptions, func(x templates.Option) bool { return x.Value == o.Metric }) {
			v.MetricOptions = append(v.MetricOptions, templates.Option{Value: o.Metric, Text: metricText(o.Metric)})
		}
		if o.Metric == c.Metric {
			d, p := choiceKey(o)
			v.ChoiceOptions = append(v.ChoiceOptions, templates.StudyChoice{D: d, Percent: p, Text: choiceText(o), Selected: d == v.D && p == v.Percent})
		}
	}
	v.Summary = studySummary(*c, q.Alpha)
	v.RankCaveats, v.WilcoxonCaveat = c.RankCaveats(), c.WilcoxonCaveat()
	v.Table = studyTable(*c)
	v.Pairs = studyPairs(*c)
	for _, pt := range c.PairedT {
		v.PairedT = append(v.PairedT, studyPairedT(*c, pt))
	}
	query := url.Values{"metric": {c.Metric}, "alpha": {q.Alpha}}
	if v.D != "" {
		query.Set("d", v.D)
	}
	if v.Percent != "" {
		query.Set("percent", v.Percent)
	}
	base := "/api/jobs/" + id + "/plots/"
	fig, alt, err := CD(*c, q.Alpha)
	if v.CD, err = Figure("cd", base+"cd", query, fig, alt, err); err != nil {
		return nil, err
	}
	delete(query, "alpha")
	fig, alt, err = Ranks(*c)
	if v.Ranks, err = Figure("ranks", base+"ranks", query, fig, alt, err); err != nil {
		return nil, err
	}
	for _, file := range jobs.StudyFiles {
		v.Downloads = append(v.Downloads, templates.Download{Name: file, URL: "/api/jobs/" + id + "/" + file, Description: studyFileText[file]})
	}
	// The tables for papers at this d-choice.
	at := url.Values{}
	if v.D != "" {
		at.Set("d", v.D)
	}
	if v.Percent != "" {
		at.Set("percent", v.Percent)
	}
	for _, file := range StudyTableFiles {
		u := "/api/jobs/" + id + "/" + file
		if len(at) > 0 {
			u += "?" + at.Encode()
		}
		v.Downloads = append(v.Downloads, templates.Download{Name: file, URL: u, Description: studyFileText[file]})
	}
	return v, nil
}

// studyFileText describes a study's result files.
var studyFileText = map[string]string{
	jobs.FileMetrics:       "every metric of every data set, method, d and fold",
	jobs.FileComparison:    "ranks, Friedman, Iman–Davenport, Nemenyi, Wilcoxon with Holm, paired t-tests, for every metric and d",
	jobs.FileComparisonCSV: "the tables of mean and standard deviation, with the average ranks",
	FileStudyTeX:           "the table for a paper at this d, to \\input: five metrics as columns (?metrics=a,b chooses them), best in bold, second underlined, average ranks, Friedman and Nemenyi, booktabs rules",
	FileStudyStandalone:    "the same table as a document pdflatex compiles on its own",
	FileStudyMarkdown:      "the same table in GitHub Markdown",
}

// formatP writes a p-value for a page.
func formatP(p *float64) string {
	switch {
	case p == nil:
		return "—"
	case *p < 0.001:
		return "< 0.001"
	}
	return strconv.FormatFloat(*p, 'f', 3, 64)
}

// studySummary says in a sentence what the omnibus tests found.
func studySummary(c comparison.Comparison, alpha string) string {
	k := 0
	for _, r := range c.AverageRanks {
		if r != nil {
			k++
		}
	}
	if c.Friedman == nil {
		return fmt.Sprintf("No Friedman test: it needs at least 2 methods ranked on at least 2 data sets (%d methods on %d data sets here).", k, c.RankedDatasets)
	}
	a, _ := strconv.ParseFloat(alpha, 64)
	verdict := "the methods do not differ significantly"
	if c.Friedman.P < a {
		verdict = "the methods differ significantly"
	}
	s := fmt.Sprintf("Friedman χ²F = %.3g (p = %s)", c.Friedman.Chi2, formatP(&c.Friedman.P))
	if id := c.ImanDavenport; id != nil {
		f := "∞"
		if id.F != nil {
			f = fmt.Sprintf("%.3g", *id.F)
		}
		s += fmt.Sprintf(", Iman–Davenport F = %s (p = %s)", f, formatP(&id.P))
	}
	s += fmt.Sprintf(" over N = %d data sets and k = %d methods: at α = %s %s.", c.RankedDatasets, k, alpha, verdict)
	if cd, ok := c.NemenyiCD[alpha]; ok && !math.IsNaN(cd) {
		s += fmt.Sprintf(" Nemenyi's critical difference is %.3f: two methods whose average ranks differ by more are significantly different.", cd)
	}
	return s
}

// studyTable is the data sets × methods table of means ± std, the best of
// each row marked, and the average ranks last.
func studyTable(c comparison.Comparison) templates.StudyTable {
	t := templates.StudyTable{Methods: evaluatedNames(c.Methods), Caption: fmt.Sprintf("%s (%s is better), %s: the mean over the folds (± the standard deviation, with several folds); the best of each data set in bold, the average rank (1 = best) last",
		metricText(c.Metric), c.Better, choiceText(c))}
	lower := c.Better == "lower"
	better := func(a, b float64) bool {
		if lower {
			return a < b
		}
		return a > b
	}
	for i, name := range c.DatasetNames {
		row := templates.StudyRow{Dataset: name, DatasetID: c.Datasets[i]}
		best := math.NaN()
		for _, s := range c.Scores[i] {
			if s != nil && (math.IsNaN(best) || better(*s, best)) {
				best = *s
			}
		}
		for j, s := range c.Scores[i] {
			cell := templates.StudyCell{Text: "—"}
			if s != nil {
				cell.Text = strconv.FormatFloat(*s, 'f', 4, 64)
				if sd := c.Std[i][j]; sd != nil {
					cell.Std = "± " + strconv.FormatFloat(*sd, 'f', 4, 64)
				}
				cell.Best = *s == best || math.Abs(*s-best) <= 1e-12*math.Abs(best)
			}
			row.Cells = append(row.Cells, cell)
		}
		t.Rows = append(t.Rows, row)
	}
	bestRank := math.Inf(1)
	for _, m := range c.Methods {
		if r := c.AverageRanks[m]; r != nil {
			bestRank = min(bestRank, *r)
		}
	}
	for _, m := range c.Methods {
		cell := templates.StudyCell{Text: "—"}
		if r := c.AverageRanks[m]; r != nil {
			cell = templates.StudyCell{Text: strconv.FormatFloat(*r, 'f', 2, 64), Best: *r == bestRank}
		}
		t.Ranks = append(t.Ranks, cell)
	}
	return t
}

// studyPairs are the pairwise comparisons over the data sets, the most
// significant first.
func studyPairs(c comparison.Comparison) []templates.StudyPair {
	var out []templates.StudyPair
	for _, p := range c.Pairs {
		out = append(out, templates.StudyPair{A: EvaluatedName(p.A), B: EvaluatedName(p.B), Wins: p.Wins, Ties: p.Ties, Losses: p.Losses, Datasets: p.Datasets,
			Wilcoxon: formatP(p.WilcoxonP), Holm: formatP(p.HolmP), Significant: p.HolmP != nil && *p.HolmP < 0.05})
	}
	return out
}

func studyPairedT(c comparison.Comparison, pt comparison.DatasetPairedT) templates.StudyPairedT {
	v := templates.StudyPairedT{Dataset: pt.Dataset, Folds: pt.Folds}
	if i := slices.Index(c.Datasets, pt.Dataset); i >= 0 {
		v.Dataset = c.DatasetNames[i]
	}
	for _, p := range pt.Pairs {
		t := "—"
		switch {
		case p.T != nil:
			t = fmt.Sprintf("%.3g", *p.T)
		case p.P != nil:
			t = "∞"
		}
		v.Pairs = append(v.Pairs, templates.StudyTPair{A: EvaluatedName(p.A), B: EvaluatedName(p.B), T: t, P: formatP(p.P), Significant: p.P != nil && *p.P < 0.05})
	}
	return v
}
