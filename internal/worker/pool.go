package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"mldr/internal/jobs"
	"mldr/internal/store"
)

// Config configures a Pool.
type Config struct {
	// Command returns the command that starts one worker: the server's
	// own binary with what it needs to find the data directory. The pool
	// adds the protocol's pipes and environment.
	Command func() *exec.Cmd
	// Workers is how many worker processes run at most (one job each).
	Workers int
	// MemoryLimit is the memory a worker may hold, in bytes; 0: no limit.
	MemoryLimit int64
	// Datasets finds the records of the data sets a job reads.
	Datasets jobs.DatasetLookup
	// Logger receives the workers' standard error and their ends.
	Logger *slog.Logger
	// CancelGrace is how long a canceled job's worker may take to stop
	// before it is killed; 0 means one second.
	CancelGrace time.Duration
	// WatchEvery is how often a worker's resident memory is checked; 0
	// means every 50 ms.
	WatchEvery time.Duration
}

// Pool runs jobs in worker processes. Its Execute is a jobs.Work.
type Pool struct {
	cfg    Config
	mu     sync.Mutex
	idle   []*proc
	all    map[*proc]struct{}
	closed bool
}

// NewPool starts cfg.Workers worker processes.
func NewPool(cfg Config) (*Pool, error) {
	if cfg.Workers < 1 {
		cfg.Workers = 1
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.CancelGrace <= 0 {
		cfg.CancelGrace = time.Second
	}
	if cfg.WatchEvery <= 0 {
		cfg.WatchEvery = 50 * time.Millisecond
	}
	p := &Pool{cfg: cfg, all: map[*proc]struct{}{}}
	for range cfg.Workers {
		w, err := p.start()
		if err != nil {
			p.Close()
			return nil, err
		}
		p.idle = append(p.idle, w)
	}
	return p, nil
}

// Execute runs a job in an idle worker (starting one if a worker died),
// relaying its progress. A canceled ctx asks the worker to stop and kills
// it after the grace period. A worker that dies fails the job with a
// *DiedError, and is replaced for the next job.
func (p *Pool) Execute(ctx context.Context, job jobs.Job, report jobs.Report) ([]string, error) {
	recs := map[string]store.DatasetRecord{}
	for _, id := range job.Request.DatasetIDs() {
		rec, err := p.cfg.Datasets.Dataset(id)
		if err != nil {
			return nil, fmt.Errorf("data set %s: %w", id, err)
		}
		recs[id] = rec
	}
	w, err := p.get()
	if err != nil {
		return nil, err
	}
	if err := w.send(command{Job: &job, Datasets: recs}); err != nil {
		return nil, p.lost(w, job.ID)
	}
	canceled := false
	var grace <-chan time.Time
	for {
		select {
		case ev, ok := <-w.events:
			switch {
			case !ok && canceled:
				w.stop(p.cfg.CancelGrace)
				p.drop(w)
				return nil, ctx.Err()
			case !ok:
				return nil, p.lost(w, job.ID)
			case ev.Progress != nil && !canceled:
				report(ev.Progress.Value, ev.Progress.Phase, ev.Progress.Message)
			case ev.Done != nil:
				p.put(w)
				d := ev.Done
				switch {
				case d.Error == "":
					return d.Notes, nil
				case d.Canceled && ctx.Err() != nil:
					return d.Notes, ctx.Err()
				}
				return d.Notes, errors.New(d.Error)
			}
		case <-ctx.Done():
			if !canceled {
				canceled = true
				w.send(command{Cancel: true}) // a dead worker is found by its events
				grace = time.After(p.cfg.CancelGrace)
			}
		case <-grace:
			p.cfg.Logger.Info("worker: a canceled job did not stop in time; its worker is killed", "job", job.ID, "pid", w.pid, "grace", p.cfg.CancelGrace)
			w.kill()
			<-w.exited
			p.drop(w)
			return nil, ctx.Err()
		}
	}
}

// get takes an idle worker, or starts one in the place of one that died.
func (p *Pool) get() (*proc, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, jobs.ErrStopped
	}
	if n := len(p.idle); n > 0 {
		w := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		select {
		case <-w.exited: // died while idle
			p.drop(w)
			return p.get()
		default:
			return w, nil
		}
	}
	p.mu.Unlock()
	return p.start()
}

func (p *Pool) put(w *proc) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.closed { // else Close stops it
		p.idle = append(p.idle, w)
	}
}

// drop forgets a worker that exited.
func (p *Pool) drop(w *proc) {
	p.mu.Lock()
	delete(p.all, w)
	p.mu.Unlock()
}

// lost waits for a worker whose events ended, forgets it and says why it
// died.
func (p *Pool) lost(w *proc, job string) error {
	select {
	case <-w.exited:
	case <-time.After(5 * time.Second):
		w.kill()
		<-w.exited
	}
	p.drop(w)
	err := w.died(p.cfg.MemoryLimit)
	p.cfg.Logger.Error("worker: died during a job; a new one takes its place", "job", job, "pid", w.pid, "err", err, "stderr", w.stderr.tail())
	return err
}

// Close stops every worker: idle ones at once, busy ones after their job
// (the runner cancels jobs before it closes the pool). It waits for them.
func (p *Pool) Close() error {
	p.mu.Lock()
	p.closed = true
	all := make([]*proc, 0, len(p.all))
	for w := range p.all {
		all = append(all, w)
	}
	p.idle = nil
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, w := range all {
		wg.Go(func() { w.stop(p.cfg.CancelGrace + time.Second) })
	}
	wg.Wait()
	return nil
}

// proc is one worker process.
type proc struct {
	cmd       *exec.Cmd
	pid       int
	cmds      *os.File   // to the worker
	events    chan event // from it; closed when its pipe ends
	exited    chan struct{}
	waitErr   error // set before exited is closed
	stderr    *tailWriter
	overLimit chan int64 // resident bytes when the watch killed it
}

func (p *Pool) start() (*proc, error) {
	cmd := p.cfg.Command()
	cmdR, cmdW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("starting a worker: %w", err)
	}
	evR, evW, err := os.Pipe()
	if err != nil {
		cmdR.Close()
		cmdW.Close()
		return nil, fmt.Errorf("starting a worker: %w", err)
	}
	w := &proc{cmd: cmd, cmds: cmdW, events: make(chan event, 16), exited: make(chan struct{}), overLimit: make(chan int64, 1),
		stderr: &tailWriter{log: p.cfg.Logger}}
	cmd.ExtraFiles = []*os.File{cmdR, evW}
	cmd.Env = append(cmd.Environ(), EnvProtocol+"=1", envMemory+"="+strconv.FormatInt(p.cfg.MemoryLimit, 10),
		"MALLOC_ARENA_MAX=2") // C libraries' threads (OpenBLAS) then reserve little address space
	cmd.Stdout, cmd.Stderr = w.stderr, w.stderr
	cmd.SysProcAttr = sysProcAttr()
	err = cmd.Start()
	cmdR.Close()
	evW.Close()
	if err != nil {
		cmdW.Close()
		evR.Close()
		return nil, fmt.Errorf("starting a worker: %w", err)
	}
	w.pid = cmd.Process.Pid
	w.stderr.pid = w.pid
	p.mu.Lock()
	p.all[w] = struct{}{}
	p.mu.Unlock()
	go w.read(evR)
	go func() {
		w.waitErr = cmd.Wait()
		cmdW.Close()
		close(w.exited)
	}()
	if p.cfg.MemoryLimit > 0 {
		go w.watch(p.cfg.MemoryLimit, p.cfg.WatchEvery)
	}
	return w, nil
}

// read decodes the worker's events until its pipe ends.
func (w *proc) read(r *os.File) {
	defer close(w.events)
	defer r.Close()
	dec := json.NewDecoder(r)
	for {
		var ev event
		if err := dec.Decode(&ev); err != nil {
			return
		}
		w.events <- ev
	}
}

// watch kills the worker when its resident memory exceeds limit.
func (w *proc) watch(limit int64, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-w.exited:
			return
		case <-t.C:
			rss, err := residentBytes(w.pid)
			if err != nil {
				if errors.Is(err, errors.ErrUnsupported) {
					return
				}
				continue // exiting
			}
			if rss > limit {
				w.overLimit <- rss
				w.kill()
				return
			}
		}
	}
}

func (w *proc) send(c command) error {
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	_, err = w.cmds.Write(append(b, '\n'))
	return err
}

func (w *proc) kill() { w.cmd.Process.Signal(syscall.SIGKILL) }

// stop closes the worker's command pipe, which ends it, and kills it if
// it has not exited within grace.
func (w *proc) stop(grace time.Duration) {
	w.cmds.Close()
	select {
	case <-w.exited:
	case <-time.After(grace):
		w.kill()
		<-w.exited
	}
}

// DiedError is the failure of a job whose worker process died.
type DiedError struct {
	// OutOfMemory says the worker exceeded its memory limit.
	OutOfMemory bool
	Msg         string
}

func (e *DiedError) Error() string { return e.Msg }

// died says why an exited worker died, in a sentence for the job's page.
func (w *proc) died(limit int64) error {
	tail, crash := w.stderr.tail(), w.stderr.crashLine()
	var rss int64
	select {
	case rss = <-w.overLimit:
	default:
	}
	if rss > 0 || strings.Contains(crash, "out of memory") || strings.Contains(tail, "out of memory") || strings.Contains(tail, "cannot allocate memory") {
		msg := "the job needed more memory than its worker process may use"
		if limit > 0 {
			msg = fmt.Sprintf("the job needed more than %s of memory (the -max-job-memory limit)", store.FormatBytes(limit))
		}
		return &DiedError{OutOfMemory: true, Msg: msg + ", so its worker process was stopped. The server is fine. " +
			"Try fewer rows or features, a method that needs less memory, or ask for a higher -max-job-memory."}
	}
	var ee *exec.ExitError
	if errors.As(w.waitErr, &ee) {
		if st, ok := ee.Sys().(syscall.WaitStatus); ok && st.Signaled() {
			return &DiedError{Msg: fmt.Sprintf("the job's worker process was killed by signal %d (%s); the server is fine, and the job can be run again", int(st.Signal()), st.Signal())}
		}
	}
	why := crash
	if why == "" && w.waitErr != nil {
		why = w.waitErr.Error()
	}
	if why == "" {
		why = "it exited in the middle of the job"
	}
	return &DiedError{Msg: fmt.Sprintf("the job's worker process crashed (%s); the server is fine, and the job can be run again", why)}
}

// tailWriter passes a worker's output, line by line, to the log and keeps
// its last few kilobytes, to say why the worker died.
type tailWriter struct {
	log   *slog.Logger
	pid   int
	mu    sync.Mutex
	part  []byte // an unfinished line
	last  []byte
	crash string // the first line of a crash report
}

const tailBytes = 8 << 10

func (t *tailWriter) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.last = append(t.last, b...)
	if len(t.last) > 2*tailBytes {
		t.last = append(t.last[:0], t.last[len(t.last)-tailBytes:]...)
	}
	t.part = append(t.part, b...)
	for {
		i := bytes.IndexByte(t.part, '\n')
		if i < 0 {
			break
		}
		line := string(t.part[:i])
		t.log.Warn("worker", "pid", t.pid, "line", line)
		if t.crash == "" && (strings.HasPrefix(line, "panic: ") || strings.HasPrefix(line, "fatal error: ")) {
			if r := []rune(line); len(r) > 160 {
				line = string(r[:157]) + "…"
			}
			t.crash = line
		}
		t.part = t.part[i+1:]
	}
	if len(t.part) > tailBytes { // a line without end
		t.log.Warn("worker", "pid", t.pid, "line", string(t.part))
		t.part = t.part[:0]
	}
	return len(b), nil
}

// crashLine is the line of a Go crash report that says what happened
// ("panic: …", "fatal error: …"), cut short; "" if there was none.
func (t *tailWriter) crashLine() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.crash
}

func (t *tailWriter) tail() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.last
	if len(b) > tailBytes {
		b = b[len(b)-tailBytes:]
	}
	return string(b)
}
