package linalg

import "testing"

func TestTridiagVectors(t *testing.T) {
	for _, tc := range specialTridiagonals() {
		t.Run(tc.name, func(t *testing.T) {
			n := len(tc.d)
			w := append([]float64(nil), tc.d...)
			e := append([]float64(nil), tc.e...)
			if !sterf(w, e) {
				t.Fatal("sterf did not converge")
			}
			// The 30 largest, descending, as SymEigTop asks.
			k := min(30, n)
			lam := make([]float64, k)
			for i := range k {
				lam[i] = w[n-1-i]
			}
			zt, ok := tridiagVectors(tc.d, tc.e, lam)
			if !ok {
				t.Fatalf("inverse iteration reported failure")
			}
			resid, orth := tridiagCheck(tc.d, tc.e, lam, zt)
			if tol := invitResidual * float64(n) * 2 * eps; resid > tol {
				t.Errorf("residual %.3g, want ≤ %.3g", resid, tol)
			}
			if tol := 8 * float64(n) * eps; orth > tol {
				t.Errorf("‖ZZᵀ − I‖ = %.3g, want ≤ %.3g", orth, tol)
			}
			t.Logf("residual %.2g nε, orthogonality %.2g nε", resid/(float64(n)*eps), orth/(float64(n)*eps))
		})
	}
}
