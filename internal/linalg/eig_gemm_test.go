package linalg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

func TestGemm(t *testing.T) {
	tests := []struct {
		m, n, k     int
		alpha, beta float64
		pad         int // extra columns in every stride
	}{
		{1, 1, 1, 1, 0, 0},
		{3, 5, 7, 2, 0, 1},
		{5, 3, 600, -1, 1, 0},
		{64, 64, 64, 1, 0.5, 3},
		{130, 257, 300, -0.5, 1, 2},
		{300, 20, 513, 1, 0, 0},
		{7, 700, 40, 1, -2, 5},
	}
	for _, procs := range []int{1, 2, 3} {
		for _, tc := range tests {
			t.Run(fmt.Sprintf("procs=%d/%dx%dx%d", procs, tc.m, tc.n, tc.k), func(t *testing.T) {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
				rng := rand.New(rand.NewPCG(uint64(tc.m), uint64(tc.n)))
				fill := func(r, c int) ([]float64, int) {
					ld := c + tc.pad
					x := make([]float64, r*ld)
					for i := range x {
						x[i] = rng.NormFloat64()
					}
					return x, ld
				}
				a, lda := fill(tc.m, tc.k)
				b, ldb := fill(tc.k, tc.n)
				bt, ldbt := fill(tc.n, tc.k)
				c0, ldc := fill(tc.m, tc.n)
				bl := blas64.Implementation()

				want := append([]float64(nil), c0...)
				bl.Dgemm(blas.NoTrans, blas.NoTrans, tc.m, tc.n, tc.k, tc.alpha, a, lda, b, ldb, tc.beta, want, ldc)
				got := append([]float64(nil), c0...)
				gemm(tc.m, tc.n, tc.k, tc.alpha, a, lda, b, ldb, tc.beta, got, ldc)
				if d := relDiff(got, want); d > 1e-14 {
					t.Errorf("gemm: relative difference from gonum's Dgemm %.3g, want ≤ 1e-14", d)
				}

				want = append(want[:0], c0...)
				bl.Dgemm(blas.NoTrans, blas.Trans, tc.m, tc.n, tc.k, tc.alpha, a, lda, bt, ldbt, tc.beta, want, ldc)
				got = append(got[:0], c0...)
				gemmNT(tc.m, tc.n, tc.k, tc.alpha, a, lda, bt, ldbt, tc.beta, got, ldc)
				if d := relDiff(got, want); d > 1e-14 {
					t.Errorf("gemmNT: relative difference from gonum's Dgemm %.3g, want ≤ 1e-14", d)
				}
			})
		}
	}
}

// relDiff is max |a_i − b_i| / max |b_i|.
func relDiff(a, b []float64) float64 {
	d, s := 0.0, 0.0
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i]))
		s = math.Max(s, math.Abs(b[i]))
	}
	if s == 0 {
		return d
	}
	return d / s
}
