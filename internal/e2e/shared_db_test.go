package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mldr/internal/pgtest"
)

// sharedCSV is a small seeded multi-label data set: rows × 6 features, 3
// labels.
func sharedCSV(rows int) []byte {
	r := rand.New(rand.NewPCG(16, 1))
	var b bytes.Buffer
	b.WriteString("f1,f2,f3,f4,f5,f6,label:a,label:b,label:c\n")
	for range rows {
		for j := range 6 {
			fmt.Fprintf(&b, "%.4f,", r.NormFloat64()+float64(j))
		}
		fmt.Fprintf(&b, "%d,%d,%d\n", r.IntN(2), r.IntN(2), 1)
	}
	return b.Bytes()
}

// The real binary with -database keeps its metadata in PostgreSQL: a data
// set uploaded and a job run are there after a restart, with the same
// results; nothing is left in tmp/ after a clean stop; and the data
// directory, bound to its database, is refused without it.
func TestSharedDatabaseSurvivesRestart(t *testing.T) {
	dsn := pgtest.NewDB(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	// (The start log's metadata= is checked in cmd/webapp: a.logs is
	// written as the server runs.)
	a := start(t, dir, "-database", dsn, "-workers", "1")
	ds, code := a.upload("shared.csv", sharedCSV(120))
	if code != http.StatusCreated || ds.ID == "" || ds.Rows != 120 {
		t.Fatalf("upload: got status %d, %+v; want 201 and 120 rows", code, ds)
	}
	id := jtSubmit(ctx, t, a, map[string]any{"dataset": ds.ID, "method": "pca", "params": map[string]any{"d": 2}})
	jtPoll(ctx, t, a, id, "success", func(j jtJob) bool { return j.Status == "succeeded" })
	proj := jtGet(ctx, t, a.url+"/api/jobs/"+id+"/projection.csv?method=pca")
	jtWantStatus(t, "the job's projection", proj, http.StatusOK)
	for _, c := range []struct {
		file string
		want bool
	}{{"meta.db", false}, {"database-id", true}} {
		if _, err := os.Stat(filepath.Join(dir, c.file)); (err == nil) != c.want {
			t.Errorf("%s in the data directory: got %v, want present %v", c.file, err, c.want)
		}
	}
	if err := a.stop(); err != nil {
		t.Fatalf("stopping: %v\n%s", err, a.logs)
	}
	jtTmpEmpty(t, a, "after a clean stop")

	b := start(t, dir, "-database", dsn, "-workers", "1")
	if got := b.datasets(); len(got) != 1 || got[0].ID != ds.ID || got[0].SHA256 != ds.SHA256 {
		t.Errorf("after the restart, data sets: got %+v, want the one uploaded", got)
	}
	if j := jtGetJob(ctx, t, b, id); j.Status != "succeeded" {
		t.Errorf("after the restart, job %s: got status %s, want succeeded", id, j.Status)
	}
	again := jtGet(ctx, t, b.url+"/api/jobs/"+id+"/projection.csv?method=pca")
	jtWantStatus(t, "the job's projection after the restart", again, http.StatusOK)
	if !bytes.Equal(again.Body, proj.Body) {
		t.Errorf("the projection changed across the restart: %d bytes, then %d", len(proj.Body), len(again.Body))
	}
	if err := b.stop(); err != nil {
		t.Fatalf("stopping: %v\n%s", err, b.logs)
	}

	// Without -database the directory is refused: its records are in the
	// database, and the embedded store would take its files for orphans.
	rctx, rcancel := context.WithTimeout(ctx, 30*time.Second)
	defer rcancel()
	out, err := exec.CommandContext(rctx, binary(t), "-addr", "127.0.0.1:0", "-data-dir", dir).CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || !strings.Contains(string(out), "belongs to a shared deployment") {
		t.Errorf("starting without -database on the shared directory: got %v\n%s\nwant an exit saying it belongs to a shared deployment", err, out)
	}
	if got := dirNames(t, filepath.Join(dir, "datasets")); len(got) != 1 {
		t.Errorf("after the refused start, datasets/ holds %v, want the one data set", got)
	}
}
