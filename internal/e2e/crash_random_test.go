package e2e

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// crSeed is the default seed of TestCrashRandomUploadsAndJobs; set
// MLDR_CRASH_SEED to run it with another.
const crSeed = 20260122

// crCycles is the number of start–load–SIGKILL–restart cycles.
const crCycles = 8

// crDataset is a data set as the crash test reads it from the API.
type crDataset struct {
	ID      string `json:"id"`
	Rows    int    `json:"rows"`
	SHA256  string `json:"sha256"`
	Problem string `json:"problem"`
}

// crLedger is what the clients were told: the uploads and jobs the server
// acknowledged, and the counts of the run. Its methods are safe for
// concurrent use.
type crLedger struct {
	mu sync.Mutex
	// datasets maps an acknowledged (or found committed) data set to the
	// SHA-256 of the bytes sent.
	datasets map[string]string
	// jobs maps an acknowledged (or found) job to whether a cancel of it
	// was acknowledged.
	jobs map[string]bool
	// small lists the small uploads' ids, for jobs.
	small []string
	// finished lists the jobs seen finished (and checked); loaded the data
	// sets whose data were read back.
	finished map[string]bool
	loaded   map[string]bool

	uploads, uploadsAcked, submits, submitsAcked, cancels, cancelsAcked int
	unackedCommitted, succeeded, canceled, rerun, losses                int
}

func (l *crLedger) ackUpload(id, sum string, small bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.uploadsAcked++
	l.datasets[id] = sum
	if small {
		l.small = append(l.small, id)
	}
}

func (l *crLedger) count(n *int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	*n++
}

// crSmallCSV is a small multi-label CSV: three features, two labels.
func crSmallCSV(rng *rand.Rand) []byte {
	var b bytes.Buffer
	b.WriteString("a,b,c,label:x,label:y\n")
	rows := 40 + rng.IntN(200)
	for i := range rows {
		fmt.Fprintf(&b, "%.6f,%.6f,%d,%d,%d\n", rng.NormFloat64(), rng.Float64()*10, rng.IntN(7), i%2, (i/2)%2)
	}
	return b.Bytes()
}

// crUpload sends an upload; it does not touch t. A transport error means
// the server is gone; an answer other than 201 is an error with its
// status.
func crUpload(ctx context.Context, url, name string, body []byte) (d crDataset, status int, err error) {
	resp, err := http.DefaultClient.Do(uploadRequest(ctx, url, name, bytes.NewReader(body)))
	if err != nil {
		return d, 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return d, 0, err
	}
	if resp.StatusCode != http.StatusCreated {
		return d, resp.StatusCode, fmt.Errorf("upload %s: got status %d: %.200s", name, resp.StatusCode, b)
	}
	if err := json.Unmarshal(b, &d); err != nil {
		return d, resp.StatusCode, err
	}
	return d, resp.StatusCode, nil
}

// TestCrashRandomUploadsAndJobs runs the server under a load of concurrent
// uploads (small CSVs and yeast) and small jobs (some canceled), kills it
// with SIGKILL at a seeded random moment, restarts it on the same data
// directory, and checks that nothing acknowledged was lost and nothing half
// done remains: every acknowledged data set is there with its SHA-256 and
// loads, every listed one loads, no directory under datasets/ is unlisted,
// tmp/ holds no upload, no job is left running from before the kill, every
// job ends succeeded (or canceled, if a cancel was acknowledged), and the
// results of every succeeded job match their checksums.
func TestCrashRandomUploadsAndJobs(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills the server many times")
	}
	yeast := mustRead(t, sharedFile(t, "yeast/yeast.csv"))
	yeastSum := crSum(yeast)
	seed := uint64(crSeed)
	if s := os.Getenv("MLDR_CRASH_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("MLDR_CRASH_SEED=%q: %v", s, err)
		}
		seed = v
	}
	t.Logf("seed %d (set MLDR_CRASH_SEED to change it)", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	dir := t.TempDir()
	led := &crLedger{datasets: map[string]string{}, jobs: map[string]bool{}, finished: map[string]bool{}, loaded: map[string]bool{}}

	a := start(t, dir, "-workers", "2")
	r := jtDo(context.Background(), t, "POST", a.url+"/api/datasets/demo?demo=multilabel", "", nil)
	if r.Status != http.StatusCreated {
		t.Fatalf("demo: got status %d: %s", r.Status, r.Body)
	}
	var demoSet crDataset
	json.Unmarshal(r.Body, &demoSet)
	led.datasets[demoSet.ID] = demoSet.SHA256

	began := time.Now()
	for cycle := range crCycles {
		delay := time.Duration(150+rng.IntN(1100)) * time.Millisecond
		clientSeed := rng.Uint64()
		ctx, stopLoad := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		// Two clients upload small CSVs one after another.
		for c := range 2 {
			wg.Go(func() {
				crng := rand.New(rand.NewPCG(clientSeed, uint64(c)))
				for ctx.Err() == nil {
					body := crSmallCSV(crng)
					led.count(&led.uploads)
					d, status, err := crUpload(ctx, a.url, fmt.Sprintf("small-%d.csv", c), body)
					if status != 0 && err != nil {
						t.Error(err)
					}
					if err != nil {
						return // the server is gone
					}
					if d.SHA256 != crSum(body) {
						t.Errorf("upload acknowledged with SHA-256 %s, want %s", d.SHA256, crSum(body))
					}
					led.ackUpload(d.ID, crSum(body), true)
					select {
					case <-ctx.Done():
					case <-time.After(time.Duration(20+crng.IntN(60)) * time.Millisecond):
					}
				}
			})
		}
		// One uploads yeast (2.4 MB), again and again.
		wg.Go(func() {
			for ctx.Err() == nil {
				led.count(&led.uploads)
				d, status, err := crUpload(ctx, a.url, "yeast.csv", yeast)
				if status != 0 && err != nil {
					t.Error(err)
				}
				if err != nil {
					return
				}
				led.ackUpload(d.ID, yeastSum, false)
			}
		})
		// One submits small jobs, on the demo set or a small upload, and
		// cancels one in four.
		wg.Go(func() {
			jrng := rand.New(rand.NewPCG(clientSeed, 99))
			for ctx.Err() == nil {
				var req map[string]any
				led.mu.Lock()
				small := slices.Clone(led.small)
				led.mu.Unlock()
				if len(small) > 0 && jrng.IntN(3) == 0 {
					req = map[string]any{"dataset": small[jrng.IntN(len(small))], "method": "pca", "params": map[string]any{"d": 2}}
				} else {
					req = map[string]any{"dataset": demoSet.ID, "methods": []string{"pca", "mddmp"}, "params": map[string]any{"d": 3},
						"evaluate": map[string]any{"classifier": "ridge", "dims": []int{1, 2, 3}}}
				}
				body, _ := json.Marshal(req)
				led.count(&led.submits)
				resp, err := jtSend(ctx, "POST", a.url+"/api/jobs", "application/json", bytes.NewReader(body))
				if err != nil {
					return
				}
				if resp.Status != http.StatusAccepted {
					t.Errorf("submit: got status %d: %s", resp.Status, resp.Body)
					return
				}
				var j jtJob
				json.Unmarshal(resp.Body, &j)
				led.mu.Lock()
				led.submitsAcked++
				led.jobs[j.ID] = false
				led.mu.Unlock()
				if jrng.IntN(4) == 0 {
					led.count(&led.cancels)
					resp, err := jtSend(ctx, "POST", a.url+"/api/jobs/"+j.ID+"/cancel", "", nil)
					if err != nil {
						return
					}
					if resp.Status == http.StatusAccepted {
						led.mu.Lock()
						led.cancelsAcked++
						led.jobs[j.ID] = true
						led.mu.Unlock()
					}
				}
				select {
				case <-ctx.Done():
				case <-time.After(time.Duration(50+jrng.IntN(150)) * time.Millisecond):
				}
			}
		})
		time.Sleep(delay)
		a.kill()
		stopLoad()
		wg.Wait()
		led.mu.Lock()
		t.Logf("cycle %d: SIGKILL %v after the start of the load; so far %d uploads (%d acknowledged), %d jobs (%d acknowledged)",
			cycle+1, delay, led.uploads, led.uploadsAcked, led.submits, led.submitsAcked)
		led.mu.Unlock()

		restartedAt := time.Now()
		a = start(t, dir, "-workers", "2")
		crCheckAfterRestart(t, a, led, restartedAt, cycle+1, false)
	}
	// Once more, reading back every data set.
	crCheckAfterRestart(t, a, led, began, crCycles, true)
	led.mu.Lock()
	defer led.mu.Unlock()
	t.Logf("summary: %d cycles in %v, %d SIGKILLs; %d uploads sent, %d acknowledged, %d more committed but unacknowledged, "+
		"%d data sets in all; %d jobs submitted, %d acknowledged, %d cancels acknowledged of %d sent; "+
		"%d jobs succeeded (results verified; %d of them interrupted by a kill and run again), %d canceled; %d losses",
		crCycles, time.Since(began).Round(time.Millisecond), crCycles, led.uploads, led.uploadsAcked, led.unackedCommitted,
		len(led.datasets), led.submits, led.submitsAcked, led.cancelsAcked, led.cancels, led.succeeded, led.rerun, led.canceled, led.losses)
	if err := a.stop(); err != nil {
		t.Errorf("graceful stop: %v\n%s", err, a.logs)
	}
}

// crCheckAfterRestart checks the data directory and the API right after a
// restart, then waits for every job to finish and checks them. The data of
// a data set are read back the first time it is seen, and all again if
// all is set.
func crCheckAfterRestart(t *testing.T, a *app, led *crLedger, restartedAt time.Time, cycle int, all bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	led.mu.Lock()
	defer led.mu.Unlock()
	loss := func(format string, args ...any) {
		t.Helper()
		led.losses++
		t.Errorf("cycle %d: "+format, append([]any{cycle}, args...)...)
	}

	// Uploads: no staging directory survives the restart.
	for _, n := range dirNames(t, filepath.Join(a.dir, "tmp")) {
		if strings.HasPrefix(n, "upload-") {
			loss("tmp/%s survived the restart", n)
		}
	}
	r := jtGet(ctx, t, a.url+"/api/datasets")
	var list []crDataset
	if r.Status != http.StatusOK || json.Unmarshal(r.Body, &list) != nil {
		t.Fatalf("cycle %d: GET /api/datasets: %d %s", cycle, r.Status, r.Body)
	}
	listed := map[string]crDataset{}
	for _, d := range list {
		listed[d.ID] = d
		if _, ok := led.datasets[d.ID]; !ok {
			// Committed, but killed before the answer: it must stay.
			led.datasets[d.ID] = d.SHA256
			led.unackedCommitted++
		}
		if d.Problem != "" {
			loss("data set %s is listed with a problem: %s", d.ID, d.Problem)
		}
		if r := jtGet(ctx, t, a.url+"/api/datasets/"+d.ID); r.Status != http.StatusOK {
			loss("GET data set %s: got %d", d.ID, r.Status)
		}
		if led.loaded[d.ID] && !all {
			continue
		}
		if r := jtGet(ctx, t, a.url+"/api/datasets/"+d.ID+"/data.csv"); r.Status != http.StatusOK || len(r.Body) == 0 {
			loss("data.csv of %s: got %d, %d bytes", d.ID, r.Status, len(r.Body))
		}
		led.loaded[d.ID] = true
	}
	for id, sum := range led.datasets {
		d, ok := listed[id]
		switch {
		case !ok:
			loss("acknowledged data set %s is gone", id)
		case d.SHA256 != sum:
			loss("data set %s has SHA-256 %s, want %s", id, d.SHA256, sum)
		}
	}
	onDisk := dirNames(t, filepath.Join(a.dir, "datasets"))
	for _, n := range onDisk {
		if _, ok := listed[n]; !ok {
			loss("datasets/%s is on disk but not listed", n)
		}
	}

	// Jobs: none is left running from before the kill; every acknowledged
	// one is there.
	jobs := jtListJobs(ctx, t, a)
	seen := map[string]bool{}
	for _, j := range jobs {
		seen[j.ID] = true
		if _, ok := led.jobs[j.ID]; !ok {
			led.jobs[j.ID] = false // stored, but killed before the answer
		}
		if j.Status == "running" && (j.StartedAt == nil || j.StartedAt.Before(restartedAt)) {
			loss("job %s is running since %v, before the restart at %v", j.ID, j.StartedAt, restartedAt)
		}
	}
	for id := range led.jobs {
		if !seen[id] {
			loss("acknowledged job %s is gone", id)
		}
	}
	// Every job finishes: succeeded, or canceled if a cancel was
	// acknowledged.
	for id, canceled := range led.jobs {
		if led.finished[id] && !all {
			continue
		}
		j := jtPoll(ctx, t, a, id, "the end", func(j jtJob) bool { return jtTerminal(j.Status) || j.Status == "failed" })
		switch {
		case j.Status == "canceled" && canceled:
			if !led.finished[id] {
				led.canceled++
			}
		case j.Status == "succeeded":
			crVerifyResults(t, a, id, loss)
			if !led.finished[id] {
				led.succeeded++
				if j.Attempts > 1 {
					led.rerun++
				}
			}
		default:
			loss("job %s ended %s (error %q), cancel acknowledged: %v", id, j.Status, j.Error, canceled)
		}
		led.finished[id] = true
	}
	jtTmpEmpty(t, a, fmt.Sprintf("cycle %d, every job finished", cycle))
	jtCheckResultDirs(ctx, t, a)
}

// crVerifyResults checks a succeeded job's result files against its
// checksums.json, and that the API serves one of them.
func crVerifyResults(t *testing.T, a *app, id string, loss func(string, ...any)) {
	t.Helper()
	dir := filepath.Join(a.dir, "jobs", id)
	var sums struct {
		Algorithm string `json:"algorithm"`
		Files     map[string]struct {
			Size   int64  `json:"size"`
			SHA256 string `json:"sha256"`
		} `json:"files"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "checksums.json"))
	if err != nil || json.Unmarshal(b, &sums) != nil || sums.Algorithm != "sha256" || len(sums.Files) == 0 {
		loss("job %s: checksums.json unreadable (%v): %.200s", id, err, b)
		return
	}
	var found []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel = filepath.ToSlash(rel); rel != "checksums.json" {
			found = append(found, rel)
		}
		return nil
	})
	if len(found) != len(sums.Files) {
		loss("job %s: %d result files, checksums.json lists %d", id, len(found), len(sums.Files))
	}
	for _, rel := range found {
		want, ok := sums.Files[rel]
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if !ok || err != nil || int64(len(data)) != want.Size || crSum(data) != want.SHA256 {
			loss("job %s: %s does not match its checksum (listed %v, %v)", id, rel, ok, err)
		}
	}
	r := jtGet(context.Background(), t, a.url+"/api/jobs/"+id+"/projected.csv?method=pca")
	if r.Status != http.StatusOK || len(r.Body) == 0 {
		loss("job %s: projected.csv of pca: got %d", id, r.Status)
	}
}

func crSum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}
