package worker

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mldr/internal/analysis"
	"mldr/internal/jobs"
	"mldr/internal/store"
)

// mappedPaths reports which of paths this process has mapped, from
// /proc/self/maps.
func mappedPaths(t *testing.T, paths ...string) map[string]bool {
	t.Helper()
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, p := range paths {
		got[p] = bytes.Contains(maps, []byte(" "+p+"\n"))
	}
	return got
}

// The executor of a worker maps the data set of a job and unmaps it only
// as a job on other data starts: jobs in a row on two data sets, one of
// them canceled in its fit, each read the numbers they were stored with,
// and after each job only its own data file is mapped.
func TestExecutorMapsBetweenJobs(t *testing.T) {
	dir := t.TempDir()
	st, err := store.Open(store.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	recs := map[string]store.DatasetRecord{}
	var ids []string
	for k := range 2 {
		var b strings.Builder
		b.WriteString("f1,f2,f3,f4,label:a,label:b\n")
		for i := range 300 {
			fmt.Fprintf(&b, "%d,%d,%d.5,%d,%d,%d\n", i*(k+1)%17, i*i%23, i%7, (i+k)%5, i%2, i/3%2)
		}
		rec, err := st.Import(context.Background(), store.Upload{Name: fmt.Sprint("d", k), FileName: "d.csv", Source: strings.NewReader(b.String())})
		if err != nil {
			t.Fatal(err)
		}
		recs[rec.ID] = rec
		ids = append(ids, rec.ID)
	}
	st.Close() // a worker never opens meta.db
	path := func(id string) string { return filepath.Join(dir, "datasets", id, recs[id].DataFile) }
	run := Executor(store.OpenFiles(dir, nil), "test", 0)

	eigen := map[string][]byte{} // data set → its first job's eigenvalues.json
	for i, c := range []struct {
		data   int
		cancel bool
	}{{0, false}, {0, true}, {1, false}, {0, false}, {1, true}, {1, false}, {0, false}, {0, false}, {1, false}, {0, true}, {0, false}} {
		id := ids[c.data]
		job := jobs.Job{ID: store.NewID(), Request: jobs.Request{Dataset: id, Methods: []string{"pca", "mddmp"}, Params: analysis.Params{D: 1}}}
		job.Request.Normalize()
		ctx, cancel := context.WithCancel(context.Background())
		_, err := run(ctx, job, map[string]store.DatasetRecord{id: recs[id]}, func(_ float64, phase, _ string) {
			if c.cancel && strings.HasPrefix(phase, "fitting") {
				cancel()
			}
		})
		cancel()
		if c.cancel {
			if !errors.Is(err, context.Canceled) {
				t.Errorf("job %d, canceled: got %v, want context.Canceled", i+1, err)
			}
		} else {
			if err != nil {
				t.Fatalf("job %d: got %v, want no error", i+1, err)
			}
			got, err := os.ReadFile(filepath.Join(dir, "jobs", job.ID, "pca", jobs.FileEigenvalues))
			if err != nil {
				t.Fatal(err)
			}
			if want, ok := eigen[id]; ok && !bytes.Equal(got, want) {
				t.Errorf("job %d: got eigenvalues %s, want %s as the first job on the data set", i+1, got, want)
			}
			eigen[id] = got
		}
		m := mappedPaths(t, path(ids[0]), path(ids[1]))
		if !m[path(id)] || m[path(ids[1-c.data])] {
			t.Errorf("after job %d on data set %d: got mapped %v, want only its own", i+1, c.data, m)
		}
	}
}
