package e2e

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// bvLabelsCSV is a multi-label CSV of n rows, 2 features and q labels
// (seeded, each label in about 5% of the rows).
func bvLabelsCSV(n, q int) []byte {
	rng := rand.New(rand.NewPCG(5000, 12))
	var b bytes.Buffer
	b.WriteString("f1,f2")
	for j := range q {
		fmt.Fprintf(&b, ",label:L%d", j+1)
	}
	b.WriteByte('\n')
	for i := range n {
		fmt.Fprintf(&b, "%d,%d", i, i%7)
		for range q {
			if rng.Float64() < 0.05 {
				b.WriteString(",1")
			} else {
				b.WriteString(",0")
			}
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// bvPeakRSS is the process's peak resident memory (VmHWM), in bytes.
func bvPeakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("VmHWM %q: %v", rest, err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no VmHWM in /proc/%d/status", pid)
	return 0
}

// An attacker's file: about 3 MB, 5 000 label columns, whose label views
// would cost q×q matrices and q² images if they were not bounded. Its
// page, its heatmap as SVG and PNG and its nmi.json each answer quickly and
// small, and the real server stays healthy with its peak resident memory
// under 512 MiB (unbounded, it asked for 57 GB and died).
func TestBoundedViewsManyLabelsBinary(t *testing.T) {
	a := start(t, t.TempDir())
	csv := bvLabelsCSV(300, 5000)
	if len(csv) < 2_900_000 {
		t.Fatalf("the CSV has %d bytes, want about 3 MB", len(csv))
	}
	d, status := a.upload("attack-5000-labels.csv", csv)
	if status != http.StatusCreated {
		t.Fatalf("upload: got %d, want 201\n%s", status, a.logs)
	}
	ctx := context.Background()
	for _, c := range []struct {
		path     string
		ctype    string
		maxBytes int
	}{
		{"/datasets/" + d.ID, "text/html; charset=utf-8", 2 << 20},
		{"/api/datasets/" + d.ID, "application/json; charset=utf-8", 2 << 20},
		{"/api/datasets/" + d.ID + "/plots/nmi.svg", "image/svg+xml", 1 << 20},
		{"/api/datasets/" + d.ID + "/plots/nmi.png", "image/png", 2 << 20},
		{"/api/datasets/" + d.ID + "/plots/labels.png", "image/png", 2 << 20},
		{"/api/datasets/" + d.ID + "/nmi.json", "application/json; charset=utf-8", 3 << 20},
		{"/api/datasets/" + d.ID + "/nmi.json?offset=4980", "application/json; charset=utf-8", 3 << 20},
	} {
		began := time.Now()
		r := jtGet(ctx, t, a.url+c.path)
		took := time.Since(began)
		if r.Status != http.StatusOK || r.Header.Get("Content-Type") != c.ctype {
			t.Errorf("GET %s: got %d %s, want 200 %s (%.200s)", c.path, r.Status, r.Header.Get("Content-Type"), c.ctype, r.Body)
		}
		if len(r.Body) > c.maxBytes {
			t.Errorf("GET %s: got %d bytes, want at most %d", c.path, len(r.Body), c.maxBytes)
		}
		// Generous for a shared, loaded machine; unbounded, these took
		// minutes or killed the server.
		if took > 10*time.Second {
			t.Errorf("GET %s: took %v, want under 10 s", c.path, took)
		}
		t.Logf("GET %s: %d bytes in %v", c.path, len(r.Body), took.Round(time.Millisecond))
	}
	if r := jtGet(ctx, t, a.url+"/healthz"); r.Status != http.StatusOK {
		t.Fatalf("healthz after the views: got %d, want 200\n%s", r.Status, a.logs)
	}
	peak := bvPeakRSS(t, a.cmd.Process.Pid)
	t.Logf("peak resident memory (VmHWM): %d MiB", peak>>20)
	if peak > 512<<20 {
		t.Errorf("peak resident memory: got %d MiB, want at most 512 MiB", peak>>20)
	}
}
