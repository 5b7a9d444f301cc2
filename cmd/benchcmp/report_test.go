package main

import (
	"errors"
	"math"
	"mldr/internal/linalg"
	"strings"
	"testing"
	"time"
)

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []float64
		want float64
	}{
		{"one", []float64{2}, 2},
		{"odd, unsorted", []float64{3, 1, 2}, 2},
		{"even: mean of the middle two", []float64{4, 1, 3, 2}, 2.5},
		{"repeats", []float64{5, 5, 1}, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := append([]float64(nil), tc.in...)
			if got := median(in); got != tc.want {
				t.Errorf("median(%v): got %v, want %v", tc.in, got, tc.want)
			}
			for i := range in {
				if in[i] != tc.in[i] {
					t.Fatalf("median changed its input: got %v, want %v", in, tc.in)
				}
			}
		})
	}
	if got := median(nil); !math.IsNaN(got) {
		t.Errorf("median(nil): got %v, want NaN", got)
	}
}

func TestAgreement(t *testing.T) {
	for _, tc := range []struct {
		name    string
		a, b    []float64
		want    float64
		wantErr string
	}{
		{"equal", []float64{3, 2, 1}, []float64{3, 2, 1}, 0, ""},
		{"relative to the larger of the pair", []float64{100, 1}, []float64{100, 1.1}, 0.1 / 1.1, ""},
		{"the worst pair counts", []float64{1e6, 10}, []float64{1e6 * (1 + 1e-12), 10 * (1 + 1e-3)}, 1e-3 / (1 + 1e-3), ""},
		{"both zero is agreement", []float64{5, 0}, []float64{5, 0}, 0, ""},
		{"zero against non-zero is total disagreement", []float64{5, 0}, []float64{5, 1e-20}, 1, ""},
		{"negative eigenvalues", []float64{-2}, []float64{-2.002}, 0.002 / 2.002, ""},
		{"lengths differ", []float64{1, 2}, []float64{1}, 0, "2 eigenvalues against 1"},
		{"empty", nil, []float64{1}, 0, "no eigenvalues"},
		{"NaN", []float64{1, math.NaN()}, []float64{1, 1}, 0, "eigenvalue 2 is NaN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := agreement(tc.a, tc.b)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("got error %v, want nil", err)
			}
			if math.Abs(got-tc.want) > 1e-12*math.Max(1, tc.want) {
				t.Errorf("got %.6g, want %.6g", got, tc.want)
			}
		})
	}
}

func TestFormat(t *testing.T) {
	for _, tc := range []struct {
		got, want string
	}{
		{formatSeconds(123.4), "123"},
		{formatSeconds(10.84), "10.8"},
		{formatSeconds(1.456), "1.46"},
		{formatSeconds(0.9534), "0.953"},
		{formatSeconds(0.00971), "0.0097"},
		{formatSeconds(math.NaN()), "—"},
		{formatRatio(123.4), "123"},
		{formatRatio(12.34), "12.3"},
		{formatRatio(0.456), "0.46"},
		{formatMiB(2048), "2"},
		{formatMiB(1536 * 1024), "1536"},
		{formatMiB(0), "?"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// reportRows are the rows of TestWriteReport: a clean row, a mismatch, a
// failed Go side and a row without numpy.
func reportRows() []row {
	w := 0.5
	return []row{
		{work: "pca", size: "100000×1000, q = 100",
			goSide: outcome{res: childResult{Times: []float64{10.2, 9.8, 10.0}, Eig: []float64{3, 2}}, peakKiB: 900 * 1024},
			np:     outcome{res: childResult{Times: []float64{1.0, 1.1, 0.9}, Warmup: &w, Eig: []float64{3, 2 * (1 + 3e-15)}}, peakKiB: 1700 * 1024}},
		{work: "mvmd", size: "20000×2000, q = 100",
			goSide: outcome{res: childResult{Times: []float64{2}, Eig: []float64{4}}, peakKiB: 400 * 1024},
			np:     outcome{res: childResult{Times: []float64{1}, Eig: []float64{1}}, peakKiB: 500 * 1024}},
		{work: "cca", size: "100000×1000, q = 100",
			goSide: outcome{err: errors.New("exit status 2")},
			np:     outcome{res: childResult{Times: []float64{1}, Eig: []float64{1}}, peakKiB: 500 * 1024}},
		{work: "eigen", size: "2000×2000, top 50",
			goSide: outcome{res: childResult{Times: []float64{13}, Eig: []float64{1}}, peakKiB: 100 * 1024},
			np:     outcome{skipped: true}},
	}
}

func TestWriteReport(t *testing.T) {
	h := header{date: time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC), cpu: "AMD EPYC", cores: 2, maxProcs: 2,
		loadBefore: "0.10 0.20 0.30", loadAfter: "1.90 1.20 0.70", goVersion: "go1.26.8", gonum: "v0.17.0",
		numpy: "1.24.2 (Python 3.11.2, /usr/bin/python3)", blas: "OpenBLAS 0.3.21, 2 threads",
		d: 10, reps: 3, warmupUnder: 5 * time.Second, seed: 1, tol: 1e-6, cacheDir: "/tmp/c", parentKiB: 20 * 1024}
	var b strings.Builder
	if err := writeReport(&b, h, reportRows()); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{
		"- date: 2026-01-02 03:04 UTC\n",
		"- CPU: AMD EPYC, 2 cores (GOMAXPROCS 2)\n",
		"- load averages (1, 5, 15 min) before: 0.10 0.20 0.30; after: 1.90 1.20 0.70\n",
		"- Go: go1.26.8, gonum v0.17.0, linear algebra: " + linalg.Backend + "\n",
		"- numpy: 1.24.2 (Python 3.11.2, /usr/bin/python3)\n- BLAS: OpenBLAS 0.3.21, 2 threads\n",
		"d = 10 for every method",
		"a first run under 5s is an untimed warm-up",
		"the parent's peak was 20 MiB\n",
		"| work | size | Go median s | numpy median s | Go/numpy | Go peak MiB | numpy peak MiB | agree |\n|---|---|--:|--:|--:|--:|--:|--:|\n",
		"| pca | 100000×1000, q = 100 | 10.0 | 1.00 | 10.0 | 900 | 1700 | 3e-15 |\n",
		"| mvmd | 20000×2000, q = 100 | 2.00 | 1.00 | 2.00 | 400 | 500 | **MISMATCH 7.5e-01** |\n",
		"| cca | 100000×1000, q = 100 | failed | 1.00 | — | failed | 500 | — |\n",
		"| eigen | 2000×2000, top 50 | 13.0 | — | — | 100 | — | — |\n",
		"- pca, 100000×1000, q = 100: Go 10.2, 9.80, 10.0; numpy 1.00, 1.10, 0.900 (after a warm-up of 0.500)\n",
		"- eigen, 2000×2000, top 50: Go 13.0; numpy not run\n",
		"**Problems:**",
		"- mvmd, 20000×2000, q = 100: MISMATCH: eigenvalues differ by 0.75 relative",
		"- cca, 100000×1000, q = 100: Go failed: exit status 2\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the report lacks %q; got:\n%s", want, got)
		}
	}
	if n := len(problems(reportRows(), h)); n != 2 {
		t.Errorf("problems: got %d, want 2 (the mismatch and the failure)", n)
	}
}

func TestWriteReportWithoutNumPy(t *testing.T) {
	var b strings.Builder
	rows := reportRows()[3:]
	if err := writeReport(&b, header{tol: 1e-6}, rows); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "- numpy: not run\n") {
		t.Errorf("got:\n%s\nwant a line '- numpy: not run'", b.String())
	}
	if p := problems(rows, header{tol: 1e-6, sparseTol: 1e-6}); len(p) != 0 {
		t.Errorf("problems: got %q, want none (a side not run is not a problem)", p)
	}
}

func TestSysInfo(t *testing.T) {
	cpuinfo := "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 9R14\nflags\t\t: fpu\n\nprocessor\t: 1\nmodel name\t: AMD EPYC 9R14\n"
	if got, want := cpuModel(cpuinfo), "AMD EPYC 9R14"; got != want {
		t.Errorf("cpuModel: got %q, want %q", got, want)
	}
	if got, want := cpuModel("processor : 0\n"), "unknown"; got != want {
		t.Errorf("cpuModel without a model name: got %q, want %q", got, want)
	}
	if got, want := loadAverages("0.30 0.73 1.22 1/123 4567\n"), "0.30 0.73 1.22"; got != want {
		t.Errorf("loadAverages: got %q, want %q", got, want)
	}
	if got := loadAverages("0.30\n"); got != "" {
		t.Errorf("loadAverages of a short line: got %q, want \"\"", got)
	}
}

// TestWriteReportWideAndE2E checks the wide rows' table (Go, numpy dense
// and scipy sparse side by side, scipy's agreement to -sparse-tol) and the
// end-to-end table (the job's phases, the uploads).
func TestWriteReportWideAndE2E(t *testing.T) {
	h := header{tol: 1e-6, sparseTol: 1e-8, d: 10, scipy: "1.10.1",
		uploads: []uploadStats{{what: "dense CSV (50000×500, q = 20)", bytes: 240e6, times: []float64{1.5, 1.6, 1.7}, peakKiB: 700 * 1024,
			stored: 440e6, diskRate: 220e6},
			{what: "sparse CSV (20000×5000, 2% dense, q = 400)", bytes: 250e6, times: []float64{2.5}, peakKiB: 900 * 1024}}}
	rows := []row{
		{work: "pca", size: "20000×5000, 2% dense, q = 400", kind: kindWide,
			goSide: outcome{res: childResult{Times: []float64{4}, Eig: []float64{10, 5}}, peakKiB: 1000 * 1024},
			np:     outcome{res: childResult{Times: []float64{16}, Eig: []float64{10, 5}}, peakKiB: 2000 * 1024},
			sp:     outcome{res: childResult{Times: []float64{5}, Eig: []float64{10, 5 * (1 + 1e-9)}}, peakKiB: 600 * 1024}},
		{work: "mddmp", size: "20000×5000, 2% dense, q = 400", kind: kindWide,
			goSide: outcome{res: childResult{Times: []float64{1}, Eig: []float64{10}}, peakKiB: 1000 * 1024},
			np:     outcome{res: childResult{Times: []float64{2}, Eig: []float64{10}}, peakKiB: 2000 * 1024},
			sp:     outcome{res: childResult{Times: []float64{0.5}, Eig: []float64{10 * (1 + 1e-7)}}, peakKiB: 600 * 1024}},
		{work: "mvmd", size: "20000×5000, 2% dense, q = 400", kind: kindWide,
			goSide: outcome{res: childResult{Times: []float64{1}, Eig: []float64{10}}, peakKiB: 1000 * 1024},
			np:     outcome{res: childResult{Times: []float64{2}, Eig: []float64{10}}, peakKiB: 2000 * 1024},
			sp:     outcome{err: errors.New("exit status 1")}},
		{work: "pca", size: "50000×500, q = 20", kind: kindE2E, phases: []phaseTime{{"start", 0.004}, {"load", 0.21}, {"fit", 0.1}, {"write", 0.12}},
			goSide: outcome{res: childResult{Times: []float64{0.45, 0.43, 0.44}, Eig: []float64{3}}, peakKiB: 400 * 1024},
			np:     outcome{res: childResult{Times: []float64{0.2}, Eig: []float64{3}}, peakKiB: 500 * 1024}},
	}
	var b strings.Builder
	if err := writeReport(&b, h, rows); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{
		"- scipy: 1.10.1\n",
		"- parameters: d = 10 for every method (20 for the wide rows)",
		"20 for the wide rows); a mismatch is 1e-06 or more, against scipy's iterative eigsh and svds (their default tolerance) 1e-08 or more\n",
		"## Wide sparse rows\n",
		"| work | size | Go median s | numpy dense median s | scipy sparse median s | Go/numpy | Go/scipy | Go peak MiB | numpy peak MiB | scipy peak MiB | agree numpy | agree scipy |\n",
		"| pca | 20000×5000, 2% dense, q = 400 | 4.00 | 16.0 | 5.00 | 0.25 | 0.80 | 1000 | 2000 | 600 | 0 | 1e-09 |\n",
		"| mddmp | 20000×5000, 2% dense, q = 400 | 1.00 | 2.00 | 0.500 | 0.50 | 2.00 | 1000 | 2000 | 600 | 0 | **MISMATCH 1.0e-07** |\n",
		"| mvmd | 20000×5000, 2% dense, q = 400 | 1.00 | 2.00 | failed | 0.50 | — | 1000 | 2000 | failed | 0 | — |\n",
		"## End to end\n",
		"| upload (`POST /api/datasets`, to its answer) | MB | median s | MB/s | stored MB | disk MB/s | disk floor s | webapp peak MiB |\n|---|--:|--:|--:|--:|--:|--:|--:|\n" +
			"| dense CSV (50000×500, q = 20) | 240 | 1.60 | 150 | 440 | 220 | 2.00 | 700 |\n| sparse CSV (20000×5000, 2% dense, q = 400) | 250 | 2.50 | 100 | 0 | — | — | 900 |\n",
		"| pca | 50000×500, q = 20 | 0.440 | 0.200 | 2.20 | start 0.0040, load 0.210, fit 0.100, write 0.120 | 400 | 500 | 0 |\n",
		"- pca, 20000×5000, 2% dense, q = 400: Go 4.00; numpy dense 16.0; scipy sparse 5.00\n",
		"- pca, 50000×500, q = 20, end to end: job 0.450, 0.430, 0.440; numpy 0.200\n",
		"- upload of the dense CSV (50000×500, q = 20), 240 MB: 1.50, 1.60, 1.70\n",
		"- mddmp, 20000×5000, 2% dense, q = 400: MISMATCH: eigenvalues differ by 1e-07 relative (tolerance 1e-08): Go [10], scipy [10.000001]\n",
		"- mvmd, 20000×5000, 2% dense, q = 400: scipy failed: exit status 1\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the report lacks %q; got:\n%s", want, got)
		}
	}
	if strings.Contains(got, "| work | size | Go median s | numpy median s |") {
		t.Errorf("got the dense table without dense rows:\n%s", got)
	}
	if n := len(problems(rows, h)); n != 2 {
		t.Errorf("problems: got %d, want 2 (mddmp's scipy mismatch, mvmd's failed scipy)", n)
	}
}

// TestWriteReportEvalAndMLkNN checks the evaluation table (the job's
// phases, evaluate against the script, the agreement of the metrics) and
// the ML-kNN table, and their problems.
func TestWriteReportEvalAndMLkNN(t *testing.T) {
	h := header{seed: 1, metricsTol: 1e-9, sklearn: "numpy 1.24.2, scipy 1.10.1, scikit-learn 1.2.1 (Python 3.11.2, /usr/bin/python3)"}
	hl := func(v float64) map[string]*float64 { return map[string]*float64{"hamming_loss": &v} }
	rows := []row{
		{work: "scene", size: "2407×294, q = 6", kind: kindEval,
			phases: []phaseTime{{"start", 0.001}, {"load", 0.005}, {"fit", 0.09}, {"write", 0.06}, {"evaluate", 12.5}},
			goSide: outcome{res: childResult{Times: []float64{13, 12.8, 13.1}}, peakKiB: 80 * 1024},
			np:     outcome{res: childResult{Times: []float64{3.5, 3.4, 3.6}}, peakKiB: 150 * 1024},
			agree:  &agreementStats{cells: 26, hammingAt: "ori, d = 294", worst: 3e-14, worstOf: "loss_bound", worstWhat: "cplst, d = 5"}},
		{work: "medical", size: "978×1449, q = 45, stored sparse", kind: kindEval,
			phases: []phaseTime{{"fit", 2.5}, {"evaluate", 15}},
			goSide: outcome{res: childResult{Times: []float64{17.5}}, peakKiB: 250 * 1024},
			np:     outcome{res: childResult{Times: []float64{12}}, peakKiB: 220 * 1024},
			agree:  &agreementStats{cells: 26, hamming: 2e-4, hammingAt: "mddmf, d = 3", worst: 2e-3, worstOf: "coverage", worstWhat: "cplst, d = 5"}},
		{work: "yeast", size: "2417×103, q = 14", kind: kindEval,
			goSide: outcome{err: errors.New("job j1 failed: boom")}, np: outcome{skipped: true}},
		{work: workMLkNN, size: "8000 + 2000 rows, D = 10, q = 100", kind: kindMLkNN,
			goSide: outcome{res: childResult{Times: []float64{0.9}, Metrics: hl(0.1)}, peakKiB: 60 * 1024},
			np:     outcome{res: childResult{Times: []float64{0.8}, Metrics: hl(0.1)}, peakKiB: 160 * 1024}},
		{work: workMLkNN, size: "40000 + 10000 rows, D = 10, q = 100", kind: kindMLkNN,
			goSide: outcome{res: childResult{Times: []float64{23}, Metrics: hl(0.1)}, peakKiB: 160 * 1024},
			np:     outcome{res: childResult{Times: []float64{11}, Metrics: hl(0.1 + 1e-6)}, peakKiB: 400 * 1024}},
	}
	for i := range rows {
		if rows[i].kind == kindMLkNN {
			rows[i].agree = mlknnAgreement(rows[i])
		}
	}
	var b strings.Builder
	if err := writeReport(&b, h, rows); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{
		"- numpy + scikit-learn: numpy 1.24.2, scipy 1.10.1, scikit-learn 1.2.1 (Python 3.11.2, /usr/bin/python3)\n",
		"## Evaluation: a job against numpy + scikit-learn\n",
		"10-fold cross-validation (seed 1), ori and pca, mddmp, mddmf, cca, cplst at d = 1…5, ML-kNN with k = 10, s = 1",
		"over the 26 cells; a Hamming loss 1e-09 or more apart is a mismatch",
		"| data set | data | job median s | evaluate s | phases of the median job, s | numpy + scikit-learn median s | job/sklearn | evaluate/sklearn | webapp peak MiB | sklearn peak MiB | Δ Hamming loss | Δ any metric |\n",
		"| scene | 2407×294, q = 6 | 13.0 | 12.5 | start 0.0010, load 0.0050, fit 0.090, write 0.060, evaluate 12.5 | 3.50 | 3.71 | 3.57 | 80 | 150 | 0 | 3e-14 (loss_bound, cplst, d = 5) |\n",
		"| medical | 978×1449, q = 45, stored sparse | 17.5 | 15.0 | fit 2.50, evaluate 15.0 | 12.0 | 1.46 | 1.25 | 250 | 220 | **MISMATCH 2.0e-04** (mddmf, d = 3) | 2e-03 (coverage, cplst, d = 5) |\n",
		"| yeast | 2417×103, q = 14 | failed | failed | failed | — | — | — | failed | — | — | — |\n",
		"## ML-kNN alone\n",
		"| data | Go median s | numpy + scikit-learn median s | Go/sklearn | Go peak MiB | sklearn peak MiB | Δ metrics |\n",
		"| 8000 + 2000 rows, D = 10, q = 100 | 0.900 | 0.800 | 1.12 | 60 | 160 | 0 |\n",
		"| 40000 + 10000 rows, D = 10, q = 100 | 23.0 | 11.0 | 2.09 | 160 | 400 | 1e-06 (hamming_loss) |\n",
		"- scene, 2407×294, q = 6, evaluation: job 13.0, 12.8, 13.1; numpy + scikit-learn 3.50, 3.40, 3.60\n",
		"- ML-kNN, 8000 + 2000 rows, D = 10, q = 100: Go 0.900; numpy + scikit-learn 0.800\n",
		"- medical, 978×1449, q = 45, stored sparse: MISMATCH: the Hamming loss differs by 0.0002 at mddmf, d = 3 (tolerance 1e-09)\n",
		"- yeast, 2417×103, q = 14: job failed: job j1 failed: boom\n",
		"- ML-kNN, 40000 + 10000 rows, D = 10, q = 100: MISMATCH: hamming_loss differs by 1e-06 (tolerance 1e-09)\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the report lacks %q; got:\n%s", want, got)
		}
	}
	if n := len(problems(rows, h)); n != 3 {
		t.Errorf("problems: got %d, want 3 (medical's mismatch, yeast's failed job, the ML-kNN mismatch)", n)
	}
	if strings.Contains(got, "- agree:") || strings.Contains(got, "- parameters:") {
		t.Errorf("got the eigenvalue rows' agree and parameters lines without such rows:\n%s", got)
	}
	h.sklearn, h.sklearnSkip = "", "not run: /usr/bin/python3 sklearn_eval.py info: exit status 1 (on Debian: apt-get install python3-sklearn)"
	b.Reset()
	if err := writeReport(&b, h, rows[3:4]); err != nil {
		t.Fatal(err)
	}
	if want := "- numpy + scikit-learn: not run: /usr/bin/python3 sklearn_eval.py info: exit status 1 (on Debian: apt-get install python3-sklearn)\n"; !strings.Contains(b.String(), want) {
		t.Errorf("without scikit-learn: the report lacks %q; got:\n%s", want, b.String())
	}
}
