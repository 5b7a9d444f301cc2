package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// oocDataCSV is n rows of d dense features (means far from zero) and q
// binary labels that depend on them, seeded.
func oocDataCSV(n, d, q int) []byte {
	r := rand.New(rand.NewPCG(16, 4))
	var b strings.Builder
	b.Grow(n * (d*9 + 2*q))
	for j := range d {
		fmt.Fprintf(&b, "f%d,", j)
	}
	for j := range q {
		if j > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "label:l%d", j)
	}
	b.WriteByte('\n')
	x := make([]float64, d)
	buf := make([]byte, 0, 32)
	for range n {
		for j := range x {
			x[j] = r.NormFloat64()*float64(1+j%5) + float64(j%7)
			buf = strconv.AppendFloat(buf[:0], x[j], 'f', 4, 64)
			b.Write(buf)
			b.WriteByte(',')
		}
		for j := range q {
			if j > 0 {
				b.WriteByte(',')
			}
			if x[j]+x[j+q]-float64(j%7+(j+q)%7)+r.NormFloat64() > 0 {
				b.WriteByte('1')
			} else {
				b.WriteByte('0')
			}
		}
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// workerPIDs are the child processes of the server (its workers).
func workerPIDs(t *testing.T, a *app) []int {
	t.Helper()
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", a.cmd.Process.Pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	var pids []int
	for _, task := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", a.cmd.Process.Pid, task.Name()))
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

type oocEigen struct {
	Eigenvalues []float64 `json:"eigenvalues"`
	D           int       `json:"d"`
}

// oocResults are a succeeded job's eigenvalues of method and its projected
// rows (projected.csv: the components of each row).
func oocResults(ctx context.Context, t *testing.T, a *app, id, method string) (oocEigen, [][]float64) {
	t.Helper()
	r := jtGet(ctx, t, a.url+"/api/jobs/"+id+"/eigenvalues.json?method="+method)
	jtWantStatus(t, method+" eigenvalues.json", r, http.StatusOK)
	var e oocEigen
	if err := json.Unmarshal(r.Body, &e); err != nil {
		t.Fatal(err)
	}
	r = jtGet(ctx, t, a.url+"/api/jobs/"+id+"/projected.csv?method="+method)
	jtWantStatus(t, method+" projected.csv", r, http.StatusOK)
	rows := jtReadCSV(t, method+" projected.csv", r.Body)
	var z [][]float64
	for _, row := range rows[1:] {
		z = append(z, jtFloats(t, "projected.csv", row[len(row)-e.D:]))
	}
	return e, z
}

// TestOutOfCoreBinary uploads, through the real binary, a data set of 4
// row shards (-shard-size) larger than -max-job-memory, and fits it with
// a job that cannot fit in memory: the job runs out of core, its worker's
// peak resident memory stays under the limit, and its eigenvalues and
// projected rows equal those of the same job run in memory (the same data
// directory served again without a limit).
func TestOutOfCoreBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("uploads and fits 170 MiB of data")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	const limit = 160 << 20
	dir := t.TempDir()
	a := start(t, dir, "-workers", "1", "-max-job-memory", "160MiB", "-shard-size", "44MiB")
	body := oocDataCSV(124000, 170, 10)
	d, status := a.upload("ooc.csv", body)
	if status != http.StatusCreated {
		t.Fatalf("upload: got %d, want 201", status)
	}
	body = nil
	shards, err := filepath.Glob(filepath.Join(dir, "datasets", d.ID, "data-1", "shard-*.bin"))
	if err != nil {
		t.Fatal(err)
	}
	var stored int64
	for _, p := range shards {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		stored += st.Size()
	}
	if len(shards) != 4 || stored <= limit {
		t.Fatalf("got %d shards of %d bytes in all, want 4 holding more than the limit of %d", len(shards), stored, limit)
	}
	req := map[string]any{"dataset": d.ID, "methods": []string{"pca", "mddmp"}, "params": map[string]any{"d": 5}}
	// An evaluation cannot run out of core: 413 with the reason.
	r := jtPostJob(ctx, t, a, map[string]any{"dataset": d.ID, "method": "pca", "params": map[string]any{"d": 5},
		"split": map[string]any{"kind": "kfold"}, "evaluate": map[string]any{"classifier": "mlknn"}})
	jtWantStatus(t, "an evaluated job", r, http.StatusRequestEntityTooLarge)
	if e := jtAPIErr(t, "an evaluated job", r); !strings.Contains(e.Error, "The data set is stored in 4 row shards, but this job cannot be fitted out of core, one shard at a time: the evaluation with ML-kNN needs every row in memory") {
		t.Errorf("an evaluated job: got %q, want the reason it cannot run out of core", e.Error)
	}

	workers := workerPIDs(t, a)
	if len(workers) != 1 {
		t.Fatalf("got worker processes %v, want 1", workers)
	}
	id := jtSubmit(ctx, t, a, req)
	j := jtPoll(ctx, t, a, id, "the out-of-core job ends", func(j jtJob) bool { return jtTerminal(j.Status) })
	if j.Status != "succeeded" {
		t.Fatalf("out-of-core job: got %s %q, want succeeded", j.Status, j.Error)
	}
	if len(j.Notes) == 0 || !strings.HasPrefix(j.Notes[0], "fitted out of core, one of the data set's 4 row shards at a time") {
		t.Errorf("out-of-core job: got notes %q, want the first to say it was fitted out of core", j.Notes)
	}
	peak := peakRSS(t, workers[0])
	t.Logf("the worker's peak resident memory: %.1f MiB, under a limit of %d MiB, for %.1f MiB of stored data in 4 shards", float64(peak)/(1<<20), limit>>20, float64(stored)/(1<<20))
	if peak >= limit {
		t.Errorf("the worker's peak resident memory is %d MiB, want under the limit of %d MiB", peak>>20, limit>>20)
	}
	got := oocJobResults(ctx, t, a, id)
	if err := a.stop(); err != nil {
		t.Fatal(err)
	}

	// The same job in memory, on the same data directory without a limit
	// (the shards concatenated as the data set loads).
	b := start(t, dir, "-workers", "1", "-max-job-memory", "0")
	id2 := jtSubmit(ctx, t, b, req)
	j = jtPoll(ctx, t, b, id2, "the in-memory job ends", func(j jtJob) bool { return jtTerminal(j.Status) })
	if j.Status != "succeeded" || len(j.Notes) > 0 && strings.Contains(j.Notes[0], "out of core") {
		t.Fatalf("in-memory job: got %s %q, notes %q; want succeeded in memory", j.Status, j.Error, j.Notes)
	}
	oocCompare(t, got, oocJobResults(ctx, t, b, id2), 124000)
	jtTmpEmpty(t, b, "after both jobs")
}

// oocResult is one method's results of a job.
type oocResult struct {
	e oocEigen
	z [][]float64
}

// oocJobResults reads the results of pca and mddmp of a succeeded job.
func oocJobResults(ctx context.Context, t *testing.T, a *app, id string) map[string]oocResult {
	t.Helper()
	out := map[string]oocResult{}
	for _, m := range []string{"pca", "mddmp"} {
		e, z := oocResults(ctx, t, a, id, m)
		out[m] = oocResult{e, z}
	}
	return out
}

// oocCompare requires the results of an out-of-core job to equal those
// of the same job in memory, on rows rows: eigenvalues to 1e-10 of the
// largest, projected rows to 1e-9 of their largest component.
func oocCompare(t *testing.T, got, want map[string]oocResult, rows int) {
	t.Helper()
	for _, m := range []string{"pca", "mddmp"} {
		g, w := got[m], want[m]
		if g.e.D != w.e.D || len(g.e.Eigenvalues) != len(w.e.Eigenvalues) {
			t.Fatalf("%s: got d = %d and %d eigenvalues, want %d and %d", m, g.e.D, len(g.e.Eigenvalues), w.e.D, len(w.e.Eigenvalues))
		}
		for i, v := range w.e.Eigenvalues {
			if math.Abs(g.e.Eigenvalues[i]-v) > 1e-10*math.Abs(w.e.Eigenvalues[0]) {
				t.Errorf("%s: eigenvalue %d: got %v, want %v", m, i+1, g.e.Eigenvalues[i], v)
			}
		}
		if len(g.z) != len(w.z) || len(w.z) != rows {
			t.Fatalf("%s: got %d projected rows, want %d = %d", m, len(g.z), len(w.z), rows)
		}
		scale := 0.0
		for _, row := range w.z {
			for _, v := range row {
				scale = max(scale, math.Abs(v))
			}
		}
		bad := 0
		for i := range w.z {
			for c := range w.z[i] {
				// projected.csv writes 17 significant digits at most.
				if math.Abs(g.z[i][c]-w.z[i][c]) > 1e-9*scale {
					bad++
					if bad == 1 {
						t.Errorf("%s: projected row %d, component %d: got %v, want %v (1e-9 of %v)", m, i+1, c+1, g.z[i][c], w.z[i][c], scale)
					}
				}
			}
		}
	}
}
