package evaluate

import "mldr/internal/analysis"

// Ran is o as metrics.json records it: the classifier that ran with its
// own parameters only — ML-kNN's k and s (on multi-dimensional data its
// vote, k only), the k-NN vote's k and, on multi-label data, its recall,
// ridge's λ, the svm's c and eps — beside the options of the run that are
// no classifier's (the propensity model's ps_a and ps_b, baseline,
// preprocess). The label-space methods' decoders are each row's (Row.Decoder).
func (o Options) Ran(multiDim bool) Options {
	out := Options{Classifier: o.Classifier, PsA: o.PsA, PsB: o.PsB, Baseline: o.Baseline, Preprocess: o.Preprocess}
	switch o.Classifier {
	case ClassifierMLkNN, "":
		out.K = o.K
		if !multiDim {
			out.S = o.S
		}
	case ClassifierKNN:
		out.K = o.K
		if !multiDim {
			out.Recall = o.Recall
		}
	case ClassifierRidge:
		out.Lambda = o.Lambda
	case ClassifierSVM:
		out.C, out.Eps = o.C, o.Eps
	}
	return out
}

// Decoders of the label-space methods (Row.Decoder).
const (
	// DecoderRidge is ridge regression (with a bias) from the features to
	// the codes.
	DecoderRidge = "ridge"
	// DecoderKernelRidge is kcplst's Gaussian-kernel ridge regression.
	DecoderKernelRidge = "kernel_ridge"
	// DecoderLEML is LEML's own low-rank regressor, fitted with its codes.
	DecoderLEML = "leml"
)

// Decoder is how a label-space method predicts the labels of the test
// rows, whatever the classifier (Options.Classifier): a regressor from
// the features to its codes, with its λ, whose predictions the method
// decodes to labels (analysis.Model.Decide).
type Decoder struct {
	Regressor string
	Lambda    float64
}

// DecoderOf is the decoder the evaluation fits for the label-space
// method id at λ = lambda: LEML's own regressor for leml (the only model
// that carries one, analysis.Model.HasRegressor), kcplst's kernel ridge,
// ridge for the others.
func DecoderOf(id string, lambda float64) Decoder {
	d := Decoder{Regressor: DecoderRidge, Lambda: lambda}
	switch id {
	case "leml":
		d.Regressor = DecoderLEML
	case "kcplst":
		d.Regressor = DecoderKernelRidge
	}
	return d
}

// decoderOf is the decoder of a label-space model, as labelSpace fits it.
func decoderOf(m *analysis.Model) Decoder {
	lambda := 0.0
	if m.Params.Lambda != nil {
		lambda = *m.Params.Lambda
	}
	return DecoderOf(m.Method, lambda)
}
