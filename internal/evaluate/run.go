package evaluate

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/analysis"
	"mldr/internal/knn"
	"mldr/internal/linsvm"
	"mldr/internal/preprocess"
	"mldr/internal/sparse"
)

// Classifiers, by their API names. "knn" is the multi-label k-NN vote
// (KNN). On multi-dimensional data "mlknn" and "knn" are both the k-NN
// vote of each class variable (KNNVote), "ridge" one-vs-rest ridge and
// "svm" LIBLINEAR's one-vs-rest SVM, one per class variable.
const (
	ClassifierMLkNN = "mlknn"
	ClassifierKNN   = "knn"
	ClassifierRidge = "ridge"
	ClassifierSVM   = "svm"
	ClassifierNone  = "none"
)

// Classifiers lists the classifiers a run accepts, "none" last.
var Classifiers = []string{ClassifierMLkNN, ClassifierKNN, ClassifierRidge, ClassifierSVM, ClassifierNone}

// Ori is the method name of the baseline without reduction.
const Ori = "ori"

// Options configure the classifier used after feature-space reductions and
// for the baseline. Zero values mean the defaults (ML-kNN, k = 10, s = 1,
// λ = 0.1; for svm c = 1, eps = 1e-4). Label-space methods use their own
// regressor (see Run).
type Options struct {
	Classifier string  `json:"classifier,omitempty"`
	K          int     `json:"k,omitempty"`
	S          float64 `json:"s,omitempty"`
	Lambda     float64 `json:"lambda,omitempty"`
	// C and Eps are the svm's cost and stopping tolerance (LIBLINEAR's -c
	// and -e); only the svm takes them.
	C   float64 `json:"c,omitempty"`
	Eps float64 `json:"eps,omitempty"`
	// Preprocess scales the features inside each split (see Run): one of
	// preprocess.Kinds; "" means "none".
	Preprocess string `json:"preprocess,omitempty"`
	// PsA and PsB are the propensity model's A and B (Jain, Prabhu and
	// Varma, KDD 2016; InversePropensities) that weigh the labels of the
	// propensity-scored metrics (XCMetrics); multi-label data only. Zero
	// means the default, 0.55 and 1.5.
	PsA float64 `json:"ps_a,omitempty"`
	PsB float64 `json:"ps_b,omitempty"`
	// Recall is the multi-label k-NN vote's (knn) neighbour search: 1
	// searches exactly always; a value in (0, 1) is the recall@k an
	// approximate search aims at where the exact one is predicted to take
	// longer than ExactBudget (knn.SearchApprox); zero is that with
	// knn.DefaultRecall. Only the k-NN vote on multi-label data takes it.
	Recall float64 `json:"recall,omitempty"`
	// Baseline false leaves out the baseline without reduction (Ori):
	// on a large sparse data set its neighbour search among the original
	// features may take far longer than the methods' (AmazonCat-13K's
	// test part: 45 minutes). nil or true evaluates it, first.
	Baseline *bool `json:"baseline,omitempty"`
}

// WithBaseline reports whether the run evaluates the baseline Ori.
func (o Options) WithBaseline() bool { return o.Baseline == nil || *o.Baseline }

// MethodRun is one method of a run, with its parameters.
type MethodRun struct {
	ID     string          `json:"id"`
	Params analysis.Params `json:"params"`
}

// Grid is the values of d (M) a curve visits: Dims, or Percent of Of —
// "features" (D, the default) or "rank" (each method's own rank). With
// neither, each method's d is the one its parameters choose. A percent
// grid gives one point per percentage: d = max(1, round(p/100 · base)),
// the same on every split. With Of "rank" and several splits, the base is
// the smallest rank of the method's fits on the splits' training parts
// (Run fits each once more, before the folds): the rank of the whole
// training data is often larger than every fold's (a feature seen only in
// one test part), so its 100 % would be out of reach on every fold. With
// one split it is that split's rank. For lda with one block per class
// variable, grid values are d per variable and its rank base is the most
// directions a variable gives.
type Grid struct {
	Dims    []int     `json:"dims,omitempty"`
	Percent []float64 `json:"percent,omitempty"`
	Of      string    `json:"of,omitempty"`
}

// Spec is what a run evaluates.
type Spec struct {
	Methods []MethodRun `json:"methods"`
	Grid    Grid        `json:"grid"`
	Options Options     `json:"options"`
	// RowErrors asks Run to keep each row's errors for every cell (see
	// RowErrors): RowErrorBytes (two float32) per row of the data, and on
	// multi-label data LabelCountBytes per label (the per-label
	// decisions), per distinct (method, d) of the run, ori included, held until Run
	// returns and then by its Result. On large grids over many rows this
	// is large (10⁶ rows × 100 cells: 800 MB), so it is off by default.
	RowErrors bool `json:"-"`
	// Fitted holds, by method id, models already fitted on the training
	// part of the only split, preprocessed as Run preprocesses it (a
	// job's result models, when its split holds out a test data set or a
	// holdout's rows). Run evaluates such a model instead of fitting the
	// method again when it gives what the fit would: the model cut to
	// every d of a grid of dims, or, with no grid, a model fitted with the
	// method's parameters. A note names the methods evaluated so. For
	// EstimateMemory, an entry (its Model may be nil) says the method's
	// fit is given and not counted: the caller gives one only where Run
	// will take the model.
	Fitted map[string]Fitted `json:"-"`
}

// Fitted is a model fitted before Run, with the parameters it was fitted
// with and the fit's wall time (the rows' FitSeconds).
type Fitted struct {
	Model   *analysis.Model
	Params  analysis.Params
	Seconds float64
}

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

// Run evaluates every method of spec, at every d of its grid, on every
// split, and the baseline without reduction. Each reduction is fitted on
// the training rows only, once per method and split, and cut to each d;
// test rows are projected with the training means and directions. A
// transductive method (mds, which has no projection for new rows) is
// instead fitted on each split's training and test rows together, the
// test rows' labels left out (no fit of it reads labels), and the
// classifier trains on the training rows' coordinates and is tested on
// the test rows'; its rows say Transductive.
//
// After a feature-space method the classifier of Options runs on the
// projected rows: ML-kNN, the k-NN vote (KNN) or ridge binary relevance
// (multi-label), the k-NN vote or one-vs-rest ridge per class variable
// (multi-dimensional; after lda each variable uses its own block). A label-space method is followed by
// its regressor from the features to the codes — ridge with a bias column on
// X as given, λ = the method's lambda on every weight (the CPLST authors'
// code), or for kcplst the kernel ridge of its fit — and round-based
// decoding; it also reports encoding_error and prediction_error (per test
// row) and their sum. A d above a method's rank on a split is skipped with
// a note. progress may be nil.
//
// With Options.Preprocess other than "none", each split's features are
// scaled by a preprocess.Scaler fitted on that split's training rows only
// and applied to its training and test rows, before the method and before
// the baseline ori; a note says which columns were constant there.
//
// With Spec.RowErrors the Result also carries each row's errors for every
// cell (RowErrors), measured where the metrics are; no metric changes.
func Run(ctx context.Context, data analysis.Input, splits []Split, spec Spec, progress analysis.Progress) (*Result, error) {
	if !preprocess.Valid(spec.Options.Preprocess) {
		return nil, fmt.Errorf("evaluate: preprocess must be none, standardize or minmax, not %q", spec.Options.Preprocess)
	}
	if data.Labels != nil && !KeepsLabelsSparse(spec) {
		// ML-kNN, ridge, the svm and kcplst read the labels dense (N·q·8
		// bytes, which EstimateMemory counts).
		data.Y, data.Labels = data.Labels.Dense(), nil
	}
	r, err := newRunner(data, splits, spec, progress)
	if err != nil {
		return nil, err
	}
	return r.run(ctx)
}

// KeepsLabelsSparse reports whether Run keeps labels given sparse
// (analysis.Input.Labels) sparse: with the k-NN vote, which scores, decides
// and is scored a block of test rows at a time (sparseBlock rows of q
// values), and the methods' fits and label-space regressors, which read
// the labels' ones. ML-kNN, ridge, the svm and kcplst's kernel codes read
// them dense, so Run makes a dense copy for them.
func KeepsLabelsSparse(spec Spec) bool {
	if spec.Options.Classifier != ClassifierKNN {
		return false
	}
	for _, m := range spec.Methods {
		if m.ID == "kcplst" {
			return false
		}
	}
	return true
}

// run fixes a percent grid of ranks, evaluates every split, then averages.
func (r *runner) run(ctx context.Context) (*Result, error) {
	if err := r.fixRankGrid(ctx); err != nil {
		return nil, err
	}
	for f, sp := range r.splits {
		if err := r.fold(ctx, f, sp); err != nil {
			return nil, err
		}
	}
	r.svmNotes()
	r.approxNotes()
	if len(r.reused) > 0 {
		r.note("%s: evaluated with the result model fitted on the same training rows, not fitted a second time", strings.Join(r.reused, ", "))
	}
	return r.result(), nil
}

// ErrNothingToEvaluate is returned for the classifier "none".
var ErrNothingToEvaluate = errors.New("evaluate: the classifier is \"none\": there is nothing to evaluate")

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

type runner struct {
	// decoders are the label-space methods' decoders, by method.
	decoders map[string]Decoder
	data     analysis.Input
	splits   []Split
	spec     Spec
	progress analysis.Progress
	cells    map[cellKey][]Row
	order    []cellKey
	notes    []string
	// The fit timings: now and fitFunc are time.Now and analysis.Fit when
	// nil (tests replace them); lastFit is the latest fit's wall time and
	// mark the moment the work of the next row began.
	now     func() time.Time
	fitFunc func(context.Context, string, analysis.Input, analysis.Params, analysis.Progress) (*analysis.Model, error)
	lastFit time.Duration
	mark    time.Time
	// rankBase holds, for a percent grid of "rank" over several splits,
	// each method's smallest rank over the splits (fixRankGrid).
	rankBase map[string]int
	// rowErrs holds the per-row errors, with Spec.RowErrors (recordErrors).
	rowErrs map[errKey]*rowErrors
	// step is the work the runner is at, for the svm's progress and its
	// fits' accounting (svmFits, by method).
	step    step
	svmFits map[string]SVMFits
	// invProp are the inverse propensities of the labels of propY, the
	// training labels they were last computed from (inverseProps).
	invProp []float64
	propY   *mat.Dense
	propL   *sparse.CSR // as propY, for labels held sparse
	// ridge is the last factored system of the label-space regressor on
	// sparse rows (sparseRidge), for the other methods of its split.
	ridge *ridgeFactor
	// approx holds, by method, the reports of the k-NN vote's approximate
	// neighbour searches (neighbours), for the notes (approxNotes).
	approx map[string][]knn.ApproxReport
	// reused are the methods evaluated with a model of Spec.Fitted.
	reused []string
	// exactSecs is the largest predicted time of an exact search that was
	// replaced by an approximate one; budget is the time above which it is
	// replaced, ExactBudget when zero (tests lower it).
	exactSecs, budget float64
}

// step is a part of a fold: the method (or ori) evaluated, and the share
// of the fold it spans.
type step struct {
	fold     int
	method   string
	from, to float64
	// at is the share reported last within the step, so that progress
	// never goes back when the classifier runs again (at another d).
	at float64
}

func newRunner(data analysis.Input, splits []Split, spec Spec, progress analysis.Progress) (*runner, error) {
	o := &spec.Options
	if o.Classifier == "" {
		o.Classifier = ClassifierMLkNN
	}
	if err := o.Check(); err != nil {
		return nil, err
	}
	if o.Classifier == ClassifierNone {
		return nil, ErrNothingToEvaluate
	}
	o.fill()
	if data.MultiDim() {
		if o.PsA != 0 || o.PsB != 0 {
			return nil, fmt.Errorf("evaluate: ps_a and ps_b weigh the labels of the propensity-scored metrics, and multi-dimensional data has no labels to weigh: leave them out")
		}
		if o.Recall != 0 {
			return nil, fmt.Errorf("evaluate: recall tunes the multi-label k-NN vote's neighbour search; on multi-dimensional data the search is always exact: leave it out")
		}
	} else {
		o.PsA, o.PsB = cmp.Or(o.PsA, DefaultPropensityA), cmp.Or(o.PsB, DefaultPropensityB)
		if o.Classifier == ClassifierKNN {
			o.Recall = cmp.Or(o.Recall, knn.DefaultRecall)
		}
	}
	if err := spec.Grid.check(); err != nil {
		return nil, err
	}
	if len(splits) == 0 {
		return nil, fmt.Errorf("evaluate: no split to evaluate on")
	}
	n, _ := data.LabelDims()
	for _, s := range splits {
		if err := s.check(n); err != nil {
			return nil, fmt.Errorf("evaluate: %w", err)
		}
	}
	for _, m := range spec.Methods {
		if _, ok := analysis.Lookup(m.ID); !ok {
			return nil, fmt.Errorf("evaluate: unknown method %q", m.ID)
		}
	}
	return &runner{data: data, splits: splits, spec: spec, progress: progress, cells: map[cellKey][]Row{}, decoders: map[string]Decoder{}}, nil
}

// Check refuses an unknown classifier, naming the valid ones, and
// parameters out of range, naming the field ("" is the default
// classifier; zero values are defaults).
func (o Options) Check() error {
	switch {
	case o.Classifier != "" && !slices.Contains(Classifiers, o.Classifier):
		return fmt.Errorf("evaluate: classifier must be one of %s, not %q", strings.Join(Classifiers, ", "), o.Classifier)
	case o.K < 0:
		return fmt.Errorf("evaluate: k must be ≥ 1, not %d", o.K)
	case !(o.S >= 0) || !(o.Lambda >= 0):
		return fmt.Errorf("evaluate: s and lambda must be ≥ 0")
	case o.Classifier != ClassifierSVM && (o.C != 0 || o.Eps != 0):
		return fmt.Errorf("evaluate: c and eps are the svm's; the classifier %s takes neither", cmp.Or(o.Classifier, ClassifierMLkNN))
	case !(o.C >= 0) || math.IsInf(o.C, 0):
		return fmt.Errorf("evaluate: c must be a number greater than 0, not %v", o.C)
	case !(o.Eps >= 0) || math.IsInf(o.Eps, 0):
		return fmt.Errorf("evaluate: eps must be a number greater than 0, not %v", o.Eps)
	case o.Recall != 0 && o.Classifier != ClassifierKNN:
		return fmt.Errorf("evaluate: recall is the k-NN vote's neighbour search; the classifier %s does not take it", cmp.Or(o.Classifier, ClassifierMLkNN))
	case !(o.Recall >= 0 && o.Recall <= 1):
		return fmt.Errorf("evaluate: recall, the share of the exact nearest neighbours the k-NN vote's search must find, must be in (0, 1] (1: always exact), not %v", o.Recall)
	case o.PsA != 0 || o.PsB != 0:
		return CheckPropensity(cmp.Or(o.PsA, DefaultPropensityA), cmp.Or(o.PsB, DefaultPropensityB))
	}
	return nil
}

// fill puts the defaults in o's zero values: the classifier's own only
// (c and eps for svm).
func (o *Options) fill() {
	o.Classifier = cmp.Or(o.Classifier, ClassifierMLkNN)
	o.K, o.S, o.Lambda = cmp.Or(o.K, DefaultK), cmp.Or(o.S, DefaultS), cmp.Or(o.Lambda, DefaultLambda)
	if o.Classifier == ClassifierSVM {
		o.C, o.Eps = cmp.Or(o.C, DefaultC), cmp.Or(o.Eps, DefaultEps)
	}
}

func (g Grid) check() error {
	if len(g.Dims) > 0 && len(g.Percent) > 0 {
		return fmt.Errorf("evaluate: give the grid as dims or as percent, not both")
	}
	for _, d := range g.Dims {
		if d < 1 {
			return fmt.Errorf("evaluate: every d of the grid must be at least 1, not %d", d)
		}
	}
	for _, p := range g.Percent {
		if !(p > 0 && p <= 100) {
			return fmt.Errorf("evaluate: grid percentages must be in (0, 100], not %v", p)
		}
	}
	if g.Of != "" && g.Of != "features" && g.Of != "rank" {
		return fmt.Errorf("evaluate: grid percentages are of \"features\" or \"rank\", not %q", g.Of)
	}
	return nil
}

// point is one value of a grid: the d it asks for and, on a percent grid,
// the percentage it answers (nil otherwise).
type point struct {
	d       int
	percent *float64
	// own says d is the one the method's parameters chose on this fold
	// (no grid): the folds' rows share one cell whatever their d.
	own bool
}

// key is the cell of method's rows at pt.
func (pt point) key(method string) cellKey {
	if pt.own {
		return cellKey{method: method, own: true}
	}
	k := cellKey{method: method, d: pt.d}
	if pt.percent != nil {
		k.percent, k.byPercent = *pt.percent, true
	}
	return k
}

// errD is the grid value the per-row errors of pt are kept under: 0 for
// the method's own d, which may differ between the folds.
func (pt point) errD() int {
	if pt.own {
		return 0
	}
	return pt.d
}

// points lists the grid's values for a method with D features and rank
// base rank, by ascending d; nil means "the method's own d". Dims give one
// point per distinct d, Percent one per distinct percentage (two may share
// a d).
func (g Grid) points(features, rank int) []point {
	if len(g.Dims) > 0 {
		v := slices.Clone(g.Dims)
		slices.Sort(v)
		var pts []point
		for _, d := range slices.Compact(v) {
			pts = append(pts, point{d: d})
		}
		return pts
	}
	if len(g.Percent) == 0 {
		return nil
	}
	base := features
	if g.Of == "rank" {
		base = rank
	}
	ps := slices.Clone(g.Percent)
	slices.Sort(ps)
	var pts []point
	for _, p := range slices.Compact(ps) {
		pts = append(pts, point{d: max(1, int(math.Round(p/100*float64(base)))), percent: &p})
	}
	return pts
}

// maxDim is the largest d the grid asks of a method with D features and
// rank base rank (0 when the rank is not fixed yet), as Params.MaxDim:
// analysis.MaxDimAll when it is a percentage of a rank not known before
// the fit.
func (g Grid) maxDim(features, rank int) int {
	if len(g.Dims) == 0 && g.Of == "rank" && rank == 0 {
		return analysis.MaxDimAll
	}
	pts := g.points(features, rank)
	if len(pts) == 0 {
		return analysis.MaxDimAll
	}
	return pts[len(pts)-1].d
}

// values lists the grid's distinct d for a method with D features and
// rank base rank; nil means "the method's own d".
func (g Grid) values(features, rank int) []int {
	var v []int
	for _, p := range g.points(features, rank) {
		v = append(v, p.d)
	}
	return slices.Compact(v) // points come by ascending d
}

// byD groups points by their d, in ascending order of d.
func byD(pts []point) [][]point {
	var groups [][]point
	for _, p := range pts {
		if n := len(groups); n > 0 && groups[n-1][0].d == p.d {
			groups[n-1] = append(groups[n-1], p)
			continue
		}
		groups = append(groups, []point{p})
	}
	return groups
}

// gridLimit is the largest grid value a model serves and what it is: its
// rank, or for lda with one block per class variable the most directions
// a variable gives (its grid values are d per variable).
func gridLimit(m *analysis.Model) (int, string) {
	if len(m.Blocks) == 0 {
		return m.Rank, m.RankOf
	}
	limit := 0
	for _, b := range m.Blocks {
		limit = max(limit, len(b.Values))
	}
	return limit, "directions per class variable"
}

// fixRankGrid, for a percent grid of "rank" over several splits, fits
// every method on each split's training part and keeps its smallest rank
// (gridLimit) as the base of the percentages, so that each percentage
// gives one d, the same on every split and within reach on each. A note
// says when the ranks differ.
func (r *runner) fixRankGrid(ctx context.Context) error {
	g := r.spec.Grid
	if len(g.Percent) == 0 || g.Of != "rank" || len(r.splits) < 2 {
		return nil
	}
	r.rankBase = map[string]int{}
	for _, run := range r.spec.Methods {
		p := run.Params
		p.D, p.Thr, p.MaxDim = 0, 0, analysis.MaxDimAll // the rank: every eigenvalue
		lo, hi, what := 0, 0, ""
		for f, sp := range r.splits {
			r.report(0, 0, fmt.Sprintf("%s: its rank on split %d of %d", run.ID, f+1, len(r.splits)))
			train, _, err := r.scaled(sp) // the rank of what the fold will fit on
			if err != nil {
				return err
			}
			m, err := analysis.Fit(ctx, run.ID, train, p, nil)
			if err != nil {
				return err
			}
			limit, of := gridLimit(m)
			if f == 0 || limit < lo {
				lo = limit
			}
			hi, what = max(hi, limit), of
		}
		r.rankBase[run.ID] = lo
		if lo != hi {
			r.note("%s: the %s differs between the splits' training parts (%d to %d); the grid's percentages are of the smallest, %d, "+
				"so that each gives one d on every split", run.ID, what, lo, hi, lo)
		}
	}
	return nil
}

// begin starts a step of fold f: method, over the fold's share [from, to),
// reported as phase.
func (r *runner) begin(f int, method string, from, to float64, phase string) {
	r.step = step{fold: f, method: method, from: from, to: to, at: from}
	r.report(f, from, phase)
}

// svm is the classifier "svm" of Options, reporting its progress within
// the current step.
func (r *runner) svm() SVM {
	o := r.spec.Options
	return SVM{C: o.C, Eps: o.Eps, Progress: func(done, total int) {
		st := &r.step
		st.at = max(st.at, st.from+(st.to-st.from)*float64(done)/float64(total))
		r.report(st.fold, st.at, fmt.Sprintf("%s: svm %d of %d", st.method, done, total))
	}}
}

// countSVM adds a step's svm fits to its method's account.
func (r *runner) countSVM(f SVMFits) {
	if r.svmFits == nil {
		r.svmFits = map[string]SVMFits{}
	}
	a := r.svmFits[r.step.method]
	r.svmFits[r.step.method] = SVMFits{Total: a.Total + f.Total, Capped: a.Capped + f.Capped}
}

// svmNotes says, per method, how many of its svm fits stopped at
// LIBLINEAR's limit of sweeps.
func (r *runner) svmNotes() {
	for _, m := range append([]string{Ori}, methodIDs(r.spec.Methods)...) {
		if f := r.svmFits[m]; f.Capped > 0 {
			r.note("svm: %d of the %d binary SVMs of %s (over the folds and values of d) stopped at LIBLINEAR's limit of %d sweeps "+
				"before the tolerance eps = %g, as liblinear-train stops them; there the result depends on the order of the sweeps, "+
				"which is LIBLINEAR's, so it is still liblinear-train's", f.Capped, f.Total, m, linsvm.DefaultMaxIter, r.spec.Options.Eps)
		}
	}
}

func methodIDs(runs []MethodRun) []string {
	ids := make([]string, len(runs))
	for i, m := range runs {
		ids[i] = m.ID
	}
	return ids
}

func (r *runner) report(fold int, part float64, phase string) {
	if r.progress != nil {
		r.progress((float64(fold)+min(part, 1))/float64(len(r.splits)), phase)
	}
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

func (r *runner) note(format string, args ...any) {
	n := fmt.Sprintf(format, args...)
	if !slices.Contains(r.notes, n) {
		r.notes = append(r.notes, n)
	}
}

// fold evaluates every method on one split.
func (r *runner) fold(ctx context.Context, f int, sp Split) error {
	r.ridge = nil // the previous split's regressor system
	settle()
	train, test, err := r.scaled(sp)
	if err != nil {
		return err
	}
	// The methods fitted on this training part share what does not depend
	// on the method (with fewer rows than features, the factorisation of
	// the rows: analysis.Shared), which the split holds until it ends.
	train = train.WithShared(analysis.NewShared())
	_, nFeat := features(r.data).Dims()
	first := 0.0 // the step of the first method: 1 after the baseline
	if r.spec.Options.WithBaseline() {
		first = 1
		steps := float64(len(r.spec.Methods)) + first
		r.begin(f, Ori, 0, 1/steps, "baseline")
		r.lastFit, r.mark = 0, r.clock()
		m, pred, err := r.classifyOri(ctx, train, test)
		if err != nil {
			return err
		}
		r.recordErrors(Ori, nFeat, f, test.LabelMatrix(), pred, test.MultiDim())
		r.add(Ori, nFeat, f, m)
	}
	steps := float64(len(r.spec.Methods)) + first
	for mi, run := range r.spec.Methods {
		settle()
		r.begin(f, run.ID, (float64(mi)+first)/steps, (float64(mi)+first+1)/steps, run.ID)
		r.lastFit, r.mark = 0, r.clock()
		if err := r.method(ctx, run, train, test, f); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// settle collects the garbage of the stage that ended (a method's fit,
// projections and classifier, or the previous split's copies) before the
// next stage allocates its own, so that the evaluation's peak is its
// largest stage, not that stage plus the last one's dead buffers, which
// the collector may otherwise reclaim only later. EstimateMemory counts
// on it. The matrices are pointer-free, so a collection has little to
// mark: five a fold made no measurable difference to a fold of
// EURLex-4K's shape (29 s either way).
func settle() { runtime.GC() }

// scaled returns a split's training and test rows, their features scaled
// by the preprocessing of Options fitted on the training rows alone.
func (r *runner) scaled(sp Split) (train, test analysis.Input, err error) {
	train, test = subset(r.data, sp.Train), subset(r.data, sp.Test)
	kind := r.spec.Options.Preprocess
	if kind == "" || kind == preprocess.None {
		return train, test, nil
	}
	if train.Sparse != nil {
		return train, test, fmt.Errorf("evaluate: preprocess %q shifts every feature column, which would make the sparse features dense; "+
			"sparse data are evaluated with preprocess none", kind)
	}
	sc, err := preprocess.Fit(train.X, kind, r.data.FeatureNames)
	if err != nil {
		return train, test, fmt.Errorf("evaluate: %s: %w", sp.Name, err)
	}
	sc.ApplyInPlace(train.X) // subset made them: nothing else holds them
	sc.ApplyInPlace(test.X)
	if sc.Note != "" {
		r.note("%s", sc.Note)
	}
	return train, test, nil
}

// clock is the time now (r.now in tests).
func (r *runner) clock() time.Time {
	if r.now != nil {
		return r.now()
	}
	return time.Now()
}

// fit fits a method as analysis.Fit does, and records its wall time for
// the rows that follow.
func (r *runner) fit(ctx context.Context, id string, in analysis.Input, p analysis.Params) (*analysis.Model, error) {
	fit := r.fitFunc
	if fit == nil {
		fit = analysis.Fit
	}
	start := r.clock()
	m, err := fit(ctx, id, in, p, nil)
	r.mark = r.clock()
	r.lastFit = max(r.mark.Sub(start), 0)
	return m, err
}

// prefitted returns the model of Spec.Fitted that stands for the fit of
// run on the only split (explicit: on a grid whose largest d is top), and
// takes its fit time for the rows; nil when there is none or it would not
// give what the fit gives: a grid of percentages (their base is the fit's
// rank), lda's blocks, fewer directions than the grid's largest d, or
// with no grid other parameters.
func (r *runner) prefitted(run MethodRun, explicit bool, top int) *analysis.Model {
	f, ok := r.spec.Fitted[run.ID]
	if !ok || f.Model == nil || len(r.splits) != 1 || len(f.Model.Blocks) > 0 || len(r.spec.Grid.Percent) > 0 {
		return nil
	}
	if explicit {
		if _, err := f.Model.WithDim(top); err != nil {
			return nil
		}
	} else if !reflect.DeepEqual(f.Params, run.Params) {
		return nil
	}
	r.lastFit, r.mark = time.Duration(f.Seconds*float64(time.Second)), r.clock()
	r.reused = append(r.reused, run.ID)
	return f.Model
}

// method fits one method on a split's training part and evaluates it at
// every point of its grid.
func (r *runner) method(ctx context.Context, run MethodRun, train, test analysis.Input, f int) error {
	desc, _ := analysis.Lookup(run.ID)
	if desc.Transductive {
		return r.transductive(ctx, run, train, test, f)
	}
	p := run.Params
	explicit := len(r.spec.Grid.Dims) > 0 || len(r.spec.Grid.Percent) > 0
	if explicit {
		// Fit once, computing the directions up to the grid's largest d
		// only; the grid cuts it.
		_, nFeat := features(train).Dims()
		p.D, p.Thr, p.MaxDim = 0, 0, r.spec.Grid.maxDim(nFeat, r.rankBase[run.ID])
	}
	model := r.prefitted(run, explicit, p.MaxDim)
	if model == nil {
		var err error
		if model, err = r.fit(ctx, run.ID, train, p); err != nil {
			return err
		}
	}
	_, nFeat := features(train).Dims()
	limit, limitOf := gridLimit(model)
	base := limit
	if b, ok := r.rankBase[run.ID]; ok {
		base = b
	}
	pts := r.spec.Grid.points(nFeat, base)
	perVariable := len(model.Blocks) > 0 // lda: d applies to each class variable
	if pts == nil {
		if perVariable { // evaluated as fitted, at the d or thr asked for
			return r.featureDim(ctx, model, []point{{d: blocksDim(model), own: true}}, train, test, f)
		}
		pts = []point{{d: model.Dim, own: true}}
	}
	var usable []point
	for _, pt := range pts {
		if pt.d > limit {
			r.note("%s: d = %d is above its limit %d (%s) on some folds and was skipped", run.ID, pt.d, limit, limitOf)
			continue
		}
		usable = append(usable, pt)
	}
	if len(usable) == 0 {
		return nil
	}
	if desc.Space == analysis.LabelSpace {
		return r.labelSpace(ctx, model, usable, train, test, f)
	}
	if perVariable { // lda: one fit per d
		for _, group := range byD(usable) {
			q := run.Params
			q.D, q.Thr = group[0].d, 0
			m, err := r.fit(ctx, run.ID, train, q)
			if err != nil {
				return err
			}
			if err := r.featureDim(ctx, m, group, train, test, f); err != nil {
				return err
			}
		}
		return nil
	}
	top, err := model.WithDim(usable[len(usable)-1].d)
	if err != nil {
		return err
	}
	ztr, err := top.Transform(features(train))
	if err != nil {
		return err
	}
	zte, err := top.Transform(features(test))
	if err != nil {
		return err
	}
	groups := byD(usable)
	path := r.ridgePath(ztr, train, len(groups))
	for _, group := range groups {
		d := group[0].d
		var metrics map[string]float64
		var pred mat.Matrix
		if path != nil {
			metrics, pred = r.ridgeAt(path, d, firstCols(zte, d), train, test)
		} else if metrics, pred, err = r.classify(ctx, firstCols(ztr, d), firstCols(zte, d), train, test, nil); err != nil {
			return err
		}
		r.recordErrors(run.ID, group[0].errD(), f, test.LabelMatrix(), pred, test.MultiDim())
		r.addPoints(run.ID, group, f, metrics)
	}
	return nil
}

// ridgePath is the ridge classifier's path over the first columns of the
// projected training rows ztr (newRidgePath), when the classifier is
// ridge and a grid evaluates several d of one projection; nil otherwise
// (then classify fits each d), and when the system cannot be formed that
// way (fewer rows than columns, or not positive definite: classify then
// says why).
func (r *runner) ridgePath(ztr *mat.Dense, train analysis.Input, points int) *ridgePath {
	if r.spec.Options.Classifier != ClassifierRidge || points < 2 {
		return nil
	}
	t := train.Y
	if train.MultiDim() {
		t = oneHot(train.Y, train.Classes)
	}
	p, err := newRidgePath(ztr, t, r.spec.Options.Lambda)
	if err != nil {
		return nil
	}
	return p
}

// ridgeAt is classify's ridge at d from path: RidgeBR on multi-label data,
// OvRRidge on class variables, the same numbers as fitting d alone.
func (r *runner) ridgeAt(path *ridgePath, d int, xte *mat.Dense, train, test analysis.Input) (map[string]float64, *mat.Dense) {
	out := path.model(d).predict(xte)
	if train.MultiDim() {
		pred := argmaxBlocks(out, train.Classes)
		return MultiDimMetrics(test.Y, pred), pred
	}
	pred := threshold(out, 0.5)
	return r.multiLabel(train, test, pred, out), pred
}

// multiLabel scores a multi-label prediction pred with its scores against
// the test labels: MultiLabelMetrics, and XCMetrics with the inverse
// propensities of the training labels.
func (r *runner) multiLabel(train, test analysis.Input, pred, scores *mat.Dense) map[string]float64 {
	m := MultiLabelMetrics(test.Y, pred, scores)
	maps.Copy(m, XCMetrics(test.Y, scores, r.inverseProps(train.Y)))
	return m
}

// inverseProps are the inverse propensities of the training labels ytr
// with Options' A and B (checked by newRunner), computed once per
// training part: the grid's d and the methods of a split share them. Each
// split's labels are a new matrix (subset), and holding the last one in
// propY keeps its address from being reused by the next, so that the
// pointer identifies the training part.
func (r *runner) inverseProps(ytr *mat.Dense) []float64 {
	if r.propY != ytr {
		r.propY, r.propL, r.invProp = ytr, nil, inversePropensities(ytr, r.spec.Options.PsA, r.spec.Options.PsB)
	}
	return r.invProp
}

// sparseRidge is fitRidgeBiasSparse with the factor of the system kept
// for the split: plst and cplst (and any label-space method with the same
// λ) regress their codes from the same rows, so the second solves with
// the first's factor, which on a fold of EURLex-4K's shape saves forming
// and factoring a 5 001 × 5 001 system (about 2 s). x identifies the
// training part as ytr does for inverseProps: each split's rows are a new
// CSR, and the factor held keeps its address from being reused.
func (r *runner) sparseRidge(ctx context.Context, x *sparse.CSR, t *mat.Dense, lambda float64) (*ridgeModel, error) {
	if r.ridge == nil || r.ridge.x != x || r.ridge.lambda != lambda {
		r.ridge = nil // the previous split's, collected before this one is formed
		f, err := factorRidgeBiasSparse(ctx, x, lambda)
		if err != nil {
			return nil, err
		}
		r.ridge = f
	}
	return r.ridge.solve(ctx, t)
}

// inversePropsSparse is inverseProps of labels held sparse.
func (r *runner) inversePropsSparse(ytr *sparse.CSR) []float64 {
	if r.propL != ytr {
		r.propY, r.propL, r.invProp = nil, ytr, inversePropensitiesSparse(ytr, r.spec.Options.PsA, r.spec.Options.PsB)
	}
	return r.invProp
}

// blocksDim is the most directions any block of an lda model keeps: the d
// per class variable it was fitted at (a variable with fewer classes keeps
// fewer).
func blocksDim(m *analysis.Model) int {
	d := 0
	for _, b := range m.Blocks {
		d = max(d, b.Dim)
	}
	return d
}

// featureDim evaluates a model fitted at its own d (lda's blocks: the
// points give the d per variable, and the rows say so in DPerVariable, with
// the total columns in D).
func (r *runner) featureDim(ctx context.Context, m *analysis.Model, pts []point, train, test analysis.Input, f int) error {
	ztr, err := m.Transform(features(train))
	if err != nil {
		return err
	}
	zte, err := m.Transform(features(test))
	if err != nil {
		return err
	}
	metrics, pred, err := r.classify(ctx, ztr, zte, train, test, m.Blocks)
	if err != nil {
		return err
	}
	for i, pt := range pts { // one d, or (a group) several percentages of one d
		if i == 0 || pt.d != pts[i-1].d {
			r.recordErrors(m.Method, pt.errD(), f, test.LabelMatrix(), pred, test.MultiDim())
		}
	}
	if len(m.Blocks) == 0 {
		r.addPoints(m.Method, pts, f, metrics)
		return nil
	}
	r.note("%s: d is per class variable (per label on multi-label data), each giving at most its classes − 1; "+
		"its rows give that d in d_per_variable and the columns used in all, summed over the variables, in d", m.Method)
	for _, pt := range pts {
		r.addRow(pt.key(m.Method), Row{Method: m.Method, D: m.Dim, DPerVariable: pt.d, Percent: pt.percent}, f, maps.Clone(metrics))
	}
	return nil
}

// classify runs the classifier of Options on features xtr → xte and scores
// it against the test labels; it returns the metrics and the predictions
// they score (0/1, or class indices on multi-dimensional data). With blocks
// on multi-dimensional data, class variable j uses only its block's
// columns.
func (r *runner) classify(ctx context.Context, xtr, xte *mat.Dense, train, test analysis.Input, blocks []analysis.Block) (map[string]float64, mat.Matrix, error) {
	o := r.spec.Options
	if o.Classifier == ClassifierSVM && len(blocks) == 0 {
		return r.classifySVM(ctx, xtr, xte, train, test)
	}
	if !train.MultiDim() {
		if o.Classifier == ClassifierRidge {
			m, err := RidgeBR{Lambda: o.Lambda}.Fit(xtr, train.Y)
			if err != nil {
				return nil, nil, err
			}
			pred, scores := m.Predict(xte)
			return r.multiLabel(train, test, pred, scores), pred, nil
		}
		if o.Classifier == ClassifierKNN {
			return r.classifyKNN(ctx, xtr, xte, train, test)
		}
		m, err := MLkNN{K: o.K, S: o.S}.Fit(ctx, xtr, train.Y)
		if err != nil {
			return nil, nil, err
		}
		pred, post, err := m.Predict(ctx, xte)
		if err != nil {
			return nil, nil, err
		}
		return r.multiLabel(train, test, pred, post), pred, nil
	}
	predict := func(xtr, ytr, xte *mat.Dense, classes []int) (*mat.Dense, error) {
		switch o.Classifier {
		case ClassifierRidge:
			return OvRRidge{Lambda: o.Lambda}.Predict(xtr, ytr, xte, classes)
		case ClassifierSVM:
			return r.predictClassesSVM(ctx, xtr, ytr, xte, classes)
		}
		return KNNVote{K: o.K}.Predict(ctx, xtr, ytr, xte, classes) // mlknn and knn
	}
	if len(blocks) == 0 {
		pred, err := predict(xtr, train.Y, xte, train.Classes)
		if err != nil {
			return nil, nil, err
		}
		return MultiDimMetrics(test.Y, pred), pred, nil
	}
	nte, q := test.Y.Dims()
	pred := mat.NewDense(nte, q, nil)
	for _, b := range blocks {
		j := b.Variable
		pj, err := predict(colRange(xtr, b.Start, b.Dim), colRange(train.Y, j, 1), colRange(xte, b.Start, b.Dim), []int{train.Classes[j]})
		if err != nil {
			return nil, nil, err
		}
		pred.SetCol(j, mat.Col(nil, 0, pj))
	}
	return MultiDimMetrics(test.Y, pred), pred, nil
}

// predictClassesSVM is the svm on class variables (xtr and xte dense or
// sparse), its fits counted.
func (r *runner) predictClassesSVM(ctx context.Context, xtr mat.Matrix, ytr *mat.Dense, xte mat.Matrix, classes []int) (*mat.Dense, error) {
	pred, fits, err := r.svm().PredictClasses(ctx, xtr, ytr, xte, classes)
	if err != nil {
		return nil, err
	}
	r.countSVM(fits)
	return pred, nil
}

// classifyKNN runs the multi-label k-NN vote on features xtr → xte (both
// dense or both sparse) and scores it against the test labels, as
// classify does: its counts are the ranking scores.
func (r *runner) classifyKNN(ctx context.Context, xtr, xte mat.Matrix, train, test analysis.Input) (map[string]float64, mat.Matrix, error) {
	if train.Labels != nil {
		return r.voteSparse(ctx, xtr, xte, train, test)
	}
	nn, err := r.neighbours(ctx, xtr, xte)
	if err != nil {
		return nil, nil, err
	}
	pred, scores := voteScores(nn, labelOnes(train.Y), train.Y)
	return r.multiLabel(train, test, pred, scores), pred, nil
}

// classifySVM runs the svm on features xtr → xte (dense or sparse) and
// scores it against the test labels, as classify does.
func (r *runner) classifySVM(ctx context.Context, xtr, xte mat.Matrix, train, test analysis.Input) (map[string]float64, *mat.Dense, error) {
	if train.MultiDim() {
		pred, err := r.predictClassesSVM(ctx, xtr, train.Y, xte, train.Classes)
		if err != nil {
			return nil, nil, err
		}
		return MultiDimMetrics(test.Y, pred), pred, nil
	}
	pred, scores, fits, err := r.svm().PredictLabels(ctx, xtr, train.Y, xte)
	if err != nil {
		return nil, nil, err
	}
	r.countSVM(fits)
	return r.multiLabel(train, test, pred, scores), pred, nil
}

// labelSpace evaluates a label-space model at every M: one regression to
// the full codes serves all M (ridge regression is column-wise).
func (r *runner) labelSpace(ctx context.Context, model *analysis.Model, pts []point, train, test analysis.Input, f int) error {
	full, err := model.WithDim(pts[len(pts)-1].d)
	if err != nil {
		return err
	}
	codes, err := full.FitCodes(train.LabelMatrix()) // faie's are implicit
	if err != nil {
		return err
	}
	r.decoders[model.Method] = decoderOf(model)
	var pred *mat.Dense // predicted codes of the test rows, for the largest M
	switch {
	case model.HasRegressor(): // leml's regressor comes with its fit
		if pred, err = full.RegressCodes(features(test)); err != nil {
			return err
		}
	case model.Method != "kcplst" && train.Sparse != nil && sparseRegressor(train.Sparse.R, train.Sparse.C, int64(train.Sparse.NNZ())):
		reg, err := r.sparseRidge(ctx, train.Sparse, codes, *model.Params.Lambda)
		if err != nil {
			return err
		}
		if pred, err = reg.predictSparse(ctx, test.Sparse); err != nil {
			return err
		}
	case model.Method == "kcplst":
		xtr, xte := r.denseFeatures(train, model.Method+"'s regressor from the features"), r.denseFeatures(test, "")
		if pred, err = full.KernelCodes(ctx, xtr, xte); err != nil {
			return err
		}
	default:
		xtr, xte := r.denseFeatures(train, model.Method+"'s regressor from the features"), r.denseFeatures(test, "")
		reg, err := fitRidgeBias(xtr, codes, *model.Params.Lambda)
		if err != nil {
			return err
		}
		pred = reg.predict(xte)
	}
	for _, group := range byD(pts) {
		if err := r.decodeAt(ctx, model, group, pred, train, test, f); err != nil {
			return err
		}
	}
	return nil
}

// decodeBlock is how many test rows a label-space model decodes at a time
// when the labels are held sparse: its q-wide rows (codes, scores,
// decisions) then take 4·decodeBlock·q values, where the dense path holds
// them for every test row.
const decodeBlock = 256

// decodeAt scores a label-space model at the d of group from pred, the
// predicted codes of the test rows: the decoded labels and their scores
// (Vᵀr + ȳ), the metrics, the per-row errors, and the encoding and
// prediction errors of the test codes. Dense labels go in one block of
// every test row; labels held sparse in blocks of decodeBlock rows, made
// dense one block at a time; the sums run over the rows in the same order
// either way.
func (r *runner) decodeAt(ctx context.Context, model *analysis.Model, group []point, pred *mat.Dense, train, test analysis.Input, f int) error {
	d := group[0].d
	m, err := model.WithDim(d)
	if err != nil {
		return err
	}
	v, dec := m.P(), m.Decoding() // encoder and decoder: the same but for mlcssp and faie
	nte, q := test.LabelDims()
	block := nte
	if test.Labels != nil {
		block = decodeBlock
	}
	ml := newMultiLabelAcc(q)
	var xc *xcAcc
	if train.Labels != nil {
		xc = newXCAcc(r.inversePropsSparse(train.Labels))
	} else {
		xc = newXCAcc(r.inverseProps(train.Y))
	}
	var decided mat.Matrix // the decisions, for the per-row errors
	var sparseDecided *sparse.Builder
	if test.Labels != nil {
		sparseDecided = sparse.NewBuilder(q, nte)
	}
	var encSq, diffSq float64
	for i0 := 0; i0 < nte; i0 += block {
		if err := ctx.Err(); err != nil {
			return err
		}
		i1 := min(nte, i0+block)
		var yb *mat.Dense
		if test.Labels != nil {
			yb = test.Labels.RowRange(i0, i1).Dense()
		} else {
			yb = test.Y
		}
		pd := mat.DenseCopyOf(pred.Slice(i0, i1, 0, d))
		var scores, tz, enc mat.Dense
		scores.Mul(pd, dec.T()) // Vᵀr, then + ȳ: the scores the labels are decided from
		for i := range i1 - i0 {
			row := scores.RawRowView(i)
			for j, mu := range model.Means {
				row[j] += mu
			}
		}
		labels := m.Decide(&scores)
		for i := range i1 - i0 {
			row := scores.RawRowView(i)
			ml.addRow(yb.RawRowView(i), labels.RawRowView(i), row)
			xc.addRow(yb.RawRowView(i), row)
		}
		if sparseDecided != nil {
			for i := range i1 - i0 {
				for l, x := range labels.RawRowView(i) {
					if x != 0 {
						sparseDecided.Add(l, 1)
					}
				}
				sparseDecided.EndRow()
			}
		} else {
			decided = labels
		}
		zte := codedCentred(yb, model.Means)
		tz.Mul(zte, v) // Z_te V
		enc.Mul(&tz, dec.T())
		enc.Sub(zte, &enc)
		var diff mat.Dense
		diff.Sub(pd, &tz)
		if m.OwnDecoder() { // the error in the labels it decodes to: ‖(r − t)·Dᵀ‖, as ‖r − t‖ for orthonormal V
			var lab mat.Dense
			lab.Mul(&diff, dec.T())
			diff = lab
		}
		encSq = addSq(encSq, &enc)
		diffSq = addSq(diffSq, &diff)
	}
	metrics := ml.metrics()
	maps.Copy(metrics, xc.metrics())
	if sparseDecided != nil {
		decided = sparseDecided.Build()
	}
	r.recordErrors(model.Method, group[0].errD(), f, test.LabelMatrix(), decided, false)
	metrics[EncodingError] = encSq / float64(nte)
	metrics[PredictionError] = diffSq / float64(nte)
	metrics[LossBound] = metrics[EncodingError] + metrics[PredictionError]
	r.addPoints(model.Method, group, f, metrics)
	return nil
}

// codedCentred is (2Y − 1) − mean: test labels in the ±1 coding with the
// training means.
func codedCentred(y *mat.Dense, mean []float64) *mat.Dense {
	n, q := y.Dims()
	z := mat.NewDense(n, q, nil)
	for i := range n {
		for j := range q {
			z.Set(i, j, 2*y.At(i, j)-1-mean[j])
		}
	}
	return z
}

// addSq adds the squares of m's entries to s, row by row.
func addSq(s float64, m *mat.Dense) float64 {
	r, _ := m.Dims()
	for i := range r {
		for _, v := range m.RawRowView(i) {
			s += v * v
		}
	}
	return s
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

// subset takes rows of an input (sparse features and labels stay sparse).
func subset(in analysis.Input, rows []int) analysis.Input {
	out := analysis.Input{Classes: in.Classes, FeatureNames: in.FeatureNames}
	if in.Labels != nil {
		out.Labels = in.Labels.SelectRows(rows)
	} else {
		_, q := in.Y.Dims()
		out.Y = mat.NewDense(len(rows), q, nil)
		for i, r := range rows {
			out.Y.SetRow(i, in.Y.RawRowView(r))
		}
	}
	if in.Sparse != nil {
		out.Sparse = in.Sparse.SelectRows(rows)
		return out
	}
	_, d := in.X.Dims()
	out.X = mat.NewDense(len(rows), d, nil)
	for i, r := range rows {
		out.X.SetRow(i, in.X.RawRowView(r))
	}
	return out
}

// features is the feature matrix of in, dense or sparse.
func features(in analysis.Input) mat.Matrix {
	if in.Sparse != nil {
		return in.Sparse
	}
	return in.X
}

// denseFeatures is in's features as a dense matrix: X, or a dense copy of
// the sparse features for the work that needs them whole (ridge on the
// original features, kcplst's kernel), which a note names (why; "" for no
// note).
func (r *runner) denseFeatures(in analysis.Input, why string) *mat.Dense {
	if in.Sparse == nil {
		return in.X
	}
	if why != "" {
		r.note("%s works on dense features, so the sparse features of each split were made dense for it", why)
	}
	return in.Sparse.Dense()
}

// classifyOri runs the classifier of Options on the original features:
// on sparse features, ML-kNN and the k-NN votes search the neighbours on
// the sparse rows (knn.SearchSparse: the same neighbours as on the dense
// rows), the svm fits on the sparse rows (the same sums: the same
// weights); ridge makes them dense.
func (r *runner) classifyOri(ctx context.Context, train, test analysis.Input) (map[string]float64, mat.Matrix, error) {
	o := r.spec.Options
	if train.Sparse == nil || o.Classifier == ClassifierRidge {
		return r.classify(ctx, r.denseFeatures(train, "the ridge baseline (ori)"), r.denseFeatures(test, ""), train, test, nil)
	}
	if o.Classifier == ClassifierSVM {
		return r.classifySVM(ctx, train.Sparse, test.Sparse, train, test)
	}
	if train.MultiDim() {
		pred, err := KNNVote{K: o.K}.predict(ctx, train.Sparse, train.Y, test.Sparse, train.Classes)
		if err != nil {
			return nil, nil, err
		}
		return MultiDimMetrics(test.Y, pred), pred, nil
	}
	if o.Classifier == ClassifierKNN {
		return r.classifyKNN(ctx, train.Sparse, test.Sparse, train, test)
	}
	m, err := MLkNN{K: o.K, S: o.S}.fitSparse(ctx, train.Sparse, train.Y)
	if err != nil {
		return nil, nil, err
	}
	pred, post, err := m.predictSparse(ctx, test.Sparse)
	if err != nil {
		return nil, nil, err
	}
	return r.multiLabel(train, test, pred, post), pred, nil
}

func firstCols(m *mat.Dense, d int) *mat.Dense { return colRange(m, 0, d) }

func colRange(m *mat.Dense, start, width int) *mat.Dense {
	r, _ := m.Dims()
	return mat.DenseCopyOf(m.Slice(0, r, start, start+width))
}
