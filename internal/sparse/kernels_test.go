package sparse

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// randomCSR is an r×c matrix with about density·r·c entries, seeded; the
// rows listed in empty and the columns in emptyCols hold none.
func randomCSR(seed uint64, r, c int, density float64, emptyRows, emptyCols []int) *CSR {
	rng := rand.New(rand.NewPCG(seed, 7))
	skipR, skipC := map[int]bool{}, map[int]bool{}
	for _, i := range emptyRows {
		skipR[i] = true
	}
	for _, j := range emptyCols {
		skipC[j] = true
	}
	b := NewBuilder(c, 0)
	for i := range r {
		for j := range c {
			if !skipR[i] && !skipC[j] && rng.Float64() < density {
				b.Add(j, rng.NormFloat64()*math.Pow(10, float64(rng.IntN(3))))
			}
		}
		b.EndRow()
	}
	return b.Build()
}

// kernelCases are the shapes every kernel is checked on.
var kernelCases = []struct {
	name             string
	r, c             int
	density          float64
	emptyRows, empty []int
}{
	{"tall", 300, 40, 0.1, nil, nil},
	{"empty rows and columns", 120, 30, 0.2, []int{0, 5, 119}, []int{0, 7, 29}},
	{"one column", 50, 1, 0.5, nil, nil},
	{"fewer rows than columns", 7, 90, 0.3, nil, nil},
	{"all empty", 10, 6, 0, nil, nil},
	{"dense", 40, 12, 1, nil, nil},
	{"many rows, several rounds", 5000, 60, 0.05, nil, nil},
}

func weightsFor(n int) []float64 {
	w := make([]float64, n)
	for i := range w {
		w[i] = float64(i%5) - 1.5
	}
	return w
}

// closeRel reports whether got is within tol of want, relative to scale.
func closeRel(got, want, scale, tol float64) bool {
	return math.Abs(got-want) <= tol*max(scale, math.SmallestNonzeroFloat64)
}

func TestGram(t *testing.T) {
	for _, tc := range kernelCases {
		for _, weighted := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/weighted=%v", tc.name, weighted), func(t *testing.T) {
				x := randomCSR(1, tc.r, tc.c, tc.density, tc.emptyRows, tc.empty)
				var w []float64
				xd := x.Dense()
				wx := mat.DenseCopyOf(xd)
				if weighted {
					w = weightsFor(tc.r)
					for i := range tc.r {
						for j := range tc.c {
							wx.Set(i, j, w[i]*xd.At(i, j))
						}
					}
				}
				var want mat.Dense
				want.Mul(xd.T(), wx)
				got := mat.NewSymDense(tc.c, nil)
				var last float64
				if err := Gram(context.Background(), x, w, got.RawSymmetric(), func(f float64) error { last = f; return nil }); err != nil {
					t.Fatal(err)
				}
				if x.NNZ() > 0 && last != 1 {
					t.Errorf("last progress %v, want 1", last)
				}
				scale := mat.Norm(&want, math.Inf(1))
				for a := range tc.c {
					for b := a; b < tc.c; b++ {
						if g, w := got.At(a, b), want.At(a, b); !closeRel(g, w, scale, 1e-13) {
							t.Fatalf("(%d, %d): got %v, want %v", a, b, g, w)
						}
					}
				}
			})
		}
	}
}

func TestTMul(t *testing.T) {
	for _, tc := range kernelCases {
		t.Run(tc.name, func(t *testing.T) {
			x := randomCSR(2, tc.r, tc.c, tc.density, tc.emptyRows, tc.empty)
			l := randomCSR(3, tc.r, 9, 0.3, nil, []int{4})
			var want mat.Dense
			want.Mul(x.Dense().T(), l.Dense())
			got := mat.NewDense(tc.c, 9, nil)
			if err := TMul(context.Background(), x, l, got.RawMatrix(), nil); err != nil {
				t.Fatal(err)
			}
			scale := mat.Norm(&want, math.Inf(1))
			for a := range tc.c {
				for j := range 9 {
					if g, w := got.At(a, j), want.At(a, j); !closeRel(g, w, scale, 1e-13) {
						t.Fatalf("(%d, %d): got %v, want %v", a, j, g, w)
					}
				}
			}
		})
	}
}

func TestMulAndColumnSums(t *testing.T) {
	for _, tc := range kernelCases {
		t.Run(tc.name, func(t *testing.T) {
			x := randomCSR(4, tc.r, tc.c, tc.density, tc.emptyRows, tc.empty)
			xd := x.Dense()
			b := mat.NewDense(tc.c, 5, nil)
			for i := range tc.c {
				for j := range 5 {
					b.Set(i, j, float64((i*7+j*3)%11)-5)
				}
			}
			var want mat.Dense
			want.Mul(xd, b)
			got := mat.NewDense(tc.r, 5, nil)
			got.Apply(func(_, _ int, _ float64) float64 { return math.NaN() }, got) // Mul must overwrite
			if err := Mul(context.Background(), x, b.RawMatrix(), got.RawMatrix()); err != nil {
				t.Fatal(err)
			}
			scale := max(mat.Norm(&want, math.Inf(1)), 1)
			for i := range tc.r {
				for j := range 5 {
					if g, w := got.At(i, j), want.At(i, j); !closeRel(g, w, scale, 1e-13) {
						t.Fatalf("X·B (%d, %d): got %v, want %v", i, j, g, w)
					}
				}
			}
			for _, weights := range [][]float64{nil, weightsFor(tc.r)} {
				sums, err := ColumnSums(context.Background(), x, weights)
				if err != nil {
					t.Fatal(err)
				}
				for j := range tc.c {
					want, abs := 0.0, 0.0
					for i := range tc.r {
						w := 1.0
						if weights != nil {
							w = weights[i]
						}
						want += w * xd.At(i, j)
						abs += math.Abs(w * xd.At(i, j))
					}
					if !closeRel(sums[j], want, abs, 1e-13) {
						t.Fatalf("column sum %d (weighted %v): got %v, want %v", j, weights != nil, sums[j], want)
					}
				}
			}
		})
	}
}

// denseDist is knn.Dist (the package cannot import knn, which imports it).
func denseDist(a, b []float64) float64 {
	s := 0.0
	for t, v := range a {
		d := v - b[t]
		s += float64(d * d)
	}
	return s
}

func TestRowsDotDist(t *testing.T) {
	for _, tc := range kernelCases {
		t.Run(tc.name, func(t *testing.T) {
			x := randomCSR(5, tc.r, tc.c, tc.density, tc.emptyRows, tc.empty)
			xd := x.Dense()
			idx := []int{tc.r - 1, 0, tc.r / 2, 0}
			sel := x.SelectRows(idx)
			if err := sel.Check(); err != nil {
				t.Fatal(err)
			}
			for r, i := range idx {
				for j := range tc.c {
					if g, w := sel.At(r, j), xd.At(i, j); g != w {
						t.Fatalf("SelectRows: row %d column %d: got %v, want %v", r, j, g, w)
					}
				}
			}
			tr := x.Transpose()
			if err := tr.Check(); err != nil {
				t.Fatal(err)
			}
			if !mat.Equal(tr.Dense(), xd.T()) && tc.r > 0 && tc.c > 0 {
				t.Fatalf("Transpose: got %v, want %v", mat.Formatted(tr.Dense()), mat.Formatted(xd.T()))
			}
			norms := x.RowSqNorms()
			for i := range tc.r {
				if g, w := norms[i], denseDist(xd.RawRowView(i), make([]float64, tc.c)); g != w {
					t.Fatalf("RowSqNorms %d: got %v, want %v", i, g, w)
				}
				for _, k := range []int{0, tc.r / 3, tc.r - 1} {
					ai, av := x.Row(i)
					bi, bv := x.Row(k)
					if g, w := Dist(ai, av, bi, bv), denseDist(xd.RawRowView(i), xd.RawRowView(k)); g != w {
						t.Fatalf("Dist(%d, %d): got %v, want %v to the bit", i, k, g, w)
					}
					if g, w := Dist(bi, bv, ai, av), Dist(ai, av, bi, bv); g != w {
						t.Fatalf("Dist is not symmetric: %v and %v", g, w)
					}
					want := mat.Dot(mat.NewVecDense(tc.c, xd.RawRowView(i)), mat.NewVecDense(tc.c, xd.RawRowView(k)))
					if g := Dot(ai, av, bi, bv); !closeRel(g, want, math.Sqrt(norms[i]*norms[k]), 1e-14) {
						t.Fatalf("Dot(%d, %d): got %v, want %v", i, k, g, want)
					}
				}
			}
		})
	}
}

func TestKernelsCanceled(t *testing.T) {
	x := randomCSR(6, 5000, 60, 0.05, nil, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	g := mat.NewSymDense(60, nil)
	if err := Gram(ctx, x, nil, g.RawSymmetric(), nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Gram: got %v, want context.Canceled", err)
	}
	if err := TMul(ctx, x, x, mat.NewDense(60, 60, nil).RawMatrix(), nil); !errors.Is(err, context.Canceled) {
		t.Errorf("TMul: got %v, want context.Canceled", err)
	}
	if err := Mul(ctx, x, mat.NewDense(60, 2, nil).RawMatrix(), mat.NewDense(5000, 2, nil).RawMatrix()); !errors.Is(err, context.Canceled) {
		t.Errorf("Mul: got %v, want context.Canceled", err)
	}
	if _, err := ColumnSums(ctx, x, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("ColumnSums: got %v, want context.Canceled", err)
	}
	// A progress error stops Gram too.
	stop := errors.New("stop")
	if err := Gram(context.Background(), x, nil, g.RawSymmetric(), func(float64) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("Gram with a failing progress: got %v, want %v", err, stop)
	}
}

func TestKernelShapes(t *testing.T) {
	x := randomCSR(7, 10, 4, 0.5, nil, nil)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"Gram into the wrong size", Gram(ctx, x, nil, mat.NewSymDense(3, nil).RawSymmetric(), nil)},
		{"Gram with too few weights", Gram(ctx, x, make([]float64, 9), mat.NewSymDense(4, nil).RawSymmetric(), nil)},
		{"TMul with other rows", TMul(ctx, x, randomCSR(1, 9, 2, 0.5, nil, nil), mat.NewDense(4, 2, nil).RawMatrix(), nil)},
		{"TMul into the wrong size", TMul(ctx, x, x, mat.NewDense(4, 3, nil).RawMatrix(), nil)},
		{"Mul by the wrong size", Mul(ctx, x, mat.NewDense(3, 2, nil).RawMatrix(), mat.NewDense(10, 2, nil).RawMatrix())},
		{"Mul into the wrong size", Mul(ctx, x, mat.NewDense(4, 2, nil).RawMatrix(), mat.NewDense(10, 3, nil).RawMatrix())},
	} {
		if tc.err == nil {
			t.Errorf("%s: got no error, want one", tc.name)
		}
	}
}
