package sparse

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

func TestTMulDense(t *testing.T) {
	for _, tc := range kernelCases {
		for _, procs := range []int{1, 2, 3} {
			t.Run(fmt.Sprintf("%s/procs=%d", tc.name, procs), func(t *testing.T) {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
				x := randomCSR(8, tc.r, tc.c, tc.density, tc.emptyRows, tc.empty)
				const k = 6
				b := mat.NewDense(tc.r, k, nil)
				for i := range tc.r {
					for j := range k {
						b.Set(i, j, float64((i*5+j*3)%13)-6)
					}
				}
				var want mat.Dense
				want.Mul(x.Dense().T(), b)
				// A strided out, filled with NaN: TMulDense must overwrite it.
				big := mat.NewDense(tc.c, k+2, nil)
				big.Apply(func(_, _ int, _ float64) float64 { return math.NaN() }, big)
				got := big.Slice(0, tc.c, 1, k+1).(*mat.Dense)
				if err := TMulDense(context.Background(), x, b.RawMatrix(), got.RawMatrix()); err != nil {
					t.Fatal(err)
				}
				scale := max(mat.Norm(&want, math.Inf(1)), 1)
				for a := range tc.c {
					for j := range k {
						if g, w := got.At(a, j), want.At(a, j); !closeRel(g, w, scale, 1e-13) {
							t.Fatalf("(%d, %d): got %v, want %v", a, j, g, w)
						}
					}
				}
			})
		}
	}
}

func TestTMulDenseErrors(t *testing.T) {
	x := randomCSR(9, 20000, 50, 0.1, nil, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := TMulDense(ctx, x, mat.NewDense(20000, 3, nil).RawMatrix(), mat.NewDense(50, 3, nil).RawMatrix()); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: got %v, want context.Canceled", err)
	}
	bg := context.Background()
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"B with other rows", TMulDense(bg, x, mat.NewDense(9, 3, nil).RawMatrix(), mat.NewDense(50, 3, nil).RawMatrix())},
		{"out of the wrong rows", TMulDense(bg, x, mat.NewDense(20000, 3, nil).RawMatrix(), mat.NewDense(49, 3, nil).RawMatrix())},
		{"out of the wrong columns", TMulDense(bg, x, mat.NewDense(20000, 3, nil).RawMatrix(), mat.NewDense(50, 2, nil).RawMatrix())},
	} {
		if tc.err == nil {
			t.Errorf("%s: got no error, want one", tc.name)
		}
	}
}

// TestTMulRows checks the blocks TMulRows hands out against XᵀL, each row
// once, with a label matrix wide enough for several blocks.
func TestTMulRows(t *testing.T) {
	for _, tc := range kernelCases {
		t.Run(tc.name, func(t *testing.T) {
			x := randomCSR(10, tc.r, tc.c, tc.density, tc.emptyRows, tc.empty)
			const q = 9000 // blocks of 8 rows
			l := randomCSR(11, tc.r, q, 0.002, nil, nil)
			var want mat.Dense
			want.Mul(x.Dense().T(), l.Dense())
			got := mat.NewDense(tc.c, q, nil)
			seen := make([]int, tc.c)
			var mu sync.Mutex
			err := TMulRows(context.Background(), x, l, func(a0 int, rows blas64.General) error {
				mu.Lock()
				defer mu.Unlock()
				for r := range rows.Rows {
					seen[a0+r]++
					copy(got.RawRowView(a0+r), rows.Data[r*rows.Stride:r*rows.Stride+q])
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			for a, n := range seen {
				if n != 1 {
					t.Fatalf("row %d visited %d times, want once", a, n)
				}
			}
			if !mat.EqualApprox(got, &want, 1e-12) {
				t.Errorf("TMulRows differs from XᵀL by %g", maxAbsDiff(got, &want))
			}
			stop := errors.New("stop")
			if x.C > 0 {
				if err := TMulRows(context.Background(), x, l, func(int, blas64.General) error { return stop }); !errors.Is(err, stop) {
					t.Errorf("visit failing: got %v, want %v", err, stop)
				}
			}
		})
	}
}

func maxAbsDiff(a, b *mat.Dense) float64 {
	var d mat.Dense
	d.Sub(a, b)
	return mat.Norm(&d, math.Inf(1))
}
