package linalg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// RowDots agrees with gonum's Gemm of the shifted rows on blocks that meet
// every edge of the tiling: blocks starting and ending inside a tile and a
// group, rows of b not a multiple of 12, an inner dimension of several
// chunks, strided operands, one operand packed as both; entries outside
// the block (past b's rows, within ldc) are left as they were.
func TestRowDots(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, s := range []struct{ na, nb, d, i0, i1 int }{
		{1, 1, 1, 0, 1}, {13, 25, 7, 0, 13}, {30, 12, 3, 5, 27}, {30, 37, 300, 3, 4},
		{300, 50, 513, 1, 299}, {40, 40, 20, 0, 40}, {20, 5, 4, 7, 7}, {50, 29, 0, 0, 50},
	} {
		t.Run(fmt.Sprintf("A=%d/B=%d/D=%d/rows=%d…%d", s.na, s.nb, s.d, s.i0, s.i1), func(t *testing.T) {
			x := randGeneral(rng, s.na, s.d, s.d+3)
			y := randGeneral(rng, s.nb, s.d, s.d+1)
			shift := make([]float64, s.d)
			for j := range shift {
				shift[j] = rng.NormFloat64()
			}
			a, b := NewPanels(x, shift), NewPanels(y, shift)
			if r, c := a.Dims(); r != s.na || c != s.d {
				t.Fatalf("got Dims %d, %d, want %d, %d", r, c, s.na, s.d)
			}
			if got, want := len(a.data), PanelsLen(s.na, s.d); got != want {
				t.Fatalf("got %d packed values, want PanelsLen %d", got, want)
			}
			ldc := s.nb + 2
			c := make([]float64, max(0, (s.i1-s.i0)*ldc))
			for i := range c {
				c[i] = math.NaN() // every entry of the block must be set
				if i%ldc >= s.nb {
					c[i] = 7
				}
			}
			RowDots(a, s.i0, s.i1, b, c, ldc)
			want := shiftedDots(x, y, shift, s.i0, s.i1)
			for i := range s.i1 - s.i0 {
				for j := range ldc {
					got := c[i*ldc+j]
					if j >= s.nb {
						if got != 7 {
							t.Fatalf("c[%d][%d] past b's rows is %g, want 7 left as it was", i, j, got)
						}
						continue
					}
					if w := want.Data[i*want.Stride+j]; !(math.Abs(got-w) <= 1e-12*(1+math.Abs(w))) {
						t.Fatalf("c[%d][%d] = %g, want %g", i, j, got, w)
					}
				}
			}
			self := make([]float64, (s.i1-s.i0)*s.na)
			RowDots(a, s.i0, s.i1, a, self, s.na)
			wantSelf := shiftedDots(x, x, shift, s.i0, s.i1)
			for i := range s.i1 - s.i0 {
				for j := range s.na {
					if got, w := self[i*s.na+j], wantSelf.Data[i*wantSelf.Stride+j]; !(math.Abs(got-w) <= 1e-12*(1+math.Abs(w))) {
						t.Fatalf("a·aᵀ: c[%d][%d] = %g, want %g", i, j, got, w)
					}
				}
			}
		})
	}
}

// shiftedDots is rows i0…i1−1 of (x − shift)(y − shift)ᵀ by gonum's Gemm.
func shiftedDots(x, y blas64.General, shift []float64, i0, i1 int) blas64.General {
	sub := func(g blas64.General, r0, r1 int) blas64.General {
		out := blas64.General{Rows: r1 - r0, Cols: g.Cols, Stride: max(1, g.Cols), Data: make([]float64, (r1-r0)*g.Cols)}
		for i := r0; i < r1; i++ {
			for j := range g.Cols {
				out.Data[(i-r0)*out.Stride+j] = g.Data[i*g.Stride+j] - shift[j]
			}
		}
		return out
	}
	xs, ys := sub(x, i0, i1), sub(y, 0, y.Rows)
	c := blas64.General{Rows: i1 - i0, Cols: y.Rows, Stride: max(1, y.Rows), Data: make([]float64, (i1-i0)*y.Rows)}
	if i1 > i0 && x.Cols > 0 {
		blas64.Gemm(blas.NoTrans, blas.Trans, 1, xs, ys, 0, c)
	}
	return c
}

// BenchmarkRowDots measures one goroutine's block of 256 rows against all
// the rows of b (the blocked neighbour search's product), in GFLOP/s of
// 2·256·N·D, next to gonum's Gemm on the same centred rows.
//
//	go test -run '^$' -bench RowDots ./internal/linalg/
func BenchmarkRowDots(b *testing.B) {
	for _, s := range []struct{ n, d int }{{2166, 294}, {20000, 50}, {2000, 1000}} {
		rng := rand.New(rand.NewPCG(uint64(s.n), uint64(s.d)))
		x := randGeneral(rng, s.n, s.d, s.d)
		p := NewPanels(x, nil)
		c := make([]float64, 256*s.n)
		flops := 2 * 256 * float64(s.n) * float64(s.d)
		b.Run(fmt.Sprintf("linalg/N=%d/D=%d", s.n, s.d), func(b *testing.B) {
			for b.Loop() {
				RowDots(p, 0, 256, p, c, s.n)
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
		b.Run(fmt.Sprintf("gonum-gemm/N=%d/D=%d", s.n, s.d), func(b *testing.B) {
			a := blas64.General{Rows: 256, Cols: s.d, Stride: s.d, Data: x.Data[:256*s.d]}
			cg := blas64.General{Rows: 256, Cols: s.n, Stride: s.n, Data: c}
			for b.Loop() {
				blas64.Gemm(blas.NoTrans, blas.Trans, 1, a, x, 0, cg)
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
