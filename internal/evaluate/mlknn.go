package evaluate

import (
	"cmp"
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/knn"
	"mldr/internal/sparse"
)

// Defaults of ML-kNN (Zhang & Zhou 2007), as in the MDDM paper.
const (
	DefaultK = 10
	DefaultS = 1.0
)

// MLkNN is the multi-label k-nearest-neighbour classifier of Zhang & Zhou
// (Pattern Recognition 2007): k neighbours by Euclidean distance (ties by
// lower row index; a training row is never its own neighbour), Laplace
// smoothing s. Zero K and S mean the defaults.
type MLkNN struct {
	K int
	S float64
}

// MLkNNModel is a fitted ML-kNN.
type MLkNNModel struct {
	k int
	s float64
	// x is the training features, so that Predict searches the k-d tree
	// Fit's search may have built over them instead of building another.
	x  *knn.Reference
	xs *sparse.CSR // or, fitted by fitSparse, sparse
	y  *mat.Dense  // training labels
	// ones are the indices of each training row's labels, so that
	// counting the labels of k neighbours costs their labels, not k·q.
	ones   [][]int32
	prior  []float64 // P(H1_l)
	c1, c0 [][]float64
	// sum1, sum0 are Σ_p c1[l][p] and Σ_p c0[l][p].
	sum1, sum0 []float64
}

// Fit counts, for every label, how many training rows with (c1) and
// without (c0) it have exactly j neighbours with it.
func (c MLkNN) Fit(ctx context.Context, x, y *mat.Dense) (*MLkNNModel, error) {
	k, s := c.K, c.S
	if k == 0 {
		k = DefaultK
	}
	if s == 0 {
		s = DefaultS
	}
	n, _ := y.Dims()
	if k < 1 || k >= n {
		return nil, fmt.Errorf("ML-kNN with k = %d needs more than %d training rows; it has %d", k, k, n)
	}
	ref := knn.NewReference(x)
	nn, err := ref.Search(ctx, x, k, true, nil)
	if err != nil {
		return nil, err
	}
	m := count(nn, y, k, s)
	m.x = ref
	return m, nil
}

// fitSparse is Fit on sparse features: the same neighbours (knn.SearchSparse),
// so the same model.
func (c MLkNN) fitSparse(ctx context.Context, x *sparse.CSR, y *mat.Dense) (*MLkNNModel, error) {
	k, s := cmp.Or(c.K, DefaultK), cmp.Or(c.S, DefaultS)
	if n, _ := y.Dims(); k < 1 || k >= n {
		return nil, fmt.Errorf("ML-kNN with k = %d needs more than %d training rows; it has %d", k, k, n)
	}
	nn, err := knn.SearchSparse(ctx, x, x, k, true, nil)
	if err != nil {
		return nil, err
	}
	m := count(nn, y, k, s)
	m.xs = x
	return m, nil
}

// count builds the model from the training rows' neighbours.
func count(nn *knn.Neighbours, y *mat.Dense, k int, s float64) *MLkNNModel {
	n, q := y.Dims()
	m := &MLkNNModel{k: k, s: s, y: y, ones: labelOnes(y), prior: make([]float64, q),
		c1: make([][]float64, q), c0: make([][]float64, q), sum1: make([]float64, q), sum0: make([]float64, q)}
	for l := range q {
		m.c1[l], m.c0[l] = make([]float64, k+1), make([]float64, k+1)
	}
	count := make([]int, q)
	for i := range n {
		idx, _ := nn.Row(i)
		clear(count)
		for _, j := range idx {
			for _, l := range m.ones[j] {
				count[l]++
			}
		}
		for l, v := range y.RawRowView(i) {
			if v != 0 {
				m.prior[l]++
				m.c1[l][count[l]]++
				m.sum1[l]++
			} else {
				m.c0[l][count[l]]++
				m.sum0[l]++
			}
		}
	}
	for l := range q {
		m.prior[l] = (s + m.prior[l]) / (2*s + float64(n))
	}
	return m
}

// Predict gives each row's labels (posterior ≥ 0.5) and the posteriors,
// which are the ranking scores.
func (m *MLkNNModel) Predict(ctx context.Context, x *mat.Dense) (pred, post *mat.Dense, err error) {
	nn, err := m.x.Search(ctx, x, m.k, false, nil)
	if err != nil {
		return nil, nil, err
	}
	pred, post = m.posteriors(nn)
	return pred, post, nil
}

// predictSparse is Predict for a model fitted by fitSparse.
func (m *MLkNNModel) predictSparse(ctx context.Context, x *sparse.CSR) (pred, post *mat.Dense, err error) {
	nn, err := knn.SearchSparse(ctx, m.xs, x, m.k, false, nil)
	if err != nil {
		return nil, nil, err
	}
	pred, post = m.posteriors(nn)
	return pred, post, nil
}

// posteriors scores the query rows from their neighbours.
func (m *MLkNNModel) posteriors(nn *knn.Neighbours) (pred, post *mat.Dense) {
	n := nn.Queries
	_, q := m.y.Dims()
	pred, post = mat.NewDense(n, q, nil), mat.NewDense(n, q, nil)
	count := make([]int, q)
	kk := m.s * float64(m.k+1)
	for i := range n {
		idx, _ := nn.Row(i)
		clear(count)
		for _, j := range idx {
			for _, l := range m.ones[j] {
				count[l]++
			}
		}
		for l := range q {
			in := m.prior[l] * (m.s + m.c1[l][count[l]]) / (kk + m.sum1[l])
			out := (1 - m.prior[l]) * (m.s + m.c0[l][count[l]]) / (kk + m.sum0[l])
			p := in / (in + out)
			post.Set(i, l, p)
			if p >= 0.5 {
				pred.Set(i, l, 1)
			}
		}
	}
	return pred, post
}

// labelOnes lists the indices of each row's labels (non-zero values) of
// y, in one block of 4 bytes a label present.
func labelOnes(y *mat.Dense) [][]int32 {
	n, q := y.Dims()
	total := 0
	for i := range n {
		for _, v := range y.RawRowView(i)[:q] {
			if v != 0 {
				total++
			}
		}
	}
	all := make([]int32, 0, total)
	ones := make([][]int32, n)
	for i := range n {
		start := len(all)
		for l, v := range y.RawRowView(i)[:q] {
			if v != 0 {
				all = append(all, int32(l))
			}
		}
		ones[i] = all[start:len(all):len(all)]
	}
	return ones
}
