package analysis

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// lppInput is seeded synthetic data: n rows around four cluster centres in
// d features, every feature shifted by its own offset so that centring
// matters, and one all-zero label column (lpp ignores the labels).
func lppInput(rng *rand.Rand, n, d int) Input {
	centres := mat.NewDense(4, d, nil)
	for c := range 4 {
		for j := range d {
			centres.Set(c, j, 3*rng.NormFloat64())
		}
	}
	x := mat.NewDense(n, d, nil)
	for i := range n {
		c := rng.IntN(4)
		for j := range d {
			x.Set(i, j, 5*float64(j)+centres.At(c, j)+rng.NormFloat64())
		}
	}
	return Input{X: x, Y: mat.NewDense(n, 1, nil)}
}

// lppTestDist is ‖a − b‖², summed in order with each square rounded: the
// distance the method defines neighbours by.
func lppTestDist(a, b []float64) float64 {
	s := 0.0
	for t := range a {
		d := a[t] - b[t]
		s += float64(d * d)
	}
	return s
}

// lppBrute orders, for every row, all the other rows by (distance, index),
// from all N² distances.
func lppBrute(x *mat.Dense) (order [][]int, dist [][]float64) {
	n, _ := x.Dims()
	order, dist = make([][]int, n), make([][]float64, n)
	for i := range n {
		type pair struct {
			d float64
			j int
		}
		var ps []pair
		for j := range n {
			if j != i {
				ps = append(ps, pair{lppTestDist(x.RawRowView(i), x.RawRowView(j)), j})
			}
		}
		slices.SortFunc(ps, func(p, q pair) int { return cmp.Or(cmp.Compare(p.d, q.d), cmp.Compare(p.j, q.j)) })
		for _, p := range ps {
			order[i] = append(order[i], p.j)
			dist[i] = append(dist[i], p.d)
		}
	}
	return order, dist
}

// lppTestCentre is x with its column means removed.
func lppTestCentre(x *mat.Dense) *mat.Dense {
	n, d := x.Dims()
	xc := mat.DenseCopyOf(x)
	for j := range d {
		m := mat.Sum(x.ColView(j)) / float64(n)
		for i := range n {
			xc.Set(i, j, x.At(i, j)-m)
		}
	}
	return xc
}

// lppDense is the method's problem built the obvious way, with N×N
// matrices, from the brute-force neighbours.
type lppDense struct {
	gamma float64
	w, dw *mat.Dense    // W and D_W, N×N
	a, bw *mat.SymDense // XcᵀWXc and XcᵀD_WXc, D×D
	lap   *mat.SymDense // XcᵀLXc, L = D_W − W
}

func lppDenseProblem(x *mat.Dense, k int) lppDense {
	n, _ := x.Dims()
	order, dist := lppBrute(x)
	sum := 0.0
	for i := range n {
		for q := range k {
			sum += dist[i][q]
		}
	}
	gamma := float64(n*k) / sum
	w := mat.NewDense(n, n, nil)
	for i := range n {
		for q, j := range order[i][:k] {
			v := math.Exp(-gamma * dist[i][q])
			w.Set(i, j, v)
			w.Set(j, i, v)
		}
	}
	dw := mat.NewDense(n, n, nil)
	for i := range n {
		dw.Set(i, i, mat.Sum(w.RowView(i)))
	}
	xc := lppTestCentre(x)
	quad := func(m *mat.Dense) *mat.SymDense {
		var t, r mat.Dense
		t.Mul(m, xc)
		r.Mul(xc.T(), &t)
		_, d := r.Dims()
		s := mat.NewSymDense(d, nil)
		for i := range d {
			for j := i; j < d; j++ {
				s.SetSym(i, j, (r.At(i, j)+r.At(j, i))/2)
			}
		}
		return s
	}
	var lap mat.Dense
	lap.Sub(dw, w)
	return lppDense{gamma: gamma, w: w, dw: dw, a: quad(w), bw: quad(dw), lap: quad(&lap)}
}

// lppSolve solves A p = v B p with gonum directly: B = LLᵀ, the symmetric
// eigenvectors U of L⁻¹AL⁻ᵀ, P = L⁻ᵀU. Values are descending.
func lppSolve(t *testing.T, a, b mat.Symmetric) ([]float64, *mat.Dense) {
	t.Helper()
	var ch mat.Cholesky
	if !ch.Factorize(b) {
		t.Fatal("got a right-hand matrix that is not positive definite, want one that is")
	}
	var l, linv mat.TriDense
	ch.LTo(&l)
	if err := linv.InverseTri(&l); err != nil {
		t.Fatal(err)
	}
	var c, tmp mat.Dense
	tmp.Mul(&linv, a)
	c.Mul(&tmp, linv.T())
	d := a.SymmetricDim()
	cs := mat.NewSymDense(d, nil)
	for i := range d {
		for j := i; j < d; j++ {
			cs.SetSym(i, j, (c.At(i, j)+c.At(j, i))/2)
		}
	}
	var es mat.EigenSym
	if !es.Factorize(cs, true) {
		t.Fatal("got no eigen-decomposition, want one")
	}
	asc := es.Values(nil)
	var u, p mat.Dense
	es.VectorsTo(&u)
	p.Mul(linv.T(), &u)
	vals := make([]float64, d)
	vecs := mat.NewDense(d, d, nil)
	for q := range d {
		vals[q] = asc[d-1-q]
		vecs.SetCol(q, mat.Col(nil, d-1-q, &p))
	}
	return vals, vecs
}

// lppSameVectors compares the columns of got and want up to sign.
func lppSameVectors(t *testing.T, got, want *mat.Dense, tol float64) {
	t.Helper()
	_, c := want.Dims()
	for q := range c {
		g, w := got.ColView(q), want.ColView(q)
		s := 1.0
		if mat.Dot(g, w) < 0 {
			s = -1
		}
		var diff mat.VecDense
		diff.AddScaledVec(g, -s, w)
		if e := mat.Norm(&diff, 2) / mat.Norm(w, 2); e > tol {
			t.Errorf("direction %d: got relative difference %.3g from the reference, want at most %.3g", q+1, e, tol)
		}
	}
}

func lppClose(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol*math.Abs(want)
}

func TestLPPAgainstDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	in := lppInput(rng, 60, 6)
	m, err := Fit(context.Background(), "lpp", in, Params{Normalize: NormalizeB}, nil)
	if err != nil {
		t.Fatalf("got error %v, want none", err)
	}
	ref := lppDenseProblem(in.X, DefaultK)
	if m.Params.K != DefaultK {
		t.Errorf("got k = %d, want %d", m.Params.K, DefaultK)
	}
	if !lppClose(*m.Params.Gamma, ref.gamma, 1e-12) {
		t.Errorf("got gamma %v, want %v", *m.Params.Gamma, ref.gamma)
	}
	eps := 1e-4 * mat.Trace(ref.bw) / 6
	if !lppClose(*m.Params.Ridge, eps, 1e-12) {
		t.Errorf("got ridge %v, want %v", *m.Params.Ridge, eps)
	}
	b := mat.NewSymDense(6, nil)
	b.CopySym(ref.bw)
	for i := range 6 {
		b.SetSym(i, i, b.At(i, i)+eps)
	}

	t.Run("generalised problem", func(t *testing.T) {
		vals, vecs := lppSolve(t, ref.a, b)
		for q, want := range vals {
			if math.Abs(m.Eigenvalues[q]-want) > 1e-9*math.Abs(vals[0]) {
				t.Errorf("eigenvalue %d: got %v, want %v", q+1, m.Eigenvalues[q], want)
			}
		}
		lppSameVectors(t, m.Basis, vecs, 1e-7)
	})

	t.Run("laplacian form", func(t *testing.T) {
		// XcᵀLXc a = λ XcᵀD_WXc a, smallest λ first, is the paper's
		// problem; with ridge 0 the fit's μ must be 1 − λ.
		m0, err := Fit(context.Background(), "lpp", in, Params{Ridge: Float(0), Normalize: NormalizeB}, nil)
		if err != nil {
			t.Fatalf("got error %v, want none", err)
		}
		desc, vecs := lppSolve(t, ref.lap, ref.bw)
		asc := mat.NewDense(6, 6, nil)
		for q := range 6 {
			lambda := desc[5-q]
			if got := 1 - m0.Eigenvalues[q]; math.Abs(got-lambda) > 1e-9 {
				t.Errorf("λ_%d: got 1 − μ = %v, want %v", q+1, got, lambda)
			}
			asc.SetCol(q, mat.Col(nil, 5-q, vecs))
		}
		lppSameVectors(t, m0.Basis, asc, 1e-7)
	})
}

func TestLPPInvariants(t *testing.T) {
	const n, d = 600, 70 // three search blocks, the last one partial
	rng := rand.New(rand.NewPCG(1, 1))
	in := lppInput(rng, n, d)
	ctx := context.Background()
	m, err := Fit(ctx, "lpp", in, Params{MaxDim: MaxDimAll}, nil) // every direction
	if err != nil {
		t.Fatalf("got error %v, want none", err)
	}

	t.Run("B-orthonormal", func(t *testing.T) {
		m, err := Fit(ctx, "lpp", in, Params{Normalize: NormalizeB, MaxDim: MaxDimAll}, nil)
		if err != nil {
			t.Fatalf("got error %v, want none", err)
		}
		ref := lppDenseProblem(in.X, DefaultK)
		b := mat.NewSymDense(d, nil)
		b.CopySym(ref.bw)
		for i := range d {
			b.SetSym(i, i, b.At(i, i)+*m.Params.Ridge)
		}
		var bp, ptbp mat.Dense
		bp.Mul(b, m.Basis)
		ptbp.Mul(m.Basis.T(), &bp)
		for i := range d {
			for j := range d {
				want := 0.0
				if i == j {
					want = 1
				}
				if got := ptbp.At(i, j); math.Abs(got-want) > 1e-8 {
					t.Fatalf("(PᵀBP)[%d,%d]: got %v, want %v", i, j, got, want)
				}
			}
		}
	})

	t.Run("eigenvalues and rank", func(t *testing.T) {
		if !slices.IsSortedFunc(m.Eigenvalues, func(a, b float64) int { return cmp.Compare(b, a) }) {
			t.Errorf("got eigenvalues %v, want them descending", m.Eigenvalues)
		}
		if got := len(m.Eigenvalues); got != d {
			t.Errorf("got %d eigenvalues, want %d", got, d)
		}
		want := 0
		for _, v := range m.Eigenvalues {
			if v > rankTol*m.Eigenvalues[0] {
				want++
			}
		}
		if m.Rank != want || m.Rank < 1 {
			t.Errorf("got rank %d, want %d (positive eigenvalues)", m.Rank, want)
		}
		if m.Eigenvalues[0] > 1 || m.Eigenvalues[d-1] < -1 {
			t.Errorf("got eigenvalues from %v to %v, want them in [−1, 1]", m.Eigenvalues[d-1], m.Eigenvalues[0])
		}
	})

	t.Run("projected is transform", func(t *testing.T) {
		tr, err := m.Transform(in.X)
		if err != nil {
			t.Fatalf("got error %v, want none", err)
		}
		if !mat.EqualApprox(tr, m.Projected, 1e-12) {
			t.Errorf("got Transform(X) different from Projected, want them equal")
		}
		if r, c := m.Projected.Dims(); r != n || c != m.Dim {
			t.Errorf("got Projected %d×%d, want %d×%d", r, c, n, m.Dim)
		}
	})

	t.Run("thr", func(t *testing.T) {
		for _, thr := range []float64{0.3, 0.5, 0.9, 1} {
			mt, err := Fit(ctx, "lpp", in, Params{Thr: thr}, nil)
			if err != nil {
				t.Fatalf("thr %v: got error %v, want none", thr, err)
			}
			total, kept, want := 0.0, 0.0, 0
			for _, v := range mt.Eigenvalues {
				total += max(v, 0)
			}
			for q, v := range mt.Eigenvalues {
				kept += max(v, 0)
				if kept >= thr*total*(1-1e-12) {
					want = q + 1
					break
				}
			}
			if mt.Dim != min(want, mt.Rank) {
				t.Errorf("thr %v: got d = %d, want %d", thr, mt.Dim, want)
			}
			if mt.Energy < thr*(1-1e-12) {
				t.Errorf("thr %v: got energy %v, want at least %v", thr, mt.Energy, thr)
			}
		}
	})

	t.Run("deterministic", func(t *testing.T) {
		same := func(what string, a, b *Model) {
			t.Helper()
			if !slices.Equal(a.Eigenvalues, b.Eigenvalues) || !mat.Equal(a.Basis, b.Basis) || !mat.Equal(a.Projected, b.Projected) {
				t.Errorf("%s: got different models, want identical ones", what)
			}
		}
		again, err := Fit(ctx, "lpp", in, Params{MaxDim: MaxDimAll}, nil)
		if err != nil {
			t.Fatalf("got error %v, want none", err)
		}
		same("second fit", m, again)
		prev := runtime.GOMAXPROCS(1)
		one, err := Fit(ctx, "lpp", in, Params{MaxDim: MaxDimAll}, nil)
		runtime.GOMAXPROCS(max(4, prev))
		many, err2 := Fit(ctx, "lpp", in, Params{MaxDim: MaxDimAll}, nil)
		runtime.GOMAXPROCS(prev)
		if err != nil || err2 != nil {
			t.Fatalf("got errors %v, %v, want none", err, err2)
		}
		same("GOMAXPROCS 1 against many", one, many)
		same("GOMAXPROCS 1 against the first fit", one, m)
	})
}

func TestLPPRefusals(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	in20 := lppInput(rng, 20, 3)
	in8 := lppInput(rng, 8, 3)
	huge := lppInput(rng, 20, 3)
	huge.X = mat.DenseCopyOf(huge.X)
	huge.X.Set(4, 1, 1e200)
	for _, c := range []struct {
		name  string
		in    Input
		p     Params
		kind  ErrorKind
		param string
		max   int
		late  bool // found in the data after centring, not before any work
	}{
		{"k = N", in20, Params{K: 20}, Unservable, ParamK, 19, false},
		{"k > N", in20, Params{K: 25}, Unservable, ParamK, 19, false},
		{"default k ≥ N", in8, Params{}, Unservable, ParamK, 7, false},
		{"gamma 0", in20, Params{Gamma: Float(0)}, Invalid, ParamGamma, 0, false},
		{"gamma negative", in20, Params{Gamma: Float(-1)}, Invalid, ParamGamma, 0, false},
		{"ridge negative", in20, Params{Ridge: Float(-0.1)}, Invalid, ParamRidge, 0, false},
		{"values too large to square", huge, Params{}, Unservable, "", 0, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			called := false
			_, err := Fit(context.Background(), "lpp", c.in, c.p, func(float64, string) { called = true })
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("got error %v, want an *Error", err)
			}
			if e.Kind != c.kind || e.Param != c.param || e.Max != c.max {
				t.Errorf("got kind %d, param %q, max %d, want %d, %q, %d", e.Kind, e.Param, e.Max, c.kind, c.param, c.max)
			}
			if called && !c.late {
				t.Errorf("got progress reported, want the refusal before any work")
			}
		})
	}

	t.Run("too many rows", func(t *testing.T) {
		n := maxNLPP + 1
		in := Input{X: mat.NewDense(n, 1, nil), Y: mat.NewDense(n, 1, nil)}
		called := false
		_, err := Fit(context.Background(), "lpp", in, Params{}, func(float64, string) { called = true })
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("got error %v, want an *Error", err)
		}
		if e.Kind != Unservable || e.Max != maxNLPP {
			t.Errorf("got kind %d, max %d, want %d, %d", e.Kind, e.Max, Unservable, maxNLPP)
		}
		if called {
			t.Errorf("got progress reported, want the refusal before any work")
		}
	})
}

func TestLPPCanceled(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	in := lppInput(rng, 600, 5)

	t.Run("before", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := Fit(ctx, "lpp", in, Params{}, nil); !errors.Is(err, context.Canceled) {
			t.Errorf("Fit: got error %v, want %v", err, context.Canceled)
		}
		if _, err := fitLPP(ctx, in, Params{}, stage{to: 1}); !errors.Is(err, context.Canceled) {
			t.Errorf("fitLPP: got error %v, want %v", err, context.Canceled)
		}
	})

	for _, phase := range []string{"neighbours", "XᵀWX and XᵀDX"} {
		t.Run("during "+phase, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			calls, after := 0, 0
			_, err := Fit(ctx, "lpp", in, Params{}, func(_ float64, ph string) {
				if ctx.Err() != nil {
					after++
				}
				if ph == phase {
					if calls++; calls == 2 { // after the first block
						cancel()
					}
				}
			})
			if !errors.Is(err, context.Canceled) {
				t.Errorf("got error %v, want %v", err, context.Canceled)
			}
			if calls != 2 || after != 0 {
				t.Errorf("got %d progress calls in %q and %d after cancelling, want 2 and 0", calls, phase, after)
			}
		})
	}
}

// ExampleFit_lpp fits LPP to points along a helix, each joined to its 5
// nearest neighbours. The eigenvalues are μ = 1 − λ of the paper's
// XᵀLX a = λ XᵀDX a: all near 1, since every coordinate varies smoothly
// along the curve.
func ExampleFit_lpp() {
	const n = 200
	x := mat.NewDense(n, 3, nil)
	for i := range n {
		s := float64(i) / 20
		x.SetRow(i, []float64{math.Cos(s), math.Sin(s), 0.1 * s})
	}
	in := Input{X: x, Y: mat.NewDense(n, 1, nil)}
	m, err := Fit(context.Background(), "lpp", in, Params{K: 5}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("k = %d, rank %d, d = %d\n", m.Params.K, m.Rank, m.Dim)
	for _, v := range m.Eigenvalues {
		fmt.Printf("%.4f\n", v)
	}
	// Output:
	// k = 5, rank 3, d = 3
	// 0.9992
	// 0.9973
	// 0.9964
}

func BenchmarkLPP(b *testing.B) {
	for _, size := range []struct{ n, d int }{{5000, 100}} {
		b.Run(fmt.Sprintf("N=%d/D=%d", size.n, size.d), func(b *testing.B) { lppBenchmark(b, size.n, size.d) })
	}
}

// lppBenchmark fits lpp to seeded data of n rows and d features. Besides
// ns/op it reports alloc-B/op, the bytes allocated per fit (TotalAlloc),
// and peak-heap-B, the largest live heap seen at the fit's progress
// checkpoints above the heap before it (HeapAlloc, garbage not yet
// collected included).
func lppBenchmark(b *testing.B, n, d int) {
	in := lppInput(rand.New(rand.NewPCG(1, 1)), n, d)
	ctx := context.Background()
	var before, after, now runtime.MemStats
	peak := uint64(0)
	runtime.GC()
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	for range b.N {
		_, err := Fit(ctx, "lpp", in, Params{}, func(float64, string) {
			runtime.ReadMemStats(&now)
			peak = max(peak, now.HeapAlloc)
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N), "alloc-B/op")
	b.ReportMetric(float64(peak-min(peak, before.HeapAlloc)), "peak-heap-B")
}
