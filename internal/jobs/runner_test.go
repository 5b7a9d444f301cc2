package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// rtTimeout bounds every wait of these tests; it is generous because they
// run under -race on loaded machines, and a passing test never waits it out.
const rtTimeout = 10 * time.Second

// rtReq is a request the runner accepts (it does not validate).
var rtReq = Request{Dataset: "x", Method: "pca"}

// rtBase is the fake clock's start, in a zone other than UTC so that the
// runner's conversion to UTC shows.
var rtBase = time.Date(2030, 1, 2, 3, 4, 5, 0, time.FixedZone("UTC+1", 3600))

// rtStore is an in-memory Persistence that can be made to fail.
type rtStore struct {
	mu        sync.Mutex
	recs      map[string][]byte
	saves     []Job // every record saved, in order
	saveErr   error
	deleteErr error
	loadErr   error
}

func rtNewStore() *rtStore { return &rtStore{recs: map[string][]byte{}} }

func (s *rtStore) SaveJob(id string, data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.saveErr != nil {
		return s.saveErr
	}
	var j Job
	if err := json.Unmarshal(data, &j); err != nil {
		return fmt.Errorf("rtStore: the runner saved a record that does not decode: %w", err)
	}
	s.recs[id] = slices.Clone(data)
	s.saves = append(s.saves, j)
	return nil
}

func (s *rtStore) LoadJobs() (map[string][]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.loadErr != nil {
		return nil, s.loadErr
	}
	out := make(map[string][]byte, len(s.recs))
	for id, data := range s.recs {
		out[id] = slices.Clone(data)
	}
	return out, nil
}

func (s *rtStore) DeleteJob(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.deleteErr != nil {
		return s.deleteErr
	}
	delete(s.recs, id)
	return nil
}

func (s *rtStore) failSave(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.saveErr = err
}

func (s *rtStore) failDelete(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.deleteErr = err
}

// put stores a record as a previous run would have left it.
func (s *rtStore) put(t *testing.T, j Job) {
	t.Helper()
	data, err := json.Marshal(j)
	if err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recs[j.ID] = data
}

func (s *rtStore) raw(id string) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	data, ok := s.recs[id]
	return slices.Clone(data), ok
}

// job decodes the stored record of id.
func (s *rtStore) job(t *testing.T, id string) (Job, bool) {
	t.Helper()
	data, ok := s.raw(id)
	if !ok {
		return Job{}, false
	}
	var j Job
	if err := json.Unmarshal(data, &j); err != nil {
		t.Fatalf("stored record of %s: %v", id, err)
	}
	return j, true
}

// mustJob is job for a record that must be there.
func (s *rtStore) mustJob(t *testing.T, id string) Job {
	t.Helper()
	j, ok := s.job(t, id)
	if !ok {
		t.Fatalf("no stored record of job %s, want one", id)
	}
	return j
}

// savesOf returns the records saved for id, in order.
func (s *rtStore) savesOf(id string) []Job {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Job
	for _, j := range s.saves {
		if j.ID == id {
			out = append(out, j)
		}
	}
	return out
}

// rtClock is a fake clock; each reading advances it by step.
type rtClock struct {
	mu   sync.Mutex
	now  time.Time
	step time.Duration
}

func (c *rtClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.now
	c.now = c.now.Add(c.step)
	return t
}

func (c *rtClock) setStep(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.step = d
}

func (c *rtClock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// rtExec is a fake Work. By default a job blocks until the test releases
// it (then succeeds) or its context is done (then returns ctx.Err()); on
// gives a job other behaviour. It records the start order and how many
// jobs ran at once.
type rtExec struct {
	mu      sync.Mutex
	gates   map[string]chan struct{}
	started map[string]chan struct{}
	behave  map[string]Work
	order   []string
	results map[string]error

	running atomic.Int32
	maxRun  atomic.Int32
}

func rtNewExec() *rtExec {
	return &rtExec{
		gates:   map[string]chan struct{}{},
		started: map[string]chan struct{}{},
		behave:  map[string]Work{},
		results: map[string]error{},
	}
}

// chanLocked returns m[id], making it first. Called with x.mu held.
func (x *rtExec) chanLocked(m map[string]chan struct{}, id string) chan struct{} {
	ch, ok := m[id]
	if !ok {
		ch = make(chan struct{})
		m[id] = ch
	}
	return ch
}

func (x *rtExec) Work(ctx context.Context, job Job, report Report) (notes []string, err error) {
	n := x.running.Add(1)
	defer x.running.Add(-1)
	for {
		m := x.maxRun.Load()
		if n <= m || x.maxRun.CompareAndSwap(m, n) {
			break
		}
	}
	x.mu.Lock()
	x.order = append(x.order, job.ID)
	w := x.behave[job.ID]
	gate := x.chanLocked(x.gates, job.ID)
	close(x.chanLocked(x.started, job.ID))
	x.mu.Unlock()
	defer func() {
		x.mu.Lock()
		x.results[job.ID] = err
		x.mu.Unlock()
	}()
	if w != nil {
		return w(ctx, job, report)
	}
	select {
	case <-gate:
		return []string{"ran " + job.ID}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// on makes job id run w instead of blocking.
func (x *rtExec) on(id string, w Work) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.behave[id] = w
}

// release lets a blocking job succeed, now or when it starts.
func (x *rtExec) release(id string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	close(x.chanLocked(x.gates, id))
}

// waitStarted waits until job id has started.
func (x *rtExec) waitStarted(t *testing.T, id string) {
	t.Helper()
	x.mu.Lock()
	ch := x.chanLocked(x.started, id)
	x.mu.Unlock()
	select {
	case <-ch:
	case <-time.After(rtTimeout):
		t.Fatalf("timed out waiting for job %s to start", id)
	}
}

func (x *rtExec) startOrder() []string {
	x.mu.Lock()
	defer x.mu.Unlock()
	return slices.Clone(x.order)
}

// result is what the Work of job id returned, and whether it returned.
func (x *rtExec) result(id string) (error, bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	err, ok := x.results[id]
	return err, ok
}

// rtFixture is a runner over fakes.
type rtFixture struct {
	r     *Runner
	store *rtStore
	exec  *rtExec
	clock *rtClock
}

// rtStart starts a runner over st (a new store if nil), a fake Work and a
// fake clock at rtBase; configure may change the rest of the Config. The
// runner is shut down when the test ends.
func rtStart(t *testing.T, st *rtStore, configure func(*Config)) *rtFixture {
	t.Helper()
	if st == nil {
		st = rtNewStore()
	}
	f := &rtFixture{store: st, exec: rtNewExec(), clock: &rtClock{now: rtBase}}
	cfg := Config{Store: st, Execute: f.exec.Work, Workers: 1, Now: f.clock.Now}
	if configure != nil {
		configure(&cfg)
	}
	r, err := New(cfg)
	if err != nil {
		t.Fatalf("New: got error %v, want nil", err)
	}
	f.r = r
	t.Cleanup(func() {
		// An expired context: stop-and-cancel whatever still runs.
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		done := make(chan struct{})
		go func() {
			defer close(done)
			_ = r.Shutdown(ctx)
		}()
		select {
		case <-done:
		case <-time.After(rtTimeout):
			t.Errorf("cleanup: Shutdown did not return within %v", rtTimeout)
		}
	})
	return f
}

func (f *rtFixture) submit(t *testing.T, id string, req Request) Job {
	t.Helper()
	j, err := f.r.Submit(id, req)
	if err != nil {
		t.Fatalf("Submit(%s): got error %v, want nil", id, err)
	}
	return j
}

func (f *rtFixture) get(t *testing.T, id string) Job {
	t.Helper()
	j, err := f.r.Get(id)
	if err != nil {
		t.Fatalf("Get(%s): got error %v, want nil", id, err)
	}
	return j
}

// waitStatus waits until job id has the state want.
func (f *rtFixture) waitStatus(t *testing.T, id string, want State) Job {
	t.Helper()
	var mu sync.Mutex // cond may outlive a timeout
	var (
		j   Job
		err error
	)
	ok := rtPoll(func() bool {
		got, gerr := f.r.Get(id)
		mu.Lock()
		defer mu.Unlock()
		j, err = got, gerr
		return err == nil && j.Status == want
	})
	mu.Lock()
	defer mu.Unlock()
	if !ok {
		t.Fatalf("timed out waiting for job %s to be %s: last got %q, error %v", id, want, j.Status, err)
	}
	return j
}

// rtPoll polls cond every millisecond until it holds (true) or rtTimeout
// passes (false). cond runs on its own goroutine, so that a runner stuck
// holding its lock fails the test instead of hanging it.
func rtPoll(cond func() bool) bool {
	deadline := time.After(rtTimeout)
	for {
		res := make(chan bool, 1)
		go func() { res <- cond() }()
		select {
		case ok := <-res:
			if ok {
				return true
			}
		case <-deadline:
			return false
		}
		select {
		case <-time.After(time.Millisecond):
		case <-deadline:
			return false
		}
	}
}

// rtEventually polls cond until it holds, failing the test after rtTimeout.
func rtEventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	if !rtPoll(cond) {
		t.Fatalf("timed out waiting until %s", what)
	}
}

// rtRecv receives from ch, failing the test after rtTimeout.
func rtRecv[T any](t *testing.T, ch <-chan T, what string) (T, bool) {
	t.Helper()
	select {
	case v, ok := <-ch:
		return v, ok
	case <-time.After(rtTimeout):
		t.Fatalf("timed out waiting for %s", what)
	}
	var zero T
	return zero, false
}

// rtSend sends v on ch, failing the test after rtTimeout.
func rtSend[T any](t *testing.T, ch chan<- T, v T, what string) {
	t.Helper()
	select {
	case ch <- v:
	case <-time.After(rtTimeout):
		t.Fatalf("timed out sending %s", what)
	}
}

// rtCall calls fn on its own goroutine and fails the test if fn panics or
// does not return within rtTimeout. It is safe in a deferred call after
// t.Fatal.
func rtCall(t *testing.T, what string, fn func()) {
	t.Helper()
	done := make(chan any, 1)
	go func() {
		defer func() { done <- recover() }()
		fn()
	}()
	select {
	case p := <-done:
		if p != nil {
			t.Errorf("%s panicked: %v", what, p)
		}
	case <-time.After(rtTimeout):
		t.Errorf("%s did not return within %v", what, rtTimeout)
	}
}

// rtStopping reports whether Shutdown has begun: no job starts any more.
func rtStopping(r *Runner) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stop
}

// rtShutdown calls Shutdown in the background; its result arrives on the
// channel.
func rtShutdown(r *Runner, ctx context.Context) <-chan error {
	res := make(chan error, 1)
	go func() { res <- r.Shutdown(ctx) }()
	return res
}

// rtIDs are the ids of jobs, as List and Using return them; an error
// (which the runner never returns) is one more entry, so that no
// comparison passes with it.
func rtIDs(jobs []Job, err error) []string {
	ids := make([]string, len(jobs))
	for i, j := range jobs {
		ids[i] = j.ID
	}
	if err != nil {
		ids = append(ids, "error: "+err.Error())
	}
	return ids
}

func rtTimeEq(got *time.Time, want time.Time) bool {
	return got != nil && got.Equal(want) && got.Location() == time.UTC
}

func rtFmtTime(t *time.Time) string {
	if t == nil {
		return "nil"
	}
	return t.String()
}

func TestRunnerConcurrencyBounded(t *testing.T) {
	f := rtStart(t, nil, func(c *Config) { c.Workers = 2 })
	f.clock.setStep(time.Second) // StartedAt then shows the order jobs left the queue
	ids := []string{"j0", "j1", "j2", "j3", "j4", "j5"}
	for _, id := range ids {
		f.submit(t, id, rtReq)
	}

	f.exec.waitStarted(t, "j0")
	f.exec.waitStarted(t, "j1")
	if got := f.exec.running.Load(); got != 2 {
		t.Errorf("running once j0 and j1 started: got %d, want 2", got)
	}
	for _, id := range ids[2:] {
		if got := f.get(t, id).Status; got != Queued {
			t.Errorf("job %s while two jobs block both workers: got %s, want %s", id, got, Queued)
		}
	}
	// One slot frees: the next job in submission order takes it.
	f.exec.release("j0")
	f.exec.waitStarted(t, "j2")
	if got := f.exec.startOrder(); len(got) != 3 || !slices.Equal(slices.Sorted(slices.Values(got[:2])), ids[:2]) || got[2] != "j2" {
		t.Errorf("start order after releasing j0: got %v, want j0 and j1 in either order, then j2", got)
	}
	for _, id := range ids[1:] {
		f.exec.release(id)
	}
	var prev *time.Time
	for _, id := range ids {
		j := f.waitStatus(t, id, Succeeded)
		if j.StartedAt == nil {
			t.Fatalf("job %s succeeded: got StartedAt nil, want a time", id)
		}
		if prev != nil && !j.StartedAt.After(*prev) {
			t.Errorf("job %s StartedAt: got %v, want after the previous job's %v (FIFO)", id, j.StartedAt, prev)
		}
		prev = j.StartedAt
	}
	if got := f.exec.maxRun.Load(); got != 2 {
		t.Errorf("most jobs running at once: got %d, want 2", got)
	}
	if got := f.exec.startOrder(); !slices.Equal(slices.Sorted(slices.Values(got)), ids) {
		t.Errorf("jobs started: got %v, want each of %v once", got, ids)
	}
}

func TestRunnerCancel(t *testing.T) {
	f := rtStart(t, nil, nil)
	f.submit(t, "a", rtReq)
	f.exec.waitStarted(t, "a")
	f.submit(t, "b", rtReq)
	f.submit(t, "c", rtReq)

	t.Run("queued", func(t *testing.T) {
		at := rtBase.Add(time.Minute)
		f.clock.set(at)
		j, err := f.r.Cancel("b")
		if err != nil {
			t.Fatalf("Cancel(b): got error %v, want nil", err)
		}
		if j.Status != Canceled || !rtTimeEq(j.FinishedAt, at) {
			t.Errorf("Cancel(b) returned status %s, FinishedAt %s; want %s, %v", j.Status, rtFmtTime(j.FinishedAt), Canceled, at)
		}
		if got := f.get(t, "b"); got.Status != Canceled || !rtTimeEq(got.FinishedAt, at) {
			t.Errorf("Get(b): got status %s, FinishedAt %s; want %s, %v", got.Status, rtFmtTime(got.FinishedAt), Canceled, at)
		}
		if got := f.store.mustJob(t, "b"); got.Status != Canceled {
			t.Errorf("stored b: got status %s, want %s", got.Status, Canceled)
		}
		// The rest keep running, in order, and b never starts.
		f.exec.release("a")
		f.exec.release("b")
		f.exec.release("c")
		f.waitStatus(t, "a", Succeeded)
		f.waitStatus(t, "c", Succeeded)
		if got, want := f.exec.startOrder(), []string{"a", "c"}; !slices.Equal(got, want) {
			t.Errorf("start order: got %v, want %v", got, want)
		}
		if got := f.get(t, "b").Status; got != Canceled {
			t.Errorf("b after the others ran: got %s, want %s", got, Canceled)
		}
	})

	t.Run("running", func(t *testing.T) {
		f.submit(t, "d", rtReq)
		f.exec.waitStarted(t, "d")
		at := rtBase.Add(2 * time.Minute)
		f.clock.set(at)
		j, err := f.r.Cancel("d")
		if err != nil {
			t.Fatalf("Cancel(d): got error %v, want nil", err)
		}
		if j.Status != Running && j.Status != Canceled {
			t.Errorf("Cancel(d) returned status %s, want %s or %s", j.Status, Running, Canceled)
		}
		got := f.waitStatus(t, "d", Canceled)
		if got.Error != "" {
			t.Errorf("canceled d: got Error %q, want empty", got.Error)
		}
		if !rtTimeEq(got.FinishedAt, at) {
			t.Errorf("canceled d: got FinishedAt %s, want %v", rtFmtTime(got.FinishedAt), at)
		}
		if werr, ok := f.exec.result("d"); !ok || !errors.Is(werr, context.Canceled) {
			t.Errorf("the Work of d returned %v (returned: %v), want context.Canceled", werr, ok)
		}
		if st := f.store.mustJob(t, "d"); st.Status != Canceled || st.Error != "" {
			t.Errorf("stored d: got status %s, Error %q; want %s, empty", st.Status, st.Error, Canceled)
		}
		// The worker is free for the next job.
		f.exec.release("e")
		f.submit(t, "e", rtReq)
		f.waitStatus(t, "e", Succeeded)
	})

	t.Run("refused", func(t *testing.T) {
		for _, tc := range []struct {
			id   string
			want error
		}{
			{"c", ErrConflict},  // succeeded
			{"b", ErrConflict},  // canceled while queued
			{"d", ErrConflict},  // canceled while running
			{"zz", ErrNotFound}, // unknown
		} {
			if _, err := f.r.Cancel(tc.id); !errors.Is(err, tc.want) {
				t.Errorf("Cancel(%s): got error %v, want %v", tc.id, err, tc.want)
			}
		}
	})
}

func TestRunnerFailureAndPanic(t *testing.T) {
	tests := []struct {
		name      string
		work      Work
		wantState State
		wantError string // a part of Job.Error
	}{
		{
			name: "error",
			work: func(context.Context, Job, Report) ([]string, error) {
				return []string{"a note"}, errors.New("boom: d = 40 exceeds the rank")
			},
			wantState: Failed,
			wantError: "boom: d = 40 exceeds the rank",
		},
		{
			name:      "panic",
			work:      func(context.Context, Job, Report) ([]string, error) { panic("index out of range") },
			wantState: Failed,
			wantError: "internal error",
		},
		{
			name:      "panic with an error",
			work:      func(context.Context, Job, Report) ([]string, error) { panic(errors.New("nil map")) },
			wantState: Failed,
			wantError: "internal error",
		},
	}
	// One worker for all: after each failure it must take the next job.
	f := rtStart(t, nil, nil)
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id := fmt.Sprintf("bad%d", i)
			f.exec.on(id, tc.work)
			f.submit(t, id, rtReq)
			j := f.waitStatus(t, id, tc.wantState)
			if !strings.Contains(j.Error, tc.wantError) {
				t.Errorf("Error: got %q, want it to contain %q", j.Error, tc.wantError)
			}
			if j.FinishedAt == nil {
				t.Errorf("FinishedAt: got nil, want a time")
			}
			if st := f.store.mustJob(t, id); st.Status != tc.wantState || st.Error != j.Error {
				t.Errorf("stored: got status %s, Error %q; want %s, %q", st.Status, st.Error, tc.wantState, j.Error)
			}
			// The worker survived: a later job succeeds.
			ok := fmt.Sprintf("ok%d", i)
			f.exec.release(ok)
			f.submit(t, ok, rtReq)
			if j := f.waitStatus(t, ok, Succeeded); j.Error != "" {
				t.Errorf("job after the failure: got Error %q, want empty", j.Error)
			}
		})
	}
}

func TestRunnerProgress(t *testing.T) {
	f := rtStart(t, nil, nil)
	steps := make(chan float64)
	acks := make(chan struct{})
	f.exec.on("p", func(ctx context.Context, _ Job, report Report) ([]string, error) {
		for {
			select {
			case p, ok := <-steps:
				if !ok {
					return nil, nil
				}
				report(p, "fit", fmt.Sprint("at ", p))
				select {
				case acks <- struct{}{}:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
	})
	f.submit(t, "p", rtReq)
	sub, unsub, err := f.r.Subscribe("p")
	if err != nil {
		t.Fatalf("Subscribe(p): got error %v, want nil", err)
	}
	defer rtCall(t, "unsubscribing", unsub)
	first, _ := rtRecv(t, sub, "the state on subscribing")
	if first.Progress != 0 {
		t.Errorf("progress on subscribing: got %v, want 0", first.Progress)
	}
	f.exec.waitStarted(t, "p")

	seen := first.Progress
	for _, tc := range []struct {
		report, want float64
	}{
		{0.5, 0.5},
		{0.3, 0.5}, // never back
		{0.8, 0.8},
	} {
		rtSend(t, steps, tc.report, "a progress step")
		rtRecv(t, acks, "the step's acknowledgement")
		j := f.get(t, "p")
		if j.Progress != tc.want {
			t.Errorf("after reporting %v: Get gives progress %v, want %v", tc.report, j.Progress, tc.want)
		}
		if wantMsg := fmt.Sprint("at ", tc.report); j.Phase != "fit" || j.Message != wantMsg {
			t.Errorf("after reporting %v: got phase %q, message %q; want %q, %q", tc.report, j.Phase, j.Message, "fit", wantMsg)
		}
		got, ok := rtRecv(t, sub, "the state after a report")
		if !ok {
			t.Fatal("subscription closed while the job runs")
		}
		if got.Progress != tc.want || got.Progress < seen {
			t.Errorf("after reporting %v: the subscription gives progress %v (before %v), want %v", tc.report, got.Progress, seen, tc.want)
		}
		seen = got.Progress
	}
	close(steps)
	for {
		got, ok := rtRecv(t, sub, "the final state")
		if !ok {
			t.Fatal("subscription closed before the job succeeded")
		}
		if got.Progress < seen {
			t.Errorf("the subscription's progress went back: got %v after %v", got.Progress, seen)
		}
		seen = got.Progress
		if got.Status == Succeeded {
			if got.Progress != 1 {
				t.Errorf("succeeded job: got progress %v, want 1", got.Progress)
			}
			break
		}
	}
	if j := f.get(t, "p"); j.Status != Succeeded || j.Progress != 1 {
		t.Errorf("Get(p) at the end: got %s with progress %v, want %s with 1", j.Status, j.Progress, Succeeded)
	}
}

func TestRunnerSubscribe(t *testing.T) {
	t.Run("current state at once", func(t *testing.T) {
		f := rtStart(t, nil, nil)
		f.exec.release("done")
		f.submit(t, "done", rtReq)
		f.waitStatus(t, "done", Succeeded)
		f.submit(t, "run", rtReq)
		f.exec.waitStarted(t, "run")
		f.submit(t, "wait", rtReq)
		for _, tc := range []struct {
			id   string
			want State
		}{
			{"done", Succeeded},
			{"run", Running},
			{"wait", Queued},
		} {
			ch, unsub, err := f.r.Subscribe(tc.id)
			if err != nil {
				t.Fatalf("Subscribe(%s): got error %v, want nil", tc.id, err)
			}
			select {
			case j := <-ch:
				if j.ID != tc.id || j.Status != tc.want {
					t.Errorf("Subscribe(%s) delivered job %s, %s; want %s, %s", tc.id, j.ID, j.Status, tc.id, tc.want)
				}
			default:
				t.Errorf("Subscribe(%s): nothing delivered at once, want the current state", tc.id)
			}
			rtCall(t, "unsubscribing", unsub)
		}
		if _, _, err := f.r.Subscribe("zz"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Subscribe(zz): got error %v, want %v", err, ErrNotFound)
		}
		f.exec.release("run")
		f.exec.release("wait")
		f.waitStatus(t, "wait", Succeeded)
	})

	t.Run("slow reader", func(t *testing.T) {
		f := rtStart(t, nil, nil)
		const reports = 1000
		reported := make(chan struct{})
		f.exec.on("slow", func(ctx context.Context, j Job, report Report) ([]string, error) {
			f.exec.mu.Lock()
			gate := f.exec.chanLocked(f.exec.gates, j.ID)
			f.exec.mu.Unlock()
			select {
			case <-gate:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			for i := range reports {
				report(float64(i)/reports, "fit", fmt.Sprint("step ", i))
			}
			close(reported)
			return nil, nil
		})
		f.submit(t, "slow", rtReq)
		ch, unsub, err := f.r.Subscribe("slow")
		if err != nil {
			t.Fatalf("Subscribe(slow): got error %v, want nil", err)
		}
		// Nobody reads ch while the job reports.
		f.exec.release("slow")
		rtRecv(t, (<-chan struct{})(reported), "the job to report 1000 times past a slow reader")
		f.waitStatus(t, "slow", Succeeded)
		if got := len(ch); got != 1 {
			t.Errorf("states waiting for the slow reader: got %d, want 1 (the latest)", got)
		}
		j, ok := rtRecv(t, ch, "the latest state")
		if !ok || j.Status != Succeeded || j.Progress != 1 {
			t.Errorf("slow reader's state: got %s with progress %v (open: %v), want %s with 1", j.Status, j.Progress, ok, Succeeded)
		}
		if err := f.r.Delete("slow"); err != nil {
			t.Fatalf("Delete(slow): got error %v, want nil", err)
		}
		if _, ok := rtRecv(t, ch, "the channel to close"); ok {
			t.Errorf("after Delete: got a state, want the channel closed")
		}
		rtCall(t, "unsubscribing after Delete", unsub)
		rtCall(t, "unsubscribing again", unsub)
	})

	t.Run("unsubscribe then delete", func(t *testing.T) {
		f := rtStart(t, nil, nil)
		f.exec.release("u")
		f.submit(t, "u", rtReq)
		ch, unsub, err := f.r.Subscribe("u")
		if err != nil {
			t.Fatalf("Subscribe(u): got error %v, want nil", err)
		}
		f.waitStatus(t, "u", Succeeded)
		rtCall(t, "unsubscribing", unsub)
		for {
			if _, ok := rtRecv(t, ch, "the channel to close"); !ok {
				break
			}
		}
		rtCall(t, "Delete after unsubscribing", func() {
			if err := f.r.Delete("u"); err != nil {
				t.Errorf("Delete(u): got error %v, want nil", err)
			}
		})
		rtCall(t, "unsubscribing after Delete", unsub)
	})
}

func TestRunnerShutdown(t *testing.T) {
	t.Run("drains", func(t *testing.T) {
		f := rtStart(t, nil, nil)
		f.submit(t, "a", rtReq)
		f.exec.waitStarted(t, "a")
		f.submit(t, "b", rtReq)
		ctx, cancel := context.WithTimeout(context.Background(), rtTimeout)
		defer cancel()
		res := rtShutdown(f.r, ctx)
		rtEventually(t, "Shutdown has begun", func() bool { return rtStopping(f.r) })
		f.exec.release("a") // finishes within the deadline
		f.exec.release("b")
		if err, _ := rtRecv(t, res, "Shutdown to return"); err != nil {
			t.Errorf("Shutdown: got error %v, want nil", err)
		}
		if got := f.get(t, "a").Status; got != Succeeded {
			t.Errorf("running job after draining: got %s, want %s", got, Succeeded)
		}
		if st := f.store.mustJob(t, "a"); st.Status != Succeeded {
			t.Errorf("stored running job after draining: got %s, want %s", st.Status, Succeeded)
		}
		if st := f.store.mustJob(t, "b"); st.Status != Queued || st.StartedAt != nil || st.Attempts != 0 {
			t.Errorf("stored queued job: got %s, StartedAt %s, attempts %d; want %s, nil, 0", st.Status, rtFmtTime(st.StartedAt), st.Attempts, Queued)
		}
		if got, want := f.exec.startOrder(), []string{"a"}; !slices.Equal(got, want) {
			t.Errorf("jobs started: got %v, want %v", got, want)
		}
		if _, err := f.r.Submit("c", rtReq); !errors.Is(err, ErrStopped) {
			t.Errorf("Submit after Shutdown: got error %v, want %v", err, ErrStopped)
		}
	})

	for _, tc := range []struct {
		name    string
		ctx     func() (context.Context, context.CancelFunc)
		wantErr error
	}{
		{
			name: "deadline expires",
			ctx: func() (context.Context, context.CancelFunc) {
				return context.WithTimeout(context.Background(), 10*time.Millisecond)
			},
			wantErr: context.DeadlineExceeded,
		},
		{
			name: "context canceled",
			ctx: func() (context.Context, context.CancelFunc) {
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				return ctx, cancel
			},
			wantErr: context.Canceled,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := rtStart(t, nil, nil)
			f.submit(t, "a", rtReq) // blocks until its context is canceled
			f.exec.waitStarted(t, "a")
			f.submit(t, "b", rtReq)
			ctx, cancel := tc.ctx()
			defer cancel()
			err, _ := rtRecv(t, rtShutdown(f.r, ctx), "Shutdown to return")
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("Shutdown: got error %v, want %v", err, tc.wantErr)
			}
			if werr, ok := f.exec.result("a"); !ok || !errors.Is(werr, context.Canceled) {
				t.Errorf("the interrupted Work returned %v (returned: %v), want context.Canceled", werr, ok)
			}
			for _, id := range []string{"a", "b"} {
				st := f.store.mustJob(t, id)
				if st.Status != Queued || st.Error != "" || st.StartedAt != nil || st.FinishedAt != nil {
					t.Errorf("stored %s: got %s, Error %q, StartedAt %s, FinishedAt %s; want %s, empty, nil, nil",
						id, st.Status, st.Error, rtFmtTime(st.StartedAt), rtFmtTime(st.FinishedAt), Queued)
				}
			}
			if got := f.store.mustJob(t, "a").Attempts; got != 1 {
				t.Errorf("stored attempts of the interrupted job: got %d, want 1", got)
			}
			if got := f.get(t, "a").Status; got != Queued {
				t.Errorf("interrupted job: got %s, want %s", got, Queued)
			}
			if _, err := f.r.Submit("c", rtReq); !errors.Is(err, ErrStopped) {
				t.Errorf("Submit after Shutdown: got error %v, want %v", err, ErrStopped)
			}
			if got, want := f.exec.startOrder(), []string{"a"}; !slices.Equal(got, want) {
				t.Errorf("jobs started: got %v, want %v", got, want)
			}
		})
	}
}

func TestRunnerRecovery(t *testing.T) {
	t0 := rtBase.UTC()
	at := func(m int) *time.Time { v := t0.Add(time.Duration(m) * time.Minute); return &v }

	t.Run("states", func(t *testing.T) {
		st := rtNewStore()
		st.put(t, Job{ID: "done", Status: Succeeded, Progress: 1, Phase: "done", CreatedAt: *at(0), StartedAt: at(1), FinishedAt: at(2), Request: rtReq, Attempts: 1})
		st.put(t, Job{ID: "run1", Status: Running, Progress: 0.4, Phase: "fit", CreatedAt: *at(1), StartedAt: at(3), Request: rtReq, Attempts: 1})
		st.put(t, Job{ID: "queued", Status: Queued, Phase: "queued", CreatedAt: *at(2), Request: rtReq})
		st.put(t, Job{ID: "run3", Status: Running, Progress: 0.9, Phase: "fit", CreatedAt: *at(3), StartedAt: at(4), Request: rtReq, Attempts: 3})
		doneBefore, _ := st.raw("done")

		now := rtBase.Add(time.Hour)
		f := rtStart(t, st, func(c *Config) {
			c.Now = func() time.Time { return now }
		})

		// run3 failed for good.
		j := f.get(t, "run3")
		if j.Status != Failed || !strings.Contains(j.Error, "interrupted by restart") || !rtTimeEq(j.FinishedAt, now) {
			t.Errorf("job interrupted 3 times: got %s, Error %q, FinishedAt %s; want %s, \"interrupted by restart…\", %v",
				j.Status, j.Error, rtFmtTime(j.FinishedAt), Failed, now)
		}
		if s := st.mustJob(t, "run3"); s.Status != Failed || !strings.Contains(s.Error, "interrupted by restart") {
			t.Errorf("stored job interrupted 3 times: got %s, Error %q; want %s, \"interrupted by restart…\"", s.Status, s.Error, Failed)
		}
		// run1 was queued again, and saved so; it runs first (older).
		if saves := st.savesOf("run1"); len(saves) == 0 || saves[0].Status != Queued || saves[0].Progress != 0 || saves[0].Attempts != 1 || saves[0].StartedAt != nil {
			t.Errorf("first save of the interrupted job: got %+v, want status %s, progress 0, attempts 1, no start", saves, Queued)
		}
		f.exec.waitStarted(t, "run1")
		if got := f.get(t, "queued").Status; got != Queued {
			t.Errorf("the newer queued job while the older runs: got %s, want %s", got, Queued)
		}
		f.exec.release("run1")
		f.exec.release("queued")
		for _, tc := range []struct {
			id           string
			wantAttempts int
		}{
			{"run1", 2},
			{"queued", 1},
		} {
			j := f.waitStatus(t, tc.id, Succeeded)
			if j.Attempts != tc.wantAttempts {
				t.Errorf("job %s: got %d attempts, want %d", tc.id, j.Attempts, tc.wantAttempts)
			}
			if s := st.mustJob(t, tc.id); s.Status != Succeeded {
				t.Errorf("stored job %s: got %s, want %s", tc.id, s.Status, Succeeded)
			}
		}
		if got, want := f.exec.startOrder(), []string{"run1", "queued"}; !slices.Equal(got, want) {
			t.Errorf("start order: got %v, want %v (CreatedAt order)", got, want)
		}
		// The succeeded job is untouched, the queued one was not rewritten
		// before it ran.
		if got, _ := st.raw("done"); string(got) != string(doneBefore) {
			t.Errorf("stored succeeded job: got %s, want it unchanged: %s", got, doneBefore)
		}
		if saves := st.savesOf("done"); len(saves) != 0 {
			t.Errorf("saves of the succeeded job: got %d, want 0", len(saves))
		}
		if saves := st.savesOf("queued"); len(saves) == 0 || saves[0].Status != Running {
			t.Errorf("first save of the queued job: got %+v, want one with status %s (it starts)", saves, Running)
		}
		if j := f.get(t, "done"); j.Status != Succeeded || j.Progress != 1 || !rtTimeEq(j.FinishedAt, *at(2)) {
			t.Errorf("succeeded job after New: got %s, progress %v, FinishedAt %s; want it untouched", j.Status, j.Progress, rtFmtTime(j.FinishedAt))
		}
	})

	t.Run("order", func(t *testing.T) {
		// Enough jobs that map order would show; b1 and b2 share CreatedAt
		// and go by id.
		st := rtNewStore()
		created := map[string]int{"e": 5, "a": 1, "d": 4, "b2": 2, "b1": 2, "c": 3, "f": 6}
		for id, m := range created {
			status, attempts := Queued, 0
			if m%2 == 0 {
				status, attempts = Running, 2
			}
			st.put(t, Job{ID: id, Status: status, CreatedAt: *at(m), Request: rtReq, Attempts: attempts})
		}
		f := rtStart(t, st, nil)
		want := []string{"a", "b1", "b2", "c", "d", "e", "f"}
		for _, id := range want {
			f.exec.release(id)
		}
		for _, id := range want {
			f.waitStatus(t, id, Succeeded)
		}
		if got := f.exec.startOrder(); !slices.Equal(got, want) {
			t.Errorf("start order: got %v, want %v", got, want)
		}
	})

	t.Run("errors", func(t *testing.T) {
		loadErr := errors.New("disk on fire")
		saveErr := errors.New("disk full")
		for _, tc := range []struct {
			name    string
			store   func(t *testing.T) *rtStore
			wantErr error  // errors.Is, if set
			wantMsg string // a part of the message, if set
		}{
			{
				name: "corrupt record",
				store: func(t *testing.T) *rtStore {
					st := rtNewStore()
					st.put(t, Job{ID: "ok", Status: Queued, Request: rtReq})
					st.recs["bad"] = []byte(`{"id": "bad", "status": `)
					return st
				},
				wantMsg: "bad",
			},
			{
				name:    "load fails",
				store:   func(*testing.T) *rtStore { st := rtNewStore(); st.loadErr = loadErr; return st },
				wantErr: loadErr,
			},
			{
				name: "saving a recovered job fails",
				store: func(t *testing.T) *rtStore {
					st := rtNewStore()
					st.put(t, Job{ID: "run", Status: Running, Request: rtReq, Attempts: 1})
					st.saveErr = saveErr
					return st
				},
				wantErr: saveErr,
			},
		} {
			t.Run(tc.name, func(t *testing.T) {
				x := rtNewExec()
				r, err := New(Config{Store: tc.store(t), Execute: x.Work})
				if err == nil {
					// Do not leak its workers.
					ctx, cancel := context.WithCancel(context.Background())
					cancel()
					rtRecv(t, rtShutdown(r, ctx), "Shutdown to return")
					t.Fatal("New: got nil error, want one")
				}
				if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
					t.Errorf("New: got error %v, want %v", err, tc.wantErr)
				}
				if tc.wantMsg != "" && !strings.Contains(err.Error(), tc.wantMsg) {
					t.Errorf("New: got error %q, want it to name %q", err, tc.wantMsg)
				}
				if r != nil {
					t.Errorf("New: got a runner with the error, want nil")
				}
				if got := x.startOrder(); len(got) != 0 {
					t.Errorf("jobs started by a failed New: got %v, want none", got)
				}
			})
		}
	})
}

func TestRunnerMaxQueue(t *testing.T) {
	f := rtStart(t, nil, func(c *Config) { c.MaxQueue = 2 })
	f.submit(t, "a", rtReq)
	f.exec.waitStarted(t, "a") // running: it no longer counts
	f.submit(t, "b", rtReq)
	f.submit(t, "c", rtReq)
	if _, err := f.r.Submit("d", rtReq); !errors.Is(err, ErrQueueFull) {
		t.Fatalf("Submit(d) with 2 queued: got error %v, want %v", err, ErrQueueFull)
	}
	if _, ok := f.store.job(t, "d"); ok {
		t.Errorf("stored d: got a record, want none")
	}
	if _, err := f.r.Get("d"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get(d): got error %v, want %v", err, ErrNotFound)
	}
	if got, want := rtIDs(f.r.List()), []string{"a", "b", "c"}; !slices.Equal(slices.Sorted(slices.Values(got)), want) {
		t.Errorf("List: got %v, want %v", got, want)
	}
	// Room again once one leaves the queue.
	f.exec.release("a")
	f.exec.waitStarted(t, "b")
	f.submit(t, "d", rtReq)
	for _, id := range []string{"b", "c", "d"} {
		f.exec.release(id)
	}
	f.waitStatus(t, "d", Succeeded)
}

func TestRunnerDelete(t *testing.T) {
	f := rtStart(t, nil, nil)
	f.submit(t, "a", rtReq)
	f.exec.waitStarted(t, "a")
	f.submit(t, "b", rtReq)
	f.submit(t, "c", rtReq)

	t.Run("queued", func(t *testing.T) {
		if err := f.r.Delete("b"); err != nil {
			t.Fatalf("Delete(b): got error %v, want nil", err)
		}
		if _, err := f.r.Get("b"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Get(b) after Delete: got error %v, want %v", err, ErrNotFound)
		}
		if _, ok := f.store.job(t, "b"); ok {
			t.Errorf("stored b after Delete: got a record, want none")
		}
	})

	t.Run("running", func(t *testing.T) {
		if err := f.r.Delete("a"); !errors.Is(err, ErrConflict) {
			t.Errorf("Delete(a) while it runs: got error %v, want %v", err, ErrConflict)
		}
		if got := f.get(t, "a").Status; got != Running {
			t.Errorf("a after the refused Delete: got %s, want %s", got, Running)
		}
	})

	t.Run("finished", func(t *testing.T) {
		f.exec.release("a")
		f.exec.release("b")
		f.exec.release("c")
		f.waitStatus(t, "c", Succeeded)
		if got, want := f.exec.startOrder(), []string{"a", "c"}; !slices.Equal(got, want) {
			t.Errorf("start order: got %v, want %v (the deleted job never runs)", got, want)
		}
		f.waitStatus(t, "a", Succeeded)
		if err := f.r.Delete("a"); err != nil {
			t.Fatalf("Delete(a) once it succeeded: got error %v, want nil", err)
		}
		if _, ok := f.store.job(t, "a"); ok {
			t.Errorf("stored a after Delete: got a record, want none")
		}
		if got, want := rtIDs(f.r.List()), []string{"c"}; !slices.Equal(got, want) {
			t.Errorf("List: got %v, want %v", got, want)
		}
	})

	t.Run("unknown", func(t *testing.T) {
		for _, id := range []string{"zz", "b"} {
			if err := f.r.Delete(id); !errors.Is(err, ErrNotFound) {
				t.Errorf("Delete(%s): got error %v, want %v", id, err, ErrNotFound)
			}
		}
	})
}

// A queued job whose record cannot be deleted stays queued, and runs.
func TestRunnerDeleteStoreFails(t *testing.T) {
	f := rtStart(t, nil, nil)
	f.submit(t, "a", rtReq)
	f.exec.waitStarted(t, "a")
	f.submit(t, "b", rtReq)
	errDisk := errors.New("disk gone")
	f.store.failDelete(errDisk)
	if err := f.r.Delete("b"); !errors.Is(err, errDisk) {
		t.Fatalf("Delete(b): got error %v, want %v", err, errDisk)
	}
	f.store.failDelete(nil)
	if got := f.get(t, "b").Status; got != Queued {
		t.Errorf("b after the failed Delete: got %s, want %s", got, Queued)
	}
	f.exec.release("a")
	f.exec.release("b")
	f.waitStatus(t, "b", Succeeded)
}

// A queued job whose canceled record cannot be saved is not canceled, and
// runs.
func TestRunnerCancelStoreFails(t *testing.T) {
	f := rtStart(t, nil, nil)
	f.submit(t, "a", rtReq)
	f.exec.waitStarted(t, "a")
	f.submit(t, "b", rtReq)
	errDisk := errors.New("disk full")
	f.store.failSave(errDisk)
	if _, err := f.r.Cancel("b"); !errors.Is(err, errDisk) {
		t.Fatalf("Cancel(b): got error %v, want %v", err, errDisk)
	}
	f.store.failSave(nil)
	if j := f.get(t, "b"); j.Status != Queued || j.FinishedAt != nil {
		t.Errorf("b after the failed Cancel: got %s, FinishedAt %s; want %s, nil (as stored)", j.Status, rtFmtTime(j.FinishedAt), Queued)
	}
	if st := f.store.mustJob(t, "b"); st.Status != Queued {
		t.Errorf("stored b: got %s, want %s", st.Status, Queued)
	}
	f.exec.release("a")
	f.exec.release("b")
	f.waitStatus(t, "b", Succeeded)
}

func TestRunnerSubmitStoreFails(t *testing.T) {
	f := rtStart(t, nil, nil)
	errDisk := errors.New("disk full")
	f.store.failSave(errDisk)
	if _, err := f.r.Submit("a", rtReq); !errors.Is(err, errDisk) {
		t.Fatalf("Submit(a) with a failing store: got error %v, want %v", err, errDisk)
	}
	if got, err := f.r.List(); len(got) != 0 || err != nil {
		t.Errorf("List: got %v, want no jobs", rtIDs(got, err))
	}
	if _, err := f.r.Get("a"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get(a): got error %v, want %v", err, ErrNotFound)
	}
	// The store works again: the next job runs, the refused one never did.
	f.store.failSave(nil)
	f.exec.release("b")
	f.submit(t, "b", rtReq)
	f.waitStatus(t, "b", Succeeded)
	if got, want := f.exec.startOrder(), []string{"b"}; !slices.Equal(got, want) {
		t.Errorf("jobs started: got %v, want %v", got, want)
	}
}

func TestRunnerUsing(t *testing.T) {
	f := rtStart(t, nil, nil)
	jobs := map[string]Request{
		"j1": {Dataset: "a", Method: "pca"},
		"j2": {Dataset: "b", TestDataset: "a", Method: "pca"},
		"j3": {Dataset: "b", Method: "mddm"},
		"j4": {Dataset: "a", Methods: []string{"pca", "mddm"}},
	}
	f.exec.release("j4")
	f.submit(t, "j4", jobs["j4"])
	f.waitStatus(t, "j4", Succeeded) // finished jobs count too
	f.submit(t, "j1", jobs["j1"])    // runs (blocks)
	f.submit(t, "j2", jobs["j2"])
	f.submit(t, "j3", jobs["j3"])
	for _, tc := range []struct {
		dataset string
		want    []string
	}{
		{"a", []string{"j1", "j2", "j4"}},
		{"b", []string{"j2", "j3"}},
		{"c", nil},
		{"", nil},
	} {
		got := slices.Sorted(slices.Values(rtIDs(f.r.Using(tc.dataset))))
		if !slices.Equal(got, tc.want) {
			t.Errorf("Using(%q): got %v, want %v", tc.dataset, got, tc.want)
		}
	}
}

func TestRunnerTimestamps(t *testing.T) {
	f := rtStart(t, nil, nil)
	// "block" is created at rtBase, the others later.
	t0, t1, t2, t3 := rtBase.Add(time.Minute), rtBase.Add(2*time.Minute), rtBase.Add(3*time.Minute), rtBase.Add(4*time.Minute)

	// One worker: "block" holds it while "x" and "y" are submitted, so each
	// reading of the clock happens at a known time.
	f.submit(t, "block", rtReq)
	f.exec.waitStarted(t, "block")
	f.clock.set(t0)
	x := f.submit(t, "x", rtReq)
	y := f.submit(t, "y", rtReq)
	f.clock.set(t1)
	if _, err := f.r.Cancel("y"); err != nil {
		t.Fatalf("Cancel(y): got error %v, want nil", err)
	}
	f.clock.set(t2)
	f.exec.release("block")
	f.exec.waitStarted(t, "x")
	f.clock.set(t3)
	f.exec.release("x")
	xd := f.waitStatus(t, "x", Succeeded)
	yd := f.get(t, "y")

	for _, tc := range []struct {
		name string
		got  *time.Time
		want *time.Time // nil: want nil
	}{
		{"Submit's x.CreatedAt", &x.CreatedAt, &t0},
		{"Submit's y.CreatedAt", &y.CreatedAt, &t0},
		{"Submit's x.StartedAt", x.StartedAt, nil},
		{"x.CreatedAt", &xd.CreatedAt, &t0},
		{"x.StartedAt", xd.StartedAt, &t2},
		{"x.FinishedAt", xd.FinishedAt, &t3},
		{"canceled y.StartedAt", yd.StartedAt, nil},
		{"canceled y.FinishedAt", yd.FinishedAt, &t1},
	} {
		switch {
		case tc.want == nil && tc.got != nil:
			t.Errorf("%s: got %v, want nil", tc.name, tc.got)
		case tc.want != nil && !rtTimeEq(tc.got, *tc.want):
			t.Errorf("%s: got %s, want %v in UTC", tc.name, rtFmtTime(tc.got), tc.want.UTC())
		}
	}
	// The stored records say the same.
	if st := f.store.mustJob(t, "x"); !st.CreatedAt.Equal(t0) || !rtTimeEq(st.StartedAt, t2) || !rtTimeEq(st.FinishedAt, t3) {
		t.Errorf("stored x: got created %v, started %s, finished %s; want %v, %v, %v",
			st.CreatedAt, rtFmtTime(st.StartedAt), rtFmtTime(st.FinishedAt), t0, t2, t3)
	}
	// List is newest first; x and y share CreatedAt and go by id.
	f.clock.set(t3.Add(time.Minute))
	f.exec.release("z")
	f.submit(t, "z", rtReq)
	if got, want := rtIDs(f.r.List()), []string{"z", "x", "y", "block"}; !slices.Equal(got, want) {
		t.Errorf("List: got %v, want %v (newest first)", got, want)
	}
}

// A run's phases: the time between the executor's reports, named by
// PhaseOf, adding up to the run's duration.
func TestRunnerPhases(t *testing.T) {
	clock := &rtClock{now: rtBase}
	at := func(s int) { clock.set(rtBase.Add(time.Duration(s) * time.Second)) }
	work := func(ctx context.Context, j Job, report Report) ([]string, error) {
		at(1)
		report(0.1, "loading", "")
		at(3)
		report(0.2, "fitting pca", "")
		at(4)
		report(0.3, "pca: the eigenvectors", "")
		at(7)
		report(0.6, "evaluating", "fold 1")
		at(12)
		report(0.96, "saving", "")
		at(13)
		return nil, nil
	}
	f := rtStart(t, nil, func(c *Config) { c.Execute, c.Now = work, clock.Now })
	f.submit(t, "j1", Request{Dataset: "a", Method: "pca"})
	j := f.waitStatus(t, "j1", Succeeded)
	want := []PhaseTime{{PhaseStart, 1}, {PhaseLoad, 2}, {PhaseFit, 4}, {PhaseEvaluate, 5}, {PhaseWrite, 1}}
	if !slices.Equal(j.Phases, want) {
		t.Errorf("phases: got %v, want %v", j.Phases, want)
	}
	sum := 0.0
	for _, p := range j.Phases {
		sum += p.Seconds
	}
	if d := j.FinishedAt.Sub(*j.StartedAt).Seconds(); math.Abs(sum-d) > 1e-9 {
		t.Errorf("the phases add up to %v s, the run took %v s", sum, d)
	}
}

func TestPhaseOf(t *testing.T) {
	for phase, want := range map[string]string{
		"starting": PhaseStart, "loading": PhaseLoad, "fitting mddmp": PhaseFit, "mddmp: Gram matrix": PhaseFit,
		"evaluating": PhaseEvaluate, "comparing": PhaseEvaluate, "saving": PhaseWrite, "writing pca": PhaseWrite, "waiting at the test's gate": PhaseOther,
		"data set 2: x": PhaseOther,
	} {
		if got := PhaseOf(phase); got != want {
			t.Errorf("PhaseOf(%q): got %q, want %q", phase, got, want)
		}
	}
}
