package linalg

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// reduced returns the reduction of a random symmetric matrix of order n and
// the matrix.
func reduced(t *testing.T, n int, seed uint64) (*tridiagonal, *mat.SymDense) {
	t.Helper()
	a := randomSym(rand.New(rand.NewPCG(seed, uint64(n))), n, 1)
	tr := newTridiagonal(n)
	if err := copyUpper(tr.a, a); err != nil {
		t.Fatal(err)
	}
	if err := tr.reduce(context.Background()); err != nil {
		t.Fatal(err)
	}
	return tr, a
}

// tridiagDense is T as a dense matrix.
func tridiagDense(d, e []float64) *mat.Dense {
	n := len(d)
	m := mat.NewDense(n, n, nil)
	for i := range n {
		m.Set(i, i, d[i])
		if i+1 < n {
			m.Set(i, i+1, e[i])
			m.Set(i+1, i, e[i])
		}
	}
	return m
}

func TestTridiagonalReduce(t *testing.T) {
	// Orders around the unblocked crossover (64) and the panel width (32).
	for _, n := range []int{1, 2, 3, 5, 63, 64, 65, 66, 97, 130, 300} {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			tr, a := reduced(t, n, 1)
			// Qᵀ as rows: apply to the identity.
			qt := make([]float64, n*n)
			for i := range n {
				qt[i*n+i] = 1
			}
			if err := tr.applyQT(context.Background(), qt, n); err != nil {
				t.Fatal(err)
			}
			q := mat.NewDense(n, n, qt)
			var qtq, r mat.Dense
			qtq.Mul(q.T(), tridiagDense(tr.d, tr.e))
			r.Mul(&qtq, q)
			r.Sub(&r, a)
			if got, tol := mat.Norm(&r, 1)/symNorm(a), 4*float64(n)*eps; got > tol {
				t.Errorf("‖Q T Qᵀ − A‖/‖A‖ = %.3g, want ≤ %.3g", got, tol)
			}
			var o mat.Dense
			o.Mul(q, q.T())
			for i := range n {
				o.Set(i, i, o.At(i, i)-1)
			}
			if got, tol := mat.Norm(&o, 1), 8*float64(n)*eps; got > tol {
				t.Errorf("‖QQᵀ − I‖ = %.3g, want ≤ %.3g", got, tol)
			}
		})
	}
}

// TestApplyQTRows checks that back-transforming a few rows gives the same
// rows as back-transforming them all.
func TestApplyQTRows(t *testing.T) {
	n := 150
	tr, _ := reduced(t, n, 2)
	all := make([]float64, n*n)
	rng := rand.New(rand.NewPCG(2, 2))
	for i := range all {
		all[i] = rng.NormFloat64()
	}
	few := append([]float64(nil), all[:7*n]...)
	if err := tr.applyQT(context.Background(), all, n); err != nil {
		t.Fatal(err)
	}
	if err := tr.applyQT(context.Background(), few, 7); err != nil {
		t.Fatal(err)
	}
	if d := relDiff(few, all[:7*n]); d > 1e-14 {
		t.Errorf("7 rows differ from the same rows of all %d by %.3g, want ≤ 1e-14", n, d)
	}
}

func TestSymvUpper(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, tc := range []struct{ n, s int }{{1, 0}, {5, 0}, {17, 0}, {40, 7}, {100, 99}, {300, 13}} {
		t.Run(fmt.Sprintf("n=%d/s=%d", tc.n, tc.s), func(t *testing.T) {
			n, s := tc.n, tc.s
			m := n - s
			a := make([]float64, n*n)
			for i := range a {
				a[i] = rng.NormFloat64()
			}
			x := make([]float64, m)
			for i := range x {
				x[i] = rng.NormFloat64()
			}
			want := make([]float64, m)
			for i := range m {
				for j := range m {
					r, c := min(i, j), max(i, j) // the upper triangle only
					want[i] += a[(s+r)*n+s+c] * x[j]
				}
			}
			got := make([]float64, m)
			for i := range got {
				got[i] = math.NaN() // must be overwritten
			}
			symvUpper(a, n, s, x, got)
			if d := relDiff(got, want); d > 1e-13 {
				t.Errorf("relative difference from the dense product %.3g, want ≤ 1e-13", d)
			}
		})
	}
}

// special tridiagonal matrices with known difficulties.
func specialTridiagonals() []struct {
	name string
	d, e []float64
} {
	var out []struct {
		name string
		d, e []float64
	}
	add := func(name string, d, e []float64) {
		out = append(out, struct {
			name string
			d, e []float64
		}{name, d, e})
	}
	// Wilkinson's W⁺₂₁: pairs of eigenvalues equal to 15 digits.
	w := make([]float64, 21)
	for i := range w {
		w[i] = math.Abs(float64(10 - i))
	}
	add("wilkinson21", w, ones(20, 1))
	// 1-2-1 Toeplitz: eigenvalues 2 − 2cos(jπ/(n+1)), close at both ends.
	add("toeplitz500", ones(500, 2), ones(499, -1))
	// Ten copies of W⁺₂₁ glued by 1e−10: clusters of ten eigenvalues.
	var gd, ge []float64
	for c := range 10 {
		gd = append(gd, w...)
		ge = append(ge, ones(20, 1)...)
		if c < 9 {
			ge = append(ge, 1e-10)
		}
	}
	add("glued-wilkinson", gd, ge)
	// Constant diagonal, tiny off-diagonal: everything deflates.
	add("constant-tiny", ones(200, 3), ones(199, 1e-300))
	// Split into independent blocks by zeros.
	rng := rand.New(rand.NewPCG(6, 6))
	sd, se := make([]float64, 300), make([]float64, 299)
	for i := range sd {
		sd[i] = rng.NormFloat64()
	}
	for i := range se {
		if i%37 != 36 {
			se[i] = rng.NormFloat64()
		}
	}
	add("split", sd, se)
	// Graded off-diagonal.
	gd2, ge2 := make([]float64, 150), make([]float64, 149)
	for i := range gd2 {
		gd2[i] = math.Pow(2, -float64(i)/3)
	}
	for i := range ge2 {
		ge2[i] = math.Pow(2, -float64(i)/2)
	}
	add("graded", gd2, ge2)
	rd, re := make([]float64, 1000), make([]float64, 999)
	for i := range rd {
		rd[i] = rng.NormFloat64()
	}
	for i := range re {
		re[i] = rng.NormFloat64()
	}
	add("random1000", rd, re)
	return out
}

func ones(n int, v float64) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = v
	}
	return x
}

// tridiagCheck measures eigenvectors (rows of zt, k×n) of T for values:
// max residual ‖T z − λ z‖/‖T‖ and ‖ZZᵀ − I‖.
func tridiagCheck(d, e, values, zt []float64) (resid, orth float64) {
	n := len(d)
	k := len(values)
	tn := 0.0
	for i := range n {
		s := math.Abs(d[i])
		if i > 0 {
			s += math.Abs(e[i-1])
		}
		if i < n-1 {
			s += math.Abs(e[i])
		}
		tn = math.Max(tn, s)
	}
	if tn == 0 {
		tn = 1
	}
	for j := range k {
		resid = math.Max(resid, tridiagResidual(d, e, values[j], zt[j*n:(j+1)*n])/tn)
	}
	z := mat.NewDense(k, n, zt)
	var o mat.Dense
	o.Mul(z, z.T())
	for i := range k {
		o.Set(i, i, o.At(i, i)-1)
	}
	return resid, mat.Norm(&o, 1)
}

// TestSterfScales checks sterf on blocks so small or large that gonum's
// Dsterf would rescale them (and panic, see sterf), against the blocks'
// eigenvalues computed at unit scale.
func TestSterfScales(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	scales := []float64{1, 1e-130, 1e160, 1e-300}
	type value struct{ v, scale float64 }
	var d, e []float64
	var want []value
	for bi, s := range scales {
		m := 5 + bi
		bd, be := make([]float64, m), make([]float64, m-1)
		for i := range bd {
			bd[i] = rng.NormFloat64()
		}
		for i := range be {
			be[i] = rng.NormFloat64()
		}
		w, we := append([]float64(nil), bd...), append([]float64(nil), be...)
		if !sterf(w, we) {
			t.Fatal("sterf did not converge at unit scale")
		}
		norm := math.Max(-w[0], w[m-1])
		for i := range bd {
			bd[i] *= s
			want = append(want, value{w[i] * s, norm * s})
		}
		for i := range be {
			be[i] *= s
		}
		if bi > 0 {
			e = append(e, 0)
		}
		d = append(d, bd...)
		e = append(e, be...)
	}
	if !sterf(d, e) {
		t.Fatal("sterf did not converge")
	}
	slices.SortFunc(want, func(a, b value) int { return cmp.Compare(a.v, b.v) })
	for i := range d {
		if math.Abs(d[i]-want[i].v) > 1e-14*want[i].scale {
			t.Errorf("eigenvalue %d = %.17g, want %.17g", i, d[i], want[i].v)
		}
	}
}
