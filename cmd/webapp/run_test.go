package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"mldr/internal/jobs"
	"mldr/internal/runcli"
	"mldr/internal/store"
)

// sharedDataset is the path of a file of ../shared/datasets (beside the
// project); the test is skipped without it, and fails with
// MLDR_REQUIRE_SHARED=1.
func sharedDataset(t *testing.T, rel string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "..", "shared", "datasets", rel))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("MLDR_REQUIRE_SHARED") == "1" {
			t.Fatalf("%s is missing (MLDR_REQUIRE_SHARED=1): clone ../shared beside the project", p)
		}
		t.Skipf("%s not present", p)
	}
	return p
}

// testServer is a server run in this process, its workers this test
// binary (TestMain).
type testServer struct {
	t    *testing.T
	base string
}

func startServer(t *testing.T) *testServer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	addrc, errc := make(chan string, 1), make(chan error, 1)
	go func() {
		errc <- run(ctx, []string{"-addr", "127.0.0.1:0", "-data-dir", t.TempDir(), "-workers", "1"}, testEnv(io.Discard), func(a string) { addrc <- a })
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-errc:
		case <-time.After(30 * time.Second):
			t.Error("the server did not stop within 30 s")
		}
	})
	select {
	case a := <-addrc:
		return &testServer{t: t, base: "http://" + a}
	case err := <-errc:
		t.Fatalf("the server did not start: %v", err)
	case <-time.After(20 * time.Second):
		t.Fatal("the server did not start within 20 s")
	}
	return nil
}

// upload stores a data file (and the form's other fields; "xml" is a
// file too) and returns the data set's id.
func (s *testServer) upload(file string, fields map[string]string) string {
	s.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, v := range fields {
		if k == "xml" {
			continue
		}
		mw.WriteField(k, v)
	}
	for _, p := range []struct{ field, path string }{{"xml", fields["xml"]}, {"file", file}} {
		if p.path == "" {
			continue
		}
		b, err := os.ReadFile(p.path)
		if err != nil {
			s.t.Fatal(err)
		}
		w, _ := mw.CreateFormFile(p.field, filepath.Base(p.path))
		w.Write(b)
	}
	mw.Close()
	resp, b := s.do("POST", "/api/datasets", mw.FormDataContentType(), &body)
	if resp.StatusCode != http.StatusCreated {
		s.t.Fatalf("upload %s: %d %s", file, resp.StatusCode, b)
	}
	var rec struct{ ID string }
	json.Unmarshal(b, &rec)
	return rec.ID
}

func (s *testServer) do(method, path, ctype string, body io.Reader) (*http.Response, []byte) {
	s.t.Helper()
	req, err := http.NewRequest(method, s.base+path, body)
	if err != nil {
		s.t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	return resp, b
}

// job submits a request and waits until it has succeeded; it returns the
// job's id.
func (s *testServer) job(req []byte) string {
	s.t.Helper()
	resp, b := s.do("POST", "/api/jobs", "application/json", bytes.NewReader(req))
	if resp.StatusCode != http.StatusAccepted {
		s.t.Fatalf("submit: %d %s", resp.StatusCode, b)
	}
	var j jobs.Job
	json.Unmarshal(b, &j)
	deadline := time.Now().Add(60 * time.Second)
	for tick := time.NewTicker(20 * time.Millisecond); ; <-tick.C {
		_, b := s.do("GET", "/api/jobs/"+j.ID, "", nil)
		var got jobs.Job
		json.Unmarshal(b, &got)
		switch {
		case got.Status == jobs.Succeeded:
			tick.Stop()
			return j.ID
		case got.Status.Terminal():
			s.t.Fatalf("job %s %s: %s", j.ID, got.Status, got.Error)
		case time.Now().After(deadline):
			s.t.Fatalf("job %s has not finished within 60 s (%s)", j.ID, got.Status)
		}
	}
}

// result downloads a result file of job id, rel as webapp run writes it
// (METHOD/FILE for a method's files).
func (s *testServer) result(id, rel string) []byte {
	s.t.Helper()
	path := "/api/jobs/" + id + "/" + rel
	if method, file, ok := strings.Cut(rel, "/"); ok {
		path = "/api/jobs/" + id + "/" + file + "?method=" + method
	}
	resp, b := s.do("GET", path, "", nil)
	if resp.StatusCode != http.StatusOK {
		s.t.Fatalf("GET %s: %d %s", path, resp.StatusCode, b)
	}
	return b
}

// runCLI runs webapp run in this process with args.
func runCLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := runcli.Run(context.Background(), args, runEnv(env{getenv: func(string) string { return "" }, stdout: &out, stderr: io.Discard, version: testVersion}, false))
	return out.String(), err
}

// resultFiles lists the files under dir, with slashes.
func resultFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	return files
}

// comparable is a result file with what differs between two runs of the
// same request set aside: times (fit_seconds, eval_seconds, created_at)
// and ids (each of same replaced by its key).
func comparable(t *testing.T, rel string, b []byte, same map[string]string) string {
	t.Helper()
	s := string(b)
	for id, key := range same {
		s = strings.ReplaceAll(s, id, key)
	}
	if !strings.HasSuffix(rel, ".json") {
		return s
	}
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	var strip func(any)
	strip = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for _, k := range []string{"fit_seconds", "eval_seconds", "created_at"} {
				delete(v, k)
			}
			for _, x := range v {
				strip(x)
			}
		case []any:
			for _, x := range v {
				strip(x)
			}
		}
	}
	strip(v)
	out, _ := json.Marshal(v)
	return string(out)
}

// webapp run writes, for a job and for a study, the files the server's
// job offers, each the same as the server's (times and ids aside); and
// the server's experiment.json, run with --data, gives its metrics.json
// (times aside), ids and all.
func TestRunMatchesServer(t *testing.T) {
	arff, xml := sharedDataset(t, "emotions/emotions.arff"), sharedDataset(t, "emotions/emotions.xml")
	train, test := sharedDataset(t, "emotions/emotions-train.csv"), sharedDataset(t, "emotions/emotions-test.csv")
	s := startServer(t)
	emotions := s.upload(arff, map[string]string{"xml": xml})
	one := s.upload(train, map[string]string{"label_count": "-6"})
	two := s.upload(test, map[string]string{"label_count": "-6"})
	tests := []struct {
		name    string
		request string
		// data are the spec's data sets, by the names the request gives,
		// with the server's ids.
		data  map[string]string
		ids   map[string]string
		files []string
	}{
		{"job", `{"dataset": "emotions", "methods": ["pca", "mddmp"], "params": {"d": 4}, "evaluate": {"classifier": "mlknn", "dims": [2, 4]}}`,
			map[string]string{"emotions": `{"file": "` + arff + `", "xml": "` + xml + `"}`},
			map[string]string{"emotions": emotions},
			[]string{"experiment.json", "label_results.csv", "mddmp/eigenvalues.json", "mddmp/model.json", "mddmp/projected.csv", "mddmp/projection.csv",
				"mddmp/projection.json", "mddmp/projection.npy", "metrics.json", "pca/eigenvalues.json", "pca/model.json", "pca/projected.csv",
				"pca/projection.csv", "pca/projection.json", "pca/projection.npy"}},
		{"study", `{"datasets": ["emotions-train", "emotions-test"], "methods": ["pca"], "params": {"d": 4}, "split": {"kind": "kfold", "folds": 3}, "evaluate": {"classifier": "ridge"}}`,
			map[string]string{"emotions-train": `{"file": "` + train + `", "options": {"label_count": -6}}`, "emotions-test": `{"file": "` + test + `", "options": {"label_count": -6}}`},
			map[string]string{"emotions-train": one, "emotions-test": two},
			[]string{"comparison-standalone.tex", "comparison.csv", "comparison.json", "comparison.md", "comparison.tex", "experiment.json", "metrics.json"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// The server's job: the request with the server's ids.
			req := tc.request
			for name, id := range tc.ids {
				req = strings.ReplaceAll(req, `"`+name+`"`, `"`+id+`"`)
			}
			job := s.job([]byte(req))
			// webapp run: the same request, the data named by files.
			var data []string
			for name, d := range tc.data {
				data = append(data, fmt.Sprintf("%q: %s", name, d))
			}
			dir := t.TempDir()
			spec := filepath.Join(dir, "spec.json")
			os.WriteFile(spec, []byte(`{"request": `+tc.request+`, "data": {`+strings.Join(data, ", ")+`}}`), 0o644)
			out := filepath.Join(dir, "out")
			if log, err := runCLI(t, spec, "-out", out); err != nil {
				t.Fatalf("webapp run: %v\n%s", err, log)
			}
			files := resultFiles(t, out)
			if !slices.Equal(files, tc.files) {
				t.Fatalf("webapp run wrote %v, want %v", files, tc.files)
			}
			var cli jobs.Experiment
			if err := json.Unmarshal(readFile(t, filepath.Join(out, "experiment.json")), &cli); err != nil {
				t.Fatal(err)
			}
			same := map[string]string{job: "JOB", cli.Job: "JOB"}
			for name, id := range tc.ids {
				same[id], same[store.NameID(name)] = "DATA-"+name, "DATA-"+name
			}
			for _, rel := range files {
				want := comparable(t, rel, s.result(job, rel), same)
				got := comparable(t, rel, readFile(t, filepath.Join(out, filepath.FromSlash(rel))), same)
				// The tables' \label names the study by its id's first 8
				// characters, left once the whole ids are replaced.
				want, got = strings.ReplaceAll(want, job[:8], "JOB8"), strings.ReplaceAll(got, cli.Job[:8], "JOB8")
				if got != want {
					t.Errorf("%s differs from the server's:\n got %.600s\nwant %.600s", rel, got, want)
				}
			}

			// The server's experiment.json runs again with --data and gives
			// its metrics.json exactly, times aside.
			exp := filepath.Join(dir, "experiment.json")
			os.WriteFile(exp, s.result(job, "experiment.json"), 0o644)
			args := []string{exp, "-out", filepath.Join(dir, "again")}
			for name := range tc.ids {
				var d runcli.Data
				json.Unmarshal([]byte(tc.data[name]), &d)
				args = append(args, "--data", name+"="+d.File) // by the data set's name
			}
			if log, err := runCLI(t, args...); err != nil {
				t.Fatalf("webapp run experiment.json: %v\n%s", err, log)
			}
			want := comparable(t, "metrics.json", s.result(job, "metrics.json"), nil)
			got := comparable(t, "metrics.json", readFile(t, filepath.Join(dir, "again", "metrics.json")), nil)
			if got != want {
				t.Errorf("metrics.json of experiment.json run again:\n got %.600s\nwant %.600s", got, want)
			}
		})
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The binary dispatches "run" before the server's flags and exits 1 with
// a sentence on standard error when a run fails; -version prints the
// version and exits 0.
func TestMainCommands(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"request": {"dataset": "s", "method": "pca"}, "data": {"s": {"file": "missing.csv"}}}`), 0o644)
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"version", []string{"-version"}, 0, version() + "\n", ""},
		{"run help", []string{"run", "-help"}, 0, "Usage: webapp run", ""},
		{"run a missing file", []string{"run", bad}, 1, "", "webapp run: data set s: reading the data file: open " + filepath.Join(dir, "missing.csv")},
		{"run without a spec", []string{"run"}, 1, "", "webapp run: give the spec"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], tc.args...)
			cmd.Env = append(os.Environ(), envRunMain+"=1")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.code || !strings.HasPrefix(stdout.String(), tc.stdout) || !strings.HasPrefix(stderr.String(), tc.stderr) {
				t.Errorf("webapp %s: got exit %d, stdout %.200q, stderr %.300q; want %d, %q…, %q…", strings.Join(tc.args, " "), code, stdout.String(), stderr.String(), tc.code, tc.stdout, tc.stderr)
			}
		})
	}
}

// -version prints the version run is given.
func TestVersionFlag(t *testing.T) {
	var out bytes.Buffer
	e := testEnv(io.Discard)
	e.stdout = &out
	if err := run(context.Background(), []string{"-version"}, e, nil); err != nil || out.String() != testVersion+"\n" {
		t.Errorf("run -version: got %q, %v; want %q", out.String(), err, testVersion+"\n")
	}
}
