// Package kernel is the micro-kernel of the linalg package's products: a
// 4×8 tile of sums of products of packed rows, in AVX2/FMA assembly where
// the CPU has it and in Go elsewhere. (Go assembly cannot share a package
// with cgo, which the openblas build of linalg uses.)
package kernel

// Width is the columns of a tile and of a packed panel: row r of a panel
// is its 8 values at [8r, 8r+8).
const Width = 8

// Rows is the rows of a tile.
const Rows = 4

// Tile4x8 adds to the 4×8 tile c (row stride ldc) the products of k
// packed rows: c[i][j] += Σ_r a[8r+i]·b[8r+j]. It is the assembly kernel
// where the CPU has AVX2 and FMA, Tile4x8Go otherwise.
var Tile4x8 = Tile4x8Go

// Tile4x8Go is the portable micro-kernel, and the reference the assembly
// one is tested against.
func Tile4x8Go(k int, a, b, c []float64, ldc int) {
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
