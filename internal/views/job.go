package views

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
	"time"

	"mldr/internal/analysis"
	"mldr/internal/evaluate"
	"mldr/internal/jobs"
	"mldr/web/templates"
)

// JobRow is a job's line in a list of jobs.
func (b *Builder) JobRow(j jobs.Job) templates.JobRow {
	return b.jobRow(j, b.datasetNames())
}

// JobRows are the lines of a list of jobs, their data sets named as on
// the list of data sets (DatasetNames).
func (b *Builder) JobRows(list []jobs.Job) []templates.JobRow {
	names := b.datasetNames()
	out := make([]templates.JobRow, 0, len(list))
	for _, j := range list {
		out = append(out, b.jobRow(j, names))
	}
	return out
}

func (b *Builder) jobRow(j jobs.Job, names datasetNames) templates.JobRow {
	r := templates.JobRow{ID: j.ID, DatasetID: j.Request.Dataset, Dataset: j.Request.Dataset, Methods: strings.Join(j.Request.MethodIDs(), ", "),
		Status: string(j.Status), Created: FormatTime(j.CreatedAt), Phase: j.Phase, Progress: j.Progress,
		Active: !j.Status.Terminal(), Done: j.Status == jobs.Succeeded}
	r.Dataset = names.of(j.Request.Dataset)
	if j.Request.Study() {
		r.DatasetID, r.Dataset = "", studyName(j.Request, names)
		r.Done = false // a study is compared on its own page, not with other jobs
	}
	if j.StartedAt != nil {
		end := time.Now()
		if j.FinishedAt != nil {
			end = *j.FinishedAt
		}
		r.Duration = formatDuration(end.Sub(*j.StartedAt))
	}
	return r
}

// studyName names a study for a list: its count of data sets and the
// first few names.
func studyName(req jobs.Request, names datasetNames) string {
	const shown = 3
	var list []string
	for _, id := range req.Datasets[:min(shown, len(req.Datasets))] {
		list = append(list, names.of(id))
	}
	more := ""
	if len(req.Datasets) > shown {
		more = ", …"
	}
	return fmt.Sprintf("study over %d data sets (%s%s)", len(req.Datasets), strings.Join(list, ", "), more)
}

func formatDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
	return d.Round(time.Second).String()
}

// phasesText says where a run's time went: "load 0.2 s, fit 1.3 s, …"
// (empty without phases: jobs that ran before they were recorded).
func phasesText(phases []jobs.PhaseTime) string {
	var parts []string
	for _, p := range phases {
		parts = append(parts, p.Name+" "+formatDuration(time.Duration(p.Seconds*float64(time.Second))))
	}
	return strings.Join(parts, ", ")
}

// FormatTime writes a moment for a list: "2006-01-02 15:04 UTC".
func FormatTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }

// JobHeader is the top of a job's page: its status, timing and settings.
func (b *Builder) JobHeader(j jobs.Job) templates.JobHeader {
	names := b.datasetNames()
	hd := templates.JobHeader{ID: j.ID, Status: string(j.Status), Phase: j.Phase, Message: j.Message, Error: j.Error,
		DatasetID: j.Request.Dataset, DatasetName: names.of(j.Request.Dataset), Methods: j.Request.MethodIDs(), Progress: j.Progress,
		Created: j.CreatedAt.Format(time.RFC3339), Active: !j.Status.Terminal()}
	if j.Status != jobs.Succeeded {
		hd.Notes = j.Notes // a succeeded job's notes stand with its results
	}
	if !j.Request.Study() {
		if rec, err := b.store.Dataset(j.Request.Dataset); err == nil {
			hd.ScaleHint = ScaleHint(rec.Summary, j.Request.Preprocess)
		}
	}
	for _, id := range j.Request.Datasets {
		hd.Study = append(hd.Study, templates.Link{ID: id, Name: names.of(id)})
	}
	hd.Elapsed = "not started yet"
	if j.StartedAt != nil {
		hd.Started = j.StartedAt.Format(time.RFC3339Nano)
		end := time.Now()
		if j.FinishedAt != nil {
			end = *j.FinishedAt
			hd.Finished = j.FinishedAt.Format(time.RFC3339Nano)
		}
		hd.Elapsed = formatDuration(end.Sub(*j.StartedAt))
	}
	if j.Status.Terminal() {
		hd.Phases = phasesText(j.Phases)
	}
	req := j.Request
	add := func(k, v string) { hd.Settings = append(hd.Settings, templates.Setting{Name: k, Value: v}) }
	add("methods", strings.Join(req.MethodIDs(), ", "))
	if t := paramsText(req.Params); t != "" {
		add("parameters", t)
	}
	if req.Split != nil {
		s := req.Split.Kind
		switch req.Split.Kind {
		case jobs.SplitHoldout:
			s = fmt.Sprintf("holdout, %.0f%% test rows, seed %d", 100*req.Split.TestFraction, req.Split.Seed)
		case jobs.SplitKFold:
			s = fmt.Sprintf("%d-fold cross-validation, seed %d", req.Split.Folds, req.Split.Seed)
		case jobs.SplitPredefined:
			s = "the data set's predefined folds"
		case jobs.SplitTestSet:
			s = "fitted on the training data set, evaluated on the test set"
		}
		add("split", s)
	}
	if req.Preprocess != "" && req.Preprocess != "none" {
		add("preprocessing", req.Preprocess+", fitted on the training rows")
	}
	if req.TestDataset != "" {
		add("test set", names.of(req.TestDataset))
	}
	if e := req.Evaluate; e != nil {
		switch e.Classifier {
		case evaluate.ClassifierSVM:
			add("classifier", fmt.Sprintf("svm, LIBLINEAR -s 3 -B 1 (c = %g, eps = %g)", e.C, e.Eps))
		case evaluate.ClassifierKNN: // s and λ are not its
			search := ""
			switch {
			case e.Recall == 1:
				search = ", exact neighbours"
			case e.Recall != 0: // given: the default goes without saying
				search = fmt.Sprintf(", neighbours at recall@k ≥ %g where an exact search would take over %s", e.Recall, time.Duration(evaluate.ExactBudget)*time.Second)
			}
			add("classifier", fmt.Sprintf("knn, the k-NN vote (k = %d%s)", e.K, search))
		case evaluate.ClassifierRidge:
			add("classifier", fmt.Sprintf("ridge (λ = %g)", e.Lambda))
		default:
			add("classifier", fmt.Sprintf("%s (k = %d, s = %g)", e.Classifier, e.K, e.S))
		}
		if note := decoderNote(requestDecoders(req), "λ"); note != "" {
			add("decoders", note)
		}
		if !req.RanksBaseline() {
			add("baseline", "ori (no reduction) shown, but left out of the ranks, Friedman, Nemenyi and the CD diagram")
		}
		if e.Baseline != nil && !*e.Baseline {
			add("baseline", "left out: no row of ori (no reduction)")
		}
		if e.PsA != 0 || e.PsB != 0 { // given: the defaults go without saying
			add("propensities", fmt.Sprintf("A = %g, B = %g (Jain et al. 2016)",
				cmp.Or(e.PsA, evaluate.DefaultPropensityA), cmp.Or(e.PsB, evaluate.DefaultPropensityB)))
		}
		switch {
		case len(e.Dims) > 0:
			add("values of d", strings.Trim(fmt.Sprint(e.Dims), "[]"))
		case len(e.Percent) > 0:
			of := e.Of
			if of == "" {
				of = "features"
			}
			add("values of d", fmt.Sprintf("%s %% of the %s", strings.Trim(fmt.Sprint(e.Percent), "[]"), of))
		}
	}
	return hd
}

// paramsText writes the parameters p gives as "d = 5, β = 0.5".
func paramsText(p analysis.Params) string {
	var parts []string
	num := func(name string, v *float64) {
		if v != nil {
			parts = append(parts, name+" = "+strconv.FormatFloat(*v, 'g', -1, 64))
		}
	}
	if p.D != 0 {
		parts = append(parts, "d = "+strconv.Itoa(p.D))
	}
	if p.Thr != 0 {
		parts = append(parts, "thr = "+strconv.FormatFloat(p.Thr, 'g', -1, 64))
	}
	num("β", p.Beta)
	num("γ", p.Gamma)
	num("λ", p.Lambda)
	num("ridge", p.Ridge)
	if p.LabelKernel != "" {
		parts = append(parts, "label kernel = "+p.LabelKernel)
	}
	if p.K != 0 {
		parts = append(parts, "k = "+strconv.Itoa(p.K))
	}
	if p.Normalize != "" {
		parts = append(parts, "normalize = "+p.Normalize)
	}
	if p.Kernel != "" {
		parts = append(parts, "kernel = "+p.Kernel)
	}
	if p.Degree != 0 {
		parts = append(parts, "degree = "+strconv.Itoa(p.Degree))
	}
	num("c₀", p.Coef0)
	if p.Landmarks != 0 {
		parts = append(parts, "landmarks = "+strconv.Itoa(p.Landmarks))
	}
	if p.LandmarkSampling != "" {
		parts = append(parts, "landmark sampling = "+p.LandmarkSampling)
	}
	if p.LandmarkSeed != nil {
		parts = append(parts, "landmark seed = "+strconv.FormatUint(*p.LandmarkSeed, 10))
	}
	return strings.Join(parts, ", ")
}
