package evaluate

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/linsvm"
)

// Defaults of the classifier "svm": LIBLINEAR's `-c 1` and the tolerance
// `-e 0.0001` (LIBLINEAR's own default for -s 3 is 0.1, a thousand times
// looser).
const (
	DefaultC   = linsvm.DefaultC
	DefaultEps = linsvm.DefaultEps
)

// SVM is the classifier of seed 003's experiments: LIBLINEAR's linear
// support vector machine "-s 3" (L2-regularised L1-loss SVC, dual, Hsieh et
// al. 2008) with its bias feature "-B 1", cost C (default 1) and stopping
// tolerance Eps (default 1e-4), fitted by package linsvm on every core,
// sweep for sweep as liblinear-train fits it (rows in LIBLINEAR's order,
// glibc's rand() from seed 1 for each of its processes).
//
// On multi-label data it is binary relevance: one SVM per label, the label
// present as +1 (as liblinear-train on labels ±1, one process per label);
// a label is predicted where the decision value is > 0, as LIBLINEAR
// predicts +1, and the decision values are the ranking scores. A label
// that every training row has, or none has, is predicted so for every row
// with decision value +1 or −1 (LIBLINEAR, given one class, predicts it;
// ±1 is the margin an SVM gives a row on the right side).
//
// On multi-dimensional data each class variable is one-vs-rest over the
// classes its training rows have, as LIBLINEAR does multi-class data (one
// liblinear-train process per variable): one SVM per class, the class as
// +1, fitted in the order of the classes' first rows, and the class of the
// largest decision value; a variable with two classes trains one SVM, the
// class of the first row as +1, whose decision value v gives the other
// class −v; a variable with one class predicts it. A tie goes to the
// lowest class (LIBLINEAR's to the class seen first: the two differ only
// on decision values exactly equal). A class no training row has is never
// predicted.
type SVM struct {
	C, Eps float64
	// Progress, when not nil, hears after each binary SVM how many of the
	// classifier's are fitted, of how many.
	Progress func(done, total int)
}

// SVMFits says how a classifier's binary SVMs went: how many there were,
// and how many stopped at LIBLINEAR's limit of sweeps before the
// tolerance.
type SVMFits struct{ Total, Capped int }

// params are the solver's parameters.
func (c SVM) params() linsvm.Params {
	return linsvm.Params{C: c.C, Eps: c.Eps}
}

// train fits every group of problems on xtr (see linsvm.TrainAll).
func (c SVM) train(ctx context.Context, xtr *linsvm.Rows, groups [][]linsvm.Problem) ([][]*linsvm.Model, SVMFits, error) {
	if len(groups) == 0 {
		return nil, SVMFits{}, nil
	}
	models, err := linsvm.TrainAll(ctx, xtr, groups, c.params(), c.Progress)
	if err != nil {
		return nil, SVMFits{}, err
	}
	var fits SVMFits
	for _, g := range models {
		for _, m := range g {
			fits.Total++
			if !m.Converged {
				fits.Capped++
			}
		}
	}
	return models, fits, nil
}

// oneVsRest is the problem of class k against the others, on rows in
// LIBLINEAR's order.
func oneVsRest(labels []int, k int, order []int32) linsvm.Problem {
	y := make([]float64, len(labels))
	for i, l := range labels {
		y[i] = -1
		if l == k {
			y[i] = 1
		}
	}
	return linsvm.Problem{Y: y, Order: order}
}

// PredictLabels fits binary relevance on the training rows xtr (N×D, dense
// or *sparse.CSR) with labels ytr (N×q, 0/1) and predicts the rows xte:
// the labels (0/1) and the decision values.
func (c SVM) PredictLabels(ctx context.Context, xtr mat.Matrix, ytr *mat.Dense, xte mat.Matrix) (pred, scores *mat.Dense, fits SVMFits, err error) {
	if err := c.params().Check(); err != nil {
		return nil, nil, fits, err
	}
	n, q := ytr.Dims()
	var groups [][]linsvm.Problem
	var fitted []int // the labels with an SVM
	constant := make([]float64, q)
	labels := make([]int, n)
	for l := range q {
		for i := range n {
			labels[i] = -1
			if ytr.At(i, l) != 0 {
				labels[i] = 1
			}
		}
		order, classes := linsvm.ClassOrder(labels)
		if len(classes) == 1 {
			constant[l] = float64(classes[0])
			continue
		}
		groups = append(groups, []linsvm.Problem{oneVsRest(labels, 1, order)})
		fitted = append(fitted, l)
	}
	models, fits, err := c.train(ctx, linsvm.NewRows(xtr), groups)
	if err != nil {
		return nil, nil, fits, err
	}
	te := linsvm.NewRows(xte)
	nte, _ := te.Dims()
	pred, scores = mat.NewDense(nte, q, nil), mat.NewDense(nte, q, nil)
	for l, v := range constant {
		if v != 0 {
			for i := range nte {
				scores.Set(i, l, v)
				pred.Set(i, l, max(v, 0))
			}
		}
	}
	for k, l := range fitted {
		for i := range nte {
			v := models[k][0].Decision(te, i)
			scores.Set(i, l, v)
			if v > 0 {
				pred.Set(i, l, 1)
			}
		}
	}
	return pred, scores, fits, nil
}

// PredictClasses fits one-vs-rest per class variable on the training rows
// xtr (dense or *sparse.CSR) with class indices ytr (N×q; variable j has
// classes[j] classes) and predicts the class indices of the rows xte.
func (c SVM) PredictClasses(ctx context.Context, xtr mat.Matrix, ytr *mat.Dense, xte mat.Matrix, classes []int) (*mat.Dense, SVMFits, error) {
	if err := c.params().Check(); err != nil {
		return nil, SVMFits{}, err
	}
	n, q := ytr.Dims()
	if len(classes) != q {
		return nil, SVMFits{}, fmt.Errorf("evaluate: %d class counts for %d class variables", len(classes), q)
	}
	// seen[j] are the classes of variable j's training rows in LIBLINEAR's
	// order (of their first row); variable j's SVMs are group[j] of the
	// groups, or none (-1) for a variable of one class.
	seen := make([][]int, q)
	group := make([]int, q)
	var groups [][]linsvm.Problem
	for j := range q {
		labels := make([]int, n)
		for i := range n {
			labels[i] = int(ytr.At(i, j))
		}
		order, cls := linsvm.ClassOrder(labels)
		seen[j], group[j] = cls, -1
		if len(cls) == 1 {
			continue
		}
		svms := cls
		if len(cls) == 2 {
			svms = cls[:1] // one SVM, the first class as +1
		}
		var g []linsvm.Problem
		for _, k := range svms {
			g = append(g, oneVsRest(labels, k, order))
		}
		group[j] = len(groups)
		groups = append(groups, g)
	}
	models, fits, err := c.train(ctx, linsvm.NewRows(xtr), groups)
	if err != nil {
		return nil, fits, err
	}
	te := linsvm.NewRows(xte)
	nte, _ := te.Dims()
	pred := mat.NewDense(nte, q, nil)
	for j, cls := range seen {
		dec := make([]float64, classes[j]) // by class index; a class not seen never wins
		for i := range nte {
			if group[j] < 0 {
				pred.Set(i, j, float64(cls[0]))
				continue
			}
			for k := range dec {
				dec[k] = math.Inf(-1)
			}
			ms := models[group[j]]
			if len(cls) == 2 {
				v := ms[0].Decision(te, i)
				dec[cls[0]], dec[cls[1]] = v, -v
			} else {
				for s, k := range cls {
					dec[k] = ms[s].Decision(te, i)
				}
			}
			pred.Set(i, j, float64(argmax(dec))) // the lowest class on a tie
		}
	}
	return pred, fits, nil
}
