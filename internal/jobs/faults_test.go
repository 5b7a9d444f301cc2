package jobs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"mldr/internal/analysis"
	"mldr/internal/demo"
	"mldr/internal/store"
	"mldr/internal/store/faultfs"
)

// faultEnv is an executor over a store whose file system fails on demand,
// with the multi-label demo data set stored.
type faultEnv struct {
	store *store.Store
	fs    *faultfs.FS
	exec  *Executor
	ml    store.DatasetRecord
}

func newFaultEnv(t *testing.T) *faultEnv {
	t.Helper()
	ffs := faultfs.New(nil)
	st, err := store.Open(store.Config{Dir: t.TempDir(), FS: ffs})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	set, err := demo.Make("multilabel", demo.Seed)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := st.Import(context.Background(), store.Upload{FileName: set.FileName, Source: bytes.NewReader(set.CSV)})
	if err != nil {
		t.Fatal(err)
	}
	return &faultEnv{store: st, fs: ffs, exec: NewExecutor(st, "test"), ml: rec}
}

// entries lists what is under the data directory's jobs/ and tmp/.
func (e *faultEnv) entries(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, sub := range []string{"jobs", "tmp"} {
		filepath.WalkDir(filepath.Join(e.store.Dir(), sub), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel(e.store.Dir(), p)
			if rel != sub {
				out = append(out, rel)
			}
			return nil
		})
	}
	return out
}

// A job's results meet a failing write, fsync, rename, create or mkdir at
// each of the executor's and the commit's operations in turn: the job
// fails with an error that wraps the cause (and says the disk is full when
// it is), nothing is left under jobs/ or tmp/, and the job runs again once
// the fault is gone, with results that verify.
func TestExecuteFaultsLeaveNothing(t *testing.T) {
	req := Request{Dataset: "", Methods: []string{"pca", "cplst"}, Params: analysis.Params{D: 2}, Evaluate: &Evaluate{Classifier: "ridge", Dims: []int{1, 2}}}
	cases := []struct {
		op   faultfs.Op
		err  error
		want string // in the message
	}{
		{faultfs.Write, syscall.ENOSPC, "the disk of the data directory is full"},
		{faultfs.Write, syscall.EIO, "storing the results of job"},
		{faultfs.Sync, syscall.EIO, "storing the results of job"},
		{faultfs.Rename, syscall.EIO, "storing the results of job"},
		{faultfs.Create, syscall.ENOSPC, "the disk of the data directory is full"},
		{faultfs.Mkdir, syscall.ENOSPC, "the disk of the data directory is full"},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s %v", c.op, c.err), func(t *testing.T) {
			e := newFaultEnv(t)
			r := req
			r.Dataset = e.ml.ID
			r.Normalize()
			if err := r.Validate(e.store, Limits{}); err != nil {
				t.Fatal(err)
			}
			failures := 0
			for n := 1; ; n++ {
				if n > 100 {
					t.Fatalf("still hitting the fault at n = %d", n)
				}
				j := Job{ID: store.NewID(), Request: r, CreatedAt: time.Now()}
				e.fs.FailNth(c.op, n, c.err)
				_, err := e.exec.Execute(context.Background(), j, func(float64, string, string) {})
				fired := e.fs.Fired() > 0
				e.fs.Heal()
				if !fired {
					if err != nil {
						t.Fatalf("n = %d without a fault: %v", n, err)
					}
					checkResults(t, e.store, j)
					break
				}
				failures++
				if err == nil {
					t.Fatalf("n = %d: the fault fired but the job succeeded", n)
				}
				if !errors.Is(err, c.err) || !strings.Contains(err.Error(), c.want) {
					t.Errorf("n = %d: got %q, want an error wrapping %v that says %q", n, err, c.err, c.want)
				}
				if left := e.entries(t); len(left) != 0 {
					t.Errorf("n = %d: the failed job left %v", n, left)
				}
				// Once the fault is gone the same job runs again.
				if _, err := e.exec.Execute(context.Background(), j, func(float64, string, string) {}); err != nil {
					t.Fatalf("n = %d: the job run again after the fault: %v", n, err)
				}
				checkResults(t, e.store, j)
				if err := e.store.RemoveJobResults(j.ID); err != nil {
					t.Fatal(err)
				}
			}
			if failures == 0 {
				t.Errorf("no %s fault fired", c.op)
			}
			t.Logf("%d %s faults, each failed cleanly", failures, c.op)
		})
	}
}

// checkResults checks that a job's result files are all there and match
// their checksums.
func checkResults(t *testing.T, st *store.Store, j Job) {
	t.Helper()
	var rels []string
	for _, m := range j.Request.MethodIDs() {
		for _, f := range MethodFiles {
			if f == FileProjected { // derived at its first download
				f = FileProjectedRows
			}
			rels = append(rels, m+"/"+f)
		}
	}
	rels = append(rels, FileMetrics, store.ChecksumsFile)
	for _, rel := range rels {
		if _, err := os.Stat(filepath.Join(st.JobDir(j.ID), filepath.FromSlash(rel))); err != nil {
			t.Errorf("result %s: %v", rel, err)
			continue
		}
		if err := st.VerifyJobResult(j.ID, rel); rel != store.ChecksumsFile && err != nil {
			t.Errorf("result %s: %v", rel, err)
		}
	}
	if left, _ := os.ReadDir(filepath.Join(st.Dir(), "tmp")); len(left) != 0 {
		t.Errorf("tmp/ holds %d entries after a job", len(left))
	}
}
