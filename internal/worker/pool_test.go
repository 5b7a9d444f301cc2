package worker

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"mldr/internal/jobs"
	"mldr/internal/store"
)

// TestMain makes the test binary a worker when the pool starts it as one:
// the workers of these tests run fakeRun in real child processes.
func TestMain(m *testing.M) {
	if IsWorker(os.Getenv) {
		if err := Main(context.Background(), os.Getenv, fakeRun); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

const testDataset = "aaaaaaaaaaaaaaaa"

// fakeRun does what the job's method says, to test the pool's handling
// of every way a job can end.
func fakeRun(ctx context.Context, job jobs.Job, recs map[string]store.DatasetRecord, report jobs.Report) ([]string, error) {
	if _, ok := recs[job.Request.Dataset]; !ok {
		return nil, fmt.Errorf("no record for data set %q", job.Request.Dataset)
	}
	pid := "pid " + strconv.Itoa(os.Getpid())
	switch job.Request.Method {
	case "ok":
		report(0.5, "half", "way")
		time.Sleep(60 * time.Millisecond) // past the progress throttle
		report(0.9, "nearly", "")
		return []string{pid, recs[job.Request.Dataset].Name}, nil
	case "fail":
		return []string{pid}, errors.New("the data are bad")
	case "panic":
		panic("boom")
	case "crash": // a panic no recover can catch
		go func() { panic("crash in another goroutine") }()
		select {}
	case "exit":
		os.Exit(3)
	case "slow": // stops when canceled
		report(0.1, "waiting", "")
		<-ctx.Done()
		return []string{pid}, ctx.Err()
	case "hang": // ignores cancellation
		report(0.1, "hanging", "")
		select {}
	case "grow": // holds more and more memory
		var held [][]byte
		for {
			b := make([]byte, 32<<20)
			for i := range b {
				b[i] = 1
			}
			held = append(held, b)
			if len(held) > 400 {
				return []string{pid}, errors.New("the memory limit was not enforced")
			}
		}
	case "huge": // one allocation beyond the address-space limit
		b := make([]byte, 1<<40)
		b[len(b)-1] = 1
		return []string{pid}, errors.New("a terabyte was allocated")
	}
	return nil, fmt.Errorf("unknown test method %q", job.Request.Method)
}

type lookup struct{}

func (lookup) Dataset(id string) (store.DatasetRecord, error) {
	if id != testDataset {
		return store.DatasetRecord{}, store.ErrNotFound
	}
	return store.DatasetRecord{ID: id, Name: "test data"}, nil
}

func newPool(t *testing.T, cfg Config) *Pool {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg.Command = func() *exec.Cmd { return exec.Command(exe) }
	cfg.Datasets = lookup{}
	p, err := NewPool(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func job(method string) jobs.Job {
	return jobs.Job{ID: "job-" + method, Request: jobs.Request{Dataset: testDataset, Method: method}}
}

type reports struct {
	mu     sync.Mutex
	phases []string
}

func (r *reports) report(p float64, phase, msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.phases = append(r.phases, fmt.Sprintf("%.1f %s", p, phase))
}

// execute runs a job with a deadline, so that a broken pool fails the
// test instead of hanging it.
func execute(t *testing.T, p *Pool, ctx context.Context, j jobs.Job) ([]string, error, *reports) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	var r reports
	notes, err := p.Execute(ctx, j, r.report)
	if errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("job %s: no end within a minute", j.Request.Method)
	}
	return notes, err, &r
}

func TestPoolRunsJobsInWorkers(t *testing.T) {
	p := newPool(t, Config{Workers: 1})
	notes, err, r := execute(t, p, context.Background(), job("ok"))
	if err != nil {
		t.Fatalf("ok job: %v", err)
	}
	if len(notes) != 2 || notes[1] != "test data" {
		t.Fatalf("notes: got %q, want the worker's pid and the data set's name from the record sent", notes)
	}
	if notes[0] == "pid "+strconv.Itoa(os.Getpid()) {
		t.Errorf("the job ran in the server's process, want a worker process")
	}
	if want := []string{"0.5 half", "0.9 nearly"}; strings.Join(r.phases, "|") != strings.Join(want, "|") {
		t.Errorf("progress: got %q, want %q", r.phases, want)
	}
	// The same worker takes the next job; a job's failure is the job's.
	notes2, err := p.Execute(context.Background(), job("fail"), func(float64, string, string) {})
	if err == nil || err.Error() != "the data are bad" {
		t.Fatalf("failing job: got %v, want its error", err)
	}
	if notes2[0] != notes[0] {
		t.Errorf("the second job ran in %s, want the idle worker %s", notes2[0], notes[0])
	}
	// A panic in the job fails the job; the worker goes on.
	if _, err, _ := execute(t, p, context.Background(), job("panic")); err == nil || !strings.Contains(err.Error(), "internal error: boom") {
		t.Fatalf("panicking job: got %v, want internal error: boom", err)
	}
	notes3, err, _ := execute(t, p, context.Background(), job("ok"))
	if err != nil || notes3[0] != notes[0] {
		t.Errorf("after a panic: got %q, %v, want the same worker %s", notes3, err, notes[0])
	}
	// An unknown data set is refused before any worker is asked.
	bad := job("ok")
	bad.Request.Dataset = "bbbbbbbbbbbbbbbb"
	if _, err := p.Execute(context.Background(), bad, func(float64, string, string) {}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unknown data set: got %v, want ErrNotFound", err)
	}
}

func TestPoolWorkerDeaths(t *testing.T) {
	const limit = 192 << 20
	cases := []struct {
		method string
		oom    bool
		want   string
	}{
		{"grow", true, "the job needed more than 192 MiB of memory (the -max-job-memory limit), so its worker process was stopped"},
		{"huge", true, "the job needed more than 192 MiB of memory (the -max-job-memory limit), so its worker process was stopped"},
		{"crash", false, "the job's worker process crashed (panic: crash in another goroutine); the server is fine"},
		{"exit", false, "the job's worker process crashed (exit status 3); the server is fine"},
	}
	p := newPool(t, Config{Workers: 1, MemoryLimit: limit})
	for _, c := range cases {
		t.Run(c.method, func(t *testing.T) {
			if c.method == "huge" && raceEnabled {
				t.Skip("a race-enabled worker has no address-space limit; internal/e2e tests it on the real binary")
			}
			_, err, _ := execute(t, p, context.Background(), job(c.method))
			var died *DiedError
			if !errors.As(err, &died) {
				t.Fatalf("got %v, want a *DiedError", err)
			}
			if died.OutOfMemory != c.oom || !strings.Contains(died.Msg, c.want) {
				t.Errorf("got %q (out of memory %v), want %q (%v)", died.Msg, died.OutOfMemory, c.want, c.oom)
			}
			// A new worker takes the next job.
			if _, err, _ := execute(t, p, context.Background(), job("ok")); err != nil {
				t.Errorf("the next job: %v", err)
			}
		})
	}
}

func TestPoolWorkerKilledBySignal(t *testing.T) {
	p := newPool(t, Config{Workers: 1})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	started := make(chan struct{})
	var once sync.Once
	go func() {
		_, err := p.Execute(ctx, job("slow"), func(float64, string, string) { once.Do(func() { close(started) }) })
		errc <- err
	}()
	select {
	case <-started:
	case <-time.After(30 * time.Second):
		t.Fatal("the job did not start")
	}
	p.mu.Lock()
	var pid int
	for w := range p.all {
		pid = w.pid
	}
	p.mu.Unlock()
	if err := syscallKill(pid); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		if err == nil || !strings.Contains(err.Error(), "the job's worker process was killed by signal 9 (killed); the server is fine") {
			t.Errorf("got %v, want the signal sentence", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no end after the worker was killed")
	}
}

func TestPoolCancel(t *testing.T) {
	for _, c := range []struct {
		method     string
		sameWorker bool // a job that stops in time keeps its worker
	}{{"slow", true}, {"hang", false}} {
		t.Run(c.method, func(t *testing.T) {
			p := newPool(t, Config{Workers: 1, CancelGrace: 300 * time.Millisecond})
			first, err, _ := execute(t, p, context.Background(), job("ok"))
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			var once sync.Once
			errc := make(chan error, 1)
			go func() {
				_, err := p.Execute(ctx, job(c.method), func(float64, string, string) { once.Do(cancel) })
				errc <- err
			}()
			select {
			case err := <-errc:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("got %v, want context.Canceled", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the canceled job did not end within 5 s")
			}
			next, err, _ := execute(t, p, context.Background(), job("ok"))
			if err != nil {
				t.Fatalf("the next job: %v", err)
			}
			if same := next[0] == first[0]; same != c.sameWorker {
				t.Errorf("next job in %s after %s in %s: same worker %v, want %v", next[0], c.method, first[0], same, c.sameWorker)
			}
		})
	}
}

func TestPoolClose(t *testing.T) {
	p := newPool(t, Config{Workers: 2})
	var pids []int
	p.mu.Lock()
	for w := range p.all {
		pids = append(pids, w.pid)
	}
	p.mu.Unlock()
	if len(pids) != 2 {
		t.Fatalf("got %d workers, want 2 started at once", len(pids))
	}
	p.Close()
	for _, pid := range pids {
		if alive(pid) {
			t.Errorf("worker %d still runs after Close", pid)
		}
	}
	if _, err := p.Execute(context.Background(), job("ok"), func(float64, string, string) {}); !errors.Is(err, jobs.ErrStopped) {
		t.Errorf("after Close: got %v, want ErrStopped", err)
	}
}
