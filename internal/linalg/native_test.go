package linalg

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// The native eigen-solver (built with -tags openblas) agrees with gonum's:
// the same eigenvalues, and AV = VΛ with orthonormal V. Without the tag
// there is nothing to check.
func TestNativeSymEig(t *testing.T) {
	eig, ok := NativeSymEig()
	if !ok {
		t.Skipf("no native eigen-solver in this build (backend %s)", Backend)
	}
	rng := rand.New(rand.NewPCG(9, 10))
	for _, n := range []int{1, 2, 7, 120} {
		a := mat.NewSymDense(n, nil)
		for i := range n {
			for j := i; j < n; j++ {
				a.SetSym(i, j, rng.NormFloat64())
			}
		}
		vals, v, err := eig(a)
		if err != nil {
			t.Fatal(err)
		}
		var ref mat.EigenSym
		ref.Factorize(a, false)
		want := ref.Values(nil)
		for i := range n {
			if math.Abs(vals[i]-want[i]) > 1e-12*float64(n) {
				t.Errorf("n=%d: eigenvalue %d is %g, want %g", n, i, vals[i], want[i])
			}
		}
		var av, vl mat.Dense
		av.Mul(a, v)
		vl.Mul(v, mat.NewDiagDense(n, vals))
		av.Sub(&av, &vl)
		var vtv mat.Dense
		vtv.Mul(v.T(), v)
		for i := range n {
			vtv.Set(i, i, vtv.At(i, i)-1)
		}
		if r, o := mat.Norm(&av, math.Inf(1)), mat.Norm(&vtv, math.Inf(1)); r > 1e-12*float64(n) || o > 1e-12*float64(n) {
			t.Errorf("n=%d: residual %g, orthogonality %g", n, r, o)
		}
	}
}
