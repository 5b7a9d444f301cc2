package views

import (
	"cmp"
	"fmt"
	"strings"

	"mldr/internal/jobs"
	"mldr/web/templates"
)

// ResultsOptions are the choices of a job's results section.
type ResultsOptions struct {
	Plot PlotOptions
	// Study reads a study's choices from the request; it is called for a
	// study only, so that a job on one data set ignores them.
	Study func() (StudyOptions, error)
}

// Results builds a succeeded job's results section; nil when it has not
// succeeded. A component above every method's d, a metric the job did
// not report and a study's choice it does not have are *BadOption.
func (b *Builder) Results(id string, o ResultsOptions) (*templates.ResultsView, error) {
	q := o.Plot
	res, err := b.jobs.Results(id)
	if err != nil {
		return nil, err
	}
	if res.Job.Status != jobs.Succeeded {
		return nil, nil
	}
	// The components offered go up to the largest d; a method of smaller
	// d shows its first two.
	maxD := 2
	for _, m := range res.Methods {
		maxD = max(maxD, m.Eigen.D)
	}
	for _, c := range []struct {
		name string
		v    int
	}{{"x", q.X}, {"y", q.Y}} {
		if c.v > maxD {
			return nil, badOption(c.name, "%s = %d is not a component of this job's methods; %s must be from 1 to %d", c.name, c.v, c.name, maxD)
		}
	}
	q.X, q.Y = cmp.Or(q.X, 1), cmp.Or(q.Y, 2)
	v := &templates.ResultsView{JobID: id, X: q.X, Y: q.Y, Log: q.Log, Notes: res.Job.Notes}
	if res.Experiment {
		v.Experiment = "/api/jobs/" + id + "/" + jobs.FileExperiment
	}
	if res.Comparison != nil {
		sq, err := o.Study()
		if err != nil {
			return nil, err
		}
		if v.Study, err = Study(id, res.Comparison, sq); err != nil {
			return nil, err
		}
		if v.Study.Dataset, err = StudyDataset(res, sq); err != nil {
			return nil, err
		}
		for i, ds := range res.Comparison.Comparisons[0].Datasets {
			v.Study.Datasets = append(v.Study.Datasets, templates.Option{Value: ds, Text: res.Comparison.Comparisons[0].DatasetNames[i]})
		}
		res = StudyRows(res, v.Study.Dataset)
		q.Metric = v.Study.Metric
	}
	data := b.loader()
	base := "/api/jobs/" + id + "/plots/"
	if res.Metrics != nil {
		v.MetricOptions = MetricOptions(res.Metrics)
		if q.Metric == "" {
			q.Metric = DefaultMetric(res, v.MetricOptions)
		}
		if err := CheckMetric(v.MetricOptions, q.Metric); err != nil && len(v.MetricOptions) > 0 {
			return nil, err
		}
		v.Metric = q.Metric
		v.DAxis, v.OneD = DAxis(q.DAxis, res), OneD(res)
		f, alt, err := Curves(res, v.Metric, res.Job.Request.MethodIDs(), v.DAxis, nil)
		if v.Curves, err = Figure("curves", base+"curves", q.Values("curves"), f, alt, err); err != nil {
			return nil, err
		}
		v.Table = MetricsTable(res, v.Metric)
		v.Times = TimesTable(res)
		v.MetricsDownload = "/api/jobs/" + id + "/metrics.json"
		if res.LabelResults {
			v.LabelResults = "/jobs/" + id + "/labels"
			if rec, err := b.store.Dataset(res.Job.Request.Dataset); err == nil {
				v.LabelCount = rec.Summary.LabelCount
			}
		}
	}
	for _, m := range res.Methods {
		mv := templates.MethodView{ID: m.Method, Name: MethodName(m.Method), Space: string(m.Manifest.Space), Paper: m.Manifest.Paper,
			D: m.Eigen.D, Energy: m.Eigen.Energy, Rank: m.Eigen.Rank, RankAtLeast: m.Eigen.RankAtLeast, Colour: ColourHex(res.Job.Request.MethodIDs(), m.Method),
			SpaceNote: SpaceNote(m.Method, m.Manifest.Space)}
		if st := m.Eigen.Stress; st != nil {
			mv.Stress = fmt.Sprintf("stress-1 %.4f, raw stress %.4g", st.Stress1, st.Raw)
		}
		v.MaxComponent = max(v.MaxComponent, m.Eigen.D)
		mq := q
		mq.Method = m.Method
		if mq.X > m.Eigen.D || mq.Y > m.Eigen.D { // the page's choice is beyond this method's d: its first two (the title says which)
			mq.X, mq.Y = 1, min(2, m.Eigen.D)
		}
		f, alt, err := Spectrum(m, res.Job.Request.MethodIDs(), q.Log, 0)
		if mv.Spectrum, err = Figure("spectrum-"+m.Method, base+"spectrum", mq.Values("spectrum"), f, alt, err); err != nil {
			return nil, err
		}
		pf, alt, opts, err := b.projection(res, m, mq, data)
		if _, ok := Note(err); err != nil && !ok {
			return nil, err
		}
		if v.ColourOptions == nil && opts != nil {
			v.ColourOptions = opts
			if mq.Colour == "" {
				v.Colour = opts[0].Value
			} else {
				v.Colour = mq.Colour
			}
		}
		if mv.Projection, err = Figure("projection-"+m.Method, base+"projection", mq.Values("projection"), pf, alt, err); err != nil {
			return nil, err
		}
		for _, file := range jobs.MethodFiles {
			if m.Manifest.Projection == nil && strings.HasPrefix(file, "projection.") {
				continue
			}
			desc := fileDescriptions[file]
			if k, ok := kernelFileDescriptions[file]; ok && m.Manifest.Kernel != nil {
				desc = k
			}
			mv.Downloads = append(mv.Downloads, templates.Download{Name: file, URL: "/api/jobs/" + id + "/" + file + "?method=" + m.Method, Description: desc})
		}
		v.Methods = append(v.Methods, mv)
	}
	v.MaxComponent = max(v.MaxComponent, 2)
	return v, nil
}

// fileDescriptions describe a method's result files.
var fileDescriptions = map[string]string{
	jobs.FileProjectionCSV:  "the projection matrix, one row per original dimension",
	jobs.FileProjectionJSON: "the same as JSON",
	jobs.FileProjectionNPY:  "the same for NumPy (np.load)",
	jobs.FileEigenvalues:    "every eigenvalue, d and the energy kept",
	jobs.FileProjected:      "the reduced rows, with their part of the split",
	jobs.FileModel:          "the manifest: method, parameters, seed, data set hash, version, means, projection",
}

// kernelFileDescriptions describe the files of a kernel method (kpca,
// kmddm) where they differ: its projection is the dual coefficients.
var kernelFileDescriptions = map[string]string{
	jobs.FileProjectionCSV: "the dual coefficients α, one row per basis row (a training row, or a Nyström landmark): a row x projects to (k(x) − means)·α",
	jobs.FileModel:         "the manifest: method, parameters, seed, data set hash, version, the kernel, its basis rows, the means k̄ and α",
}
