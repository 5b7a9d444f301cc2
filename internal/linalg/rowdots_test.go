package linalg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// RowDotTiles' tiles agree with gonum's Gemm of the shifted rows on
// blocks that meet every edge of the tiling: blocks starting and ending
// inside a tile and a group, rows of b not a multiple of 12, many columns
// (more rows of a than one pass over b takes), strided operands, one
// operand packed as both; every product of the block comes in exactly one
// tile, and each row's tiles in increasing columns.
func TestRowDotTiles(t *testing.T) {
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
			checkTiles(t, a, b, s.i0, s.i1, shiftedDots(x, y, shift, s.i0, s.i1))
			checkTiles(t, a, a, s.i0, s.i1, shiftedDots(x, x, shift, s.i0, s.i1))
		})
	}
}

// checkTiles fails t unless RowDotTiles(a, i0, i1, b) hands out want, each
// product once, each row's tiles in increasing columns.
func checkTiles(t *testing.T, a, b *Panels, i0, i1 int, want blas64.General) {
	t.Helper()
	n := b.rows
	got := make([]float64, (i1-i0)*n)
	seen := make([]int, (i1-i0)*n)
	last := make([]int, i1-i0)
	for i := range last {
		last[i] = -1
	}
	RowDotTiles(a, i0, i1, b, new(TileScratch), func(r0, j0 int, tile *[TileRows * TileCols]float64) {
		for i := max(r0, i0); i < min(r0+TileRows, i1); i++ {
			if j0 <= last[i-i0] {
				t.Errorf("row %d: tile at column %d after one at %d", i, j0, last[i-i0])
			}
			last[i-i0] = j0
			for j := j0; j < min(j0+TileCols, n); j++ {
				got[(i-i0)*n+j] = tile[(i-r0)*TileCols+j-j0]
				seen[(i-i0)*n+j]++
			}
		}
	})
	for i := range i1 - i0 {
		for j := range n {
			if seen[i*n+j] != 1 {
				t.Fatalf("product %d, %d came in %d tiles, want 1", i0+i, j, seen[i*n+j])
			}
			if g, w := got[i*n+j], want.Data[i*want.Stride+j]; !(math.Abs(g-w) <= 1e-12*(1+math.Abs(w))) {
				t.Fatalf("product %d, %d is %g, want %g", i0+i, j, g, w)
			}
		}
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

// BenchmarkRowDotTiles measures one goroutine's block of 256 rows against
// all the rows of b (the blocked neighbour search's products), the tiles
// summed as they come, in GFLOP/s of 2·256·N·D, next to gonum's Gemm on
// the same rows into a block of products (which shares its work among
// goroutines on every core).
//
//	go test -run '^$' -bench RowDotTiles ./internal/linalg/
func BenchmarkRowDotTiles(b *testing.B) {
	for _, s := range []struct{ n, d int }{{2166, 294}, {20000, 50}, {10000, 10}, {2000, 1000}} {
		rng := rand.New(rand.NewPCG(uint64(s.n), uint64(s.d)))
		x := randGeneral(rng, s.n, s.d, s.d)
		p := NewPanels(x, nil)
		flops := 2 * 256 * float64(s.n) * float64(s.d)
		b.Run(fmt.Sprintf("linalg/N=%d/D=%d", s.n, s.d), func(b *testing.B) {
			sum := 0.0
			var scratch TileScratch
			for b.Loop() {
				RowDotTiles(p, 0, 256, p, &scratch, func(_, _ int, t *[TileRows * TileCols]float64) { sum += t[0] })
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
		b.Run(fmt.Sprintf("gonum-gemm/N=%d/D=%d", s.n, s.d), func(b *testing.B) {
			a := blas64.General{Rows: 256, Cols: s.d, Stride: s.d, Data: x.Data[:256*s.d]}
			c := blas64.General{Rows: 256, Cols: s.n, Stride: s.n, Data: make([]float64, 256*s.n)}
			for b.Loop() {
				blas64.Gemm(blas.NoTrans, blas.Trans, 1, a, x, 0, c)
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
