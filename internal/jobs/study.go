package jobs

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"mldr/internal/analysis"
	"mldr/internal/comparison"
	"mldr/internal/evaluate"
)

// Result files of a study (a job over several data sets), beside
// metrics.json. FileComparisonTeX is not written: the server writes it
// from comparison.json when it is asked (package views), as results
// written before it did keep theirs.
const (
	FileComparison    = "comparison.json"
	FileComparisonCSV = "comparison.csv"
	FileComparisonTeX = "comparison.tex"
)

// StudyFiles lists the files a study writes.
var StudyFiles = []string{FileMetrics, FileComparison, FileComparisonCSV}

// executeStudy runs a study: the evaluation of the request on each data
// set in turn (one data set in memory at a time), then the comparison of
// the methods over the data sets. A study fits no result models: its
// results are metrics.json (every row naming its data set) and the
// comparison files.
func (x *Executor) executeStudy(ctx context.Context, job Job, report Report) ([]string, error) {
	req := job.Request
	report(0.01, "loading", "reading the data")
	if err := x.store.RemoveJobResults(job.ID); err != nil { // a run a crash interrupted
		return nil, err
	}
	staged, err := x.store.StageJobResults(job.ID)
	if err != nil {
		return nil, diskFull(err)
	}
	defer staged.Discard()
	var (
		notes   []string
		rows    []evaluate.Row
		records []ManifestDataset
		names   []string
		// perDataset are each data set's notes, merged into notes.
		perDataset [][]string
		propensity *evaluate.Propensity
	)
	spec := evaluationSpec(req)
	n := len(req.Datasets)
	for i, id := range req.Datasets {
		rec, err := x.store.Dataset(id)
		if err != nil {
			return notes, fmt.Errorf("data set %s: %w", id, err)
		}
		name := rec.Name
		records = append(records, ManifestDataset{ID: rec.ID, Name: rec.Name, SHA256: rec.SHA256, Rows: rec.Summary.Rows})
		names = append(names, name)
		from, to := 0.02+0.93*float64(i)/float64(n), 0.02+0.93*float64(i+1)/float64(n)
		where := fmt.Sprintf("data set %d of %d (%s)", i+1, n, name)
		report(from, "loading", where+": reading the data")
		res, err := x.evaluateOne(ctx, req.ForDataset(id), spec, func(f float64, phase string) {
			report(from+(to-from)*f, "evaluating", where+": "+phase)
		})
		if err != nil {
			return notes, fmt.Errorf("data set %s (%s): %w", name, id, err)
		}
		perDataset = append(perDataset, res.Notes)
		propensity = res.Propensity // the same on every data set: one kind, one request
		notes = studyNotes(names, perDataset)
		for _, r := range res.Rows {
			r.Dataset = id
			rows = append(rows, r)
		}
	}
	if err := ctx.Err(); err != nil {
		return notes, err
	}
	report(0.96, "comparing", "ranks and significance tests over the data sets")
	mf := metricsFile(spec.Options, *req.Split, &evaluate.Result{Rows: rows, Notes: notes, Propensity: propensity})
	mf.Datasets = records
	mf.Version = x.version
	if err := writeJSON(staged, FileMetrics, mf); err != nil {
		return notes, diskFull(err)
	}
	cmpFile := comparison.Build(studyInput(req, names, spec, rows))
	if err := writeJSON(staged, FileComparison, cmpFile); err != nil {
		return notes, diskFull(err)
	}
	if err := staged.WriteFile(FileComparisonCSV, func(w io.Writer) error { return comparison.WriteCSV(w, cmpFile) }); err != nil {
		return notes, diskFull(err)
	}
	report(0.98, "saving", "writing the results")
	if err := x.writeExperiment(staged, job); err != nil {
		return notes, err
	}
	return notes, diskFull(x.store.CommitJobResults(staged))
}

// studyNotes merges the notes of a study's data sets: each note once,
// after the names of the data sets that gave it, in order of appearance.
func studyNotes(names []string, perDataset [][]string) []string {
	var order []string
	who := map[string][]string{}
	for i, notes := range perDataset {
		for _, n := range notes {
			if _, ok := who[n]; !ok {
				order = append(order, n)
			}
			if !slices.Contains(who[n], names[i]) {
				who[n] = append(who[n], names[i])
			}
		}
	}
	out := make([]string, 0, len(order))
	for _, n := range order {
		out = append(out, strings.Join(who[n], ", ")+": "+n)
	}
	return out
}

// evaluateOne runs the evaluation of a single-data-set request.
func (x *Executor) evaluateOne(ctx context.Context, req Request, spec evaluate.Spec, progress analysis.Progress) (*evaluate.Result, error) {
	p, err := x.plan(req)
	if err != nil {
		return nil, err
	}
	return evaluate.Run(ctx, p.data, p.splits, spec, progress)
}

// evaluationSpec is what the request's evaluation runs.
func evaluationSpec(req Request) evaluate.Spec {
	e := req.Evaluate
	o := evaluate.Options{Classifier: e.Classifier, K: e.K, S: e.S, Lambda: e.Lambda, C: e.C, Eps: e.Eps, PsA: e.PsA, PsB: e.PsB, Recall: e.Recall, Baseline: e.Baseline, Preprocess: req.Preprocess}
	spec := evaluate.Spec{Grid: evaluate.Grid{Dims: e.Dims, Percent: e.Percent, Of: e.Of}, Options: o}
	for _, id := range req.MethodIDs() {
		m, _ := analysis.Lookup(id)
		spec.Methods = append(spec.Methods, evaluate.MethodRun{ID: id, Params: req.Params.Only(m.Takes)})
	}
	return spec
}

// studyInput groups a study's rows by d-choice for comparison.Build: with
// no grid one comparison of the methods at their own d, the baseline
// without reduction (ori) among them (shown but not ranked when the
// request's rank_baseline is false); with a grid one per value of it,
// the methods only.
func studyInput(req Request, names []string, spec evaluate.Spec, rows []evaluate.Row) comparison.Input {
	in := comparison.Input{Datasets: req.Datasets, DatasetNames: names}
	if !req.RanksBaseline() {
		in.Unranked = []string{evaluate.Ori}
	}
	g := spec.Grid
	switch {
	case len(g.Dims) > 0:
		in.Methods = req.MethodIDs()
		dims := slices.Clone(g.Dims)
		slices.Sort(dims)
		for _, d := range slices.Compact(dims) {
			in.Groups = append(in.Groups, studyGroup(comparison.Choice{D: &d}, in.Methods, rows, func(r evaluate.Row) bool { return rowDim(r) == d }))
		}
	case len(g.Percent) > 0:
		in.Methods = req.MethodIDs()
		ps := slices.Clone(g.Percent)
		slices.Sort(ps)
		for _, p := range slices.Compact(ps) {
			in.Groups = append(in.Groups, studyGroup(comparison.Choice{Percent: &p, PercentOf: cmp.Or(g.Of, "features")}, in.Methods, rows, func(r evaluate.Row) bool { return r.Percent != nil && *r.Percent == p }))
		}
	default:
		in.Methods = append([]string{evaluate.Ori}, req.MethodIDs()...)
		in.Groups = append(in.Groups, studyGroup(comparison.Choice{CommonD: commonDim(rows)}, in.Methods, rows, func(evaluate.Row) bool { return true }))
	}
	return in
}

// commonDim is the d every mean row but the baseline's answers, when
// they all answer one (rowDim), else nil.
func commonDim(rows []evaluate.Row) *int {
	var d *int
	for _, r := range rows {
		if r.Method == evaluate.Ori || r.Fold != nil {
			continue
		}
		if v := rowDim(r); d == nil {
			d = &v
		} else if *d != v {
			return nil
		}
	}
	return d
}

// rowDim is the d a row answers in a grid of dims: the per-variable d of
// lda's rows, else d.
func rowDim(r evaluate.Row) int {
	if r.DPerVariable > 0 {
		return r.DPerVariable
	}
	return r.D
}

// studyGroup collects, for each data set and method, the mean row and the
// fold rows that match.
func studyGroup(choice comparison.Choice, methods []string, rows []evaluate.Row, match func(evaluate.Row) bool) comparison.Group {
	g := comparison.Group{Choice: choice}
	type key struct{ dataset, method string }
	at := map[key]int{}
	for _, r := range rows {
		if !match(r) || !slices.Contains(methods, r.Method) {
			continue
		}
		k := key{r.Dataset, r.Method}
		i, ok := at[k]
		if !ok {
			i = len(g.Results)
			at[k] = i
			g.Results = append(g.Results, comparison.Result{Dataset: r.Dataset, Method: r.Method})
		}
		res := &g.Results[i]
		if r.Fold == nil {
			res.Mean, res.Std = r.Metrics, r.Std
		} else {
			res.Folds = append(res.Folds, r.Metrics)
		}
	}
	return g
}
