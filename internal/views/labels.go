package views

import (
	"fmt"

	"mldr/internal/dataset"
	"mldr/internal/explore"
	"mldr/internal/jobs"
)

// loader reads each data set, and each job's labels, once for the figures
// of one request.
type loader struct {
	store  Store
	jobs   Jobs
	loaded map[string]*dataset.Dataset
	runs   map[string]*jobs.RunLabels
}

func (b *Builder) loader() *loader {
	return &loader{store: b.store, jobs: b.jobs, loaded: map[string]*dataset.Dataset{}, runs: map[string]*jobs.RunLabels{}}
}

func (d *loader) load(id string) (*dataset.Dataset, error) {
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
func (d *loader) runLabels(job jobs.Job) (*jobs.RunLabels, error) {
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

// viewOf joins a method's projected rows p with their labels as the job
// ran with them, into the explorer's view of them (what colours the rows
// of the static figures and of the interactive scatter alike). Results
// from before jobs kept their labels take them from the training or the
// test data set as it is now, unless its labels have changed since the
// job (mf is one of the job's manifests): then the figure is not drawn,
// and says why (*Undrawable).
func (d *loader) viewOf(job jobs.Job, mf *jobs.Manifest, p *jobs.Projected) (*explore.View, error) {
	run, err := d.runLabels(job)
	if err != nil {
		return nil, err
	}
	if run == nil {
		if run, err = d.dataLabels(job, mf, p); err != nil {
			return nil, err
		}
	}
	v, err := explore.NewView(p, run)
	if err != nil {
		return nil, fmt.Errorf("job %s: %w", job.ID, err)
	}
	return v, nil
}

// dataLabels are the labels of the data sets of a job whose results do not
// keep them, when every projected row is still there with the labels the
// job read.
func (d *loader) dataLabels(job jobs.Job, mf *jobs.Manifest, p *jobs.Projected) (*jobs.RunLabels, error) {
	if err := d.unchangedSince(job); err != nil {
		return nil, err
	}
	train, err := d.load(job.Request.Dataset)
	if err != nil {
		return nil, err
	}
	var test *dataset.Dataset
	if job.Request.TestDataset != "" {
		if test, err = d.load(job.Request.TestDataset); err != nil {
			return nil, err
		}
	}
	if !train.Labels.Equal(dataset.ListNames(mf.Labels)) || (test != nil && test.Labels.Len() != train.Labels.Len()) {
		return nil, labelsChanged(job)
	}
	for i, r := range p.Row {
		src := train
		if p.Split[i] == jobs.PartTest && test != nil {
			src = test
		}
		if r < 1 || r > src.Rows() {
			return nil, labelsChanged(job)
		}
	}
	return jobs.RunLabelsOf(train, test), nil
}

// unchangedSince refuses the data sets of a job whose results do not keep
// their labels when either was relabelled after the job started.
func (d *loader) unchangedSince(job jobs.Job) error {
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
	return undrawable("no projection plot: the labels of data set %s changed after job %s ran, and its results are older than the record "+
		"of the labels a job ran with, so its points cannot be coloured by them; run the job again to see the plot", job.Request.Dataset, job.ID)
}
