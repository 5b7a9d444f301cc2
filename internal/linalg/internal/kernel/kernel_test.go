package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The assembly kernel and the portable one give the same sums, for a read
// from the start of a panel and from its second and third tile rows.
func TestKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, k := range []int{1, 2, 7, 128} {
		for _, off := range []int{0, Rows, 2 * Rows} {
			a := make([]float64, k*Width)
			b := make([]float64, k*Width)
			for i := range a {
				a[i], b[i] = rng.NormFloat64(), rng.NormFloat64()
			}
			ldc := 15
			want := make([]float64, 3*ldc+Width)
			for i := range want {
				want[i] = rng.NormFloat64()
			}
			got := append([]float64(nil), want...)
			TileGo(k, a[off:], b, want, ldc)
			Tile(k, a[off:], b, got, ldc)
			for i := range want {
				if math.Abs(got[i]-want[i]) > 1e-12*(1+math.Abs(want[i])) {
					t.Fatalf("k=%d, offset %d: element %d is %g, want %g", k, off, i, got[i], want[i])
				}
			}
		}
	}
}

// The kernel against TileGo's definition by hand: ones times ones over k
// rows add k to every entry, and nothing outside the tile changes.
func TestTileByHand(t *testing.T) {
	const k, ldc = 5, Width + 3
	a := make([]float64, k*Width)
	b := make([]float64, k*Width)
	for i := range a {
		a[i], b[i] = 1, 1
	}
	c := make([]float64, Rows*ldc)
	Tile(k, a, b, c, ldc)
	for i := range Rows {
		for j := range ldc {
			want := 0.0
			if j < Width {
				want = k
			}
			if c[i*ldc+j] != want {
				t.Fatalf("c[%d][%d] = %g, want %g", i, j, c[i*ldc+j], want)
			}
		}
	}
}

// BenchmarkTile is the kernel alone, its operands in the L1 cache: the
// ceiling of every product built on it. One core.
//
//	go test -run '^$' -bench Tile ./internal/linalg/internal/kernel/
func BenchmarkTile(b *testing.B) {
	const k = 128
	a := make([]float64, k*Width)
	bb := make([]float64, k*Width)
	c := make([]float64, Rows*Width)
	for b.Loop() {
		for range 1000 {
			Tile(k, a, bb, c, Width)
		}
	}
	b.ReportMetric(float64(2*k*Rows*Width*1000)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}
