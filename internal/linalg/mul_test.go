package linalg

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Mul agrees with gonum's product on shapes that meet every edge of the
// tiling: rows and columns not multiples of 8, an inner dimension longer
// than a block, strided operands.
func TestMul(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, s := range []struct{ n, k, m int }{{1, 1, 1}, {3, 5, 2}, {8, 8, 8}, {12, 12, 12}, {25, 7, 24}, {9, 300, 17}, {100, 513, 50}, {1000, 20, 3}} {
		a := randGeneral(rng, s.n, s.k, s.k+3)
		b := randGeneral(rng, s.k, s.m, s.m+1)
		c := blas64.General{Rows: s.n, Cols: s.m, Stride: s.m + 2, Data: make([]float64, s.n*(s.m+2))}
		for i := range c.Data {
			c.Data[i] = math.NaN() // every element must be written
		}
		if err := Mul(a, b, c); err != nil {
			t.Fatal(err)
		}
		var ad, bd, want mat.Dense
		ad.SetRawMatrix(a)
		bd.SetRawMatrix(b)
		want.Mul(&ad, &bd)
		for i := range s.n {
			for j := range s.m {
				if got, w := c.Data[i*c.Stride+j], want.At(i, j); !(math.Abs(got-w) <= 1e-12*(1+math.Abs(w))) {
					t.Fatalf("%+v: c[%d][%d] = %g, want %g", s, i, j, got, w)
				}
			}
		}
	}
	if err := Mul(blas64.General{Rows: 2, Cols: 3}, blas64.General{Rows: 4, Cols: 1}, blas64.General{Rows: 2, Cols: 1}); err == nil {
		t.Error("shapes that do not fit were taken")
	}
}
