package analysis

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"mldr/internal/linalg"
	"mldr/internal/sparse"
)

// ridgeHatReference is ZᵀĤZ as computeRidgeHat formed it before the fast
// kernels: the raw Gram XᵀX + λI in a new matrix, gonum's Cholesky (LLᵀ),
// F = L⁻¹XᵀZ by gonum's Trsm and FᵀF by gonum's Syrk.
func ridgeHatReference(t *testing.T, in Input, lambda float64) *mat.SymDense {
	t.Helper()
	x := in.X
	n, d := x.Dims()
	_, q := in.Y.Dims()
	g := mat.NewSymDense(d, nil)
	g.SymOuterK(1, x.T())
	addDiag(g, lambda)
	var ch mat.Cholesky
	if !ch.Factorize(g) {
		t.Fatal("reference: XᵀX + λI is not positive definite")
	}
	var l mat.TriDense
	ch.LTo(&l)
	z := mat.NewDense(n, q, nil) // Z = Ypm − 1ȳᵀ
	for j := range q {
		mean := 0.0
		for i := range n {
			mean += 2*in.Y.At(i, j) - 1
		}
		mean /= float64(n)
		for i := range n {
			z.Set(i, j, 2*in.Y.At(i, j)-1-mean)
		}
	}
	var f mat.Dense
	f.Mul(x.T(), z)
	blas64.Trsm(blas.Left, blas.NoTrans, 1, l.RawTriangular(), f.RawMatrix())
	zhz := mat.NewSymDense(q, nil)
	blas64.Syrk(blas.Trans, 1, f.RawMatrix(), 0, zhz.RawSymmetric())
	return zhz
}

// computeRidgeHat on the fast Cholesky and triangular solve (linalg) equals
// the gonum route it replaced, on the D×D path with D across several
// blocks of the factorisation (256 columns) and on the N×N path, dense and
// sparse: ZᵀĤZ to 1e-10 relative to its largest entry.
func TestRidgeHatAgainstGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 11))
	for _, tc := range []struct{ n, d, q int }{{700, 300, 9}, {900, 530, 17}, {120, 300, 7}} {
		in := lsdrData(rng, tc.n, tc.d, tc.q)
		want := ridgeHatReference(t, in, 0.1)
		scale := mat.Norm(want, math.Inf(1))
		for _, sparseX := range []bool{false, true} {
			t.Run(fmt.Sprintf("N=%d/D=%d/sparse=%v", tc.n, tc.d, sparseX), func(t *testing.T) {
				use := in
				if sparseX {
					use = Input{Sparse: sparse.FromDense(in.X), Y: in.Y}
				}
				h, err := computeRidgeHat(context.Background(), use, 0.1, stage{})
				if err != nil {
					t.Fatalf("computeRidgeHat: %v", err)
				}
				if diff := lsdrMaxDiff(h.zhz, want); diff > 1e-10*scale {
					t.Errorf("ZᵀĤZ: got max row sum of the difference %.3g, want ≤ %.3g", diff, 1e-10*scale)
				}
			})
		}
	}
}

// choleskyError maps linalg.Cholesky's errors: a matrix that is not
// positive definite is today's Unservable error on the parameter, a
// cancelled context its own error.
func TestCholeskyError(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	other := errors.New("something else")
	for _, tc := range []struct {
		name    string
		ctx     context.Context
		err     error
		want    error // nil: an Unservable *Error on lambda
		message string
	}{
		{"not definite", context.Background(), &linalg.NotPositiveDefiniteError{Col: 256}, nil,
			"XᵀX + λI is not positive definite on these data; give a larger lambda"},
		{"cancelled", cancelled, context.Canceled, context.Canceled, ""},
		{"other", context.Background(), other, other, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := choleskyError(tc.ctx, tc.err, ParamLambda, "XᵀX + λI")
			if tc.want != nil {
				if !errors.Is(got, tc.want) {
					t.Errorf("got %v, want %v", got, tc.want)
				}
				return
			}
			var e *Error
			if !errors.As(got, &e) || e.Kind != Unservable || e.Param != ParamLambda {
				t.Fatalf("got %v, want an Unservable *Error on lambda", got)
			}
			if !strings.Contains(got.Error(), tc.message) {
				t.Errorf("got message %q, want it to contain %q", got.Error(), tc.message)
			}
		})
	}
}
