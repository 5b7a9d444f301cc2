package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/evaluate"
)

// The ML-kNN rows (-sizes mlknn): ML-kNN alone, fitted on the first
// mlknnTrain of N generated rows and predicting the rest, in the product
// (evaluate.MLkNN) and in numpy + scikit-learn.
const (
	// workMLkNN is the ML-kNN rows' name in -methods.
	workMLkNN = "mlknn"
	// mlknnFeatures and mlknnLabels are the data's D and q.
	mlknnFeatures = 10
	mlknnLabels   = 100
	// mlknnTrain is the share of the rows, the first ones, trained on.
	mlknnTrain = 0.8
	// mlknnK and mlknnS are ML-kNN's k and s (the product's defaults), for
	// the ML-kNN rows and the evaluation rows alike.
	mlknnK = evaluate.DefaultK
	mlknnS = evaluate.DefaultS
)

// mlknnTrainRows is how many of n rows the ML-kNN rows train on.
func mlknnTrainRows(n int) int { return int(math.Round(mlknnTrain * float64(n))) }

// sklearnScript is the numpy + scikit-learn reference of the evaluation
// and ML-kNN rows, beside the numpy one.
func sklearnScript(numpyScript string) string {
	return filepath.Join(filepath.Dir(numpyScript), "sklearn_eval.py")
}

// mlknnRun returns the Go child's timed work for the ML-kNN rows: the
// product's ML-kNN (evaluate.MLkNN with k and s) fitted on the first ntr
// rows of x and y, predicting the others; and finish, which scores the
// last run's predictions of the test rows (evaluate.MultiLabelMetrics),
// after the clock.
func mlknnRun(ctx context.Context, x, y *mat.Dense, ntr int) (run func() error, finish func() map[string]*float64, err error) {
	n, d := x.Dims()
	ny, q := y.Dims()
	if ny != n || ntr <= mlknnK || ntr >= n {
		return nil, nil, fmt.Errorf("ML-kNN: %d training rows of %d (%d rows of labels), want more than k = %d and fewer than all", ntr, n, ny, mlknnK)
	}
	xtr, xte := x.Slice(0, ntr, 0, d).(*mat.Dense), x.Slice(ntr, n, 0, d).(*mat.Dense)
	ytr, yte := y.Slice(0, ntr, 0, q).(*mat.Dense), y.Slice(ntr, n, 0, q).(*mat.Dense)
	var pred, post *mat.Dense
	run = func() error {
		m, err := evaluate.MLkNN{K: mlknnK, S: mlknnS}.Fit(ctx, xtr, ytr)
		if err != nil {
			return fmt.Errorf("ML-kNN: %w", err)
		}
		if pred, post, err = m.Predict(ctx, xte); err != nil {
			return fmt.Errorf("ML-kNN: %w", err)
		}
		return nil
	}
	finish = func() map[string]*float64 { return jsonMetrics(evaluate.MultiLabelMetrics(yte, pred, post)) }
	return run, finish, nil
}

// jsonMetrics is m with NaN (undefined) as nil, as metrics.json gives it.
func jsonMetrics(m map[string]float64) map[string]*float64 {
	out := make(map[string]*float64, len(m))
	for k, v := range m {
		if !math.IsNaN(v) {
			out[k] = &v
		}
	}
	return out
}

// sklearnMLkNNArgs are the arguments of the numpy + scikit-learn script
// for an ML-kNN row: the same files, training rows, k and s.
func sklearnMLkNNArgs(script string, t task) []string {
	return []string{script, "mlknn", "--x", t.X, "--y", t.Y, "--train-rows", strconv.Itoa(t.TrainRows),
		"--k", strconv.Itoa(mlknnK), "--s", strconv.FormatFloat(mlknnS, 'g', -1, 64),
		"--reps", strconv.Itoa(t.Reps), "--warmup-under", strconv.FormatFloat(t.WarmupUnder, 'g', -1, 64)}
}

// benchMLkNN runs one ML-kNN row: the Go child (evaluate.MLkNN's Fit and
// Predict) and, unless skip says why not, the numpy + scikit-learn script
// on the same files. It logs each side's median to log.
func benchMLkNN(ctx context.Context, cfg config, self string, c benchCase, skip string, log io.Writer) (row, error) {
	files, err := provideData(ctx, self, cfg.cacheDir, c, cfg.seed, log)
	if err != nil {
		return row{}, fmt.Errorf("%s, %s: %w", c.work, c.text(), err)
	}
	t := task{Work: c.work, X: files.X, Y: files.Y, Reps: cfg.reps, WarmupUnder: cfg.warmupUnder.Seconds(), TrainRows: mlknnTrainRows(c.size.n)}
	args, err := goChildArgs(t)
	if err != nil {
		return row{}, err
	}
	fmt.Fprint(log, "Go…")
	r := row{work: c.work, size: c.text(), kind: kindMLkNN, goSide: runChild(ctx, self, args...), sp: outcome{skipped: true}}
	fmt.Fprintf(log, " %s s; numpy + scikit-learn…", formatSeconds(sideMedian(r.goSide)))
	r.np.skipped = true
	if skip == "" {
		r.np = runChild(ctx, cfg.python, sklearnMLkNNArgs(sklearnScript(cfg.script), t)...)
	}
	fmt.Fprintf(log, " %s s\n", formatSeconds(sideMedian(r.np)))
	r.agree = mlknnAgreement(r)
	return r, ctx.Err()
}
