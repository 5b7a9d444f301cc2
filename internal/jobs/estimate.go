package jobs

import (
	"fmt"
	"slices"

	"mldr/internal/analysis"
	"mldr/internal/evaluate"
	"mldr/internal/preprocess"
	"mldr/internal/store"
)

// The memory estimate of a job (Estimate, EstimateJob): the data as loaded,
// each method's fit, model and result files, and the evaluation, from the
// analysis and evaluate packages' estimates on the job's shape.

// JobOverhead is what a job's process holds besides its data and its work:
// the Go runtime, the program and its buffers.
const JobOverhead = 64 << 20

// jsonBytesPerNumber bounds what the indented JSON encoding of one float64
// holds at its peak: the compact encoding and its indented copy (about
// 104 bytes per number measured with go1.26 on a 2000 × 500 matrix of
// random values written like projection.json, whose file has 30 bytes per
// number).
const jsonBytesPerNumber = 128

// nameBytes is what one feature or label name is taken to hold (the string
// and its header), for the names a loaded data set and the manifest carry.
const nameBytes = 64

// Estimate is what a job will hold at its peak, in bytes, by part. The
// methods run one after another, then the evaluation; the data are held
// throughout, and so is each method's model once fitted (the executor's
// cache keeps it).
type Estimate struct {
	// Overhead is JobOverhead.
	Overhead int64
	// Data is the data as loaded: X and Y of the training set (and of the
	// test set, and their stacked copy), the copy of the fit rows of a
	// holdout, the names, and the rows of each split.
	Data int64
	// Methods holds each method's part, in the order they run.
	Methods []MethodEstimate
	// Evaluation is evaluate.Run's work (every method on every split and
	// the baseline), 0 without an evaluation; Kept is the models held while
	// it runs.
	Evaluation, Kept int64
	// Peak is Overhead + Data + the largest phase: a method's or the
	// evaluation's.
	Peak int64
}

// MethodEstimate is one method's part of a job.
type MethodEstimate struct {
	ID string
	// Fit is analysis.EstimateMemory for the fit rows.
	Fit int64
	// Model is what the fitted model holds (its directions and projected
	// rows), kept for the rest of the job.
	Model int64
	// Write is what writing its result files holds besides the model: the
	// projection's copies and JSON encodings, the projected rows.
	Write int64
	// Kept is the models of the methods before it, still held.
	Kept int64
	// Shared is what the fits before it left for the next ones to share
	// (analysis.SharedBytes: with fewer rows than features, the
	// factorisations of the rows), held until the last method's fit.
	Shared int64
}

// Phase is what the method holds at its peak besides the data: its fit or
// its model being written, with the models kept before it and what the
// fits before it share.
func (m MethodEstimate) Phase() int64 { return m.Kept + m.Shared + max(m.Fit, m.Model+m.Write) }

// estimators are the memory estimates of the fits and the evaluation;
// tests replace them to pin the messages to known figures.
type estimators struct {
	fit  func(id string, p analysis.Params, s analysis.Shape) (int64, error)
	eval func(s analysis.Shape, testRows int, spec evaluate.Spec) (int64, error)
}

func realEstimators() estimators {
	return estimators{fit: analysis.EstimateMemory, eval: evaluate.EstimateMemory}
}

// EstimateJob returns what the job of a normalized request will hold at
// its peak, on the records of its training set and (with a TestDataset)
// its test set. Where a record does not know its count of distinct label
// sets, one per row is assumed. An unknown method is an error.
func EstimateJob(req Request, train, test store.DatasetRecord) (Estimate, error) {
	return estimateShape(req, shapeOfJob(req, train, test), realEstimators())
}

func estimateShape(req Request, sh jobShape, est estimators) (Estimate, error) {
	all, dq := int64(sh.all()), int64(sh.d+sh.q)
	q := int64(sh.q)
	e := Estimate{Overhead: JobOverhead}
	// X and Y as loaded: each dense or sparse as each data set stores it.
	e.Data = sh.featureBytes(sh.trainSparse, sh.train, sh.trainNNZ) + sh.featureBytes(sh.testSparse, sh.test, sh.testNNZ) +
		sh.labelBytes(sh.trainLabelsSparse, sh.train, sh.trainOnes) + sh.labelBytes(sh.testLabelsSparse, sh.test, sh.testOnes)
	records := int64(1)
	if sh.test > 0 {
		e.Data += sh.featureBytes(sh.sparse, sh.all(), sh.nnz()) + sh.labelBytes(sh.labelsSparse(), sh.all(), sh.trainOnes+sh.testOnes) // the stacked copy
		if sh.sparse && !sh.testSparse {
			e.Data += sh.featureBytes(true, sh.test, sh.testNNZ) // the dense test set's CSR, stacked
		} else if sh.sparse && !sh.trainSparse {
			e.Data += sh.featureBytes(true, sh.train, sh.trainNNZ)
		}
		records = 2
	}
	if sh.fit < sh.train && sh.test == 0 {
		e.Data += sh.featureBytes(sh.sparse, sh.fit, sh.fitNNZ) + sh.labelBytes(sh.labelsSparse(), sh.fit, sh.trainOnes) // subset: the fit rows of a holdout
	}
	e.Data += 2 * nameBytes * dq * records      // names and columns of each data set
	e.Data += 24*all + 8*all*int64(sh.splits+1) // the parts and numbers of the rows, the fit rows and each split's rows
	if req.Preprocess != "" && req.Preprocess != preprocess.None {
		e.Data += 8 * int64(sh.d) * all // the scaled copy of X the result models are fitted on and project
	}
	fitShape := sh.fitShape()
	for _, id := range req.MethodIDs() {
		m, ok := analysis.Lookup(id)
		if !ok {
			return e, fmt.Errorf("estimating the memory of method %q: unknown method", id)
		}
		p := req.Params.Only(m.Takes)
		fit, err := est.fit(id, p, fitShape)
		if err != nil {
			return e, fmt.Errorf("estimating the memory of %s: %w", id, err)
		}
		me := MethodEstimate{ID: id, Fit: fit, Model: modelBytes(m, p, fitShape), Write: writeBytes(m, p, fitShape, sh.all(), sh.labelsSparse()), Kept: e.Kept}
		if len(e.Methods) > 0 {
			me.Shared = analysis.SharedBytes(fitShape)
		}
		e.Methods = append(e.Methods, me)
		e.Kept += me.Model
	}
	phase := int64(0)
	for _, m := range e.Methods {
		phase = max(phase, m.Phase())
	}
	if sh.testPart > 0 && req.Evaluate != nil {
		ev, err := est.eval(sh.allShape(), sh.testPart, sh.evalSpec(req))
		if err != nil {
			return e, fmt.Errorf("estimating the memory of the evaluation: %w", err)
		}
		if sh.labelsSparse() && !evaluate.KeepsLabelsSparse(evalSpec(req)) {
			ev += 8 * q * all // evaluate.Run's dense copy of the labels
		}
		e.Evaluation = ev
		phase = max(phase, e.Kept+ev)
	}
	e.Peak = e.Overhead + e.Data + phase
	return e, nil
}

// evalSpec is the evaluation of req as its estimate counts it: evalSpec,
// with the fits the evaluation takes from the result models (reusedFits)
// when its one split trains on the fit rows (a test set, a holdout).
func (sh jobShape) evalSpec(req Request) evaluate.Spec {
	spec := evalSpec(req)
	if sh.splits == 1 && (sh.test > 0 || sh.fit < sh.train) {
		spec.Fitted = reusedFits(req, sh.fitShape())
	}
	return spec
}

// reusedFits marks the methods whose result model (fitted on fitShape)
// the evaluation of req will take instead of fitting them again
// (evaluate.Spec.Fitted), when its one split's training part is the fit
// rows: not lda, not a transductive method (mds: the evaluation fits it
// on the training and test rows together), no grid of percentages, and every d of a grid of dims
// within the directions the model holds (analysis.ModelColumns).
func reusedFits(req Request, fitShape analysis.Shape) map[string]evaluate.Fitted {
	e := req.Evaluate
	if len(e.Percent) > 0 {
		return nil
	}
	out := map[string]evaluate.Fitted{}
	for _, id := range req.MethodIDs() {
		m, _ := analysis.Lookup(id)
		p := req.Params.Only(m.Takes)
		if id == "lda" || m.Transductive || len(e.Dims) > 0 && slices.Max(e.Dims) > analysis.ModelColumns(id, p, fitShape) {
			continue
		}
		out[id] = evaluate.Fitted{Params: p}
	}
	return out
}

// evalSpec is the evaluation the executor runs for a request; a job on
// one data set keeps the per-row errors (FileRowErrors).
func evalSpec(req Request) evaluate.Spec {
	spec := evaluationSpec(req)
	spec.RowErrors = !req.Study()
	return spec
}

// dims is the most directions a model of m keeps on shape s (its Basis's
// columns, analysis.ModelColumns), and the rows each has: D (feature space), q (label space), or
// for mds, which keeps an embedding of the rows, N.
func dims(m analysis.Method, p analysis.Params, s analysis.Shape) (cols, rows int) {
	cols = analysis.ModelColumns(m.ID, p, s)
	if m.ID == "lda" && len(s.Classes) > 1 { // one block per class variable
		cols *= len(s.Classes)
	}
	switch {
	case m.ID == "mds":
		return cols, s.N
	case m.Space == analysis.LabelSpace:
		return cols, s.Q
	case analysis.KernelBasisRows(m.ID, p, s) > 0: // dual coefficients
		return cols, analysis.KernelBasisRows(m.ID, p, s)
	}
	return cols, s.D
}

// modelBytes bounds what a fitted model of m holds: its directions, the
// projected training rows, the means and eigenvalues, and kcplst's dual
// coefficients (N×q).
func modelBytes(m analysis.Method, p analysis.Params, s analysis.Shape) int64 {
	cols, rows := dims(m, p, s)
	b := 8 * (int64(rows)*int64(cols) + int64(s.N)*int64(cols) + 2*int64(s.D+s.Q))
	if m.ID == "kcplst" {
		b += 8 * int64(s.N) * int64(s.Q)
	}
	b += 8 * int64(analysis.KernelBasisRows(m.ID, p, s)) * int64(s.D+1) // kpca, kmddm: the basis rows and k̄
	return b
}

// writeBytes bounds what writing m's result files holds besides the model
// (writeMethod): the projection P (rows × d) copied and one row of it
// encoded at a time into projection.json and model.json (writeJSONMatrix),
// the projected rows of every row of the data (all × d; label-space methods
// code the labels first, mds spreads its rows), the names, means and
// eigenvalues in both JSON files. projection.csv, projection.npy and the
// projected rows (FileProjectedRows) are streamed.
func writeBytes(m analysis.Method, p analysis.Params, s analysis.Shape, all int, labelsSparse bool) int64 {
	cols, rows := dims(m, p, s)
	d := int64(cols)
	if p.D > 0 {
		d = min(d, int64(p.D))
	}
	if m.ID == "mds" {
		rows = 0 // no projection
	}
	r, n := int64(rows), int64(all)
	b := 8*r*d + 2*jsonBytesPerNumber*d
	b += 8*n*d + 8*n // projected rows, their order
	switch {
	case m.Space == analysis.LabelSpace && !labelsSparse: // sparse labels project as they are
		b += 8 * n * int64(s.Q)
	case m.ID == "mds":
		b += 8 * n * d
	}
	b += 2 * (jsonBytesPerNumber + nameBytes) * int64(s.D+s.Q+cols)
	if k := int64(analysis.KernelBasisRows(m.ID, p, s)); k > 0 {
		// kpca, kmddm: model.json's basis rows, marshalled whole, and the
		// rows' names and means.
		b += (8+jsonBytesPerNumber)*k*int64(s.D) + 2*(jsonBytesPerNumber+nameBytes)*k
	}
	return b
}
