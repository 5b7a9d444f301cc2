package evaluate

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/analysis"
	"mldr/internal/preprocess"
)

// A split's rows as the methods and the classifiers take them: the rows of
// each part (sparse features and labels kept sparse), their features scaled
// by the preprocessing fitted on the training rows, and the features dense
// or sparse.

// scaled returns a split's training and test rows, their features scaled
// by the preprocessing of Options fitted on the training rows alone.
func (r *runner) scaled(sp Split) (train, test analysis.Input, err error) {
	train, test = r.data.SelectRows(sp.Train), r.data.SelectRows(sp.Test)
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
	sc.ApplyInPlace(train.X) // SelectRows made them: nothing else holds them
	sc.ApplyInPlace(test.X)
	if sc.Note != "" {
		r.note("%s", sc.Note)
	}
	return train, test, nil
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
