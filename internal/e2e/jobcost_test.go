//go:build jobcost

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The cost of a job beside its algebra: the real binary, a dense CSV of
// 50 000 rows × 500 features and 20 labels (about 250 MB) uploaded through
// the API, then pca and mddmp jobs (d = 10, no evaluation) whose phases
// (the job's "phases") are reported. It is left out of the normal run by
// its build tag:
//
//	MLDR_JOBCOST_DIR=/var/tmp/jobcost go test -tags jobcost -run TestJobCost -v -count=1 ./internal/e2e/
//
// MLDR_JOBCOST_DIR keeps the generated CSV between runs (default: a
// temporary directory); MLDR_JOBCOST_BIN runs another build of the
// webapp (to compare with an older one); MLDR_JOBCOST_RUNS is the number
// of rounds (default 3); MLDR_JOBCOST_ROWS and MLDR_JOBCOST_FEATURES
// change the shape.
//
// Each round uploads the CSV again with a different number of trailing
// blank lines (so with another SHA-256, and no decomposition of an
// earlier round can be reused), then runs a "first" job on it (the
// worker has not read this data set before) and a "second" job with the
// other method (it has). Rounds alternate which method goes first. The
// worker is warmed up by a small job before the first round.
func TestJobCost(t *testing.T) {
	rows, features := envInt(t, "MLDR_JOBCOST_ROWS", 50000), envInt(t, "MLDR_JOBCOST_FEATURES", 500)
	runs := envInt(t, "MLDR_JOBCOST_RUNS", 3)
	dir := os.Getenv("MLDR_JOBCOST_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	csvPath := filepath.Join(dir, fmt.Sprintf("dense-%dx%d.csv", rows, features))
	if _, err := os.Stat(csvPath); err != nil {
		if err := writeCostCSV(csvPath, rows, features, 20); err != nil {
			t.Fatal(err)
		}
	}
	st, err := os.Stat(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	bin := os.Getenv("MLDR_JOBCOST_BIN")
	if bin == "" {
		bin = binary(t)
	}
	dataDir, err := os.MkdirTemp(dir, "data-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dataDir) })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	a := startWith(t, bin, nil, dataDir, "-workers", "1")

	warm := jtSubmit(ctx, t, a, map[string]any{"dataset": demo(ctx, t, a), "methods": []string{"pca"}, "params": map[string]any{"d": 2}})
	jtPoll(ctx, t, a, warm, "the warm-up job to succeed", func(j jtJob) bool { return j.Status == "succeeded" })

	type sample struct {
		phases map[string]float64
		total  float64
	}
	samples := map[string][]sample{} // "pca first", …
	var uploads []float64
	for round := range runs {
		f, err := os.Open(csvPath)
		if err != nil {
			t.Fatal(err)
		}
		body := io.MultiReader(f, strings.NewReader(strings.Repeat("\n", round+1)))
		began := time.Now()
		resp, err := http.DefaultClient.Do(uploadRequest(ctx, a.url, "dense.csv", body))
		if err != nil {
			t.Fatal(err)
		}
		var ds datasetInfo
		err = json.NewDecoder(resp.Body).Decode(&ds)
		resp.Body.Close()
		f.Close()
		if resp.StatusCode != http.StatusCreated || err != nil {
			t.Fatalf("upload: got status %d (%v), want 201", resp.StatusCode, err)
		}
		uploads = append(uploads, time.Since(began).Seconds())
		order := []string{"pca", "mddmp"}
		if round%2 == 1 {
			slices.Reverse(order)
		}
		var ids []string
		for k, m := range order {
			id := jtSubmit(ctx, t, a, map[string]any{"dataset": ds.ID, "methods": []string{m}, "params": map[string]any{"d": 10}})
			j := jtPoll(ctx, t, a, id, "the job to succeed", func(j jtJob) bool { return jtTerminal(j.Status) })
			if j.Status != "succeeded" {
				t.Fatalf("%s job: %s: %s", m, j.Status, j.Error)
			}
			s := sample{phases: map[string]float64{}, total: j.FinishedAt.Sub(*j.StartedAt).Seconds()}
			for _, p := range j.Phases {
				s.phases[p.Name] = p.Seconds
			}
			which := m + " first"
			if k == 1 {
				which = m + " second"
			}
			samples[which] = append(samples[which], s)
			ids = append(ids, id)
		}
		for _, id := range ids {
			jtWantStatus(t, "deleting a job", jtDo(ctx, t, "DELETE", a.url+"/api/jobs/"+id, "", nil), http.StatusNoContent)
		}
		jtWantStatus(t, "deleting the data set", jtDo(ctx, t, "DELETE", a.url+"/api/datasets/"+ds.ID, "", nil), http.StatusNoContent)
	}
	t.Logf("upload of %.0f MB: median %.2f s (%.0f MB/s), all %s", float64(st.Size())/1e6, median(uploads), float64(st.Size())/1e6/median(uploads), secs(uploads))
	for _, which := range []string{"pca first", "pca second", "mddmp first", "mddmp second"} {
		ss := samples[which]
		if len(ss) == 0 {
			continue
		}
		var totals []float64
		for _, s := range ss {
			totals = append(totals, s.total)
		}
		line := fmt.Sprintf("%-12s median %.3f s (all %s):", which, median(totals), secs(totals))
		for _, p := range []string{"start", "load", "fit", "write"} {
			var v []float64
			for _, s := range ss {
				v = append(v, s.phases[p])
			}
			line += fmt.Sprintf(" %s %.3f", p, median(v))
		}
		t.Log(line)
	}
}

func envInt(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a positive whole number", name, v)
	}
	return n
}

func median(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	return s[len(s)/2]
}

func secs(v []float64) string {
	var out []string
	for _, x := range v {
		out = append(out, strconv.FormatFloat(x, 'f', 3, 64))
	}
	return strings.Join(out, " ")
}

// writeCostCSV writes a seeded CSV of rows × features numbers written like
// "-1.234567" and q 0/1 labels, which depend on the first features.
func writeCostCSV(path string, rows, features, q int) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	for j := range features {
		fmt.Fprintf(w, "f%d,", j+1)
	}
	for l := range q {
		if l > 0 {
			w.WriteByte(',')
		}
		fmt.Fprintf(w, "label:l%d", l+1)
	}
	w.WriteByte('\n')
	rng := rand.New(rand.NewPCG(15, 3))
	x := make([]float64, features)
	var b []byte
	for range rows {
		b = b[:0]
		for j := range x {
			x[j] = rng.NormFloat64()
			b = strconv.AppendFloat(b, x[j], 'f', 6, 64)
			b = append(b, ',')
		}
		for l := range q {
			if l > 0 {
				b = append(b, ',')
			}
			v := byte('0')
			if x[l%features]+0.5*rng.NormFloat64() > 0.8 {
				v = '1'
			}
			b = append(b, v)
		}
		b = append(b, '\n')
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
