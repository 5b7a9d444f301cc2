package evaluate

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/sparse"
)

// RowErrors are the per-row errors of the classifier of one cell of a run
// (a method at one grid value, and on a percent grid one percentage), for
// every row of the data Run was given, by its index there:
//
//   - Hamming is the row's Hamming loss: the fraction of its label
//     decisions that are wrong (multi-label data), or of its class
//     variables predicted wrong, 1 − its hamming score (multi-dimensional
//     data).
//   - Exact is its exact-match failure: 1 when any decision (any class
//     variable) is wrong, 0 when all are right.
//
// Each value is measured on the split whose test part holds the row, so
// that the mean of Hamming over a fold's test rows is that fold's
// hamming_loss (1 − hamming_score), and the mean of Exact is 1 −
// subset_accuracy (1 − exact_match). A row no split tests (a training row
// of a holdout or of a test set) is NaN in both. A row that several splits
// test (predefined folds may) keeps the value of the first split that
// tests it, in the order of the splits.
//
// Label-space methods are scored on their decoded labels, lda with one
// block per class variable on the prediction assembled from its blocks:
// the predictions the metrics are computed from.
//
// On multi-label data the same rows also give each label's decisions,
// summed over the rows whose errors are kept (each row once, as tested
// by the first split that tests it): TP (the row has the label and it was
// predicted), FP (predicted, not had) and FN (had, not predicted). With
// k-fold splits every row is counted once, so TP + FN is the label's
// number of rows. They are nil on multi-dimensional data.
type RowErrors struct {
	// Method, D, DPerVariable and Percent name the cell as its mean Row
	// does.
	Method       string
	D            int
	DPerVariable int
	Percent      *float64
	// Hamming and Exact have one value per row of the data. Two cells of a
	// percent grid whose percentages give the same d share the slices.
	Hamming, Exact []float32
	// TP, FP and FN have one count per label (multi-label data only).
	TP, FP, FN []int32
}

// RowErrorBytes is the memory per row and cell that Spec.RowErrors costs:
// two float32.
const RowErrorBytes = 8

// errKey identifies the per-row errors of a method at one grid value (d,
// or for lda with blocks d per variable); the percentages that give the
// same d share them.
type errKey struct {
	method string
	d      int
}

// LabelCountBytes is the memory per label and cell that Spec.RowErrors
// costs on multi-label data: three int32 counts (RowErrors.TP, FP, FN).
const LabelCountBytes = 12

// rowErrors holds the values of one errKey.
type rowErrors struct {
	hamming, exact []float32
	tp, fp, fn     []int32 // per label; nil on multi-dimensional data
}

// recordErrors stores, when the spec asks for them, the per-row errors of
// the predictions pred of split f's test rows (test's rows, in the order
// of the split's Test) for method at grid value d. A row that already has a
// value (a previous split tested it) keeps it. test and pred are both
// dense, or both *sparse.CSR (labels held sparse: the k-NN vote's decided
// labels), whose rows hold the ones in ascending order.
func (r *runner) recordErrors(method string, d, f int, test, pred mat.Matrix, multiDim bool) {
	if !r.spec.RowErrors {
		return
	}
	k := errKey{method: method, d: d}
	e := r.rowErrs[k]
	if e == nil {
		n, q := r.data.LabelDims()
		e = &rowErrors{hamming: nanSlice(n), exact: nanSlice(n)}
		if !multiDim {
			e.tp, e.fp, e.fn = make([]int32, q), make([]int32, q), make([]int32, q)
		}
		if r.rowErrs == nil {
			r.rowErrs = map[errKey]*rowErrors{}
		}
		r.rowErrs[k] = e
	}
	_, q := test.Dims()
	wrongOf := denseWrong(test, pred, multiDim, e)
	if ts, ok := test.(*sparse.CSR); ok {
		wrongOf = sparseWrong(ts, pred.(*sparse.CSR), e)
	}
	for i, row := range r.splits[f].Test {
		if !math.IsNaN(float64(e.hamming[row])) {
			continue // the first split that tests the row keeps it
		}
		wrong := wrongOf(i)
		e.hamming[row] = float32(float64(wrong) / float64(q))
		e.exact[row] = 0
		if wrong > 0 {
			e.exact[row] = 1
		}
	}
}

// denseWrong counts the wrong labels (class variables) of row i of dense
// predictions, and on multi-label data adds the row's decisions to e's
// per-label counts.
func denseWrong(test, pred mat.Matrix, multiDim bool, e *rowErrors) func(i int) int {
	return func(i int) int {
		yi, pi := test.(*mat.Dense).RawRowView(i), pred.(*mat.Dense).RawRowView(i)
		wrong := 0
		for j := range yi {
			if multiDim {
				if yi[j] != pi[j] {
					wrong++
				}
				continue
			}
			switch had, said := yi[j] != 0, pi[j] != 0; { // as MultiLabelMetrics decides
			case had && said:
				e.tp[j]++
			case said:
				e.fp[j]++
				wrong++
			case had:
				e.fn[j]++
				wrong++
			}
		}
		return wrong
	}
}

// sparseWrong counts the labels in one of row i's sets but not both, and
// adds the row's decisions to e's per-label counts.
func sparseWrong(test, pred *sparse.CSR, e *rowErrors) func(i int) int {
	return func(i int) int {
		a, _ := test.Row(i)
		b, _ := pred.Row(i)
		ia, ib, wrong := 0, 0, 0
		for ia < len(a) || ib < len(b) {
			switch {
			case ib == len(b) || (ia < len(a) && a[ia] < b[ib]):
				e.fn[a[ia]]++
				ia++
				wrong++
			case ia == len(a) || b[ib] < a[ia]:
				e.fp[b[ib]]++
				ib++
				wrong++
			default:
				e.tp[a[ia]]++
				ia++
				ib++
			}
		}
		return wrong
	}
}

// cellErrors returns the per-row errors of a cell, described by its mean
// row, and whether the run kept them.
func (r *runner) cellErrors(k cellKey, mean Row) (RowErrors, bool) {
	e := r.rowErrs[errKey{method: k.method, d: k.d}]
	if e == nil {
		return RowErrors{}, false
	}
	return RowErrors{Method: mean.Method, D: mean.D, DPerVariable: mean.DPerVariable, Percent: mean.Percent,
		Hamming: e.hamming, Exact: e.exact, TP: e.tp, FP: e.fp, FN: e.fn}, true
}

// nanSlice is n NaN.
func nanSlice(n int) []float32 {
	s := make([]float32, n)
	nan := float32(math.NaN())
	for i := range s {
		s[i] = nan
	}
	return s
}
