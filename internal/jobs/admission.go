package jobs

import (
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"

	"mldr/internal/analysis"
	"mldr/internal/dataset"
	"mldr/internal/evaluate"
	"mldr/internal/plots"
	"mldr/internal/preprocess"
	"mldr/internal/sparse"
	"mldr/internal/store"
)

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

// jobShape is what a job's memory depends on.
type jobShape struct {
	train, test int // rows of the training set and of the test set (0: none)
	fit         int // rows the result models are fitted on
	testPart    int // rows of the largest test part of a split; 0 without an evaluation
	splits      int // splits whose row lists are held
	d, q        int
	classes     []int
	sets        int // distinct label sets of the training set and of the test set, together
	fitSets     int // distinct label sets of the fit rows, at most
	// ones and fitOnes bound the ones of the label matrix (multi-label
	// data) of every row and of the fit rows; 0: unknown.
	ones, fitOnes int
	// With sparse features (the training set, or the test set, stored
	// sparse: the job then holds every row sparse, see stackInputs),
	// trainNNZ and testNNZ are the non-zero cells of each set and fitNNZ
	// bounds those of the fit rows; trainSparse and testSparse say how
	// each set is loaded. All are zero for dense data.
	sparse                    bool
	trainSparse, testSparse   bool
	trainNNZ, testNNZ, fitNNZ int64
	// trainLabelsSparse and testLabelsSparse say that each set holds its
	// labels sparse (Summary.LabelStorage) and how many ones they have is
	// known; the job then holds them sparse (a stack of both only when
	// both are), and the evaluation makes a dense copy of every row's.
	trainLabelsSparse, testLabelsSparse bool
	trainOnes, testOnes                 int
}

// labelsSparse reports whether the job holds the labels of every row
// sparse (stackInputs).
func (s jobShape) labelsSparse() bool {
	return s.trainLabelsSparse && (s.test == 0 || s.testLabelsSparse)
}

// labelBytes is what the labels of r rows with ones ones hold: CSR when
// held sparse, else r × q float64s.
func (s jobShape) labelBytes(sparseRows bool, r, ones int) int64 {
	if sparseRows {
		return sparse.SparseBytes(r, int64(ones))
	}
	return 8 * int64(r) * int64(s.q)
}

// nnz is the non-zero cells of every row, with sparse features.
func (s jobShape) nnz() int64 { return s.trainNNZ + s.testNNZ }

// nonZeros is what a record says of its non-zero feature cells; rows ×
// features in a record made before it counted them.
func nonZeros(rec store.DatasetRecord) int64 {
	if rec.Summary.Storage == "" {
		return int64(rec.Summary.Rows) * int64(rec.Summary.Features)
	}
	return rec.Summary.NonZeros
}

// featureBytes is what the features of r rows with nnz non-zero cells
// hold: CSR with sparse features, else r × d float64s.
func (s jobShape) featureBytes(sparseRows bool, r int, nnz int64) int64 {
	if sparseRows {
		return sparse.SparseBytes(r, nnz)
	}
	return 8 * int64(r) * int64(s.d)
}

func (s jobShape) all() int { return s.train + s.test }

// fitShape is the shape the result models are fitted on.
func (s jobShape) fitShape() analysis.Shape {
	sh := analysis.Shape{N: s.fit, D: s.d, Q: s.q, Classes: s.classes, LabelSets: s.fitSets, LabelOnes: min(s.fitOnes, s.fit*s.q)}
	if s.sparse {
		sh.NNZ = max(1, min(s.fitNNZ, int64(s.fit)*int64(s.d)))
	}
	return sh
}

// allShape is the shape of every row, as the evaluation sees it.
func (s jobShape) allShape() analysis.Shape {
	sh := analysis.Shape{N: s.all(), D: s.d, Q: s.q, Classes: s.classes, LabelSets: s.sets, LabelOnes: min(s.ones, s.all()*s.q), LabelsSparse: s.labelsSparse()}
	if s.sparse {
		sh.NNZ = max(1, min(s.nnz(), int64(s.all())*int64(s.d)))
	}
	return sh
}

// labelSets is a record's count of distinct label sets, or when the record
// does not know it (0), the worst case: one per row.
func labelSets(rec store.DatasetRecord) int {
	if g := rec.Summary.DistinctLabelsets; g > 0 {
		return min(g, rec.Summary.Rows)
	}
	return rec.Summary.Rows
}

// labelOnes is the number of ones of a multi-label record's label matrix
// (its cardinality times its rows, rounded up), 0 when not known.
func labelOnes(rec store.DatasetRecord) int {
	c := rec.Summary.LabelCardinality
	if c == nil || rec.Summary.Kind == dataset.MultiDim {
		return 0
	}
	return int(math.Ceil(*c*float64(rec.Summary.Rows))) + 1
}

// shapeOfJob is the shape of a normalized request's job on its records
// (test is ignored without a TestDataset).
func shapeOfJob(req Request, train, test store.DatasetRecord) jobShape {
	n := train.Summary.Rows
	sh := jobShape{train: n, fit: n, d: train.Summary.Features, q: train.Summary.LabelCount, sets: labelSets(train), ones: labelOnes(train)}
	sh.fitOnes = sh.ones // a subset of the rows holds at most the set's ones
	sh.classes = shapeOf(train, n).Classes
	evaluated := req.Evaluate != nil && req.Evaluate.Classifier != evaluate.ClassifierNone
	switch s := req.Split; {
	case req.TestDataset != "":
		sh.test = test.Summary.Rows
		sh.sets = min(sh.sets+labelSets(test), sh.all())
		if sh.ones > 0 && labelOnes(test) > 0 {
			sh.ones += labelOnes(test)
		} else {
			sh.ones = 0
		}
		sh.testPart, sh.splits = sh.test, 1
	case s != nil && s.Kind == SplitHoldout:
		sh.testPart = int(float64(n)*s.TestFraction + 0.5)
		sh.fit = n - sh.testPart
		sh.splits = 1
	case s != nil && s.Kind == SplitKFold && s.Folds > 0:
		sh.testPart = (n + s.Folds - 1) / s.Folds
		sh.splits = s.Folds
	case s != nil && s.Kind == SplitPredefined:
		// The folds' sizes are not in the record: the worst a fold can
		// be, all rows but the one it must train on.
		sh.testPart = max(n-1, 1)
		sh.splits = max(train.Folds, 1)
	}
	if !evaluated {
		sh.testPart = 0
	}
	sh.fitSets = min(labelSets(train), sh.fit) // the fit rows are the training set's
	sh.trainOnes, sh.trainLabelsSparse = labelOnes(train), train.Summary.LabelStorage == dataset.StorageSparse
	sh.trainLabelsSparse = sh.trainLabelsSparse && sh.trainOnes > 0
	if sh.test > 0 {
		sh.testOnes, sh.testLabelsSparse = labelOnes(test), test.Summary.LabelStorage == dataset.StorageSparse
		sh.testLabelsSparse = sh.testLabelsSparse && sh.testOnes > 0
	}
	sh.trainSparse = train.Summary.Storage == dataset.StorageSparse
	sh.testSparse = sh.test > 0 && test.Summary.Storage == dataset.StorageSparse
	if sh.sparse = sh.trainSparse || sh.testSparse; sh.sparse {
		sh.trainNNZ = nonZeros(train)
		if sh.test > 0 {
			sh.testNNZ = nonZeros(test)
		}
		// The fit rows hold at most the training set's non-zero cells:
		// a holdout's may hold more than their share.
		sh.fitNNZ = sh.trainNNZ
	}
	return sh
}

// withFeatures is s with d features.
func (s jobShape) withFeatures(d int) jobShape {
	scale := func(v int64) int64 { return v * int64(d) / int64(max(s.d, 1)) }
	s.trainNNZ, s.testNNZ, s.fitNNZ = scale(s.trainNNZ), scale(s.testNNZ), scale(s.fitNNZ)
	s.d = d
	return s
}

// withRows is s with a sample of n training rows, the other counts scaled
// alike.
func (s jobShape) withRows(n int) jobShape {
	scale := func(v int) int { return int(int64(v) * int64(n) / int64(max(s.train, 1))) }
	s.test, s.fit, s.testPart = scale(s.test), scale(s.fit), scale(s.testPart)
	scale64 := func(v int64) int64 { return v * int64(n) / int64(max(s.train, 1)) }
	s.trainNNZ, s.testNNZ, s.fitNNZ = scale64(s.trainNNZ), scale64(s.testNNZ), scale64(s.fitNNZ)
	s.trainOnes, s.testOnes = scale(s.trainOnes), scale(s.testOnes)
	s.train = n
	s.sets, s.fitSets = min(s.sets, s.all()), min(s.fitSets, s.fit)
	return s
}

// withLabels is s with q of its labels (multi-label data), the ones of
// the label matrix scaled alike.
func (s jobShape) withLabels(q int) jobShape {
	s.ones = int(int64(s.ones) * int64(q) / int64(max(s.q, 1)))
	s.fitOnes = int(int64(s.fitOnes) * int64(q) / int64(max(s.q, 1)))
	s.trainOnes = int(int64(s.trainOnes) * int64(q) / int64(max(s.q, 1)))
	s.testOnes = int(int64(s.testOnes) * int64(q) / int64(max(s.q, 1)))
	s.q = q
	return s
}

// withTestPart is s with test parts of n rows.
func (s jobShape) withTestPart(n int) jobShape {
	s.testPart = n
	return s
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

// checkMemory refuses, with 413, a request whose job would hold more than
// lim.MaxJobMemory at its peak.
func (r *Request) checkMemory(ds DatasetLookup, lim Limits) error {
	if lim.MaxJobMemory <= 0 {
		return nil
	}
	train, err := ds.Dataset(r.Dataset)
	if err != nil {
		return err
	}
	var test store.DatasetRecord
	if r.TestDataset != "" {
		if test, err = ds.Dataset(r.TestDataset); err != nil {
			return err
		}
	}
	_, f, err := admitJob(*r, train, test, lim.MaxJobMemory, realEstimators(), true)
	if err != nil || f == nil {
		return err
	}
	return &RequestError{Status: http.StatusRequestEntityTooLarge, Field: f.field, Msg: f.message()}
}

// MethodMemory says whether a job of method id alone on data set rec, with
// the method's default parameters and no evaluation, fits MaxJobMemory;
// when it does not, reason says why in a sentence for the analysis form.
// Without a limit every method fits.
func (l Limits) MethodMemory(rec store.DatasetRecord, id string) (reason string, fits bool) {
	if l.MaxJobMemory <= 0 {
		return "", true
	}
	req := Request{Dataset: rec.ID, Method: id}
	req.Normalize()
	_, f, err := admitJob(req, rec, store.DatasetRecord{}, l.MaxJobMemory, realEstimators(), false)
	if err != nil || f == nil {
		return "", true // an unknown method is the form's to refuse
	}
	return f.short(), false
}

// refusal is why a job does not fit, and what would.
type refusal struct {
	field   string
	subject string // what needs the memory: a method, the evaluation, the data
	need    int64  // the job's peak with it
	what    string // the largest thing it holds, or ""
	limit   int64
	fits    []string // what would fit, as noun phrases
	hint    string   // with no fits: what to do, a sentence ("": a sample and fewer features)
	extra   string   // a sentence after the rest, or ""
}

func (f refusal) message() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s would need about %s here", f.subject, store.FormatBytes(f.need))
	if f.what != "" {
		fmt.Fprintf(&b, " (%s)", f.what)
	}
	fmt.Fprintf(&b, ", more than the %s a job may use (the -max-job-memory limit).", store.FormatBytes(f.limit))
	switch {
	case len(f.fits) > 0:
		alt := joinOr(f.fits)
		fmt.Fprintf(&b, " %s would fit.", strings.ToUpper(alt[:1])+alt[1:])
	case f.hint != "":
		b.WriteString(" " + f.hint)
	default:
		b.WriteString(" Use a sample of the rows and fewer features.")
	}
	if f.extra != "" {
		b.WriteString(" " + f.extra)
	}
	return b.String()
}

// short is the refusal for the analysis form, beside the method.
func (f refusal) short() string {
	s := "Needs about " + store.FormatBytes(f.need) + " with these data"
	if f.what != "" {
		s += " (" + f.what + ")"
	}
	return s + "; a job may use at most " + store.FormatBytes(f.limit) + "."
}

// joinOr writes "", "a", "a or b", "a, b or c".
func joinOr(s []string) string {
	if len(s) <= 1 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// admit returns nil when the request's job fits in limit bytes, else why
// not: the data when they alone exceed it, else the method that needs the
// most when one does (the evaluation fits each method again), else the
// evaluation; and with suggest, what would fit instead.
func admit(req Request, train, test store.DatasetRecord, limit int64, est estimators, suggest bool) (*refusal, error) {
	sh := shapeOfJob(req, train, test)
	// A worker keeps decompositions of earlier jobs, at most CacheBudget.
	estimate := func(req Request, sh jobShape) (Estimate, error) {
		e, err := estimateShape(req, sh, est)
		c := CacheBudget(limit)
		e.Overhead, e.Peak = e.Overhead+c, e.Peak+c
		return e, err
	}
	e, err := estimate(req, sh)
	if err != nil {
		return nil, err
	}
	if e.Peak <= limit {
		return nil, nil
	}
	fits := func(req Request, sh jobShape) bool {
		if !suggest {
			return false
		}
		e, err := estimate(req, sh)
		return err == nil && e.Peak <= limit
	}
	base := e.Overhead + e.Data
	worst, phase := -1, int64(0)
	for i, m := range e.Methods {
		if m.Phase() > phase {
			worst, phase = i, m.Phase()
		}
	}
	f := &refusal{limit: limit}
	sample := func() {
		if n := largest(2, sh.train-1, func(n int) bool { return fits(req, sh.withRows(n)) }); n > 0 {
			f.fits = append(f.fits, "a sample of at most about "+group(roundDown(n))+" rows")
		}
	}
	switch evalPhase := e.Kept + e.Evaluation; {
	case base > limit:
		f.field, f.subject, f.need = "dataset", "the data as loaded", base
		f.what = fmt.Sprintf("%s rows × %s features and %s labels, with the copies the split makes", group(sh.all()), group(sh.d), group(sh.q))
		if sh.sparse {
			f.what = fmt.Sprintf("%s rows × %s features stored sparse as %s non-zero values, and %s labels, with the copies the split makes",
				group(sh.all()), group(sh.d), group(int(sh.nnz())), group(sh.q))
		}
		sample()
	case base+phase <= limit: // every method fits alone: the evaluation is what does not
		f.field, f.need = "evaluate", base+evalPhase
		f.subject = fmt.Sprintf("the evaluation with %s on %s test rows", classifierName(req.Evaluate.Classifier, sh.classes != nil), group(sh.testPart))
		if n := largest(1, sh.testPart-1, func(n int) bool { return fits(req, sh.withTestPart(n)) }); n > 0 {
			f.fits = append(f.fits, "fewer test rows (at most about "+group(roundDown(n))+")")
		}
		other := *req.Evaluate
		other.Classifier, other.C, other.Eps = evaluate.ClassifierRidge, 0, 0
		if req.Evaluate.Classifier == evaluate.ClassifierRidge {
			other.Classifier = evaluate.ClassifierMLkNN
		}
		alt := req
		alt.Evaluate = &other
		if fits(alt, sh) {
			f.fits = append(f.fits, classifierName(other.Classifier, sh.classes != nil))
		}
		none := req
		none.Evaluate, none.Split = nil, &Split{Kind: SplitNone}
		if fits(none, shapeOfJob(none, train, test)) {
			f.fits = append(f.fits, "no evaluation")
		}
		sample()
	default:
		m := e.Methods[worst]
		desc, _ := analysis.Lookup(m.ID)
		p := req.Params.Only(desc.Takes)
		f.field, f.subject, f.need = "method", m.ID, base+phase
		if len(req.Methods) > 0 {
			f.field = "methods"
		}
		f.what = describe(m.ID, p, sh.fitShape(), m.Fit)
		if m.ID == "mddmp" && (p.LabelKernel == analysis.KernelQuadratic || p.LabelKernel == analysis.KernelRBF) {
			linear := req
			linear.Params.LabelKernel = ""
			if fits(linear, sh) {
				f.field, f.subject = "params.label_kernel", "mddmp with label_kernel="+p.LabelKernel
				f.fits = append(f.fits, "the linear label kernel")
			}
		}
		if b := analysis.KernelBasisRows(m.ID, p, sh.fitShape()); b > 0 { // kpca, kmddm: the exact dual, or landmarks
			with := func(k int) Request {
				r := req
				r.Params.Landmarks = k
				return r
			}
			if k := largest(1, min(b-1, analysis.MaxLandmarks), func(k int) bool { return fits(with(k), sh) }); k > 0 {
				f.fits = append(f.fits, "Nyström landmarks (landmarks at most about "+group(roundDown(k))+")")
			}
		}
		if d := largest(1, sh.d-1, func(d int) bool { return fits(req, sh.withFeatures(d)) }); d > 0 {
			f.fits = append(f.fits, "fewer features (at most about "+group(roundDown(d))+")")
		}
		if sh.classes == nil {
			if q := largest(1, sh.q-1, func(q int) bool {
				return analysis.Check(m.ID, p, sh.withLabels(q).fitShape()) == nil && fits(req, sh.withLabels(q))
			}); q > 0 {
				f.fits = append(f.fits, "fewer labels (at most about "+group(roundDown(q))+")")
			}
		}
		if alts := otherMethods(req, m.ID, sh, fits); len(alts) > 0 {
			f.fits = append(f.fits, "another method ("+alts+")")
		}
		sample()
	}
	return f, nil
}

// otherMethods lists, up to three and an ellipsis, the methods that the
// data allow, the request does not name, and that fit in place of id.
func otherMethods(req Request, id string, sh jobShape, fits func(Request, jobShape) bool) string {
	ids := req.MethodIDs()
	var ok []string
	for _, m := range analysis.Methods() {
		if slices.Contains(ids, m.ID) || analysis.Check(m.ID, analysis.Params{}, sh.fitShape()) != nil {
			continue
		}
		alt := req
		alt.Method, alt.Methods = "", slices.Clone(ids)
		alt.Methods[slices.Index(ids, id)] = m.ID
		if fits(alt, sh) {
			ok = append(ok, m.ID)
		}
	}
	if len(ok) > 3 {
		return strings.Join(ok[:3], ", ") + "…"
	}
	return joinOr(ok)
}

// unsupervised are the methods that never read the labels, labelsOnly
// those that never read the features (kcplst's kernel is of the rows).
var (
	unsupervised = map[string]bool{"pca": true, "mds": true, "lpp": true, "kpca": true}
	labelsOnly   = map[string]bool{"plst": true, "kcplst": true, "mlcssp": true}
)

// describe names the largest matrix a fit of id on shape s holds, when it
// is at least a quarter of the fit's estimate fit; else "".
func describe(id string, p analysis.Params, s analysis.Shape, fit int64) string {
	n, d, q := int64(s.N), int64(s.D), int64(s.Q)
	type matrix struct {
		bytes int64
		what  string
	}
	cands := []matrix{
		{8 * d * d, fmt.Sprintf("a %s × %s matrix of the features", group(s.D), group(s.D))},
		{8 * n * n, fmt.Sprintf("a %s × %s matrix of the rows", group(s.N), group(s.N))},
	}
	if n < d && !labelsOnly[id] { // the N×N path's factorisation of the rows
		cands = append(cands, matrix{8 * n * d, fmt.Sprintf("the factorisation of its %s rows of %s features", group(s.N), group(s.D))})
	}
	if b := int64(analysis.KernelBasisRows(id, p, s)); b > 0 && b < n { // kpca, kmddm: Nyström
		cands = append(cands, matrix{8 * n * b, fmt.Sprintf("the kernel of its %s rows with %s landmarks", group(s.N), group(int(b)))})
	}
	if !unsupervised[id] { // a method that never reads the labels forms no matrix of them
		cands = append(cands, matrix{8 * q * q, fmt.Sprintf("a %s × %s matrix of the labels", group(s.Q), group(s.Q))})
	}
	if id == "mddmp" && p.LabelKernel == analysis.KernelQuadratic {
		cols := q * (q + 1) / 2
		cands = append(cands, matrix{8 * n * cols, fmt.Sprintf("the %s columns of the quadratic label kernel for %s rows", group(int(cols)), group(s.N))})
	}
	best := matrix{}
	for _, c := range cands {
		if c.bytes <= fit && 4*c.bytes >= fit && c.bytes > best.bytes {
			best = c
		}
	}
	return best.what
}

// classifierName names classifier c in a sentence, as the data know it:
// on multi-dimensional data mlknn and knn are both the k-NN vote.
func classifierName(c string, multiDim bool) string {
	switch {
	case c == evaluate.ClassifierRidge:
		return "ridge"
	case c == evaluate.ClassifierSVM:
		return "the linear SVM"
	case multiDim || c == evaluate.ClassifierKNN:
		return "the k-NN vote"
	}
	return "ML-kNN"
}

// largest is the largest x in [lo, hi] for which ok holds, ok being true
// up to some x and false beyond; 0 when it fails at lo.
func largest(lo, hi int, ok func(int) bool) int {
	if hi < lo || !ok(lo) {
		return 0
	}
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if ok(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// roundDown keeps two significant digits of n, rounding down: 38417 →
// 38000, so that "at most about" stays true.
func roundDown(n int) int {
	p := 1
	for n/p >= 100 {
		p *= 10
	}
	return n / p * p
}

// group writes n with its thousands separated by a space, as the pages
// and figures do: 60000 → "60 000".
func group(n int) string { return plots.GroupDigits(n) }
