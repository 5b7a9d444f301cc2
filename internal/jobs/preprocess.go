package jobs

import (
	"fmt"
	"net/http"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/analysis"
	"mldr/internal/dataset"
	"mldr/internal/evaluate"
	"mldr/internal/preprocess"
	"mldr/internal/store"
)

// checkPreprocess refuses an unknown preprocessing (400, field
// "preprocess"); "" counts as none.
func (r *Request) checkPreprocess() error {
	if !preprocess.Valid(r.Preprocess) {
		return reqErr(http.StatusBadRequest, "preprocess", "preprocess must be %s, not %q", joinOr(preprocess.Kinds()), r.Preprocess)
	}
	return nil
}

// checkSparsePreprocess refuses (422, field "preprocess") a preprocessing
// other than none on a data set stored sparse (rec, the training or the
// test set; field names it in the request). Standardize and minmax
// subtract a value from every cell, which would make the features dense;
// applying their scale alone would keep them sparse, but it gives the
// same results only to methods and classifiers that are invariant to a
// shift of the features, and cplst's ridge hat and the label-space
// methods' regressor (ridge with its bias among the penalised weights)
// are not (TestShiftChangesLabelSpace). evaluate.Run refuses it too.
func (r *Request) checkSparsePreprocess(rec store.DatasetRecord) error {
	s := rec.Summary
	if r.Preprocess == "" || r.Preprocess == preprocess.None || s.Storage != dataset.StorageSparse {
		return nil
	}
	return reqErr(http.StatusUnprocessableEntity, "preprocess", "data set %s is stored sparse (%s of its %s × %s feature cells are non-zero): %s",
		rec.Name, percent(s.Density), group(s.Rows), group(s.Features), sparsePreprocessWhy(r.Preprocess))
}

// sparsePreprocessWhy says why a preprocessing is refused on sparse
// features, and what to do.
func sparsePreprocessWhy(kind string) string {
	by := "mean"
	if kind == preprocess.MinMax {
		by = "minimum"
	}
	return fmt.Sprintf("preprocess %s would subtract each feature's %s from every cell and make the features dense, "+
		"and its scale alone would change the results of cplst and of the label-space methods' regressor, which fit the features as given; "+
		"run it with preprocess none (the methods centre the features themselves), or scale the features before you upload them", kind, by)
}

// percent writes a share as a percentage for a sentence: "2.0 %",
// "0.035 %".
func percent(share float64) string {
	p := 100 * share
	if p >= 0.1 || p == 0 {
		return fmt.Sprintf("%.1f %%", p)
	}
	return fmt.Sprintf("%.2g %%", p)
}

// preprocessPlan fits the request's preprocessing on the fit rows and
// scales every row of the data with it into fitData, for the result
// models and projected.csv; the evaluation scales each split itself.
// With none (or "", a request stored before preprocessing existed) fitData
// is data itself.
func (p *plan) preprocessPlan(kind string) error {
	if kind == "" {
		kind = preprocess.None
	}
	p.fitData = p.data
	if kind == preprocess.None {
		p.scaler = &preprocess.Scaler{Kind: preprocess.None}
		return nil
	}
	if p.data.Sparse != nil { // Validate refuses it; a request stored before it did
		return fmt.Errorf("preprocess %s: %s", kind, sparsePreprocessWhy(kind))
	}
	sc, err := preprocess.Fit(subset(p.data, p.fitRows).X, kind, p.data.FeatureNames)
	if err != nil {
		return fmt.Errorf("preprocessing the features: %w", err)
	}
	p.scaler = sc
	p.fitData = analysis.Input{X: sc.Apply(p.data.X), Y: p.data.Y, Labels: p.data.Labels, Classes: p.data.Classes, FeatureNames: p.data.FeatureNames}
	return nil
}

// fitInput is what the result models are fitted on and project: fitData,
// or data when no preprocessing was planned.
func (p *plan) fitInput() analysis.Input {
	if p.fitData.X == nil && p.fitData.Sparse == nil {
		return p.data
	}
	return p.fitData
}

// scale applies the manifest's preprocessing to x, as a new matrix (x
// itself when there is none).
func (m *Manifest) scale(x *mat.Dense) (*mat.Dense, error) {
	sc := m.Preprocess
	if sc == nil || sc.Kind == preprocess.None || sc.Kind == "" {
		return x, nil
	}
	if _, d := x.Dims(); d != sc.Columns() {
		return nil, fmt.Errorf("the model's %s preprocessing is for %d features, and the rows have %d", sc.Kind, sc.Columns(), d)
	}
	return sc.Apply(x), nil
}

// metricsFile is metrics.json of an evaluation run with opts: the
// classifier holds its own parameters only (evaluate.Options.Ran); the
// preprocessing stands beside it, not in it; on multi-label data the
// classifier records the propensity parameters the run used (ps_a and
// ps_b, defaults included).
func metricsFile(opts evaluate.Options, split Split, res *evaluate.Result) MetricsFile {
	kind := opts.Preprocess
	opts.Preprocess = ""
	p := res.Propensity // nil on multi-dimensional data only
	if p != nil {
		opts.PsA, opts.PsB = p.A, p.B
	}
	opts = opts.Ran(p == nil)
	return MetricsFile{Classifier: opts, Preprocess: kind, Split: split, Rows: res.Rows, Notes: res.Notes}
}
