package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"time"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/analysis"
	"mldr/internal/sparse"
)

// task is what a child process times. The parent gives it to the Go child
// as JSON in the hidden -child flag, and to the numpy reference as
// command-line flags (pythonArgs); both answer with a childResult.
type task struct {
	// Work is a method id of package analysis, or workEigen.
	Work string `json:"work"`
	// X and Y are the .npy files of the features and labels (methods), A
	// the symmetric matrix (eigen).
	X string `json:"x,omitempty"`
	Y string `json:"y,omitempty"`
	A string `json:"a,omitempty"`
	// CSR are the sparse features' files (the wide rows), instead of X.
	CSR *csrFiles `json:"csr,omitempty"`
	// Classes are the category counts of class variables (multi-dimensional
	// data), nil for 0/1 labels.
	Classes []int `json:"classes,omitempty"`
	// D is the target dimension given to every method.
	D int `json:"d"`
	// K is how many eigenpairs the eigen case computes.
	K int `json:"k,omitempty"`
	// Reps is how many runs are timed.
	Reps int `json:"reps"`
	// WarmupUnder, in seconds: a first run shorter than this is an untimed
	// warm-up, a longer one is the first timed run.
	WarmupUnder float64 `json:"warmup_under"`
	// Top is how many leading eigenvalues the child reports.
	Top int `json:"top"`
	// TrainRows is how many rows, the first ones, the ML-kNN rows train
	// on (workMLkNN).
	TrainRows int `json:"train_rows,omitempty"`
}

// childResult is what a child prints on its standard output, as JSON.
type childResult struct {
	// Times are the timed runs, in seconds.
	Times []float64 `json:"times"`
	// Warmup is the untimed first run in seconds, nil when it was timed.
	Warmup *float64 `json:"warmup"`
	// Eig are the leading eigenvalues of the last run, descending.
	Eig []float64 `json:"eig"`
	// Metrics are the test rows' metrics of the last run of an ML-kNN row
	// (nil: undefined), Rows the mean rows of an evaluation (the numpy +
	// scikit-learn script's), for the agreement with the product.
	Metrics map[string]*float64 `json:"metrics,omitempty"`
	Rows    []metricsRow        `json:"rows,omitempty"`
	// Load is the seconds the numpy + scikit-learn script took to read its
	// data, before the timed runs.
	Load float64 `json:"load,omitempty"`
}

// timeRuns runs run until reps runs are timed, calling settle before
// each (untimed: the Go child collects garbage there, the numpy reference
// does the same with gc.collect). A first run shorter than warmupUnder is
// a warm-up and not counted; a longer one counts, since a warm-up would
// cost more than it could change. now is the clock.
func timeRuns(ctx context.Context, reps int, warmupUnder time.Duration, now func() time.Time, settle func(), run func() error) (times []time.Duration, warmup time.Duration, err error) {
	if reps < 1 {
		return nil, 0, fmt.Errorf("timing: reps = %d, want at least 1", reps)
	}
	for len(times) < reps {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		settle()
		start := now()
		if err := run(); err != nil {
			return nil, 0, err
		}
		took := now().Sub(start)
		if len(times) == 0 && warmup == 0 && took < warmupUnder {
			warmup = max(took, time.Nanosecond) // a warm-up happened, however short
			continue
		}
		times = append(times, took)
	}
	return times, warmup, nil
}

// runGoChild is the Go child: it loads the task's data, times the product's
// code for it and writes a childResult to w. Methods go through
// analysis.Fit with the input built as internal/jobs builds it and the
// parameters restricted to the method's own (Params.Only), as a job does;
// the eigen case calls topEig; the ML-kNN rows evaluate.MLkNN (mlknnRun).
func runGoChild(ctx context.Context, raw string, w io.Writer) error {
	var t task
	if err := json.Unmarshal([]byte(raw), &t); err != nil {
		return fmt.Errorf("reading the child's task: %w", err)
	}
	var run func() error
	var eig []float64
	var finish func() map[string]*float64
	switch t.Work {
	case workMLkNN:
		x, err := loadNPY(t.X)
		if err != nil {
			return err
		}
		y, err := loadNPY(t.Y)
		if err != nil {
			return err
		}
		if run, finish, err = mlknnRun(ctx, x, y, t.TrainRows); err != nil {
			return err
		}
	case workEigen:
		m, err := loadNPY(t.A)
		if err != nil {
			return err
		}
		n, c := m.Dims()
		if n != c {
			return fmt.Errorf("eigen: %s is %d×%d, not square", t.A, n, c)
		}
		a := mat.NewSymDense(n, m.RawMatrix().Data)
		run = func() error {
			vals, _, err := topEig(ctx, a, t.K)
			eig = vals
			return err
		}
	default:
		method, ok := analysis.Lookup(t.Work)
		if !ok {
			return fmt.Errorf("unknown method %q", t.Work)
		}
		in, err := goInput(t)
		if err != nil {
			return err
		}
		p := analysis.Params{D: t.D}.Only(method.Takes)
		run = func() error {
			m, err := analysis.Fit(ctx, t.Work, in, p, nil)
			if err != nil {
				return fmt.Errorf("fitting %s: %w", t.Work, err)
			}
			eig = m.Eigenvalues
			return nil
		}
	}
	times, warmup, err := timeRuns(ctx, t.Reps, seconds(t.WarmupUnder), time.Now, runtime.GC, run)
	if err != nil {
		return err
	}
	res := childResult{Eig: eig[:min(t.Top, len(eig))]}
	if finish != nil {
		res.Metrics = finish()
	}
	for _, d := range times {
		res.Times = append(res.Times, d.Seconds())
	}
	if warmup > 0 {
		s := warmup.Seconds()
		res.Warmup = &s
	}
	if err := json.NewEncoder(w).Encode(res); err != nil {
		return fmt.Errorf("writing the child's result: %w", err)
	}
	return nil
}

// goInput loads the task's data into the input of analysis.Fit, as
// internal/jobs builds it: dense features and the labels (or class
// variables), or for the wide rows the sparse features (wideInput).
func goInput(t task) (analysis.Input, error) {
	y, err := loadNPY(t.Y)
	if err != nil {
		return analysis.Input{}, err
	}
	if t.CSR != nil {
		m, err := loadCSR(*t.CSR)
		if err != nil {
			return analysis.Input{}, err
		}
		if r, _ := y.Dims(); r != m.R {
			return analysis.Input{}, fmt.Errorf("%d rows of sparse features (%s) and %d of labels (%s)", m.R, t.CSR.Indptr, r, t.Y)
		}
		return wideInput(m, y), nil
	}
	x, err := loadNPY(t.X)
	if err != nil {
		return analysis.Input{}, err
	}
	return analysis.Input{X: x, Y: y, Classes: t.Classes}, nil
}

// wideInput is the input of analysis.Fit for the wide rows: the sparse
// features m and the 0/1 labels y. It is the one place that says how the
// Go side takes sparse data.
func wideInput(m *sparse.CSR, y *mat.Dense) analysis.Input {
	return analysis.Input{Sparse: m, Y: y}
}

// seconds converts seconds to a duration.
func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
