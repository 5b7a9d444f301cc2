// Package kernel is the micro-kernel of the linalg package's products: a
// 4×12 tile of sums of products of packed rows, in AVX2/FMA assembly where
// the CPU has it and in Go elsewhere. (Go assembly cannot share a package
// with cgo, which the openblas build of linalg uses.)
package kernel

// Width is the columns of a tile and of a packed panel: row r of a panel
// is its 12 values at [12r, 12r+12). Twelve, not eight: a 4×12 tile keeps
// 12 accumulators in flight, which covers the FMA units' latency where
// 4×8's 8 did not (on Zen 3, 40 GFLOP/s a core in the L1 cache against
// 27; BenchmarkTile).
const Width = 12

// Rows is the rows of a tile.
const Rows = 4

// Tile adds to the 4×12 tile c (row stride ldc) the products of k packed
// rows: c[i][j] += Σ_r a[12r+i]·b[12r+j]. It is the assembly kernel where
// the CPU has AVX2 and FMA, TileGo otherwise.
var Tile = TileGo

// TileGo is the portable micro-kernel, and the reference the assembly one
// is tested against.
func TileGo(k int, a, b, c []float64, ldc int) {
	var acc [Rows][Width]float64
	for r := range k {
		ar := a[r*Width : r*Width+Rows]
		br := b[r*Width : r*Width+Width]
		for i, av := range ar {
			for j, bv := range br {
				acc[i][j] += av * bv
			}
		}
	}
	for i := range Rows {
		row := c[i*ldc : i*ldc+Width]
		for j := range Width {
			row[j] += acc[i][j]
		}
	}
}
