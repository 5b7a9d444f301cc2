package jobs

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"mldr/internal/analysis"
	"mldr/internal/evaluate"
	"mldr/internal/store"
)

// Every job writes experiment.json (the normalised request, each data
// set's SHA-256 and options, the seeds, the software version), and
// metrics.json carries the version as model.json does; the service
// serves it like the other result files.
func TestExperimentFile(t *testing.T) {
	e := newExecEnv(t)
	tests := []struct {
		name      string
		req       Request
		seeds     map[string]uint64
		datasets  []store.DatasetRecord
		evaluated bool
	}{
		{"holdout with an evaluation", Request{Dataset: e.ml.ID, Method: "pca", Params: analysis.Params{D: 2}, Split: &Split{Kind: SplitHoldout, Seed: 7},
			Evaluate: &Evaluate{Dims: []int{1, 2}}}, map[string]uint64{"split": 7}, []store.DatasetRecord{e.ml}, true},
		{"no split, no evaluation", Request{Dataset: e.md.ID, Method: "pca", Params: analysis.Params{D: 2}}, map[string]uint64{}, []store.DatasetRecord{e.md}, false},
		{"predefined folds with the svm", Request{Dataset: e.md.ID, Method: "pca", Params: analysis.Params{D: 2}, Split: &Split{Kind: SplitPredefined},
			Evaluate: &Evaluate{Classifier: evaluate.ClassifierSVM}}, map[string]uint64{"svm": 1}, []store.DatasetRecord{e.md}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			job, _, err := e.run(tc.req)
			if err != nil {
				t.Fatal(err)
			}
			var got Experiment
			readJSONIn(t, e.store.JobDir(job.ID), FileExperiment, &got)
			want := job.Request
			want.Normalize()
			if got.Format != ExperimentFormat || got.SoftwareVersion != "test" || got.Job != job.ID {
				t.Errorf("got format %d, version %q, job %q; want %d, test, %s", got.Format, got.SoftwareVersion, got.Job, ExperimentFormat, job.ID)
			}
			if !reflect.DeepEqual(got.Request, want) {
				t.Errorf("request: got %+v, want %+v", got.Request, want)
			}
			if !reflect.DeepEqual(got.Seeds, tc.seeds) {
				t.Errorf("seeds: got %v, want %v", got.Seeds, tc.seeds)
			}
			if len(got.Data) != len(tc.datasets) {
				t.Fatalf("data: got %d entries, want %d", len(got.Data), len(tc.datasets))
			}
			for _, rec := range tc.datasets {
				d, ok := got.Data[rec.ID]
				if !ok || d.SHA256 != rec.SHA256 || d.Name != rec.Name || d.Rows != rec.Summary.Rows || d.Folds != rec.Folds || d.Bytes != rec.Bytes || d.FoldsSHA256 != rec.FoldsSHA256 {
					t.Errorf("data %s: got %+v, want the record's name, sha256 %s, rows, folds, folds_sha256 and bytes", rec.ID, d, rec.SHA256)
				}
				if (rec.Folds > 0) != (d.FoldsSHA256 != "") {
					t.Errorf("data %s: %d folds with folds_sha256 %q; want it exactly when there are folds", rec.ID, rec.Folds, d.FoldsSHA256)
				}
			}
			svc := e.serviceOver(succeeded(job))
			path, _, err := svc.ResultPath(job.ID, "", FileExperiment)
			if err != nil || filepath.Base(path) != FileExperiment {
				t.Errorf("ResultPath(experiment.json) = %q, %v", path, err)
			}
			if !tc.evaluated {
				return
			}
			var mf MetricsFile
			readJSONIn(t, e.store.JobDir(job.ID), FileMetrics, &mf)
			if mf.Version != "test" {
				t.Errorf("metrics.json software_version: got %q, want test", mf.Version)
			}
		})
	}
}

// Results written before experiment.json existed answer 404 saying so.
func TestExperimentFileMissing(t *testing.T) {
	e := newExecEnv(t)
	job, _, err := e.run(Request{Dataset: e.ml.ID, Method: "pca", Params: analysis.Params{D: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(e.store.JobDir(job.ID), FileExperiment)); err != nil {
		t.Fatal(err)
	}
	svc := e.serviceOver(succeeded(job))
	_, _, err = svc.ResultPath(job.ID, "", FileExperiment)
	var re *RequestError
	if !errors.As(err, &re) || re.Status != http.StatusNotFound {
		t.Errorf("got %v, want a 404 RequestError", err)
	}
}
