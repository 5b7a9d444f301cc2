package main

import (
	"fmt"
	"math"
	"strings"
)

// writeEvalTable writes the evaluation rows' table: a k-fold evaluation
// job through the webapp's HTTP API against the same protocol in numpy +
// scikit-learn, with the job's phases and the agreement of the metrics.
func writeEvalTable(b *strings.Builder, h header, rows []row) {
	dims := evalDims()
	b.WriteString("\n## Evaluation: a job against numpy + scikit-learn\n\n")
	fmt.Fprintf(b, "The protocol: %d-fold cross-validation (seed %d), ori and %s at d = %d…%d, ML-kNN with k = %d, s = %g "+
		"(cplst: its ridge regressor and round-based decoding), every metric of metrics.json. "+
		"job: the webapp built from this tree, each job in a webapp run of its own after a job on a tiny data set; "+
		"the time from `POST /api/jobs` to its finished state on its event stream, its phases (evaluate: the folds; "+
		"fit and write: the result models on every row and their files), and the webapp's peak. "+
		"numpy + scikit-learn: `scripts/bench/sklearn_eval.py` on the same file and the job's folds (its projected.csv), "+
		"the data loaded before the clock. "+
		"Δ: the largest difference from the job's mean rows, of the Hamming loss and of any metric (where), over the %d cells; "+
		"a Hamming loss %.0g or more apart is a mismatch.\n\n",
		evalFolds, h.seed, strings.Join(evalMethods(), ", "), dims[0], dims[len(dims)-1], mlknnK, mlknnS, 1+len(evalMethods())*len(dims), h.metricsTol)
	b.WriteString("| data set | data | job median s | evaluate s | phases of the median job, s | numpy + scikit-learn median s | job/sklearn | evaluate/sklearn | webapp peak MiB | sklearn peak MiB | Δ Hamming loss | Δ any metric |\n")
	b.WriteString("|---|---|--:|--:|---|--:|--:|--:|--:|--:|--:|---|\n")
	for _, r := range rows {
		ev := phaseSeconds(r.phases, "evaluate")
		evCell, evRatio := "—", "—"
		if !math.IsNaN(ev) {
			evCell = formatSeconds(ev)
			if m := sideMedian(r.np); !math.IsNaN(m) && m > 0 {
				evRatio = formatRatio(ev / m)
			}
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.work, r.size,
			timeCell(r.goSide), sideCell(r.goSide, evCell), sideCell(r.goSide, phasesText(r.phases)),
			timeCell(r.np), ratioCell(r.goSide, r.np), evRatio,
			sideCell(r.goSide, formatMiB(r.goSide.peakKiB)), sideCell(r.np, formatMiB(r.np.peakKiB)),
			hammingCell(r.agree, h.metricsTol), worstCell(r.agree))
	}
}

// writeMLkNNTable writes the ML-kNN rows' table: the product's ML-kNN
// against NearestNeighbors and the same counting in numpy.
func writeMLkNNTable(b *strings.Builder, h header, rows []row) {
	b.WriteString("\n## ML-kNN alone\n\n")
	fmt.Fprintf(b, "Fitted on the first %g %% of the rows, predicting the rest, k = %d, s = %g. "+
		"Go: `evaluate.MLkNN`'s Fit and Predict (exact neighbours: blocked distances, ties to the lower index). "+
		"numpy + scikit-learn: `NearestNeighbors` with its automatic algorithm (a k-d tree at D ≤ 15) and the counting in numpy, "+
		"each row's candidates measured again with the product's distance so that ties go the same way. "+
		"Δ: the largest difference of the test rows' metrics; %.0g or more is a mismatch.\n\n", 100*mlknnTrain, mlknnK, mlknnS, h.metricsTol)
	b.WriteString("| data | Go median s | numpy + scikit-learn median s | Go/sklearn | Go peak MiB | sklearn peak MiB | Δ metrics |\n")
	b.WriteString("|---|--:|--:|--:|--:|--:|---|\n")
	for _, r := range rows {
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s |\n", r.size,
			timeCell(r.goSide), timeCell(r.np), ratioCell(r.goSide, r.np),
			sideCell(r.goSide, formatMiB(r.goSide.peakKiB)), sideCell(r.np, formatMiB(r.np.peakKiB)),
			worstCell(r.agree))
	}
}

// mlknnAgreement compares an ML-kNN row's metrics, Go's and the script's;
// nil when either side has none.
func mlknnAgreement(r row) *agreementStats {
	if r.goSide.err != nil || r.goSide.skipped || r.np.err != nil || r.np.skipped {
		return nil
	}
	a := compareMetrics([]metricsRow{{Method: workMLkNN, D: mlknnFeatures, Metrics: r.goSide.res.Metrics}},
		[]metricsRow{{Method: workMLkNN, D: mlknnFeatures, Metrics: r.np.res.Metrics}})
	return &a
}

// metricsProblems lists what went wrong in an evaluation or ML-kNN row:
// failed sides, metrics missing on one side, and a mismatch (the Hamming
// loss of an evaluation row, any metric of an ML-kNN row, h.metricsTol or
// more apart).
func metricsProblems(r row, h header) []string {
	what := r.work + ", " + r.size
	if r.kind == kindMLkNN {
		what = "ML-kNN, " + r.size
	}
	var out []string
	if r.goSide.err != nil {
		out = append(out, fmt.Sprintf("%s: %s failed: %v", what, goName(r), r.goSide.err))
	}
	if r.np.err != nil {
		out = append(out, fmt.Sprintf("%s: numpy + scikit-learn failed: %v", what, r.np.err))
	}
	a := r.agree
	if a == nil {
		return out
	}
	switch {
	case a.missing != "":
		out = append(out, fmt.Sprintf("%s: MISMATCH: %s", what, a.missing))
	case r.kind == kindEval && a.hamming >= h.metricsTol:
		out = append(out, fmt.Sprintf("%s: MISMATCH: the Hamming loss differs by %.2g at %s (tolerance %.0g)", what, a.hamming, a.hammingAt, h.metricsTol))
	case r.kind == kindMLkNN && a.worst >= h.metricsTol:
		out = append(out, fmt.Sprintf("%s: MISMATCH: %s differs by %.2g (tolerance %.0g)", what, a.worstOf, a.worst, h.metricsTol))
	}
	return out
}

// phaseSeconds is the seconds of the phase name in ps, NaN when absent.
func phaseSeconds(ps []phaseTime, name string) float64 {
	for _, p := range ps {
		if p.Name == name {
			return p.Seconds
		}
	}
	return math.NaN()
}

// hammingCell is the Δ Hamming loss column: the difference, or a loud
// MISMATCH from tol on or when a cell is missing.
func hammingCell(a *agreementStats, tol float64) string {
	switch {
	case a == nil:
		return "—"
	case a.missing != "":
		return "**MISMATCH**"
	case a.hamming >= tol:
		return fmt.Sprintf("**MISMATCH %.1e** (%s)", a.hamming, a.hammingAt)
	}
	return formatDiff(a.hamming)
}

// worstCell is the Δ any metric column: the largest difference and where.
func worstCell(a *agreementStats) string {
	switch {
	case a == nil:
		return "—"
	case a.missing != "":
		return "**MISMATCH**: " + a.missing
	case a.worst == 0:
		return "0"
	}
	s := formatDiff(a.worst) + " (" + a.worstOf
	if a.worstWhat != "" && a.worstWhat != fmt.Sprintf("%s, d = %d", workMLkNN, mlknnFeatures) {
		s += ", " + a.worstWhat
	}
	return s + ")"
}

// formatDiff gives a difference with one significant digit, 0 as "0".
func formatDiff(d float64) string {
	if d == 0 {
		return "0"
	}
	return fmt.Sprintf("%.0e", d)
}
