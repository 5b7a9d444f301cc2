package main

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"mldr/cmd/benchcmp/xcdata"
)

// TestBenchXC runs the XC rows with the real webapp on delicious at a
// small scale (258 rows, 500 features, 983 labels): the files generated,
// the training and test files uploaded and stored sparse, a job of each
// method at d = 100, the two evaluated jobs, pca's Python references
// (xc_ref.py) with its eigenvalues against scipy's svds, and a job of a
// method the webapp does not know, which is refused with its message
// while the others run. Then, with the webapp's uploads capped below the
// file's size, the refused upload, and no job. Skipped with -short (it
// builds the webapp).
func TestBenchXC(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the webapp")
	}
	dir := t.TempDir()
	bin, err := buildWebapp(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	requireSklearn(t)
	cfg := config{reps: 1, cacheDir: filepath.Join(dir, "cache"), seed: 1, scale: 0.02, xcSet: "delicious", webapp: bin, python: debianPython, script: refScript}
	var cases []benchCase
	for _, m := range []string{"pca", "nosuch", "mddmp", "plst", "cplst", xcEvalWork, xcTestWork} {
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
		if ev := phaseSeconds(r.phases, "evaluate"); (r.work == xcEvalWork || r.work == xcTestWork) == math.IsNaN(ev) {
			t.Errorf("%s: evaluate phase %v s; want one only in the %s and %s jobs", r.work, ev, xcEvalWork, xcTestWork)
		}
		if evaluated := r.work == xcEvalWork || r.work == xcTestWork; evaluated != (r.xcEval != nil) {
			t.Errorf("%s: metrics read %v; want them for the evaluated jobs only", r.work, r.xcEval != nil)
		} else if evaluated && (len(r.xcEval.rows) == 0 || r.xcEval.rows[0].metrics["precision_at_1"] <= 0) {
			t.Errorf("%s: mean rows %+v, want P@1 for each method", r.work, r.xcEval.rows)
		}
		if r.work == xcTestWork && r.xcEval != nil && !slices.ContainsFunc(r.xcEval.notes, func(n string) bool { return strings.Contains(n, "not fitted a second time") }) {
			t.Errorf("test+eval: notes %q; want the result models' reuse said", r.xcEval.notes)
		}
		if r.work != xcRefWork {
			if !r.np.skipped || !r.sp.skipped {
				t.Errorf("%s: the Python references ran; want them for %s only", r.work, xcRefWork)
			}
			continue
		}
		// pca's eigenvalues against scipy's svds on the same operator (to
		// machine precision), and the randomized range finder's near them.
		for _, o := range []outcome{r.np, r.sp} {
			if o.err != nil || len(o.res.Times) != 1 || len(o.res.Eig) != xcD {
				t.Fatalf("pca's reference: %v, times %v, %d eigenvalues; want a time and %d", o.err, o.res.Times, len(o.res.Eig), xcD)
			}
		}
		if rel, err := agreement(r.goSide.res.Eig, r.sp.res.Eig); err != nil || rel > 1e-8 {
			t.Errorf("pca's eigenvalues against svds's: %v, %v; want within 1e-8", rel, err)
		}
		if rel, err := agreement(r.np.res.Eig, r.sp.res.Eig); err != nil || rel > 0.5 {
			t.Errorf("the randomized eigenvalues against svds's: %v, %v", rel, err)
		}
	}
	var b strings.Builder
	if err := writeReport(&b, header{seed: 1, xc: &up}, rows); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| delicious ×0.02: 258 + 64 × 500 × 983 |", "| its test file, 64 rows |", "| plst | 100 |", "| all+eval | 100 |", "| test+eval | 100 |",
		"| nosuch | 100 | — | — | — | — | refused (400): "} {
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

// TestWriteXCTable checks the XC rows' tables: the uploads with how they
// were stored, each job's time, fit, phases and peak, pca's comparison
// with the Python references, and a refused and a failed job with the
// server's message.
func TestWriteXCTable(t *testing.T) {
	up := xcUpload{shape: xcdata.Shape{Name: "eurlex-4k", Train: 15539, Test: 3809, Features: 5000, Labels: 3993, LabelsPerRow: 5.3, FeaturesPerRow: 236},
		scale: 1, bytes: 52e6, genSeconds: 2.5, took: 4, stored: 80e6, peakKiB: 900 * 1024, jobMemory: "6GiB",
		up:       uploadedSet{Rows: 15539, Features: 5000, LabelCount: 3993, Storage: "sparse", LabelStorage: "sparse", NonZeros: 3_668_000, LabelOnes: 82_350},
		testFile: "test.txt", testTook: 0.5,
		testUp: uploadedSet{Rows: 3809, Features: 5000, LabelCount: 3993, Storage: "sparse", LabelStorage: "sparse", NonZeros: 903_000, LabelOnes: 20_400}}
	rows := []row{
		{work: "pca", kind: kindXC, phases: []phaseTime{{"load", 0.5}, {"fit", 12}},
			goSide: outcome{res: childResult{Times: []float64{14}, Eig: []float64{4, 2}}, peakKiB: 1500 * 1024},
			np:     outcome{res: childResult{Times: []float64{20}, Eig: []float64{4, 1.9}}},
			sp:     outcome{res: childResult{Times: []float64{30}, Eig: []float64{4, 2.0000000002}}}},
		{work: "mddmp", kind: kindXC, phases: []phaseTime{{"fit", 9}}, goSide: outcome{res: childResult{Times: []float64{10}}},
			np: outcome{skipped: true}, sp: outcome{skipped: true}},
		{work: xcTestWork, kind: kindXC, phases: []phaseTime{{"fit", 9}, {"evaluate", 3}}, goSide: outcome{res: childResult{Times: []float64{13}}},
			np: outcome{skipped: true}, sp: outcome{skipped: true},
			xcEval: &xcEvalResult{rows: []xcMetricRow{{method: "pca", metrics: map[string]float64{"precision_at_1": 0.98765, "psprecision_at_5": 0.3}}},
				notes: []string{"pca: the k-NN vote searched its 10 nearest neighbours approximately"}}},
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
		"| its test file, 3809 rows | — | — | 0.500 | — | features sparse (903 k non-zeros), labels sparse (20.4 k ones) | — | — | stored |\n",
		// pca's fit against the faster reference (12 s ÷ 20 s), its
		// eigenvalues and the randomized ones against svds's.
		"| pca | 100 | 14.0 | 12.0 | load 0.500, fit 12.0 | 1500 | succeeded | 20.0 | 30.0 | 0.60 | 1e-10; 5e-02 |\n",
		"| mddmp | 100 | 10.0 | 9.00 | fit 9.00 | ? | succeeded | — | — | — | — |\n",
		"| plst | 100 | — | — | — | — | refused (413): plst would need about 9.1 GiB \\| more than the 6 GiB | — | — | — | — |\n",
		"test+eval, mean metrics (k-NN vote, k = 10, d = 100):\n\n| method | P@1 | P@3 | P@5 | nDCG@5 | PSP@1 | PSP@5 | PSnDCG@5 |\n",
		"| pca | 0.9877 | — | — | — | — | 0.3000 | — |\n\n- pca: the k-NN vote searched its 10 nearest neighbours approximately\n",
		"| cplst | 100 | failed | failed | failed | 6000 | job j4 failed: the job needed more than 6 GiB | — | — | — | — |\n",
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
