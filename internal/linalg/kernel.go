package linalg

// kernel4x8 adds to the 4×8 tile c (row stride ldc) the products of k
// packed rows: c[i][j] += Σ_r a[8r+i]·b[8r+j]. It is the assembly kernel
// where the CPU has AVX2 and FMA, kernel4x8Go otherwise.
var kernel4x8 = kernel4x8Go

// kernel4x8Go is the portable micro-kernel, and the reference the
// assembly one is tested against.
func kernel4x8Go(k int, a, b, c []float64, ldc int) {
	var acc [tileRows][panelWidth]float64
	for r := range k {
		ar := a[r*panelWidth : r*panelWidth+tileRows]
		br := b[r*panelWidth : r*panelWidth+panelWidth]
		for i, av := range ar {
			for j, bv := range br {
				acc[i][j] += av * bv
			}
		}
	}
	for i := range tileRows {
		row := c[i*ldc : i*ldc+panelWidth]
		for j := range panelWidth {
			row[j] += acc[i][j]
		}
	}
}
