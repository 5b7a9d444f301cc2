package runcli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"mldr/internal/demo"
	"mldr/internal/jobs"
	"mldr/internal/store"
)

// fixture is a folder with the demo data sets' CSV files, as a user's
// files on disk.
type fixture struct {
	dir    string
	ml, md string // the multi-label and multi-dimensional files
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	f := fixture{dir: t.TempDir()}
	for _, kind := range []string{"multilabel", "multidim"} {
		set, err := demo.Make(kind, demo.Seed)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(f.dir, kind+".csv")
		if err := os.WriteFile(p, set.CSV, 0o644); err != nil {
			t.Fatal(err)
		}
		if kind == "multilabel" {
			f.ml = p
		} else {
			f.md = p
		}
	}
	return f
}

// writeSpec writes a spec into the fixture's folder and returns its path.
func (f fixture) writeSpec(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(f.dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// run runs webapp run with args, its output not a terminal.
func run(ctx context.Context, args ...string) (stdout string, err error) {
	var out bytes.Buffer
	err = Run(ctx, args, Env{Stdout: &out, Version: "test-version", Now: func() time.Time { return time.Unix(0, 0) }})
	return out.String(), err
}

// A job spec and a study spec each write the result files the pages
// offer, with a line per phase when the output is not a terminal.
func TestRunWritesResults(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		name, spec string
		files      []string
		phases     []string
	}{
		{"job", `{"request": {"dataset": "scenes", "methods": ["pca", "plst"], "params": {"d": 2}, "evaluate": {"classifier": "ridge"}},
			"data": {"scenes": {"file": "multilabel.csv"}}}`,
			[]string{"experiment.json", "label_results.csv", "metrics.json", "pca/eigenvalues.json", "pca/model.json", "pca/projected.csv",
				"pca/projection.csv", "pca/projection.json", "pca/projection.npy", "plst/eigenvalues.json", "plst/model.json", "plst/projected.csv",
				"plst/projection.csv", "plst/projection.json", "plst/projection.npy"},
			[]string{"read scenes", "check", "load", "fit pca", "write pca", "fit plst", "write plst", "evaluate", "write"}},
		{"study", `{"name": "a-study", "request": {"datasets": ["one", "two"], "methods": ["pca"], "params": {"d": 2},
			"split": {"kind": "kfold", "folds": 3}, "evaluate": {"classifier": "ridge"}},
			"data": {"one": {"file": "multilabel.csv"}, "two": {"file": "multilabel.csv", "options": {"drop": ["noise01"]}}}}`,
			[]string{"comparison-standalone.tex", "comparison.csv", "comparison.json", "comparison.md", "comparison.tex", "experiment.json", "metrics.json"},
			[]string{"read one", "read two", "check", "load", "load 1 of 2 (one)", "evaluate 1 of 2 (one)", "load 2 of 2 (two)", "evaluate 2 of 2 (two)", "evaluate", "write"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec := f.writeSpec(t, tc.name+".json", tc.spec)
			out := filepath.Join(t.TempDir(), "out")
			stdout, err := run(context.Background(), spec, "-out", out)
			if err != nil {
				t.Fatalf("run: %v\n%s", err, stdout)
			}
			var got []string
			filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					rel, _ := filepath.Rel(out, p)
					got = append(got, filepath.ToSlash(rel))
				}
				return nil
			})
			slices.Sort(got)
			if !slices.Equal(got, tc.files) {
				t.Errorf("files: got %v, want %v", got, tc.files)
			}
			var labels []string
			for _, line := range strings.Split(stdout, "\n") {
				line = strings.TrimSpace(line[min(len(line), strings.Index(line, "]")+1):])
				if label, _, _ := strings.Cut(line, ":"); label != "" && label != "note" && label != "done" {
					labels = append(labels, label)
				}
			}
			if !slices.Equal(labels, tc.phases) {
				t.Errorf("progress lines: got phases %q, want %q\n%s", labels, tc.phases, stdout)
			}
			var m jobs.MetricsFile
			readJSON(t, filepath.Join(out, "metrics.json"), &m)
			var e jobs.Experiment
			readJSON(t, filepath.Join(out, "experiment.json"), &e)
			if m.Version != "test-version" || e.SoftwareVersion != "test-version" || len(m.Rows) == 0 {
				t.Errorf("got metrics.json version %q with %d rows, experiment.json version %q; want test-version", m.Version, len(m.Rows), e.SoftwareVersion)
			}
		})
	}
}

// The output folder defaults to the spec's name with -results, in the
// working folder.
func TestRunDefaultOut(t *testing.T) {
	f := newFixture(t)
	spec := f.writeSpec(t, "pca-only.json", `{"request": {"dataset": "s", "method": "pca", "params": {"d": 2}}, "data": {"s": {"file": "multilabel.csv"}}}`)
	t.Chdir(t.TempDir())
	if out, err := run(context.Background(), spec); err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join("pca-only-results", "pca", "model.json")); err != nil {
		t.Errorf("pca-only-results/pca/model.json: %v", err)
	}
	if _, err := run(context.Background(), spec); err == nil || !strings.Contains(err.Error(), "already holds files") {
		t.Errorf("a second run into the same folder: got %v, want a refusal saying it holds files", err)
	}
}

// A run's experiment.json runs again with --data, giving the same
// metrics.json (times aside), and refuses a file whose SHA-256 differs,
// naming the data set and both hashes.
func TestRunExperimentAgain(t *testing.T) {
	f := newFixture(t)
	spec := f.writeSpec(t, "job.json", `{"request": {"dataset": "scenes", "method": "pca", "params": {"d": 2}, "split": {"kind": "holdout", "seed": 3}, "evaluate": {"classifier": "ridge"}},
		"data": {"scenes": {"file": "multilabel.csv"}}}`)
	first := filepath.Join(t.TempDir(), "first")
	if out, err := run(context.Background(), spec, "-out", first); err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	exp := filepath.Join(first, "experiment.json")
	again := filepath.Join(t.TempDir(), "again")
	if out, err := run(context.Background(), exp, "--data", "scenes="+f.ml, "-out", again); err != nil {
		t.Fatalf("run experiment.json: %v\n%s", err, out)
	}
	want, got := metricsWithoutTimes(t, filepath.Join(first, "metrics.json")), metricsWithoutTimes(t, filepath.Join(again, "metrics.json"))
	if want != got {
		t.Errorf("metrics.json again:\n got %s\nwant %s", got, want)
	}
	var e jobs.Experiment
	readJSON(t, exp, &e)
	var expected string
	for _, d := range e.Data {
		expected = d.SHA256
	}
	_, err := run(context.Background(), exp, "--data", "scenes="+f.md, "-out", filepath.Join(t.TempDir(), "other"))
	if err == nil || !strings.Contains(err.Error(), "data set scenes") || !strings.Contains(err.Error(), expected) || !strings.Contains(err.Error(), "has SHA-256 ") {
		t.Errorf("another file: got %v, want a refusal naming data set scenes, the expected SHA-256 %s and the actual one", err, expected)
	}
	if _, err := run(context.Background(), exp, "-out", filepath.Join(t.TempDir(), "none")); err == nil || !strings.Contains(err.Error(), "--data") {
		t.Errorf("no file for the data set: got %v, want a sentence asking for --data", err)
	}
}

// metricsWithoutTimes is metrics.json without its times, as JSON.
func metricsWithoutTimes(t *testing.T, path string) string {
	t.Helper()
	var m jobs.MetricsFile
	readJSON(t, path, &m)
	for i := range m.Rows {
		m.Rows[i].FitSeconds, m.Rows[i].EvalSeconds = 0, 0
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// A bad spec, file or flag ends the run with a sentence naming what
// failed and where, and writes nothing.
func TestRunRefusals(t *testing.T) {
	f := newFixture(t)
	data := `"data": {"s": {"file": "multilabel.csv"}}`
	tests := []struct {
		name, spec string
		args       []string
		says       []string
	}{
		{"unknown method", `{"request": {"dataset": "s", "method": "nope"}, ` + data + `}`, nil, []string{"bad.json: request.method: unknown method \"nope\""}},
		{"missing file", `{"request": {"dataset": "s", "method": "pca"}, "data": {"s": {"file": "gone.csv"}}}`, nil, []string{"data set s", "gone.csv", "no such file"}},
		{"malformed JSON", "{\"request\": {\"dataset\": \"s\",\n \"method\": \"pca\"}\n " + data + `}`, nil, []string{"bad.json: line 3, column 2", "not valid JSON"}},
		{"unknown field", `{"request": {"dataset": "s", "method": "pca"}, "datas": {}}`, nil, []string{"bad.json", "unknown field \"datas\""}},
		{"wrong type", `{"request": {"dataset": "s", "method": "pca", "params": {"d": "two"}}, ` + data + `}`, nil, []string{"bad.json: line 1", "request.params.d", "must be int"}},
		{"a key twice", "{\"request\": {\"dataset\": \"s\", \"method\": \"pca\",\n \"Method\": \"mddmp\"}, " + data + "}", nil,
			[]string{"bad.json: line 2, column 2: the key \"request.method\" appears twice in the spec, as \"method\" and \"Method\""}},
		{"no request", `{` + data + `}`, nil, []string{"bad.json: the spec has no request"}},
		{"unnamed data set", `{"request": {"dataset": "t", "method": "pca"}, ` + data + `}`, nil, []string{"data set \"t\"", "spec's data (it names s)"}},
		{"a file the loader refuses", `{"request": {"dataset": "s", "method": "pca"}, "data": {"s": {"file": "multilabel.csv", "options": {"labels": ["nope"]}}}}`, nil,
			[]string{"data set s: reading", "multilabel.csv", "nope"}},
		{"d above the rank", `{"request": {"dataset": "s", "method": "plst", "params": {"d": 99}}, ` + data + `}`, nil, []string{"bad.json: request.params.d"}},
		{"unknown --data name", `{"request": {"dataset": "s", "method": "pca"}, ` + data + `}`, []string{"--data", "x=y.csv"}, []string{"--data x=y.csv", "no data set x"}},
		{"bad flag", `{"request": {"dataset": "s", "method": "pca"}, ` + data + `}`, []string{"-nope"}, []string{"-nope", "webapp run -help"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec := f.writeSpec(t, "bad.json", tc.spec)
			out := filepath.Join(t.TempDir(), "out")
			_, err := run(context.Background(), append([]string{spec, "-out", out}, tc.args...)...)
			if err == nil {
				t.Fatal("got no error")
			}
			for _, s := range tc.says {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("got %q, want it to say %q", err, s)
				}
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s was written", out)
			}
		})
	}
}

// Ctrl-C (the context's end) stops a run, which writes nothing.
func TestRunInterrupted(t *testing.T) {
	f := newFixture(t)
	spec := f.writeSpec(t, "job.json", `{"request": {"dataset": "s", "method": "pca", "params": {"d": 2}}, "data": {"s": {"file": "multilabel.csv"}}}`)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := filepath.Join(t.TempDir(), "out")
	if _, err := run(ctx, spec, "-out", out); err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Errorf("got %v, want an error saying the run was interrupted", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%s was written", out)
	}
	if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}

// -help documents the spec and every flag, on standard output.
func TestRunHelp(t *testing.T) {
	out, err := run(context.Background(), "-help")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"SPEC.json", `"request"`, `"data"`, "-out", "-data ", "-folds", "-data-dir", "-max-job-memory", "-max-cells", "-max-pairwise-rows", "experiment.json"} {
		if !strings.Contains(out, s) {
			t.Errorf("-help does not say %q", s)
		}
	}
}

// On a terminal progress is a bar per phase, drawn in place.
func TestRunProgressBars(t *testing.T) {
	var b bytes.Buffer
	p := &progress{w: &b, bar: true, now: time.Now}
	p.report(0.05, "fitting pca", "")
	p.report(0.2, "pca: eigen-decomposition", "")
	p.report(0.5, "evaluating", "ridge")
	p.done()
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "fit pca") || !strings.Contains(lines[1], "evaluate") || !strings.Contains(lines[1], "50%") || !strings.Contains(b.String(), "\r") {
		t.Errorf("got %q, want two bars, fit pca and evaluate at 50%%, redrawn with \\r", b.String())
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// With -data-dir the request may name a server's data sets by id, read
// where they are; a spec entry without a file (experiment.json's) is
// taken from there, its SHA-256 checked against the record's; a data
// directory a server holds is refused, saying so.
func TestRunDataDir(t *testing.T) {
	f := newFixture(t)
	dir := t.TempDir()
	st, err := store.Open(store.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(f.ml)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := st.Import(context.Background(), store.Upload{FileName: "scenes.csv", Source: bytes.NewReader(b)})
	if err != nil {
		t.Fatal(err)
	}
	byID := f.writeSpec(t, "by-id.json", `{"request": {"dataset": "`+rec.ID+`", "method": "pca", "params": {"d": 2}}}`)
	if _, err := run(context.Background(), byID, "-data-dir", dir, "-out", filepath.Join(t.TempDir(), "held")); err == nil || !strings.Contains(err.Error(), "in use by a running server") {
		t.Errorf("a data directory a server holds: got %v, want a sentence saying a server holds it", err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	if log, err := run(context.Background(), byID, "-data-dir", dir, "-out", out); err != nil {
		t.Fatalf("run by id: %v\n%s", err, log)
	}
	var e jobs.Experiment
	readJSON(t, filepath.Join(out, "experiment.json"), &e)
	if d := e.Data[rec.ID]; d.SHA256 != rec.SHA256 || e.Request.Dataset != rec.ID {
		t.Errorf("experiment.json: got %+v, want data set %s with SHA-256 %s", e, rec.ID, rec.SHA256)
	}
	wrong := f.writeSpec(t, "wrong.json", `{"request": {"dataset": "`+rec.ID+`", "method": "pca", "params": {"d": 2}},
		"data": {"`+rec.ID+`": {"name": "scenes", "sha256": "00"}}}`)
	if _, err := run(context.Background(), wrong, "-data-dir", dir, "-out", filepath.Join(t.TempDir(), "wrong")); err == nil ||
		!strings.Contains(err.Error(), "data set scenes ("+rec.ID+")") || !strings.Contains(err.Error(), rec.SHA256) || !strings.Contains(err.Error(), "expects 00") {
		t.Errorf("another SHA-256: got %v, want a refusal naming the data set and both hashes", err)
	}
}

// A data set with predefined folds runs again from experiment.json only
// with its folds file: without one, or with another (its SHA-256), it is
// refused.
func TestRunFolds(t *testing.T) {
	f := newFixture(t)
	folds := func(name string, shift int) string {
		var b strings.Builder
		b.WriteString("fold,split,row\n")
		for fold := range 3 {
			for r := 1; r <= 400; r++ {
				part := "train"
				if (r+shift)%3 == fold {
					part = "test"
				}
				fmt.Fprintf(&b, "%d,%s,%d\n", fold+1, part, r)
			}
		}
		p := filepath.Join(f.dir, name)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	mine, other := folds("folds.csv", 0), folds("other-folds.csv", 1)
	spec := f.writeSpec(t, "folds.json", `{"request": {"dataset": "parts", "method": "pca", "params": {"d": 2}, "split": {"kind": "predefined"}, "evaluate": {"classifier": "mlknn"}},
		"data": {"parts": {"file": "multidim.csv", "folds_file": "folds.csv"}}}`)
	first := filepath.Join(t.TempDir(), "first")
	if log, err := run(context.Background(), spec, "-out", first); err != nil {
		t.Fatalf("run: %v\n%s", err, log)
	}
	exp := filepath.Join(first, "experiment.json")
	var e jobs.Experiment
	readJSON(t, exp, &e)
	tests := []struct {
		name string
		args []string
		says []string // nil: it runs, giving the same metrics.json
	}{
		{"its folds", []string{"--data", "parts=" + f.md, "--folds", "parts=" + mine}, nil},
		{"no folds", []string{"--data", "parts=" + f.md}, []string{"data set parts", "carried 3 predefined folds", "--folds parts=FILE"}},
		{"other folds", []string{"--data", "parts=" + f.md, "--folds", "parts=" + other}, []string{"data set parts", "the folds file " + other, "expects"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			log, err := run(context.Background(), append([]string{exp, "-out", out}, tc.args...)...)
			if tc.says == nil {
				if err != nil {
					t.Fatalf("run: %v\n%s", err, log)
				}
				if got, want := metricsWithoutTimes(t, filepath.Join(out, "metrics.json")), metricsWithoutTimes(t, filepath.Join(first, "metrics.json")); got != want {
					t.Errorf("metrics.json:\n got %s\nwant %s", got, want)
				}
				return
			}
			if err == nil {
				t.Fatal("got no error")
			}
			for _, s := range tc.says {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("got %q, want it to say %q", err, s)
				}
			}
		})
	}
	for _, d := range e.Data {
		if d.Folds != 3 || d.FoldsSHA256 == "" {
			t.Errorf("experiment.json's data: got %d folds, folds_sha256 %q; want 3 and the file's SHA-256", d.Folds, d.FoldsSHA256)
		}
	}
}

// A spec may leave its data out: --data names the file of a data set the
// request names, flags before or after the spec.
func TestRunDataFromFlags(t *testing.T) {
	f := newFixture(t)
	spec := f.writeSpec(t, "bare.json", `{"request": {"dataset": "s", "method": "pca", "params": {"d": 2}}}`)
	out := filepath.Join(t.TempDir(), "new", "out") // its parent made too
	if log, err := run(context.Background(), "-out", out, spec, "--data", "s="+f.ml); err != nil {
		t.Fatalf("run: %v\n%s", err, log)
	}
	var m jobs.Manifest
	readJSON(t, filepath.Join(out, "pca", "model.json"), &m)
	if m.Dataset.Name != "s" || m.Dataset.ID != store.NameID("s") || m.Version != "test-version" {
		t.Errorf("model.json: got data set %+v, version %q; want s as %s, test-version", m.Dataset, m.Version, store.NameID("s"))
	}
}
