package evaluate

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/analysis"
	"mldr/internal/knn"
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

// begin starts a step of fold f: method, over the fold's share [from, to),
// reported as phase.
func (r *runner) begin(f int, method string, from, to float64, phase string) {
	r.step = step{fold: f, method: method, from: from, to: to, at: from}
	r.report(f, from, phase)
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
	pts := r.gridPoints(run.ID, nFeat, limit)
	perVariable := len(model.Blocks) > 0 // lda: d applies to each class variable
	if pts == nil {
		if perVariable { // evaluated as fitted, at the d or thr asked for
			return r.featureDim(ctx, model, []point{{d: blocksDim(model), own: true}}, train, test, f)
		}
		pts = []point{{d: model.Dim, own: true}}
	}
	usable := r.within(run.ID, pts, limit, limitOf)
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
