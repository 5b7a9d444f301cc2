package evaluate

import (
	"fmt"
	"maps"
	"slices"

	"mldr/internal/analysis"
)

// The rows of a run and their averaging: the cells that collect each fold's
// row (cellKey, add, addPoints, addRow) and the Result of their mean rows.

// Row is the metrics of one method at one d on one fold, or (Fold nil) their
// mean over the folds, with the sample standard deviation in Std when there
// are several.
//
// FitSeconds is the wall time of the fit this row's model came from, on
// the fold's training part (0 for ori; the same fit serves every d of a
// grid, so each of those rows carries it). EvalSeconds is the wall time
// from the end of the fit (or of the previous d's row) to this row's
// metrics: projecting the rows, the classifier's training and prediction
// (a label-space method's regression) and the scoring; work every d shares,
// such as projecting the rows once at the largest d or a label-space
// method's one regression, is counted at the first d. A mean row carries
// the means over the folds.
type Row struct {
	// Dataset is the id of the data set of a study's row (set by the
	// caller); empty otherwise.
	Dataset string `json:"dataset,omitempty"`
	Method  string `json:"method"`
	// D is the number of columns the classifier used: the grid's d, or
	// for lda with one block per class variable (or label) the sum over
	// the variables, so that every method plots against the same axis.
	D int `json:"d"`
	// DPerVariable, for lda with blocks, is the d asked per class
	// variable (each variable gives at most K_j − 1 of it); 0 otherwise.
	DPerVariable int `json:"d_per_variable,omitempty"`
	// Percent, on a percent grid, is the requested percentage this row
	// answers (two percentages may round to the same d).
	Percent *float64 `json:"percent,omitempty"`
	// DPerFold, on the mean row of a method evaluated at the d its
	// parameters choose (thr, no grid) when that d differs between the
	// folds, is each fold's d in fold order; D is then their median. The
	// mean is over every fold whatever its d.
	DPerFold    []int              `json:"d_per_fold,omitempty"`
	Fold        *int               `json:"fold"`
	Metrics     map[string]float64 `json:"metrics"`
	Std         map[string]float64 `json:"std,omitempty"`
	Folds       int                `json:"folds,omitempty"`
	FitSeconds  float64            `json:"fit_seconds"`
	EvalSeconds float64            `json:"eval_seconds"`
	// Decoder, on the rows of a label-space method, is what predicts the
	// labels there in place of the classifier: the regressor from the
	// features to the method's codes (DecoderRidge, DecoderKernelRidge,
	// DecoderLEML), whose predictions the method decodes to labels, and
	// DecoderLambda its λ. Empty on the other rows.
	Decoder       string   `json:"decoder,omitempty"`
	DecoderLambda *float64 `json:"decoder_lambda,omitempty"`

	// Transductive says the method (mds, analysis.Method.Transductive)
	// was fitted on the split's training and test rows together, their
	// labels left out, and the classifier trained and tested on the rows'
	// coordinates in that one embedding (see Run).
	Transductive bool `json:"transductive,omitempty"`
}

// Result is a run's rows — for each method (ori first) and d, one row per
// fold then the mean row — and notes on what was skipped.
type Result struct {
	Rows  []Row    `json:"rows"`
	Notes []string `json:"notes,omitempty"`
	// RowErrors, with Spec.RowErrors, has one entry per cell, in the order
	// of the mean rows of Rows; nil otherwise.
	RowErrors []RowErrors `json:"-"`
	// Propensity is the A and B the propensity-scored metrics were
	// computed with (Options.PsA and PsB, or their defaults); nil on
	// multi-dimensional data, which has none.
	Propensity *Propensity `json:"-"`
}

// Propensity is the propensity model's parameters (InversePropensities).
type Propensity struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

// cellKey identifies the rows averaged together: a method at one grid
// value (d, or for lda with blocks d per variable) and, on a percent grid,
// one requested percentage.
type cellKey struct {
	method    string
	d         int
	percent   float64
	byPercent bool
	// own is a method at the d its parameters choose (no grid), which
	// may differ between the folds: one cell whatever d (d is 0).
	own bool
}

func (r *runner) add(method string, d, fold int, metrics map[string]float64) {
	r.addRow(cellKey{method: method, d: d}, Row{Method: method, D: d}, fold, metrics)
}

// addPoints adds a method's metrics at d for every grid point that asks
// for d (on a percent grid, one row per percentage).
func (r *runner) addPoints(method string, pts []point, fold int, metrics map[string]float64) {
	for _, pt := range pts {
		r.addRow(pt.key(method), Row{Method: method, D: pt.d, Percent: pt.percent}, fold, maps.Clone(metrics))
	}
}

// addRow adds one fold's row to its cell.
func (r *runner) addRow(k cellKey, row Row, fold int, metrics map[string]float64) {
	if _, ok := r.cells[k]; !ok {
		r.order = append(r.order, k)
	}
	f := fold + 1
	end := r.clock()
	row.Fold, row.Metrics = &f, metrics
	if d, ok := r.decoders[row.Method]; ok {
		row.Decoder, row.DecoderLambda = d.Regressor, &d.Lambda
	}
	if m, ok := analysis.Lookup(k.method); ok && m.Transductive {
		row.Transductive = true
	}
	row.FitSeconds, row.EvalSeconds = r.lastFit.Seconds(), max(end.Sub(r.mark), 0).Seconds()
	r.mark = end
	r.cells[k] = append(r.cells[k], row)
	for _, n := range whyUndefined(metrics, r.splits[fold].Name) {
		r.note("%s", n)
	}
}

// result averages the folds of every cell.
func (r *runner) result() *Result {
	res := &Result{Notes: r.notes}
	if o := r.spec.Options; !r.data.MultiDim() {
		res.Propensity = &Propensity{A: o.PsA, B: o.PsB}
	}
	for _, k := range r.order {
		rows := r.cells[k]
		res.Rows = append(res.Rows, rows...)
		first := rows[0]
		mean := Row{Method: k.method, D: first.D, DPerVariable: first.DPerVariable, Percent: first.Percent, Metrics: map[string]float64{}, Folds: len(rows),
			Decoder: first.Decoder, DecoderLambda: first.DecoderLambda,
			Transductive: first.Transductive}
		lo, hi := first.D, first.D
		for _, row := range rows {
			lo, hi = min(lo, row.D), max(hi, row.D)
		}
		switch {
		case lo != hi && k.own:
			// The d its parameters chose differs between the folds: one
			// mean over every fold, each fold's d kept.
			for _, row := range rows {
				mean.DPerFold = append(mean.DPerFold, row.D)
			}
			ds := slices.Sorted(slices.Values(mean.DPerFold))
			mean.D = ds[(len(ds)-1)/2]
			for _, row := range rows {
				if row.DPerVariable != first.DPerVariable {
					mean.DPerVariable = 0 // it differs too: d_per_fold has the columns used
				}
			}
			res.Notes = append(res.Notes, fmt.Sprintf("%s: the d its parameters chose on each fold's training part was %d to %d "+
				"depending on the fold; its mean row is over all %d folds, with each fold's d in d_per_fold and their median in d",
				k.method, lo, hi, len(rows)))
		case lo != hi: // lda: a variable with a class missing from a training part gives fewer columns there
			mean.D = hi
			res.Notes = append(res.Notes, fmt.Sprintf("%s: d = %d per class variable used %d to %d columns depending on the fold; "+
				"its mean row gives the largest", k.method, k.d, lo, hi))
		}
		if len(rows) > 1 {
			mean.Std = map[string]float64{}
		}
		for _, row := range rows {
			mean.FitSeconds += row.FitSeconds / float64(len(rows))
			mean.EvalSeconds += row.EvalSeconds / float64(len(rows))
		}
		vals := make([]float64, len(rows))
		for key := range rows[0].Metrics {
			for i, row := range rows {
				vals[i] = row.Metrics[key]
			}
			mu, sd := meanStd(vals) // over the folds where it is defined
			mean.Metrics[key] = mu
			if len(rows) > 1 {
				mean.Std[key] = sd
			}
		}
		res.Rows = append(res.Rows, mean)
		if e, ok := r.cellErrors(k, mean); ok {
			res.RowErrors = append(res.RowErrors, e)
		}
	}
	return res
}
