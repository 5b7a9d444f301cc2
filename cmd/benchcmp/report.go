package main

import (
	"cmp"
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

// row is one line of a table: one work on one size, every side. For an
// end-to-end or evaluation row goSide is the job through the webapp (its
// peak is the webapp's), and phases are the median job's; for an
// evaluation or ML-kNN row np is the numpy + scikit-learn script.
type row struct {
	work, size string
	kind       caseKind
	goSide, np outcome
	// sp is scipy's sparse route (wide rows); skipped elsewhere.
	sp     outcome
	phases []phaseTime
	// xcEval is an evaluated XC job's metrics and notes; nil elsewhere.
	xcEval *xcEvalResult
	// agree compares an evaluation or ML-kNN row's metrics (the product's
	// and the script's); nil when either side has none.
	agree *agreementStats
}

// phaseTime is the time a job spent in one phase, as its JSON gives it.
type phaseTime struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
}

// uploadStats are the end-to-end rows' uploads of one CSV file.
type uploadStats struct {
	// what names the file ("dense CSV (50000×500, q = 20)").
	what  string
	bytes int64
	// times are the uploads' durations in seconds, from the request to the
	// data set's answer.
	times []float64
	// peakKiB is the webapp's peak memory over the uploads.
	peakKiB int64
	// stored is the bytes the first upload stored (its directory in the
	// data directory: the file, the binary data file, the metadata).
	stored int64
	// diskRate is the data directory's disk's rate of durable writing,
	// bytes per second, measured before the uploads (0: not measured).
	diskRate float64
}

// header describes the machine and the run, for the lines above the table.
type header struct {
	date                  time.Time
	cpu                   string
	cores, maxProcs       int
	loadBefore, loadAfter string
	goVersion, gonum      string
	// numpy and blas describe the reference side ("" when it did not run);
	// scipy the wide rows' sparse reference; sklearn the eval and mlknn
	// rows' numpy + scikit-learn script, or sklearnSkip why it did not run.
	numpy, blas, scipy   string
	sklearn, sklearnSkip string
	d, reps              int
	warmupUnder          time.Duration
	seed                 uint64
	tol, sparseTol       float64
	metricsTol           float64
	cacheDir             string
	// uploads describe the end-to-end rows' uploads.
	uploads []uploadStats
	// xc describes the XC rows' upload, nil without XC rows.
	xc *xcUpload
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
// that disagree by h.tol or more (h.sparseTol against scipy). None means
// every row compared cleanly. The XC rows are left out: what they refuse
// or fail is what they measure, and their table gives it.
func problems(rows []row, h header) []string {
	var out []string
	for _, r := range rows {
		what := r.work + ", " + r.size
		if r.kind == kindE2E {
			what += ", end to end"
		}
		if r.kind == kindEval || r.kind == kindMLkNN {
			out = append(out, metricsProblems(r, h)...)
			continue
		}
		if r.kind == kindXC {
			continue
		}
		if r.goSide.err != nil {
			out = append(out, fmt.Sprintf("%s: %s failed: %v", what, goName(r), r.goSide.err))
		}
		for _, ref := range references(r, h) {
			if ref.o.err != nil {
				out = append(out, fmt.Sprintf("%s: %s failed: %v", what, ref.name, ref.o.err))
			}
			if r.goSide.err != nil || ref.o.err != nil || ref.o.skipped {
				continue
			}
			rel, err := agreement(r.goSide.res.Eig, ref.o.res.Eig)
			switch {
			case err != nil:
				out = append(out, fmt.Sprintf("%s: MISMATCH with %s: %v", what, ref.name, err))
			case rel >= ref.tol:
				out = append(out, fmt.Sprintf("%s: MISMATCH: eigenvalues differ by %.2g relative (tolerance %.0g): %s %v, %s %v",
					what, rel, ref.tol, goName(r), r.goSide.res.Eig, ref.name, ref.o.res.Eig))
			}
		}
	}
	return out
}

// reference is one reference side of a row, and the tolerance of its
// agreement with the Go side.
type reference struct {
	name string
	o    outcome
	tol  float64
}

// references lists a row's reference sides: numpy, and for a wide row
// scipy's sparse route.
func references(r row, h header) []reference {
	refs := []reference{{numpyName(r), r.np, h.tol}}
	if r.kind == kindWide {
		refs = append(refs, reference{"scipy", r.sp, h.sparseTol})
	}
	return refs
}

// goName names a row's Go side: the product's fit, or its job.
func goName(r row) string {
	if r.kind == kindE2E || r.kind == kindEval {
		return "job"
	}
	return "Go"
}

// numpyName names a row's numpy side.
func numpyName(r row) string {
	if r.kind == kindWide {
		return "numpy dense"
	}
	return "numpy"
}

// writeReport writes the Markdown report: the header lines, a table for
// each kind of row present (dense fits, wide sparse fits, end to end),
// every run's time, and the problems found.
func writeReport(w io.Writer, h header, rows []row) error {
	var b strings.Builder
	var dense, wide, e2e, evals, mlknns, xcs []row
	for _, r := range rows {
		switch r.kind {
		case kindWide:
			wide = append(wide, r)
		case kindE2E:
			e2e = append(e2e, r)
		case kindEval:
			evals = append(evals, r)
		case kindMLkNN:
			mlknns = append(mlknns, r)
		case kindXC:
			xcs = append(xcs, r)
		default:
			dense = append(dense, r)
		}
	}
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
	if len(wide) > 0 && h.scipy != "" {
		fmt.Fprintf(&b, "- scipy: %s\n", h.scipy)
	}
	if len(evals)+len(mlknns) > 0 {
		fmt.Fprintf(&b, "- numpy + scikit-learn: %s\n", cmp.Or(h.sklearnSkip, h.sklearn))
	}
	eigen := len(dense)+len(wide)+len(e2e) > 0 // rows whose sides give eigenvalues
	switch {
	case len(wide) > 0:
		fmt.Fprintf(&b, "- parameters: d = %d for every method (%d for the wide rows), the defaults otherwise (β = 0.5, ridges 1, λ = 0.1, linear label kernel)\n", h.d, wideD)
	case eigen:
		fmt.Fprintf(&b, "- parameters: d = %d for every method, the defaults otherwise (β = 0.5, ridges 1, λ = 0.1, linear label kernel)\n", h.d)
	}
	fmt.Fprintf(&b, "- timing: median of %d timed runs in a child process per side; a first run under %s is an untimed warm-up\n", h.reps, h.warmupUnder)
	fmt.Fprintf(&b, "- peak: the child's peak resident memory (ru_maxrss), the loaded data included; "+
		"on Linux it also counts the parent's resident memory when the child started (vfork and exec), and the parent's peak was %s MiB\n", formatMiB(h.parentKiB))
	switch {
	case len(wide) > 0:
		fmt.Fprintf(&b, "- agree: largest relative difference of the leading eigenvalues (5, all k for eigen, %d for the wide rows); a mismatch is %.0g or more, "+
			"against scipy's iterative eigsh and svds (their default tolerance) %.0g or more\n", wideD, h.tol, h.sparseTol)
	case eigen:
		fmt.Fprintf(&b, "- agree: largest relative difference of the leading eigenvalues (5, or all k for eigen); a mismatch is %.0g or more\n", h.tol)
	}
	fmt.Fprintf(&b, "- data: seed %d, cached in %s\n", h.seed, h.cacheDir)
	if len(dense) > 0 {
		b.WriteString("\n| work | size | Go median s | numpy median s | Go/numpy | Go peak MiB | numpy peak MiB | agree |\n")
		b.WriteString("|---|---|--:|--:|--:|--:|--:|--:|\n")
		for _, r := range dense {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", r.work, r.size,
				timeCell(r.goSide), timeCell(r.np), ratioCell(r.goSide, r.np),
				sideCell(r.goSide, formatMiB(r.goSide.peakKiB)), sideCell(r.np, formatMiB(r.np.peakKiB)),
				agreeCell(r.goSide, r.np, h.tol))
		}
	}
	if len(wide) > 0 {
		writeWideTable(&b, h, wide)
	}
	if len(e2e) > 0 {
		writeE2ETable(&b, h, e2e)
	}
	if len(evals) > 0 {
		writeEvalTable(&b, h, evals)
	}
	if len(mlknns) > 0 {
		writeMLkNNTable(&b, h, mlknns)
	}
	if h.xc != nil {
		writeXCTable(&b, *h.xc, xcs)
	}
	b.WriteString("\nEvery run, in seconds:\n\n")
	for _, r := range rows {
		switch r.kind {
		case kindWide:
			fmt.Fprintf(&b, "- %s, %s: Go %s; numpy dense %s; scipy sparse %s\n", r.work, r.size, runsText(r.goSide), runsText(r.np), runsText(r.sp))
		case kindE2E:
			fmt.Fprintf(&b, "- %s, %s, end to end: job %s; numpy %s\n", r.work, r.size, runsText(r.goSide), runsText(r.np))
		case kindEval:
			fmt.Fprintf(&b, "- %s, %s, evaluation: job %s; numpy + scikit-learn %s\n", r.work, r.size, runsText(r.goSide), runsText(r.np))
		case kindMLkNN:
			fmt.Fprintf(&b, "- ML-kNN, %s: Go %s; numpy + scikit-learn %s\n", r.size, runsText(r.goSide), runsText(r.np))
		case kindXC:
			fmt.Fprintf(&b, "- %s, %s, XC: job %s\n", r.work, r.size, runsText(r.goSide))
		default:
			fmt.Fprintf(&b, "- %s, %s: Go %s; numpy %s\n", r.work, r.size, runsText(r.goSide), runsText(r.np))
		}
	}
	for _, up := range h.uploads {
		parts := make([]string, len(up.times))
		for i, t := range up.times {
			parts[i] = formatSeconds(t)
		}
		fmt.Fprintf(&b, "- upload of the %s, %.0f MB: %s\n", up.what, float64(up.bytes)/1e6, strings.Join(parts, ", "))
	}
	if p := problems(rows, h); len(p) > 0 {
		b.WriteString("\n**Problems:**\n\n")
		for _, s := range p {
			fmt.Fprintf(&b, "- %s\n", s)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeWideTable writes the wide rows' table: Go, numpy on the data made
// dense and scipy's sparse route, side by side.
func writeWideTable(b *strings.Builder, h header, rows []row) {
	b.WriteString("\n## Wide sparse rows\n\n")
	b.WriteString("Go: `analysis.Fit` on the input `wideInput` builds from the CSR arrays. numpy dense: the same algebra on X made dense " +
		"(`Xc.T @ Xc`, `np.linalg.eigh`, `np.linalg.svd`). scipy sparse: `X.T @ X` on the CSR matrix minus Nμμᵀ, `XᵀY` minus μ·1ᵀY, " +
		"`scipy.sparse.linalg.eigsh(k = d)` (`svds(k = d)` for mddmp's low-rank SVD), projections X·P − 1μᵀP.\n\n")
	b.WriteString("| work | size | Go median s | numpy dense median s | scipy sparse median s | Go/numpy | Go/scipy | Go peak MiB | numpy peak MiB | scipy peak MiB | agree numpy | agree scipy |\n")
	b.WriteString("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, r := range rows {
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.work, r.size,
			timeCell(r.goSide), timeCell(r.np), timeCell(r.sp), ratioCell(r.goSide, r.np), ratioCell(r.goSide, r.sp),
			sideCell(r.goSide, formatMiB(r.goSide.peakKiB)), sideCell(r.np, formatMiB(r.np.peakKiB)), sideCell(r.sp, formatMiB(r.sp.peakKiB)),
			agreeCell(r.goSide, r.np, h.tol), agreeCell(r.goSide, r.sp, h.sparseTol))
	}
}

// writeE2ETable writes the end-to-end rows' table: a job through the
// webapp's HTTP API against numpy's algebra alone on the same data.
func writeE2ETable(b *strings.Builder, h header, rows []row) {
	b.WriteString("\n## End to end\n\n")
	b.WriteString("job: the webapp built from this tree, started on a loopback port with an empty data directory; " +
		"the time from `POST /api/jobs` (d = 10, no evaluation) to the job's finished state on its event stream. " +
		"phases: the job's own `phases`, of the median job. numpy: its algebra alone, on the data loaded. " +
		"peak: the webapp's, server or worker process, from its start to its stop around the jobs of the row.\n\n")
	if len(h.uploads) > 0 {
		b.WriteString("upload: the file sent with its length declared, as browsers and curl send it; its time to the answer, " +
			"which comes once the file and the binary data file are durable (fsync). stored: what the first upload left in the data directory. " +
			"disk: random data written to the data directory's disk and fsynced, just before the uploads; " +
			"disk floor: stored / disk, the time the disk alone needs to make an upload durable.\n\n")
		b.WriteString("| upload (`POST /api/datasets`, to its answer) | MB | median s | MB/s | stored MB | disk MB/s | disk floor s | webapp peak MiB |\n|---|--:|--:|--:|--:|--:|--:|--:|\n")
		for _, up := range h.uploads {
			med := median(up.times)
			disk, floor := "—", "—"
			if up.diskRate > 0 {
				disk, floor = fmt.Sprintf("%.0f", up.diskRate/1e6), formatSeconds(float64(up.stored)/up.diskRate)
			}
			fmt.Fprintf(b, "| %s | %.0f | %s | %.0f | %.0f | %s | %s | %s |\n", up.what, float64(up.bytes)/1e6, formatSeconds(med),
				float64(up.bytes)/1e6/med, float64(up.stored)/1e6, disk, floor, formatMiB(up.peakKiB))
		}
		b.WriteString("\n")
	}
	b.WriteString("| job | data | job median s | numpy median s | job/numpy | phases of the median job, s | webapp peak MiB | numpy peak MiB | agree |\n")
	b.WriteString("|---|---|--:|--:|--:|---|--:|--:|--:|\n")
	for _, r := range rows {
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.work, r.size,
			timeCell(r.goSide), timeCell(r.np), ratioCell(r.goSide, r.np), sideCell(r.goSide, phasesText(r.phases)),
			sideCell(r.goSide, formatMiB(r.goSide.peakKiB)), sideCell(r.np, formatMiB(r.np.peakKiB)),
			agreeCell(r.goSide, r.np, h.tol))
	}
}

// phasesText lists a job's phases with their seconds, "—" for none.
func phasesText(ps []phaseTime) string {
	if len(ps) == 0 {
		return "—"
	}
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.Name + " " + formatSeconds(p.Seconds)
	}
	return strings.Join(parts, ", ")
}

// timeCell is a side's median time, or what stands for it.
func timeCell(o outcome) string { return sideCell(o, formatSeconds(sideMedian(o))) }

// ratioCell is the ratio of two sides' median times, "—" when either is
// missing.
func ratioCell(a, b outcome) string {
	am, bm := sideMedian(a), sideMedian(b)
	if math.IsNaN(am) || math.IsNaN(bm) || bm <= 0 {
		return "—"
	}
	return formatRatio(am / bm)
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

// agreeCell is an agree column: the relative difference of the leading
// eigenvalues of g and ref, or a loud MISMATCH from tol on.
func agreeCell(g, ref outcome, tol float64) string {
	if g.err != nil || ref.err != nil || ref.skipped || g.skipped {
		return "—"
	}
	rel, err := agreement(g.res.Eig, ref.res.Eig)
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
