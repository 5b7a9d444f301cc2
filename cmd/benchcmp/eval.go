package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// The evaluation rows (-sizes eval): the whole job of a k-fold evaluation
// through the webapp's API, against the same protocol in numpy +
// scikit-learn (scripts/bench/sklearn_eval.py), on Mulan data sets.
const (
	// evalFolds is the k of the k-fold split.
	evalFolds = 10
	// evalFoldsFrom is the method whose projected.csv gives each row's
	// fold to the script (any method's would: they share the split).
	evalFoldsFrom = "mddmp"
	// hammingLoss is the metric whose agreement decides a mismatch.
	hammingLoss = "hamming_loss"
)

// evalMethods are the methods of the evaluation rows' jobs (ori, the
// baseline, comes with every evaluation).
func evalMethods() []string { return []string{"pca", "mddmp", "mddmf", "cca", "cplst"} }

// evalDims is the evaluation rows' grid of d.
func evalDims() []int { return []int{1, 2, 3, 4, 5} }

// evalSet is a data set of the evaluation rows: its name (as -methods
// names it), its data file and, for an ARFF file, the Mulan XML file of
// its labels.
type evalSet struct {
	name, file, xml string
}

// evalSets are the evaluation rows' data sets, under dir (-datasets): the
// Mulan files of scene and yeast as CSV, medical as its sparse ARFF file
// with its XML labels, as a user would upload them.
func evalSets(dir string) []evalSet {
	return []evalSet{
		{"scene", filepath.Join(dir, "scene", "scene.csv"), ""},
		{"yeast", filepath.Join(dir, "yeast", "yeast.csv"), ""},
		{"medical", filepath.Join(dir, "medical", "medical.arff"), filepath.Join(dir, "medical", "medical.xml")},
	}
}

// evalJobBody is the request of an evaluation row's job: every method of
// evalMethods on the data set, 10-fold cross-validation with seed, ML-kNN
// (k = 10, s = 1) at every d of evalDims (and ori).
func evalJobBody(dataset string, seed uint64) ([]byte, error) {
	return json.Marshal(map[string]any{
		"dataset":  dataset,
		"methods":  evalMethods(),
		"split":    map[string]any{"kind": "kfold", "folds": evalFolds, "seed": seed},
		"evaluate": map[string]any{"classifier": "mlknn", "k": mlknnK, "s": mlknnS, "dims": evalDims()},
	})
}

// metricsRow is a row of an evaluation's metrics: metrics.json's (Fold nil
// on a mean row) or the numpy + scikit-learn script's mean rows. A metric
// undefined on every fold is nil (null).
type metricsRow struct {
	Method  string              `json:"method"`
	D       int                 `json:"d"`
	Fold    *int                `json:"fold"`
	Metrics map[string]*float64 `json:"metrics"`
}

// evalResults are what the evaluation rows read of a succeeded job.
type evalResults struct {
	// means are metrics.json's mean rows.
	means []metricsRow
	// folds are each row's fold, 1…evalFolds, in the data set's order.
	folds []int
}

// readEvalResults reads a succeeded evaluation job's mean rows
// (metrics.json) and each of its n rows' fold (the fold column of
// evalFoldsFrom's projected.csv).
func readEvalResults(ctx context.Context, c *http.Client, base, id string, n int) (evalResults, error) {
	var res evalResults
	b, err := jobFile(ctx, c, base, id, "metrics.json")
	if err != nil {
		return res, err
	}
	var m struct {
		Rows []metricsRow `json:"rows"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return res, fmt.Errorf("reading job %s's metrics: %w", id, err)
	}
	for _, r := range m.Rows {
		if r.Fold == nil {
			res.means = append(res.means, r)
		}
	}
	if b, err = jobFile(ctx, c, base, id, "projected.csv?method="+evalFoldsFrom); err != nil {
		return res, err
	}
	if res.folds, err = foldsOf(bytes.NewReader(b), n, evalFolds); err != nil {
		return res, fmt.Errorf("job %s's projected.csv: %w", id, err)
	}
	return res, nil
}

// foldsOf reads each row's fold from a k-fold job's projected.csv
// (row,split,fold,c1,…; row 1-based): the fold, 1…k, in which each of the
// n rows is a test row. Every row must have one.
func foldsOf(r io.Reader, n, k int) ([]int, error) {
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("reading its header: %w", err)
	}
	rowCol, foldCol := slices.Index(head, "row"), slices.Index(head, "fold")
	if rowCol < 0 || foldCol < 0 {
		return nil, fmt.Errorf("its header %q has no row and fold columns", strings.Join(head[:min(len(head), 4)], ","))
	}
	folds := make([]int, n)
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		row, err1 := strconv.Atoi(rec[rowCol])
		fold, err2 := strconv.Atoi(rec[foldCol])
		switch {
		case err1 != nil || row < 1 || row > n:
			return nil, fmt.Errorf("line %d: row %q is not one of 1…%d", line, rec[rowCol], n)
		case err2 != nil || fold < 1 || fold > k:
			return nil, fmt.Errorf("line %d: row %d's fold %q is not one of 1…%d", line, row, rec[foldCol], k)
		case folds[row-1] != 0:
			return nil, fmt.Errorf("line %d: row %d appears twice", line, row)
		}
		folds[row-1] = fold
	}
	if i := slices.Index(folds, 0); i >= 0 {
		return nil, fmt.Errorf("row %d has no fold", i+1)
	}
	return folds, nil
}

// writeFolds writes each row's fold, one a line, for the script's --folds.
func writeFolds(path string, folds []int) error {
	var b bytes.Buffer
	for _, f := range folds {
		b.WriteString(strconv.Itoa(f))
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("writing the folds for the script: %w", err)
	}
	return nil
}

// sklearnEvalArgs are the arguments of the numpy + scikit-learn script for
// an evaluation row: the data set's file, the job's folds, the same
// methods, grid and classifier.
func sklearnEvalArgs(script string, set evalSet, foldsPath string, reps int, warmupUnder float64) []string {
	dims := make([]string, len(evalDims()))
	for i, d := range evalDims() {
		dims[i] = strconv.Itoa(d)
	}
	args := []string{script, "eval", "--data", set.file}
	if set.xml != "" {
		args = append(args, "--xml", set.xml)
	}
	return append(args, "--folds", foldsPath, "--methods", strings.Join(evalMethods(), ","), "--dims", strings.Join(dims, ","),
		"--k", strconv.Itoa(mlknnK), "--s", strconv.FormatFloat(mlknnS, 'g', -1, 64),
		"--reps", strconv.Itoa(reps), "--warmup-under", strconv.FormatFloat(warmupUnder, 'g', -1, 64))
}

// agreementStats is how closely the reference's metrics agree with the
// product's over the cells (method and d) of a row.
type agreementStats struct {
	cells int
	// hamming is the largest difference of the Hamming loss, at hammingAt
	// ("mddmf, d = 3"); worst the largest of any metric, worstOf.
	hamming            float64
	hammingAt          string
	worst              float64
	worstOf, worstWhat string
	// missing names what one side has and the other not ("" for nothing):
	// a cell, a metric, a metric defined on one side only.
	missing string
}

// compareMetrics compares the reference's rows with the product's, cell by
// cell (method and d) and metric by metric: the largest absolute
// differences, of the Hamming loss and of any metric. A metric undefined
// (nil) on both sides agrees; on one side only, it is missing.
func compareMetrics(product, ref []metricsRow) agreementStats {
	var a agreementStats
	find := func(rows []metricsRow, m string, d int) *metricsRow {
		for i := range rows {
			if rows[i].Method == m && rows[i].D == d {
				return &rows[i]
			}
		}
		return nil
	}
	note := func(s string) {
		if a.missing == "" {
			a.missing = s
		}
	}
	for _, p := range product {
		cell := fmt.Sprintf("%s, d = %d", p.Method, p.D)
		r := find(ref, p.Method, p.D)
		if r == nil {
			note(cell + ": not in the reference")
			continue
		}
		a.cells++
		if _, ok := p.Metrics[hammingLoss]; !ok {
			note(cell + ": no " + hammingLoss)
		}
		for _, key := range sortedKeys(p.Metrics) {
			pv := p.Metrics[key]
			rv, ok := r.Metrics[key]
			switch {
			case !ok:
				note(fmt.Sprintf("%s: %s not in the reference", cell, key))
				continue
			case pv == nil && rv == nil:
				continue
			case pv == nil || rv == nil || math.IsNaN(*pv) || math.IsNaN(*rv):
				note(fmt.Sprintf("%s: %s undefined on one side only", cell, key))
				continue
			}
			d := math.Abs(*pv - *rv)
			if key == hammingLoss && (d > a.hamming || a.hammingAt == "") {
				a.hamming, a.hammingAt = d, cell
			}
			if d > a.worst || a.worstOf == "" {
				a.worst, a.worstOf, a.worstWhat = d, key, cell
			}
		}
	}
	for _, r := range ref {
		if find(product, r.Method, r.D) == nil {
			note(fmt.Sprintf("%s, d = %d: not in the product's metrics", r.Method, r.D))
		}
	}
	if a.cells == 0 {
		note("no cell to compare")
	}
	return a
}

// sortedKeys are m's keys in order.
func sortedKeys(m map[string]*float64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// benchEval runs the evaluation rows on sets: it builds the webapp (unless
// -webapp names one), starts it over an empty data directory under the
// cache and uploads each data set and the tiny one; then for each set it
// times -reps evaluation jobs (evalJobBody) through the HTTP API, each in a
// webapp run of its own after a job on the tiny data set (freshJob: a
// new user's job), reads the last job's metrics and folds, and unless skip
// says why not runs the numpy + scikit-learn script on the same file and
// folds, and compares their metrics. Trouble before the jobs (build,
// start, upload) is an error; a failed job is the row's failed side.
func benchEval(ctx context.Context, cfg config, sets []evalSet, skip string, log io.Writer) ([]row, error) {
	work, bin, err := webappWork(ctx, cfg, "eval-webapp-", log)
	defer os.RemoveAll(work)
	if err != nil {
		return nil, err
	}
	dataDir := filepath.Join(work, "data")
	c := &http.Client{}
	uploaded, tinyID, err := uploadEvalSets(ctx, c, bin, dataDir, work, sets)
	if err != nil {
		return nil, err
	}
	warmBody, err := jobBody(tinyID, "pca", 1)
	if err != nil {
		return nil, err
	}
	fmt.Fprintln(log)
	var rows []row
	for i, set := range sets {
		up := uploaded[i]
		fmt.Fprintf(log, "  %s (%s): jobs…", set.name, up.text())
		body, err := evalJobBody(up.ID, cfg.seed)
		if err != nil {
			return nil, err
		}
		var last evalResults
		r := row{work: set.name, size: up.text(), kind: kindEval, np: outcome{skipped: true}, sp: outcome{skipped: true}}
		r.goSide, r.phases = timeJobs(ctx, cfg.reps, cfg.warmupUnder, 0, func() (jobRun, error) {
			return freshJob(ctx, c, bin, dataDir, warmBody, body, func(base string, j jobState) (err error) {
				last, err = readEvalResults(ctx, c, base, j.ID, up.Rows)
				return err
			})
		})
		fmt.Fprintf(log, " %s s; numpy + scikit-learn…", formatSeconds(sideMedian(r.goSide)))
		if r.goSide.err == nil && skip == "" {
			folds := filepath.Join(work, set.name+"-folds.txt")
			if err := writeFolds(folds, last.folds); err != nil {
				return nil, err
			}
			r.np = runChild(ctx, cfg.python, sklearnEvalArgs(sklearnScript(cfg.script), set, folds, cfg.reps, cfg.warmupUnder.Seconds())...)
			if r.np.err == nil {
				a := compareMetrics(last.means, r.np.res.Rows)
				r.agree = &a
			}
		}
		fmt.Fprintf(log, " %s s\n", formatSeconds(sideMedian(r.np)))
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// uploadEvalSets starts the webapp over dataDir, uploads every set (with
// its XML labels) and the tiny data set of the warm-up jobs (written to
// work), and stops it.
func uploadEvalSets(ctx context.Context, c *http.Client, bin, dataDir, work string, sets []evalSet) (_ []uploadedSet, tinyID string, err error) {
	tiny := filepath.Join(work, "tiny.csv")
	if err := os.WriteFile(tiny, tinyCSV(), 0o644); err != nil {
		return nil, "", fmt.Errorf("the tiny data set: %w", err)
	}
	app, err := startWebapp(ctx, bin, dataDir)
	if err != nil {
		return nil, "", err
	}
	defer func() {
		if _, serr := app.stop(); err == nil {
			err = serr
		}
	}()
	var ups []uploadedSet
	for _, s := range sets {
		up, _, err := uploadFile(ctx, c, app.url, s.file, s.xml)
		if err != nil {
			return nil, "", fmt.Errorf("the data set %s: %w", s.name, err)
		}
		ups = append(ups, up)
	}
	t, _, err := uploadFile(ctx, c, app.url, tiny, "")
	return ups, t.ID, err
}
