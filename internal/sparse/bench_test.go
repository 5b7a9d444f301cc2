package sparse

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// wideCSR is an r×c matrix with round(density·c) entries in every row, at
// distinct random columns, values uniform in [0, 1) (as scipy.sparse.random).
func wideCSR(r, c int, density float64) *CSR {
	rng := rand.New(rand.NewPCG(1, 1))
	per := int(density*float64(c) + 0.5)
	b := NewBuilder(c, r*per)
	cols := make([]int, 0, per)
	seen := make([]bool, c)
	for range r {
		cols = cols[:0]
		for len(cols) < per {
			j := rng.IntN(c)
			if !seen[j] {
				seen[j] = true
				cols = append(cols, j)
			}
		}
		slices.Sort(cols)
		for _, j := range cols {
			seen[j] = false
			b.Add(j, rng.Float64()+1e-300)
		}
		b.EndRow()
	}
	return b.Build()
}

// benchSizes are the named sizes of the benchmarks: benchcmp's wide set
// (20 000 × 5 000 at 2 %) and a smaller one.
var benchSizes = []struct {
	name    string
	r, c    int
	density float64
}{
	{"5000x1000@2%", 5000, 1000, 0.02},
	{"20000x5000@2%", 20000, 5000, 0.02},
}

func BenchmarkGram(b *testing.B) {
	for _, s := range benchSizes {
		b.Run(s.name, func(b *testing.B) {
			x := wideCSR(s.r, s.c, s.density)
			g := mat.NewSymDense(s.c, nil)
			b.ResetTimer()
			for b.Loop() {
				if err := Gram(context.Background(), x, nil, g.RawSymmetric(), nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkTMul(b *testing.B) {
	for _, s := range benchSizes {
		b.Run(fmt.Sprintf("%s,q=400", s.name), func(b *testing.B) {
			x := wideCSR(s.r, s.c, s.density)
			l := wideCSR(s.r, 400, 0.01)
			out := mat.NewDense(s.c, 400, nil)
			b.ResetTimer()
			for b.Loop() {
				if err := TMul(context.Background(), x, l, out.RawMatrix(), nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkMul(b *testing.B) {
	for _, s := range benchSizes {
		b.Run(fmt.Sprintf("%s,d=20", s.name), func(b *testing.B) {
			x := wideCSR(s.r, s.c, s.density)
			p := mat.NewDense(s.c, 20, nil)
			out := mat.NewDense(s.r, 20, nil)
			b.ResetTimer()
			for b.Loop() {
				if err := Mul(context.Background(), x, p.RawMatrix(), out.RawMatrix()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkTMulDense(b *testing.B) {
	for _, s := range benchSizes {
		b.Run(fmt.Sprintf("%s,k=28", s.name), func(b *testing.B) {
			x := wideCSR(s.r, s.c, s.density)
			u := mat.NewDense(s.r, 28, nil)
			out := mat.NewDense(s.c, 28, nil)
			b.ResetTimer()
			for b.Loop() {
				if err := TMulDense(context.Background(), x, u.RawMatrix(), out.RawMatrix()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
