package evaluate

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestRidgeDualIsPrimal: the push-through form Xᵀ(XXᵀ + λI)⁻¹T, which
// solveRidge takes when X has fewer rows than columns, gives the primal
// (XᵀX + λI)⁻¹XᵀT's weights (1e-9 relative) on both sides of n = d.
func TestRidgeDualIsPrimal(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, sh := range []struct{ n, d int }{{5, 40}, {29, 30}, {30, 30}, {31, 30}, {80, 12}} {
		t.Run(fmt.Sprintf("n=%d,d=%d", sh.n, sh.d), func(t *testing.T) {
			x, y := mat.NewDense(sh.n, sh.d, nil), mat.NewDense(sh.n, 3, nil)
			for i := range sh.n {
				for j := range sh.d {
					x.Set(i, j, rng.NormFloat64()+float64(j%3))
				}
				for j := range 3 {
					y.Set(i, j, float64(rng.IntN(2)))
				}
			}
			for _, lambda := range []float64{0.1, 10} {
				p, err := solveRidgePrimal(x, y, lambda)
				if err != nil {
					t.Fatal(err)
				}
				d, err := solveRidgeDual(x, y, lambda)
				if err != nil {
					t.Fatal(err)
				}
				tol := 1e-9 * mat.Norm(p, 1)
				if !mat.EqualApprox(p, d, tol) {
					t.Errorf("λ = %v: the dual weights differ from the primal ones by more than %.3g", lambda, tol)
				}
			}
		})
	}
}
