package analysis

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// tuMultiLabel makes seeded multi-label data whose labels depend on the
// features (so label methods have something to find): each label fires
// when a random linear score plus noise passes a threshold, and every label
// both occurs and is absent at least once.
func tuMultiLabel(seed uint64, n, d, q int) Input {
	rng := rand.New(rand.NewPCG(seed, 7))
	x := mat.NewDense(n, d, nil)
	for i := range n {
		for j := range d {
			x.Set(i, j, rng.NormFloat64()*float64(1+j%3)+float64(j%2)*3)
		}
	}
	y := mat.NewDense(n, q, nil)
	for l := range q {
		w := make([]float64, d)
		for j := range w {
			w[j] = rng.NormFloat64()
		}
		for i := range n {
			s := rng.NormFloat64() * 0.5
			for j := range d {
				s += w[j] * (x.At(i, j) - float64(j%2)*3) / float64(1+j%3)
			}
			if s > 0.3 {
				y.Set(i, l, 1)
			}
		}
		y.Set(l%n, l, 1)
		y.Set((l+1)%n, l, 0)
	}
	return Input{X: x, Y: y}
}

// tuMultiDim makes seeded multi-dimensional data with the given numbers of
// classes; every class occurs.
func tuMultiDim(seed uint64, n, d int, classes []int) Input {
	rng := rand.New(rand.NewPCG(seed, 9))
	x := mat.NewDense(n, d, nil)
	for i := range n {
		for j := range d {
			x.Set(i, j, rng.NormFloat64())
		}
	}
	y := mat.NewDense(n, len(classes), nil)
	for v, k := range classes {
		w := make([]float64, d)
		for j := range w {
			w[j] = rng.NormFloat64()
		}
		for i := range n {
			s := rng.NormFloat64() * 0.3
			for j := range d {
				s += w[j] * x.At(i, j)
			}
			c := int(math.Floor((math.Tanh(s/2) + 1) / 2 * float64(k)))
			y.Set(i, v, float64(min(c, k-1)))
		}
		for c := range k {
			y.Set((c*7+v)%n, v, float64(c))
		}
	}
	return Input{X: x, Y: y, Classes: classes}
}

// tuCentred returns X with its column means removed, explicitly.
func tuCentred(x mat.Matrix) *mat.Dense {
	n, d := x.Dims()
	c := mat.DenseCopyOf(x)
	for j := range d {
		m := 0.0
		for i := range n {
			m += c.At(i, j)
		}
		m /= float64(n)
		for i := range n {
			c.Set(i, j, c.At(i, j)-m)
		}
	}
	return c
}

// tuSym symmetrizes a square matrix into a SymDense.
func tuSym(a mat.Matrix) *mat.SymDense {
	n, _ := a.Dims()
	s := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			s.SetSym(i, j, (a.At(i, j)+a.At(j, i))/2)
		}
	}
	return s
}

// tuEig is a reference symmetric decomposition straight from gonum:
// eigenvalues descending with their vectors.
func tuEig(t *testing.T, a mat.Symmetric) ([]float64, *mat.Dense) {
	t.Helper()
	var e mat.EigenSym
	if !e.Factorize(a, true) {
		t.Fatal("reference EigenSym failed")
	}
	v := e.Values(nil)
	var vec mat.Dense
	e.VectorsTo(&vec)
	n := len(v)
	vals := make([]float64, n)
	out := mat.NewDense(n, n, nil)
	for k := range n {
		vals[k] = v[n-1-k]
		out.SetCol(k, mat.Col(nil, n-1-k, &vec))
	}
	return vals, out
}

// tuGenEig is a reference for A p = λ B p by another route than the
// package's Cholesky: B^(−1/2) from B's eigen-decomposition.
func tuGenEig(t *testing.T, a, b mat.Symmetric) ([]float64, *mat.Dense) {
	t.Helper()
	bv, bvec := tuEig(t, b)
	n := len(bv)
	ih := mat.NewDense(n, n, nil) // B^(−1/2)
	for i := range n {
		for j := range n {
			s := 0.0
			for k := range n {
				s += bvec.At(i, k) * bvec.At(j, k) / math.Sqrt(bv[k])
			}
			ih.Set(i, j, s)
		}
	}
	var c, tmp mat.Dense
	tmp.Mul(ih, a)
	c.Mul(&tmp, ih)
	vals, u := tuEig(t, tuSym(&c))
	var p mat.Dense
	p.Mul(ih, u)
	return vals, &p
}

// tuCloseValues compares the first k eigenvalues relative to the largest.
func tuCloseValues(t *testing.T, what string, got, want []float64, k int, tol float64) {
	t.Helper()
	if len(got) < k || len(want) < k {
		t.Fatalf("%s: got %d and %d eigenvalues, want at least %d", what, len(got), len(want), k)
	}
	scale := math.Max(math.Abs(want[0]), 1e-300)
	for i := range k {
		if math.Abs(got[i]-want[i]) > tol*scale {
			t.Errorf("%s: eigenvalue %d: got %.12g, want %.12g", what, i, got[i], want[i])
		}
	}
}

// tuSameColumns checks the first k columns agree up to sign.
func tuSameColumns(t *testing.T, what string, got, want mat.Matrix, k int, tol float64) {
	t.Helper()
	r, _ := want.Dims()
	for c := range k {
		norm := 0.0
		for i := range r {
			norm = math.Max(norm, math.Abs(want.At(i, c)))
		}
		sign := 1.0
		dot := 0.0
		for i := range r {
			dot += got.At(i, c) * want.At(i, c)
		}
		if dot < 0 {
			sign = -1
		}
		for i := range r {
			if math.Abs(sign*got.At(i, c)-want.At(i, c)) > tol*norm {
				t.Errorf("%s: column %d row %d: got %.10g, want %.10g (up to sign)", what, c, i, sign*got.At(i, c), want.At(i, c))
				break
			}
		}
	}
}

// tuSameSubspace checks that the first k columns of a and b span the same
// subspace: every principal angle's cosine is at least 1 − tol.
func tuSameSubspace(t *testing.T, what string, a, b mat.Matrix, k int, tol float64) {
	t.Helper()
	qa, qb := tuOrthonormal(a, k), tuOrthonormal(b, k)
	var m mat.Dense
	m.Mul(qa.T(), qb)
	var svd mat.SVD
	if !svd.Factorize(&m, mat.SVDNone) {
		t.Fatal("SVD failed")
	}
	for i, s := range svd.Values(nil) {
		if s < 1-tol {
			t.Errorf("%s: principal angle %d has cosine %.12f, want ≥ %v", what, i, s, 1-tol)
		}
	}
}

// tuOrthonormal returns an orthonormal basis of the first k columns.
func tuOrthonormal(a mat.Matrix, k int) *mat.Dense {
	r, _ := a.Dims()
	q := mat.DenseCopyOf(a.(interface {
		Slice(i, k, j, l int) mat.Matrix
	}).Slice(0, r, 0, k))
	// Modified Gram–Schmidt, twice: thin (r×k), where QR's Q would be r×r.
	for range 2 {
		for j := range k {
			cj := q.ColView(j).(*mat.VecDense)
			for i := range j {
				ci := q.ColView(i)
				cj.AddScaledVec(cj, -mat.Dot(ci, cj), ci)
			}
			cj.ScaleVec(1/mat.Norm(cj, 2), cj)
		}
	}
	return q
}

// tuGram is MᵀBM (B nil: MᵀM) for the first k columns, to check
// orthonormality.
func tuGram(m *mat.Dense, b mat.Matrix, k int) *mat.Dense {
	r, _ := m.Dims()
	sub := m.Slice(0, r, 0, k)
	var out, tmp mat.Dense
	if b == nil {
		out.Mul(sub.T(), sub)
		return &out
	}
	tmp.Mul(b, sub)
	out.Mul(sub.T(), &tmp)
	return &out
}

// tuIsIdentity checks a square matrix is I within tol.
func tuIsIdentity(t *testing.T, what string, m mat.Matrix, tol float64) {
	t.Helper()
	n, _ := m.Dims()
	for i := range n {
		for j := range n {
			want := 0.0
			if i == j {
				want = 1
			}
			if math.Abs(m.At(i, j)-want) > tol {
				t.Errorf("%s: entry (%d,%d) is %.3g, want %v", what, i, j, m.At(i, j), want)
				return
			}
		}
	}
}

// tuLabelDense is the dense 0/1 label matrix: Y, or the one-hot Z of class
// variables, built here without the package's code.
func tuLabelDense(in Input) *mat.Dense {
	if in.Classes == nil {
		return mat.DenseCopyOf(in.Y)
	}
	n, _ := in.Y.Dims()
	total := 0
	for _, k := range in.Classes {
		total += k
	}
	z := mat.NewDense(n, total, nil)
	for i := range n {
		off := 0
		for v, k := range in.Classes {
			z.Set(i, off+int(in.Y.At(i, v)), 1)
			off += k
		}
	}
	return z
}

// tuNMI is the label NMI computed from its definition with explicit 2×2
// tables (seed 002, eq. 4–7), for reference.
func tuNMI(y *mat.Dense) *mat.Dense {
	n, q := y.Dims()
	h := func(p float64) float64 {
		s := 0.0
		for _, v := range []float64{p, 1 - p} {
			if v > 0 {
				s -= v * math.Log(v)
			}
		}
		return s
	}
	out := mat.NewDense(q, q, nil)
	for a := range q {
		for b := range q {
			var table [2][2]float64
			for i := range n {
				table[int(y.At(i, a))][int(y.At(i, b))] += 1 / float64(n)
			}
			pa := table[1][0] + table[1][1]
			pb := table[0][1] + table[1][1]
			mi := 0.0
			for u := range 2 {
				for v := range 2 {
					if table[u][v] > 0 {
						mu := []float64{1 - pa, pa}[u] * []float64{1 - pb, pb}[v]
						mi += table[u][v] * math.Log(table[u][v]/mu)
					}
				}
			}
			if m := math.Min(h(pa), h(pb)); m > 0 {
				out.Set(a, b, mi/m)
			}
		}
	}
	return out
}
