// Package jobs runs reductions and evaluations in the background: a
// bounded pool of workers over a queue in submission order, with progress,
// cancellation, persistence and recovery after a restart or a crash. It
// also validates job requests and executes them on the analysis and
// evaluate packages, writing the result files.
package jobs

import (
	"slices"
	"strings"
	"time"

	"mldr/internal/analysis"
)

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
	// Phases are the wall time of each phase of the last run, in the
	// order they began (see PhaseOf); they add up to its duration.
	Phases []PhaseTime `json:"phases,omitempty"` // Task, when set, makes this not a job to run but one piece of an
	// out-of-core run of it, handed to a worker by the shared queue: the
	// statistics of one method on one row shard (see ShardTask). It is
	// never in a stored record.
	Task *ShardTask `json:"shard_task,omitempty"`
}

// PhaseTime is the wall time a run spent in one phase.
type PhaseTime struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
}

// The phases of a run, as PhaseOf names them.
const (
	PhaseStart    = "start"    // from the start to the executor's first report: the hand-off to a worker
	PhaseLoad     = "load"     // reading the data
	PhaseFit      = "fit"      // fitting the result models
	PhaseEvaluate = "evaluate" // the evaluation (and a study's comparison)
	PhaseWrite    = "write"    // writing and committing the result files, to the end of the run
	PhaseOther    = "other"    // anything the executor named otherwise
)

// PhaseOf names the phase of a run that a report's phase ("loading",
// "fitting pca", "pca: the eigenvectors", "writing pca", "evaluating",
// "saving", …)
// belongs to.
func PhaseOf(phase string) string {
	switch {
	case phase == "starting":
		return PhaseStart
	case phase == "loading":
		return PhaseLoad
	case strings.HasPrefix(phase, "fitting "):
		return PhaseFit
	case phase == "evaluating" || phase == "comparing":
		return PhaseEvaluate
	case phase == "saving" || strings.HasPrefix(phase, "writing "):
		return PhaseWrite
	}
	if id, _, ok := strings.Cut(phase, ": "); ok {
		if _, method := analysis.Lookup(id); method {
			return PhaseFit
		}
	}
	return PhaseOther
}

// AddPhase adds d to the phase's time, appending the phase when it is new.
// It changes a copy: copies of the job handed out before share the old
// slice, and may be read at the same time. Queues use it to account a
// run's wall time by phase (see PhaseOf).
func (j *Job) AddPhase(name string, d time.Duration) {
	j.Phases = slices.Clone(j.Phases)
	for i := range j.Phases {
		if j.Phases[i].Name == name {
			j.Phases[i].Seconds += d.Seconds()
			return
		}
	}
	j.Phases = append(j.Phases, PhaseTime{Name: name, Seconds: d.Seconds()})
}
