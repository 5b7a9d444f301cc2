package worker

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"time"

	"mldr/internal/jobs"
	"mldr/internal/store"
)

// Run does one job in a worker: datasets are the records of the data sets
// it reads. It is jobs.Work with the records the server sent.
type Run func(ctx context.Context, job jobs.Job, datasets map[string]store.DatasetRecord, report jobs.Report) ([]string, error)

// Main is a worker process's main: it applies the memory limit the server
// set in the environment, then serves jobs from the server's pipes
// (descriptors 3 and 4) with run until the server closes them or ctx is
// done.
func Main(ctx context.Context, getenv func(string) string, run Run) error {
	limit, err := MemoryLimit(getenv)
	if err != nil {
		return err
	}
	if err := limitMemory(limit); err != nil {
		return fmt.Errorf("worker: limiting memory to %d bytes: %w", limit, err)
	}
	cmds, events := os.NewFile(3, "commands"), os.NewFile(4, "events")
	if cmds == nil || events == nil {
		return errors.New("worker: started without the server's pipes (descriptors 3 and 4)")
	}
	defer cmds.Close()
	defer events.Close()
	return Serve(ctx, cmds, events, run)
}

// MemoryLimit is the memory limit the server gave a worker, from its
// environment (0: none).
func MemoryLimit(getenv func(string) string) (int64, error) {
	limit, err := strconv.ParseInt(getenv(envMemory), 10, 64)
	if err != nil || limit < 0 {
		return 0, fmt.Errorf("worker: bad %s %q", envMemory, getenv(envMemory))
	}
	return limit, nil
}

// Serve reads commands from cmds, runs each job with run, one at a time,
// and writes its progress and its end to events, one JSON object a line.
// A cancel command cancels the running job's context. It returns nil when
// cmds ends (the running job, if any, is canceled and waited for) and
// ctx.Err() when ctx is done. A panic in run fails the job, not the
// worker.
func Serve(ctx context.Context, cmds io.Reader, events io.Writer, run Run) error {
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	out := &eventWriter{enc: json.NewEncoder(events)}
	var (
		mu      sync.Mutex
		cancel  context.CancelFunc // of the running job
		running sync.WaitGroup
	)
	lines := make(chan command)
	readErr := make(chan error, 1)
	go func() { // ends when cmds ends: the server closes it, or dies
		sc := bufio.NewScanner(cmds)
		sc.Buffer(make([]byte, 64<<10), 64<<20) // a job's request and records
		for sc.Scan() {
			var c command
			if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
				readErr <- fmt.Errorf("worker: reading a command: %w", err)
				return
			}
			select {
			case lines <- c:
			case <-ctx.Done():
				return
			}
		}
		readErr <- sc.Err()
	}()
	defer running.Wait()
	defer func() {
		mu.Lock()
		if cancel != nil {
			cancel()
		}
		mu.Unlock()
	}()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-readErr:
			return err
		case c := <-lines:
			switch {
			case c.Cancel:
				mu.Lock()
				if cancel != nil {
					cancel()
				}
				mu.Unlock()
			case c.Job != nil:
				running.Wait() // the server sends a job only after the last one's end
				jctx, jcancel := context.WithCancel(ctx)
				mu.Lock()
				cancel = jcancel
				mu.Unlock()
				running.Add(1)
				go func(job jobs.Job, recs map[string]store.DatasetRecord) {
					defer running.Done()
					notes, err := runSafely(jctx, job, recs, run, out.progress)
					d := &done{Notes: notes}
					if err != nil {
						d.Error = err.Error()
						d.Canceled = jctx.Err() != nil
					}
					mu.Lock()
					cancel = nil
					mu.Unlock()
					jcancel()
					out.write(event{Done: d})
				}(*c.Job, c.Datasets)
			}
		}
	}
}

// runSafely calls run, turning a panic into the job's error.
func runSafely(ctx context.Context, job jobs.Job, recs map[string]store.DatasetRecord, run Run, report jobs.Report) (notes []string, err error) {
	defer func() {
		if v := recover(); v != nil {
			fmt.Fprintf(os.Stderr, "worker: job %s panicked: %v\n", job.ID, v)
			err = fmt.Errorf("internal error: %v", v)
		}
	}()
	return run(ctx, job, recs, report)
}

// eventWriter writes events, one at a time, sending progress at most
// every progressEvery unless its phase changes.
type eventWriter struct {
	mu    sync.Mutex
	enc   *json.Encoder
	last  time.Time
	phase string
}

const progressEvery = 50 * time.Millisecond

func (w *eventWriter) progress(p float64, phase, msg string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := time.Now()
	if phase == w.phase && now.Sub(w.last) < progressEvery {
		return
	}
	w.last, w.phase = now, phase
	w.enc.Encode(event{Progress: &progress{Value: p, Phase: phase, Message: msg}}) // a broken pipe ends the worker at the next read
}

func (w *eventWriter) write(e event) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.enc.Encode(e)
}
