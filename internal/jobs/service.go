package jobs

import (
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"

	"mldr/internal/store"
)

// Service is what the handlers use: requests validated before they are
// queued, results found by job, method and file.
type Service struct {
	*Runner
	store  ServiceStore
	limits Limits
}

// ServiceStore is what the service needs of the storage.
type ServiceStore interface {
	DatasetLookup
	JobDir(id string) string
	DeleteDataset(id string) error
}

// NewService returns the jobs service over a runner.
func NewService(r *Runner, st ServiceStore, lim Limits) *Service {
	return &Service{Runner: r, store: st, limits: lim}
}

// Submit fills in the request's defaults, validates it whole and queues
// it. Refusals are *RequestError; a full queue is ErrQueueFull.
func (s *Service) Submit(req Request) (Job, error) {
	req.Normalize()
	if err := req.Validate(s.store, s.limits); err != nil {
		return Job{}, err
	}
	return s.Runner.Submit(store.NewID(), req)
}

// ResultPath finds a result file of a succeeded job. method may be empty
// when the job has one method; file is a name of MethodFiles or
// FileMetrics.
func (s *Service) ResultPath(id, method, file string) (string, Job, error) {
	j, err := s.Get(id)
	if err != nil {
		return "", j, err
	}
	if j.Status != Succeeded {
		return "", j, &RequestError{Status: http.StatusConflict, Msg: fmt.Sprintf("job %s has %s; results are there once it has succeeded", id, j.Status)}
	}
	if file == FileMetrics {
		if j.Request.Evaluate == nil || j.Request.Evaluate.Classifier == "none" {
			return "", j, &RequestError{Status: http.StatusNotFound, Msg: "this job ran no evaluation, so it has no metrics"}
		}
		return filepath.Join(s.store.JobDir(id), FileMetrics), j, nil
	}
	if !slices.Contains(MethodFiles, file) {
		return "", j, &RequestError{Status: http.StatusNotFound, Msg: fmt.Sprintf("a job has no result %q", file)}
	}
	ids := j.Request.MethodIDs()
	switch {
	case method == "" && len(ids) == 1:
		method = ids[0]
	case method == "":
		return "", j, &RequestError{Status: http.StatusBadRequest, Field: "method", Msg: fmt.Sprintf("this job ran several methods: add ?method= one of %v", ids)}
	case !slices.Contains(ids, method):
		return "", j, &RequestError{Status: http.StatusNotFound, Field: "method", Msg: fmt.Sprintf("this job did not run %q; it ran %v", method, ids)}
	}
	return filepath.Join(s.store.JobDir(id), method, file), j, nil
}

// DeleteDataset deletes a data set no job uses; otherwise it refuses with
// a conflict naming the jobs, to be deleted first.
func (s *Service) DeleteDataset(id string) error {
	switch using := s.Using(id); len(using) {
	case 0:
	case 1:
		return &RequestError{Status: http.StatusConflict, Msg: fmt.Sprintf("job %s uses this data set; delete it first", using[0].ID)}
	default:
		return &RequestError{Status: http.StatusConflict, Msg: fmt.Sprintf(
			"%d jobs use this data set (the first is %s); delete them first", len(using), using[0].ID)}
	}
	return s.store.DeleteDataset(id)
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
