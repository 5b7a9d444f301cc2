package analysis

import (
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// BenchmarkTopD times pca at N = 20 000, D = 2 000, d = 10 (the
// target: at most half numpy's X.T @ X and full eigh), with only the
// leading pairs (top, linalg.SymEigTop) and with every pair (full,
// MaxDim = MaxDimAll: linalg.SymEig), on data with a spectrum as data have
// (benchSpiked). go test -run '^$' -bench TopD -benchtime 3x
// ./internal/analysis/; numpy's route: testdata/topd_numpy.py.
func BenchmarkTopD(b *testing.B) {
	in := benchSpiked(20_000, 2_000)
	for _, c := range []struct {
		name string
		p    Params
	}{
		{"top", Params{D: 10}},
		{"full", Params{D: 10, MaxDim: MaxDimAll}},
		{"thr=0.5", Params{Thr: 0.5}},
	} {
		b.Run("pca/N=20000/D=2000/d=10/"+c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Fit(b.Context(), "pca", in, c.p, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

var (
	spikedOnce sync.Once
	spiked     Input
)

// benchSpiked is X (N×D) with a rank-20 signal of decaying strengths
// (10/√(k+1) per row) plus unit noise and non-zero column means, as
// cmd/benchcmp generates its data: XcᵀXc has 20 spikes above a noise bulk.
// Four random labels per row.
func benchSpiked(n, d int) Input {
	spikedOnce.Do(func() {
		rng := rand.New(rand.NewPCG(20, 2))
		const r = 20
		w := make([]float64, r*d)
		for i := range w {
			w[i] = rng.NormFloat64() / math.Sqrt(float64(d))
		}
		x := mat.NewDense(n, d, nil)
		y := mat.NewDense(n, 10, nil)
		z := make([]float64, r)
		for i := range n {
			for k := range z {
				z[k] = rng.NormFloat64() * 10 / math.Sqrt(float64(k+1))
			}
			row := x.RawRowView(i)
			for j := range row {
				v := rng.NormFloat64() + float64(j%10)
				for k := range r {
					v += z[k] * w[k*d+j] * math.Sqrt(float64(d))
				}
				row[j] = v
			}
			for range 4 {
				y.Set(i, rng.IntN(10), 1)
			}
		}
		spiked = Input{X: x, Y: y}
	})
	return spiked
}
