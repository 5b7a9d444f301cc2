package analysis

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"mldr/internal/linalg"
)

// Progress receives how far a fit is, from 0 to 1 (never decreasing), and
// the name of the stage it is in. It is called on the goroutine that called
// Fit, never from a worker. It may be nil.
type Progress func(done float64, phase string)

// stage is one part of a fit's progress: fractions 0…1 of its own map to
// from…to of the whole.
type stage struct {
	p        Progress
	from, to float64
	name     string
}

func (s stage) at(f float64) {
	if s.p != nil {
		s.p(s.from+(s.to-s.from)*min(max(f, 0), 1), s.name)
	}
}

// sub returns the part f0…f1 of s, under another name.
func (s stage) sub(f0, f1 float64, name string) stage {
	w := s.to - s.from
	return stage{p: s.p, from: s.from + w*f0, to: s.from + w*f1, name: name}
}

// checkpoint reports f and returns the context's error, if any: the place
// where a long computation stops when canceled.
func (s stage) checkpoint(ctx context.Context, f float64) error {
	s.at(f)
	return ctx.Err()
}

// shares splits the part of s from from to from+width among passes by
// their costs: part(i) is pass i's stage, in the order the passes run
// (each call takes the next share). A total cost of 0 counts as 1.
func (s stage) shares(from, width float64, costs []float64) (part func(i int) stage) {
	total := 0.0
	for _, c := range costs {
		total += c
	}
	total = max(total, 1)
	return func(i int) stage {
		f0 := from
		from += width * costs[i] / total
		return s.sub(f0, from, s.name)
	}
}

// opProgress wraps op so that each product it applies moves st: after v
// vectors of an iteration that typically applies about opColumns·(k + 8)
// (the matrix-free cost rule's count), st is at 1 − exp(−v/expected),
// which moves with every product and never reaches the end before the
// iteration does. A fit on AmazonCat-13K's shape spends minutes in these
// products, which would otherwise show one progress value throughout.
func opProgress(op linalg.SymOp, k int, st stage) linalg.SymOp {
	if st.p == nil {
		return op
	}
	expected := float64(opColumns * (k + 8))
	var vectors float64
	apply := op.Apply
	op.Apply = func(ctx context.Context, v, av blas64.General) error {
		if err := apply(ctx, v, av); err != nil {
			return err
		}
		vectors += float64(v.Cols)
		st.at(1 - math.Exp(-vectors/expected))
		return nil
	}
	return op
}

// pairResiduals is ‖A·v_i − λ_i·v_i‖₂ / λ₁ for the columns v_i of v
// (op's order × k) and their eigenvalues vals, from one product of op
// with all of them (Model.Residuals).
func pairResiduals(ctx context.Context, op linalg.SymOp, vals []float64, v *mat.Dense) ([]float64, error) {
	n, k := v.Dims()
	in := mat.DenseCopyOf(v) // contiguous, as the operators take blocks
	av := mat.NewDense(n, k, nil)
	if err := op.Apply(ctx, in.RawMatrix(), av.RawMatrix()); err != nil {
		return nil, fmt.Errorf("measuring the residuals: %w", err)
	}
	res := make([]float64, k)
	norm := math.Abs(vals[0])
	for i := range n {
		a, x := av.RawRowView(i), in.RawRowView(i)
		for j := range k {
			r := a[j] - vals[j]*x[j]
			res[j] += r * r
		}
	}
	for j := range res {
		res[j] = math.Sqrt(res[j])
		if norm > 0 {
			res[j] /= norm
		}
	}
	return res, nil
}
