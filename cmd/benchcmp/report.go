package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"mldr/internal/linalg"
	"slices"
	"strings"
	"time"
)

// outcome is what one side of a row gave: a child's result and peak
// memory, or the error that stopped it. A side that was not run (numpy
// without an interpreter) has skipped set.
type outcome struct {
	res     childResult
	peakKiB int64
	err     error
	skipped bool
}

// row is one line of the table: one work on one size, both sides.
type row struct {
	work, size string
	goSide, np outcome
}

// header describes the machine and the run, for the lines above the table.
type header struct {
	date                  time.Time
	cpu                   string
	cores, maxProcs       int
	loadBefore, loadAfter string
	goVersion, gonum      string
	// numpy and blas describe the reference side ("" when it did not run).
	numpy, blas string
	d, reps     int
	warmupUnder time.Duration
	seed        uint64
	tol         float64
	cacheDir    string
	// parentKiB is the parent's own peak memory: the floor of the
	// children's (0 when unknown).
	parentKiB int64
}

// median is the middle of xs (the mean of the two middle values for an
// even count), NaN for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// agreement is the largest relative difference between two lists of
// leading eigenvalues, |a_i − b_i| / max(|a_i|, |b_i|) (0 where both are
// 0). It is an error for the lists to be empty or of different lengths,
// or to hold a NaN.
func agreement(a, b []float64) (float64, error) {
	if len(a) == 0 || len(b) == 0 {
		return 0, errors.New("no eigenvalues to compare")
	}
	if len(a) != len(b) {
		return 0, fmt.Errorf("%d eigenvalues against %d", len(a), len(b))
	}
	worst := 0.0
	for i := range a {
		if math.IsNaN(a[i]) || math.IsNaN(b[i]) {
			return 0, fmt.Errorf("eigenvalue %d is NaN", i+1)
		}
		scale := max(math.Abs(a[i]), math.Abs(b[i]))
		if scale == 0 {
			continue
		}
		worst = max(worst, math.Abs(a[i]-b[i])/scale)
	}
	return worst, nil
}

// problems lists what went wrong in rows: failed sides and eigenvalues
// that disagree by tol or more. None means every row compared cleanly.
func problems(rows []row, tol float64) []string {
	var out []string
	for _, r := range rows {
		what := r.work + ", " + r.size
		if r.goSide.err != nil {
			out = append(out, fmt.Sprintf("%s: Go failed: %v", what, r.goSide.err))
		}
		if r.np.err != nil {
			out = append(out, fmt.Sprintf("%s: numpy failed: %v", what, r.np.err))
		}
		if r.goSide.err != nil || r.np.err != nil || r.np.skipped {
			continue
		}
		rel, err := agreement(r.goSide.res.Eig, r.np.res.Eig)
		switch {
		case err != nil:
			out = append(out, fmt.Sprintf("%s: MISMATCH: %v", what, err))
		case rel >= tol:
			out = append(out, fmt.Sprintf("%s: MISMATCH: eigenvalues differ by %.2g relative (tolerance %.0g): Go %v, numpy %v",
				what, rel, tol, r.goSide.res.Eig, r.np.res.Eig))
		}
	}
	return out
}

// writeReport writes the Markdown report: the header lines, the table,
// every run's time, and the problems found.
func writeReport(w io.Writer, h header, rows []row) error {
	var b strings.Builder
	b.WriteString("# Go against numpy, side by side\n\n")
	fmt.Fprintf(&b, "- date: %s\n", h.date.Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(&b, "- CPU: %s, %d cores (GOMAXPROCS %d)\n", h.cpu, h.cores, h.maxProcs)
	fmt.Fprintf(&b, "- load averages (1, 5, 15 min) before: %s; after: %s\n", h.loadBefore, h.loadAfter)
	fmt.Fprintf(&b, "- Go: %s, gonum %s, linear algebra: %s\n", h.goVersion, h.gonum, linalg.Backend)
	if h.numpy != "" {
		fmt.Fprintf(&b, "- numpy: %s\n- BLAS: %s\n", h.numpy, h.blas)
	} else {
		b.WriteString("- numpy: not run\n")
	}
	fmt.Fprintf(&b, "- parameters: d = %d for every method, the defaults otherwise (β = 0.5, ridges 1, λ = 0.1, linear label kernel)\n", h.d)
	fmt.Fprintf(&b, "- timing: median of %d timed runs in a child process per side; a first run under %s is an untimed warm-up\n", h.reps, h.warmupUnder)
	fmt.Fprintf(&b, "- peak: the child's peak resident memory (ru_maxrss), the loaded data included; "+
		"on Linux it also counts the parent's resident memory when the child started (vfork and exec), and the parent's peak was %s MiB\n", formatMiB(h.parentKiB))
	fmt.Fprintf(&b, "- agree: largest relative difference of the leading eigenvalues (5, or all k for eigen); a mismatch is %.0g or more\n", h.tol)
	fmt.Fprintf(&b, "- data: seed %d, cached in %s\n\n", h.seed, h.cacheDir)

	b.WriteString("| work | size | Go median s | numpy median s | Go/numpy | Go peak MiB | numpy peak MiB | agree |\n")
	b.WriteString("|---|---|--:|--:|--:|--:|--:|--:|\n")
	for _, r := range rows {
		gm, nm := sideMedian(r.goSide), sideMedian(r.np)
		ratio := "—"
		if !math.IsNaN(gm) && !math.IsNaN(nm) && nm > 0 {
			ratio = formatRatio(gm / nm)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", r.work, r.size,
			sideCell(r.goSide, formatSeconds(gm)), sideCell(r.np, formatSeconds(nm)), ratio,
			sideCell(r.goSide, formatMiB(r.goSide.peakKiB)), sideCell(r.np, formatMiB(r.np.peakKiB)),
			agreeCell(r, h.tol))
	}
	b.WriteString("\nEvery run, in seconds:\n\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "- %s, %s: Go %s; numpy %s\n", r.work, r.size, runsText(r.goSide), runsText(r.np))
	}
	if p := problems(rows, h.tol); len(p) > 0 {
		b.WriteString("\n**Problems:**\n\n")
		for _, s := range p {
			fmt.Fprintf(&b, "- %s\n", s)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// sideMedian is the median time of a side, NaN when it has none.
func sideMedian(o outcome) float64 {
	if o.err != nil || o.skipped {
		return math.NaN()
	}
	return median(o.res.Times)
}

// sideCell is v, or what stands for it when the side failed or was not run.
func sideCell(o outcome, v string) string {
	switch {
	case o.err != nil:
		return "failed"
	case o.skipped:
		return "—"
	}
	return v
}

// agreeCell is the agree column: the relative difference, or a loud
// MISMATCH.
func agreeCell(r row, tol float64) string {
	if r.goSide.err != nil || r.np.err != nil || r.np.skipped {
		return "—"
	}
	rel, err := agreement(r.goSide.res.Eig, r.np.res.Eig)
	switch {
	case err != nil:
		return "**MISMATCH**"
	case rel >= tol:
		return fmt.Sprintf("**MISMATCH %.1e**", rel)
	case rel == 0:
		return "0"
	}
	return fmt.Sprintf("%.0e", rel)
}

// runsText lists a side's timed runs and its warm-up.
func runsText(o outcome) string {
	switch {
	case o.err != nil:
		return "failed"
	case o.skipped:
		return "not run"
	}
	parts := make([]string, len(o.res.Times))
	for i, t := range o.res.Times {
		parts[i] = formatSeconds(t)
	}
	s := strings.Join(parts, ", ")
	if o.res.Warmup != nil {
		s += " (after a warm-up of " + formatSeconds(*o.res.Warmup) + ")"
	}
	return s
}

// formatSeconds gives a time in seconds with about three significant
// digits.
func formatSeconds(s float64) string {
	switch {
	case math.IsNaN(s):
		return "—"
	case s >= 100:
		return fmt.Sprintf("%.0f", s)
	case s >= 10:
		return fmt.Sprintf("%.1f", s)
	case s >= 1:
		return fmt.Sprintf("%.2f", s)
	case s >= 0.01:
		return fmt.Sprintf("%.3f", s)
	}
	return fmt.Sprintf("%.4f", s)
}

// formatRatio gives a ratio with about three significant digits.
func formatRatio(r float64) string {
	switch {
	case r >= 100:
		return fmt.Sprintf("%.0f", r)
	case r >= 10:
		return fmt.Sprintf("%.1f", r)
	}
	return fmt.Sprintf("%.2f", r)
}

// formatMiB gives KiB as whole MiB, "?" when unknown (0).
func formatMiB(kib int64) string {
	if kib <= 0 {
		return "?"
	}
	return fmt.Sprintf("%.0f", float64(kib)/1024)
}
