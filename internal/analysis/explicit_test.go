package analysis

import (
	"context"
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// The tests in this file build each method's matrix the long way — with the
// N×N centring matrix H, explicit kernels and graphs, sums over rows — and
// solve it with a reference decomposition (tuEig, tuGenEig), then compare
// with Fit. They are independent of the package's sufficient statistics,
// low-rank forms and Cholesky route.

const explicitTol = 1e-8

func fit(t *testing.T, id string, in Input, p Params) *Model {
	t.Helper()
	m, err := Fit(context.Background(), id, in, p, nil)
	if err != nil {
		t.Fatalf("Fit(%s): %v", id, err)
	}
	return m
}

// tuH is the N×N centring matrix I − 11ᵀ/N.
func tuH(n int) *mat.Dense {
	h := mat.NewDense(n, n, nil)
	for i := range n {
		for j := range n {
			h.Set(i, j, -1/float64(n))
		}
		h.Set(i, i, 1-1/float64(n))
	}
	return h
}

// tuXtHLHX forms XᵀHLHX with explicit N×N matrices.
func tuXtHLHX(x mat.Matrix, l mat.Matrix) *mat.SymDense {
	n, _ := x.Dims()
	h := tuH(n)
	var hx, lhx, out mat.Dense
	hx.Mul(h, x)
	lhx.Mul(l, &hx)
	out.Mul(hx.T(), &lhx)
	return tuSym(&out)
}

func tuCompareEig(t *testing.T, what string, m *Model, vals []float64, vecs mat.Matrix, k int) {
	t.Helper()
	tuCloseValues(t, what, m.Eigenvalues, vals, k, explicitTol)
	tuSameColumns(t, what, m.Basis, vecs, k, 1e-6)
}

func TestMDDMpKernelsExplicit(t *testing.T) {
	in := tuMultiLabel(1, 40, 6, 4)
	y := tuLabelDense(in)
	n, q := y.Dims()
	kernels := map[string]func(a, b []float64) float64{
		KernelLinear: func(a, b []float64) float64 { return mat.Dot(mat.NewVecDense(q, a), mat.NewVecDense(q, b)) },
		KernelQuadratic: func(a, b []float64) float64 {
			v := mat.Dot(mat.NewVecDense(q, a), mat.NewVecDense(q, b)) + 1
			return v * v
		},
		KernelRBF: func(a, b []float64) float64 {
			s := 0.0
			for i := range a {
				s += (a[i] - b[i]) * (a[i] - b[i])
			}
			return math.Exp(-s / float64(q)) // default γ = 1/q
		},
	}
	for name, k := range kernels {
		t.Run(name, func(t *testing.T) {
			l := mat.NewDense(n, n, nil)
			for i := range n {
				for j := range n {
					l.Set(i, j, k(mat.Row(nil, i, y), mat.Row(nil, j, y)))
				}
			}
			vals, vecs := tuEig(t, tuXtHLHX(in.X, l))
			m := fit(t, "mddmp", in, Params{D: 3, LabelKernel: name})
			tuCompareEig(t, "mddmp "+name, m, vals, vecs, 3)
		})
	}
}

func TestMDDMfExplicit(t *testing.T) {
	in := tuMultiLabel(2, 40, 6, 4)
	xc := tuCentred(in.X)
	s := tuXtHLHX(in.X, mulT(tuLabelDense(in)))
	for _, beta := range []float64{0, 0.3, 0.9} {
		var c mat.Dense
		c.Mul(xc.T(), xc)
		b := mat.NewDense(6, 6, nil)
		b.Scale(beta, &c)
		for i := range 6 {
			b.Set(i, i, b.At(i, i)+1-beta)
		}
		vals, vecs := tuGenEig(t, s, tuSym(b))
		m := fit(t, "mddmf", in, Params{D: 3, Beta: Float(beta)})
		tuCompareEig(t, fmt.Sprintf("mddmf β=%v", beta), m, vals, vecs, 3)
	}
}

// mulT is MMᵀ, the linear kernel of the rows of m.
func mulT(m *mat.Dense) *mat.Dense {
	var o mat.Dense
	o.Mul(m, m.T())
	return &o
}

func TestMVMDExplicit(t *testing.T) {
	in := tuMultiLabel(3, 40, 6, 4)
	xc := tuCentred(in.X)
	ypm := mat.DenseCopyOf(in.Y)
	ypm.Apply(func(_, _ int, v float64) float64 { return 2*v - 1 }, ypm) // the paper's ±1 coding
	yc := tuCentred(ypm)
	for _, beta := range []float64{0.25, 0.7} {
		var c, xy, lab mat.Dense
		c.Mul(xc.T(), xc)
		xy.Mul(xc.T(), yc)
		lab.Mul(&xy, xy.T())
		g := mat.NewDense(6, 6, nil)
		g.Scale(1-beta, &c)
		lab.Scale(beta, &lab)
		g.Add(g, &lab)
		vals, vecs := tuEig(t, tuSym(g))
		m := fit(t, "mvmd", in, Params{D: 4, Beta: Float(beta)})
		tuCompareEig(t, fmt.Sprintf("mvmd β=%v", beta), m, vals, vecs, 4)
	}
}

func TestMLSIExplicit(t *testing.T) {
	in := tuMultiLabel(4, 40, 6, 4)
	xc, yc := tuCentred(in.X), tuCentred(in.Y)
	var c, cc, b, bb mat.Dense
	c.Mul(xc.T(), xc)
	cc.Mul(&c, &c)
	b.Mul(xc.T(), yc)
	bb.Mul(&b, b.T())
	left := mat.NewDense(6, 6, nil)
	left.Scale(0.5, &cc)
	bb.Scale(0.5, &bb)
	left.Add(left, &bb)
	right := mat.DenseCopyOf(&c)
	for i := range 6 {
		right.Set(i, i, right.At(i, i)+1)
	}
	vals, vecs := tuGenEig(t, tuSym(left), tuSym(right))
	tuCompareEig(t, "mlsi", fit(t, "mlsi", in, Params{D: 4, Normalize: NormalizeB}), vals, vecs, 4)
}

func TestCCAExplicit(t *testing.T) {
	for _, in := range []Input{tuMultiLabel(5, 40, 6, 4), tuMultiDim(5, 60, 6, []int{3, 2})} {
		xc, yc := tuCentred(in.X), tuCentred(tuLabelDense(in))
		var c, b, ky mat.Dense
		c.Mul(xc.T(), xc)
		b.Mul(xc.T(), yc)
		ky.Mul(yc.T(), yc)
		_, qz := ky.Dims()
		tr := 0.0
		for i := range qz {
			tr += ky.At(i, i)
		}
		for i := range qz {
			ky.Set(i, i, ky.At(i, i)+1e-6*tr/float64(qz))
		}
		var inv, left, tmp mat.Dense
		if err := inv.Inverse(&ky); err != nil {
			t.Fatal(err)
		}
		tmp.Mul(&b, &inv)
		left.Mul(&tmp, b.T())
		for i := range 6 {
			c.Set(i, i, c.At(i, i)+1)
		}
		vals, vecs := tuGenEig(t, tuSym(&left), tuSym(&c))
		m := fit(t, "cca", in, Params{D: 2, Normalize: NormalizeB})
		tuCloseValues(t, "cca", m.Eigenvalues, vals, 2, 1e-7)
		tuSameColumns(t, "cca", m.Basis, vecs, 2, 1e-5)
	}
}

func TestSDeMExplicit(t *testing.T) {
	in := tuMultiDim(6, 60, 7, []int{3, 4, 2})
	z := tuLabelDense(in)
	vals, vecs := tuEig(t, tuXtHLHX(in.X, mulT(z)))
	m := fit(t, "sdem", in, Params{D: 3})
	tuCompareEig(t, "sdem", m, vals, vecs, 3)
	if want := 3 + 4 + 2 - 3; m.Rank != want {
		t.Errorf("sdem rank: got %d, want ΣK_j − q = %d", m.Rank, want)
	}
}

// tuLDAProblem builds Fisher's Sb and Sw for one class variable from sums
// over the rows of each class.
func tuLDAProblem(x *mat.Dense, cls []int, k int) (sb, sw *mat.Dense) {
	n, d := x.Dims()
	mean := make([]float64, d)
	cm := make([][]float64, k)
	cnt := make([]float64, k)
	for c := range k {
		cm[c] = make([]float64, d)
	}
	for i := range n {
		for j := range d {
			mean[j] += x.At(i, j) / float64(n)
			cm[cls[i]][j] += x.At(i, j)
		}
		cnt[cls[i]]++
	}
	sb, sw = mat.NewDense(d, d, nil), mat.NewDense(d, d, nil)
	for c := range k {
		if cnt[c] == 0 {
			continue
		}
		for j := range d {
			cm[c][j] /= cnt[c]
		}
		for a := range d {
			for b := range d {
				sb.Set(a, b, sb.At(a, b)+cnt[c]*(cm[c][a]-mean[a])*(cm[c][b]-mean[b]))
			}
		}
	}
	for i := range n {
		m := cm[cls[i]]
		for a := range d {
			for b := range d {
				sw.Set(a, b, sw.At(a, b)+(x.At(i, a)-m[a])*(x.At(i, b)-m[b]))
			}
		}
	}
	return sb, sw
}

func TestLDAExplicit(t *testing.T) {
	cases := []struct {
		name string
		in   Input
	}{
		{"multi-dimensional", tuMultiDim(7, 80, 6, []int{3, 4})},
		{"single variable", tuMultiDim(8, 80, 6, []int{4})},
		{"multi-label, per label", tuMultiLabel(9, 60, 6, 3)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := fit(t, "lda", tc.in, Params{Normalize: NormalizeB})
			n, q := tc.in.Y.Dims()
			classes := tc.in.Classes
			if classes == nil {
				classes = []int{2, 2, 2}
			}
			for v := range q {
				cls := make([]int, n)
				for i := range n {
					cls[i] = int(tc.in.Y.At(i, v))
				}
				sb, sw := tuLDAProblem(tc.in.X, cls, classes[v])
				_, d := tc.in.X.Dims()
				tr := 0.0
				for i := range d {
					tr += sw.At(i, i)
				}
				for i := range d {
					sw.Set(i, i, sw.At(i, i)+1e-4*tr/float64(d))
				}
				vals, vecs := tuGenEig(t, tuSym(sb), tuSym(sw))
				k := classes[v] - 1
				got, gotVals := m.Basis, m.Eigenvalues
				if q > 1 {
					blk := m.Blocks[v]
					r, _ := m.Basis.Dims()
					got = mat.DenseCopyOf(m.Basis.Slice(0, r, blk.Start, blk.Start+blk.Dim))
					gotVals = blk.Values
					k = min(k, blk.Dim)
				}
				what := fmt.Sprintf("lda variable %d", v)
				tuCloseValues(t, what, gotVals, vals, k, 1e-8)
				tuSameColumns(t, what, got, vecs, k, 1e-6)
			}
		})
	}
}

func TestMLDAExplicit(t *testing.T) {
	in := tuMultiLabel(10, 50, 6, 4)
	in.Y.SetRow(3, []float64{0, 0, 0, 0}) // one row without labels
	n, q := in.Y.Dims()
	_, d := in.X.Dims()
	// Cosine label correlation and normalised weights.
	corr := mat.NewDense(q, q, nil)
	for a := range q {
		for b := range q {
			ya, yb := mat.Col(nil, a, in.Y), mat.Col(nil, b, in.Y)
			corr.Set(a, b, floats(ya, yb)/math.Sqrt(floats(ya, ya)*floats(yb, yb)))
		}
	}
	var z mat.Dense
	z.Mul(in.Y, corr)
	for i := range n {
		s := 0.0
		for k := range q {
			s += z.At(i, k)
		}
		for k := range q {
			if s > 0 {
				z.Set(i, k, z.At(i, k)/s)
			}
		}
	}
	w := make([]float64, q)
	mk := make([][]float64, q)
	mall := make([]float64, d)
	wall := 0.0
	for k := range q {
		mk[k] = make([]float64, d)
		for i := range n {
			w[k] += z.At(i, k)
			for j := range d {
				mk[k][j] += z.At(i, k) * in.X.At(i, j)
			}
		}
		for j := range d {
			mall[j] += mk[k][j]
			mk[k][j] /= w[k]
		}
		wall += w[k]
	}
	for j := range d {
		mall[j] /= wall
	}
	sb, sw := mat.NewDense(d, d, nil), mat.NewDense(d, d, nil)
	for k := range q {
		for a := range d {
			for b := range d {
				sb.Set(a, b, sb.At(a, b)+w[k]*(mk[k][a]-mall[a])*(mk[k][b]-mall[b]))
				for i := range n {
					sw.Set(a, b, sw.At(a, b)+z.At(i, k)*(in.X.At(i, a)-mk[k][a])*(in.X.At(i, b)-mk[k][b]))
				}
			}
		}
	}
	tr := 0.0
	for i := range d {
		tr += sw.At(i, i)
	}
	for i := range d {
		sw.Set(i, i, sw.At(i, i)+1e-4*tr/float64(d))
	}
	vals, vecs := tuGenEig(t, tuSym(sb), tuSym(sw))
	m := fit(t, "mlda", in, Params{D: 3, Normalize: NormalizeB})
	tuCompareEig(t, "mlda", m, vals, vecs, 3)
}

func floats(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// TestGraphEmbeddingsExplicit builds each distance graph A (N×N), its
// Laplacian L = diag(A1) − A, and XᵀLX on the raw X.
func TestGraphEmbeddingsExplicit(t *testing.T) {
	for _, in := range []Input{tuMultiLabel(11, 40, 6, 5), tuMultiDim(11, 40, 6, []int{3, 2})} {
		y := tuLabelDense(in)
		n, q := y.Dims()
		f := tuNMI(y)
		dist := map[string]func(i, j int) float64{
			"ge-hamming": func(i, j int) float64 {
				c := 0.0
				for l := range q {
					if y.At(i, l) != y.At(j, l) {
						c++
					}
				}
				return c
			},
			"ge-euclid-y": func(i, j int) float64 {
				c := 0.0
				for l := range q {
					c += (y.At(i, l) - y.At(j, l)) * (y.At(i, l) - y.At(j, l))
				}
				return c
			},
			"ge-gh": func(i, j int) float64 {
				or, yfy := 0.0, 0.0
				for l := range q {
					if y.At(i, l) == 1 || y.At(j, l) == 1 {
						or++
					}
					for m := range q {
						yfy += y.At(i, l) * f.At(l, m) * y.At(j, m)
					}
				}
				return or - yfy
			},
			"ge-euclid-x": func(i, j int) float64 {
				c := 0.0
				_, d := in.X.Dims()
				for l := range d {
					c += (in.X.At(i, l) - in.X.At(j, l)) * (in.X.At(i, l) - in.X.At(j, l))
				}
				return c
			},
		}
		for id, a := range dist {
			lap := mat.NewDense(n, n, nil)
			for i := range n {
				deg := 0.0
				for j := range n {
					if i != j {
						lap.Set(i, j, -a(i, j))
						deg += a(i, j)
					}
				}
				lap.Set(i, i, deg)
			}
			var lx, s mat.Dense
			lx.Mul(lap, in.X)
			s.Mul(in.X.T(), &lx)
			vals, vecs := tuEig(t, tuSym(&s))
			m := fit(t, id, in, Params{D: 3})
			what := fmt.Sprintf("%s (multi-dim %v)", id, in.MultiDim())
			tuCloseValues(t, what, m.Eigenvalues, vals, 3, 1e-9)
			tuSameColumns(t, what, m.Basis, vecs, 3, 1e-6)
		}
	}
}

// TestMDSExplicit: classical MDS from −½HD²H (N×N), against the fit that
// never forms it.
func TestMDSExplicit(t *testing.T) {
	in := tuMultiLabel(12, 50, 5, 3)
	n, d := in.X.Dims()
	d2 := mat.NewDense(n, n, nil)
	for i := range n {
		for j := range n {
			s := 0.0
			for l := range d {
				s += (in.X.At(i, l) - in.X.At(j, l)) * (in.X.At(i, l) - in.X.At(j, l))
			}
			d2.Set(i, j, s)
		}
	}
	h := tuH(n)
	var tmp, b mat.Dense
	tmp.Mul(h, d2)
	b.Mul(&tmp, h)
	b.Scale(-0.5, &b)
	vals, vecs := tuEig(t, tuSym(&b))
	emb := mat.NewDense(n, 3, nil)
	for c := range 3 {
		for i := range n {
			emb.Set(i, c, vecs.At(i, c)*math.Sqrt(vals[c]))
		}
	}
	m := fit(t, "mds", in, Params{D: 3})
	tuCloseValues(t, "mds", m.Eigenvalues, vals, 3, 1e-9)
	tuSameColumns(t, "mds embedding", m.Projected, emb, 3, 1e-6)
	if _, err := m.Transform(in.X); err != ErrTransductive {
		t.Errorf("mds Transform: got %v, want ErrTransductive", err)
	}
	if m.P() != nil {
		t.Error("mds has a projection matrix")
	}
}

func TestLabelNMI(t *testing.T) {
	in := tuMultiLabel(13, 200, 4, 5)
	in.Y.SetCol(4, make([]float64, 200)) // a constant label
	got, constant := LabelNMI(in.Y)
	want := tuNMI(in.Y)
	for a := range 5 {
		for b := range 5 {
			w := want.At(a, b)
			if a == 4 || b == 4 {
				w = 0
			}
			if math.Abs(got.At(a, b)-w) > 1e-12 {
				t.Errorf("NMI(%d,%d): got %v, want %v", a, b, got.At(a, b), w)
			}
		}
	}
	if !constant[4] || constant[0] {
		t.Errorf("constant: got %v, want only label 4", constant)
	}
	// A hand-computed case: labels a = (1,1,0,0), b = (1,0,1,0) are
	// independent (NMI 0); a with itself is 1; a with its complement is 1.
	y := mat.NewDense(4, 3, []float64{1, 1, 0, 1, 0, 0, 0, 1, 1, 0, 0, 1})
	nmi, _ := LabelNMI(y)
	for _, c := range []struct {
		a, b int
		want float64
	}{{0, 1, 0}, {0, 0, 1}, {0, 2, 1}, {1, 2, 0}} {
		if got := nmi.At(c.a, c.b); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("hand case NMI(%d,%d): got %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
