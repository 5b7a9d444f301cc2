package linalg

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// BenchmarkCholesky measures the blocked Cholesky factorisation next to
// gonum's (mat.Cholesky) on the same positive definite matrix; n³/3 flops.
//
//	go test -run '^$' -bench Cholesky -benchtime 3x ./internal/linalg/
func BenchmarkCholesky(b *testing.B) {
	for _, n := range []int{1000, 2000, 5000} {
		rng := rand.New(rand.NewPCG(uint64(n), 7))
		a := randSPD(rng, n, 64, 0.1) // rank 64 + 0.1·I: cheap to make, definite
		flops := float64(n) * float64(n) * float64(n) / 3
		work := upperOf(a, n, 0)
		b.Run(fmt.Sprintf("linalg/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				for i := range n {
					copy(work.Data[i*n+i:(i+1)*n], a.RawSymmetric().Data[i*n+i:(i+1)*n])
				}
				b.StartTimer()
				if err := Cholesky(context.Background(), work); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
		if n > 2000 {
			continue // gonum's takes seconds
		}
		b.Run(fmt.Sprintf("gonum/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				var ch mat.Cholesky
				if !ch.Factorize(a) {
					b.Fatal("not definite")
				}
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// BenchmarkSolveUpperT measures U⁻ᵀB for an n×n triangle and n×m B (the
// ridge hat of cplst: n = D, m = q) next to gonum's Trsm; n²m flops.
//
//	go test -run '^$' -bench SolveUpperT -benchtime 3x ./internal/linalg/
func BenchmarkSolveUpperT(b *testing.B) {
	for _, s := range []struct{ n, m int }{{2000, 400}, {5000, 400}} {
		rng := rand.New(rand.NewPCG(uint64(s.n), 8))
		a := upperOf(randSPD(rng, s.n, 64, 0.1), s.n, 0)
		if err := Cholesky(context.Background(), a); err != nil {
			b.Fatal(err)
		}
		u := blas64.Triangular{N: s.n, Stride: s.n, Uplo: blas.Upper, Diag: blas.NonUnit, Data: a.Data}
		rhs := randGeneral(rng, s.n, s.m, s.m)
		work := blas64.General{Rows: s.n, Cols: s.m, Stride: s.m, Data: make([]float64, len(rhs.Data))}
		flops := float64(s.n) * float64(s.n) * float64(s.m)
		b.Run(fmt.Sprintf("linalg/n=%d/m=%d", s.n, s.m), func(b *testing.B) {
			for b.Loop() {
				copy(work.Data, rhs.Data)
				if err := SolveUpperT(context.Background(), u, work); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
		if s.n > 2000 {
			continue
		}
		b.Run(fmt.Sprintf("gonum-trsm/n=%d/m=%d", s.n, s.m), func(b *testing.B) {
			for b.Loop() {
				copy(work.Data, rhs.Data)
				blas64.Trsm(blas.Left, blas.Trans, 1, u, work)
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
