package linalg

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// naiveGram is Σ_r w_r (x_r − shift)(x_r − shift)ᵀ by the definition, in
// a full D×D matrix.
func naiveGram(x blas64.General, shift, weights []float64) []float64 {
	d := x.Cols
	out := make([]float64, d*d)
	row := make([]float64, d)
	for r := range x.Rows {
		for j := range d {
			row[j] = x.Data[r*x.Stride+j]
			if shift != nil {
				row[j] -= shift[j]
			}
		}
		w := 1.0
		if weights != nil {
			w = weights[r]
		}
		for i := range d {
			for j := range d {
				out[i*d+j] += w * row[i] * row[j]
			}
		}
	}
	return out
}

func randGeneral(rng *rand.Rand, n, d, stride int) blas64.General {
	g := blas64.General{Rows: n, Cols: d, Stride: stride, Data: make([]float64, max(0, (n-1)*stride+d))}
	for i := range n {
		for j := range d {
			g.Data[i*stride+j] = rng.NormFloat64() + 3
		}
	}
	return g
}

// Gram agrees with the definition on every shape the tiling can meet:
// columns not a multiple of 8 or 4, fewer rows than a block, more than a
// round, strided rows, with and without shift and (signed) weights, and
// adds to what c held.
func TestGram(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	tests := []struct {
		n, d, stride    int
		shift, weighted bool
	}{
		{1, 1, 1, false, false},
		{3, 2, 2, true, false},
		{5, 7, 9, true, true},
		{130, 8, 8, false, false},
		{131, 12, 12, true, false},
		{140, 24, 25, false, true},
		{257, 13, 13, true, false},
		{64, 33, 40, true, true},
		{4200, 17, 17, true, true},
		{900, 70, 70, false, true},
		{300, 129, 131, true, false},
	}
	for _, tc := range tests {
		x := randGeneral(rng, tc.n, tc.d, tc.stride)
		var shift, weights []float64
		if tc.shift {
			shift = make([]float64, tc.d)
			for j := range shift {
				shift[j] = 3 + rng.NormFloat64()/10
			}
		}
		if tc.weighted {
			weights = make([]float64, tc.n)
			for i := range weights {
				weights[i] = rng.Float64()*2 - 0.5
			}
		}
		want := naiveGram(x, shift, weights)
		c := blas64.Symmetric{N: tc.d, Stride: tc.d + 1, Uplo: blas.Upper, Data: make([]float64, tc.d*(tc.d+1))}
		for i := range tc.d {
			for j := i; j < tc.d; j++ {
				c.Data[i*c.Stride+j] = 1
				want[i*tc.d+j]++
			}
		}
		calls := 0
		if err := Gram(context.Background(), x, shift, weights, c, func(int) error { calls++; return nil }); err != nil {
			t.Fatal(err)
		}
		if calls == 0 {
			t.Errorf("%+v: progress never called", tc)
		}
		worst := 0.0
		for i := range tc.d {
			for j := i; j < tc.d; j++ {
				got, w := c.Data[i*c.Stride+j], want[i*tc.d+j]
				worst = max(worst, math.Abs(got-w)/(1+math.Abs(w)))
			}
			for j := tc.d; j < c.Stride; j++ {
				if c.Data[i*c.Stride+j] != 0 {
					t.Fatalf("%+v: wrote past the row at (%d, %d)", tc, i, j)
				}
			}
		}
		if worst > 1e-12 {
			t.Errorf("%+v: largest relative difference %g", tc, worst)
		}
	}
}

// Errors: shapes that do not fit, a canceled context, a progress error.
func TestGramStops(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	x := randGeneral(rng, 10000, 8, 8)
	c := blas64.Symmetric{N: 8, Stride: 8, Uplo: blas.Upper, Data: make([]float64, 64)}
	if err := Gram(context.Background(), x, make([]float64, 3), nil, c, nil); err == nil {
		t.Error("a shift of the wrong length was taken")
	}
	if err := Gram(context.Background(), x, nil, make([]float64, 3), c, nil); err == nil {
		t.Error("weights of the wrong length were taken")
	}
	small := blas64.Symmetric{N: 3, Stride: 3, Uplo: blas.Upper, Data: make([]float64, 9)}
	if err := Gram(context.Background(), x, nil, nil, small, nil); err == nil {
		t.Error("c of the wrong size was taken")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Gram(ctx, x, nil, nil, c, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: got %v", err)
	}
	stop := errors.New("stop")
	if err := Gram(context.Background(), x, nil, nil, c, func(int) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("progress error: got %v", err)
	}
}
