package evaluate

import (
	"fmt"
	"math"
	"runtime"

	"mldr/internal/analysis"
	"mldr/internal/knn"
)

// EstimateMemory returns the peak bytes Run(ctx, in, splits, spec, …) allocates beyond
// in.X and in.Y for data of shape s (s.N = all rows of in), when the largest test part
// of a split has testRows rows, including the fits of spec's methods, the projected
// copies, the classifier's work (ML-kNN's neighbour search blocks, ridge's matrices)
// and the metric rows.
//
// With sparse features (s.NNZ > 0, the non-zero cells of every row) the
// split's copies of the features are CSR (12 bytes a non-zero cell, 8 a
// row), the fits see the training part's non-zero cells (at most s.NNZ),
// ML-kNN and the k-NN vote on the original features search the sparse rows
// (knn.SearchSparse: the reference rows' transpose and the blocks of
// distances, no dense copy), and what works on dense features — ridge on
// the original features, the label-space methods' regressors — adds a dense
// copy of both parts, as Run makes it.
//
// Run handles one split at a time and, within it, one method at a time, so
// the peak is the split's copies of its rows (training and test parts, N
// rows in all) plus the largest of: the baseline's classifier on the D
// features (unless Options.Baseline leaves it out), and for each method
// its fit (analysis.EstimateMemory on the training rows; lda refits once
// per d, one fit alive at a time; a transductive method — mds — on both
// parts, with their stacked copy) plus the
// model's projections of both parts and the classifier at the largest d
// of the grid — or, for label-space methods, the ridge regression from
// the features (bias column included) or kcplst's kernel codes. With
// s.LabelsSparse (and s.LabelOnes known) and a spec that keeps them so
// (KeepsLabelsSparse), the split's labels are CSR and the test rows are
// held q values wide one row (the k-NN vote) or decodeBlock rows (a
// label-space model's decoding) at a time; otherwise Run's dense copy of
// labels given sparse is the caller's to count. The metric
// rows of every method, d and split are added, half the largest stage
// again for what the collector has not reclaimed within it (Run collects
// the previous stage's buffers before each stage: runner.settle), and
// what the split's fits share (analysis.SharedBytes). With spec.RowErrors, the per-row errors
// are added: RowErrorBytes per row and, on multi-label data,
// LabelCountBytes per label, per (method, d) of the run, ori included,
// held to the end. Like analysis's, the
// estimate is of the live heap: the runtime may hold up to twice that
// with the default GOGC unless a memory limit is set.
func EstimateMemory(s analysis.Shape, testRows int, spec Spec) (int64, error) {
	if s.N < 2 || s.D < 1 || s.Q < 1 {
		return 0, fmt.Errorf("evaluate: a shape needs at least 2 rows, a feature and a label, not N = %d, D = %d, q = %d", s.N, s.D, s.Q)
	}
	if testRows < 1 || testRows >= s.N {
		return 0, fmt.Errorf("evaluate: the test part must have between 1 and %d rows, not %d", s.N-1, testRows)
	}
	o := spec.Options
	if err := o.Check(); err != nil {
		return 0, err
	}
	if o.Classifier == ClassifierNone {
		return 0, ErrNothingToEvaluate
	}
	k := o.K
	if k == 0 {
		k = DefaultK
	}
	n, d, q := float64(s.N), float64(s.D), float64(s.Q)
	nte := float64(testRows)
	ntr := n - nte
	train := s // the fits see the training rows (LabelOnes, LabelSets and NNZ: at most all of them)
	train.N = s.N - testRows
	nnz := float64(s.NNZ) // 0: dense features
	if nnz > 0 {
		train.NNZ = int64(min(nnz, ntr*d))
	}
	dense := 0.0 // the dense copy of both parts' sparse features, for the work that needs them dense
	if nnz > 0 {
		dense = n * d
	}
	ones := ntr * q // the training rows' labels present, at most all
	if s.LabelOnes > 0 {
		ones = min(ones, float64(s.LabelOnes))
	}
	// wide is how many test rows are held q values wide at a time: all of
	// them, or with labels kept sparse (KeepsLabelsSparse) one for the
	// k-NN vote and decodeBlock for a label-space model's decoding.
	wide, decoding := nte, nte
	keepSparse := s.LabelsSparse && s.LabelOnes > 0 && KeepsLabelsSparse(spec)
	if keepSparse {
		wide, decoding = 1, min(nte, decodeBlock)
	}
	var peak float64 // the baseline, in bytes
	switch {
	case !o.WithBaseline():
	case nnz > 0 && o.Classifier == ClassifierRidge:
		peak = 8 * (dense + classifierMem(o.Classifier, k, s.Classes, ntr, nte, d, q, ones, wide))
	case nnz > 0 && o.Classifier == ClassifierSVM: // on the sparse rows
		peak = 8 * classifierMem(o.Classifier, k, s.Classes, ntr, nte, d, q, ones, wide)
	case nnz > 0:
		peak = 8 * sparseSearchMem(o.Classifier, k, s.Classes, ntr, nte, d, q, ones, min(nnz, ntr*d), wide)
	default:
		peak = 8 * classifierMem(o.Classifier, k, s.Classes, ntr, nte, d, q, ones, wide)
	}
	dims := 0.0       // the grid's points over all methods, for the metric rows
	keptFactor := 0.0 // bytes of the regressor's factor a split keeps
	for _, run := range spec.Methods {
		m, ok := analysis.Lookup(run.ID)
		if !ok {
			return 0, fmt.Errorf("evaluate: unknown method %q", run.ID)
		}
		p := run.Params
		if len(spec.Grid.Dims) > 0 || len(spec.Grid.Percent) > 0 {
			// As runner.method fits it: the directions up to the grid's
			// largest d only (every pair for a percentage of a rank not
			// known yet), which decides the fit's route and memory (a
			// 5 000-feature pca at d = 100 holds its 100 pairs, not the
			// whole D×D decomposition).
			p.D, p.Thr, p.MaxDim = 0, 0, spec.Grid.maxDim(s.D, 0)
		}
		fitShape := train
		if m.Transductive { // fitted on both parts together
			fitShape = s
			fitShape.NNZ = int64(nnz)
		}
		fit, err := analysis.EstimateMemory(run.ID, p, fitShape)
		if err != nil {
			return 0, err
		}
		if _, given := spec.Fitted[run.ID]; given {
			fit = 0 // Run evaluates the model given, which the caller holds
		}
		top := float64(analysis.MaxDim(run.ID, p, train))
		if m.ID == "lda" { // d per class variable (per label on multi-label data)
			vars := len(s.Classes)
			if s.Classes == nil {
				vars = s.Q
			}
			top *= float64(max(vars, 1))
		}
		grid := gridPoints(spec.Grid, s.D, int(top))
		if p.D > 0 && grid == 0 {
			top = min(top, float64(p.D))
		}
		if g := gridMax(spec.Grid, s.D); g > 0 {
			top = min(top, g)
		}
		dims += max(1, float64(grid))
		var after float64
		switch {
		case m.Space == analysis.LabelSpace && m.ID != "kcplst" && nnz > 0 && sparseRegressor(train.N, s.D, train.NNZ):
			// The regressor on the sparse rows (fitRidgeBiasSparse): no
			// dense copy; XᵀX's column index (12 bytes an entry) beside
			// the system, whose factor the split keeps for the other
			// label-space methods (runner.sparseRidge).
			// The dual system (n ≤ d + 1) adds Xᵀ's CSR, as much again.
			after = 1.5*float64(train.NNZ) + labelSpaceMem(m.ID, ntr, nte, d, q, top, decoding) - (ntr+nte)*(d+1)
			if ntr <= d+1 {
				after += 1.5 * float64(train.NNZ)
			}
			sys := min(d+1, ntr)
			keptFactor = 8 * sys * sys
		case m.Space == analysis.LabelSpace:
			after = dense + labelSpaceMem(m.ID, ntr, nte, d, q, top, decoding)
		case m.Transductive:
			// together's copy of both parts (features, and labels with
			// the test rows' left empty), held through the fit and the
			// classifier; the model's embedding and Projected of every
			// row, their training and test parts copied, the classifier.
			stack := n*d + n*q
			if nnz > 0 {
				stack = 1.5*nnz + n
			}
			if keepSparse {
				stack += 1.5*float64(s.LabelOnes) - n*q + n
			}
			fit += int64(8 * stack)
			after = stack + 3*n*top + classifierMem(o.Classifier, k, s.Classes, ntr, nte, top, q, ones, wide)
		default:
			// Transform of both parts (P's copy, the projections), the
			// columns cut for each d, the classifier on them.
			after = d*top + 2*(ntr+nte)*top + classifierMem(o.Classifier, k, s.Classes, ntr, nte, top, q, ones, wide)
			if b := float64(analysis.KernelBasisRows(run.ID, p, train)); b > 0 {
				after += b*top + 2*256*(b+d) // kpca, kmddm: α's copy, a block of rows and its kernel
			}
		}
		peak = max(peak, float64(fit)+8*after) // fit is in bytes, after in float64s
	}
	rows := (float64(len(spec.Methods)) + 1) * max(1, dims) * 2 * 1024 // a Row and its metric maps, per fold and mean
	// The split's copies of its rows, the largest stage, the metric rows.
	// The previous stage's buffers are not counted on top: Run collects
	// them before each stage begins (runner.settle). Half the largest
	// stage again covers what the collector has not yet reclaimed within
	// it (the classifier's and projections' buffers, which the ledgers do
	// not follow stage by stage): measured peaks reach 1.04 times the
	// stage alone on small shapes (TestEstimateMemorySparse).
	labels := n * q // the split's labels: dense, or CSR (1.5 float64s a one, one a row)
	if keepSparse {
		labels = 1.5*float64(s.LabelOnes) + n + 2
	}
	split := 8 * (n*d + labels + n) // the split's rows: features, labels, row numbers
	if nnz > 0 {
		split = 12*nnz + 8*(n+2) + 8*(labels+n)
	}
	// What the split's fits share (analysis.Shared) is held through it.
	total := split + float64(analysis.SharedBytes(train)) + keptFactor + stageSlack*peak + rows
	if spec.RowErrors {
		perCell := RowErrorBytes * n
		if s.Classes == nil { // multi-label: the per-label counts
			perCell += LabelCountBytes * float64(s.Q)
		}
		total += perCell * (1 + dims) // ori and every method's grid points
	}
	if total > math.MaxInt64/2 {
		return math.MaxInt64 / 2, nil
	}
	return int64(total), nil
}

// stageSlack is how many times its largest stage an evaluation's
// estimate counts (see EstimateMemory).
const stageSlack = 1.5

// classifierMem is the classifier's peak, in float64s, on f features:
// ML-kNN's two neighbour searches (training rows among themselves, then
// the test rows), the label indices of the training rows (4 bytes each of
// their ones, 24 a row) and its outputs; the k-NN votes' one search (the
// test rows), the same label indices and their outputs; ridge's centred copies, its f×f (or, with
// fewer training rows than features, ntr×ntr) system, a Cholesky copy and
// factor, the weights and the outputs; for multi-dimensional data the
// k-NN vote, or one ridge per class variable; the svm's (svmMem).
//
// wide is how many test rows it holds q values wide (nte, or 1 for the
// k-NN vote on labels kept sparse, whose decisions then take a CSR).
func classifierMem(classifier string, k int, classes []int, ntr, nte, f, q, ones, wide float64) float64 {
	metrics := 4*wide*q + 16*q
	if wide < nte {
		metrics += 1.5*ones*nte/max(ntr, 1) + nte // the decisions' CSR, about as many ones as the truth
	}
	if classifier == ClassifierSVM {
		return svmMem(classes, ntr, nte, f, q) + metrics
	}
	if classifier == ClassifierRidge {
		c := q
		if classes != nil {
			c = 0
			for _, kj := range classes {
				c = max(c, float64(kj))
			}
		}
		m := min(f, ntr)
		return ntr*f + 2*ntr*c + 3*m*m + 3*f*c + ntr*c + nte*f + 3*nte*max(c, q) + metrics + 2*ntr*c
	}
	if classifier == ClassifierKNN {
		search := float64(knn.EstimateMemory(int(ntr), int(nte), int(f), k, false)) / 8
		return search + 3*ntr + ones/2 + 2*wide*q + metrics
	}
	search := float64(max(knn.EstimateMemory(int(ntr), int(ntr), int(f), k, true),
		knn.EstimateMemory(int(ntr), int(nte), int(f), k, false))) / 8
	return search + 1.5*ntr*float64(k) + 2*q*float64(k+1) + 3*ntr + ones/2 + 2*nte*q + metrics
}

// svmMem is the svm's peak, in float64s, on f features (the rows are not
// copied, dense or sparse): the ±1 labels of every binary problem (one per
// label; per class variable one per class, or one for two), LIBLINEAR's
// order of the rows per label or variable (4 bytes a row) and the labels
// as integers, each problem's weights, ‖x̃_i‖² of the training and test
// rows, and for each of the fits running at once (one a core) its dual
// variables and coordinate index (12 bytes a row); then the predictions
// and decision values.
func svmMem(classes []int, ntr, nte, f, q float64) float64 {
	problems, groups := q, q
	if classes != nil {
		problems = 0
		for _, k := range classes {
			problems += float64(k)
		}
	}
	running := min(float64(runtime.GOMAXPROCS(0)), groups)
	return problems*ntr + groups*(ntr/2+ntr) + problems*(f+1) + ntr + nte + running*1.5*ntr + 2*nte*q
}

// sparseSearchMem is classifierMem for ML-kNN or the k-NN votes on sparse
// features, refNNZ of them in the training rows: knn.SearchSparse holds
// no copy of the features but the reference rows' transpose (12 bytes an
// entry, 8 a column), their norms and the queries', and each worker's
// block of distances, as knn.EstimateMemory with no feature columns.
func sparseSearchMem(classifier string, k int, classes []int, ntr, nte, f, q, ones, refNNZ, wide float64) float64 {
	dense := classifierMem(classifier, k, classes, ntr, nte, 0, q, ones, wide)
	return dense + 1.5*refNNZ + f + 1
}

// labelSpaceMem is a label-space method's evaluation after its fit, in
// float64s: the codes of the training rows (N×M), the ridge regression from
// the features with a bias column — X copied with the column, its system
// (D+1)² or N², the weights — and the test rows' predicted codes, decoded
// labels and the encoding and prediction errors (N_te×q, several); kcplst
// instead computes its kernel codes from centred copies of both parts and
// blocks of 256 kernel rows. decoding is how many test rows are decoded
// at a time (all, or decodeBlock with labels kept sparse).
func labelSpaceMem(id string, ntr, nte, d, q, m, decoding float64) float64 {
	codes := ntr*m + nte*m
	decode := 8*decoding*q + q*m
	if id == "kcplst" {
		return codes + ntr*m + (ntr+nte)*d + 256*ntr + decode
	}
	if id == "leml" { // its own regressor: the predicted codes only
		return codes + nte*m + d*m + decode
	}
	d1 := d + 1
	s := min(d1, ntr)
	return codes + (ntr+nte)*d1 + 3*s*s + 3*d1*m + decode
}

// gridPoints is how many d a method's curve visits (0: its own d only).
func gridPoints(g Grid, features, rank int) int {
	return len(g.values(features, max(rank, 1)))
}

// gridMax is the grid's largest d when it does not depend on the rank (0:
// none, or of the rank).
func gridMax(g Grid, features int) float64 {
	if len(g.Dims) > 0 {
		return float64(slicesMax(g.Dims))
	}
	if len(g.Percent) > 0 && g.Of != "rank" {
		v := g.values(features, 1)
		return float64(v[len(v)-1])
	}
	return 0
}

func slicesMax(v []int) int {
	best := v[0]
	for _, x := range v {
		best = max(best, x)
	}
	return best
}
