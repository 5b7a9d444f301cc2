package views

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"mldr/internal/analysis"
	"mldr/internal/comparison"
	"mldr/internal/evaluate"
	"mldr/internal/jobs"
)

// A study's tables for papers, written on request from its
// comparison.json and request (StudyTable), beside its result files.
const (
	// FileStudyTeX is the LaTeX fragment (comparison.WriteTeX).
	FileStudyTeX = jobs.FileComparisonTeX
	// FileStudyStandalone is the same table as a document of its own
	// (comparison.WriteStandaloneTeX).
	FileStudyStandalone = "comparison-standalone.tex"
	// FileStudyMarkdown is the same table in GitHub-flavoured Markdown
	// (comparison.WriteMarkdown).
	FileStudyMarkdown = "comparison.md"
)

// StudyTableFiles lists the tables StudyTable writes.
var StudyTableFiles = []string{FileStudyTeX, FileStudyStandalone, FileStudyMarkdown}

// DefaultTableMetrics is how many metrics a table for papers shows when
// the query names none: the first of the pages' order the study has.
const DefaultTableMetrics = 5

// StudyTableOptions choose a table for papers: its metrics (columns, in
// order; none: DefaultTableMetrics of them) and its d-choice (as
// StudyOptions' D and Percent; both empty: the first the study has).
type StudyTableOptions struct {
	Metrics    []string
	D, Percent string
}

// studyTableWriters writes each of StudyTableFiles.
var studyTableWriters = map[string]func(io.Writer, *comparison.Table) error{
	FileStudyTeX: comparison.WriteTeX, FileStudyStandalone: comparison.WriteStandaloneTeX, FileStudyMarkdown: comparison.WriteMarkdown,
}

// WriteStudyTable writes table t as file, one of StudyTableFiles (a
// LaTeX fragment, a standalone document or Markdown).
func WriteStudyTable(w io.Writer, file string, t *comparison.Table) error {
	write := studyTableWriters[file]
	if write == nil {
		return fmt.Errorf("a study has no table %q", file)
	}
	return write(w, t)
}

// StudyPaperTable builds the table for papers of study id (its request
// req and comparisons f) as o chooses.
func StudyPaperTable(id string, req jobs.Request, f *comparison.File, o StudyTableOptions) (*comparison.Table, error) {
	metrics := o.Metrics
	if len(metrics) == 0 {
		var have []string
		for _, c := range f.Comparisons {
			if !slices.Contains(have, c.Metric) {
				have = append(have, c.Metric)
			}
		}
		for _, m := range metricOrder {
			if slices.Contains(have, m) && len(metrics) < DefaultTableMetrics {
				metrics = append(metrics, m)
			}
		}
		if len(metrics) == 0 && len(have) > 0 {
			metrics = have[:1]
		}
	}
	var cs []comparison.Comparison
	for i, m := range metrics {
		if slices.Contains(metrics[:i], m) {
			return nil, badOption("metrics", "metric %q is listed twice", CutName(m))
		}
		c, err := PickComparison(f, StudyOptions{Metric: m, D: o.D, Percent: o.Percent})
		var bo *BadOption
		if errors.As(err, &bo) && bo.Field == "metric" {
			bo.Field = "metrics" // the table's parameter
		}
		if err != nil {
			return nil, err
		}
		cs = append(cs, *c)
	}
	if len(cs) == 0 {
		return nil, undrawable("this study compared nothing: no method has a score on its data sets")
	}
	spec := comparison.TableSpec{
		Study: id, Label: "tab:mldr-" + id[:min(8, len(id))],
		Classifier: classifierPhrase(req), Split: "split: " + splitText(req), Dims: dimsPhrase(cs[0], req.Params),
		MethodNames: map[string]string{}, MetricNames: map[string]string{}, Cites: map[string]comparison.Cite{},
	}
	if d, p := choiceKey(cs[0]); d != "" {
		spec.Label += "-d" + d
	} else if p != "" {
		spec.Label += "-p" + p
	}
	for _, m := range cs[0].Methods {
		spec.MethodNames[m] = EvaluatedName(m)
		if am, ok := analysis.Lookup(m); ok && am.CiteKey() != "" {
			spec.Cites[m] = comparison.Cite{Key: am.CiteKey(), Reference: am.Paper}
		}
	}
	for _, c := range cs {
		spec.MetricNames[c.Metric] = metricPaperText(c.Metric)
	}
	return comparison.NewTable(cs, spec)
}

// metricPaperText is a metric's name as a paper's table heads it: the
// pages' name (metricText) capitalised, the F1 scores and one-error as
// the literature writes them.
func metricPaperText(metric string) string {
	switch metric {
	case evaluate.MicroF1:
		return "Micro-F1"
	case evaluate.MacroF1:
		return "Macro-F1"
	case evaluate.ExampleF1:
		return "Example-F1"
	case evaluate.OneError:
		return "One-error"
	}
	s := metricText(metric)
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

// classifierPhrase names a study's classifier and its parameters for a
// caption, in ASCII, and the decoders of its label-space methods, which
// predict their labels in the classifier's place.
func classifierPhrase(req jobs.Request) string {
	e := req.Evaluate
	if e == nil {
		return ""
	}
	c := classifierOnly(e)
	if note := decoderNote(requestDecoders(req), "lambda"); note != "" {
		c += "; " + note
	}
	return c
}

// classifierOnly names a classifier and its parameters, in ASCII.
func classifierOnly(e *jobs.Evaluate) string {
	switch e.Classifier {
	case evaluate.ClassifierMLkNN:
		return fmt.Sprintf("classifier ML-kNN (k = %d, s = %g)", e.K, e.S)
	case evaluate.ClassifierKNN:
		return fmt.Sprintf("classifier the k-NN vote (k = %d)", e.K)
	case evaluate.ClassifierRidge:
		return fmt.Sprintf("classifier ridge regression (lambda = %g)", e.Lambda)
	case evaluate.ClassifierSVM:
		return fmt.Sprintf("classifier LIBLINEAR's linear SVM (C = %g, eps = %g)", e.C, e.Eps)
	}
	return "classifier " + e.Classifier
}

// dimsPhrase says at which d a comparison compares, and the parameters
// the methods were given (by their API names), for a caption.
func dimsPhrase(c comparison.Comparison, p analysis.Params) string {
	var s string
	switch {
	case c.D != nil || c.Percent != nil:
		s = choiceText(c)
	case p.D != 0:
		s = "d = " + strconv.Itoa(p.D)
	case p.Thr != 0:
		s = "each method at the d that keeps thr = " + strconv.FormatFloat(p.Thr, 'g', -1, 64) + " of its eigenvalues"
	default:
		s = choiceText(c)
	}
	var more []string
	num := func(name string, v *float64) {
		if v != nil {
			more = append(more, name+" = "+strconv.FormatFloat(*v, 'g', -1, 64))
		}
	}
	num(analysis.ParamBeta, p.Beta)
	num(analysis.ParamGamma, p.Gamma)
	num(analysis.ParamLambda, p.Lambda)
	num(analysis.ParamRidge, p.Ridge)
	if p.LabelKernel != "" {
		more = append(more, analysis.ParamLabelKernel+" = "+p.LabelKernel)
	}
	if p.K != 0 {
		more = append(more, analysis.ParamK+" = "+strconv.Itoa(p.K))
	}
	if p.Normalize != "" {
		more = append(more, analysis.ParamNormalize+" = "+p.Normalize)
	}
	if len(more) > 0 {
		s += "; method parameters " + strings.Join(more, ", ")
	}
	return s
}
