package linalg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
)

// TestGemmMatchesGonum: gemmBLAS's Dgemm gives gonum's results, within
// rounding (1e-13 of Σ|a||b| per element, plus |beta·c|), for every
// transposition, shapes around the tile and panel sizes and the
// threshold of the kernel, strides larger than the rows, and alpha and
// beta of 0, 1 and others; with beta = 0 a NaN in C is ignored, as BLAS
// requires. It also checks that blas64 uses it (init).
func TestGemmMatchesGonum(t *testing.T) {
	if _, ok := blas64.Implementation().(gemmBLAS); !ok {
		t.Fatalf("blas64 uses %T, want gemmBLAS", blas64.Implementation())
	}
	rng := rand.New(rand.NewPCG(3, 4))
	shapes := [][3]int{{12, 12, 4}, {64, 64, 64}, {65, 70, 66}, {100, 13, 300}, {13, 200, 130}, {300, 37, 700}, {11, 500, 500}, {257, 129, 1}, {40, 1100, 30}, {30, 1030, 600}}
	trans := []blas.Transpose{blas.NoTrans, blas.Trans}
	for _, sh := range shapes {
		m, n, k := sh[0], sh[1], sh[2]
		for _, tA := range trans {
			for _, tB := range trans {
				for _, ab := range [][2]float64{{1, 0}, {-0.7, 1}, {2.5, -0.3}, {0, 0.5}} {
					alpha, beta := ab[0], ab[1]
					name := fmt.Sprintf("%dx%dx%d/%c%c/alpha=%v,beta=%v", m, n, k, tA, tB, alpha, beta)
					t.Run(name, func(t *testing.T) {
						ar, ac := m, k
						if tA == blas.Trans {
							ar, ac = k, m
						}
						br, bc := k, n
						if tB == blas.Trans {
							br, bc = n, k
						}
						lda, ldb, ldc := ac+3, bc+1, n+5
						a, b := randSlice(rng, ar*lda), randSlice(rng, br*ldb)
						c0 := randSlice(rng, m*ldc)
						if beta == 0 {
							c0[0] = math.NaN()
						}
						want, got := append([]float64(nil), c0...), append([]float64(nil), c0...)
						gonum.Implementation{}.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, want, ldc)
						gemmBLAS{}.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, got, ldc)
						for i := range m {
							for j := range ldc {
								w, g := want[i*ldc+j], got[i*ldc+j]
								if j >= n { // past the row: untouched
									if math.Float64bits(g) != math.Float64bits(c0[i*ldc+j]) {
										t.Fatalf("C[%d][%d] beyond n was changed", i, j)
									}
									continue
								}
								tol := 1e-13 * (float64(k)*math.Abs(alpha) + math.Abs(beta))
								if math.IsNaN(g) || math.Abs(g-w) > tol {
									t.Fatalf("C[%d][%d] = %v, gonum's %v", i, j, g, w)
								}
							}
						}
					})
				}
			}
		}
	}
}

func randSlice(rng *rand.Rand, n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = 2*rng.Float64() - 1
	}
	return s
}

// BenchmarkDgemm: a 1 000 × 1 000 × 1 000 product by gonum's Dgemm and by
// gemmBLAS's.
func BenchmarkDgemm(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 1000
	x, y, c := randSlice(rng, n*n), randSlice(rng, n*n), make([]float64, n*n)
	for _, impl := range []struct {
		name string
		f    blas.Float64
	}{{"gonum", gonum.Implementation{}}, {"kernel", gemmBLAS{}}} {
		b.Run(impl.name, func(b *testing.B) {
			for b.Loop() {
				impl.f.Dgemm(blas.NoTrans, blas.NoTrans, n, n, n, 1, x, n, y, n, 0, c, n)
			}
			b.ReportMetric(2*n*n*n*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
