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
	if n := len(problems(reportRows(), h.tol)); n != 2 {
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
	if p := problems(rows, 1e-6); len(p) != 0 {
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
