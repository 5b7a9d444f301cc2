// Package views turns results into what the pages show: the figures
// (plots.Figure) of jobs, studies and data sets, their text alternatives
// and links, the tables and settings lines, and the pages' view models
// (web/templates). The static figures, the pages and the explorer's
// endpoints read it; handlers parse a request, call it and render.
//
// It knows no HTTP. An error it returns says its kind by its type:
// *Undrawable (the data do not allow a figure), *BadOption (an option the
// user gave that cannot be honoured, with the valid choices) and
// *NotFound; the handlers map them to statuses. What it reads of the data
// sets and the jobs comes through the small interfaces Store and Jobs,
// given to New.
package views

import (
	"mldr/internal/dataset"
	"mldr/internal/jobs"
	"mldr/internal/store"
)

// Store is what the views read of the data sets.
type Store interface {
	// Datasets lists every data set's record.
	Datasets() ([]store.DatasetRecord, error)
	// Dataset returns a data set's record (store.ErrNotFound when there
	// is none).
	Dataset(id string) (store.DatasetRecord, error)
	// LoadDataset reads a data set's rows.
	LoadDataset(id string) (*dataset.Dataset, error)
	// Details reads a data set's details: its columns, label names and
	// label statistics.
	Details(rec store.DatasetRecord) (*dataset.Details, error)
}

// Jobs is what the views read of the jobs and their results.
type Jobs interface {
	// List returns every job, newest first, or why they could not be
	// read.
	List() ([]jobs.Job, error)
	// Get returns a job (jobs.ErrNotFound when there is none).
	Get(id string) (jobs.Job, error)
	// LabelResults returns a succeeded job's per-label results, or a
	// *jobs.RequestError saying why it has none.
	LabelResults(id string) (*jobs.LabelResultsFile, error)
	Results(id string) (*jobs.Results, error)
	// Projected returns a method's projected rows, with the components
	// cols (0-based; all when none are given).
	Projected(id, method string, cols ...int) (*jobs.Projected, error)
	// RunLabels returns the labels a job ran with; nil for results from
	// before jobs kept them.
	RunLabels(id string) (*jobs.RunLabels, error)
	Limits() jobs.Limits
}

// Builder builds the views of one server: its data sets and jobs.
type Builder struct {
	store Store
	jobs  Jobs
}

// New returns a Builder reading data sets from s and jobs from j (nil
// when the server runs no jobs: then only the data sets' views work).
func New(s Store, j Jobs) *Builder {
	return &Builder{store: s, jobs: j}
}
