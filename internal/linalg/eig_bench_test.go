package linalg

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// Benchmarks of the eigen-solvers at the orders of benchcmp's rows (1 000
// and 2 000), beside gonum's
// EigenSym, on two seeded matrices: "random" (upper triangle of independent
// N(0, 1) entries: the top eigenvalues crowd together, the hard case for a
// Krylov method) and "cov" (sample covariance of n samples whose feature j
// has standard deviation (j+1)^−0.7: a decaying spectrum, as for data).
// testdata/eig/bench_numpy.py times numpy and scipy on the same matrices.
//
// Medians of go test -bench . -count 5 on the project's machine (2 vCPUs of
// an AMD EPYC Zen 5 under KVM, shared with other work: expect ±10%), Go
// 1.26 with GOAMD64=v1, against numpy 1.24.2 / scipy 1.10.1 on OpenBLAS
// (bench_numpy.py, medians of 5):
//
//	                            n = 1000                  n = 2000
//	                      this    numpy   gonum     this    numpy   gonum
//	SymEig (eigh)         0.205   0.093   1.37      1.36    0.55    15.1
//	SymEigValues          0.094   0.039   0.257     0.596   0.20    2.37
//	SymEigTop random k=10 0.107  (0.034)            0.671  (0.176)
//	SymEigTop random k=50 0.143  (0.047)            0.731  (0.203)
//	SymEigTop cov k=10    0.029  (0.034)            0.092  (0.178)
//	SymEigTop cov k=50    0.139  (0.046)            0.452  (0.201)
//
// in seconds; numpy is eigh and eigvalsh, in parentheses scipy's eigh for
// the k largest pairs (LAPACK dsyevr); gonum is mat.EigenSym with and
// without vectors. SymEig is 2.2× numpy's time at n = 1000 and 2.5× at
// 2000, 7–11× faster than gonum; SymEigTop's 50 largest pairs of a random
// 2000×2000 matrix take 1.3× numpy's full eigh (the iteration gives up
// after 248 columns and the direct method answers), of the covariance
// matrix 0.9×. gemm multiplies two 2000×2000 matrices in 0.370 s
// (43 GFLOP/s) against 0.80 s for gonum's Dgemm (BenchmarkGemm).
//
// Where the time goes in SymEig at n = 2000: reduction 0.52 s (of which
// 0.29 s in the symmetric products, bound by memory bandwidth), divide and
// conquer 0.27 s, back-transformation 0.51 s (both at gemm speed). At n =
// 2000 SymEigTop's direct method is 0.58 s of reduction, 0.04 s of DSTERF,
// 0.006 s of inverse iteration and 0.03 s of back-transformation.

// benchMatrix is the seeded benchmark matrix of the kind and order n.
func benchMatrix(kind string, n int) *mat.SymDense {
	rng := rand.New(rand.NewPCG(1, uint64(n)))
	switch kind {
	case "random":
		return randomSym(rng, n, 1)
	case "cov":
		x := mat.NewDense(n, n, nil)
		for i := range n {
			for j := range n {
				x.Set(i, j, rng.NormFloat64()*math.Pow(float64(j+1), -0.7))
			}
		}
		c := mat.NewSymDense(n, nil)
		c.SymOuterK(1/float64(n), x.T())
		return c
	}
	panic("unknown benchmark matrix " + kind)
}

// benchOrders are the orders of the benchmarks.
var benchOrders = []int{1000, 2000}

// benchEach runs f as a sub-benchmark "n=…" per order on a random matrix.
func benchEach(b *testing.B, f func(b *testing.B, a *mat.SymDense)) {
	for _, n := range benchOrders {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			f(b, benchMatrix("random", n))
		})
	}
}

func BenchmarkSymEig(b *testing.B) {
	benchEach(b, func(b *testing.B, a *mat.SymDense) {
		for b.Loop() {
			if _, _, err := SymEig(context.Background(), a); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkSymEigValues(b *testing.B) {
	benchEach(b, func(b *testing.B, a *mat.SymDense) {
		for b.Loop() {
			if _, err := SymEigValues(context.Background(), a); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkSymEigTop(b *testing.B) {
	for _, kind := range []string{"random", "cov"} {
		for _, n := range benchOrders {
			a := benchMatrix(kind, n)
			for _, k := range []int{10, 50} {
				b.Run(fmt.Sprintf("%s/n=%d/k=%d", kind, n, k), func(b *testing.B) {
					for b.Loop() {
						if _, _, err := SymEigTop(context.Background(), a, k); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}

// BenchmarkGonumEigenSym is the reference: gonum's EigenSym (LAPACK DSYEV,
// implicit QL/QR), with and without vectors.
func BenchmarkGonumEigenSym(b *testing.B) {
	for _, vectors := range []bool{true, false} {
		b.Run(fmt.Sprintf("vectors=%v", vectors), func(b *testing.B) {
			benchEach(b, func(b *testing.B, a *mat.SymDense) {
				for b.Loop() {
					var es mat.EigenSym
					if !es.Factorize(a, vectors) {
						b.Fatal("EigenSym did not converge")
					}
				}
			})
		})
	}
}

// BenchmarkGemm is the matrix multiplication behind the solvers, beside
// gonum's Dgemm, at the square order 2000 (16 GFLOP).
func BenchmarkGemm(b *testing.B) {
	n := 2000
	rng := rand.New(rand.NewPCG(2, 2))
	x := randomDense(rng, n, n).RawMatrix().Data
	y := randomDense(rng, n, n).RawMatrix().Data
	c := make([]float64, n*n)
	b.Run("gemm", func(b *testing.B) {
		for b.Loop() {
			gemm(n, n, n, 1, x, n, y, n, 0, c, n)
		}
	})
	b.Run("gonum", func(b *testing.B) {
		var cm mat.Dense
		xm, ym := mat.NewDense(n, n, x), mat.NewDense(n, n, y)
		for b.Loop() {
			cm.Mul(xm, ym)
		}
	})
}
