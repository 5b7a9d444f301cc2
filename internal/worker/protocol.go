package worker

import (
	"mldr/internal/jobs"
	"mldr/internal/store"
)

// command is a line from the server to a worker: a job to run, or the
// cancellation of the running one.
type command struct {
	Job *jobs.Job `json:"job,omitempty"`
	// Datasets are the records of the data sets the job reads, by id.
	Datasets map[string]store.DatasetRecord `json:"datasets,omitempty"`
	Cancel   bool                           `json:"cancel,omitempty"`
}

// event is a line from a worker to the server: progress of the running
// job, or its end.
type event struct {
	Progress *progress `json:"progress,omitempty"`
	Done     *done     `json:"done,omitempty"`
}

type progress struct {
	Value   float64 `json:"value"`
	Phase   string  `json:"phase"`
	Message string  `json:"message,omitempty"`
}

type done struct {
	Notes []string `json:"notes,omitempty"`
	// Error is the job's failure, "" when it succeeded.
	Error string `json:"error,omitempty"`
	// Canceled says the job stopped because it was canceled.
	Canceled bool `json:"canceled,omitempty"`
}

// Environment of a worker process.
const (
	// EnvProtocol marks a process as a worker ("1").
	EnvProtocol = "MLDR_WORKER_PROTOCOL"
	// envMemory is the worker's memory limit in bytes ("0": none).
	envMemory = "MLDR_WORKER_MEMORY"
)

// IsWorker reports whether the process was started as a worker, from its
// environment.
func IsWorker(getenv func(string) string) bool { return getenv(EnvProtocol) == "1" }
