package jobs

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	"mldr/internal/analysis"
	"mldr/internal/demo"
	"mldr/internal/store"
)

// svcEnv is a service over a real store, runner and executor. What a job
// does is chosen before it is submitted: run it, fail it, or hold it until
// it is canceled.
type svcEnv struct {
	svc   *Service
	store *store.Store
	ml    string

	mu   sync.Mutex
	mode string // "run", "fail", "hold"
}

func newSvcEnv(t *testing.T) *svcEnv {
	t.Helper()
	st, err := store.Open(store.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	set, _ := demo.Make("multilabel", demo.Seed)
	rec, err := st.Import(context.Background(), store.Upload{FileName: set.FileName, Source: bytes.NewReader(set.CSV)})
	if err != nil {
		t.Fatal(err)
	}
	e := &svcEnv{store: st, ml: rec.ID, mode: "run"}
	exec := NewExecutor(st, "test")
	work := func(ctx context.Context, j Job, report Report) ([]string, error) {
		e.mu.Lock()
		mode := e.mode
		e.mu.Unlock()
		switch mode {
		case "fail":
			return nil, errors.New("made to fail")
		case "hold":
			<-ctx.Done()
			return nil, ctx.Err()
		}
		return exec.Execute(ctx, j, report)
	}
	r, err := New(Config{Store: st, Execute: work, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	e.svc = NewService(r, st, Limits{})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		r.Shutdown(ctx)
		st.Close()
	})
	return e
}

func (e *svcEnv) setMode(m string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.mode = m
}

// wait follows a job until cond holds, for at most 30 s.
func (e *svcEnv) wait(t *testing.T, id string, cond func(Job) bool) Job {
	t.Helper()
	ch, stop, err := e.svc.Subscribe(id)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case j := <-ch:
			if cond(j) {
				return j
			}
		case <-timeout:
			j, _ := e.svc.Get(id)
			t.Fatalf("job %s: still %s after 30 s", id, j.Status)
		}
	}
}

func (e *svcEnv) submit(t *testing.T, mode string) Job {
	t.Helper()
	e.setMode(mode)
	j, err := e.svc.Submit(Request{Dataset: e.ml, Method: "pca", Params: analysis.Params{D: 2}})
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func isState(s State) func(Job) bool { return func(j Job) bool { return j.Status == s } }

func TestRerun(t *testing.T) {
	e := newSvcEnv(t)
	succeeded := e.wait(t, e.submit(t, "run").ID, isState(Succeeded))
	failed := e.wait(t, e.submit(t, "fail").ID, isState(Failed))
	held := e.submit(t, "hold")
	e.wait(t, held.ID, isState(Running))
	queued := e.submit(t, "hold")
	for _, tc := range []struct {
		name   string
		id     string
		status int // 0: accepted
		err    error
	}{
		{"running", held.ID, http.StatusConflict, nil},
		{"queued", queued.ID, http.StatusConflict, nil},
		{"unknown", store.NewID(), 0, ErrNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.svc.Rerun(tc.id)
			var re *RequestError
			switch {
			case tc.err != nil && !errors.Is(err, tc.err):
				t.Errorf("got %v, want %v", err, tc.err)
			case tc.status != 0 && (!errors.As(err, &re) || re.Status != tc.status):
				t.Errorf("got %v, want a refusal with status %d", err, tc.status)
			}
		})
	}
	if _, err := e.svc.Cancel(queued.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Cancel(held.ID); err != nil {
		t.Fatal(err)
	}
	canceled := e.wait(t, held.ID, isState(Canceled))
	for _, old := range []Job{succeeded, failed, canceled} {
		t.Run("rerun "+string(old.Status), func(t *testing.T) {
			e.setMode("run")
			j, err := e.svc.Rerun(old.ID)
			if err != nil {
				t.Fatal(err)
			}
			if j.ID == old.ID || j.Status != Queued || !reflect.DeepEqual(j.Request, old.Request) {
				t.Errorf("got job %s (%s) with %+v, want a new queued job with %+v", j.ID, j.Status, j.Request, old.Request)
			}
			e.wait(t, j.ID, isState(Succeeded))
			if prev, _ := e.svc.Get(old.ID); prev.Status != old.Status {
				t.Errorf("the old job went from %s to %s", old.Status, prev.Status)
			}
		})
	}
}

// Results are checked against their checksums before they are read: a
// spoiled file is reported as corrupt, by name; results from before
// checksums are read unchecked.
func TestServiceVerifiesResults(t *testing.T) {
	e := newSvcEnv(t)
	j := e.wait(t, e.submit(t, "run").ID, isState(Succeeded))
	dir := e.store.JobDir(j.ID)
	if _, err := e.svc.Projected(j.ID, "pca"); err != nil {
		t.Fatalf("intact: %v", err)
	}
	spoil := func(rel string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(rel))
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		i := len(b) / 2
		for b[i] < '1' || b[i] > '8' { // a digit, which stays one: the file still parses
			i++
		}
		b[i]++
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	spoil("pca/" + FileProjected)
	spoil("pca/" + FileModel)
	reads := []struct {
		name string
		read func() error
		file string
	}{
		{"Projected", func() error { _, err := e.svc.Projected(j.ID, "pca", 0); return err }, "pca/" + FileProjected},
		{"ResultPath", func() error { _, _, err := e.svc.ResultPath(j.ID, "", FileProjected); return err }, "pca/" + FileProjected},
		{"Results", func() error { _, err := e.svc.Results(j.ID); return err }, "pca/" + FileModel},
	}
	for _, r := range reads {
		t.Run(r.name, func(t *testing.T) {
			err := r.read()
			var ce *store.CorruptResultError
			if !errors.As(err, &ce) || ce.File != r.file || ce.Job != j.ID {
				t.Errorf("got %v, want %s of job %s reported as corrupt", err, r.file, j.ID)
			}
		})
	}
	if _, _, err := e.svc.ResultPath(j.ID, "", FileProjectionNPY); err != nil {
		t.Errorf("an intact file of the same job: %v", err)
	}
	if err := os.Remove(filepath.Join(dir, store.ChecksumsFile)); err != nil {
		t.Fatal(err)
	}
	for _, r := range reads {
		if err := r.read(); err != nil && r.name != "Results" {
			t.Errorf("%s without checksums: got %v, want the file served unchecked", r.name, err)
		}
	}
}
