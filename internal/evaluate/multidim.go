package evaluate

import (
	"cmp"
	"context"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/knn"
)

// The classifiers of multi-dimensional data: one per class variable (binary
// relevance, as seed 003 §4.4 couples LDA with BR).

// KNNVote predicts each class variable by the majority class among the k
// nearest training rows (Euclidean, ties in distance by lower row index);
// a tie between classes goes to the lowest class index.
type KNNVote struct{ K int }

// Predict fits and predicts at once (k-NN keeps the training rows).
func (c KNNVote) Predict(ctx context.Context, xTrain, yTrain, x *mat.Dense, classes []int) (*mat.Dense, error) {
	return c.predict(ctx, xTrain, yTrain, x, classes)
}

// predict is Predict on dense or sparse features (nearest: the same
// neighbours).
func (c KNNVote) predict(ctx context.Context, xTrain mat.Matrix, yTrain *mat.Dense, x mat.Matrix, classes []int) (*mat.Dense, error) {
	nn, err := nearest(ctx, cmp.Or(c.K, DefaultK), xTrain, x)
	if err != nil {
		return nil, err
	}
	return vote(nn, yTrain, classes), nil
}

// vote is the majority class of each query row's neighbours, per class
// variable.
func vote(nn *knn.Neighbours, yTrain *mat.Dense, classes []int) *mat.Dense {
	_, q := yTrain.Dims()
	m := nn.Queries
	pred := mat.NewDense(m, q, nil)
	for j := range q {
		votes := make([]int, classes[j])
		for i := range m {
			clear(votes)
			idx, _ := nn.Row(i)
			for _, t := range idx {
				votes[int(yTrain.At(int(t), j))]++
			}
			pred.Set(i, j, float64(argmax(votes)))
		}
	}
	return pred
}

// OvRRidge predicts each class variable by one-vs-rest ridge regression on
// its one-hot columns (centred, λ default 0.1): the class with the largest
// output, the lowest index on a tie.
type OvRRidge struct{ Lambda float64 }

// Predict fits on the training rows and predicts x. The regressions of
// every class variable's one-hot columns share one system (ridge is
// column by column), solved once.
func (c OvRRidge) Predict(xTrain, yTrain, x *mat.Dense, classes []int) (*mat.Dense, error) {
	lambda := c.Lambda
	if lambda == 0 {
		lambda = DefaultLambda
	}
	r, err := fitRidgeCentred(xTrain, oneHot(yTrain, classes), lambda)
	if err != nil {
		return nil, err
	}
	return argmaxBlocks(r.predict(x), classes), nil
}

// oneHot is the class variables y (class indices) as indicator columns,
// variable j's K_j of them after the variables before it.
func oneHot(y *mat.Dense, classes []int) *mat.Dense {
	n, _ := y.Dims()
	total := 0
	for _, k := range classes {
		total += k
	}
	t := mat.NewDense(n, total, nil)
	for i := range n {
		at := 0
		for j, k := range classes {
			t.Set(i, at+int(y.At(i, j)), 1)
			at += k
		}
	}
	return t
}

// argmaxBlocks predicts each class variable from its block of outputs
// (oneHot's columns): the class with the largest, the lowest index on a
// tie.
func argmaxBlocks(out *mat.Dense, classes []int) *mat.Dense {
	m, _ := out.Dims()
	pred := mat.NewDense(m, len(classes), nil)
	for i := range m {
		row, at := out.RawRowView(i), 0
		for j, k := range classes {
			pred.Set(i, j, float64(argmax(row[at:at+k])))
			at += k
		}
	}
	return pred
}

// argmax is the index of the largest value, the first on a tie.
func argmax[T cmp.Ordered](xs []T) int {
	best := 0
	for i, v := range xs {
		if v > xs[best] {
			best = i
		}
	}
	return best
}
