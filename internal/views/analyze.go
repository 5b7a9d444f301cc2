package views

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"mldr/internal/analysis"
	"mldr/internal/dataset"
	"mldr/internal/jobs"
	"mldr/internal/store"
	"mldr/web/templates"
)

// DefaultAnalyzeForm is the analysis form's defaults for a data set: the
// predefined folds when it has them, else a holdout of 20 %.
func DefaultAnalyzeForm(rec store.DatasetRecord) templates.AnalyzeForm {
	f := templates.AnalyzeForm{DimMode: "thr", Thr: "0.99", D: "", Beta: "0.5", Lambda: "0.1", LabelKernel: "linear", K: "10", Normalize: analysis.NormalizeUnit,
		Kernel: analysis.KernelRBF, Degree: "3", Coef0: "1", LandmarkSampling: analysis.SamplingKMeansPP,
		Classifier: "mlknn", SplitKind: "holdout", TestFraction: "0.2", Folds: "10", Seed: "1", GridMode: "percent", Grid: "10, 20, 30, 40, 50, 60, 70, 80, 90, 100", GridOf: "rank",
		EvalK: "10", EvalLambda: "0.1", EvalC: "1", EvalEps: "0.0001", PsA: "0.55", PsB: "1.5", Recall: "0.95", Baseline: "with", Preprocess: "none", HasFolds: rec.Folds > 0}
	if rec.Folds > 0 {
		f.SplitKind = "predefined"
	}
	if f.SeedDim = SeedDimText(rec); f.SeedDim != "" {
		f.DimMode = "seed" // seed 003's protocol on multi-dimensional data
	}
	return f
}

// SeedDimText is seed 003's d′ = ΣK_j − q of multi-dimensional data sets
// as the analysis form shows it: "6", or for several data sets that
// differ "4 to 12"; "" for multi-label data.
func SeedDimText(recs ...store.DatasetRecord) string {
	lo, hi := 0, 0
	for i, rec := range recs {
		d := analysis.SeedDim("sdem", rec.Summary.ClassList())
		if d == 0 {
			return ""
		}
		if i == 0 || d < lo {
			lo = d
		}
		hi = max(hi, d)
	}
	if lo == hi {
		return strconv.Itoa(lo)
	}
	return fmt.Sprintf("%d to %d", lo, hi)
}

// DefaultStudyForm is the analysis form's defaults for a study: each
// method at the d its energy threshold chooses on each data set (so the
// baseline without reduction is compared too), and the predefined folds
// when every data set has them.
func DefaultStudyForm(recs []store.DatasetRecord) templates.AnalyzeForm {
	f := DefaultAnalyzeForm(recs[0])
	f.Grid = ""
	f.HasFolds = !slices.ContainsFunc(recs, func(r store.DatasetRecord) bool { return r.Folds == 0 })
	f.SeedDim = SeedDimText(recs...)
	f.RankBaseline = "rank"
	if f.HasFolds {
		f.SplitKind = jobs.SplitPredefined
	} else {
		f.SplitKind = jobs.SplitHoldout
	}
	return f
}

// Analyze is the analysis form of a data set but for its Page: the
// methods, those its kind, size or the memory rule out disabled with why;
// checked are the methods ticked (nil: the defaults), form the fields and
// fe the refusal of a submitted form, if any.
func (b *Builder) Analyze(rec store.DatasetRecord, form templates.AnalyzeForm, checked []string, fe *templates.FormError) templates.AnalyzeView {
	return b.analyze(rec, b.datasetNames().of(rec.ID), form, checked, fe)
}

// analyze is Analyze with the data set's name as the pages show it.
func (b *Builder) analyze(rec store.DatasetRecord, name string, form templates.AnalyzeForm, checked []string, fe *templates.FormError) templates.AnalyzeView {
	v := templates.AnalyzeView{DatasetID: rec.ID, DatasetName: name, Summary: rec.Summary,
		Form: form, Error: fe}
	v.ScaleHint = ScaleHint(rec.Summary, "")
	shape := analysis.Shape{N: rec.Summary.Rows, D: rec.Summary.Features, Q: rec.Summary.LabelCount, Classes: rec.Summary.ClassList()}
	multiDim := rec.Summary.Kind == dataset.MultiDim
	if checked == nil {
		checked = []string{"pca", "mddmp"}
		if multiDim {
			checked = []string{"pca", "sdem"}
		}
	}
	lim := b.jobs.Limits()
	for _, m := range analysis.Methods() {
		most := lim.PairwiseRows(m)
		c := templates.MethodChoice{ID: m.ID, Name: m.Name, Summary: m.Summary, Paper: m.Paper, Space: string(m.Space),
			Takes: strings.Join(m.Takes, " "), MaxDim: analysis.MaxDim(m.ID, analysis.Params{}, shape), Checked: slices.Contains(checked, m.ID)}
		switch {
		case multiDim && !m.MultiDim:
			c.Disabled, c.DisabledWhy = true, "Needs multi-label data."
		case !multiDim && !m.MultiLabel:
			c.Disabled, c.DisabledWhy = true, "Needs multi-dimensional data."
		case most > 0 && rec.Summary.Rows > most:
			c.Disabled, c.DisabledWhy = true, fmt.Sprintf("At most %d rows: %s.", most, m.MaxNWhy)
		default:
			if why, fits := lim.MethodMemory(rec, m.ID); !fits {
				c.Disabled, c.DisabledWhy = true, why
			}
		}
		if c.Disabled {
			c.Checked = false
		}
		v.Methods = append(v.Methods, c)
	}
	return v
}

// StudyForm is the analysis form in study mode over recs but for its Page:
// the methods are offered as for the first data set, and disabled when
// any data set rules them out.
func (b *Builder) StudyForm(recs []store.DatasetRecord, form templates.AnalyzeForm, checked []string, fe *templates.FormError) templates.AnalyzeView {
	names := b.datasetNames()
	v := b.analyze(recs[0], names.of(recs[0].ID), form, checked, fe)
	for _, rec := range recs {
		v.Study = append(v.Study, templates.Link{ID: rec.ID, Name: names.of(rec.ID)})
	}
	for _, rec := range recs[1:] {
		other := b.analyze(rec, names.of(rec.ID), form, checked, nil)
		for i, m := range other.Methods {
			c := &v.Methods[i]
			if m.Disabled && !c.Disabled {
				c.Disabled, c.Checked, c.DisabledWhy = true, false, fmt.Sprintf("On %s: %s", names.of(rec.ID), m.DisabledWhy)
			}
			c.MaxDim = min(c.MaxDim, m.MaxDim)
		}
	}
	return v
}
