package jobs

import (
	"fmt"
	"net/http"
	"time"

	"mldr/internal/dataset"
	"mldr/internal/evaluate"
	"mldr/internal/store"
)

// FileExperiment is experiment.json, written with every job's results:
// what the job ran, so that it can be run again (webapp run).
const FileExperiment = "experiment.json"

// ExperimentFormat is the version of experiment.json's layout.
const ExperimentFormat = 1

// Experiment is experiment.json: the normalised request, the data sets it
// read (each with the SHA-256 of its file's bytes as uploaded and how the
// file was read), the seeds and the software version. It is also a run
// spec (package runcli): its data entries name no files, which the
// command line supplies.
type Experiment struct {
	// Format is ExperimentFormat.
	Format          int       `json:"experiment"`
	SoftwareVersion string    `json:"software_version"`
	Job             string    `json:"job"`
	CreatedAt       time.Time `json:"created_at"`
	// Seeds are the seeds of the random choices the job made: "split"
	// (holdout and k-fold), "svm" (LIBLINEAR's rand, fixed). Empty when
	// the job made none.
	Seeds   map[string]uint64 `json:"seeds"`
	Request Request           `json:"request"`
	// Data are the data sets the request names, by the id it names them
	// by.
	Data map[string]ExperimentData `json:"data"`
}

// ExperimentData is a data set of an experiment: enough to read the same
// file the same way and to know it is the same file.
type ExperimentData struct {
	Name     string `json:"name"`
	FileName string `json:"file_name,omitempty"`
	Bytes    int64  `json:"bytes"`
	// SHA256 is the SHA-256 of the data file's bytes as they were read:
	// the file as uploaded (the data set's source), or as webapp run read
	// it from disk. The same file gives the same hash on both.
	SHA256 string `json:"sha256"`
	// Options are how the file was read (the upload's options; a Mulan
	// XML label file is kept as the label names it gave, label_xml).
	Options dataset.Options `json:"options"`
	Rows    int             `json:"rows"`
	// Folds is the number of predefined folds the data set carries (a
	// folds file, which a rerun must be given again), FoldsSHA256 the
	// SHA-256 of that file's bytes as uploaded (absent for data sets
	// stored before it was kept).
	Folds       int    `json:"folds,omitempty"`
	FoldsSHA256 string `json:"folds_sha256,omitempty"`
}

// Seeds lists the seeds of the random choices a request makes.
func (r Request) Seeds() map[string]uint64 {
	seeds := map[string]uint64{}
	if s := r.Split; s != nil && (s.Kind == SplitHoldout || s.Kind == SplitKFold) {
		seeds["split"] = s.Seed
	}
	if e := r.Evaluate; e != nil && e.Classifier == evaluate.ClassifierSVM {
		seeds["svm"] = 1 // LIBLINEAR's srand(1) in each of its processes (evaluate.SVM)
	}
	return seeds
}

// ExperimentDataOf is what experiment.json says of a data set record.
func ExperimentDataOf(rec store.DatasetRecord) ExperimentData {
	return ExperimentData{Name: rec.Name, FileName: rec.FileName, Bytes: rec.Bytes, SHA256: rec.SHA256,
		Options: rec.Options.WithoutMemory(), Rows: rec.Summary.Rows, Folds: rec.Folds, FoldsSHA256: rec.FoldsSHA256}
}

// experiment is job's experiment.json.
func (x *Executor) experiment(job Job) (Experiment, error) {
	e := Experiment{Format: ExperimentFormat, SoftwareVersion: x.version, Job: job.ID, CreatedAt: job.CreatedAt,
		Seeds: job.Request.Seeds(), Request: job.Request, Data: map[string]ExperimentData{}}
	for _, id := range job.Request.DatasetIDs() {
		rec, err := x.store.Dataset(id)
		if err != nil {
			return e, fmt.Errorf("data set %s: %w", id, err)
		}
		e.Data[id] = ExperimentDataOf(rec)
	}
	return e, nil
}

// writeExperiment writes job's experiment.json into the staged results.
func (x *Executor) writeExperiment(staged *store.StagedResults, job Job) error {
	e, err := x.experiment(job)
	if err != nil {
		return err
	}
	return diskFull(writeJSON(staged, FileExperiment, e))
}

// noExperiment is the refusal of experiment.json for results written
// before it existed.
func noExperiment(id string) error {
	return &RequestError{Status: http.StatusNotFound, Msg: fmt.Sprintf(
		"job %s has no experiment.json: results written before it existed have none (POST /api/jobs/%s/rerun)", id, id)}
}
