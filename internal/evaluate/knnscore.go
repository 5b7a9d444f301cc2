package evaluate

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/analysis"
	"mldr/internal/knn"
	"mldr/internal/sparse"
)

// KNN is the multi-label k-NN vote ("knn"), the scorer of SLEEC (Bhatia,
// Jain, Kar, Varma and Jain, "Sparse Local Embeddings for Extreme
// Multi-label Classification", NIPS 2015) and its successors in extreme
// classification: a test row's score of label l is the number of its k
// nearest training rows (Euclidean, ties in distance by lower row index,
// as knn.Search) that have l — the sum of the neighbours' label vectors,
// unweighted: every neighbour counts 1 whatever its distance. The
// predicted labels are those more than half of the k neighbours have
// (score > k/2); a row where no label reaches that predicts none. Zero K
// means DefaultK, ML-kNN's.
type KNN struct{ K int }

// Predict scores each row of x (m×D) by its k nearest rows of xTrain (n×D,
// labels yTrain n×q, a label present where non-zero): scores (m×q) holds
// the counts, in 0…k, and pred (m×q) 1 where 2·score > k, else 0. It
// fails when k exceeds the n training rows, and with knn.Search's errors
// (a value too large for the distances, a cancelled ctx).
func (c KNN) Predict(ctx context.Context, xTrain, yTrain, x *mat.Dense) (pred, scores *mat.Dense, err error) {
	return c.predict(ctx, xTrain, yTrain, x)
}

// predict is Predict on dense or sparse features (nearest).
func (c KNN) predict(ctx context.Context, xTrain mat.Matrix, yTrain *mat.Dense, x mat.Matrix) (pred, scores *mat.Dense, err error) {
	k := cmp.Or(c.K, DefaultK)
	nn, err := nearest(ctx, k, xTrain, x)
	if err != nil {
		return nil, nil, err
	}
	pred, scores = voteScores(nn, labelOnes(yTrain), yTrain)
	return pred, scores, nil
}

// nearest finds the k nearest training rows of each row of x, for the
// k-NN votes (KNN, KNNVote): knn.Search on dense rows, knn.SearchSparse
// (the same neighbours) on sparse ones. xTrain and x are both *mat.Dense
// or both *sparse.CSR. It fails when k exceeds the training rows.
func nearest(ctx context.Context, k int, xTrain mat.Matrix, x mat.Matrix) (*knn.Neighbours, error) {
	if n, _ := xTrain.Dims(); k > n {
		return nil, fmt.Errorf("k-NN with k = %d needs at least %d training rows; it has %d", k, k, n)
	}
	if xs, ok := xTrain.(*sparse.CSR); ok {
		return knn.SearchSparse(ctx, xs, x.(*sparse.CSR), k, false, nil)
	}
	return knn.Search(ctx, xTrain.(*mat.Dense), x.(*mat.Dense), k, false, nil)
}

// voteScores counts, for each query row of nn, the neighbours that have
// each label (ones are the training rows' labels, labelOnes of yTrain),
// and predicts the labels more than half of them have.
func voteScores(nn *knn.Neighbours, ones [][]int32, yTrain *mat.Dense) (pred, scores *mat.Dense) {
	_, q := yTrain.Dims()
	m := nn.Queries
	pred, scores = mat.NewDense(m, q, nil), mat.NewDense(m, q, nil)
	for i := range m {
		idx, _ := nn.Row(i)
		s := scores.RawRowView(i)
		for _, j := range idx {
			for _, l := range ones[j] {
				s[l]++
			}
		}
		p := pred.RawRowView(i)
		for l, v := range s {
			if 2*v > float64(nn.K) {
				p[l] = 1
			}
		}
	}
	return pred, scores
}

// voteSparse is the k-NN vote (KNN) on labels held sparse (train.Labels,
// test.Labels): each test row's neighbours' ones are counted into one
// q-wide row of scores, decided (score > k/2) and scored there
// (multiLabelAcc, xcAcc) before the next row, so no m×q matrix is formed;
// the decided labels come back in CSR form for the per-row errors. The
// rows are split into one contiguous part a core, each summed on its own
// and the parts' sums added in order. Its metrics are classifyKNN's on
// the same labels dense, to rounding (TestRunSparseLabels).
func (r *runner) voteSparse(ctx context.Context, xtr, xte mat.Matrix, train, test analysis.Input) (map[string]float64, mat.Matrix, error) {
	nn, err := r.neighbours(ctx, xtr, xte)
	if err != nil {
		return nil, nil, err
	}
	ytr, yte := train.Labels, test.Labels
	q, m := ytr.C, nn.Queries
	invProp := r.inversePropsSparse(ytr)
	parts := max(1, min(runtime.GOMAXPROCS(0), m/128))
	type part struct {
		ml   *multiLabelAcc
		xc   *xcAcc
		pred *sparse.CSR
		err  error
	}
	out := make([]part, parts)
	var wg sync.WaitGroup
	for w := range parts {
		lo, hi := w*m/parts, (w+1)*m/parts
		wg.Go(func() {
			ml, xc := newMultiLabelAcc(q), newXCAcc(invProp)
			pred := sparse.NewBuilder(q, hi-lo)
			yi, si, pi := make([]float64, q), make([]float64, q), make([]float64, q)
			for i := lo; i < hi; i++ {
				if (i-lo)%1024 == 0 && ctx.Err() != nil {
					out[w].err = ctx.Err()
					return
				}
				clear(yi)
				clear(si)
				clear(pi)
				ind, _ := yte.Row(i)
				for _, l := range ind {
					yi[l] = 1
				}
				idx, _ := nn.Row(i)
				for _, j := range idx {
					lj, _ := ytr.Row(int(j))
					for _, l := range lj {
						si[l]++
					}
				}
				for l, v := range si {
					if 2*v > float64(nn.K) {
						pi[l] = 1
						pred.Add(l, 1)
					}
				}
				pred.EndRow()
				ml.addRow(yi, pi, si)
				xc.addRow(yi, si)
			}
			out[w] = part{ml: ml, xc: xc, pred: pred.Build()}
		})
	}
	wg.Wait()
	for _, p := range out {
		if p.err != nil {
			return nil, nil, p.err
		}
	}
	ml, xc := out[0].ml, out[0].xc
	pred := &sparse.CSR{R: m, C: q, Ptr: make([]int64, 1, m+1)}
	for w, p := range out {
		if w > 0 {
			ml.merge(p.ml)
			xc.merge(p.xc)
		}
		if err := pred.AppendRows(p.pred); err != nil {
			return nil, nil, err
		}
	}
	metrics := ml.metrics()
	maps.Copy(metrics, xc.metrics())
	return metrics, pred, nil
}
