package jobs

import (
	"gonum.org/v1/gonum/mat"

	"mldr/internal/analysis"
	"mldr/internal/sparse"
)

// featuresOf is the feature matrix of in as it is held: X, or the
// *sparse.CSR of sparse features (which analysis.Model.Transform takes as
// it is).
func featuresOf(in analysis.Input) mat.Matrix {
	if in.Sparse != nil {
		return in.Sparse
	}
	return in.X
}

// stackInputs stacks the rows of a training set's input over a test set's,
// for a job with a test data set. Two dense inputs stack dense. When
// either is sparse the stack is sparse: the dense one is converted with
// sparse.FromDense (its non-zero cells), so that a sparse training set is
// never made dense because its test set is stored dense (a small test set
// of the same features may be). The labels stack sparse when both sets
// hold them sparse, else dense. Classes and names are a's.
func stackInputs(a, b analysis.Input) analysis.Input {
	out := analysis.Input{Classes: a.Classes, FeatureNames: a.FeatureNames}
	if a.Labels != nil && b.Labels != nil {
		out.Labels = sparse.Stack(a.Labels, b.Labels)
	} else {
		var ys mat.Dense
		ys.Stack(denseLabels(a), denseLabels(b))
		out.Y = &ys
	}
	if a.Sparse == nil && b.Sparse == nil {
		var xs mat.Dense
		xs.Stack(a.X, b.X)
		out.X = &xs
		return out
	}
	out.Sparse = sparse.Stack(csrOf(a), csrOf(b))
	return out
}

// denseLabels is in's labels dense: Y, or a dense copy of Labels.
func denseLabels(in analysis.Input) *mat.Dense {
	if in.Labels != nil {
		return in.Labels.Dense()
	}
	return in.Y
}

// csrOf is in's features in CSR form: Sparse, or X's non-zero cells.
func csrOf(in analysis.Input) *sparse.CSR {
	if in.Sparse != nil {
		return in.Sparse
	}
	return sparse.FromDense(in.X)
}
