// Package jobs runs reductions and evaluations in the background: a
// bounded pool of workers over a queue in submission order, with progress,
// cancellation, persistence and recovery after a restart or a crash. It
// also validates job requests and executes them on the analysis and
// evaluate packages, writing the result files.
package jobs

import "time"

// State is where a job is in its life.
type State string

const (
	// Queued jobs wait for a worker, in submission order.
	Queued State = "queued"
	// Running jobs are being worked on.
	Running State = "running"
	// Succeeded jobs finished; their results can be read.
	Succeeded State = "succeeded"
	// Failed jobs stopped on an error, said in Job.Error.
	Failed State = "failed"
	// Canceled jobs were stopped by a user.
	Canceled State = "canceled"
)

// Terminal reports whether a job in this state is finished for good.
func (s State) Terminal() bool { return s == Succeeded || s == Failed || s == Canceled }

// Job is a job as the API shows it and as it is stored.
type Job struct {
	ID     string `json:"id"`
	Status State  `json:"status"`
	// Progress is 0…1; Phase names the stage, Message says more.
	Progress   float64    `json:"progress"`
	Phase      string     `json:"phase"`
	Message    string     `json:"message,omitempty"`
	Error      string     `json:"error,omitempty"`
	CreatedAt  time.Time  `json:"created_at"`
	StartedAt  *time.Time `json:"started_at"`
	FinishedAt *time.Time `json:"finished_at"`
	Request    Request    `json:"request"`
	// Attempts counts the times the job started; a job interrupted by
	// restarts too often fails.
	Attempts int `json:"attempts"`
	// Notes are what the run noticed (skipped d, reused decompositions).
	Notes []string `json:"notes,omitempty"`
}
