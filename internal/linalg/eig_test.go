package linalg

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// eps is the unit roundoff the tolerances are stated in.
const eps = 0x1p-53

// symCase is a test matrix with a name that says how it was built.
type symCase struct {
	name string
	a    *mat.SymDense
}

// testMatrices returns seeded matrices of order n that exercise the
// eigen-solvers: random, with exact multiplicities, rank-deficient, graded,
// clustered, scaled near the ends of the floating-point range, and zero.
func testMatrices(n int) []symCase {
	rng := rand.New(rand.NewPCG(1, uint64(n)))
	var cs []symCase
	add := func(name string, a *mat.SymDense) { cs = append(cs, symCase{name, a}) }

	add("random", randomSym(rng, n, 1))
	// I + LLᵀ with L n×3: eigenvalue 1 of multiplicity n−3.
	l := randomDense(rng, n, min(3, n))
	lr := mat.NewSymDense(n, nil)
	lr.SymOuterK(1, l)
	for i := range n {
		lr.SetSym(i, i, lr.At(i, i)+1)
	}
	add("identity+rank3", lr)
	// XᵀX with X N×n, N < n: eigenvalue 0 of multiplicity n−N.
	x := randomDense(rng, n/3+1, n)
	g := mat.NewSymDense(n, nil)
	g.SymOuterK(1, x.T())
	add("gram", g)
	// Graded: entries from 1 down to 1e−8 along the diagonal.
	gr := randomSym(rng, n, 1)
	for i := range n {
		for j := i; j < n; j++ {
			gr.SetSym(i, j, gr.At(i, j)*math.Pow(10, -4*float64(i+j)/float64(n)))
		}
	}
	add("graded", gr)
	// Q diag(λ) Qᵀ with λ in clusters of width 1e−12 around 1, 2 and 3.
	lam := make([]float64, n)
	for i := range lam {
		lam[i] = float64(1+i%3) + 1e-12*float64(i/3)
	}
	add("clustered", rotated(rng, lam))
	// Diagonal with the values 0, 1, 2 repeated: every eigenvalue multiple.
	dg := mat.NewSymDense(n, nil)
	for i := range n {
		dg.SetSym(i, i, float64(i%3))
	}
	add("diagonal-repeated", dg)
	add("tiny", randomSym(rng, n, 1e-300))
	add("huge", randomSym(rng, n, 1e300))
	add("zero", mat.NewSymDense(n, nil))
	return cs
}

// randomSym is a symmetric matrix with independent N(0, scale²) entries.
func randomSym(rng *rand.Rand, n int, scale float64) *mat.SymDense {
	a := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			a.SetSym(i, j, scale*rng.NormFloat64())
		}
	}
	return a
}

// randomDense is an r×c matrix of N(0, 1) entries.
func randomDense(rng *rand.Rand, r, c int) *mat.Dense {
	m := mat.NewDense(r, c, nil)
	for i := range r {
		for j := range c {
			m.Set(i, j, rng.NormFloat64())
		}
	}
	return m
}

// rotated is Q diag(lam) Qᵀ for a random orthogonal Q (from a QR
// factorization).
func rotated(rng *rand.Rand, lam []float64) *mat.SymDense {
	n := len(lam)
	var qr mat.QR
	qr.Factorize(randomDense(rng, n, n))
	var q mat.Dense
	qr.QTo(&q)
	var qd mat.Dense
	qd.Scale(1, &q)
	for j := range n {
		for i := range n {
			qd.Set(i, j, qd.At(i, j)*lam[j])
		}
	}
	var a mat.Dense
	a.Mul(&qd, q.T())
	s := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			s.SetSym(i, j, (a.At(i, j)+a.At(j, i))/2)
		}
	}
	return s
}

// symNorm is ‖A‖₁ (= ‖A‖∞), or 1 for the zero matrix.
func symNorm(a mat.Symmetric) float64 {
	if v := mat.Norm(a, 1); v > 0 {
		return v
	}
	return 1
}

// eigenError measures a partial or full decomposition (values, vectors:
// n×k): the residual max_j ‖A v_j − λ_j v_j‖₂ / ‖A‖₁, the loss of
// orthogonality ‖VᵀV − I‖₁, and whether values descend and the sign
// convention holds.
func eigenError(a mat.Symmetric, values []float64, vectors *mat.Dense) (resid, orth float64, problems []string) {
	n, k := vectors.Dims()
	var av mat.Dense
	av.Mul(a, vectors)
	norm := symNorm(a)
	for j := range k {
		ss := 0.0
		for i := range n {
			r := (av.At(i, j) - values[j]*vectors.At(i, j)) / norm
			ss += r * r
		}
		resid = math.Max(resid, math.Sqrt(ss))
	}
	var o mat.Dense
	o.Mul(vectors.T(), vectors)
	for i := range k {
		o.Set(i, i, o.At(i, i)-1)
	}
	orth = mat.Norm(&o, 1)
	for j := 1; j < k; j++ {
		if values[j] > values[j-1] {
			problems = append(problems, fmt.Sprintf("values[%d] = %g > values[%d] = %g", j, values[j], j-1, values[j-1]))
			break
		}
	}
	for j := range k {
		best, at := -1.0, 0
		for i := range n {
			if v := math.Abs(vectors.At(i, j)); v > best {
				best, at = v, i
			}
		}
		if vectors.At(at, j) < 0 {
			problems = append(problems, fmt.Sprintf("column %d: largest entry %g is negative", j, vectors.At(at, j)))
			break
		}
	}
	return resid, orth, problems
}

// gonumValues are gonum's eigenvalues of a, descending (the reference).
// The matrix is first scaled by a power of two to a largest entry near one,
// because gonum's Dsterf panics when it has to rescale (see sterf).
func gonumValues(t *testing.T, a mat.Symmetric) []float64 {
	t.Helper()
	scale := 1.0
	if m := mat.Norm(a, math.Inf(1)); m > 0 {
		_, exp := math.Frexp(m)
		scale = math.Ldexp(1, exp)
	}
	n := a.SymmetricDim()
	s := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			s.SetSym(i, j, a.At(i, j)/scale)
		}
	}
	var es mat.EigenSym
	if !es.Factorize(s, false) {
		t.Fatal("gonum's EigenSym did not converge")
	}
	v := es.Values(nil)
	slices.Reverse(v)
	for i := range v {
		v[i] *= scale
	}
	return v
}

// maxDiff is max_i |a_i − b_i|.
func maxDiff(a, b []float64) float64 {
	d := 0.0
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i]))
	}
	return d
}

func TestSymEig(t *testing.T) {
	sizes := []int{1, 2, 3, 10, 26, 100, 300}
	for _, n := range sizes {
		for _, c := range testMatrices(n) {
			t.Run(fmt.Sprintf("%s/n=%d", c.name, n), func(t *testing.T) {
				values, vectors, err := SymEig(context.Background(), c.a)
				if err != nil {
					t.Fatalf("SymEig: %v", err)
				}
				if r, cc := vectors.Dims(); len(values) != n || r != n || cc != n {
					t.Fatalf("got %d values and %d×%d vectors, want %d and %d×%d", len(values), r, cc, n, n, n)
				}
				resid, orth, problems := eigenError(c.a, values, vectors)
				for _, p := range problems {
					t.Error(p)
				}
				// LAPACK's bounds are O(n ε); the constants leave room
				// for rounding without hiding an O(n²) or O(√ε) error.
				if tol := 2 * float64(n) * eps; resid > tol {
					t.Errorf("residual ‖AV − VΛ‖/‖A‖ = %.3g, want ≤ %.3g", resid, tol)
				}
				if tol := 8 * float64(n) * eps; orth > tol {
					t.Errorf("‖VᵀV − I‖ = %.3g, want ≤ %.3g", orth, tol)
				}
				ref := gonumValues(t, c.a)
				if d, tol := maxDiff(values, ref), 2*float64(n)*eps*symNorm(c.a); d > tol {
					t.Errorf("eigenvalues differ from gonum's EigenSym by %.3g, want ≤ %.3g", d, tol)
				}
				vals, err := SymEigValues(context.Background(), c.a)
				if err != nil {
					t.Fatalf("SymEigValues: %v", err)
				}
				if d, tol := maxDiff(vals, ref), 2*float64(n)*eps*symNorm(c.a); d > tol {
					t.Errorf("SymEigValues differ from gonum's EigenSym by %.3g, want ≤ %.3g", d, tol)
				}
				t.Logf("residual %.2g nε, orthogonality %.2g nε", resid/(float64(n)*eps), orth/(float64(n)*eps))
			})
		}
	}
}

// TestSymEigLarge checks the orders of the benchmarks on two matrices,
// against SymEigValues (gonum's reference takes seconds there).
func TestSymEigLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("n = 1000 in -short mode")
	}
	n := 1000
	for _, c := range testMatrices(n)[:3] {
		t.Run(fmt.Sprintf("%s/n=%d", c.name, n), func(t *testing.T) {
			values, vectors, err := SymEig(context.Background(), c.a)
			if err != nil {
				t.Fatalf("SymEig: %v", err)
			}
			resid, orth, problems := eigenError(c.a, values, vectors)
			for _, p := range problems {
				t.Error(p)
			}
			if tol := 2 * float64(n) * eps; resid > tol {
				t.Errorf("residual ‖AV − VΛ‖/‖A‖ = %.3g, want ≤ %.3g", resid, tol)
			}
			if tol := 8 * float64(n) * eps; orth > tol {
				t.Errorf("‖VᵀV − I‖ = %.3g, want ≤ %.3g", orth, tol)
			}
			vals, err := SymEigValues(context.Background(), c.a)
			if err != nil {
				t.Fatalf("SymEigValues: %v", err)
			}
			if d, tol := maxDiff(vals, values), 2*float64(n)*eps*symNorm(c.a); d > tol {
				t.Errorf("SymEigValues and SymEig differ by %.3g, want ≤ %.3g", d, tol)
			}
			t.Logf("residual %.2g nε, orthogonality %.2g nε", resid/(float64(n)*eps), orth/(float64(n)*eps))
		})
	}
}

// atOnly hides the raw storage of a SymDense, so that the solvers read it
// through At.
type atOnly struct{ s *mat.SymDense }

func (a atOnly) Dims() (int, int)    { return a.s.Dims() }
func (a atOnly) At(i, j int) float64 { return a.s.At(i, j) }
func (a atOnly) T() mat.Matrix       { return a }
func (a atOnly) SymmetricDim() int   { return a.s.SymmetricDim() }
func (a atOnly) String() string      { return "atOnly" }

func TestSymEigGenericInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	s := randomSym(rng, 80, 1)
	want, wantV, err := SymEig(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	got, gotV, err := SymEig(context.Background(), atOnly{s})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) || !mat.Equal(gotV, wantV) {
		t.Errorf("SymEig through At differs from SymEig on the raw SymDense")
	}
}

// emptySym is a symmetric matrix of order zero, which mat cannot build.
type emptySym struct{}

func (emptySym) Dims() (int, int)    { return 0, 0 }
func (emptySym) At(i, j int) float64 { panic("no entries") }
func (e emptySym) T() mat.Matrix     { return e }
func (emptySym) SymmetricDim() int   { return 0 }

func TestSymEigErrors(t *testing.T) {
	nan := mat.NewSymDense(3, []float64{1, 2, 3, 2, 4, math.NaN(), 3, math.NaN(), 5})
	inf := mat.NewSymDense(2, []float64{1, 2, 2, math.Inf(-1)})
	tests := []struct {
		name string
		a    mat.Symmetric
		want error
	}{
		{"nan", nan, ErrNotFinite},
		{"inf", inf, ErrNotFinite},
		{"empty", emptySym{}, ErrEmpty},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, err := SymEig(context.Background(), tc.a); !errors.Is(err, tc.want) {
				t.Errorf("SymEig: got error %v, want %v", err, tc.want)
			}
			if _, err := SymEigValues(context.Background(), tc.a); !errors.Is(err, tc.want) {
				t.Errorf("SymEigValues: got error %v, want %v", err, tc.want)
			}
		})
	}
	_, err := SymEigValues(context.Background(), nan)
	if want := "linalg: matrix entry is not finite: a[1][2] = NaN"; err == nil || err.Error() != want {
		t.Errorf("got error %q, want %q", err, want)
	}
}

// countdownCtx is a context that reports cancellation from its n-th call of
// Err on, so that tests can stop a computation between any two of its
// checks. Like every context, it is safe for concurrent use.
type countdownCtx struct {
	context.Context
	n atomic.Int64
}

func newCountdown(n int64) *countdownCtx {
	c := &countdownCtx{Context: context.Background()}
	c.n.Store(n)
	return c
}

func (c *countdownCtx) Err() error {
	if c.n.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

func TestCancel(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	a := randomSym(rng, 400, 1)
	if nativeSymEig != nil {
		// The native solver cannot be stopped inside: SymEig checks the
		// context before and after it.
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, _, err := SymEig(ctx, a); !errors.Is(err, context.Canceled) {
			t.Errorf("native SymEig canceled before the call: got %v", err)
		}
	} else {
		checkCancel(t, "SymEig", func(ctx context.Context) error { _, _, err := SymEig(ctx, a); return err })
	}
	checkCancel(t, "SymEigValues", func(ctx context.Context) error { _, err := SymEigValues(ctx, a); return err })
}

// checkCancel checks that run returns context.Canceled when its context is
// canceled before the call, and when it is canceled at any of the checks a
// full run makes (every fifth of them is tried).
func checkCancel(t *testing.T, name string, run func(ctx context.Context) error) {
	t.Run(name, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := run(ctx); !errors.Is(err, context.Canceled) {
			t.Errorf("canceled before the call: got error %v, want %v", err, context.Canceled)
		}
		probe := newCountdown(math.MaxInt64)
		if err := run(probe); err != nil {
			t.Fatalf("uncanceled run: %v", err)
		}
		checks := int(math.MaxInt64 - probe.n.Load())
		if checks < 3 {
			t.Fatalf("only %d checks of the context in a run", checks)
		}
		for stop := 0; stop < checks; stop += max(1, checks/5) {
			if err := run(newCountdown(int64(stop))); !errors.Is(err, context.Canceled) {
				t.Errorf("canceled at check %d of %d: got error %v, want %v", stop, checks, err, context.Canceled)
			}
		}
		t.Logf("%d checks of the context", checks)
	})
}
