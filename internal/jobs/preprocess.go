package jobs

import (
	"fmt"
	"net/http"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/analysis"
	"mldr/internal/evaluate"
	"mldr/internal/preprocess"
)

// checkPreprocess refuses an unknown preprocessing (400, field
// "preprocess"); "" counts as none.
func (r *Request) checkPreprocess() error {
	if !preprocess.Valid(r.Preprocess) {
		return reqErr(http.StatusBadRequest, "preprocess", "preprocess must be %s, not %q", joinOr(preprocess.Kinds()), r.Preprocess)
	}
	return nil
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
	sc, err := preprocess.Fit(subset(p.data, p.fitRows).X, kind, p.data.FeatureNames)
	if err != nil {
		return fmt.Errorf("preprocessing the features: %w", err)
	}
	p.scaler = sc
	p.fitData = analysis.Input{X: sc.Apply(p.data.X), Y: p.data.Y, Classes: p.data.Classes, FeatureNames: p.data.FeatureNames}
	return nil
}

// fitInput is what the result models are fitted on and project: fitData,
// or data when no preprocessing was planned.
func (p *plan) fitInput() analysis.Input {
	if p.fitData.X == nil {
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
// preprocessing stands beside the classifier, not in it.
func metricsFile(opts evaluate.Options, split Split, res *evaluate.Result) MetricsFile {
	kind := opts.Preprocess
	opts.Preprocess = ""
	return MetricsFile{Classifier: opts, Preprocess: kind, Split: split, Rows: res.Rows, Notes: res.Notes}
}
