package jobs

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
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
	if _, _, err := e.svc.ResultPath(j.ID, "", FileProjected); err != nil { // derives it
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
	spoil("pca/" + FileProjectedRows)
	spoil("pca/" + FileModel)
	reads := []struct {
		name string
		read func() error
		file string
	}{
		{"Projected", func() error { _, err := e.svc.Projected(j.ID, "pca", 0); return err }, "pca/" + FileProjectedRows},
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

// A job writes its projected rows in binary only; projected.csv is
// derived from them at its first request, listed with its checksum and
// then served as it is; a corrupt binary file is reported by name, not
// derived from. Results written before the binary file existed have the
// CSV, and both readers use it.
func TestProjectedCSVDerived(t *testing.T) {
	e := newSvcEnv(t)
	j := e.wait(t, e.submit(t, "run").ID, isState(Succeeded))
	dir := filepath.Join(e.store.JobDir(j.ID), "pca")
	csvPath := filepath.Join(dir, FileProjected)
	if _, err := os.Stat(csvPath); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("after the job: got %v, want no %s", err, FileProjected)
	}
	want := projectedCSVText(t, dir)
	binary, err := os.ReadFile(filepath.Join(dir, FileProjectedRows))
	if err != nil {
		t.Fatal(err)
	}

	// A corrupt binary file: nothing is derived from it.
	flipped := bytes.Clone(binary)
	flipped[len(flipped)-3] ^= 0x10
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, FileProjectedRows), flipped, 0o600))
	var ce *store.CorruptResultError
	if _, _, err := e.svc.ResultPath(j.ID, "pca", FileProjected); !errors.As(err, &ce) || ce.File != "pca/"+FileProjectedRows {
		t.Errorf("a corrupt %s: got %v, want it reported as corrupt", FileProjectedRows, err)
	}
	if _, err := os.Stat(csvPath); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after a corrupt %s: got %v, want no %s", FileProjectedRows, err, FileProjected)
	}
	must(os.WriteFile(filepath.Join(dir, FileProjectedRows), binary, 0o600))

	path, _, err := e.svc.ResultPath(j.ID, "pca", FileProjected)
	if err != nil || path != csvPath {
		t.Fatalf("first request: got %q, %v, want %s", path, err, csvPath)
	}
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("got %d bytes (%v), want the %d derived from %s", len(got), err, len(want), FileProjectedRows)
	}
	st1, err := os.Stat(path)
	must(err)
	if err := e.store.VerifyJobResult(j.ID, "pca/"+FileProjected); err != nil {
		t.Errorf("the derived file is not listed with its checksum: %v", err)
	}
	if _, _, err := e.svc.ResultPath(j.ID, "pca", FileProjected); err != nil {
		t.Fatal(err)
	}
	if st2, err := os.Stat(path); err != nil || !st2.ModTime().Equal(st1.ModTime()) {
		t.Errorf("second request: the file was written again (%v)", err)
	}

	// Results from before the binary file: the CSV, listed.
	sumsPath := filepath.Join(e.store.JobDir(j.ID), store.ChecksumsFile)
	b, err := os.ReadFile(sumsPath)
	must(err)
	var sums store.Checksums
	must(json.Unmarshal(b, &sums))
	delete(sums.Files, "pca/"+FileProjectedRows)
	b, err = json.Marshal(sums)
	must(err)
	must(os.WriteFile(sumsPath, b, 0o600))
	must(os.Remove(filepath.Join(dir, FileProjectedRows)))
	if path, _, err := e.svc.ResultPath(j.ID, "pca", FileProjected); err != nil || path != csvPath {
		t.Errorf("results with the CSV only: got %q, %v, want %s", path, err, csvPath)
	}
	p, err := e.svc.Projected(j.ID, "pca", 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(want)).ReadAll()
	must(err)
	if len(p.Coords) != len(rows)-1 || p.Coords[5][0] != mustFloat(t, rows[6][3]) || p.Row[5] != mustInt(t, rows[6][0]) {
		t.Errorf("Projected of results with the CSV only: got %d rows, want %d, the same values", len(p.Coords), len(rows)-1)
	}
}
