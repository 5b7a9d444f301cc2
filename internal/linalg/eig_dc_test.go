package linalg

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestTridiagEig(t *testing.T) {
	for _, tc := range specialTridiagonals() {
		t.Run(tc.name, func(t *testing.T) {
			n := len(tc.d)
			d := append([]float64(nil), tc.d...)
			e := append([]float64(nil), tc.e...)
			zt := make([]float64, n*n)
			order, err := tridiagEig(context.Background(), d, e, zt, n)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.IsSortedFunc(order, func(a, b int) int {
				switch {
				case d[a] < d[b]:
					return -1
				case d[a] > d[b]:
					return 1
				}
				return 0
			}) {
				t.Errorf("order does not sort the eigenvalues")
			}
			resid, orth := tridiagCheck(tc.d, tc.e, d, zt)
			if tol := 2 * float64(n) * eps; resid > tol {
				t.Errorf("residual ‖Tz − λz‖/‖T‖ = %.3g, want ≤ %.3g", resid, tol)
			}
			if tol := 8 * float64(n) * eps; orth > tol {
				t.Errorf("‖ZZᵀ − I‖ = %.3g, want ≤ %.3g", orth, tol)
			}
			// Against the root-free QR iteration.
			w := append([]float64(nil), tc.d...)
			we := append([]float64(nil), tc.e...)
			if !sterf(w, we) {
				t.Fatal("sterf did not converge")
			}
			sorted := make([]float64, n)
			for i, r := range order {
				sorted[i] = d[r]
			}
			tn := math.Max(math.Abs(w[0]), math.Abs(w[n-1]))
			if dd, tol := maxDiff(sorted, w), 2*float64(n)*eps*tn; dd > tol {
				t.Errorf("eigenvalues differ from sterf's by %.3g, want ≤ %.3g", dd, tol)
			}
			t.Logf("residual %.2g nε, orthogonality %.2g nε", resid/(float64(n)*eps), orth/(float64(n)*eps))
		})
	}
}

// TestTridiagEigToeplitz compares with the analytic eigenvalues
// 2 − 2cos(jπ/(n+1)) of the 1-2-1 matrix.
func TestTridiagEigToeplitz(t *testing.T) {
	n := 777
	d, e := ones(n, 2), ones(n-1, -1)
	zt := make([]float64, n*n)
	order, err := tridiagEig(context.Background(), d, e, zt, n)
	if err != nil {
		t.Fatal(err)
	}
	for j, r := range order {
		want := 2 - 2*math.Cos(float64(j+1)*math.Pi/float64(n+1))
		if math.Abs(d[r]-want) > 8*float64(n)*eps {
			t.Errorf("eigenvalue %d = %.17g, want %.17g", j, d[r], want)
		}
	}
}

func TestSecularRoot(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for _, n := range []int{1, 2, 3, 4, 10, 100, 500} {
		for _, rho := range []float64{1e-8, 0.5, 2, 1e4} {
			t.Run(fmt.Sprintf("n=%d/rho=%g", n, rho), func(t *testing.T) {
				d := make([]float64, n)
				z := make([]float64, n)
				x := 0.0
				for i := range d {
					x += 0.01 + rng.Float64()
					d[i] = x
				}
				nz := 0.0
				for i := range z {
					z[i] = rng.NormFloat64()
					nz += z[i] * z[i]
				}
				for i := range z {
					z[i] /= math.Sqrt(nz)
				}
				delta := make([]float64, n)
				prev := math.Inf(-1)
				for i := range n {
					lam, ok := secularRoot(i, d, z, delta, rho)
					if !ok {
						t.Fatalf("root %d did not converge", i)
					}
					// Interlacing: d_i < λ_i < d_{i+1}, λ_{n−1} < d_{n−1} + ρ.
					hi := d[n-1] + rho
					if i < n-1 {
						hi = d[i+1]
					}
					if !(lam >= d[i] && lam <= hi && lam > prev) {
						t.Errorf("root %d = %.17g outside (%.17g, %.17g] or not above %.17g", i, lam, d[i], hi, prev)
					}
					prev = lam
					if n <= 2 {
						continue
					}
					// f(λ) = 1/ρ + Σ z_j²/(d_j − λ) with the δ_j = d_j − λ
					// the solver returns, relative to its terms.
					f, terms := 1/rho, 1/rho
					for j := range n {
						f += z[j] * z[j] / delta[j]
						terms += math.Abs(z[j] * z[j] / delta[j])
					}
					if math.Abs(f) > float64(16*n)*eps*terms {
						t.Errorf("root %d: f(λ) = %.3g for terms of size %.3g", i, f, terms)
					}
				}
			})
		}
	}
}
