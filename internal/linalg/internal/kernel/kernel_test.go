package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The assembly kernel and the portable one give the same sums.
func TestKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, k := range []int{1, 2, 7, 128} {
		a := make([]float64, k*Width)
		b := make([]float64, k*Width)
		for i := range a {
			a[i], b[i] = rng.NormFloat64(), rng.NormFloat64()
		}
		ldc := 11
		want := make([]float64, 3*ldc+Width)
		for i := range want {
			want[i] = rng.NormFloat64()
		}
		got := append([]float64(nil), want...)
		Tile4x8Go(k, a, b, want, ldc)
		Tile4x8(k, a, b, got, ldc)
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-12*(1+math.Abs(want[i])) {
				t.Fatalf("k=%d: element %d is %g, want %g", k, i, got[i], want[i])
			}
		}
	}
}
