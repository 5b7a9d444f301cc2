package evaluate

import (
	"context"
	"fmt"
	"maps"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/analysis"
	"mldr/internal/linsvm"
	"mldr/internal/sparse"
)

// Feature-space evaluation: the classifier of Options on a feature-space
// method's projected rows, at each d of its grid (featureDim, the ridge
// path), and on the original features for the baseline ori (classifyOri);
// the svm's progress and notes, and the scoring of multi-label predictions
// with the training labels' inverse propensities.

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
// split's labels are a new matrix (SelectRows), and holding the last one in
// propY keeps its address from being reused by the next, so that the
// pointer identifies the training part.
func (r *runner) inverseProps(ytr *mat.Dense) []float64 {
	if r.propY != ytr {
		r.propY, r.propL, r.invProp = ytr, nil, inversePropensities(ytr, r.spec.Options.PsA, r.spec.Options.PsB)
	}
	return r.invProp
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
