package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeWebapp answers the routes the end-to-end rows use, as the webapp
// does, for the client's tests.
type fakeWebapp struct {
	mu sync.Mutex
	// uploadFail, when set, is the error of every upload (400).
	uploadFail string
	// jobFail, when set, is the error every job fails with.
	jobFail string
	// noEnd makes the event stream end before the job finishes.
	noEnd    bool
	uploaded []int64 // bytes of each file uploaded
	deleted  []string
	jobs     []string // bodies of the jobs submitted
}

func (f *fakeWebapp) handler() http.Handler {
	mux := http.NewServeMux()
	writeJSON := func(w http.ResponseWriter, status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(v)
	}
	mux.HandleFunc("POST /api/datasets", func(w http.ResponseWriter, r *http.Request) {
		file, _, err := r.FormFile("file")
		if err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
			return
		}
		n, _ := io.Copy(io.Discard, file)
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.uploadFail != "" {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": f.uploadFail, "field": "file"})
			return
		}
		f.uploaded = append(f.uploaded, n)
		writeJSON(w, http.StatusCreated, map[string]any{"id": fmt.Sprintf("ds%d", len(f.uploaded)), "rows": 3})
	})
	mux.HandleFunc("DELETE /api/datasets/{id}", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.deleted = append(f.deleted, r.PathValue("id"))
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("POST /api/jobs", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		defer f.mu.Unlock()
		f.jobs = append(f.jobs, string(b))
		writeJSON(w, http.StatusAccepted, map[string]string{"id": fmt.Sprintf("j%d", len(f.jobs)), "status": "queued"})
	})
	mux.HandleFunc("GET /api/jobs/{id}/events", func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("id")
		var k int
		fmt.Sscanf(id, "j%d", &k)
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: {\"id\":%q,\"status\":\"running\",\"phases\":[{\"name\":\"start\",\"seconds\":0.001}]}\n\n: keep-alive\n\n", id)
		if f.noEnd {
			return
		}
		end := map[string]any{"id": id, "status": "succeeded",
			"phases": []phaseTime{{"start", 0.001}, {"load", float64(k)}, {"fit", 0.1}}}
		if f.jobFail != "" {
			end = map[string]any{"id": id, "status": "failed", "error": f.jobFail}
		}
		b, _ := json.Marshal(end)
		fmt.Fprintf(w, "data: %s\n\n", b)
	})
	mux.HandleFunc("GET /api/jobs/{id}/eigenvalues.json", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"eigenvalues": []float64{9, 8, 7, 6, 5, 4, 3}, "d": 2})
	})
	return mux
}

// smallCSV writes a small file to upload and returns its path.
func smallCSV(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "d.csv")
	if err := os.WriteFile(path, []byte("f1,label:a\n1,0\n2,1\n3,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestUploadCSV(t *testing.T) {
	for _, tc := range []struct {
		name, fail, wantErr string
	}{
		{"accepted", "", ""},
		{"refused", `line 3, column "f1": "x" is not a number`, `got 400 (line 3, column "f1": "x" is not a number), want 201`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeWebapp{uploadFail: tc.fail}
			srv := httptest.NewServer(f.handler())
			defer srv.Close()
			path := smallCSV(t)
			id, took, err := uploadCSV(t.Context(), srv.Client(), srv.URL, path)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %v, want an error containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if id != "ds1" || took <= 0 {
				t.Errorf("got id %q and %v, want ds1 and a positive time", id, took)
			}
			if st, _ := os.Stat(path); len(f.uploaded) != 1 || f.uploaded[0] != st.Size() {
				t.Errorf("the server got files of %v bytes, want one of %d", f.uploaded, st.Size())
			}
			if err := deleteDataset(t.Context(), srv.Client(), srv.URL, id); err != nil || !slices.Equal(f.deleted, []string{"ds1"}) {
				t.Errorf("deleteDataset: got %v and deleted %v, want nil and [ds1]", err, f.deleted)
			}
		})
	}
}

func TestRunJob(t *testing.T) {
	for _, tc := range []struct {
		name    string
		f       *fakeWebapp
		want    string // the finished status
		wantErr string
	}{
		{"succeeds", &fakeWebapp{}, "succeeded", ""},
		{"fails", &fakeWebapp{jobFail: "d = 12 exceeds the rank 10 of XᵀHY"}, "failed", "job j1 failed: d = 12 exceeds the rank 10 of XᵀHY"},
		{"stream ends early", &fakeWebapp{noEnd: true}, "running", "the event stream ended with the job running, not finished"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.f.handler())
			defer srv.Close()
			body, err := jobBody("ds1", "pca", 10)
			if err != nil {
				t.Fatal(err)
			}
			j, took, err := runJob(t.Context(), srv.Client(), srv.URL, body)
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("got error %v, want %q", err, tc.wantErr)
			}
			if j.Status != tc.want || took <= 0 {
				t.Errorf("got status %q after %v, want %q after a positive time", j.Status, took, tc.want)
			}
			if want := `{"dataset":"ds1","method":"pca","params":{"d":10}}`; len(tc.f.jobs) != 1 || tc.f.jobs[0] != want {
				t.Errorf("the server got jobs %q, want [%s]", tc.f.jobs, want)
			}
		})
	}
}

// TestTimeJobs times jobs given by a fake run: a warm-up and three timed
// jobs, the last one's eigenvalues cut to top, the median job's phases,
// the largest peak.
func TestTimeJobs(t *testing.T) {
	took := []time.Duration{900, 300, 100, 200} // ms: the warm-up, then j2…j4
	k := 0
	run := func() (jobRun, error) {
		k++
		return jobRun{job: jobState{ID: fmt.Sprintf("j%d", k), Status: "succeeded", Phases: []phaseTime{{"load", float64(k)}}},
			took: took[k-1] * time.Millisecond, eig: []float64{9, 8, 7, 6, 5, float64(k)}, peakKiB: int64(100 * k % 350)}, nil
	}
	o, phases := timeJobs(t.Context(), 3, time.Second, 5, run)
	if o.err != nil {
		t.Fatal(o.err)
	}
	if want := []float64{0.3, 0.1, 0.2}; k != 4 || !slices.Equal(o.res.Times, want) || o.res.Warmup == nil || *o.res.Warmup != 0.9 {
		t.Fatalf("got %d jobs, times %v and warm-up %v; want 4, %v and 0.9", k, o.res.Times, o.res.Warmup, want)
	}
	if want := []float64{9, 8, 7, 6, 5}; !slices.Equal(o.res.Eig, want) {
		t.Errorf("eigenvalues: got %v, want %v", o.res.Eig, want)
	}
	if want := []phaseTime{{"load", 4}}; !slices.Equal(phases, want) {
		t.Errorf("phases: got %v, want %v, those of j4, the median job (0.2 s)", phases, want)
	}
	if o.peakKiB != 300 {
		t.Errorf("peak: got %d KiB, want the largest, 300", o.peakKiB)
	}
	boom := errors.New("boom")
	if o, _ := timeJobs(t.Context(), 1, 0, 5, func() (jobRun, error) { return jobRun{}, boom }); !errors.Is(o.err, boom) {
		t.Errorf("a failing job: got %v, want %v", o.err, boom)
	}
}

func TestMedianIndex(t *testing.T) {
	for _, tc := range []struct {
		times []float64
		want  int
	}{
		{nil, -1},
		{[]float64{3}, 0},
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 3}, // the lower middle: 2
		{[]float64{5, 5, 1}, 0},
	} {
		if got := medianIndex(tc.times); got != tc.want {
			t.Errorf("medianIndex(%v): got %d, want %d", tc.times, got, tc.want)
		}
	}
}

func TestE2EData(t *testing.T) {
	requireNumPy(t)
	dir := t.TempDir()
	c := benchCase{work: "pca", size: dataSize{name: "e2e", n: 50, d: 4, q: 3}, kind: kindE2E}
	files, err := ensureData(t.Context(), dir, c, 1, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(files.CSV)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != 51 || lines[0] != "f1,f2,f3,f4,label:l1,label:l2,label:l3" {
		t.Fatalf("got %d lines starting %q, want 51 starting with the header", len(lines), lines[0])
	}
	// numpy reads the CSV to the values of the .npy files, exactly.
	const script = `import sys
import numpy as np
a = np.loadtxt(sys.argv[1], delimiter=",", skiprows=1)
x, y = np.load(sys.argv[2]), np.load(sys.argv[3])
print(np.array_equal(a[:, :x.shape[1]], x), np.array_equal(a[:, x.shape[1]:], y), x.shape, y.shape)
`
	out, err := runPython(t, script, files.CSV, files.X, files.Y)
	if err != nil {
		t.Fatalf("numpy: %v\n%s", err, out)
	}
	if want := "True True (50, 4) (50, 3)\n"; out != want {
		t.Errorf("numpy: got %q, want %q", out, want)
	}
	for _, v := range []float64{1.23456789, -0.000123456789, 12345678.9} {
		if got, want := roundDigits(v), map[float64]float64{1.23456789: 1.23457, -0.000123456789: -0.000123457, 12345678.9: 12345700}[v]; got != want {
			t.Errorf("roundDigits(%v): got %v, want %v", v, got, want)
		}
	}
}

// runPython runs a script under debianPython with args.
func runPython(t *testing.T, script string, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	cmd := exec.CommandContext(t.Context(), debianPython, append([]string{"-c", script}, args...)...)
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// TestBenchE2E runs the end-to-end rows on tiny data with the real
// webapp: built from this tree, started, the dense and the sparse CSV
// uploaded twice each, a pca and an mddmp job timed, numpy's side run,
// the webapp stopped. Skipped with -short (it builds the webapp).
func TestBenchE2E(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the webapp")
	}
	requireNumPy(t)
	dir := t.TempDir()
	size := dataSize{name: "e2e", n: 300, d: 30, q: 12}
	cases := []benchCase{{work: "pca", size: size, kind: kindE2E}, {work: "mddmp", size: size, kind: kindE2E}}
	wide := benchCase{work: "pca", size: smallWide, kind: kindWide}
	// The data exist before, so no generator child (this test binary
	// cannot be one) is started.
	for _, c := range []benchCase{cases[0], wide} {
		if _, err := ensureData(t.Context(), dir, c, 1, io.Discard); err != nil {
			t.Fatal(err)
		}
	}
	cfg := config{reps: 2, warmupUnder: time.Hour, cacheDir: dir, python: debianPython, script: refScript, seed: 1, tol: 1e-6, sparseTol: 1e-6}
	var log bytes.Buffer
	rows, ups, err := benchE2E(t.Context(), cfg, "", cases, wide, &log)
	if err != nil {
		t.Fatalf("%v\nlog:\n%s", err, log.String())
	}
	if len(ups) != 2 || !strings.HasPrefix(ups[0].what, "dense CSV") || !strings.HasPrefix(ups[1].what, "sparse CSV") {
		t.Fatalf("uploads: got %+v, want the dense CSV's and the sparse CSV's", ups)
	}
	for _, up := range ups {
		if len(up.times) != 2 || up.bytes <= 0 || up.peakKiB <= 0 || up.stored <= up.bytes || up.diskRate <= 0 {
			t.Errorf("uploads of the %s: got %+v, want 2 times, the file's size, more stored than sent, the disk's rate and a peak", up.what, up)
		}
	}
	if len(rows) != 2 {
		t.Fatalf("got %d rows, want 2", len(rows))
	}
	for i, r := range rows {
		if r.work != cases[i].work || r.kind != kindE2E || r.goSide.err != nil || r.np.err != nil {
			t.Errorf("row %d: got %s, kind %d, errors %v and %v; want %s, end to end, none", i, r.work, r.kind, r.goSide.err, r.np.err, cases[i].work)
			continue
		}
		if len(r.goSide.res.Times) != 2 || r.goSide.res.Warmup == nil || r.goSide.peakKiB <= 0 {
			t.Errorf("%s: got times %v, warm-up %v, peak %d KiB; want 2 times, a warm-up and a peak", r.work, r.goSide.res.Times, r.goSide.res.Warmup, r.goSide.peakKiB)
		}
		names := make([]string, len(r.phases))
		for k, p := range r.phases {
			names[k] = p.Name
		}
		if !slices.Contains(names, "load") || !slices.Contains(names, "fit") {
			t.Errorf("%s: got phases %v, want load and fit among them", r.work, r.phases)
		}
		if rel, err := agreement(r.goSide.res.Eig, r.np.res.Eig); err != nil || rel > 1e-9 || len(r.goSide.res.Eig) != agreeTop {
			t.Errorf("%s: got job %v and numpy %v (%.2g, %v), want %d equal to 1e-9", r.work, r.goSide.res.Eig, r.np.res.Eig, rel, err, agreeTop)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "e2e-webapp-*")); len(left) != 0 {
		t.Errorf("left behind: %v, want the webapp's directory removed", left)
	}
}
