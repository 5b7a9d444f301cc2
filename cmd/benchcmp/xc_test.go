package main

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mldr/cmd/benchcmp/xcdata"
)

// TestBenchXC runs the XC rows with the real webapp on delicious at a
// small scale (258 rows, 500 features, 983 labels): the files generated,
// the training file uploaded and stored sparse, a job of each method at d
// = 100, and one of a method the webapp does not know, which is refused
// with its message while the others run. Then, with the webapp's uploads
// capped below the file's size, the refused upload, and no job. Skipped
// with -short (it builds the webapp).
func TestBenchXC(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the webapp")
	}
	dir := t.TempDir()
	bin, err := buildWebapp(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg := config{reps: 1, cacheDir: filepath.Join(dir, "cache"), seed: 1, scale: 0.02, xcSet: "delicious", webapp: bin}
	var cases []benchCase
	for _, m := range []string{"pca", "nosuch", "mddmp", "plst", "cplst", xcEvalWork} {
		cases = append(cases, benchCase{work: m, size: dataSize{name: xcSize}, kind: kindXC})
	}
	var log bytes.Buffer
	rows, up, err := benchXC(t.Context(), cfg, cases, &log)
	if err != nil {
		t.Fatalf("%v\nlog:\n%s", err, log.String())
	}
	if up.err != nil || up.up.Rows != 258 || up.up.Features != 500 || up.up.LabelCount != 983 || up.up.Storage != "sparse" || up.up.LabelStorage != "sparse" {
		t.Fatalf("upload: got %+v, %v; want 258×500, q = 983, features and labels sparse", up.up, up.err)
	}
	if up.took <= 0 || up.stored <= 0 || up.peakKiB <= 0 || up.genSeconds <= 0 || up.bytes <= 0 {
		t.Errorf("upload: got %+v, want its time, what it stored, a peak, the generation's time and the file's size", up)
	}
	if len(rows) != len(cases) {
		t.Fatalf("got %d rows, want %d", len(rows), len(cases))
	}
	for i, r := range rows {
		if r.work != cases[i].work || r.kind != kindXC {
			t.Errorf("row %d: got %s, kind %d; want %s, xc", i, r.work, r.kind, cases[i].work)
			continue
		}
		if r.work == "nosuch" {
			var ae *answerError
			if !errors.As(r.goSide.err, &ae) || ae.status != 400 || !strings.HasPrefix(xcOutcome(r.goSide.err), "refused (400): ") {
				t.Errorf("nosuch: got %v (%q), want a refusal with 400 and the server's message", r.goSide.err, xcOutcome(r.goSide.err))
			}
			continue
		}
		if r.goSide.err != nil || len(r.goSide.res.Times) != 1 || r.goSide.peakKiB <= 0 || math.IsNaN(phaseSeconds(r.phases, "fit")) {
			t.Errorf("%s: got %v, times %v, peak %d KiB, phases %v; want a time, a peak and a fit phase",
				r.work, r.goSide.err, r.goSide.res.Times, r.goSide.peakKiB, r.phases)
		}
		if ev := phaseSeconds(r.phases, "evaluate"); (r.work == xcEvalWork) == math.IsNaN(ev) {
			t.Errorf("%s: evaluate phase %v s; want one only in the %s job", r.work, ev, xcEvalWork)
		}
	}
	var b strings.Builder
	if err := writeReport(&b, header{seed: 1, xc: &up}, rows); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| delicious ×0.02: 258 + 64 × 500 × 983 |", "| plst | 100 |", "| all+eval | 100 |", "| nosuch | 100 | — | — | — | — | refused (400): "} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, b.String())
		}
	}
	if p := problems(rows, header{}); len(p) != 0 {
		t.Errorf("problems: got %q, want none (the XC rows report their refusals in their table)", p)
	}

	t.Setenv("MLDR_MAX_UPLOAD", "10KiB")
	log.Reset()
	rows, up, err = benchXC(t.Context(), cfg, cases[:1], &log)
	if err != nil {
		t.Fatalf("%v\nlog:\n%s", err, log.String())
	}
	if up.genSeconds != 0 || !strings.HasPrefix(xcOutcome(up.err), "refused (413): ") {
		t.Errorf("capped upload: got generated in %g s, %q; want the cached files and a refusal with 413", up.genSeconds, xcOutcome(up.err))
	}
	if len(rows) != 1 || !errors.Is(rows[0].goSide.err, errNoUpload) {
		t.Errorf("capped upload: got rows %+v, want pca not run", rows)
	}
	if left, _ := filepath.Glob(filepath.Join(cfg.cacheDir, "xc-webapp-*")); len(left) != 0 {
		t.Errorf("left behind: %v, want the webapp's directory removed", left)
	}
	train, test, _, err := xcFiles(cfg.cacheDir, xcdata.Shape{Name: "delicious", Train: 258}, 1, &log)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{train, test} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("the cached file: %v", err)
		}
	}
}

// TestWriteXCTable checks the XC rows' tables: the upload with how it was
// stored, each job's time, fit, phases and peak, and a refused and a failed
// job with the server's message.
func TestWriteXCTable(t *testing.T) {
	up := xcUpload{shape: xcdata.Shape{Name: "eurlex-4k", Train: 15539, Test: 3809, Features: 5000, Labels: 3993, LabelsPerRow: 5.3, FeaturesPerRow: 236},
		scale: 1, bytes: 52e6, genSeconds: 2.5, took: 4, stored: 80e6, peakKiB: 900 * 1024, jobMemory: "6GiB",
		up: uploadedSet{Rows: 15539, Features: 5000, LabelCount: 3993, Storage: "sparse", LabelStorage: "sparse", NonZeros: 3_668_000, LabelOnes: 82_350}}
	rows := []row{
		{work: "pca", kind: kindXC, phases: []phaseTime{{"load", 0.5}, {"fit", 12}},
			goSide: outcome{res: childResult{Times: []float64{14}}, peakKiB: 1500 * 1024}},
		{work: "plst", kind: kindXC, goSide: outcome{err: &answerError{what: "submitting the job {}", status: 413, want: 202,
			msg: "plst would need about 9.1 GiB | more than the 6 GiB"}}},
		{work: "cplst", kind: kindXC, goSide: outcome{err: errors.New("job j4 failed: the job needed more than 6 GiB"), peakKiB: 6000 * 1024}},
	}
	var b strings.Builder
	writeXCTable(&b, up, rows)
	got := b.String()
	for _, want := range []string{
		"## Extreme label spaces: the XC rows\n",
		"Job memory limit: MLDR_MAX_JOB_MEMORY=6GiB.",
		"| eurlex-4k ×1: 15539 + 3809 × 5000 × 3993 | 52 | 2.50 | 4.00 | 13 | features sparse (3.67 M non-zeros), labels sparse (82.3 k ones) | 80 | 900 | stored |\n",
		"| pca | 100 | 14.0 | 12.0 | load 0.500, fit 12.0 | 1500 | succeeded |\n",
		"| plst | 100 | — | — | — | — | refused (413): plst would need about 9.1 GiB \\| more than the 6 GiB |\n",
		"| cplst | 100 | failed | failed | failed | 6000 | job j4 failed: the job needed more than 6 GiB |\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the table lacks %q; got:\n%s", want, got)
		}
	}
	up.err, up.jobMemory = &answerError{what: "uploading f", status: 413, want: 201, msg: "the file is larger than 1 GiB"}, ""
	b.Reset()
	writeXCTable(&b, up, nil)
	for _, want := range []string{"Job memory limit: the webapp's default", "| — | — | — | — | 900 | refused (413): the file is larger than 1 GiB |\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("a refused upload: the table lacks %q; got:\n%s", want, b.String())
		}
	}
}
