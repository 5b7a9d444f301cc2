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
		out.Labels = stackCSR(a.Labels, b.Labels)
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
	out.Sparse = stackCSR(csrOf(a), csrOf(b))
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

// stackCSR returns the rows of a over those of b as a new CSR; both have
// the same columns (sameColumns checked the records).
func stackCSR(a, b *sparse.CSR) *sparse.CSR {
	if a.C != b.C {
		panic("jobs: stacking sparse rows of different widths") // the request's check makes them equal
	}
	nnz := int64(a.NNZ() + b.NNZ())
	out := &sparse.CSR{R: a.R + b.R, C: a.C, Ptr: make([]int64, 0, a.R+b.R+1), Ind: make([]int32, 0, nnz), Val: make([]float64, 0, nnz)}
	for _, p := range a.Ptr {
		out.Ptr = append(out.Ptr, p-a.Ptr[0])
	}
	base := a.Ptr[a.R] - a.Ptr[0]
	for _, p := range b.Ptr[1:] {
		out.Ptr = append(out.Ptr, base+p-b.Ptr[0])
	}
	out.Ind = append(append(out.Ind, a.Ind[a.Ptr[0]:a.Ptr[a.R]]...), b.Ind[b.Ptr[0]:b.Ptr[b.R]]...)
	out.Val = append(append(out.Val, a.Val[a.Ptr[0]:a.Ptr[a.R]]...), b.Val[b.Ptr[0]:b.Ptr[b.R]]...)
	return out
}
