package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// How long the end-to-end rows wait for the webapp.
const (
	// webappStartTimeout bounds the wait for the webapp to listen.
	webappStartTimeout = 60 * time.Second
	// webappStopTimeout bounds the wait for its graceful stop, after which
	// it is killed.
	webappStopTimeout = 60 * time.Second
)

// webapp is a running webapp process of the end-to-end rows.
type webapp struct {
	cmd  *exec.Cmd
	url  string // http://127.0.0.1:PORT, no trailing slash
	logs *lastLines
	done chan error
}

// listeningURL finds the address in the webapp's start-up log line
// ("MLDR Explorer is running" url=http://127.0.0.1:PORT/ …).
var listeningURL = regexp.MustCompile(`url=(http://[^ /]+)/`)

// startWebapp runs the webapp binary bin on a free loopback port over
// dataDir and waits until /healthz answers. Its standard error is kept
// (the last lines, for errors). The caller stops it with stop.
func startWebapp(ctx context.Context, bin, dataDir string) (*webapp, error) {
	cmd := exec.Command(bin, "-addr", "127.0.0.1:0", "-data-dir", dataDir)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, fmt.Errorf("starting the webapp: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the webapp %s: %w", bin, err)
	}
	a := &webapp{cmd: cmd, logs: &lastLines{keep: 20}, done: make(chan error, 1)}
	addr := make(chan string, 1)
	scanned := make(chan struct{})
	go func() {
		defer close(scanned)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			a.logs.add(sc.Text())
			if m := listeningURL.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case addr <- m[1]:
				default:
				}
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	go func() {
		<-scanned // Wait closes the pipe: read it to the end first
		a.done <- cmd.Wait()
	}()
	timer := time.NewTimer(webappStartTimeout)
	defer timer.Stop()
	select {
	case u := <-addr:
		a.url = u
	case err := <-a.done:
		return nil, fmt.Errorf("the webapp exited before listening: %v%s", err, tail(a.logs.String()))
	case <-timer.C:
		_, _ = a.stop()
		return nil, fmt.Errorf("the webapp did not listen within %s%s", webappStartTimeout, tail(a.logs.String()))
	case <-ctx.Done():
		_, _ = a.stop()
		return nil, ctx.Err()
	}
	r, err := send(ctx, http.DefaultClient, http.MethodGet, a.url+"/healthz", "", nil)
	if err != nil || r.status != http.StatusOK {
		_, _ = a.stop()
		return nil, fmt.Errorf("the webapp's /healthz: got %d %v, want 200%s", r.status, err, tail(a.logs.String()))
	}
	return a, nil
}

// stop asks the webapp to shut down (SIGINT), waits for it, killing it
// after webappStopTimeout, and returns its peak resident memory: the
// largest of the server's and of the worker processes it waited for.
func (a *webapp) stop() (peak int64, err error) {
	if err := a.cmd.Process.Signal(os.Interrupt); err != nil {
		return 0, fmt.Errorf("stopping the webapp: %w", err)
	}
	timer := time.NewTimer(webappStopTimeout)
	defer timer.Stop()
	select {
	case err = <-a.done:
	case <-timer.C:
		_ = a.cmd.Process.Kill()
		<-a.done
		err = fmt.Errorf("the webapp did not stop within %s of SIGINT, so it was killed%s", webappStopTimeout, tail(a.logs.String()))
	}
	if a.cmd.ProcessState != nil {
		peak = peakKiB(a.cmd.ProcessState)
	}
	if err != nil {
		return peak, fmt.Errorf("stopping the webapp: %w%s", err, tail(a.logs.String()))
	}
	return peak, nil
}

// lastLines keeps the last lines written to it, for error messages.
type lastLines struct {
	mu    sync.Mutex
	keep  int
	lines []string
}

// add keeps line, dropping the oldest beyond keep.
func (l *lastLines) add(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, line)
	if len(l.lines) > l.keep {
		l.lines = slices.Delete(l.lines, 0, len(l.lines)-l.keep)
	}
}

// String is the lines kept, one a line.
func (l *lastLines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// answer is a whole HTTP answer.
type answer struct {
	status int
	body   []byte
}

// send sends a request to the webapp and reads the whole answer.
func send(ctx context.Context, c *http.Client, method, url, contentType string, body io.Reader) (answer, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		return answer{}, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if sb, ok := body.(sizedBody); ok {
		req.ContentLength = sb.n
	}
	resp, err := c.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return answer{}, fmt.Errorf("%s %s: reading the answer: %w", method, url, err)
	}
	return answer{status: resp.StatusCode, body: b}, nil
}

// sizedBody is a request body of n bytes, sent with that Content-Length
// rather than chunked.
type sizedBody struct {
	io.Reader
	n int64
}

// answerError is an answer of the webapp that is not the one wanted.
type answerError struct {
	// what is the request ("uploading FILE").
	what string
	// status is the answer's status, want the one wanted.
	status, want int
	// msg is the sentence of its JSON error body, or the body itself, cut
	// at 500 bytes.
	msg string
}

// Error gives the request, the status and the server's message.
func (e *answerError) Error() string {
	return fmt.Sprintf("%s: got %d (%s), want %d", e.what, e.status, e.msg, e.want)
}

// apiError is the webapp's error (*answerError) for an answer that is not
// the one wanted: the sentence of its JSON error body, or the body itself.
func apiError(what string, a answer, want int) error {
	var e struct {
		Error string `json:"error"`
	}
	msg := strings.TrimSpace(string(a.body))
	if json.Unmarshal(a.body, &e) == nil && e.Error != "" {
		msg = e.Error
	}
	if len(msg) > 500 {
		msg = msg[:500] + "…"
	}
	return &answerError{what: what, status: a.status, want: want, msg: msg}
}

// uploadedSet is what the benchmark reads of an upload's answer.
type uploadedSet struct {
	ID         string `json:"id"`
	Rows       int    `json:"rows"`
	Features   int    `json:"features"`
	LabelCount int    `json:"label_count"`
	Storage    string `json:"storage"`
	// LabelStorage is "sparse" when the labels are held sparse.
	LabelStorage string `json:"label_storage"`
	NonZeros     int64  `json:"nonzeros"`
	LabelOnes    int64  `json:"label_ones"`
}

// text describes the data set for the data column: N×D, q and how its
// features and labels are stored.
func (u uploadedSet) text() string {
	s := fmt.Sprintf("%d×%d, q = %d", u.Rows, u.Features, u.LabelCount)
	if u.Storage == "sparse" {
		s += ", stored sparse"
	}
	if u.LabelStorage == "sparse" {
		s += ", labels sparse"
	}
	return s
}

// uploadCSV uploads the CSV file at path as a new data set (uploadFile)
// and returns its id and the time from the request to the whole answer.
func uploadCSV(ctx context.Context, c *http.Client, base, path string) (id string, took time.Duration, err error) {
	up, took, err := uploadFile(ctx, c, base, path, "")
	return up.ID, took, err
}

// uploadFile uploads the data file at path as a new data set (POST
// /api/datasets, the file streamed from disk, with its length declared as
// a browser or curl declares it), with the Mulan XML file xmlPath as its
// xml part before it unless xmlPath is "". It returns the data set's
// summary and the time from the request to the whole answer.
func uploadFile(ctx context.Context, c *http.Client, base, path, xmlPath string) (up uploadedSet, took time.Duration, err error) {
	f, err := os.Open(path)
	if err != nil {
		return up, 0, fmt.Errorf("uploading: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return up, 0, fmt.Errorf("uploading: %w", err)
	}
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	if xmlPath != "" {
		x, err := os.ReadFile(xmlPath)
		if err != nil {
			return up, 0, fmt.Errorf("uploading: %w", err)
		}
		part, err := mw.CreateFormFile("xml", filepath.Base(xmlPath))
		if err == nil {
			_, err = part.Write(x)
		}
		if err != nil {
			return up, 0, fmt.Errorf("uploading: %w", err)
		}
	}
	if _, err := mw.CreateFormFile("file", filepath.Base(path)); err != nil {
		return up, 0, fmt.Errorf("uploading: %w", err)
	}
	head := bytes.Clone(buf.Bytes())
	buf.Reset()
	if err := mw.Close(); err != nil {
		return up, 0, fmt.Errorf("uploading: %w", err)
	}
	tail := buf.Bytes()
	body := sizedBody{io.MultiReader(bytes.NewReader(head), f, bytes.NewReader(tail)), int64(len(head)) + st.Size() + int64(len(tail))}
	start := time.Now()
	a, err := send(ctx, c, http.MethodPost, base+"/api/datasets", mw.FormDataContentType(), body)
	took = time.Since(start)
	if err != nil {
		return up, 0, fmt.Errorf("uploading %s: %w", path, err)
	}
	if a.status != http.StatusCreated {
		return up, 0, apiError("uploading "+path, a, http.StatusCreated)
	}
	if err := json.Unmarshal(a.body, &up); err != nil || up.ID == "" {
		return up, 0, fmt.Errorf("uploading %s: reading the data set's id from %.200q: %v", path, a.body, err)
	}
	return up, took, nil
}

// deleteDataset deletes a data set (DELETE /api/datasets/{id}, 204).
func deleteDataset(ctx context.Context, c *http.Client, base, id string) error {
	a, err := send(ctx, c, http.MethodDelete, base+"/api/datasets/"+id, "", nil)
	if err != nil {
		return fmt.Errorf("deleting data set %s: %w", id, err)
	}
	if a.status != http.StatusNoContent {
		return apiError("deleting data set "+id, a, http.StatusNoContent)
	}
	return nil
}

// jobState is what the end-to-end rows read of a job object.
type jobState struct {
	ID     string      `json:"id"`
	Status string      `json:"status"`
	Error  string      `json:"error"`
	Phases []phaseTime `json:"phases"`
	Notes  []string    `json:"notes"`
}

// terminal reports whether the job has finished for good.
func (j jobState) terminal() bool {
	return j.Status == "succeeded" || j.Status == "failed" || j.Status == "canceled"
}

// jobBody is the request of an end-to-end job: one method on one data
// set with d, and no evaluation (so no split).
func jobBody(dataset, method string, d int) ([]byte, error) {
	return json.Marshal(map[string]any{"dataset": dataset, "method": method, "params": map[string]any{"d": d}})
}

// runJob submits a job (POST /api/jobs, 202) and follows its event stream
// (GET /api/jobs/{id}/events) to its finished state. It returns the job as
// it finished and the time from the request to that state's event. A job
// that does not succeed is an error that gives the job's own.
func runJob(ctx context.Context, c *http.Client, base string, body []byte) (jobState, time.Duration, error) {
	start := time.Now()
	a, err := send(ctx, c, http.MethodPost, base+"/api/jobs", "application/json", bytes.NewReader(body))
	if err != nil {
		return jobState{}, 0, fmt.Errorf("submitting the job %s: %w", body, err)
	}
	if a.status != http.StatusAccepted {
		return jobState{}, 0, apiError(fmt.Sprintf("submitting the job %s", body), a, http.StatusAccepted)
	}
	var j jobState
	if err := json.Unmarshal(a.body, &j); err != nil || j.ID == "" {
		return jobState{}, 0, fmt.Errorf("submitting the job %s: reading its id from %.200q: %v", body, a.body, err)
	}
	j, err = followJob(ctx, c, base, j.ID)
	took := time.Since(start)
	if err != nil {
		return j, took, err
	}
	if j.Status != "succeeded" {
		return j, took, fmt.Errorf("job %s %s: %s", j.ID, j.Status, j.Error)
	}
	return j, took, nil
}

// followJob reads the job's Server-Sent Events until one has a finished
// state, and returns that state.
func followJob(ctx context.Context, c *http.Client, base, id string) (jobState, error) {
	url := base + "/api/jobs/" + id + "/events"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return jobState{}, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return jobState{}, fmt.Errorf("following job %s: %w", id, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return jobState{}, apiError("following job "+id, answer{status: resp.StatusCode, body: b}, http.StatusOK)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	var last jobState
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if err := json.Unmarshal([]byte(data), &last); err != nil {
			return jobState{}, fmt.Errorf("following job %s: reading an event %.200q: %w", id, data, err)
		}
		if last.terminal() {
			return last, nil
		}
	}
	if err := sc.Err(); err != nil {
		return last, fmt.Errorf("following job %s: %w", id, err)
	}
	return last, fmt.Errorf("following job %s: the event stream ended with the job %s, not finished", id, last.Status)
}

// jobFile reads a result file of a succeeded job (GET
// /api/jobs/{id}/{file}, 200); file may carry a query (?method=).
func jobFile(ctx context.Context, c *http.Client, base, id, file string) ([]byte, error) {
	a, err := send(ctx, c, http.MethodGet, base+"/api/jobs/"+id+"/"+file, "", nil)
	if err != nil {
		return nil, fmt.Errorf("reading job %s's %s: %w", id, file, err)
	}
	if a.status != http.StatusOK {
		return nil, apiError("reading job "+id+"'s "+file, a, http.StatusOK)
	}
	return a.body, nil
}

// jobEigenvalues reads a succeeded job's eigenvalues.json.
func jobEigenvalues(ctx context.Context, c *http.Client, base, id string) ([]float64, error) {
	b, err := jobFile(ctx, c, base, id, "eigenvalues.json")
	if err != nil {
		return nil, err
	}
	var e struct {
		Eigenvalues []float64 `json:"eigenvalues"`
	}
	if err := json.Unmarshal(b, &e); err != nil {
		return nil, fmt.Errorf("reading job %s's eigenvalues: %w", id, err)
	}
	return e.Eigenvalues, nil
}

// medianIndex is the index of the median of times (the lower middle for
// an even count), -1 for none.
func medianIndex(times []float64) int {
	if len(times) == 0 {
		return -1
	}
	idx := make([]int, len(times))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case times[a] < times[b]:
			return -1
		case times[a] > times[b]:
			return 1
		}
		return 0
	})
	return idx[(len(idx)-1)/2]
}

// jobRun is one timed job of an end-to-end row.
type jobRun struct {
	job  jobState
	took time.Duration
	// eig are the job's eigenvalues (eigenvalues.json).
	eig []float64
	// peakKiB is the webapp's peak memory over the job's run.
	peakKiB int64
}

// timeJobs calls run until reps jobs are timed (timeRuns: a first job
// under warmupUnder is a warm-up), and returns the Go side of an
// end-to-end row: the jobs' times, the warm-up, the last job's leading top
// eigenvalues, the largest peak; and the median job's phases. When a run
// fails, the side is its error and the webapp's peak over its run.
func timeJobs(ctx context.Context, reps int, warmupUnder time.Duration, top int, run func() (jobRun, error)) (outcome, []phaseTime) {
	// Each run measures its job itself, from its request to its finished
	// event; timeRuns' clock advances by exactly that.
	var runs []jobRun
	var clock time.Time
	var failedPeak int64
	times, warmup, err := timeRuns(ctx, reps, warmupUnder, func() time.Time { return clock }, func() {}, func() error {
		r, err := run()
		if err != nil {
			failedPeak = r.peakKiB
			return err
		}
		runs, clock = append(runs, r), clock.Add(r.took)
		return nil
	})
	if err != nil {
		return outcome{err: err, peakKiB: failedPeak}, nil
	}
	var o outcome
	for _, t := range times {
		o.res.Times = append(o.res.Times, t.Seconds())
	}
	if warmup > 0 {
		s := warmup.Seconds()
		o.res.Warmup = &s
	}
	for _, r := range runs {
		o.peakKiB = max(o.peakKiB, r.peakKiB)
	}
	timed := runs[len(runs)-len(times):]
	last := timed[len(timed)-1].eig
	o.res.Eig = last[:min(top, len(last))]
	return o, timed[medianIndex(o.res.Times)].job.Phases
}

// freshJob runs one job of body as a new user's job on stored data: it
// starts the webapp over dataDir, runs the job of warmBody (on a tiny data
// set) so that a worker process is running, then times the job of body
// (runJob), calls read with the webapp's address and the finished job to
// read its results, and stops the webapp. So the job meets a running
// worker but no cache of this data set or decomposition from an earlier
// job; a job that says it reused a decomposition is an error.
func freshJob(ctx context.Context, c *http.Client, bin, dataDir string, warmBody, body []byte, read func(base string, j jobState) error) (r jobRun, err error) {
	app, err := startWebapp(ctx, bin, dataDir)
	if err != nil {
		return r, err
	}
	defer func() {
		peak, serr := app.stop()
		r.peakKiB = peak
		if err == nil {
			err = serr
		}
	}()
	if _, _, err := runJob(ctx, c, app.url, warmBody); err != nil {
		return r, fmt.Errorf("the warm-up job on the tiny data set: %w", err)
	}
	if r.job, r.took, err = runJob(ctx, c, app.url, body); err != nil {
		return r, err
	}
	for _, n := range r.job.Notes {
		if strings.Contains(n, "reused") {
			return r, fmt.Errorf("job %s: %q, so its time is not a fit's", r.job.ID, n)
		}
	}
	return r, read(app.url, r.job)
}

// tinyCSV is the data set of the jobs that start a worker process before
// each timed job: 20 rows, 3 features, 2 labels.
func tinyCSV() []byte {
	var b bytes.Buffer
	b.WriteString("f1,f2,f3,label:a,label:b\n")
	for i := range 20 {
		fmt.Fprintf(&b, "%d,%d,%d,%d,%d\n", i, (i*7)%11, (i*i)%13, i%2, (i/3)%2)
	}
	return b.Bytes()
}

// webappWork makes a directory for a webapp's run under the cache,
// its name starting with prefix, and builds the webapp into it unless
// -webapp names one; it returns the directory, which the caller removes
// (also on an error; "" when none was made), and the binary.
func webappWork(ctx context.Context, cfg config, prefix string, log io.Writer) (work, bin string, err error) {
	if err := os.MkdirAll(cfg.cacheDir, 0o755); err != nil {
		return "", "", fmt.Errorf("creating the cache %s: %w", cfg.cacheDir, err)
	}
	if work, err = os.MkdirTemp(cfg.cacheDir, prefix); err != nil {
		return "", "", fmt.Errorf("a directory for the webapp: %w", err)
	}
	if bin = cfg.webapp; bin == "" {
		fmt.Fprint(log, " building the webapp…")
		bin, err = buildWebapp(ctx, work)
	}
	return work, bin, err
}

// buildWebapp builds ./cmd/webapp into dir with the go command and
// returns the binary's path.
func buildWebapp(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "webapp")
	out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "mldr/cmd/webapp").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("building the webapp (go build -o %s mldr/cmd/webapp, from the repository; or give -webapp): %w%s", bin, err, tail(string(out)))
	}
	return bin, nil
}

// timeUploads starts the webapp over dataDir, uploads the CSV file at
// path reps times, stops it, and returns the uploads' times, the bytes the
// first one stored, and the webapp's peak memory. With diskProbe > 0 it
// first measures the disk's rate (diskWriteRate) with that many bytes. It
// keeps the first data set when keep is set and returns its id; it deletes
// the others.
func timeUploads(ctx context.Context, c *http.Client, bin, dataDir, path string, reps int, keep bool, diskProbe int64) (id string, up uploadStats, err error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", up, fmt.Errorf("the CSV to upload: %w", err)
	}
	up.bytes = st.Size()
	if diskProbe > 0 {
		if up.diskRate, err = diskWriteRate(filepath.Dir(dataDir), diskProbe); err != nil {
			return "", up, err
		}
	}
	app, err := startWebapp(ctx, bin, dataDir)
	if err != nil {
		return "", up, err
	}
	for range reps {
		got, took, err := uploadCSV(ctx, c, app.url, path)
		if err == nil && up.stored == 0 {
			up.stored, err = dirBytes(filepath.Join(dataDir, "datasets", got))
		}
		if err == nil && (!keep || id != "") {
			err = deleteDataset(ctx, c, app.url, got)
		}
		if err != nil {
			_, _ = app.stop()
			return "", up, err
		}
		if keep && id == "" {
			id = got
		}
		up.times = append(up.times, took.Seconds())
	}
	up.peakKiB, err = app.stop()
	return id, up, err
}

// diskProbeBytes is what diskWriteRate writes before each CSV's uploads:
// about what a dense upload makes durable (its file and the binary data
// file, some 420 MB).
const diskProbeBytes = 384 << 20

// diskWriteRate writes n bytes of random data to a new file in dir, 8 MiB
// at a time, fsyncs it, removes it and returns the bytes per second from
// the first write to the end of the fsync: how fast the disk under the
// data directory makes data durable, a floor under an upload, which makes
// its file and the binary data file durable before it answers. The data
// are random so that no layer below compresses or skips them.
func diskWriteRate(dir string, n int64) (float64, error) {
	f, err := os.CreateTemp(dir, "disk-probe-")
	if err != nil {
		return 0, fmt.Errorf("measuring the disk: %w", err)
	}
	defer os.Remove(f.Name())
	defer f.Close()
	buf := make([]byte, 8<<20)
	_, _ = rand.NewChaCha8([32]byte{1}).Read(buf)
	start := time.Now()
	for left := n; left > 0; left -= int64(len(buf)) {
		if _, err := f.Write(buf[:min(left, int64(len(buf)))]); err != nil {
			return 0, fmt.Errorf("measuring the disk: %w", err)
		}
	}
	if err := f.Sync(); err != nil {
		return 0, fmt.Errorf("measuring the disk: %w", err)
	}
	return float64(n) / time.Since(start).Seconds(), nil
}

// dirBytes is the size of the files under dir.
func dirBytes(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		n += info.Size()
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("the size of the stored data set: %w", err)
	}
	return n, nil
}

// benchE2E runs the end-to-end rows: it builds the webapp (unless
// -webapp names one) and starts it over an empty data directory under the
// cache; it uploads the dense CSV of the cases -reps times, keeping one
// data set, and the wide rows' sparse CSV (the data of case sparse) -reps
// times; then for each case it times -reps jobs of the case's method
// through the HTTP API, each in a webapp run of its own (freshJob: a
// new user's job, with no cache of an earlier one), and runs the numpy
// reference on the same data. Each run's webapp is stopped before the
// next starts, so its peak memory is that run's. Trouble before the
// jobs (data, build, start, upload) is an error; a failed job is the
// row's failed side.
func benchE2E(ctx context.Context, cfg config, self string, cases []benchCase, sparse benchCase, log io.Writer) ([]row, []uploadStats, error) {
	files, err := provideData(ctx, self, cfg.cacheDir, cases[0], cfg.seed, log)
	if err != nil {
		return nil, nil, err
	}
	sparseFiles, err := provideData(ctx, self, cfg.cacheDir, sparse, cfg.seed, log)
	if err != nil {
		return nil, nil, err
	}
	work, bin, err := webappWork(ctx, cfg, "e2e-webapp-", log)
	defer os.RemoveAll(work)
	if err != nil {
		return nil, nil, err
	}
	dataDir := filepath.Join(work, "data")
	c := &http.Client{}

	tiny := filepath.Join(work, "tiny.csv")
	if err := os.WriteFile(tiny, tinyCSV(), 0o644); err != nil {
		return nil, nil, fmt.Errorf("the tiny data set: %w", err)
	}
	var ups []uploadStats
	var dataset, tinyID string
	for _, u := range []struct {
		path, what string
		keep       bool
	}{
		{files.CSV, fmt.Sprintf("dense CSV (%s)", cases[0].text()), true},
		{sparseFiles.CSV, fmt.Sprintf("sparse CSV (%s)", sparse.text()), false},
	} {
		fmt.Fprintf(log, " uploading the %s…", u.what)
		id, up, err := timeUploads(ctx, c, bin, dataDir, u.path, cfg.reps, u.keep, diskProbeBytes)
		if err != nil {
			return nil, nil, err
		}
		if u.keep {
			dataset = id
		}
		up.what = u.what
		ups = append(ups, up)
		fmt.Fprintf(log, " %.0f MB/s", float64(up.bytes)/1e6/median(up.times))
	}
	fmt.Fprintln(log)
	if tinyID, _, err = timeUploads(ctx, c, bin, dataDir, tiny, 1, true, 0); err != nil {
		return nil, nil, err
	}
	warmBody, err := jobBody(tinyID, "pca", 1)
	if err != nil {
		return nil, nil, err
	}

	var rows []row
	for _, cs := range cases {
		fmt.Fprintf(log, "  %s, %s: job…", cs.work, cs.text())
		body, err := jobBody(dataset, cs.work, cs.targetD())
		if err != nil {
			return nil, nil, err
		}
		r := row{work: cs.work, size: cs.text(), kind: kindE2E}
		r.goSide, r.phases = timeJobs(ctx, cfg.reps, cfg.warmupUnder, cs.top(), func() (jobRun, error) {
			var eig []float64
			run, err := freshJob(ctx, c, bin, dataDir, warmBody, body, func(base string, j jobState) (err error) {
				eig, err = jobEigenvalues(ctx, c, base, j.ID)
				return err
			})
			run.eig = eig
			return run, err
		})
		fmt.Fprintf(log, " %s s; numpy…", formatSeconds(sideMedian(r.goSide)))
		r.np.skipped, r.sp.skipped = true, true
		if cfg.python != "" {
			t := task{Work: cs.work, X: files.X, Y: files.Y, D: cs.targetD(), Reps: cfg.reps, WarmupUnder: cfg.warmupUnder.Seconds(), Top: cs.top()}
			r.np = runChild(ctx, cfg.python, pythonArgs(cfg.script, t)...)
		}
		fmt.Fprintf(log, " %s s\n", formatSeconds(sideMedian(r.np)))
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		rows = append(rows, r)
	}
	return rows, ups, nil
}
