package e2e

import (
	"bufio"
	"bytes"
	"context"
	jtbin "encoding/binary"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// jtJob is a job as GET /api/jobs/{id} and its event stream show it.
type jtJob struct {
	ID         string          `json:"id"`
	Status     string          `json:"status"`
	Progress   float64         `json:"progress"`
	Phase      string          `json:"phase"`
	Error      string          `json:"error"`
	CreatedAt  time.Time       `json:"created_at"`
	StartedAt  *time.Time      `json:"started_at"`
	FinishedAt *time.Time      `json:"finished_at"`
	Attempts   int             `json:"attempts"`
	Notes      []string        `json:"notes"`
	Request    json.RawMessage `json:"request"`
	Phases     []struct {
		Name    string  `json:"name"`
		Seconds float64 `json:"seconds"`
	} `json:"phases"`
}

// jtTerminal reports whether a job in this status is finished for good.
func jtTerminal(status string) bool {
	return status == "succeeded" || status == "failed" || status == "canceled"
}

// jtResp is a whole HTTP answer.
type jtResp struct {
	Status int
	Header http.Header
	Body   []byte
}

// jtAPIError is the JSON body of every 4xx/5xx under /api/.
type jtAPIError struct {
	Error string `json:"error"`
	Field string `json:"field"`
}

// jtSend sends a request and reads the whole answer; it does not touch t,
// so goroutines may call it.
func jtSend(ctx context.Context, method, url, contentType string, body io.Reader) (jtResp, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		return jtResp{}, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return jtResp{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return jtResp{}, fmt.Errorf("%s %s: reading the answer: %w", method, url, err)
	}
	return jtResp{Status: resp.StatusCode, Header: resp.Header, Body: b}, nil
}

// jtDo is jtSend that fails the test on a transport error.
func jtDo(ctx context.Context, t *testing.T, method, url, contentType string, body io.Reader) jtResp {
	t.Helper()
	r, err := jtSend(ctx, method, url, contentType, body)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	return r
}

func jtGet(ctx context.Context, t *testing.T, url string) jtResp {
	t.Helper()
	return jtDo(ctx, t, "GET", url, "", nil)
}

// jtAPIErr decodes an error answer, checking that it is JSON with a
// sentence in "error".
func jtAPIErr(t *testing.T, what string, r jtResp) jtAPIError {
	t.Helper()
	var e jtAPIError
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("%s: error Content-Type %q, want application/json", what, ct)
	}
	if err := json.Unmarshal(r.Body, &e); err != nil {
		t.Errorf("%s: error body is not JSON: %v: %s", what, err, r.Body)
	} else if e.Error == "" {
		t.Errorf("%s: error body has no \"error\": %s", what, r.Body)
	}
	return e
}

// jtWantStatus checks an answer's status and, for a refusal, that its body
// is a JSON error.
func jtWantStatus(t *testing.T, what string, r jtResp, want int) {
	t.Helper()
	if r.Status != want {
		t.Errorf("%s: got status %d, want %d: %.300s", what, r.Status, want, r.Body)
		return
	}
	if want >= 400 {
		jtAPIErr(t, what, r)
	}
}

// jtPostJob posts a job request (any value is marshalled, []byte sent as
// is).
func jtPostJob(ctx context.Context, t *testing.T, a *app, body any) jtResp {
	t.Helper()
	b, ok := body.([]byte)
	if !ok {
		var err error
		if b, err = json.Marshal(body); err != nil {
			t.Fatal(err)
		}
	}
	return jtDo(ctx, t, "POST", a.url+"/api/jobs", "application/json", bytes.NewReader(b))
}

// jtSubmit posts a job request that must be accepted: 202, a Location,
// an id and status queued.
func jtSubmit(ctx context.Context, t *testing.T, a *app, body any) string {
	t.Helper()
	r := jtPostJob(ctx, t, a, body)
	return jtAccepted(t, r)
}

func jtAccepted(t *testing.T, r jtResp) string {
	t.Helper()
	if r.Status != http.StatusAccepted {
		t.Fatalf("POST /api/jobs: got status %d, want 202: %s", r.Status, r.Body)
	}
	var got struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	}
	if err := json.Unmarshal(r.Body, &got); err != nil {
		t.Fatalf("POST /api/jobs: %v: %s", err, r.Body)
	}
	if got.ID == "" || got.Status != "queued" {
		t.Fatalf("POST /api/jobs: got id %q status %q, want an id and status queued", got.ID, got.Status)
	}
	if loc := r.Header.Get("Location"); loc != "/api/jobs/"+got.ID {
		t.Errorf("POST /api/jobs: Location %q, want /api/jobs/%s", loc, got.ID)
	}
	return got.ID
}

// jtGetJob reads a job that must exist.
func jtGetJob(ctx context.Context, t *testing.T, a *app, id string) jtJob {
	t.Helper()
	r := jtGet(ctx, t, a.url+"/api/jobs/"+id)
	if r.Status != http.StatusOK {
		t.Fatalf("GET /api/jobs/%s: got status %d, want 200: %s", id, r.Status, r.Body)
	}
	var j jtJob
	if err := json.Unmarshal(r.Body, &j); err != nil {
		t.Fatalf("GET /api/jobs/%s: %v", id, err)
	}
	return j
}

// jtListJobs reads GET /api/jobs.
func jtListJobs(ctx context.Context, t *testing.T, a *app) []jtJob {
	t.Helper()
	r := jtGet(ctx, t, a.url+"/api/jobs")
	if r.Status != http.StatusOK {
		t.Fatalf("GET /api/jobs: got status %d, want 200: %s", r.Status, r.Body)
	}
	var out []jtJob
	if err := json.Unmarshal(r.Body, &out); err != nil {
		t.Fatalf("GET /api/jobs: %v", err)
	}
	return out
}

// jtPoll reads a job every 50 ms until cond holds, failing the test when
// ctx ends first.
func jtPoll(ctx context.Context, t *testing.T, a *app, id, what string, cond func(jtJob) bool) jtJob {
	t.Helper()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		j := jtGetJob(ctx, t, a, id)
		if cond(j) {
			return j
		}
		if jtTerminal(j.Status) {
			t.Fatalf("job %s finished (%s, error %q) before %s", id, j.Status, j.Error, what)
		}
		select {
		case <-ctx.Done():
			t.Fatalf("job %s: %s did not happen in time; last seen %s at %.3f (%s)", id, what, j.Status, j.Progress, j.Phase)
		case <-tick.C:
		}
	}
}

// jtFollow reads a job's Server-Sent Events ("data: {...}" lines) until a
// terminal status, calling each (if not nil) on every event. It returns
// every event; the stream ending before a terminal status is an error. It
// does not touch t, so goroutines may call it.
func jtFollow(ctx context.Context, url, id string, each func(jtJob)) ([]jtJob, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", url+"/api/jobs/"+id+"/events", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return nil, fmt.Errorf("events: got status %d, want 200: %s", resp.StatusCode, b)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		return nil, fmt.Errorf("events: Content-Type %q, want text/event-stream", ct)
	}
	var events []jtJob
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue // blank lines between events, ": keep-alive" comments
		}
		var j jtJob
		if err := json.Unmarshal([]byte(data), &j); err != nil {
			return events, fmt.Errorf("events: %v: %s", err, data)
		}
		events = append(events, j)
		if each != nil {
			each(j)
		}
		if jtTerminal(j.Status) {
			return events, nil
		}
	}
	if err := sc.Err(); err != nil {
		return events, fmt.Errorf("events: %w", err)
	}
	return events, errors.New("events: the stream ended before the job finished")
}

// jtCheckEvents checks a job's event stream: the same job throughout,
// statuses in the order queued, running, then one terminal status, and
// progress that never decreases within a run.
func jtCheckEvents(t *testing.T, id string, events []jtJob) {
	t.Helper()
	rank := map[string]int{"queued": 0, "running": 1, "succeeded": 2, "failed": 2, "canceled": 2}
	for i, e := range events {
		if e.ID != id {
			t.Errorf("event %d is of job %q, want %q", i, e.ID, id)
		}
		r, ok := rank[e.Status]
		if !ok {
			t.Errorf("event %d: unknown status %q", i, e.Status)
		}
		if !(e.Progress >= 0 && e.Progress <= 1) {
			t.Errorf("event %d: progress %v outside [0, 1]", i, e.Progress)
		}
		if i == 0 {
			continue
		}
		p := events[i-1]
		if r < rank[p.Status] {
			t.Errorf("event %d: status went back from %s to %s", i, p.Status, e.Status)
		}
		if e.Progress < p.Progress {
			t.Errorf("event %d: progress went back from %v (%s, %s) to %v (%s, %s)", i, p.Progress, p.Status, p.Phase, e.Progress, e.Status, e.Phase)
		}
	}
}

// jtFilename is the file name a Content-Disposition header gives.
func jtFilename(t *testing.T, h http.Header) string {
	t.Helper()
	cd := h.Get("Content-Disposition")
	typ, params, err := mime.ParseMediaType(cd)
	if err != nil || typ != "attachment" {
		t.Errorf("Content-Disposition %q: want an attachment (%v)", cd, err)
		return ""
	}
	return params["filename"]
}

// jtNPY is a parsed .npy file of a 2-D float64 array.
type jtNPY struct {
	Major, Minor int
	Rows, Cols   int
	Data         []float64 // row-major
	Raw          []byte    // the data bytes as stored
}

var (
	jtNPYDescr   = regexp.MustCompile(`'descr':\s*'([^']*)'`)
	jtNPYFortran = regexp.MustCompile(`'fortran_order':\s*(True|False)`)
	jtNPYShape   = regexp.MustCompile(`'shape':\s*\(\s*(\d+)\s*,\s*(\d+)\s*,?\s*\)`)
)

// jtReadNPY reads a .npy file (NEP 1; versions 1.0 and 2.0) holding a 2-D
// little-endian float64 array in C order, and nothing else.
func jtReadNPY(b []byte) (jtNPY, error) {
	var n jtNPY
	if len(b) < 10 || string(b[:6]) != "\x93NUMPY" {
		return n, errors.New("npy: no \\x93NUMPY magic")
	}
	n.Major, n.Minor = int(b[6]), int(b[7])
	var hlen, start int
	switch {
	case n.Major == 1 && n.Minor == 0:
		hlen, start = int(jtbin.LittleEndian.Uint16(b[8:10])), 10
	case n.Major == 2 && n.Minor == 0 && len(b) >= 12:
		hlen, start = int(jtbin.LittleEndian.Uint32(b[8:12])), 12
	default:
		return n, fmt.Errorf("npy: version %d.%d, want 1.0 or 2.0", n.Major, n.Minor)
	}
	if start+hlen > len(b) {
		return n, fmt.Errorf("npy: header of %d bytes runs past the %d-byte file", hlen, len(b))
	}
	if (start+hlen)%64 != 0 {
		return n, fmt.Errorf("npy: the data start at byte %d, not on a multiple of 64", start+hlen)
	}
	header := string(b[start : start+hlen])
	if !strings.HasPrefix(header, "{") || !strings.HasSuffix(header, "\n") {
		return n, fmt.Errorf("npy: header %q is not a dict ending in a newline", header)
	}
	m := jtNPYDescr.FindStringSubmatch(header)
	if m == nil || m[1] != "<f8" {
		return n, fmt.Errorf("npy: header %q: want descr '<f8'", header)
	}
	if m := jtNPYFortran.FindStringSubmatch(header); m == nil || m[1] != "False" {
		return n, fmt.Errorf("npy: header %q: want fortran_order False", header)
	}
	s := jtNPYShape.FindStringSubmatch(header)
	if s == nil {
		return n, fmt.Errorf("npy: header %q: want a 2-D shape", header)
	}
	n.Rows, _ = strconv.Atoi(s[1])
	n.Cols, _ = strconv.Atoi(s[2])
	n.Raw = b[start+hlen:]
	if len(n.Raw) != 8*n.Rows*n.Cols {
		return n, fmt.Errorf("npy: %d data bytes, want 8 × %d × %d", len(n.Raw), n.Rows, n.Cols)
	}
	n.Data = make([]float64, n.Rows*n.Cols)
	for i := range n.Data {
		n.Data[i] = math.Float64frombits(jtbin.LittleEndian.Uint64(n.Raw[8*i:]))
	}
	return n, nil
}

// jtReadCSV parses a whole CSV answer.
func jtReadCSV(t *testing.T, what string, b []byte) [][]string {
	t.Helper()
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if len(recs) == 0 {
		t.Fatalf("%s: empty", what)
	}
	return recs
}

// jtFloats parses fields as numbers.
func jtFloats(t *testing.T, what string, fields []string) []float64 {
	t.Helper()
	out := make([]float64, len(fields))
	for i, f := range fields {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			t.Fatalf("%s: field %d: %v", what, i+1, err)
		}
		out[i] = v
	}
	return out
}

// jtColumns reads the named columns of a CSV file as numbers, one row per
// record.
func jtColumns(t *testing.T, path string, names []string) [][]float64 {
	t.Helper()
	recs := jtReadCSV(t, path, mustRead(t, path))
	at := map[string]int{}
	for i, h := range recs[0] {
		at[h] = i
	}
	idx := make([]int, len(names))
	for k, name := range names {
		i, ok := at[name]
		if !ok {
			t.Fatalf("%s has no column %q", path, name)
		}
		idx[k] = i
	}
	out := make([][]float64, 0, len(recs)-1)
	for r, rec := range recs[1:] {
		row := make([]float64, len(idx))
		for k, i := range idx {
			v, err := strconv.ParseFloat(rec[i], 64)
			if err != nil {
				t.Fatalf("%s line %d column %s: %v", path, r+2, names[k], err)
			}
			row[k] = v
		}
		out = append(out, row)
	}
	return out
}

// jtProject computes (x − means)·p row by row, and for each value the sum
// of the absolute terms, which bounds its rounding error.
func jtProject(x [][]float64, means []float64, p [][]float64) (z, scale [][]float64) {
	d := len(p[0])
	for _, row := range x {
		zr, sr := make([]float64, d), make([]float64, d)
		for j, v := range row {
			c := v - means[j]
			for k := range d {
				zr[k] += c * p[j][k]
				sr[k] += math.Abs(c * p[j][k])
			}
		}
		z, scale = append(z, zr), append(scale, sr)
	}
	return z, scale
}

// jtCompareProjected checks rows of numbers against (x − means)·p to
// 1e-12, relative to the size of the terms summed.
func jtCompareProjected(t *testing.T, what string, got, want, scale [][]float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, want %d", what, len(got), len(want))
	}
	bad := 0
	for i := range want {
		for k := range want[i] {
			tol := 1e-12 * max(1, scale[i][k])
			if d := math.Abs(got[i][k] - want[i][k]); !(d <= tol) {
				if bad++; bad <= 5 {
					t.Errorf("%s: row %d c%d: got %v, want %v (|Δ| %.3g > %.3g)", what, i+1, k+1, got[i][k], want[i][k], d, tol)
				}
			}
		}
	}
	if bad > 5 {
		t.Errorf("%s: %d values differ in all", what, bad)
	}
}

// jtMultipart builds a multipart body with one file field.
func jtMultipart(t *testing.T, field, name string, content []byte) (string, *bytes.Buffer) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	w, err := mw.CreateFormFile(field, name)
	if err == nil {
		_, err = w.Write(content)
	}
	if err == nil {
		err = mw.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	return mw.FormDataContentType(), &buf
}

// jtCheckResultDirs checks that every result directory under the data
// directory's jobs/ belongs to a job that has succeeded.
func jtCheckResultDirs(ctx context.Context, t *testing.T, a *app) {
	t.Helper()
	for _, name := range dirNames(t, filepath.Join(a.dir, "jobs")) {
		r := jtGet(ctx, t, a.url+"/api/jobs/"+name)
		var j jtJob
		if r.Status != http.StatusOK || json.Unmarshal(r.Body, &j) != nil {
			t.Errorf("result directory jobs/%s belongs to no job (GET answers %d)", name, r.Status)
			continue
		}
		if j.Status != "succeeded" {
			t.Errorf("result directory jobs/%s exists, but the job has status %s", name, j.Status)
		}
	}
}

// jtTmpEmpty checks that the data directory's tmp/ holds nothing.
func jtTmpEmpty(t *testing.T, a *app, when string) {
	t.Helper()
	if left := dirNames(t, filepath.Join(a.dir, "tmp")); len(left) > 0 {
		t.Errorf("%s: tmp/ holds %v, want it empty", when, left)
	}
}

// jtHasNumpy reports whether /usr/bin/python3 can import numpy.
func jtHasNumpy(ctx context.Context) bool {
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		return false
	}
	return exec.CommandContext(ctx, "/usr/bin/python3", "-c", "import numpy").Run() == nil
}
