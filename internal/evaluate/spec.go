package evaluate

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"mldr/internal/analysis"
)

// What a run evaluates: the methods with their parameters (Spec, MethodRun),
// the classifier's options and their checks (Options), and the models a
// caller fitted before the run (Fitted).

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
