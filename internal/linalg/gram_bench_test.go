package linalg

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// BenchmarkGram measures the centred Gram matrix next to gonum's Syrk on
// the same rows (gonum's needs the centred copy, made in blocks as the
// analysis did before this kernel). The figure to read is GFLOP/s: N·D²
// multiply-adds count as 2·N·D²/2 = N·D² flops for the upper triangle.
//
//	go test -run '^$' -bench Gram -benchtime 3x ./internal/linalg/
func BenchmarkGram(b *testing.B) {
	for _, s := range []struct{ n, d int }{{20_000, 1_000}, {100_000, 1_000}, {20_000, 2_000}} {
		rng := rand.New(rand.NewPCG(uint64(s.n), uint64(s.d)))
		x := randGeneral(rng, s.n, s.d, s.d)
		shift := make([]float64, s.d)
		flops := float64(s.n) * float64(s.d) * float64(s.d)
		c := blas64.Symmetric{N: s.d, Stride: s.d, Uplo: blas.Upper, Data: make([]float64, s.d*s.d)}
		b.Run(fmt.Sprintf("linalg/N=%d/D=%d", s.n, s.d), func(b *testing.B) {
			for b.Loop() {
				if err := Gram(context.Background(), x, shift, nil, c, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
		if s.n > 20_000 {
			continue
		}
		b.Run(fmt.Sprintf("gonum-syrk/N=%d/D=%d", s.n, s.d), func(b *testing.B) {
			buf := make([]float64, 256*s.d)
			for b.Loop() {
				for i0 := 0; i0 < s.n; i0 += 256 {
					rows := min(256, s.n-i0)
					for r := range rows {
						for j := range s.d {
							buf[r*s.d+j] = x.Data[(i0+r)*s.d+j] - shift[j]
						}
					}
					blas64.Syrk(blas.Trans, 1, blas64.General{Rows: rows, Cols: s.d, Stride: s.d, Data: buf}, 1, c)
				}
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// BenchmarkMul measures the projection of tall data onto a few directions
// (N×D times D×d, the rows a job writes), in GFLOP/s of 2·N·D·d.
//
//	go test -run '^$' -bench Mul -benchtime 10x ./internal/linalg/
func BenchmarkMul(b *testing.B) {
	for _, s := range []struct{ n, k, m int }{{50_000, 500, 10}, {20_000, 2_000, 20}} {
		rng := rand.New(rand.NewPCG(uint64(s.n), uint64(s.m)))
		a := randGeneral(rng, s.n, s.k, s.k)
		p := randGeneral(rng, s.k, s.m, s.m)
		c := blas64.General{Rows: s.n, Cols: s.m, Stride: s.m, Data: make([]float64, s.n*s.m)}
		b.Run(fmt.Sprintf("N=%d/D=%d/d=%d", s.n, s.k, s.m), func(b *testing.B) {
			for b.Loop() {
				if err := Mul(a, p, c); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(2*float64(s.n*s.k*s.m)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
