// Package linsvm trains linear support vector machines: the L2-regularised
// L1-loss SVM solved in the dual by coordinate descent (Hsieh, Chang, Lin,
// Keerthi and Sundararajan, "A Dual Coordinate Descent Method for
// Large-scale Linear SVM", ICML 2008), the solver LIBLINEAR runs for `-s 3`,
// with LIBLINEAR's bias feature (`-B 1`).
//
// For rows x_i with labels y_i = ±1 it solves
//
//	min_w ½‖w‖² + C Σ_i max(0, 1 − y_i w·x̃_i),   x̃_i = [x_i, 1],
//
// through its dual, min_α ½αᵀQα − Σα_i with 0 ≤ α_i ≤ C and
// Q_ij = y_i y_j x̃_i·x̃_j, one coordinate α_i at a time, in a random order
// each sweep, keeping w = Σ α_i y_i x̃_i. The bias is the last weight,
// regularised like the others, as LIBLINEAR's.
//
// The sweeps are LIBLINEAR's (solve_l2r_l1l2_svc in linear.cpp, version
// 2.3), step for step: the coordinates start in the order of the rows the
// caller gives (LIBLINEAR's rows grouped by class), each sweep shuffles the
// active ones with the C library's rand() as glibc computes it (seed 1, a
// fresh stream per liblinear-train process), coordinates at a bound whose
// projected gradient says they will stay there are shrunk, the fit stops
// when the projected gradients of a sweep span at most Eps (PGmax − PGmin
// ≤ Eps) over every coordinate, or after 1000 sweeps; every sum is taken
// in LIBLINEAR's order, one rounding per operation. So on the same rows, in
// the same order, a fit gives liblinear-train's weights to the last bit or
// nearly — which matters because LIBLINEAR often stops at its 1000 sweeps
// before the tolerance, where the result depends on the order of the
// sweeps (testdata in package evaluate shows both).
//
// The rows are a *mat.Dense or, without densifying, a *sparse.CSR.
package linsvm

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/sparse"
)

// Defaults: LIBLINEAR's `-c 1` and its limit of sweeps, and the tolerance
// the evaluation uses (LIBLINEAR's own default for -s 3 is 0.1).
const (
	DefaultC       = 1.0
	DefaultEps     = 1e-4
	DefaultMaxIter = 1000
)

// Params configure a fit. Zero values mean the defaults.
type Params struct {
	// C is the cost of a violated margin, > 0.
	C float64
	// Eps is the stopping tolerance on the span of the projected
	// gradients of a sweep, > 0.
	Eps float64
	// MaxIter is the most sweeps over the coordinates.
	MaxIter int
}

func (p Params) withDefaults() Params {
	if p.C == 0 {
		p.C = DefaultC
	}
	if p.Eps == 0 {
		p.Eps = DefaultEps
	}
	if p.MaxIter == 0 {
		p.MaxIter = DefaultMaxIter
	}
	return p
}

// Check refuses parameters out of range (0 means the default).
func (p Params) Check() error {
	switch {
	case !(p.C >= 0) || math.IsInf(p.C, 0):
		return fmt.Errorf("linsvm: c must be a number greater than 0, not %v", p.C)
	case !(p.Eps >= 0) || math.IsInf(p.Eps, 0):
		return fmt.Errorf("linsvm: eps must be a number greater than 0, not %v", p.Eps)
	case p.MaxIter < 0:
		return fmt.Errorf("linsvm: the most sweeps must be at least 1, not %d", p.MaxIter)
	}
	return nil
}

// Model is a fitted binary SVM: its decision value for a row x is
// W·x + B, positive for the class labelled +1.
type Model struct {
	W []float64
	B float64
	// Sweeps is how many sweeps over the coordinates the fit took;
	// Converged is false when it stopped at MaxIter before the tolerance
	// (LIBLINEAR's "reaching max number of iterations").
	Sweeps    int
	Converged bool
}

// rows are a problem's rows, dense or sparse; the bias feature is not in
// them. Sums run in column order with one rounding per operation (the
// explicit float64 conversions forbid fused multiply-adds), as LIBLINEAR's
// sparse_operator.
type rows interface {
	n() int
	// dot is x_i · w[:D].
	dot(i int, w []float64) float64
	// axpy adds a·x_i to w[:D].
	axpy(i int, a float64, w []float64)
	// sqNorm is ‖x_i‖².
	sqNorm(i int) float64
}

type denseRows struct{ x *mat.Dense }

func (r denseRows) n() int { n, _ := r.x.Dims(); return n }

func (r denseRows) dot(i int, w []float64) float64 {
	s := 0.0
	for j, v := range r.x.RawRowView(i) {
		s += float64(v * w[j])
	}
	return s
}

func (r denseRows) axpy(i int, a float64, w []float64) {
	for j, v := range r.x.RawRowView(i) {
		w[j] += float64(a * v)
	}
}

func (r denseRows) sqNorm(i int) float64 {
	s := 0.0
	for _, v := range r.x.RawRowView(i) {
		s += float64(v * v)
	}
	return s
}

type sparseRows struct{ x *sparse.CSR }

func (r sparseRows) n() int { return r.x.R }

func (r sparseRows) dot(i int, w []float64) float64 {
	ind, val := r.x.Row(i)
	s := 0.0
	for k, j := range ind {
		s += float64(val[k] * w[j])
	}
	return s
}

func (r sparseRows) axpy(i int, a float64, w []float64) {
	ind, val := r.x.Row(i)
	for k, j := range ind {
		w[j] += float64(a * val[k])
	}
}

func (r sparseRows) sqNorm(i int) float64 {
	_, val := r.x.Row(i)
	s := 0.0
	for _, v := range val {
		s += float64(v * v)
	}
	return s
}

// Rows wraps training or test rows for this package: a *mat.Dense or a
// *sparse.CSR as they are (not copied; the caller does not change them
// while Rows is in use), except a *mat.Dense most of whose cells are 0,
// which is copied into CSR form (the same sums, since the zeros add exact
// zeros, in a fraction of the time), and any other matrix, copied into a
// *mat.Dense. Rows is read-only and may serve several fits at once.
type Rows struct {
	r rows
	d int
	// qd is ‖x̃_i‖² = ‖x_i‖² + 1 (the bias feature), the diagonal of Q.
	qd []float64
}

// NewRows wraps x (N×D).
func NewRows(x mat.Matrix) *Rows {
	n, d := x.Dims()
	var r rows
	switch x := x.(type) {
	case *mat.Dense:
		r = denseRows{x}
		if mostlyZero(x) {
			r = sparseRows{sparse.FromDense(x)}
		}
	case *sparse.CSR:
		r = sparseRows{x}
	default:
		r = denseRows{mat.DenseCopyOf(x)}
	}
	qd := make([]float64, n)
	for i := range n {
		qd[i] = r.sqNorm(i) + 1
	}
	return &Rows{r: r, d: d, qd: qd}
}

// mostlyZero reports whether more than two thirds of x's cells are 0.
func mostlyZero(x *mat.Dense) bool {
	n, d := x.Dims()
	zeros := 0
	for i := range n {
		for _, v := range x.RawRowView(i) {
			if v == 0 {
				zeros++
			}
		}
	}
	return 3*zeros > 2*n*d
}

// Dims returns the number of rows and features.
func (x *Rows) Dims() (n, d int) { return x.r.n(), x.d }

// Decision returns the decision value of row i of x under m, summed as
// LIBLINEAR's predict_values sums it (the bias weight last).
func (m *Model) Decision(x *Rows, i int) float64 {
	return x.r.dot(i, m.W) + m.B
}

// Problem is one binary problem on shared rows.
type Problem struct {
	// Y holds +1 or −1 for every row.
	Y []float64
	// Order is the order in which the coordinates start, a permutation of
	// the rows: LIBLINEAR's is the rows grouped by class, the classes in
	// the order of their first row (with +1 before −1 for labels ±1), each
	// group in row order. nil: the rows' own order.
	Order []int32
}

// Train fits one problem on the rows x, drawing the order of the sweeps
// from rng (NewRand for a fresh liblinear-train process). It checks ctx
// between sweeps. A problem of one class has a solution too (every row is
// pulled to that side), as in LIBLINEAR.
func Train(ctx context.Context, x *Rows, prob Problem, p Params, rng *Rand) (*Model, error) {
	p = p.withDefaults()
	if err := p.Check(); err != nil {
		return nil, err
	}
	n, d := x.Dims()
	y := prob.Y
	if len(y) != n {
		return nil, fmt.Errorf("linsvm: %d labels for %d rows", len(y), n)
	}
	for i, v := range y {
		if v != 1 && v != -1 {
			return nil, fmt.Errorf("linsvm: label %v of row %d is not +1 or −1", v, i)
		}
	}
	index := make([]int32, n)
	switch {
	case prob.Order == nil:
		for i := range index {
			index[i] = int32(i)
		}
	case len(prob.Order) != n:
		return nil, fmt.Errorf("linsvm: an order of %d rows for %d rows", len(prob.Order), n)
	default:
		copy(index, prob.Order)
	}
	w := make([]float64, d+1) // w[d] is the bias weight
	alpha := make([]float64, n)
	c := p.C
	active := n
	pgMaxOld, pgMinOld := math.Inf(1), math.Inf(-1)
	sweeps, converged := 0, false
	for sweeps < p.MaxIter {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		pgMaxNew, pgMinNew := math.Inf(-1), math.Inf(1)
		for i := range active {
			j := i + int(rng.Next()%uint32(active-i))
			index[i], index[j] = index[j], index[i]
		}
		for s := 0; s < active; s++ {
			i := int(index[s])
			yi := y[i]
			g := yi*(x.r.dot(i, w)+w[d]) - 1
			pg := 0.0
			switch {
			case alpha[i] == 0:
				if g > pgMaxOld { // at its lower bound and staying there: shrink
					active--
					index[s], index[active] = index[active], index[s]
					s--
					continue
				}
				pg = min(g, 0)
			case alpha[i] == c:
				if g < pgMinOld { // at its upper bound and staying there
					active--
					index[s], index[active] = index[active], index[s]
					s--
					continue
				}
				pg = max(g, 0)
			default:
				pg = g
			}
			pgMaxNew, pgMinNew = max(pgMaxNew, pg), min(pgMinNew, pg)
			if math.Abs(pg) > 1e-12 {
				old := alpha[i]
				alpha[i] = min(max(old-g/x.qd[i], 0), c)
				delta := (alpha[i] - old) * yi
				x.r.axpy(i, delta, w)
				w[d] += delta
			}
		}
		sweeps++
		if pgMaxNew-pgMinNew <= p.Eps {
			if active == n {
				converged = true
				break
			}
			// Converged on the active coordinates: check them all.
			active = n
			pgMaxOld, pgMinOld = math.Inf(1), math.Inf(-1)
			continue
		}
		pgMaxOld, pgMinOld = pgMaxNew, pgMinNew
		if pgMaxOld <= 0 {
			pgMaxOld = math.Inf(1)
		}
		if pgMinOld >= 0 {
			pgMinOld = math.Inf(-1)
		}
	}
	return &Model{W: w[:d:d], B: w[d], Sweeps: sweeps, Converged: converged}, nil
}

// ClassOrder is LIBLINEAR's order of the rows for labels (group_classes):
// the rows grouped by label, the groups in the order of their label's
// first row, except that of the two labels −1 and +1 the +1 comes first;
// rows ascending within a group. It returns the order and the labels in
// the order of the groups.
func ClassOrder(labels []int) (order []int32, classes []int) {
	group := map[int]int{}
	var count []int
	for _, l := range labels {
		g, ok := group[l]
		if !ok {
			g = len(classes)
			group[l] = g
			classes = append(classes, l)
			count = append(count, 0)
		}
		count[g]++
	}
	if len(classes) == 2 && classes[0] == -1 && classes[1] == 1 {
		classes[0], classes[1] = 1, -1
		count[0], count[1] = count[1], count[0]
		group[1], group[-1] = 0, 1
	}
	start := make([]int, len(count))
	for g := 1; g < len(count); g++ {
		start[g] = start[g-1] + count[g-1]
	}
	order = make([]int32, len(labels))
	for i, l := range labels {
		g := group[l]
		order[start[g]] = int32(i)
		start[g]++
	}
	return order, classes
}
