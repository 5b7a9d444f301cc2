package analysis

import (
	"cmp"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/dataset"
)

// lsdrMethods are the label-space methods of seed 001.
var lsdrMethods = []string{"plst", "occa", "cplst", "kcplst"}

// lsdrData makes seeded random multi-label data: X (N×D) normal with a
// different offset per column, so that the raw Gram XᵀX, which cplst and
// occa use, differs from the centred one; Y (N×q) 0/1 with every label both
// present and absent.
func lsdrData(rng *rand.Rand, n, d, q int) Input {
	x := mat.NewDense(n, d, nil)
	for i := range n {
		for j := range d {
			x.Set(i, j, float64(j)-1.5+rng.NormFloat64()*(1+0.3*float64(j)))
		}
	}
	y := mat.NewDense(n, q, nil)
	for j := range q {
		p := 0.2 + 0.6*rng.Float64()
		for i := range n {
			if rng.Float64() < p {
				y.Set(i, j, 1)
			}
		}
		y.Set(j%n, j, 1)
		y.Set((j+1)%n, j, 0)
	}
	return Input{X: x, Y: y}
}

// lsdrZ is Z = (2Y − 1) − 1ȳᵀ, formed explicitly.
func lsdrZ(y mat.Matrix) *mat.Dense {
	n, q := y.Dims()
	z := mat.NewDense(n, q, nil)
	for j := range q {
		mean := 0.0
		for i := range n {
			mean += 2*y.At(i, j) - 1
		}
		mean /= float64(n)
		for i := range n {
			z.Set(i, j, 2*y.At(i, j)-1-mean)
		}
	}
	return z
}

// lsdrInverse is the explicit inverse of a (tests only).
func lsdrInverse(t *testing.T, a mat.Matrix) *mat.Dense {
	t.Helper()
	var inv mat.Dense
	if err := inv.Inverse(a); err != nil {
		t.Fatalf("inverse: %v", err)
	}
	return &inv
}

// lsdrHat is the N×N ridge hat matrix X(XᵀX + λI)⁻¹Xᵀ, formed explicitly.
func lsdrHat(t *testing.T, x *mat.Dense, lambda float64) *mat.Dense {
	_, d := x.Dims()
	var g mat.Dense
	g.Mul(x.T(), x)
	for i := range d {
		g.Set(i, i, g.At(i, i)+lambda)
	}
	var h, tmp mat.Dense
	tmp.Mul(x, lsdrInverse(t, &g))
	h.Mul(&tmp, x.T())
	return &h
}

// lsdrKernel is K_ij = exp(−γ‖xᵢ − xⱼ‖²), summed entry by entry.
func lsdrKernel(x *mat.Dense, gamma float64) *mat.Dense {
	n, d := x.Dims()
	k := mat.NewDense(n, n, nil)
	for i := range n {
		for j := range n {
			s := 0.0
			for c := range d {
				v := x.At(i, c) - x.At(j, c)
				s += v * v
			}
			k.Set(i, j, math.Exp(-gamma*s))
		}
	}
	return k
}

// lsdrSandwich is ZᵀAZ, symmetrised.
func lsdrSandwich(z, a *mat.Dense) *mat.SymDense {
	var tmp, m mat.Dense
	tmp.Mul(a, z)
	m.Mul(z.T(), &tmp)
	_, q := z.Dims()
	s := mat.NewSymDense(q, nil)
	for i := range q {
		for j := i; j < q; j++ {
			s.SetSym(i, j, (m.At(i, j)+m.At(j, i))/2)
		}
	}
	return s
}

// lsdrEig decomposes a symmetric matrix with gonum's EigenSym directly:
// eigenvalues descending, eigenvectors as columns in the same order.
func lsdrEig(t *testing.T, a mat.Symmetric) ([]float64, *mat.Dense) {
	t.Helper()
	var e mat.EigenSym
	if !e.Factorize(a, true) {
		t.Fatal("reference eigen-decomposition did not converge")
	}
	vals := e.Values(nil)
	var v mat.Dense
	e.VectorsTo(&v)
	n := len(vals)
	out := mat.NewDense(n, n, nil)
	desc := make([]float64, n)
	for k := range n {
		desc[k] = vals[n-1-k]
		out.SetCol(k, mat.Col(nil, n-1-k, &v))
	}
	return desc, out
}

// lsdrExplicit is the q×q matrix of each method built with its N×N
// matrices, as the paper writes it (seed 001 Table 1 and eq. 8).
func lsdrExplicit(t *testing.T, id string, in Input, gamma, lambda float64) *mat.SymDense {
	z := lsdrZ(in.Y)
	n, _ := in.X.Dims()
	switch id {
	case "plst":
		return lsdrSandwich(z, lsdrIdentity(n))
	case "cplst":
		return lsdrSandwich(z, lsdrHat(t, in.X, lambda))
	case "occa":
		var a mat.Dense
		a.Sub(lsdrHat(t, in.X, lambda), lsdrIdentity(n))
		return lsdrSandwich(z, &a)
	case "kcplst":
		k := lsdrKernel(in.X, gamma)
		r := mat.DenseCopyOf(k)
		for i := range n {
			r.Set(i, i, r.At(i, i)+lambda)
		}
		q := lsdrInverse(t, r)
		var kq, qk, qkkq, a mat.Dense
		kq.Mul(k, q)
		qk.Mul(q, k)
		qkkq.Mul(&qk, &kq)
		a.Scale(2, &kq)
		a.Sub(&a, &qkkq)
		return lsdrSandwich(z, &a)
	}
	t.Fatalf("no explicit form for %s", id)
	return nil
}

func lsdrIdentity(n int) *mat.Dense {
	a := mat.NewDense(n, n, nil)
	for i := range n {
		a.Set(i, i, 1)
	}
	return a
}

// lsdrScaleGamma is the scale rule written out: 1/(D·mean population
// variance of the features).
func lsdrScaleGamma(x *mat.Dense) float64 {
	n, d := x.Dims()
	total := 0.0
	for j := range d {
		mean := 0.0
		for i := range n {
			mean += x.At(i, j)
		}
		mean /= float64(n)
		for i := range n {
			v := x.At(i, j) - mean
			total += v * v / float64(n)
		}
	}
	return 1 / (float64(d) * total / float64(d))
}

func lsdrFit(t *testing.T, id string, in Input, p Params) *Model {
	t.Helper()
	m, err := Fit(context.Background(), id, in, p, nil)
	if err != nil {
		t.Fatalf("Fit(%s): %v", id, err)
	}
	return m
}

// TestLSDRExplicitForms compares every method with its q×q matrix built
// from the explicit N×N hat, kernel and Q matrices of the paper: the
// eigenvalues to 1e-9 of the largest one in magnitude, the eigenvectors up
// to sign where the eigenvalue is separated from its neighbours.
func TestLSDRExplicitForms(t *testing.T) {
	cases := []struct {
		name          string
		id            string
		n, d, q       int
		gamma, lambda *float64
	}{
		{"plst", "plst", 40, 6, 5, nil, nil},
		{"cplst default lambda", "cplst", 40, 6, 5, nil, nil},
		{"cplst lambda 2.5", "cplst", 40, 6, 5, nil, Float(2.5)},
		{"cplst more labels than features", "cplst", 40, 3, 5, nil, Float(0.5)},
		{"occa default lambda", "occa", 40, 6, 5, nil, nil},
		{"occa lambda 3", "occa", 40, 6, 5, nil, Float(3)},
		{"kcplst given gamma", "kcplst", 40, 6, 5, Float(0.3), Float(0.5)},
		{"kcplst defaults", "kcplst", 40, 6, 5, nil, nil},
		{"kcplst several blocks", "kcplst", 300, 4, 5, Float(0.2), Float(0.1)},
	}
	for ci, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := lsdrData(rand.New(rand.NewPCG(1, uint64(ci))), c.n, c.d, c.q)
			p := Params{D: 1, Gamma: c.gamma, Lambda: c.lambda, MaxDim: MaxDimAll} // the whole spectrum
			m := lsdrFit(t, c.id, in, p)
			lambda, gamma := DefaultLambda, 0.0
			if c.lambda != nil {
				lambda = *c.lambda
			}
			if got := *m.Params.Lambda; got != lambda {
				t.Errorf("Params.Lambda: got %v, want %v", got, lambda)
			}
			if c.id == "kcplst" {
				gamma = lsdrScaleGamma(in.X)
				if c.gamma != nil {
					gamma = *c.gamma
				}
				if got := *m.Params.Gamma; math.Abs(got-gamma) > 1e-12*gamma {
					t.Errorf("Params.Gamma: got %v, want %v", got, gamma)
				}
			}
			want, vecs := lsdrEig(t, lsdrExplicit(t, c.id, in, gamma, lambda))
			if len(m.Eigenvalues) != c.q {
				t.Fatalf("got %d eigenvalues, want %d", len(m.Eigenvalues), c.q)
			}
			scale := max(math.Abs(want[0]), math.Abs(want[c.q-1]))
			for k := range c.q {
				if d := math.Abs(m.Eigenvalues[k] - want[k]); d > 1e-9*scale {
					t.Errorf("eigenvalue %d: got %.15g, want %.15g", k, m.Eigenvalues[k], want[k])
				}
			}
			compared := 0
			for k := range c.q {
				gap := math.Inf(1)
				if k > 0 {
					gap = want[k-1] - want[k]
				}
				if k < c.q-1 {
					gap = min(gap, want[k]-want[k+1])
				}
				if gap < 1e-6*scale {
					continue
				}
				compared++
				dot := mat.Dot(m.Basis.ColView(k), vecs.ColView(k))
				if math.Abs(math.Abs(dot)-1) > 1e-8 {
					t.Errorf("eigenvector %d: got |cos| = %.12f with the explicit one, want 1", k, math.Abs(dot))
				}
			}
			if want := min(c.d, c.q) - 1; compared < want {
				t.Errorf("got %d eigenvectors with separated eigenvalues to compare, want at least %d", compared, want)
			}
		})
	}
}

// lsdrRidge fits the reference code's regressor, ridge regression from
// [X 1] to the codes t with λ on every weight (the bias included), and
// returns its predictions on X.
func lsdrRidge(t *testing.T, x, codes *mat.Dense, lambda float64) *mat.Dense {
	t.Helper()
	n, d := x.Dims()
	xb := mat.NewDense(n, d+1, nil)
	xb.Copy(x)
	for i := range n {
		xb.Set(i, d, 1)
	}
	g := mat.NewSymDense(d+1, nil)
	g.SymOuterK(1, xb.T())
	for i := range d + 1 {
		g.SetSym(i, i, g.At(i, i)+lambda)
	}
	var ch mat.Cholesky
	if !ch.Factorize(g) {
		t.Fatal("ridge normal equations are not positive definite")
	}
	var rhs, w, pred mat.Dense
	rhs.Mul(xb.T(), codes)
	if err := ch.SolveTo(&w, &rhs); err != nil {
		t.Fatalf("ridge solve: %v", err)
	}
	pred.Mul(xb, &w)
	return &pred
}

// TestLSDRFullDimensionSamePredictions: at M = q, V is a rotation of the
// label space, so a linear regressor followed by round-based decoding
// predicts the same labels whatever V is (seed 001 §4.1: PLST and CPLST
// with M = K are binary relevance).
func TestLSDRFullDimensionSamePredictions(t *testing.T) {
	in := lsdrData(rand.New(rand.NewPCG(1, 1)), 200, 8, 6)
	var preds []*mat.Dense
	for _, id := range []string{"plst", "cplst"} {
		m := lsdrFit(t, id, in, Params{D: 6})
		pred, err := m.Decode(lsdrRidge(t, in.X, m.Projected, *m.Params.Lambda))
		if err != nil {
			t.Fatalf("%s Decode: %v", id, err)
		}
		preds = append(preds, pred)
	}
	if !mat.Equal(preds[0], preds[1]) {
		var diff mat.Dense
		diff.Sub(preds[0], preds[1])
		t.Errorf("plst and cplst at M = q: got %v differing labels, want 0", mat.Sum(&diff))
	}
}

// TestLSDRInvariants checks, on every method, what holds whatever the
// data: orthonormal directions with the sign convention, eigenvalues
// descending, the codes, exact decoding at full dimension, the choice of M
// by thr, and d above the rank refused.
func TestLSDRInvariants(t *testing.T) {
	in := lsdrData(rand.New(rand.NewPCG(1, 1)), 60, 7, 5)
	const q = 5
	for _, id := range lsdrMethods {
		t.Run(id, func(t *testing.T) {
			m := lsdrFit(t, id, in, Params{D: q})
			if m.Space != LabelSpace || m.LabelCoding != "pm1" || m.Method != id {
				t.Errorf("got Space %q, LabelCoding %q, Method %q; want label, pm1, %s", m.Space, m.LabelCoding, m.Method, id)
			}
			if r, c := m.Basis.Dims(); r != q || c != q {
				t.Fatalf("Basis: got %d×%d, want %d×%d", r, c, q, q)
			}
			var vtv mat.Dense
			vtv.Mul(m.Basis.T(), m.Basis)
			if !mat.EqualApprox(&vtv, lsdrIdentity(q), 1e-12) {
				t.Errorf("BasisᵀBasis: got %v, want I", mat.Formatted(&vtv))
			}
			for k := range q {
				col := mat.Col(nil, k, m.Basis)
				big := 0
				for i, v := range col {
					if math.Abs(v) > math.Abs(col[big]) {
						big = i
					}
				}
				if col[big] < 0 {
					t.Errorf("direction %d: got largest entry %v, want it positive", k, col[big])
				}
			}
			if !slices.IsSortedFunc(m.Eigenvalues, func(a, b float64) int { return cmp.Compare(b, a) }) {
				t.Errorf("eigenvalues: got %v, want descending", m.Eigenvalues)
			}
			for j := range q {
				want := 2*mat.Sum(in.Y.ColView(j))/60 - 1
				if math.Abs(m.Means[j]-want) > 1e-15 {
					t.Errorf("Means[%d]: got %v, want %v", j, m.Means[j], want)
				}
			}
			tr, err := m.Transform(in.Y)
			if err != nil {
				t.Fatal(err)
			}
			if !mat.EqualApprox(tr, m.Projected, 1e-12) {
				t.Errorf("Projected differs from Transform(Y) by %g, want 0", lsdrMaxDiff(tr, m.Projected))
			}
			var zv mat.Dense
			zv.Mul(lsdrZ(in.Y), m.Basis)
			if !mat.EqualApprox(&zv, m.Projected, 1e-12) {
				t.Errorf("Projected differs from Z·V by %g, want 0", lsdrMaxDiff(&zv, m.Projected))
			}
			dec, err := m.Decode(m.Projected)
			if err != nil {
				t.Fatal(err)
			}
			if !mat.Equal(dec, in.Y) {
				t.Errorf("Decode(Projected) at M = q: got labels different from Y, want Y")
			}
			wantEnergy := 1.0
			if id == "occa" {
				wantEnergy = 0
			}
			if math.Abs(m.Energy-wantEnergy) > 1e-12 {
				t.Errorf("Energy at M = q: got %v, want %v", m.Energy, wantEnergy)
			}

			_, err = Fit(context.Background(), id, in, Params{D: q + 1}, nil)
			var e *Error
			if !errors.As(err, &e) || e.Kind != Unservable || e.Param != ParamD || e.Max != m.Rank || e.Max != q {
				t.Errorf("d = q+1: got %#v, want an Unservable *Error on d with Max = rank = %d", err, q)
			}

			if id == "occa" {
				return
			}
			for _, thr := range []float64{0.2, 0.5, 0.8, 0.95, 0.999, 1} {
				mt := lsdrFit(t, id, in, Params{Thr: thr})
				total := 0.0
				for _, v := range mt.Eigenvalues {
					total += max(v, 0)
				}
				want, kept := 0, 0.0
				for want < len(mt.Eigenvalues) && kept < thr*total*(1-1e-12) {
					kept += max(mt.Eigenvalues[want], 0)
					want++
				}
				if mt.Dim != want {
					t.Errorf("thr = %v: got M = %d, want %d (eigenvalues %v)", thr, mt.Dim, want, mt.Eigenvalues)
				}
				if mt.Energy < thr*(1-1e-12) {
					t.Errorf("thr = %v: got Energy %v, want at least thr", thr, mt.Energy)
				}
				if r, c := mt.Projected.Dims(); r != 60 || c != mt.Dim {
					t.Errorf("thr = %v: Projected got %d×%d, want 60×%d", thr, r, c, mt.Dim)
				}
			}
		})
	}
}

func lsdrMaxDiff(a, b mat.Matrix) float64 {
	var d mat.Dense
	d.Sub(a, b)
	return mat.Norm(&d, math.Inf(1))
}

// TestLSDROCCADefaultDim: occa takes no thr; without d it keeps every
// direction and says so.
func TestLSDROCCADefaultDim(t *testing.T) {
	in := lsdrData(rand.New(rand.NewPCG(1, 1)), 50, 6, 4)
	m := lsdrFit(t, "occa", in, Params{})
	if m.Dim != 4 || m.Rank != 4 || m.RankOf != "number of labels" {
		t.Errorf("got Dim %d, Rank %d (%s); want 4, 4 (number of labels)", m.Dim, m.Rank, m.RankOf)
	}
	if len(m.Notes) == 0 {
		t.Errorf("got no note, want one saying M defaults to q")
	}
	for _, v := range m.Eigenvalues {
		if v > 0 {
			t.Errorf("eigenvalues: got %v, want all ≤ 0", m.Eigenvalues)
			break
		}
	}
	m2 := lsdrFit(t, "occa", in, Params{D: 2})
	if m2.Dim != 2 || m2.Energy != 0 {
		t.Errorf("d = 2: got Dim %d, Energy %v; want 2, 0", m2.Dim, m2.Energy)
	}
}

// TestLSDRValidation checks the refusals: parameters out of range, a
// parameter the method does not take, too many rows for kcplst.
func TestLSDRValidation(t *testing.T) {
	in := lsdrData(rand.New(rand.NewPCG(1, 1)), 30, 4, 3)
	cases := []struct {
		name  string
		id    string
		p     Params
		kind  ErrorKind
		param string
		msg   string
	}{
		{"plst lambda 0", "plst", Params{Lambda: Float(0)}, Invalid, ParamLambda, "greater than 0"},
		{"plst lambda -1", "plst", Params{Lambda: Float(-1)}, Invalid, ParamLambda, "greater than 0"},
		{"cplst lambda 0", "cplst", Params{Lambda: Float(0)}, Invalid, ParamLambda, "greater than 0"},
		{"occa lambda -0.1", "occa", Params{Lambda: Float(-0.1)}, Invalid, ParamLambda, "greater than 0"},
		{"kcplst lambda 0", "kcplst", Params{Lambda: Float(0)}, Invalid, ParamLambda, "greater than 0"},
		{"kcplst gamma 0", "kcplst", Params{Gamma: Float(0)}, Invalid, ParamGamma, "greater than 0"},
		{"kcplst gamma -2", "kcplst", Params{Gamma: Float(-2)}, Invalid, ParamGamma, "greater than 0"},
		{"occa thr", "occa", Params{Thr: 0.9}, Invalid, ParamThr, "does not take"},
		{"plst gamma", "plst", Params{Gamma: Float(1)}, Invalid, ParamGamma, "does not take"},
		{"cplst lambda NaN", "cplst", Params{Lambda: Float(math.NaN())}, Invalid, ParamLambda, "finite"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Fit(context.Background(), c.id, in, c.p, nil)
			var e *Error
			if !errors.As(err, &e) || e.Kind != c.kind || e.Param != c.param || !strings.Contains(e.Msg, c.msg) {
				t.Errorf("got %v, want an *Error of kind %d on %s saying %q", err, c.kind, c.param, c.msg)
			}
		})
	}

	t.Run("kcplst above maxNKCPLST", func(t *testing.T) {
		n := maxNKCPLST + 1
		x := mat.NewDense(n, 1, nil)
		y := mat.NewDense(n, 2, nil)
		for i := range n {
			x.Set(i, 0, float64(i%7))
			y.Set(i, i%2, 1)
		}
		called := false
		_, err := Fit(context.Background(), "kcplst", Input{X: x, Y: y}, Params{}, func(float64, string) { called = true })
		var e *Error
		if !errors.As(err, &e) || e.Kind != Unservable || e.Max != maxNKCPLST {
			t.Errorf("got %v, want an Unservable *Error with Max %d", err, maxNKCPLST)
		}
		if called {
			t.Errorf("got progress reports, want the refusal before any work")
		}
	})
}

// TestLSDRCancel: a context canceled before the fit, or at any progress
// report during it, ends the fit with context.Canceled.
func TestLSDRCancel(t *testing.T) {
	in := lsdrData(rand.New(rand.NewPCG(1, 1)), 600, 5, 4)
	for _, id := range lsdrMethods {
		t.Run(id, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			if _, err := Fit(ctx, id, in, Params{}, nil); !errors.Is(err, context.Canceled) {
				t.Errorf("canceled before: got %v, want context.Canceled", err)
			}
			var reports []float64
			if _, err := Fit(context.Background(), id, in, Params{}, func(f float64, _ string) { reports = append(reports, f) }); err != nil {
				t.Fatal(err)
			}
			if !slices.IsSorted(reports) || reports[0] < 0 || reports[len(reports)-1] != 1 {
				t.Errorf("progress: got %v, want non-decreasing from ≥ 0 to 1", reports)
			}
			// The last report is Fit's own "done", after the fit.
			for k := range len(reports) - 1 {
				ctx, cancel := context.WithCancel(context.Background())
				calls := 0
				_, err := Fit(ctx, id, in, Params{}, func(float64, string) {
					if calls == k {
						cancel()
					}
					calls++
				})
				cancel()
				if !errors.Is(err, context.Canceled) {
					t.Errorf("canceled at report %d of %d: got %v, want context.Canceled", k+1, len(reports), err)
				}
			}
		})
	}
}

// TestLSDRCholeskyInPlace checks the blocked factorisation on a matrix of
// several blocks: UᵀU = A, and a matrix that is not positive definite is
// refused on lambda.
func TestLSDRCholeskyInPlace(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	const n = 2*kernelBlock + 37
	b := mat.NewDense(n, n, nil)
	for i := range n {
		for j := range n {
			b.Set(i, j, rng.NormFloat64())
		}
	}
	a := mat.NewSymDense(n, nil)
	a.SymOuterK(1, b)
	for i := range n {
		a.SetSym(i, i, a.At(i, i)+1)
	}
	want := mat.NewSymDense(n, nil)
	want.CopySym(a)
	u, err := choleskyInPlace(context.Background(), a, stage{})
	if err != nil {
		t.Fatal(err)
	}
	ut := mat.NewTriDense(n, mat.Upper, nil)
	ut.SetRawTriangular(u)
	var got mat.Dense
	got.Mul(ut.T(), ut)
	if d := lsdrMaxDiff(&got, want); d > 1e-9*mat.Norm(want, math.Inf(1)) {
		t.Errorf("UᵀU − A: got max row sum %g, want ≈ 0", d)
	}

	bad := mat.NewSymDense(n, nil)
	for i := range n {
		bad.SetSym(i, i, 1)
	}
	bad.SetSym(n-1, n-1, -1)
	_, err = choleskyInPlace(context.Background(), bad, stage{})
	var e *Error
	if !errors.As(err, &e) || e.Kind != Unservable || e.Param != ParamLambda {
		t.Errorf("indefinite matrix: got %v, want an Unservable *Error on lambda", err)
	}
}

// lsdrSharedFile opens a file of the shared data sets, or skips the test
// when they are not beside the project (fails under MLDR_REQUIRE_SHARED=1).
func lsdrSharedFile(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		if os.Getenv("MLDR_REQUIRE_SHARED") == "1" {
			t.Fatalf("%s: %v (MLDR_REQUIRE_SHARED=1)", path, err)
		}
		t.Skipf("%s is missing: %v", path, err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// lsdrErrors returns the encoding error ‖Z − ZVᵀV‖²_F and, for the
// reference ridge regressor r on the codes, the prediction error
// ‖r(X) − ZVᵀ‖²_F and the training Hamming loss of round-based decoding.
func lsdrErrors(t *testing.T, m *Model, in Input) (enc, pred, hamming float64) {
	t.Helper()
	z := lsdrZ(in.Y)
	p := m.P()
	var rec, res mat.Dense
	rec.Mul(m.Projected, p.T())
	res.Sub(z, &rec)
	enc = mat.Norm(&res, 2) * mat.Norm(&res, 2)
	r := lsdrRidge(t, in.X, m.Projected, *m.Params.Lambda)
	var pr mat.Dense
	pr.Sub(r, m.Projected)
	pred = mat.Norm(&pr, 2) * mat.Norm(&pr, 2)
	dec, err := m.Decode(r)
	if err != nil {
		t.Fatal(err)
	}
	var diff mat.Dense
	diff.Sub(dec, in.Y)
	n, q := in.Y.Dims()
	hamming = mat.Norm(&diff, 2) * mat.Norm(&diff, 2) / float64(n*q)
	return enc, pred, hamming
}

// TestLSDRYeast fits plst and cplst on yeast (2417×103, 14 labels): at
// M = 14 the directions span the label space (encoding error 0) and both
// give the same predictions; at M = 3 CPLST's training bound, prediction
// plus encoding error of eq. (1), is at most PLST's (seed 001 §3.1,
// Figure 1d).
func TestLSDRYeast(t *testing.T) {
	f := lsdrSharedFile(t, "../../../shared/datasets/yeast/yeast.csv")
	ds, err := dataset.Load(f, dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	in := Input{X: ds.X, Y: ds.Y}
	_, q := in.Y.Dims()
	if q != 14 {
		t.Fatalf("yeast: got %d labels, want 14", q)
	}
	z := lsdrZ(in.Y)
	zz := mat.Norm(z, 2) * mat.Norm(z, 2)
	var full []*mat.Dense
	for _, id := range []string{"plst", "cplst"} {
		m := lsdrFit(t, id, in, Params{D: 14})
		var vtv mat.Dense
		vtv.Mul(m.Basis.T(), m.Basis)
		if !mat.EqualApprox(&vtv, lsdrIdentity(14), 1e-12) {
			t.Errorf("%s: BasisᵀBasis got max deviation %g from I, want 0", id, lsdrMaxDiff(&vtv, lsdrIdentity(14)))
		}
		enc, _, _ := lsdrErrors(t, m, in)
		if enc > 1e-20*zz {
			t.Errorf("%s at M = 14: got encoding error %g (‖Z‖² = %g), want 0", id, enc, zz)
		}
		pred, err := m.Decode(lsdrRidge(t, in.X, m.Projected, *m.Params.Lambda))
		if err != nil {
			t.Fatal(err)
		}
		full = append(full, pred)
	}
	if !mat.Equal(full[0], full[1]) {
		t.Errorf("plst and cplst at M = 14: got different predictions, want the same")
	}

	bound := map[string]float64{}
	for _, id := range []string{"plst", "cplst"} {
		m := lsdrFit(t, id, in, Params{D: 3})
		enc, pred, ham := lsdrErrors(t, m, in)
		bound[id] = enc + pred
		t.Logf("%s M = 3: encoding %.2f, prediction %.2f, sum %.2f, training Hamming loss %.4f", id, enc, pred, enc+pred, ham)
	}
	if bound["cplst"] > bound["plst"] {
		t.Errorf("M = 3: got CPLST bound %.4f, want at most PLST's %.4f", bound["cplst"], bound["plst"])
	}
}

// TestKernelCodes: kcplst's kernel ridge regressor, against eq. 7 computed
// with explicit matrices: codes = k(x)ᵀ(λI + K)⁻¹ZV_M.
func TestKernelCodes(t *testing.T) {
	in := tuMultiLabel(51, 60, 4, 5)
	m := fit(t, "kcplst", in, Params{D: 3, Gamma: Float(0.3), Lambda: Float(0.5)})
	n, d := in.X.Dims()
	kern := func(a, b []float64) float64 {
		s := 0.0
		for i := range a {
			s += (a[i] - b[i]) * (a[i] - b[i])
		}
		return math.Exp(-0.3 * s)
	}
	k := mat.NewDense(n, n, nil)
	for i := range n {
		for j := range n {
			k.Set(i, j, kern(in.X.RawRowView(i), in.X.RawRowView(j)))
		}
		k.Set(i, i, k.At(i, i)+0.5)
	}
	var inv mat.Dense
	if err := inv.Inverse(k); err != nil {
		t.Fatal(err)
	}
	z := mat.DenseCopyOf(in.Y)
	z.Apply(func(_, _ int, v float64) float64 { return 2*v - 1 }, z)
	z = tuCentred(z)
	test := mat.NewDense(7, d, nil)
	for i := range 7 {
		for j := range d {
			test.Set(i, j, in.X.At(i*3, j)+0.1*float64(j))
		}
	}
	kx := mat.NewDense(7, n, nil)
	for i := range 7 {
		for j := range n {
			kx.Set(i, j, kern(test.RawRowView(i), in.X.RawRowView(j)))
		}
	}
	var a, b, want mat.Dense
	a.Mul(kx, &inv)
	b.Mul(&a, z)
	want.Mul(&b, m.P())
	got, err := m.KernelCodes(context.Background(), in.X, test)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.EqualApprox(got, &want, 1e-9) {
		t.Errorf("KernelCodes:\n got %v\nwant %v", mat.Formatted(got), mat.Formatted(&want))
	}
	if _, err := fit(t, "plst", in, Params{D: 2}).KernelCodes(context.Background(), in.X, test); err == nil {
		t.Error("plst has no kernel regressor: got no error")
	}
}
