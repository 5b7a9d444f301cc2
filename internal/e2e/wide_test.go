package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"
)

// wideCSV is a small file of a wide shape, which must not cost a D×D
// matrix (6 × 60 000 would ask for 60 000²): rows rows and features feature
// columns of one-digit numbers, and two labels.
func wideCSV(rows, features int) []byte {
	var b bytes.Buffer
	for j := range features {
		fmt.Fprintf(&b, "f%d,", j+1)
	}
	b.WriteString("label:a,label:b\n")
	for i := range rows {
		for j := range features {
			b.WriteByte(byte('0' + (i*7+j*3)%10))
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%d,%d\n", i%2, (i/2)%2)
	}
	return b.Bytes()
}

// TestWideDataJobsBinary uploads 6 rows × 1 000 000 feature columns (a
// 14 MB file that used to make a pca, cplst or lda job ask for an
// 8 TB D×D matrix and end the server) to the real binary with its default
// limits, and runs those methods: they take the N×N path and succeed, the
// data set's page stays small, and the server's own memory stays under
// 1 GiB. Its peak is the upload's: the loader holds about 400 bytes a
// column (690 MiB measured at 1 000 000 columns); the jobs add nothing to
// it, as they run in a worker.
func TestWideDataJobsBinary(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	a := start(t, t.TempDir(), "-workers", "1")
	d, status := a.upload("wide.csv", wideCSV(6, 1_000_000))
	if status != http.StatusCreated || d.Features != 1_000_000 {
		t.Fatalf("upload: got %d, %d features; want 201 and 1 000 000", status, d.Features)
	}
	t.Logf("peak after the upload: %d MiB", peakRSS(t, a.cmd.Process.Pid)>>20)
	page := jtGet(ctx, t, a.url+"/datasets/"+d.ID)
	t.Logf("peak after the page: %d MiB", peakRSS(t, a.cmd.Process.Pid)>>20)
	if page.Status != http.StatusOK || len(page.Body) > 2<<20 {
		t.Errorf("the data set's page: got %d, %d bytes; want 200 under 2 MiB", page.Status, len(page.Body))
	}
	id := jtSubmit(ctx, t, a, map[string]any{"dataset": d.ID, "methods": []string{"pca", "cplst", "lda", "mlsi"}, "params": map[string]any{"d": 1}})
	j := jtPoll(ctx, t, a, id, "the wide job ends", func(j jtJob) bool { return jtTerminal(j.Status) })
	if j.Status != "succeeded" {
		t.Fatalf("the wide job: got %s %q, want succeeded", j.Status, j.Error)
	}
	t.Logf("peak after the job: %d MiB", peakRSS(t, a.cmd.Process.Pid)>>20)
	if r := jtGet(ctx, t, a.url+"/jobs/"+id); r.Status != http.StatusOK {
		t.Errorf("the job's page: got %d, want 200", r.Status)
	}
	t.Logf("peak after the job's page: %d MiB", peakRSS(t, a.cmd.Process.Pid)>>20)
	healthy(ctx, t, a, "after the wide job")
	if peak := peakRSS(t, a.cmd.Process.Pid); peak > 1<<30 {
		t.Errorf("the server's peak resident memory: got %d MiB, want under 1 GiB", peak>>20)
	}
}
