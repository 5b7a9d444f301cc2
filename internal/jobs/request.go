package jobs

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"

	"mldr/internal/analysis"
	"mldr/internal/dataset"
	"mldr/internal/evaluate"
	"mldr/internal/preprocess"
	"mldr/internal/store"
)

// Request is the body of POST /api/jobs.
type Request struct {
	// Dataset is the training data; TestDataset an optional separate test
	// set with the same columns.
	Dataset     string `json:"dataset,omitempty"`
	TestDataset string `json:"test_dataset,omitempty"`
	// Datasets, instead of Dataset, makes the job a study: the same split,
	// methods, parameters and evaluation on each data set, compared over
	// them (comparison.json).
	Datasets []string `json:"datasets,omitempty"`
	// Split says how to hold rows out; nil means none (no evaluation) or,
	// with an evaluation, a holdout of 20 % with seed 1.
	Split *Split `json:"split,omitempty"`
	// Method or Methods: one method, or several compared on the same split.
	Method  string          `json:"method,omitempty"`
	Methods []string        `json:"methods,omitempty"`
	Params  analysis.Params `json:"params"`
	// Evaluate asks for an evaluation; nil means none.
	Evaluate *Evaluate `json:"evaluate,omitempty"`
	// Preprocess scales the features: "none" (the default), "standardize"
	// or "minmax" (package preprocess), fitted on the rows the result
	// models are fitted on and, in the evaluation, on each split's
	// training rows.
	Preprocess string `json:"preprocess,omitempty"`
	// RankBaseline false has a study show the baseline without reduction,
	// ori, in its tables and pairs but leave it out of the ranks,
	// Friedman, Iman–Davenport, Nemenyi and the critical-difference
	// diagram; absent or true ranks it with the methods. Only a study
	// takes it.
	RankBaseline *bool `json:"rank_baseline,omitempty"`
}

// RanksBaseline reports whether a study ranks ori with its methods
// (RankBaseline absent or true).
func (r Request) RanksBaseline() bool { return r.RankBaseline == nil || *r.RankBaseline }

// Split kinds.
const (
	SplitHoldout    = "holdout"
	SplitKFold      = "kfold"
	SplitNone       = "none"
	SplitPredefined = "predefined"
	// SplitTestSet is the split of a job with a test_dataset: fitted on
	// the training data set, evaluated on the test data set.
	SplitTestSet = "test_dataset"
)

// Split is how rows are held out for the evaluation.
type Split struct {
	Kind         string  `json:"kind"`
	TestFraction float64 `json:"test_fraction,omitempty"`
	Folds        int     `json:"folds,omitempty"`
	Seed         uint64  `json:"seed,omitempty"`
}

// Evaluate configures the evaluation: a classifier and a grid of d.
type Evaluate struct {
	Classifier string  `json:"classifier,omitempty"`
	K          int     `json:"k,omitempty"`
	S          float64 `json:"s,omitempty"`
	Lambda     float64 `json:"lambda,omitempty"`
	// C and Eps are the svm's cost and stopping tolerance (LIBLINEAR's -c
	// and -e; defaults 1 and 1e-4); the other classifiers take neither.
	C   float64 `json:"c,omitempty"`
	Eps float64 `json:"eps,omitempty"`
	// PsA and PsB are the propensity model's A and B (Jain, Prabhu and
	// Varma, KDD 2016) for the propensity-scored metrics of multi-label
	// data (evaluate.InversePropensities); absent or 0: 0.55 and 1.5.
	// Multi-dimensional data refuses them.
	PsA float64 `json:"ps_a,omitempty"`
	PsB float64 `json:"ps_b,omitempty"`
	// Recall is the k-NN vote's (knn, multi-label data) neighbour search
	// (evaluate.Options.Recall): 1 always exact; in (0, 1), the recall@k
	// an approximate search aims at where the exact one would take longer
	// than evaluate.ExactBudget; absent or 0: 0.95.
	Recall float64 `json:"recall,omitempty"`
	// Baseline false leaves out the baseline without reduction, ori
	// (evaluate.Options.Baseline); absent or true evaluates it. A study
	// compares its methods with ori and refuses false (Request.RankBaseline
	// leaves ori out of its ranks instead).
	Baseline *bool     `json:"baseline,omitempty"`
	Dims     []int     `json:"dims,omitempty"`
	Percent  []float64 `json:"percent,omitempty"`
	Of       string    `json:"of,omitempty"`
}

// Defaults of a request.
const (
	DefaultTestFraction = 0.2
	DefaultFolds        = 10
	DefaultSeed         = 1
)

// RequestError is a refused request, with the status an API answers and
// the field at fault.
type RequestError struct {
	Status int
	Field  string
	Msg    string
}

func (e *RequestError) Error() string { return e.Msg }

func reqErr(status int, field, format string, args ...any) *RequestError {
	return &RequestError{Status: status, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// DatasetLookup finds data set records.
type DatasetLookup interface {
	Dataset(id string) (store.DatasetRecord, error)
}

// Defaults of Limits' MaxCells and MaxPairwiseRows, the server's and
// webapp run's alike.
const (
	DefaultMaxCells        = 300_000_000
	DefaultMaxPairwiseRows = 20_000
)

// Limits bound what one job may ask for.
type Limits struct {
	// MaxCells bounds rows × features of the data a job reads (training and
	// test set together; for a data set stored sparse, its non-zero cells);
	// 0: no limit.
	MaxCells int64
	// MaxPairwiseRows bounds the rows a method with pairwise structure
	// (analysis.Method.MaxN > 0: lpp, kcplst) fits on. It can lower each
	// method's own cap, never raise it; 0: the methods' own caps.
	MaxPairwiseRows int
	// MaxJobMemory bounds, in bytes, what a job may hold at its peak, as
	// EstimateJob figures it; 0: no limit.
	MaxJobMemory int64
}

// PairwiseRows is the most rows method m fits on under these limits: the
// smaller of m.MaxN and MaxPairwiseRows; 0 for a method without pairwise
// structure (no limit).
func (l Limits) PairwiseRows(m analysis.Method) int {
	if m.MaxN > 0 && l.MaxPairwiseRows > 0 && l.MaxPairwiseRows < m.MaxN {
		return l.MaxPairwiseRows
	}
	return m.MaxN
}

// MaxStudyDatasets bounds the data sets of one study.
const MaxStudyDatasets = 100

// Study reports whether the request is a study over several data sets.
func (r Request) Study() bool { return len(r.Datasets) > 0 }

// DatasetIDs lists every data set the job reads: the study's data sets,
// or the training set and the test set if any.
func (r Request) DatasetIDs() []string {
	if r.Study() {
		return r.Datasets
	}
	var ids []string
	for _, id := range []string{r.Dataset, r.TestDataset} {
		if id != "" {
			ids = append(ids, id)
		}
	}
	return ids
}

// ForDataset is the single-data-set request a study runs on data set id
// (without the study's own options).
func (r Request) ForDataset(id string) Request {
	r.Datasets = nil
	r.RankBaseline = nil
	r.Dataset = id
	return r
}

// ResultMethods are the methods whose result files a job writes: MethodIDs,
// or none for a study (its results are its evaluation).
func (r Request) ResultMethods() []string {
	if r.Study() {
		return nil
	}
	return r.MethodIDs()
}

// MethodIDs returns the request's methods, whichever field gave them.
func (r Request) MethodIDs() []string {
	if r.Method != "" {
		return []string{r.Method}
	}
	return r.Methods
}

// Normalize fills in defaults, so that the stored request says exactly
// what ran.
func (r *Request) Normalize() {
	if r.Preprocess == "" {
		r.Preprocess = preprocess.None
	}
	if r.TestDataset != "" && (r.Split == nil || r.Split.Kind == SplitNone) {
		// Jobs stored before the test_dataset split was named had "none".
		r.Split = &Split{Kind: SplitTestSet}
	}
	if r.Split == nil {
		if r.Evaluate != nil && r.TestDataset == "" {
			r.Split = &Split{Kind: SplitHoldout}
		} else {
			r.Split = &Split{Kind: SplitNone}
		}
	}
	switch r.Split.Kind {
	case SplitHoldout:
		if r.Split.TestFraction == 0 {
			r.Split.TestFraction = DefaultTestFraction
		}
	case SplitKFold:
		if r.Split.Folds == 0 {
			r.Split.Folds = DefaultFolds
		}
	}
	if r.Split.Seed == 0 && (r.Split.Kind == SplitHoldout || r.Split.Kind == SplitKFold) {
		r.Split.Seed = DefaultSeed
	}
	if e := r.Evaluate; e != nil {
		if e.Classifier == "" {
			e.Classifier = evaluate.ClassifierMLkNN
		}
		if e.K == 0 {
			e.K = evaluate.DefaultK
		}
		if e.S == 0 {
			e.S = evaluate.DefaultS
		}
		if e.Lambda == 0 {
			e.Lambda = evaluate.DefaultLambda
		}
		if e.Classifier == evaluate.ClassifierSVM {
			e.C = cmp.Or(e.C, evaluate.DefaultC)
			e.Eps = cmp.Or(e.Eps, evaluate.DefaultEps)
		}
	}
}

// Validate checks the whole request before anything is queued: the data
// sets, the methods and every parameter against the data's shape, the
// split and the evaluation, and the limits. The request must be
// normalized.
func (r *Request) Validate(ds DatasetLookup, lim Limits) error {
	if r.Study() {
		return r.validateStudy(ds, lim)
	}
	if r.RankBaseline != nil {
		return reqErr(http.StatusBadRequest, "rank_baseline", "rank_baseline says whether a study over several data sets ranks the baseline ori with its methods; this job runs on one data set: leave it out")
	}
	if err := r.checkPreprocess(); err != nil {
		return err
	}
	train, err := lookup(ds, "dataset", r.Dataset)
	if err != nil {
		return err
	}
	if err := r.checkSparsePreprocess(train); err != nil {
		return err
	}
	rows, values := train.Summary.Rows, cellsRead(train)
	if r.TestDataset != "" {
		test, err := lookup(ds, "test_dataset", r.TestDataset)
		if err != nil {
			return err
		}
		if err := sameColumns(train, test); err != nil {
			return err
		}
		if err := r.checkSparsePreprocess(test); err != nil {
			return err
		}
		values += cellsRead(test)
		if r.Split.Kind != SplitTestSet {
			return reqErr(http.StatusBadRequest, "split", "with a test_dataset the split is that data set; leave split out")
		}
		rows += test.Summary.Rows
	}
	if cells := int64(rows) * int64(train.Summary.Features); lim.MaxCells > 0 && values > lim.MaxCells {
		if values < cells { // stored sparse: the values a job reads are the non-zero ones
			return reqErr(http.StatusRequestEntityTooLarge, "dataset", "the data have %d rows × %d features, stored sparse as %d non-zero values; a job may read at most %d (the -max-cells limit)",
				rows, train.Summary.Features, values, lim.MaxCells)
		}
		return reqErr(http.StatusRequestEntityTooLarge, "dataset", "the data have %d rows × %d features = %d values; a job may read at most %d (the -max-cells limit)",
			rows, train.Summary.Features, cells, lim.MaxCells)
	}
	ids := r.MethodIDs()
	switch {
	case r.Method != "" && len(r.Methods) > 0:
		return reqErr(http.StatusBadRequest, "methods", "give method or methods, not both")
	case len(ids) == 0:
		return reqErr(http.StatusBadRequest, "method", "give a method (or methods): one of %s", strings.Join(analysis.IDs(), ", "))
	}
	field := "method"
	if len(r.Methods) > 0 {
		field = "methods"
	}
	for i, id := range ids {
		if _, ok := analysis.Lookup(id); !ok {
			return reqErr(http.StatusBadRequest, field, "unknown method %q; the methods are %s", id, strings.Join(analysis.IDs(), ", "))
		}
		if slices.Contains(ids[:i], id) {
			return reqErr(http.StatusBadRequest, field, "method %q is listed twice", id)
		}
	}
	// The split first: the parameters' check uses its training rows.
	if err := r.checkSplit(ds, train, ids); err != nil {
		return err
	}
	if err := r.checkParams(ids, train, lim); err != nil {
		return err
	}
	return r.checkMemory(ds, lim)
}

// cellsRead is the feature values a job reads of a data set: rows ×
// features, or for one stored sparse its non-zero cells.
func cellsRead(rec store.DatasetRecord) int64 {
	if rec.Summary.Storage == dataset.StorageSparse {
		return rec.Summary.NonZeros
	}
	return int64(rec.Summary.Rows) * int64(rec.Summary.Features)
}

func lookup(ds DatasetLookup, field, id string) (store.DatasetRecord, error) {
	if id == "" {
		return store.DatasetRecord{}, reqErr(http.StatusBadRequest, field, "give the id of a data set in %s", field)
	}
	rec, err := ds.Dataset(id)
	if errors.Is(err, store.ErrNotFound) {
		return rec, reqErr(http.StatusUnprocessableEntity, field, "there is no data set with id %q", id)
	}
	return rec, err
}

func sameColumns(train, test store.DatasetRecord) error {
	a, b := train.Summary, test.Summary
	switch {
	case a.Kind != b.Kind:
		return reqErr(http.StatusUnprocessableEntity, "test_dataset", "the test data set is %s and the training one %s", b.Kind, a.Kind)
	case a.LabelsDigest != b.LabelsDigest || a.LabelCount != b.LabelCount:
		return reqErr(http.StatusUnprocessableEntity, "test_dataset", "the test data set's labels differ from the training data set's")
	case a.Features != b.Features:
		return reqErr(http.StatusUnprocessableEntity, "test_dataset", "the test data set has %d features, the training one %d", b.Features, a.Features)
	}
	return nil
}

// shapeOf is the shape analysis.Check needs.
func shapeOf(rec store.DatasetRecord, rows int) analysis.Shape {
	return analysis.Shape{N: rows, D: rec.Summary.Features, Q: rec.Summary.LabelCount, Classes: rec.Summary.ClassList()}
}

// checkParams checks every parameter: with one method it must take each;
// with several, each must be taken by at least one, and goes to those.
func (r *Request) checkParams(ids []string, train store.DatasetRecord, lim Limits) error {
	for _, g := range r.Params.Given() {
		taken := false
		for _, id := range ids {
			m, _ := analysis.Lookup(id)
			taken = taken || slices.Contains(m.Takes, g)
		}
		if !taken {
			return reqErr(http.StatusBadRequest, "params."+g, "no chosen method takes the parameter %s", g)
		}
	}
	if r.Params.D != 0 && r.Params.Thr != 0 {
		return reqErr(http.StatusBadRequest, "params.d", "give d or thr, not both")
	}
	fitRows := train.Summary.Rows
	if r.Split.Kind == SplitHoldout && r.TestDataset == "" {
		fitRows -= int(float64(fitRows)*r.Split.TestFraction + 0.5)
	}
	for _, id := range ids {
		m, _ := analysis.Lookup(id)
		if err := analysis.Check(id, r.Params.Only(m.Takes), shapeOf(train, fitRows)); err != nil {
			return paramError(err)
		}
		if most := lim.PairwiseRows(m); most < m.MaxN && fitRows > most {
			return reqErr(http.StatusUnprocessableEntity, "method", "%s compares every pair of rows, and this server lets it fit at most %d rows "+
				"(the -max-pairwise-rows limit); these data give it %d. Use a sample of the rows, or a method without pairwise structure", id, most, fitRows)
		}
	}
	return nil
}

// paramError turns an analysis refusal into a request error.
func paramError(err error) error {
	var e *analysis.Error
	if !errors.As(err, &e) {
		return err
	}
	status := http.StatusBadRequest
	if e.Kind == analysis.Unservable {
		status = http.StatusUnprocessableEntity
	}
	field := "params." + e.Param
	if e.Param == "" || e.Param == "method" {
		field = "method"
	}
	return &RequestError{Status: status, Field: field, Msg: e.Msg}
}

func (r *Request) checkSplit(ds DatasetLookup, train store.DatasetRecord, ids []string) error {
	s := r.Split
	n := train.Summary.Rows
	switch s.Kind {
	case SplitNone:
		if r.Evaluate != nil && r.Evaluate.Classifier != evaluate.ClassifierNone && r.TestDataset == "" {
			return reqErr(http.StatusBadRequest, "split", "an evaluation needs held-out rows: give a split (holdout, kfold, predefined) or a test_dataset")
		}
	case SplitHoldout:
		if !(s.TestFraction > 0 && s.TestFraction < 1) {
			return reqErr(http.StatusBadRequest, "split.test_fraction", "test_fraction must be in (0, 1), not %v", s.TestFraction)
		}
	case SplitKFold:
		if s.Folds < 2 || s.Folds > n {
			return reqErr(http.StatusBadRequest, "split.folds", "folds must be from 2 to the %d rows, not %d", n, s.Folds)
		}
	case SplitTestSet:
		if r.TestDataset == "" {
			return reqErr(http.StatusBadRequest, "split.kind", "split kind test_dataset needs a test_dataset; give one, or another split")
		}
	case SplitPredefined:
		if train.Folds == 0 {
			return reqErr(http.StatusUnprocessableEntity, "split", "this data set carries no predefined folds; upload it with a folds file")
		}
	default:
		return reqErr(http.StatusBadRequest, "split.kind", "split kind must be holdout, kfold, predefined or none (or test_dataset, with a test_dataset), not %q", s.Kind)
	}
	e := r.Evaluate
	if e == nil || e.Classifier == evaluate.ClassifierNone {
		return nil
	}
	if !slices.Contains(evaluate.Classifiers, e.Classifier) {
		return reqErr(http.StatusBadRequest, "evaluate.classifier", "classifier must be one of %s, not %q", strings.Join(evaluate.Classifiers, ", "), e.Classifier)
	}
	if e.K < 1 || e.S < 0 || e.Lambda <= 0 {
		return reqErr(http.StatusBadRequest, "evaluate", "k must be ≥ 1, s ≥ 0 and lambda > 0")
	}
	if err := e.checkSVM(); err != nil {
		return err
	}
	if err := e.checkPropensity(train.Summary.Kind == dataset.MultiDim); err != nil {
		return err
	}
	if err := e.checkRecall(train.Summary.Kind == dataset.MultiDim); err != nil {
		return err
	}
	if len(e.Dims) > 0 && len(e.Percent) > 0 {
		return reqErr(http.StatusBadRequest, "evaluate.dims", "give dims or percent, not both")
	}
	for _, d := range e.Dims {
		if d < 1 {
			return reqErr(http.StatusBadRequest, "evaluate.dims", "every d must be at least 1, not %d", d)
		}
	}
	for _, p := range e.Percent {
		if !(p > 0 && p <= 100) {
			return reqErr(http.StatusBadRequest, "evaluate.percent", "percentages must be in (0, 100], not %v", p)
		}
	}
	if e.Of != "" && e.Of != "features" && e.Of != "rank" {
		return reqErr(http.StatusBadRequest, "evaluate.of", "of must be features or rank, not %q", e.Of)
	}
	return r.checkEvaluation(ds, train, ids)
}

// checkSVM refuses c and eps given to a classifier other than svm, and
// values out of range.
func (e *Evaluate) checkSVM() error {
	if e.Classifier != evaluate.ClassifierSVM {
		for _, f := range []struct {
			name string
			v    float64
		}{{"c", e.C}, {"eps", e.Eps}} {
			if f.v != 0 {
				return reqErr(http.StatusBadRequest, "evaluate."+f.name, "%s is the svm's (LIBLINEAR's -%s); the classifier %s takes none: "+
					"leave it out, or choose the classifier svm", f.name, f.name[:1], e.Classifier)
			}
		}
		return nil
	}
	if !(e.C > 0) || math.IsInf(e.C, 0) {
		return reqErr(http.StatusBadRequest, "evaluate.c", "c, the svm's cost of a violated margin, must be a number greater than 0, not %v", e.C)
	}
	if !(e.Eps > 0) || math.IsInf(e.Eps, 0) {
		return reqErr(http.StatusBadRequest, "evaluate.eps", "eps, the svm's stopping tolerance, must be a number greater than 0, not %v", e.Eps)
	}
	return nil
}

// checkPropensity refuses ps_a and ps_b on multi-dimensional data, which
// reports no propensity-scored metrics, and values that are not numbers
// greater than 0 (0 is the default).
func (e *Evaluate) checkPropensity(multiDim bool) error {
	for _, f := range []struct {
		name, what string
		v, def     float64
	}{{"ps_a", "exponent A", e.PsA, evaluate.DefaultPropensityA}, {"ps_b", "offset B", e.PsB, evaluate.DefaultPropensityB}} {
		switch {
		case f.v == 0:
		case multiDim:
			return reqErr(http.StatusUnprocessableEntity, "evaluate."+f.name, "%s weighs the labels of the propensity-scored metrics (psprecision_at_k, psndcg_at_k), "+
				"which multi-dimensional data does not report: leave it out", f.name)
		case !(f.v > 0) || math.IsInf(f.v, 0):
			return reqErr(http.StatusBadRequest, "evaluate."+f.name, "%s, the propensity model's %s (Jain et al. 2016), must be a number greater than 0 "+
				"(default %v), not %v", f.name, f.what, f.def, f.v)
		}
	}
	return nil
}

// checkRecall refuses recall but with the k-NN vote on multi-label data,
// whose neighbour search it tunes, and values outside (0, 1] (0 is the
// default).
func (e *Evaluate) checkRecall(multiDim bool) error {
	switch {
	case e.Recall == 0:
	case e.Classifier != evaluate.ClassifierKNN || multiDim:
		return reqErr(http.StatusBadRequest, "evaluate.recall", "recall tunes the neighbour search of the k-NN vote (classifier knn) on multi-label data; "+
			"this evaluation searches exactly: leave it out")
	case !(e.Recall > 0 && e.Recall <= 1):
		return reqErr(http.StatusBadRequest, "evaluate.recall", "recall, the share of the exact nearest neighbours the k-NN vote's search must find, "+
			"must be in (0, 1] (1: always exact; default %v), not %v", evaluate.DefaultRecall, e.Recall)
	}
	return nil
}

// FoldsLookup reads a data set's predefined folds. A DatasetLookup that is
// one too (the store) lets Validate check the evaluation against the
// folds' sizes.
type FoldsLookup interface {
	LoadFolds(id string) ([]dataset.Fold, error)
}

// smallestTraining returns the rows of the smallest training part the
// evaluation fits on, and words naming it; 0 when it cannot be told
// without the folds (ds is no FoldsLookup).
func (r *Request) smallestTraining(ds DatasetLookup, train store.DatasetRecord) (int, string, error) {
	n := train.Summary.Rows
	switch s := r.Split; {
	case r.TestDataset != "":
		return n, "the training data set", nil
	case s.Kind == SplitHoldout:
		test := min(max(int(math.Round(float64(n)*s.TestFraction)), 1), n-1) // as evaluate.Holdout
		return n - test, "the training part of the holdout", nil
	case s.Kind == SplitKFold:
		return n - (n+s.Folds-1)/s.Folds, fmt.Sprintf("the training part of the smallest of the %d folds", s.Folds), nil
	case s.Kind == SplitPredefined:
		fl, ok := ds.(FoldsLookup)
		if !ok {
			return 0, "", nil
		}
		folds, err := fl.LoadFolds(r.Dataset)
		if err != nil {
			return 0, "", err
		}
		least, which := n, ""
		for i, f := range folds {
			if len(f.Train) < least {
				least, which = len(f.Train), fmt.Sprintf("the training part of predefined fold %d", i+1)
			}
		}
		return least, which, nil
	}
	return n, "the data", nil
}

// transductiveRows returns the rows a transductive method (mds) is fitted
// on in the evaluation, and words naming them: every row of the data set
// (each split's training and test rows together), and a test data set's
// rows besides.
func (r *Request) transductiveRows(ds DatasetLookup, train store.DatasetRecord) (int, string) {
	n := train.Summary.Rows
	if r.TestDataset != "" {
		if test, err := ds.Dataset(r.TestDataset); err == nil {
			return n + test.Summary.Rows, "the training and test data sets together"
		}
	}
	return n, "each split's training and test rows together"
}

// checkEvaluation checks the evaluation's parameters against the rows it
// fits on, so that a job that would fail on them is refused (422) instead:
// the classifier's k, each method's parameters on the smallest training
// part, and a grid of d that no method can give.
func (r *Request) checkEvaluation(ds DatasetLookup, train store.DatasetRecord, ids []string) error {
	e := r.Evaluate
	rows, part, err := r.smallestTraining(ds, train)
	if err != nil || rows == 0 {
		return err
	}
	multiDim := train.Summary.Kind == dataset.MultiDim
	if e.Classifier == evaluate.ClassifierMLkNN || e.Classifier == evaluate.ClassifierKNN {
		if most := rows - 1; !multiDim && e.Classifier == evaluate.ClassifierMLkNN && e.K > most {
			return reqErr(http.StatusUnprocessableEntity, "evaluate.k", "evaluate.k is %d, but ML-kNN needs fewer neighbours than training rows "+
				"and %s has %d rows: k may be at most %d", e.K, part, rows, most)
		}
		if e.K > rows { // the k-NN votes: multi-label knn, and either classifier on multi-dimensional data
			return reqErr(http.StatusUnprocessableEntity, "evaluate.k", "evaluate.k is %d, but k-NN needs at least k training rows "+
				"and %s has %d rows: k may be at most %d", e.K, part, rows, rows)
		}
	}
	grid := len(e.Dims) > 0 || len(e.Percent) > 0
	shape := shapeOf(train, rows)
	most, mostOf := 0, ""
	for _, id := range ids {
		m, _ := analysis.Lookup(id)
		p := r.Params.Only(m.Takes)
		if grid {
			p.D, p.Thr = 0, 0 // the evaluation fits once and cuts to each d of the grid
		}
		fitShape, fitPart, fitRows := shape, part, rows
		if m.Transductive { // fitted on each split's training and test rows together
			fitRows, fitPart = r.transductiveRows(ds, train)
			fitShape = shapeOf(train, fitRows)
		}
		if err := analysis.Check(id, p, fitShape); err != nil {
			err := paramError(err)
			var re *RequestError
			if errors.As(err, &re) {
				re.Msg = fmt.Sprintf("the evaluation fits %s on %s, %d rows: %s", id, fitPart, fitRows, re.Msg)
			}
			return err
		}
		if d := analysis.MaxDim(id, p, shape); d > most {
			most, mostOf = d, id
		}
	}
	for _, d := range e.Dims {
		if d > most {
			return reqErr(http.StatusUnprocessableEntity, "evaluate.dims", "evaluate.dims holds d = %d, more than any chosen method can give "+
				"on %s (%d rows): at most %d (%s)", d, part, rows, most, mostOf)
		}
	}
	return nil
}

// validateStudy checks a study: its list of data sets, then the request
// on each data set as if it were alone, the refusal naming the data set.
func (r *Request) validateStudy(ds DatasetLookup, lim Limits) error {
	switch n := len(r.Datasets); {
	case r.Dataset != "":
		return reqErr(http.StatusBadRequest, "datasets", "give dataset (one data set) or datasets (a study over several), not both")
	case r.TestDataset != "":
		return reqErr(http.StatusBadRequest, "test_dataset", "a study splits each of its data sets the same way; it cannot take a test_dataset")
	case n < 2:
		return reqErr(http.StatusBadRequest, "datasets", "a study compares methods over at least 2 data sets; for one data set give dataset")
	case n > MaxStudyDatasets:
		return reqErr(http.StatusBadRequest, "datasets", "a study may cover at most %d data sets, not %d", MaxStudyDatasets, n)
	case r.Evaluate == nil || r.Evaluate.Classifier == evaluate.ClassifierNone:
		return reqErr(http.StatusBadRequest, "evaluate", "a study compares methods by their evaluation: give evaluate with a classifier (mlknn, knn, ridge or svm)")
	case r.Evaluate.Baseline != nil && !*r.Evaluate.Baseline:
		return reqErr(http.StatusBadRequest, "evaluate.baseline", "a study compares its methods with the baseline ori; leave baseline out (to leave ori out of the ranks, give rank_baseline false)")
	}
	var kind dataset.Kind
	var first string
	for i, id := range r.Datasets {
		if slices.Contains(r.Datasets[:i], id) {
			return reqErr(http.StatusBadRequest, "datasets", "data set %q is listed twice", id)
		}
		rec, err := lookup(ds, fmt.Sprintf("datasets[%d]", i), id)
		if err != nil {
			return err
		}
		if i == 0 {
			kind, first = rec.Summary.Kind, rec.Name
		} else if rec.Summary.Kind != kind {
			return reqErr(http.StatusUnprocessableEntity, fmt.Sprintf("datasets[%d]", i), "data set %s is %s and %s is %s: a study compares methods "+
				"on the metrics of one kind of data; choose data sets of one kind", rec.Name, rec.Summary.Kind.Words(), first, kind.Words())
		}
		one := r.ForDataset(id)
		if err := one.Validate(ds, lim); err != nil {
			var re *RequestError
			if !errors.As(err, &re) {
				return fmt.Errorf("checking the study on data set %s: %w", id, err)
			}
			field := re.Field
			if field == "dataset" {
				field = fmt.Sprintf("datasets[%d]", i)
			}
			return &RequestError{Status: re.Status, Field: field, Msg: fmt.Sprintf("on data set %s (%s): %s", rec.Name, id, re.Msg)}
		}
	}
	return nil
}
