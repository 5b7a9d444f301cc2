package linalg

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// TestSymEigSelect checks that SymEigSelect gives every eigenvalue as
// SymEig does, hands them to choose, and computes the chosen number of
// vectors: residuals, orthogonality and the subspace of the k leading
// eigenvectors, on the matrices of TestSymEigTop (random, graded, scaled,
// rank-deficient, multiple and clustered eigenvalues).
func TestSymEigSelect(t *testing.T) {
	for _, n := range []int{50, 300} {
		for _, c := range topMatrices(n) {
			full, fullV, err := SymEig(context.Background(), c.a)
			if err != nil {
				t.Fatal(err)
			}
			norm := spectralNorm(full)
			for _, k := range []int{1, 7, n / 4, n} {
				t.Run(fmt.Sprintf("%s/n=%d/k=%d", c.name, n, k), func(t *testing.T) {
					var seen []float64
					values, vectors, err := SymEigSelect(context.Background(), c.a, func(v []float64) int {
						seen = append([]float64(nil), v...)
						return k
					})
					if err != nil {
						t.Fatalf("SymEigSelect: %v", err)
					}
					if r, cc := vectors.Dims(); len(values) != n || r != n || cc != k {
						t.Fatalf("got %d values and %d×%d vectors, want %d and %d×%d", len(values), r, cc, n, n, k)
					}
					if d := maxDiff(seen, values); d != 0 {
						t.Errorf("choose saw values %.3g away from those returned, want the same", d)
					}
					if d, tol := maxDiff(values, full), 4*float64(n)*eps*norm; d > tol {
						t.Errorf("values differ from SymEig's by %.3g, want ≤ %.3g", d, tol)
					}
					resid, orth, problems := eigenError(c.a, values[:k], vectors)
					for _, p := range problems {
						t.Error(p)
					}
					if tol := 2 * float64(n) * eps; resid > tol {
						t.Errorf("residual ‖Av − λv‖/‖A‖ = %.3g, want ≤ %.3g", resid, tol)
					}
					if tol := 8 * float64(n) * eps; orth > tol {
						t.Errorf("‖VᵀV − I‖ = %.3g, want ≤ %.3g", orth, tol)
					}
					// Past a multiple λ_k or a cluster around it, the span
					// must lie in the leading eigenvectors.
					lo := k
					for lo < n && full[lo] >= values[k-1]-1e-8*norm {
						lo++
					}
					if g := subspaceGap(vectors, fullV.Slice(0, n, 0, lo)); g > 1e-6 {
						t.Errorf("span of the %d vectors is %.3g away from the %d leading eigenvectors", k, g, lo)
					}
				})
			}
		}
	}
}

// TestSymEigSelectBadK checks that a k outside [1, n] from choose is an
// error wrapping ErrBadK, not a panic.
func TestSymEigSelectBadK(t *testing.T) {
	a := topMatrices(20)[0].a
	for _, k := range []int{0, -1, 21} {
		_, _, err := SymEigSelect(context.Background(), a, func([]float64) int { return k })
		if !errors.Is(err, ErrBadK) {
			t.Errorf("k = %d: got error %v, want ErrBadK", k, err)
		}
	}
}
