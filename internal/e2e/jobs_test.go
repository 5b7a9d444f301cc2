package e2e

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The end-to-end tests of background jobs: the real binary, real data
// (yeast: 2417 rows, 103 features, 14 labels; yeast-test: 917 rows), the
// JSON API of the shared API.md (Jobs and Results), and SIGKILL.

// jtSlowJob is a request that keeps one worker busy for about 20 s on
// yeast (5 methods, 10 folds, a grid of 10 d each).
func jtSlowJob(dataset string) map[string]any {
	return map[string]any{
		"dataset":  dataset,
		"methods":  []string{"pca", "mddmp", "mvmd", "mlsi", "cca"},
		"split":    map[string]any{"kind": "kfold", "folds": 10, "seed": 1},
		"evaluate": map[string]any{"classifier": "mlknn", "percent": []float64{10, 20, 30, 40, 50, 60, 70, 80, 90, 100}, "of": "rank"},
	}
}

// jtMetricKeys are the multi-label metrics of the contract, those of
// extreme classification included.
var jtMetricKeys = []string{"hamming_loss", "one_error", "coverage", "ranking_loss", "average_precision",
	"subset_accuracy", "example_accuracy", "example_f1", "example_precision", "example_recall", "micro_f1", "macro_f1",
	"precision_at_1", "precision_at_3", "precision_at_5", "ndcg_at_1", "ndcg_at_3", "ndcg_at_5",
	"psprecision_at_1", "psprecision_at_3", "psprecision_at_5", "psndcg_at_1", "psndcg_at_3", "psndcg_at_5"}

// jtMethodFiles are a method's result files, with their Content-Type.
var jtMethodFiles = map[string]string{
	"projection.csv":   "text/csv",
	"projection.json":  "application/json",
	"projection.npy":   "application/octet-stream",
	"eigenvalues.json": "application/json",
	"projected.csv":    "text/csv",
	"model.json":       "application/json",
}

type jtManifest struct {
	Method  string `json:"method"`
	Space   string `json:"space"`
	D       int    `json:"d"`
	Dataset struct {
		ID     string `json:"id"`
		Name   string `json:"name"`
		SHA256 string `json:"sha256"`
		Rows   int    `json:"rows"`
	} `json:"dataset"`
	Version    string      `json:"software_version"`
	Job        string      `json:"job"`
	Features   []string    `json:"features"`
	Means      []float64   `json:"means"`
	Projection [][]float64 `json:"projection"`
}

type jtMetrics struct {
	Rows []struct {
		Method  string             `json:"method"`
		D       int                `json:"d"`
		Fold    *int               `json:"fold"`
		Metrics map[string]float64 `json:"metrics"`
	} `json:"rows"`
}

// TestJobYeastEndToEnd runs mddmp (d = 5) with an ML-kNN evaluation on
// yeast through the API, follows its events, and checks every result file
// against the others and against projections computed here.
func TestJobYeastEndToEnd(t *testing.T) {
	yeastPath := sharedFile(t, "yeast/yeast.csv")
	testPath := sharedFile(t, "yeast/yeast-test.csv")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	a := start(t, t.TempDir(), "-workers", "1")
	yeast := mustRead(t, yeastPath)
	ds, code := a.upload("yeast.csv", yeast)
	if code != http.StatusCreated {
		t.Fatalf("uploading yeast: got status %d, want 201", code)
	}
	testCSV := mustRead(t, testPath)
	transform := func(id, query string) jtResp {
		ct, body := jtMultipart(t, "file", "yeast-test.csv", testCSV)
		return jtDo(ctx, t, "POST", a.url+"/api/jobs/"+id+"/transform"+query, ct, body)
	}

	// An unknown job is 404 on every route.
	for _, c := range []struct{ method, path string }{
		{"GET", "/api/jobs/aaaaaaaaaaaaaaaa"},
		{"GET", "/api/jobs/aaaaaaaaaaaaaaaa/events"},
		{"GET", "/api/jobs/aaaaaaaaaaaaaaaa/projection.csv"},
		{"GET", "/api/jobs/aaaaaaaaaaaaaaaa/metrics.json"},
		{"POST", "/api/jobs/aaaaaaaaaaaaaaaa/cancel"},
		{"DELETE", "/api/jobs/aaaaaaaaaaaaaaaa"},
		{"GET", "/api/jobs/not-an-id/model.json"},
	} {
		jtWantStatus(t, c.method+" "+c.path, jtDo(ctx, t, c.method, a.url+c.path, "", nil), http.StatusNotFound)
	}
	jtWantStatus(t, "transform with an unknown job", transform("aaaaaaaaaaaaaaaa", ""), http.StatusNotFound)

	// The only worker is busy with a slow job, so the job under test waits
	// queued: results of unfinished jobs (running, queued, then canceled)
	// answer 409.
	blocker := jtSubmit(ctx, t, a, jtSlowJob(ds.ID))
	jtPoll(ctx, t, a, blocker, "the blocker running", func(j jtJob) bool { return j.Status == "running" })
	for _, f := range []string{"projection.csv?method=pca", "metrics.json"} {
		jtWantStatus(t, "running job's "+f, jtGet(ctx, t, a.url+"/api/jobs/"+blocker+"/"+f), http.StatusConflict)
	}
	jtWantStatus(t, "DELETE of a running job", jtDo(ctx, t, "DELETE", a.url+"/api/jobs/"+blocker, "", nil), http.StatusConflict)

	id := jtSubmit(ctx, t, a, map[string]any{
		"dataset":  ds.ID,
		"method":   "mddmp",
		"params":   map[string]any{"d": 5},
		"evaluate": map[string]any{"classifier": "mlknn"},
	})
	if j := jtGetJob(ctx, t, a, id); j.Status != "queued" {
		t.Fatalf("job behind a busy worker: got status %s, want queued", j.Status)
	}
	for f := range jtMethodFiles {
		jtWantStatus(t, "queued job's "+f, jtGet(ctx, t, a.url+"/api/jobs/"+id+"/"+f), http.StatusConflict)
	}
	jtWantStatus(t, "queued job's metrics.json", jtGet(ctx, t, a.url+"/api/jobs/"+id+"/metrics.json"), http.StatusConflict)
	jtWantStatus(t, "transform with a queued job", transform(id, ""), http.StatusConflict)

	// Follow the job's events from while it waits, then free the worker.
	type followed struct {
		events []jtJob
		err    error
	}
	subscribed := make(chan struct{})
	var once sync.Once
	done := make(chan followed, 1)
	go func() {
		ev, err := jtFollow(ctx, a.url, id, func(jtJob) { once.Do(func() { close(subscribed) }) })
		done <- followed{ev, err}
	}()
	var f followed
	select {
	case <-subscribed:
	case f = <-done:
		t.Fatalf("the event stream ended at once: %v", f.err)
	case <-ctx.Done():
		t.Fatal("no event within the test's deadline")
	}
	began := time.Now()
	jtWantStatus(t, "cancel the blocker", jtDo(ctx, t, "POST", a.url+"/api/jobs/"+blocker+"/cancel", "", nil), http.StatusAccepted)
	jtPoll(ctx, t, a, blocker, "the blocker canceled", func(j jtJob) bool { return j.Status == "canceled" })
	jtWantStatus(t, "canceled job's metrics.json", jtGet(ctx, t, a.url+"/api/jobs/"+blocker+"/metrics.json"), http.StatusConflict)
	select {
	case f = <-done:
	case <-ctx.Done():
		t.Fatal("the job did not finish within the test's deadline")
	}
	if f.err != nil {
		t.Fatal(f.err)
	}
	jtCheckEvents(t, id, f.events)
	first, last := f.events[0], f.events[len(f.events)-1]
	if first.Status != "queued" {
		t.Errorf("first event: got status %s, want queued", first.Status)
	}
	if last.Status != "succeeded" || last.Progress != 1 {
		t.Fatalf("last event: got status %s progress %v (error %q), want succeeded at 1", last.Status, last.Progress, last.Error)
	}
	j := jtGetJob(ctx, t, a, id)
	if j.Status != "succeeded" || j.Attempts != 1 || j.StartedAt == nil || j.FinishedAt == nil || j.FinishedAt.Before(*j.StartedAt) {
		t.Errorf("finished job: got status %s, attempts %d, started %v, finished %v; want succeeded, 1, started ≤ finished",
			j.Status, j.Attempts, j.StartedAt, j.FinishedAt)
	}
	t.Logf("%d events from queued to succeeded; the job ran %v (%v after the worker was freed)",
		len(f.events), j.FinishedAt.Sub(*j.StartedAt).Round(time.Millisecond), time.Since(began).Round(time.Millisecond))

	// Every result file downloads, with its type and a name saying the
	// data set, the method and d.
	files := map[string][]byte{}
	for file, ctype := range jtMethodFiles {
		r := jtGet(ctx, t, a.url+"/api/jobs/"+id+"/"+file)
		if r.Status != http.StatusOK {
			t.Fatalf("GET %s: got status %d, want 200: %s", file, r.Status, r.Body)
		}
		if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, ctype) {
			t.Errorf("%s: Content-Type %q, want %s", file, ct, ctype)
		}
		name := jtFilename(t, r.Header)
		if !strings.Contains(name, ds.Name) || !strings.Contains(name, "mddmp") || !strings.Contains(name, "d5") || !strings.HasSuffix(name, file) {
			t.Errorf("%s: download name %q, want one with %q, mddmp, d5 and ending in %s", file, name, ds.Name, file)
		}
		files[file] = r.Body
		if again := jtGet(ctx, t, a.url+"/api/jobs/"+id+"/"+file+"?method=mddmp"); again.Status != http.StatusOK || !bytes.Equal(again.Body, r.Body) {
			t.Errorf("%s?method=mddmp: got status %d and other bytes, want the same file", file, again.Status)
		}
	}
	jtWantStatus(t, "a method the job did not run", jtGet(ctx, t, a.url+"/api/jobs/"+id+"/projection.csv?method=pca"), http.StatusNotFound)
	jtWantStatus(t, "a result that does not exist", jtGet(ctx, t, a.url+"/api/jobs/"+id+"/secrets.txt"), http.StatusNotFound)

	// projection.npy: NumPy format, (103, 5) float64.
	npy, err := jtReadNPY(files["projection.npy"])
	if err != nil {
		t.Fatal(err)
	}
	if npy.Rows != 103 || npy.Cols != 5 {
		t.Fatalf("projection.npy: shape (%d, %d), want (103, 5)", npy.Rows, npy.Cols)
	}
	t.Logf("projection.npy: version %d.%d, shape (%d, %d), %d bytes", npy.Major, npy.Minor, npy.Rows, npy.Cols, len(files["projection.npy"]))
	P := make([][]float64, npy.Rows)
	for i := range P {
		P[i] = npy.Data[i*npy.Cols : (i+1)*npy.Cols]
	}
	t.Run("numpy", func(t *testing.T) {
		if !jtHasNumpy(ctx) {
			t.Skip("/usr/bin/python3 with numpy is not available")
		}
		p := filepath.Join(t.TempDir(), "projection.npy")
		if err := os.WriteFile(p, files["projection.npy"], 0o600); err != nil {
			t.Fatal(err)
		}
		// np.load, the values' checksum, and np.save of the loaded array
		// (which the writer claims to match byte for byte).
		const script = `import sys, io, hashlib, numpy as np
a = np.load(sys.argv[1], allow_pickle=False)
buf = io.BytesIO(); np.save(buf, a)
same = buf.getvalue() == open(sys.argv[1], "rb").read()
print(np.__version__, a.dtype.str, a.shape[0], a.shape[1], hashlib.sha256(np.ascontiguousarray(a, dtype="<f8").tobytes()).hexdigest(), same)`
		out, err := exec.CommandContext(ctx, "/usr/bin/python3", "-c", script, p).CombinedOutput()
		if err != nil {
			t.Fatalf("np.load: %v\n%s", err, out)
		}
		fields := strings.Fields(string(out))
		if len(fields) != 6 {
			t.Fatalf("python printed %q", out)
		}
		sum := sha256.Sum256(npy.Raw)
		want := []string{fields[0], "<f8", "103", "5", hex.EncodeToString(sum[:]), "True"}
		if !slices.Equal(fields, want) {
			t.Errorf("numpy %s: got dtype, shape, checksum, np.save-identical = %v, want %v", fields[0], fields[1:], want[1:])
		}
	})

	// projection.csv: name,c1…c5 and the .npy's values exactly.
	recs := jtReadCSV(t, "projection.csv", files["projection.csv"])
	if want := []string{"name", "c1", "c2", "c3", "c4", "c5"}; !slices.Equal(recs[0], want) {
		t.Errorf("projection.csv header: got %v, want %v", recs[0], want)
	}
	if len(recs)-1 != 103 {
		t.Fatalf("projection.csv: %d rows, want 103", len(recs)-1)
	}
	var rowNames []string
	for i, rec := range recs[1:] {
		rowNames = append(rowNames, rec[0])
		if got := jtFloats(t, "projection.csv", rec[1:]); !slices.Equal(got, P[i]) {
			t.Errorf("projection.csv row %d (%s): got %v, want the .npy's %v", i+1, rec[0], got, P[i])
		}
	}
	if rowNames[0] != "Att1" || rowNames[102] != "Att103" {
		t.Errorf("projection.csv names: got %s…%s, want Att1…Att103", rowNames[0], rowNames[102])
	}

	// projection.json: the same matrix.
	var pj struct {
		Rows    []string    `json:"rows"`
		Columns []string    `json:"columns"`
		Matrix  [][]float64 `json:"matrix"`
	}
	if err := json.Unmarshal(files["projection.json"], &pj); err != nil {
		t.Fatalf("projection.json: %v", err)
	}
	if !slices.Equal(pj.Rows, rowNames) || !slices.Equal(pj.Columns, []string{"c1", "c2", "c3", "c4", "c5"}) {
		t.Errorf("projection.json: rows %d, columns %v; want the CSV's 103 names and c1…c5", len(pj.Rows), pj.Columns)
	}
	if !slices.EqualFunc(pj.Matrix, P, slices.Equal) {
		t.Errorf("projection.json: the matrix differs from the .npy's")
	}

	// eigenvalues.json: of the 14 (order), at least the d = 5 leading,
	// descending (mddmp given d computes only the leading pairs through the
	// c×c Gram, and says so by order and total), energy in (0, 1] and the
	// first d's share of the total (the trace of all 14).
	var eig struct {
		Eigenvalues []float64 `json:"eigenvalues"`
		D           int       `json:"d"`
		Energy      float64   `json:"energy"`
		Order       int       `json:"order"`
		Total       float64   `json:"total"`
	}
	if err := json.Unmarshal(files["eigenvalues.json"], &eig); err != nil {
		t.Fatalf("eigenvalues.json: %v", err)
	}
	if n := len(eig.Eigenvalues); n < 5 || n > 14 || eig.Order != 14 || eig.D != 5 || !(eig.Energy > 0 && eig.Energy <= 1) {
		t.Errorf("eigenvalues.json: got %d eigenvalues of order %d, d %d, energy %v; want 5 to 14 of 14, 5, in (0, 1]", n, eig.Order, eig.D, eig.Energy)
	}
	if !slices.IsSortedFunc(eig.Eigenvalues, func(x, y float64) int { return cmp.Compare(y, x) }) {
		t.Errorf("eigenvalues.json: not descending: %v", eig.Eigenvalues)
	}
	var kept, positive float64
	for i, v := range eig.Eigenvalues {
		if v > 0 {
			positive += v
			if i < eig.D {
				kept += v
			}
		}
	}
	total := eig.Total
	if total == 0 { // every eigenvalue computed: the total is their positive sum
		total = positive
	}
	if total < positive*(1-1e-12) {
		t.Errorf("eigenvalues.json: total %v, below the computed eigenvalues' positive sum %v", total, positive)
	}
	if total > 0 && math.Abs(kept/total-eig.Energy) > 1e-9 {
		t.Errorf("eigenvalues.json: energy %v, want the first d's share of the total %v", eig.Energy, kept/total)
	}

	// model.json: where the result came from, and the projection.
	var m jtManifest
	if err := json.Unmarshal(files["model.json"], &m); err != nil {
		t.Fatalf("model.json: %v", err)
	}
	sum := sha256.Sum256(yeast)
	if m.Dataset.SHA256 != hex.EncodeToString(sum[:]) {
		t.Errorf("model.json dataset.sha256: got %q, want %x (the uploaded bytes)", m.Dataset.SHA256, sum)
	}
	if m.Version == "" {
		t.Errorf("model.json software_version is empty")
	}
	if m.Method != "mddmp" || m.D != 5 || m.Job != id || m.Dataset.ID != ds.ID || m.Dataset.Rows != 2417 ||
		len(m.Features) != 103 || len(m.Means) != 103 || !slices.EqualFunc(m.Projection, P, slices.Equal) {
		t.Errorf("model.json: got method %s, d %d, job %s, data set %s with %d rows, %d features, %d means, projection equal to the .npy's: %v",
			m.Method, m.D, m.Job, m.Dataset.ID, m.Dataset.Rows, len(m.Features), len(m.Means), slices.EqualFunc(m.Projection, P, slices.Equal))
	}
	t.Logf("model.json: software_version %s", m.Version)

	// projected.csv: every row once, train rows then test rows, each the
	// row projected with the model's means and projection.
	recs = jtReadCSV(t, "projected.csv", files["projected.csv"])
	if want := []string{"row", "split", "c1", "c2", "c3", "c4", "c5"}; !slices.Equal(recs[0], want) {
		t.Errorf("projected.csv header: got %v, want %v", recs[0], want)
	}
	if len(recs)-1 != 2417 {
		t.Fatalf("projected.csv: %d rows, want 2417", len(recs)-1)
	}
	x, xs := jtProject(jtColumns(t, yeastPath, m.Features), m.Means, P)
	seen := make([]bool, 2418)
	counts := map[string]int{}
	var got, want, scale [][]float64
	for i, rec := range recs[1:] {
		n, err := strconv.Atoi(rec[0])
		if err != nil || n < 1 || n > 2417 || seen[n] {
			t.Fatalf("projected.csv line %d: row %q is not a new row number in 1…2417", i+2, rec[0])
		}
		seen[n] = true
		if rec[1] != "train" && rec[1] != "test" {
			t.Errorf("projected.csv line %d: split %q, want train or test", i+2, rec[1])
		}
		if rec[1] == "train" && counts["test"] > 0 {
			t.Errorf("projected.csv line %d: a train row after test rows", i+2)
		}
		counts[rec[1]]++
		got = append(got, jtFloats(t, "projected.csv", rec[2:]))
		want, scale = append(want, x[n-1]), append(scale, xs[n-1])
	}
	if counts["test"] != 483 || counts["train"] != 1934 {
		t.Errorf("projected.csv: %d train and %d test rows, want 1934 and 483 (a 20 %% holdout)", counts["train"], counts["test"])
	}
	jtCompareProjected(t, "projected.csv", got, want, scale)

	// metrics.json: ori and mddmp at d = 5, per fold and their mean.
	r := jtGet(ctx, t, a.url+"/api/jobs/"+id+"/metrics.json")
	if r.Status != http.StatusOK {
		t.Fatalf("metrics.json: got status %d, want 200: %s", r.Status, r.Body)
	}
	if name := jtFilename(t, r.Header); !strings.Contains(name, ds.Name) || !strings.Contains(name, "metrics") {
		t.Errorf("metrics.json: download name %q, want one with %q and metrics", name, ds.Name)
	}
	var mt jtMetrics
	if err := json.Unmarshal(r.Body, &mt); err != nil {
		t.Fatalf("metrics.json: %v", err)
	}
	means := map[string]int{}
	for _, row := range mt.Rows {
		switch {
		case row.Method == "mddmp" && row.D != 5:
			t.Errorf("metrics.json: mddmp row at d %d, want 5", row.D)
		case row.Method == "ori" && row.D != 103:
			t.Errorf("metrics.json: ori (no reduction) at d %d, want all 103 features", row.D)
		case row.Method != "mddmp" && row.Method != "ori":
			t.Errorf("metrics.json: a row of method %q", row.Method)
		}
		if row.Fold == nil {
			means[row.Method]++
		}
		for _, k := range jtMetricKeys {
			v, ok := row.Metrics[k]
			hi := 1.0
			if k == "coverage" {
				hi = 13 // q − 1
			}
			if !ok || !(v >= 0 && v <= hi) {
				t.Errorf("metrics.json %s d %d fold %v: %s = %v (present %v), want in [0, %v]", row.Method, row.D, row.Fold, k, v, ok, hi)
			}
		}
	}
	if means["ori"] != 1 || means["mddmp"] != 1 {
		t.Errorf("metrics.json: mean rows (fold null) by method %v, want one for ori and one for mddmp", means)
	}

	// transform: yeast-test's 917 rows projected with the model.
	r = transform(id, "")
	if r.Status != http.StatusOK {
		t.Fatalf("transform: got status %d, want 200: %s", r.Status, r.Body)
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
		t.Errorf("transform: Content-Type %q, want text/csv", ct)
	}
	if name := jtFilename(t, r.Header); !strings.Contains(name, ds.Name) || !strings.Contains(name, "mddmp") {
		t.Errorf("transform: download name %q, want one with %q and mddmp", name, ds.Name)
	}
	recs = jtReadCSV(t, "transform", r.Body)
	if want := []string{"c1", "c2", "c3", "c4", "c5"}; !slices.Equal(recs[0], want) {
		t.Errorf("transform header: got %v, want %v", recs[0], want)
	}
	got = nil
	for _, rec := range recs[1:] {
		if len(rec) != 5 {
			t.Fatalf("transform: a row of %d fields, want 5", len(rec))
		}
		got = append(got, jtFloats(t, "transform", rec))
	}
	want, scale = jtProject(jtColumns(t, testPath, m.Features), m.Means, P)
	if len(got) != 917 {
		t.Errorf("transform: %d rows, want 917", len(got))
	}
	jtCompareProjected(t, "transform", got, want, scale)
	if err := a.stop(); err != nil {
		t.Errorf("graceful stop: %v\n%s", err, a.logs)
	}
}

// TestJobCrashRequeues kills the server with SIGKILL while a job runs and
// starts it again on the same data directory: the job is queued again,
// starts a second time and succeeds; the data set is intact, and neither
// staging files nor results of unfinished jobs are left.
func TestJobCrashRequeues(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a job of about 20 s twice")
	}
	yeastPath := sharedFile(t, "yeast/yeast.csv")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dir := t.TempDir()
	a := start(t, dir, "-workers", "1")
	yeast := mustRead(t, yeastPath)
	ds, code := a.upload("yeast.csv", yeast)
	if code != http.StatusCreated {
		t.Fatalf("uploading yeast: got status %d, want 201", code)
	}
	id := jtSubmit(ctx, t, a, jtSlowJob(ds.ID))

	// Past 0.5 the job has staged its results directory, fitted its five
	// methods and spent seconds evaluating them: work a crash loses.
	runCtx, cancelRun := context.WithTimeout(ctx, time.Minute)
	j := jtPoll(runCtx, t, a, id, "running with progress > 0.5", func(j jtJob) bool { return j.Status == "running" && j.Progress > 0.5 })
	cancelRun()
	a.kill()
	killedAt := time.Now()
	before := killedAt.Sub(*j.StartedAt)
	t.Logf("SIGKILL %v after the job started, at progress %.3f (%s)", before.Round(time.Millisecond), j.Progress, j.Phase)
	t.Logf("tmp/ after the kill: %v", dirNames(t, filepath.Join(dir, "tmp")))

	a = start(t, dir, "-workers", "1")
	restarted := time.Now()
	var listed *jtJob
	for _, l := range jtListJobs(ctx, t, a) {
		if l.ID == id {
			listed = &l
		}
	}
	if listed == nil {
		t.Fatalf("after the restart the job %s is not listed", id)
	}
	if listed.Status != "queued" && listed.Status != "running" {
		t.Fatalf("after the restart: got status %s (error %q), want queued or running", listed.Status, listed.Error)
	}
	t.Logf("after the restart: %s, attempts %d, phase %q", listed.Status, listed.Attempts, listed.Phase)
	jtCheckResultDirs(ctx, t, a)

	waitCtx, cancelWait := context.WithTimeout(ctx, 3*time.Minute)
	defer cancelWait()
	jtPoll(waitCtx, t, a, id, "a second attempt", func(j jtJob) bool { return j.Attempts >= 2 })
	events, err := jtFollow(waitCtx, a.url, id, nil)
	if err != nil {
		t.Fatal(err)
	}
	jtCheckEvents(t, id, events)
	j = jtGetJob(ctx, t, a, id)
	if j.Status != "succeeded" || j.Attempts < 2 || j.Error != "" {
		t.Fatalf("after the restart the job ended %s after %d attempts (error %q), want succeeded after ≥ 2", j.Status, j.Attempts, j.Error)
	}
	t.Logf("first attempt killed after %v; after the restart the job succeeded in %v (attempt %d ran %v)",
		before.Round(time.Millisecond), time.Since(restarted).Round(time.Millisecond), j.Attempts, j.FinishedAt.Sub(*j.StartedAt).Round(time.Millisecond))

	// Its results are there and complete.
	r := jtGet(ctx, t, a.url+"/api/jobs/"+id+"/metrics.json")
	var mt jtMetrics
	if r.Status != http.StatusOK || json.Unmarshal(r.Body, &mt) != nil || len(mt.Rows) == 0 {
		t.Errorf("metrics.json after the restart: got status %d, %d rows: %.300s", r.Status, len(mt.Rows), r.Body)
	}
	for _, method := range []string{"pca", "mddmp", "mvmd", "mlsi", "cca"} {
		for file := range jtMethodFiles {
			if r := jtGet(ctx, t, a.url+"/api/jobs/"+id+"/"+file+"?method="+method); r.Status != http.StatusOK || len(r.Body) == 0 {
				t.Errorf("%s of %s after the restart: got status %d, %d bytes", file, method, r.Status, len(r.Body))
			}
		}
	}

	// The data set is intact.
	var found bool
	for _, d := range a.datasets() {
		if d.ID != ds.ID {
			continue
		}
		found = true
		if d.Rows != 2417 || d.Features != 103 || d.SHA256 != ds.SHA256 {
			t.Errorf("data set after the restart: %d rows, %d features, sha256 %s; want 2417, 103, %s", d.Rows, d.Features, d.SHA256, ds.SHA256)
		}
	}
	if !found {
		t.Errorf("data set %s is gone after the restart", ds.ID)
	}
	r = jtGet(ctx, t, a.url+"/api/datasets/"+ds.ID+"/data.csv")
	if lines := bytes.Count(r.Body, []byte("\n")); r.Status != http.StatusOK || lines != 2418 {
		t.Errorf("data.csv after the restart: got status %d, %d lines; want 200, 2418", r.Status, lines)
	}
	if r = jtGet(ctx, t, a.url+"/api/datasets/"+ds.ID+"/source"); r.Status != http.StatusOK || !bytes.Equal(r.Body, yeast) {
		t.Errorf("source after the restart: got status %d and %d bytes, want 200 and the %d uploaded bytes", r.Status, len(r.Body), len(yeast))
	}
	jtTmpEmpty(t, a, "after the job succeeded")
	jtCheckResultDirs(ctx, t, a)
	if err := a.stop(); err != nil {
		t.Errorf("graceful stop: %v\n%s", err, a.logs)
	}
}

// TestJobsDeterministic runs the same request twice at once on two
// workers: the metrics and results are byte-identical. Another seed gives
// other metrics.
func TestJobsDeterministic(t *testing.T) {
	yeastPath := sharedFile(t, "yeast/yeast.csv")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	a := start(t, t.TempDir(), "-workers", "2")
	ds, code := a.upload("yeast.csv", mustRead(t, yeastPath))
	if code != http.StatusCreated {
		t.Fatalf("uploading yeast: got status %d, want 201", code)
	}
	body := func(seed int) []byte {
		b, _ := json.Marshal(map[string]any{
			"dataset":  ds.ID,
			"methods":  []string{"mddmp", "pca"},
			"params":   map[string]any{"d": 5},
			"split":    map[string]any{"kind": "holdout", "seed": seed},
			"evaluate": map[string]any{"classifier": "mlknn"},
		})
		return b
	}
	var (
		wg    sync.WaitGroup
		resps [2]jtResp
		errs  [2]error
	)
	for i := range resps {
		wg.Go(func() {
			resps[i], errs[i] = jtSend(ctx, "POST", a.url+"/api/jobs", "application/json", bytes.NewReader(body(7)))
		})
	}
	wg.Wait()
	var ids []string
	for i := range resps {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		ids = append(ids, jtAccepted(t, resps[i]))
	}
	wait := func(id string) jtJob {
		t.Helper()
		if _, err := jtFollow(ctx, a.url, id, nil); err != nil {
			t.Fatal(err)
		}
		j := jtGetJob(ctx, t, a, id)
		if j.Status != "succeeded" {
			t.Fatalf("job %s: got %s (error %q), want succeeded", id, j.Status, j.Error)
		}
		return j
	}
	j0, j1 := wait(ids[0]), wait(ids[1])
	overlap := j0.StartedAt.Before(*j1.FinishedAt) && j1.StartedAt.Before(*j0.FinishedAt)
	t.Logf("two identical jobs ran %v and %v; at the same time: %v", j0.FinishedAt.Sub(*j0.StartedAt).Round(time.Millisecond),
		j1.FinishedAt.Sub(*j1.StartedAt).Round(time.Millisecond), overlap)

	result := func(id, file string) []byte {
		t.Helper()
		r := jtGet(ctx, t, a.url+"/api/jobs/"+id+"/"+file)
		if r.Status != http.StatusOK {
			t.Fatalf("%s of job %s: got status %d, want 200: %s", file, id, r.Status, r.Body)
		}
		return r.Body
	}
	for _, file := range []string{"metrics.json", "projection.npy?method=mddmp", "projected.csv?method=mddmp", "projection.npy?method=pca", "projected.csv?method=pca"} {
		b0, b1 := withoutTimes(result(ids[0], file)), withoutTimes(result(ids[1], file))
		if !bytes.Equal(b0, b1) {
			t.Errorf("%s of two identical jobs differs: %s", file, jtFirstDiff(b0, b1))
		}
	}

	id8 := jtSubmit(ctx, t, a, body(8))
	wait(id8)
	m7, m8 := result(ids[0], "metrics.json"), result(id8, "metrics.json")
	if bytes.Equal(m7, m8) {
		t.Errorf("metrics.json with seed 8 is the same as with seed 7")
	}
	if !bytes.Contains(m8, []byte(`"seed": 8`)) {
		t.Errorf("metrics.json with seed 8 does not record it: %.300s", m8)
	}
	if bytes.Equal(result(ids[0], "projected.csv?method=pca"), result(id8, "projected.csv?method=pca")) {
		t.Errorf("projected.csv with seed 8 is the same as with seed 7: the split did not change")
	}
}

// jtFirstDiff describes where two byte strings first differ, by line.
func jtFirstDiff(a, b []byte) string {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return fmt.Sprintf("line %d: %q vs %q", i+1, la[i], lb[i])
		}
	}
	return fmt.Sprintf("%d lines vs %d", len(la), len(lb))
}

// TestJobValidationOverHTTP posts bad job requests: each is refused whole
// with its status and the field at fault, and nothing is queued. Then a
// data set that jobs reference cannot be deleted until they are.
func TestJobValidationOverHTTP(t *testing.T) {
	yeastPath := sharedFile(t, "yeast/yeast.csv")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	a := start(t, t.TempDir(), "-workers", "1")
	ds, code := a.upload("yeast.csv", mustRead(t, yeastPath))
	if code != http.StatusCreated {
		t.Fatalf("uploading yeast: got status %d, want 201", code)
	}
	cases := []struct {
		name   string
		body   string // DS stands for the data set's id
		status int
		field  string
		says   string // a part of the message, if any
	}{
		{"unknown method", `{"dataset":"DS","method":"nope","params":{"d":5}}`, 400, "method", "nope"},
		{"d and thr together", `{"dataset":"DS","method":"mddmp","params":{"d":5,"thr":0.9}}`, 400, "params.d", ""},
		{"a parameter the method does not take", `{"dataset":"DS","method":"pca","params":{"d":5,"beta":0.5}}`, 400, "params.beta", ""},
		{"unknown data set", `{"dataset":"aaaaaaaaaaaaaaaa","method":"mddmp","params":{"d":5}}`, 422, "dataset", ""},
		{"d above the bound", `{"dataset":"DS","method":"mddmp","params":{"d":50}}`, 422, "params.d", "14"},
		{"unknown JSON field", `{"dataset":"DS","method":"mddmp","params":{"d":5},"colour":"red"}`, 400, "colour", ""},
		{"sdem on multi-label data", `{"dataset":"DS","method":"sdem","params":{"d":5}}`, 422, "method", ""},
		{"an evaluation with split none", `{"dataset":"DS","method":"mddmp","params":{"d":5},"split":{"kind":"none"},"evaluate":{"classifier":"mlknn"}}`, 400, "split", ""},
		{"malformed JSON", `{"dataset":"DS","method":`, 400, "", ""},
		{"no data set", `{"method":"mddmp","params":{"d":5}}`, 400, "dataset", ""},
		{"method and methods", `{"dataset":"DS","method":"pca","methods":["mddmp"]}`, 400, "methods", ""},
		{"d of the wrong type", `{"dataset":"DS","method":"mddmp","params":{"d":"five"}}`, 400, "params.d", ""},
		{"two JSON values", `{"dataset":"DS","method":"pca"} {}`, 400, "", ""},
		{"unknown split kind", `{"dataset":"DS","method":"pca","split":{"kind":"random"}}`, 400, "split.kind", ""},
		{"unknown classifier", `{"dataset":"DS","method":"pca","evaluate":{"classifier":"logreg"}}`, 400, "evaluate.classifier", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := jtPostJob(ctx, t, a, []byte(strings.ReplaceAll(c.body, "DS", ds.ID)))
			if r.Status != c.status {
				t.Fatalf("got status %d, want %d: %s", r.Status, c.status, r.Body)
			}
			e := jtAPIErr(t, c.name, r)
			if e.Field != c.field {
				t.Errorf("got field %q, want %q (error %q)", e.Field, c.field, e.Error)
			}
			if !strings.Contains(e.Error, c.says) {
				t.Errorf("got error %q, want it to say %q", e.Error, c.says)
			}
		})
	}
	if jobs := jtListJobs(ctx, t, a); len(jobs) != 0 {
		t.Errorf("after refused requests: %d jobs listed, want none", len(jobs))
	}

	// Jobs referencing a data set keep it until they are deleted.
	first := jtSubmit(ctx, t, a, map[string]any{"dataset": ds.ID, "method": "mddmp", "params": map[string]any{"d": 5}})
	second := jtSubmit(ctx, t, a, map[string]any{"dataset": ds.ID, "method": "pca", "params": map[string]any{"d": 3}, "evaluate": map[string]any{"classifier": "mlknn"}})
	deleteDS := func() jtResp { return jtDo(ctx, t, "DELETE", a.url+"/api/datasets/"+ds.ID, "", nil) }
	r := deleteDS()
	jtWantStatus(t, "DELETE a data set two jobs use", r, http.StatusConflict)
	if e := jtAPIErr(t, "DELETE a data set two jobs use", r); !strings.Contains(e.Error, "jobs") {
		t.Errorf("DELETE a data set two jobs use: got error %q, want it to mention the jobs", e.Error)
	}
	for _, id := range []string{first, second} {
		if _, err := jtFollow(ctx, a.url, id, nil); err != nil {
			t.Fatal(err)
		}
	}
	jtWantStatus(t, "DELETE a data set two finished jobs use", deleteDS(), http.StatusConflict)
	if r := jtGet(ctx, t, a.url+"/api/datasets/"+ds.ID); r.Status != http.StatusOK {
		t.Fatalf("the data set after refused deletes: got status %d, want 200", r.Status)
	}
	jtWantStatus(t, "DELETE the first job", jtDo(ctx, t, "DELETE", a.url+"/api/jobs/"+first, "", nil), http.StatusNoContent)
	jtWantStatus(t, "GET the deleted job", jtGet(ctx, t, a.url+"/api/jobs/"+first), http.StatusNotFound)
	jtWantStatus(t, "DELETE the deleted job", jtDo(ctx, t, "DELETE", a.url+"/api/jobs/"+first, "", nil), http.StatusNotFound)
	if _, err := os.Stat(filepath.Join(a.dir, "jobs", first)); !os.IsNotExist(err) {
		t.Errorf("the deleted job's results: got %v, want them gone", err)
	}
	r = deleteDS()
	jtWantStatus(t, "DELETE a data set one job uses", r, http.StatusConflict)
	if e := jtAPIErr(t, "DELETE a data set one job uses", r); !strings.Contains(e.Error, second) {
		t.Errorf("DELETE a data set one job uses: got error %q, want it to name job %s", e.Error, second)
	}
	jtWantStatus(t, "DELETE the second job", jtDo(ctx, t, "DELETE", a.url+"/api/jobs/"+second, "", nil), http.StatusNoContent)
	jtWantStatus(t, "DELETE the data set no job uses", deleteDS(), http.StatusNoContent)
	jtWantStatus(t, "GET the deleted data set", jtGet(ctx, t, a.url+"/api/datasets/"+ds.ID), http.StatusNotFound)
	if jobs := jtListJobs(ctx, t, a); len(jobs) != 0 {
		t.Errorf("after deleting every job: %d jobs listed, want none", len(jobs))
	}
}

// timeLine is a line of metrics.json that holds a wall time.
var timeLine = regexp.MustCompile(`(?m)^\s*"(fit|eval)_seconds": [0-9.e+-]+,?\n`)

// withoutTimes is a result file without the wall times metrics.json
// records, which differ from run to run; other files are unchanged.
func withoutTimes(b []byte) []byte { return timeLine.ReplaceAll(b, nil) }
