package jobs

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"mldr/internal/store"
)

// Service is what the handlers use: requests validated before they are
// queued, results found by job, method and file.
type Service struct {
	Queue
	store  ServiceStore
	limits Limits
}

// Queue is the job queue under a Service: the in-process Runner (the
// embedded default), or the shared queue of the shared mode (package
// sharedjobs), chosen at start. Handlers and pages cannot tell them apart.
type Queue interface {
	// Submit stores a job as queued under id (the caller validated the
	// request and made the id) and queues it.
	Submit(id string, req Request) (Job, error)
	// Get returns a job, or ErrNotFound.
	Get(id string) (Job, error)
	// List returns every job, newest first, or why they could not be
	// read (the shared mode's database is unreachable, say).
	List() ([]Job, error)
	// Cancel stops a queued job at once and a running one at its next
	// check of its context; a finished job is ErrConflict.
	Cancel(id string) (Job, error)
	// Delete removes a job that is not running, with its record and
	// results.
	Delete(id string) error
	// Subscribe returns a channel of the job's state on every change
	// (only the latest kept), closed when the job is deleted, and a
	// function that ends the subscription.
	Subscribe(id string) (<-chan Job, func(), error)
	// Using lists the jobs, finished or not, that use a data set, or
	// says why they could not be read.
	Using(datasetID string) ([]Job, error)
}

var _ Queue = (*Runner)(nil)

// ServiceStore is what the service needs of the storage.
type ServiceStore interface {
	DatasetLookup
	JobDir(id string) string
	// VerifyJobResult checks a committed result file (its path in the
	// result directory, with slashes) against the job's checksums; see
	// store.Store.VerifyJobResult.
	VerifyJobResult(id, rel string) error
	// DeriveJobResult writes a result file derived from the others on its
	// first use, and checks it afterwards; see
	// store.Store.DeriveJobResult.
	DeriveJobResult(id, rel string, derive func(io.Writer) error) error
	DeleteDataset(id string) error
}

// NewService returns the jobs service over a queue (a *Runner, or the
// shared mode's queue).
func NewService(q Queue, st ServiceStore, lim Limits) *Service {
	return &Service{Queue: q, store: st, limits: lim}
}

// Limits returns the limits every request is validated against.
func (s *Service) Limits() Limits { return s.limits }

// Submit fills in the request's defaults, validates it whole and queues
// it. Refusals are *RequestError; a full queue is ErrQueueFull.
func (s *Service) Submit(req Request) (Job, error) {
	req.Normalize()
	if err := req.Validate(s.store, s.limits); err != nil {
		return Job{}, err
	}
	return s.Queue.Submit(store.NewID(), req)
}

// Rerun queues a new job with the request of a finished one (succeeded,
// failed or canceled), validated again against the data as they are now.
// A job not yet finished is a conflict (*RequestError with 409); an unknown
// one ErrNotFound.
func (s *Service) Rerun(id string) (Job, error) {
	j, err := s.Get(id)
	if err != nil {
		return Job{}, err
	}
	if !j.Status.Terminal() {
		return Job{}, &RequestError{Status: http.StatusConflict, Msg: fmt.Sprintf("job %s has %s; it can be run again once it has finished", id, j.Status)}
	}
	return s.Submit(j.Request)
}

// ResultPath finds a result file of a succeeded job and checks it against
// the job's checksums before the caller reads it. method may be empty
// when the job has one method; file is a name of MethodFiles,
// FileMetrics, FileExperiment or FileLabelResults (a job without it answers why, 404). A file that fails the check gives an error wrapping
// store.ErrCorruptResult (a *store.CorruptResultError naming it); a file
// the job did not write (mds has no projection) is not checked, and the
// caller meets its absence. Results written before checksums existed are
// returned unchecked. projected.csv is derived from FileProjectedRows at
// its first request (see projectedCSV), so that request writes it.
func (s *Service) ResultPath(id, method, file string) (string, Job, error) {
	rel, j, err := s.resultRel(id, method, file)
	if err != nil {
		return "", j, err
	}
	if dir, name := path.Split(rel); name == FileProjected && dir != "" {
		p, err := s.projectedCSV(id, path.Clean(dir))
		return p, j, err
	}
	p, err := s.resultFile(id, rel)
	return p, j, err
}

// resultRel checks that job id has succeeded and has the result file
// (see ResultPath), and returns its path in the result directory.
func (s *Service) resultRel(id, method, file string) (string, Job, error) {
	j, err := s.Get(id)
	if err != nil {
		return "", j, err
	}
	if j.Status != Succeeded {
		return "", j, &RequestError{Status: http.StatusConflict, Msg: fmt.Sprintf("job %s has %s; results are there once it has succeeded", id, j.Status)}
	}
	if file == FileExperiment {
		if _, err := os.Stat(filepath.Join(s.store.JobDir(id), FileExperiment)); errors.Is(err, os.ErrNotExist) {
			return "", j, noExperiment(id)
		}
		return FileExperiment, j, nil
	}
	if file == FileMetrics {
		if j.Request.Evaluate == nil || j.Request.Evaluate.Classifier == "none" {
			return "", j, &RequestError{Status: http.StatusNotFound, Msg: "this job ran no evaluation, so it has no metrics"}
		}
		return FileMetrics, j, nil
	}
	if file == FileLabelResults && !j.Request.Study() {
		if j.Request.Evaluate == nil || j.Request.Evaluate.Classifier == "none" {
			return "", j, &RequestError{Status: http.StatusNotFound, Msg: "this job ran no evaluation, so it has no per-label results"}
		}
		if _, err := os.Stat(filepath.Join(s.store.JobDir(id), FileLabelResults)); errors.Is(err, os.ErrNotExist) {
			return "", j, noLabelResults(id)
		}
		return FileLabelResults, j, nil
	}
	if j.Request.Study() {
		if !slices.Contains(StudyFiles, file) {
			return "", j, &RequestError{Status: http.StatusNotFound, Msg: fmt.Sprintf("a study has no result %q; it has %s", file, strings.Join(StudyFiles, ", "))}
		}
		return file, j, nil
	}
	if slices.Contains(StudyFiles, file) {
		return "", j, &RequestError{Status: http.StatusNotFound, Msg: fmt.Sprintf("%s is the result of a study over several data sets; this job ran on one", file)}
	}
	if !slices.Contains(MethodFiles, file) {
		return "", j, &RequestError{Status: http.StatusNotFound, Msg: fmt.Sprintf("a job has no result %q", file)}
	}
	method, err = methodOf(j, method)
	if err != nil {
		return "", j, err
	}
	return method + "/" + file, j, nil
}

// methodOf is the method of job j that a request names: method, or the
// job's one method when method is empty.
func methodOf(j Job, method string) (string, error) {
	ids := j.Request.MethodIDs()
	switch {
	case method == "" && len(ids) == 1:
		return ids[0], nil
	case method == "":
		return "", &RequestError{Status: http.StatusBadRequest, Field: "method", Msg: fmt.Sprintf("this job ran several methods: add ?method= one of %v", ids)}
	case !slices.Contains(ids, method):
		return "", &RequestError{Status: http.StatusNotFound, Field: "method", Msg: fmt.Sprintf("this job did not run %q; it ran %v", method, ids)}
	}
	return method, nil
}

// projectedCSV returns the path of a method's projected.csv, derived from
// its FileProjectedRows (checked first) at the first request
// (store.Store.DeriveJobResult), then checked like every result file.
// Results written before FileProjectedRows existed have the CSV itself.
func (s *Service) projectedCSV(id, method string) (string, error) {
	rel, binRel := method+"/"+FileProjected, method+"/"+FileProjectedRows
	dir := s.store.JobDir(id)
	if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(binRel))); errors.Is(err, os.ErrNotExist) {
		return s.resultFile(id, rel)
	}
	err := s.store.DeriveJobResult(id, rel, func(w io.Writer) error {
		bin, err := s.resultFile(id, binRel)
		if err != nil {
			return err
		}
		return WriteProjectedCSV(w, bin)
	})
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, filepath.FromSlash(rel)), nil
}

// WriteProjectedCSV writes projected.csv from the FileProjectedRows
// file at path, as its first download derives it.
func WriteProjectedCSV(w io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	pf, err := openProjected(f, st.Size())
	if err != nil {
		return err
	}
	return writeProjectedCSV(w, pf)
}

// resultFile checks a succeeded job's result file rel (its path in the
// result directory, with slashes) against the job's checksums and returns
// its path.
func (s *Service) resultFile(id, rel string) (string, error) {
	if err := s.store.VerifyJobResult(id, rel); err != nil {
		return "", err
	}
	return filepath.Join(s.store.JobDir(id), filepath.FromSlash(rel)), nil
}

// WithJobsParam is the query parameter (and form field) of DELETE
// /api/datasets/{id} that deletes, with the data set, the jobs that use
// it: "1" (or "true").
const WithJobsParam = "with_jobs"

// DatasetUse is how the jobs use a data set: every job that reads it
// (as its data, its test set or one of a study's data sets), how many of
// them are studies, and those still queued or running.
type DatasetUse struct {
	Jobs    []Job
	Studies int
	Active  []Job
}

// UseOf says how the jobs use data set id.
func (s *Service) UseOf(id string) (DatasetUse, error) {
	using, err := s.Using(id)
	if err != nil {
		return DatasetUse{}, fmt.Errorf("listing the jobs of data set %s: %w", id, err)
	}
	u := DatasetUse{Jobs: using}
	for _, j := range using {
		if j.Request.Study() {
			u.Studies++
		}
		if j.Status == Running {
			u.Active = append(u.Active, j)
		}
	}
	return u, nil
}

// Count says how many jobs use the data set: "3 jobs (1 of them a
// study)".
func (u DatasetUse) Count() string {
	n := fmt.Sprintf("%d jobs", len(u.Jobs))
	if len(u.Jobs) == 1 {
		n = "1 job"
	}
	switch {
	case u.Studies == 1 && len(u.Jobs) == 1:
		n += " (a study)"
	case u.Studies == 1:
		n += " (1 of them a study)"
	case u.Studies > 1:
		n += fmt.Sprintf(" (%d of them studies)", u.Studies)
	}
	return n
}

// Use says that the jobs use the data set: "3 jobs (1 of them a study)
// use", "1 job uses".
func (u DatasetUse) Use() string {
	if len(u.Jobs) == 1 {
		return u.Count() + " uses"
	}
	return u.Count() + " use"
}

// DeleteDataset deletes a data set. Without withJobs it refuses, with a
// conflict that counts the jobs that use it and names WithJobsParam, while
// any job does. With withJobs it deletes those jobs first (their records
// and result files; a queued one leaves the queue, studies over the data
// set included), then the data set; a running job refuses it (409, naming
// the job): its worker reads the data and writes results until it stops,
// so it is to be canceled first. If a job cannot be deleted the data set
// stays, and the jobs deleted before it stay deleted.
func (s *Service) DeleteDataset(id string, withJobs bool) error {
	u, err := s.UseOf(id)
	if err != nil {
		return err
	}
	if len(u.Jobs) == 0 {
		return s.store.DeleteDataset(id)
	}
	if !withJobs {
		which, them := "the first is "+u.Jobs[0].ID, "them"
		if len(u.Jobs) == 1 {
			which, them = "job "+u.Jobs[0].ID, "it"
		}
		return &RequestError{Status: http.StatusConflict, Msg: fmt.Sprintf(
			"%s this data set (%s); delete %s first, or delete %s with the data set: add ?%s=1",
			u.Use(), which, them, them, WithJobsParam)}
	}
	if len(u.Active) > 0 {
		return &RequestError{Status: http.StatusConflict, Msg: fmt.Sprintf(
			"job %s is running on this data set; cancel it, then delete the data set with its jobs", u.Active[0].ID)}
	}
	for _, j := range u.Jobs {
		if err := s.Delete(j.ID); err != nil && !errors.Is(err, ErrNotFound) {
			if errors.Is(err, ErrConflict) {
				return &RequestError{Status: http.StatusConflict, Msg: fmt.Sprintf(
					"job %s started on this data set meanwhile; cancel it, then delete the data set with its jobs", j.ID)}
			}
			return fmt.Errorf("deleting job %s of data set %s: %w", j.ID, id, err)
		}
	}
	return s.store.DeleteDataset(id)
}

// CheckRelabel refuses (a *RequestError with 409) to change the labels of
// a data set that a queued or running job uses, as its job would read
// them half way; finished jobs do not block it (they keep the labels they
// ran with, see FileLabels).
func (s *Service) CheckRelabel(id string) error {
	using, err := s.Using(id)
	if err != nil {
		return fmt.Errorf("relabelling data set %s: %w", id, err)
	}
	for _, j := range using {
		if !j.Status.Terminal() {
			return &RequestError{Status: http.StatusConflict, Msg: fmt.Sprintf(
				"job %s is %s on this data set; wait for it or cancel it, then change the labels", j.ID, j.Status)}
		}
	}
	return nil
}

// Status is the HTTP status a service error answers, if it knows one.
func Status(err error) (int, string, bool) {
	var re *RequestError
	switch {
	case errors.As(err, &re):
		return re.Status, re.Field, true
	case errors.Is(err, ErrQueueFull):
		return http.StatusTooManyRequests, "", true
	case errors.Is(err, ErrNotFound):
		return http.StatusNotFound, "", true
	case errors.Is(err, ErrConflict):
		return http.StatusConflict, "", true
	case errors.Is(err, ErrStopped):
		return http.StatusServiceUnavailable, "", true
	}
	return 0, "", false
}
