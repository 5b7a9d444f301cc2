package linalg

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// topMatrices adds to testMatrices cases built so that the k-th position
// falls inside a multiple eigenvalue or a tight cluster.
func topMatrices(n int) []symCase {
	cs := testMatrices(n)
	rng := rand.New(rand.NewPCG(9, uint64(n)))
	// Every eigenvalue double: Q diag(λ, λ) Qᵀ.
	lam := make([]float64, n)
	for i := range n / 2 {
		lam[2*i] = rng.NormFloat64()
		lam[2*i+1] = lam[2*i]
	}
	cs = append(cs, symCase{"pairs", rotated(rng, lam)})
	// The largest 60 within 1e−9 of each other: slow for a Krylov method.
	top := make([]float64, n)
	for i := range top {
		if i < 60 {
			top[i] = 10 + 1e-9*float64(i)
		} else {
			top[i] = rng.Float64()
		}
	}
	cs = append(cs, symCase{"top-cluster", rotated(rng, top)})
	return cs
}

// spectralNorm is max |λ|, or 1 for the zero matrix.
func spectralNorm(values []float64) float64 {
	if v := math.Max(math.Abs(values[0]), math.Abs(values[len(values)-1])); v > 0 {
		return v
	}
	return 1
}

// subspaceGap is ‖X − Y YᵀX‖₂ for orthonormal columns: how far span(X) is
// from lying in span(Y).
func subspaceGap(x, y mat.Matrix) float64 {
	var ytx, r mat.Dense
	ytx.Mul(y.T(), x)
	r.Mul(y, &ytx)
	r.Sub(x, &r)
	return mat.Norm(&r, 2)
}

func TestSymEigTop(t *testing.T) {
	for _, n := range []int{50, 300, 600} {
		for _, c := range topMatrices(n) {
			full, fullV, err := SymEig(context.Background(), c.a)
			if err != nil {
				t.Fatal(err)
			}
			norm := spectralNorm(full)
			for _, k := range []int{1, 5, 20, n / 2} {
				t.Run(fmt.Sprintf("%s/n=%d/k=%d", c.name, n, k), func(t *testing.T) {
					values, vectors, err := SymEigTop(context.Background(), c.a, k)
					if err != nil {
						t.Fatalf("SymEigTop: %v", err)
					}
					if r, cc := vectors.Dims(); len(values) != k || r != n || cc != k {
						t.Fatalf("got %d values and %d×%d vectors, want %d and %d×%d", len(values), r, cc, k, n, k)
					}
					// The documented guarantee, with ‖A‖₂ from SymEig.
					resid, orth, problems := eigenError(c.a, values, vectors)
					for _, p := range problems {
						t.Error(p)
					}
					resid *= symNorm(c.a) / norm
					if resid > TopTol {
						t.Errorf("residual ‖Av − λv‖/‖A‖₂ = %.3g, want ≤ %.0e", resid, TopTol)
					}
					if tol := 8 * float64(n) * eps; orth > tol {
						t.Errorf("‖VᵀV − I‖ = %.3g, want ≤ %.3g", orth, tol)
					}
					// |θ − λ| ≤ ‖r‖ for each pair.
					if d, tol := maxDiff(values, full[:k]), (TopTol+2*float64(n)*eps)*norm; d > tol {
						t.Errorf("values differ from SymEig's by %.3g, want ≤ %.3g", d, tol)
					}
					// Subspaces: span(V) lies in the eigenvectors of the
					// values ≥ λ_k − δ, and holds those of the values > λ_k + δ
					// (δ covers a multiple λ_k and a cluster around it).
					delta := 1e-8 * norm
					lo, hi := k, 0
					for lo < n && full[lo] >= values[k-1]-delta {
						lo++
					}
					for hi < k && full[hi] > values[k-1]+delta {
						hi++
					}
					if g := subspaceGap(vectors, fullV.Slice(0, n, 0, lo)); g > 1e-6 {
						t.Errorf("span of the %d vectors is %.3g away from the %d leading eigenvectors", k, g, lo)
					}
					if hi > 0 {
						if g := subspaceGap(fullV.Slice(0, n, 0, hi), vectors); g > 1e-6 {
							t.Errorf("the %d eigenvectors above λ_k are %.3g away from the span", hi, g)
						}
					}
				})
			}
		}
	}
}

// TestLanczosTopGivesUp checks both exits of the iteration: convergence
// when the k-th position falls in an eigenvalue of multiplicity n−3 or n/3
// (the block holds enough copies), and an early surrender on a tight
// cluster at the top, which SymEigTop then solves directly (TestSymEigTop,
// top-cluster).
func TestLanczosTopGivesUp(t *testing.T) {
	n := 600
	cases := topMatrices(n)
	find := func(name string) *mat.SymDense {
		for _, c := range cases {
			if c.name == name {
				return c.a
			}
		}
		t.Fatalf("no test matrix %q", name)
		return nil
	}
	for _, tc := range []struct {
		name      string
		k         int
		converges bool
	}{
		{"identity+rank3", 10, true},
		{"diagonal-repeated", 30, true},
		{"top-cluster", 20, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := find(tc.name)
			full := make([]float64, n*n)
			if err := copyUpper(full, a); err != nil {
				t.Fatal(err)
			}
			mirrorUpper(full, n)
			for i := range n {
				for j := range n {
					if full[i*n+j] != a.At(i, j) {
						t.Fatalf("mirrorUpper: entry (%d, %d) = %g, want %g", i, j, full[i*n+j], a.At(i, j))
					}
				}
			}
			vals, yt, err := lanczosTop(context.Background(), denseRows(full, n), n, tc.k, denseShape(tc.k), 2*float64(n)*float64(n), 0)
			if err != nil {
				t.Fatal(err)
			}
			if got := yt != nil; got != tc.converges {
				t.Errorf("converged = %v, want %v", got, tc.converges)
			}
			if yt != nil && len(vals) != tc.k {
				t.Errorf("got %d values, want %d", len(vals), tc.k)
			}
		})
	}
}

// TestTridiagTop checks the divide-and-conquer fallback of directTop
// against inverse iteration, and that inverse iteration refuses a value
// that is not an eigenvalue.
func TestTridiagTop(t *testing.T) {
	for _, tc := range specialTridiagonals() {
		t.Run(tc.name, func(t *testing.T) {
			n := len(tc.d)
			k := min(12, n)
			vals, yt, err := tridiagTop(context.Background(), tc.d, tc.e, k)
			if err != nil {
				t.Fatal(err)
			}
			resid, orth := tridiagCheck(tc.d, tc.e, vals, yt)
			if tol := 2 * float64(n) * eps; resid > tol {
				t.Errorf("residual %.3g, want ≤ %.3g", resid, tol)
			}
			if tol := 8 * float64(n) * eps; orth > tol {
				t.Errorf("‖ZZᵀ − I‖ = %.3g, want ≤ %.3g", orth, tol)
			}
			for i := 1; i < k; i++ {
				if vals[i] > vals[i-1] {
					t.Fatalf("values not descending at %d", i)
				}
			}
			bad := []float64{vals[0] + 0.1*math.Max(1, math.Abs(vals[0]))}
			if _, ok := tridiagVectors(tc.d, tc.e, bad); ok {
				t.Errorf("inverse iteration accepted %g, which is not an eigenvalue", bad[0])
			}
		})
	}
}

func TestSymEigTopErrors(t *testing.T) {
	nan := mat.NewSymDense(3, []float64{1, 2, 3, 2, 4, math.NaN(), 3, math.NaN(), 5})
	ok := mat.NewSymDense(2, []float64{2, 1, 1, 2})
	tests := []struct {
		name string
		a    mat.Symmetric
		k    int
		want error
	}{
		{"nan", nan, 1, ErrNotFinite},
		{"empty", emptySym{}, 1, ErrEmpty},
		{"k=-1", ok, -1, ErrBadK},
		{"k=0", ok, 0, ErrBadK},
		{"k>n", ok, 3, ErrBadK},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, err := SymEigTop(context.Background(), tc.a, tc.k); !errors.Is(err, tc.want) {
				t.Errorf("got error %v, want %v", err, tc.want)
			}
		})
	}
}

func TestSymEigTopGenericInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for _, n := range []int{80, 400} {
		s := randomSym(rng, n, 1)
		want, wantV, err := SymEigTop(context.Background(), s, 3)
		if err != nil {
			t.Fatal(err)
		}
		got, gotV, err := SymEigTop(context.Background(), atOnly{s}, 3)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) || !mat.Equal(gotV, wantV) {
			t.Errorf("n = %d: SymEigTop through At differs from SymEigTop on the raw SymDense", n)
		}
	}
}

func TestSymEigTopCancel(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	a := randomSym(rng, 400, 1)
	checkCancel(t, "SymEigTop", func(ctx context.Context) error { _, _, err := SymEigTop(ctx, a, 10); return err })
}
