package evaluate

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/linalg"
)

// DefaultLambda is the ridge of the regressions.
const DefaultLambda = 0.1

// ridgeModel is a multi-output ridge regression.
type ridgeModel struct {
	w            *mat.Dense // weights, d×c (or (d+1)×c with a bias row)
	xmean, tmean []float64  // centring means (nil: none)
	bias         bool
}

// fitRidgeCentred is the MATLAB baselines' ridge: X and T centred with the
// training means, W = (XcᵀXc + λI)⁻¹XcᵀTc; prediction (x − x̄)W + t̄. (A bias
// column would get weight 0 on centred data, penalised or not.)
func fitRidgeCentred(x, t *mat.Dense, lambda float64) (*ridgeModel, error) {
	xm, tm := colMeans(x), colMeans(t)
	xc, tc := centred(x, xm), centred(t, tm)
	w, err := solveRidge(xc, tc, lambda)
	if err != nil {
		return nil, err
	}
	return &ridgeModel{w: w, xmean: xm, tmean: tm}, nil
}

// fitRidgeBias is the CPLST authors' regressor: X as given with a bias
// column, λ on every weight including the bias: W = (X̃ᵀX̃ + λI)⁻¹X̃ᵀT.
func fitRidgeBias(x, t *mat.Dense, lambda float64) (*ridgeModel, error) {
	w, err := solveRidge(withBias(x), t, lambda)
	if err != nil {
		return nil, err
	}
	return &ridgeModel{w: w, bias: true}, nil
}

// solveRidge returns W = (XᵀX + λI)⁻¹XᵀT (x is n×d, t n×c). With fewer rows
// than columns it uses the push-through identity W = Xᵀ(XXᵀ + λI)⁻¹T, exact,
// which needs an n×n matrix instead of a d×d one (a 6-row, 60 000-column
// baseline would otherwise ask for 29 GB).
func solveRidge(x, t *mat.Dense, lambda float64) (*mat.Dense, error) {
	if n, d := x.Dims(); n < d {
		return solveRidgeDual(x, t, lambda)
	}
	return solveRidgePrimal(x, t, lambda)
}

func solveRidgePrimal(x, t *mat.Dense, lambda float64) (*mat.Dense, error) {
	ch, err := ridgeCholesky(x, lambda)
	if err != nil {
		return nil, err
	}
	var xt, w mat.Dense
	xt.Mul(x.T(), t)
	if err := ch.SolveTo(&w, &xt); err != nil {
		return nil, fmt.Errorf("solving the ridge system: %w", err)
	}
	return &w, nil
}

// ridgeCholesky factorises the primal ridge system XᵀX + λI (x is n×d):
// solveRidgePrimal's and, at the largest d, ridgePath's, whose weights are
// the same to the bit because both factorise it alike.
func ridgeCholesky(x *mat.Dense, lambda float64) (*mat.Cholesky, error) {
	_, d := x.Dims()
	a := mat.NewSymDense(d, nil)
	a.SymOuterK(1, x.T())
	for i := range d {
		a.SetSym(i, i, a.At(i, i)+lambda)
	}
	var ch mat.Cholesky
	if !ch.Factorize(a) {
		return nil, fmt.Errorf("the ridge system is not positive definite; use a larger lambda")
	}
	return &ch, nil
}

// solveRidgeDual is W = Xᵀ(XXᵀ + λI)⁻¹T. XXᵀ is the Gram of Xᵀ's rows,
// formed by linalg.Gram's kernel on a transposed copy (n·d more floats):
// a label-space method's regressor on a sparse data set's n×d features
// (medical: 880 × 1 449 a fold) spent most of its time in gonum's Dsyrk.
func solveRidgeDual(x, t *mat.Dense, lambda float64) (*mat.Dense, error) {
	n, d := x.Dims()
	xt := mat.NewDense(d, n, nil)
	xt.Copy(x.T())
	k := mat.NewSymDense(n, nil)
	if err := linalg.Gram(context.Background(), xt.RawMatrix(), nil, nil, k.RawSymmetric(), nil); err != nil {
		return nil, fmt.Errorf("forming XXᵀ of the ridge system: %w", err)
	}
	for i := range n {
		k.SetSym(i, i, k.At(i, i)+lambda)
	}
	var ch mat.Cholesky
	if !ch.Factorize(k) {
		return nil, fmt.Errorf("the ridge system is not positive definite; use a larger lambda")
	}
	var a, w mat.Dense
	if err := ch.SolveTo(&a, t); err != nil {
		return nil, fmt.Errorf("solving the ridge system: %w", err)
	}
	w.Mul(x.T(), &a)
	return &w, nil
}

// predict returns the regression outputs for rows x.
func (r *ridgeModel) predict(x *mat.Dense) *mat.Dense {
	var out mat.Dense
	switch {
	case r.bias:
		out.Mul(withBias(x), r.w)
	default:
		out.Mul(centred(x, r.xmean), r.w)
		n, c := out.Dims()
		for i := range n {
			for j := range c {
				out.Set(i, j, out.At(i, j)+r.tmean[j])
			}
		}
	}
	return &out
}

func withBias(x *mat.Dense) *mat.Dense {
	n, d := x.Dims()
	b := mat.NewDense(n, d+1, nil)
	b.Slice(0, n, 0, d).(*mat.Dense).Copy(x)
	for i := range n {
		b.Set(i, d, 1)
	}
	return b
}

func colMeans(x *mat.Dense) []float64 {
	n, d := x.Dims()
	m := make([]float64, d)
	for i := range n {
		for j, v := range x.RawRowView(i) {
			m[j] += v
		}
	}
	for j := range m {
		m[j] /= float64(n)
	}
	return m
}

func centred(x *mat.Dense, mean []float64) *mat.Dense {
	n, d := x.Dims()
	c := mat.NewDense(n, d, nil)
	for i := range n {
		src, dst := x.RawRowView(i), c.RawRowView(i)
		for j, v := range src {
			dst[j] = v - mean[j]
		}
	}
	return c
}

// RidgeBR is binary relevance with ridge regression on 0/1 targets (the
// usual MATLAB baselines): X and Y centred with the training means, λ
// default 0.1; a label is predicted where the output is ≥ 0.5; the outputs
// are the ranking scores.
type RidgeBR struct{ Lambda float64 }

// RidgeBRModel is a fitted RidgeBR.
type RidgeBRModel struct{ r *ridgeModel }

// Fit fits one ridge regression per label, all at once.
func (c RidgeBR) Fit(x, y *mat.Dense) (*RidgeBRModel, error) {
	lambda := c.Lambda
	if lambda == 0 {
		lambda = DefaultLambda
	}
	r, err := fitRidgeCentred(x, y, lambda)
	if err != nil {
		return nil, err
	}
	return &RidgeBRModel{r: r}, nil
}

// Predict gives the labels (output ≥ 0.5) and the outputs.
func (m *RidgeBRModel) Predict(x *mat.Dense) (pred, scores *mat.Dense) {
	scores = m.r.predict(x)
	pred = threshold(scores, 0.5)
	return pred, scores
}

func threshold(s *mat.Dense, cut float64) *mat.Dense {
	n, q := s.Dims()
	p := mat.NewDense(n, q, nil)
	for i := range n {
		for j, v := range s.RawRowView(i) {
			if v >= cut {
				p.Set(i, j, 1)
			}
		}
	}
	return p
}
