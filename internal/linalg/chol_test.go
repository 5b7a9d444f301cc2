package linalg

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// randSPD is XᵀX/rows + shift·I for a random X with rows rows: positive
// definite, with a condition number that grows as shift shrinks.
func randSPD(rng *rand.Rand, n, rows int, shift float64) *mat.SymDense {
	x := mat.NewDense(rows, n, nil)
	for i := range rows {
		for j := range n {
			x.Set(i, j, rng.NormFloat64()+float64(j%5)/4)
		}
	}
	a := mat.NewSymDense(n, nil)
	a.SymOuterK(1/float64(rows), x.T())
	for i := range n {
		a.SetSym(i, i, a.At(i, i)+shift)
	}
	return a
}

// upperOf copies a into a row-major buffer of stride stride (≥ n) whose
// strict lower triangle holds a sentinel, to check that it is not touched.
func upperOf(a *mat.SymDense, stride int, sentinel float64) blas64.Symmetric {
	n := a.SymmetricDim()
	s := blas64.Symmetric{N: n, Stride: stride, Uplo: blas.Upper, Data: make([]float64, max(0, (n-1)*stride+n))}
	for i := range n {
		for j := range n {
			v := sentinel
			if j >= i {
				v = a.At(i, j)
			}
			s.Data[i*stride+j] = v
		}
	}
	return s
}

// Cholesky's factor equals gonum's (mat.Cholesky) on positive definite
// matrices of awkward sizes — below, at and around the kernel's 4×12 tiles,
// the solve's 64-row blocks and the factorisation's 256-column blocks —
// with a stride wider than the matrix, and leaves the strict lower
// triangle alone.
func TestCholesky(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 1))
	for _, n := range []int{1, 2, 7, 8, 11, 12, 13, 47, 48, 49, 63, 64, 65, 255, 256, 257, 300, 600} {
		for _, pad := range []int{0, 3} {
			t.Run(fmt.Sprintf("n=%d/stride=n+%d", n, pad), func(t *testing.T) {
				a := randSPD(rng, n, n+20, 0.1)
				const sentinel = -12345.5
				s := upperOf(a, n+pad, sentinel)
				if err := Cholesky(context.Background(), s); err != nil {
					t.Fatalf("Cholesky: got error %v, want nil", err)
				}
				var ch mat.Cholesky
				if !ch.Factorize(a) {
					t.Fatal("gonum's Cholesky failed on a positive definite matrix")
				}
				var want mat.TriDense
				ch.UTo(&want)
				worst, scale := 0.0, 0.0
				for i := range n {
					for j := range n {
						got := s.Data[i*s.Stride+j]
						if j < i {
							if got != sentinel {
								t.Fatalf("entry (%d, %d) below the diagonal: got %v, want it untouched (%v)", i, j, got, sentinel)
							}
							continue
						}
						worst = max(worst, math.Abs(got-want.At(i, j)))
						scale = max(scale, math.Abs(want.At(i, j)))
					}
				}
				if worst > 1e-12*scale {
					t.Errorf("factor: got max difference %.3g from gonum's, want ≤ %.3g", worst, 1e-12*scale)
				}
			})
		}
	}
}

// A matrix that is not positive definite gives NotPositiveDefiniteError,
// whether the failing pivot is in the first block or a later one.
func TestCholeskyNotDefinite(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 2))
	for _, tc := range []struct {
		n, bad, wantCol int
	}{
		{1, 0, 0},
		{7, 3, 0},
		{300, 280, 256},
		{300, 10, 0},
	} {
		t.Run(fmt.Sprintf("n=%d/bad=%d", tc.n, tc.bad), func(t *testing.T) {
			a := randSPD(rng, tc.n, tc.n+20, 0.1)
			// A negative diagonal entry makes A indefinite.
			a.SetSym(tc.bad, tc.bad, -1)
			err := Cholesky(context.Background(), upperOf(a, tc.n, 0))
			var nd *NotPositiveDefiniteError
			if !errors.As(err, &nd) {
				t.Fatalf("got error %v, want a NotPositiveDefiniteError", err)
			}
			if nd.Col != tc.wantCol {
				t.Errorf("got column %d, want the block from %d", nd.Col, tc.wantCol)
			}
		})
	}
	lower := blas64.Symmetric{N: 1, Stride: 1, Uplo: blas.Lower, Data: []float64{1}}
	if err := Cholesky(context.Background(), lower); err == nil {
		t.Errorf("Cholesky of a lower triangle: got nil error, want one")
	}
}

// A cancelled context stops the factorisation and the solve.
func TestCholeskyCancel(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 3))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	a := upperOf(randSPD(rng, 300, 320, 0.1), 300, 0)
	if err := Cholesky(ctx, a); !errors.Is(err, context.Canceled) {
		t.Errorf("Cholesky: got error %v, want context.Canceled", err)
	}
	u := blas64.Triangular{N: 300, Stride: 300, Uplo: blas.Upper, Diag: blas.NonUnit, Data: a.Data}
	b := randGeneral(rng, 300, 5, 5)
	if err := SolveUpperT(ctx, u, b); !errors.Is(err, context.Canceled) {
		t.Errorf("SolveUpperT: got error %v, want context.Canceled", err)
	}
}

// SolveUpperT equals gonum's Trsm (U⁻ᵀb) on awkward sizes of the triangle
// and of b's columns, with strides wider than the matrices.
func TestSolveUpperT(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 4))
	for _, n := range []int{1, 7, 63, 64, 65, 129, 300} {
		for _, m := range []int{1, 9, 130} {
			t.Run(fmt.Sprintf("n=%d/m=%d", n, m), func(t *testing.T) {
				a := upperOf(randSPD(rng, n, n+20, 0.1), n+1, 0)
				if err := Cholesky(context.Background(), a); err != nil {
					t.Fatal(err)
				}
				u := blas64.Triangular{N: n, Stride: a.Stride, Uplo: blas.Upper, Diag: blas.NonUnit, Data: a.Data}
				b := randGeneral(rng, n, m, m+2)
				want := blas64.General{Rows: n, Cols: m, Stride: b.Stride, Data: append([]float64(nil), b.Data...)}
				blas64.Trsm(blas.Left, blas.Trans, 1, u, want)
				if err := SolveUpperT(context.Background(), u, b); err != nil {
					t.Fatalf("SolveUpperT: got error %v, want nil", err)
				}
				worst, scale := 0.0, 0.0
				for i := range n {
					for j := range m {
						w := want.Data[i*want.Stride+j]
						worst = max(worst, math.Abs(b.Data[i*b.Stride+j]-w))
						scale = max(scale, math.Abs(w))
					}
				}
				if worst > 1e-11*scale {
					t.Errorf("got max difference %.3g from gonum's Trsm, want ≤ %.3g", worst, 1e-11*scale)
				}
			})
		}
	}
	u := blas64.Triangular{N: 2, Stride: 2, Uplo: blas.Upper, Diag: blas.NonUnit, Data: []float64{1, 0, 0, 1}}
	if err := SolveUpperT(context.Background(), u, randGeneral(rng, 3, 1, 1)); err == nil {
		t.Errorf("SolveUpperT with 3 rows for a 2×2 triangle: got nil error, want one")
	}
}

// addAtB agrees with the definition c += alpha·AᵀB on shapes at and
// around the tile, panel and block sizes, with more rows than one packed
// block, and with upper leaving the strict lower triangle alone.
func TestAddAtB(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 5))
	for _, tc := range []struct {
		k, m, n int
		upper   bool
	}{
		{1, 1, 1, false}, {3, 5, 7, false}, {17, 64, 8, false}, {300, 65, 9, false},
		{513, 130, 70, false}, {1, 1, 1, true}, {9, 13, 13, true}, {257, 129, 129, true},
		{40, 200, 200, true},
	} {
		t.Run(fmt.Sprintf("%d×%d×%d/upper=%v", tc.k, tc.m, tc.n, tc.upper), func(t *testing.T) {
			a := randGeneral(rng, tc.k, tc.m, tc.m+1)
			b := randGeneral(rng, tc.k, tc.n, tc.n)
			c := randGeneral(rng, tc.m, tc.n, tc.n+2)
			before := append([]float64(nil), c.Data...)
			const alpha = -0.75
			addAtB(alpha, a, b, c, tc.upper)
			for i := range tc.m {
				for j := range tc.n {
					got := c.Data[i*c.Stride+j]
					want := before[i*c.Stride+j]
					if !tc.upper || j >= i {
						for r := range tc.k {
							want += alpha * a.Data[r*a.Stride+i] * b.Data[r*b.Stride+j]
						}
					}
					if math.Abs(got-want) > 1e-11*float64(tc.k+1)*16 {
						t.Fatalf("c[%d, %d]: got %v, want %v", i, j, got, want)
					}
				}
			}
		})
	}
}
