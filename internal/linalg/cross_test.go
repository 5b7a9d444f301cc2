package linalg

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
)

// Cross agrees with the definition Σ_r (x_r − shift)·y_rᵀ on the shapes
// the tiling can meet: columns and right-hand sides not multiples of 12 or
// 4, fewer rows than a block, more than a round, strided x and c, with and
// without shift, and adds to what c held.
func TestCross(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, tc := range []struct {
		n, d, q, stride int
		shift           bool
	}{
		{1, 1, 1, 1, false},
		{5, 7, 3, 9, true},
		{130, 13, 12, 13, true},
		{131, 12, 25, 12, false},
		{300, 25, 1, 30, true},
		{4200, 17, 20, 17, true},
	} {
		t.Run(fmt.Sprintf("%d×%d, q=%d", tc.n, tc.d, tc.q), func(t *testing.T) {
			x := randGeneral(rng, tc.n, tc.d, tc.stride)
			y := randGeneral(rng, tc.n, tc.q, tc.q)
			var shift []float64
			if tc.shift {
				shift = make([]float64, tc.d)
				for j := range shift {
					shift[j] = rng.NormFloat64() + 3
				}
			}
			c := blas64.General{Rows: tc.d, Cols: tc.q, Stride: tc.q + 2, Data: make([]float64, tc.d*(tc.q+2))}
			for i := range c.Data {
				c.Data[i] = float64(i % 5)
			}
			before := append([]float64(nil), c.Data...)
			yRow := func(r int, dst []float64) {
				for _, v := range dst {
					if v != 0 {
						t.Fatalf("row %d: dst not cleared", r)
					}
				}
				copy(dst, y.Data[r*y.Stride:r*y.Stride+tc.q])
			}
			if err := Cross(context.Background(), x, shift, tc.q, yRow, c, nil); err != nil {
				t.Fatal(err)
			}
			for i := range tc.d {
				for j := range tc.q {
					want, scale := before[i*c.Stride+j], 0.0
					for r := range tc.n {
						v := x.Data[r*x.Stride+i]
						if shift != nil {
							v -= shift[i]
						}
						want += v * y.Data[r*y.Stride+j]
						scale += math.Abs(v * y.Data[r*y.Stride+j])
					}
					if got := c.Data[i*c.Stride+j]; math.Abs(got-want) > 1e-13*(1+scale) {
						t.Fatalf("c[%d][%d] = %v, want %v", i, j, got, want)
					}
				}
				for j := tc.q; j < c.Stride; j++ {
					if c.Data[i*c.Stride+j] != before[i*c.Stride+j] {
						t.Fatalf("c[%d][%d], past the %d columns, changed", i, j, tc.q)
					}
				}
			}
		})
	}
}

// Cross refuses shapes that do not fit, and stops when progress or the
// context says so.
func TestCrossStops(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	x := randGeneral(rng, 20_000, 5, 5)
	yRow := func(r int, dst []float64) { dst[0] = 1 }
	c := blas64.General{Rows: 5, Cols: 2, Stride: 2, Data: make([]float64, 10)}
	if err := Cross(context.Background(), x, nil, 3, yRow, c, nil); err == nil {
		t.Error("Cross accepted c of 2 columns for 3 values a row")
	}
	if err := Cross(context.Background(), x, make([]float64, 4), 2, yRow, c, nil); err == nil {
		t.Error("Cross accepted a shift of 4 values for 5 columns")
	}
	stop := errors.New("stop")
	calls := 0
	err := Cross(context.Background(), x, nil, 2, yRow, c, func(done int) error {
		calls++
		return stop
	})
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("got %v after %d calls of progress, want stop after 1", err, calls)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Cross(ctx, x, nil, 2, yRow, c, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v with a canceled context", err)
	}
}
