//go:build load

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"
)

// The load test: the real binary on loopback with its default workers and
// limits, 50 concurrent uploads of yeast, then 20 concurrent jobs while
// readers load pages and API reads. It is left out of the normal run by
// its build tag:
//
//	MLDR_LOAD_REPORT=/tmp/load.md go test -tags load -run TestLoad -v -count=1 ./internal/e2e/
//
// docs/RELIABILITY.md ("Load") says what it checks and why its bounds are what they are.

// The load and its bounds.
const (
	ldUploads = 50 // uploads released at once
	ldJobs    = 20 // job submissions released at once
	ldReaders = 4  // goroutines reading pages and the API while the jobs run
	// ldReadPause is each reader's pause between two reads: a few people
	// clicking through the pages, not a flood.
	ldReadPause = 50 * time.Millisecond
	ldRestReads = 10 * time.Second // the readers' run after the jobs, for comparison

	ldDeadline      = 8 * time.Minute // the whole test, inside go test's default 10 min
	ldUploadWindow  = 2 * time.Minute // all the uploads, retries included
	ldJobWindow     = 5 * time.Minute // from the submissions to the last job finished
	ldUploadTimeout = time.Minute     // one upload attempt
	ldReadTimeout   = 30 * time.Second
	ldMaxAttempts   = 20               // tries of one request answered 429
	ldMaxRetryWait  = 10 * time.Second // a longer Retry-After is cut to this

	// ldMaxHWM bounds the server's peak resident memory (VmHWM). The
	// first runs peaked at 127–153 MiB (docs/RELIABILITY.md); the bound is about
	// four times that. It leaves room for the garbage collector's timing
	// (GOGC=100 lets the heap grow to twice what is live) and another
	// machine, and still fails when something grows with the number of
	// requests: a results page (tens of MB allocated) kept per read, or
	// the 50 uploads held in memory, text and matrix, beside the rest.
	ldMaxHWM = 512 << 20

	ldSampleEvery = 100 * time.Millisecond // memory samples
)

// ldJobDescription says in the report what ldJobRequest asks for.
const ldJobDescription = "pca, mddmp and cplst, 5-fold cross-validation (seed i + 1 for job i), ML-kNN at d = 2, 4, 6, 8, 10, 12"

// ldJobRequest is job i of the load: three methods of different families,
// 5-fold cross-validation with ML-kNN over a grid of d. Each job has its
// own seed, so no job reuses another's decomposition.
func ldJobRequest(dataset string, i int) map[string]any {
	return map[string]any{
		"dataset":  dataset,
		"methods":  []string{"pca", "mddmp", "cplst"},
		"split":    map[string]any{"kind": "kfold", "folds": 5, "seed": i + 1},
		"evaluate": map[string]any{"classifier": "mlknn", "dims": []int{2, 4, 6, 8, 10, 12}},
	}
}

// TestLoad runs the load and checks that no request fails except by a
// documented limit (429, 413), that every accepted job succeeds in time,
// that the server's memory stays under ldMaxHWM, and that the server then
// stops cleanly with nothing left in tmp/. It logs a report and writes it
// as markdown to $MLDR_LOAD_REPORT when that is set.
func TestLoad(t *testing.T) {
	yeast, ctx, cancel := ldStart(t)
	defer cancel()

	rep := &ldReport{Started: time.Now().UTC(), Machine: ldReadMachine(ctx), MaxHWM: ldMaxHWM}
	rep.Uploads.File, rep.Uploads.Bytes = "yeast/yeast.csv", len(yeast)
	a := start(t, t.TempDir())
	mem := ldWatchServer(a.cmd.Process.Pid, ldSampleEvery)
	client := ldClient()
	defer client.CloseIdleConnections()
	defer ldFinish(t, rep, mem, "the server")

	mem.phase("uploads")
	datasets := ldUploadAll(ctx, t, client, []string{a.url}, yeast, &rep.Uploads)
	if len(datasets) == 0 {
		t.Fatal("no upload was accepted; no job can run")
	}
	mem.phase("jobs, with readers")
	board := ldRunJobs(ctx, t, client, []string{a.url}, datasets, rep)
	// The same reads with no job running, for comparison.
	mem.phase("reads at rest")
	readers := ldStartReaders(ctx, client, []string{a.url}, board)
	ldSleep(ctx, ldRestReads)
	rep.RestReads = readers.stop(t, "at rest")
	rep.Memory = mem.stop()

	begin := time.Now()
	if err := a.stop(); err != nil {
		t.Errorf("stopping the server after the load: %v", err)
	}
	rep.StopTime = time.Since(begin)
	jtTmpEmpty(t, a, "after the load")
}

// ldStart begins a load test: it reads yeast.csv, skips without /proc,
// and returns the test's context, ending at ldDeadline or 30 s before go
// test's own deadline, whichever is first.
func ldStart(t *testing.T) ([]byte, context.Context, context.CancelFunc) {
	t.Helper()
	yeast := mustRead(t, sharedFile(t, "yeast/yeast.csv"))
	if _, err := ldProcStatus(0); err != nil {
		t.Skipf("needs /proc to read the server's memory: %v", err)
	}
	deadline := time.Now().Add(ldDeadline)
	if d, ok := t.Deadline(); ok && d.Add(-30*time.Second).Before(deadline) {
		deadline = d.Add(-30 * time.Second)
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	return yeast, ctx, cancel
}

// ldFinish ends a load test, also when it fails part way: it stops the
// memory watch of process (what the report calls it), checks its peak
// against ldMaxHWM and writes the report.
func ldFinish(t *testing.T, rep *ldReport, mem *ldWatch, process string) {
	t.Helper()
	rep.Memory = mem.stop()
	rep.Machine.LoadEnd = ldLoadavg()
	rep.Total = time.Since(rep.Started)
	if rep.Memory.HWM > ldMaxHWM {
		t.Errorf("%s's peak resident memory (VmHWM) is %s, above the bound of %s", process, ldMiB(rep.Memory.HWM), ldMiB(ldMaxHWM))
	}
	rep.Failed = t.Failed()
	ldWriteReport(t, rep)
}

// ldClient is the load's HTTP client: enough idle connections kept for
// every uploader, so retries reuse them.
func ldClient() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns = 2 * ldUploads
	tr.MaxIdleConnsPerHost = 2 * ldUploads
	return &http.Client{Transport: tr}
}

// ldSend sends one request and reads the whole answer; it does not touch
// t, so goroutines may call it. size is the body's length (-1: unknown).
func ldSend(ctx context.Context, c *http.Client, method, url, contentType string, body io.Reader, size int64) (jtResp, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		return jtResp{}, err
	}
	if size >= 0 {
		req.ContentLength = size
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := c.Do(req)
	if err != nil {
		return jtResp{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return jtResp{}, fmt.Errorf("reading the answer: %w", err)
	}
	return jtResp{Status: resp.StatusCode, Header: resp.Header, Body: b}, nil
}

// ldRetryWait is how long to wait after a 429: its Retry-After (seconds
// or an HTTP date) when it has one, else an exponential backoff from
// 250 ms; both at most ldMaxRetryWait, plus up to 250 ms of jitter so the
// refused clients do not all come back at once.
func ldRetryWait(h http.Header, attempt int, rng *rand.Rand) time.Duration {
	wait := min(250*time.Millisecond<<min(attempt-1, 6), 4*time.Second)
	if v := h.Get("Retry-After"); v != "" {
		if s, err := strconv.Atoi(v); err == nil && s >= 0 {
			wait = time.Duration(s) * time.Second
		} else if at, err := http.ParseTime(v); err == nil {
			wait = max(time.Until(at), 0)
		}
	}
	return min(wait, ldMaxRetryWait) + time.Duration(rng.Int64N(int64(250*time.Millisecond)))
}

// ldSleep waits d, or less when ctx ends first (then false).
func ldSleep(ctx context.Context, d time.Duration) bool {
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-tm.C:
		return true
	}
}

// ldWait waits for wg, failing the test when it takes longer than limit
// (every goroutine honours a context, so that is a bug in the test).
func ldWait(t *testing.T, wg *sync.WaitGroup, what string, limit time.Duration) {
	t.Helper()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(limit):
		t.Fatalf("%s did not end within %v", what, limit)
	}
}

// ldUpload is how one upload went.
type ldUpload struct {
	id       string
	tries    int
	refused  int           // 429 answers
	noRetry  int           // 429 answers without Retry-After
	tooLarge bool          // answered 413
	failure  string        // anything else; empty when accepted or 413
	took     time.Duration // first try to final answer, waits included
	tries201 []time.Duration
	tries429 []time.Duration
}

// ldUploadAll releases ldUploads uploads of file at once, upload i to
// server i of urls in turn, and returns the ids of the data sets
// accepted, which every server must list.
func ldUploadAll(ctx context.Context, t *testing.T, c *http.Client, urls []string, file []byte, out *ldUploadStats) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, ldUploadWindow)
	defer cancel()
	results := make([]ldUpload, ldUploads)
	gate := make(chan struct{})
	var wg sync.WaitGroup
	for i := range ldUploads {
		wg.Go(func() {
			<-gate
			rng := rand.New(rand.NewPCG(1, uint64(i)))
			results[i] = ldUploadOne(ctx, c, urls[i%len(urls)], fmt.Sprintf("load-%02d", i+1), file, rng)
		})
	}
	begin := time.Now()
	close(gate)
	ldWait(t, &wg, "the uploads", ldUploadWindow+ldUploadTimeout)
	out.Wall = time.Since(begin)

	var ids []string
	out.N = ldUploads
	for i, u := range results {
		out.Refused += u.refused
		out.Took = append(out.Took, u.took)
		out.Tries201 = append(out.Tries201, u.tries201...)
		out.Tries429 = append(out.Tries429, u.tries429...)
		switch {
		case u.failure != "":
			out.Failures++
			t.Errorf("upload %d: %s", i+1, u.failure)
		case u.tooLarge:
			out.TooLarge++
		default:
			out.Accepted++
			ids = append(ids, u.id)
		}
		if u.noRetry > 0 {
			t.Errorf("upload %d: %d answers 429 without a Retry-After header", i+1, u.noRetry)
		}
	}
	// Every acknowledged data set is listed, once, by every server.
	for _, url := range urls {
		r, err := ldSend(ctx, c, "GET", url+"/api/datasets", "", nil, -1)
		if err != nil || r.Status != http.StatusOK {
			t.Fatalf("GET %s/api/datasets after the uploads: %v %d %.200s", url, err, r.Status, r.Body)
		}
		var list []datasetInfo
		if err := json.Unmarshal(r.Body, &list); err != nil {
			t.Fatalf("GET %s/api/datasets: %v", url, err)
		}
		listed := map[string]bool{}
		for _, d := range list {
			listed[d.ID] = true
		}
		if len(list) != len(ids) {
			t.Errorf("after the uploads: got %d data sets listed by %s, want the %d accepted", len(list), url, len(ids))
		}
		for _, id := range ids {
			if !listed[id] {
				t.Errorf("data set %s was accepted but is not listed by %s", id, url)
			}
		}
	}
	return ids
}

// ldUploadOne uploads file under name, trying again after each 429 (at
// most ldMaxAttempts tries). It does not touch t.
func ldUploadOne(ctx context.Context, c *http.Client, url, name string, file []byte, rng *rand.Rand) (u ldUpload) {
	var head bytes.Buffer
	mw := multipart.NewWriter(&head)
	if err := mw.WriteField("name", name); err != nil {
		return ldUpload{failure: err.Error()}
	}
	if _, err := mw.CreateFormFile("file", "yeast.csv"); err != nil {
		return ldUpload{failure: err.Error()}
	}
	headBytes := bytes.Clone(head.Bytes())
	head.Reset()
	if err := mw.Close(); err != nil {
		return ldUpload{failure: err.Error()}
	}
	tail := head.Bytes()
	size := int64(len(headBytes) + len(file) + len(tail))

	begin := time.Now()
	defer func() { u.took = time.Since(begin) }()
	for {
		u.tries++
		actx, cancel := context.WithTimeout(ctx, ldUploadTimeout)
		body := io.MultiReader(bytes.NewReader(headBytes), bytes.NewReader(file), bytes.NewReader(tail))
		t0 := time.Now()
		r, err := ldSend(actx, c, "POST", url+"/api/datasets", mw.FormDataContentType(), body, size)
		took := time.Since(t0)
		cancel()
		switch {
		case err != nil:
			u.failure = fmt.Sprintf("try %d: %v", u.tries, err)
			return u
		case r.Status == http.StatusCreated:
			u.tries201 = append(u.tries201, took)
			var d datasetInfo
			if err := json.Unmarshal(r.Body, &d); err != nil || d.ID == "" {
				u.failure = fmt.Sprintf("201 without a data set: %v: %.200s", err, r.Body)
			} else if d.Rows != 2417 || d.Features != 103 {
				u.failure = fmt.Sprintf("201 with %d rows × %d features, want 2417 × 103", d.Rows, d.Features)
			}
			u.id = d.ID
			return u
		case r.Status == http.StatusRequestEntityTooLarge:
			u.tooLarge = true
			return u
		case r.Status == http.StatusTooManyRequests:
			u.refused++
			u.tries429 = append(u.tries429, took)
			if r.Header.Get("Retry-After") == "" {
				u.noRetry++
			}
			if u.tries == ldMaxAttempts {
				u.failure = fmt.Sprintf("answered 429 %d times in a row", u.tries)
				return u
			}
			if !ldSleep(ctx, ldRetryWait(r.Header, u.tries, rng)) {
				u.failure = fmt.Sprintf("out of time after %d tries answered 429", u.tries)
				return u
			}
		default:
			u.failure = fmt.Sprintf("try %d: got status %d, want 201, 413 or 429: %.300s", u.tries, r.Status, r.Body)
			return u
		}
	}
}
