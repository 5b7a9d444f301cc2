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

// denseOp is a as a SymOp, counting the vectors it is applied to.
func denseOp(a *mat.SymDense, count *int) SymOp {
	n := a.SymmetricDim()
	return SymOp{
		N: n,
		Apply: func(ctx context.Context, v, av blas64.General) error {
			*count += v.Cols
			blas64.Symm(blas.Left, 1, a.RawSymmetric(), v, 0, av)
			return ctx.Err()
		},
		Cost: 2 * float64(n) * float64(n),
	}
}

// TestSymEigTopOp holds the operator form to SymEigTop's contract on the
// same matrices (but for multiplicities above its block at the k-th
// position, where only the residuals are promised): residuals within TopTol·‖A‖₂, orthonormal vectors, values
// within TopTol·‖A‖ of SymEig's and the same subspaces; and it checks which
// route was taken: the iteration (fewer products than the order) where
// the iteration does not apply, the formed matrix (n products). Matrices
// whose entries SymEigTop would rescale are left out (see SymEigTopOp).
func TestSymEigTopOp(t *testing.T) {
	for _, n := range []int{50, 300, 600} {
		for _, c := range topMatrices(n) {
			up := make([]float64, n*n)
			if err := copyUpper(up, c.a); err != nil {
				t.Fatal(err)
			}
			if safeScale(up, n) != 1 {
				continue // outside the range the operator form is documented for
			}
			full, fullV, err := SymEig(context.Background(), c.a)
			if err != nil {
				t.Fatal(err)
			}
			norm := spectralNorm(full)
			for _, k := range []int{1, 5, 20} {
				if k > n {
					continue
				}
				t.Run(fmt.Sprintf("%s/n=%d/k=%d", c.name, n, k), func(t *testing.T) {
					products := 0
					values, vectors, err := SymEigTopOp(context.Background(), denseOp(c.a, &products), k)
					if err != nil {
						t.Fatalf("SymEigTopOp: %v", err)
					}
					if r, cc := vectors.Dims(); len(values) != k || r != n || cc != k {
						t.Fatalf("got %d values and %d×%d vectors, want %d and %d×%d", len(values), r, cc, k, n, k)
					}
					resid, orth, problems := eigenError(c.a, values, vectors)
					for _, p := range problems {
						t.Error(p)
					}
					resid *= symNorm(c.a) / norm
					if resid > TopTol {
						t.Errorf("residual ‖Av − λv‖/‖A‖₂ = %.3g, want ≤ %.0e", resid, TopTol)
					}
					if tol := 8 * float64(n) * eps; orth > tol {
						t.Errorf("‖VᵀV − I‖ = %.3g, want ≤ %.3g", orth, tol)
					}
					// An eigenvalue of multiplicity above the block at the
					// k-th position may show fewer copies (documented): only
					// the residuals and orthonormality are promised then.
					mult := 0
					for _, v := range full {
						if math.Abs(v-full[k-1]) <= 1e-8*norm {
							mult++
						}
					}
					if mult > opBlock {
						t.Logf("λ_k has multiplicity %d > %d: values and spans not compared", mult, opBlock)
						return
					}
					if d, tol := maxDiff(values, full[:k]), (TopTol+2*float64(n)*eps)*norm; d > tol {
						t.Errorf("values differ from SymEig's by %.3g, want ≤ %.3g", d, tol)
					}
					delta := 1e-8 * norm
					lo, hi := k, 0
					for lo < n && full[lo] >= values[k-1]-delta {
						lo++
					}
					for hi < k && full[hi] > values[k-1]+delta {
						hi++
					}
					if g := subspaceGap(vectors, fullV.Slice(0, n, 0, lo)); g > 1e-6 {
						t.Errorf("span of the %d vectors is %.3g away from the %d leading eigenvectors", k, g, lo)
					}
					if hi > 0 {
						if g := subspaceGap(fullV.Slice(0, n, 0, hi), vectors); g > 1e-6 {
							t.Errorf("the %d eigenvectors above λ_k are %.3g away from the span", hi, g)
						}
					}
					// The route: no iteration where it does not apply, only
					// the n products that form the matrix.
					if !TopIterates(n, k) && products != n {
						t.Errorf("%d vector products, want the order %d (the matrix formed for the direct method)", products, n)
					}
				})
			}
		}
	}
}

// TestSymEigTopOpMatchesDense: the operator form of a matrix and SymEigTop
// of the matrix take the same iteration, so they agree far inside the
// contract (the products round differently, nothing else); and a
// cluster at the top that the iteration gives up on is solved from the
// formed matrix.
func TestSymEigTopOpMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	n, k := 500, 10
	// A spectrum with a gap after k: fast convergence on both.
	lam := make([]float64, n)
	for i := range lam {
		lam[i] = math.Pow(0.9, float64(i))
	}
	a := rotated(rng, lam)
	want, wantV, err := SymEigTop(context.Background(), a, k)
	if err != nil {
		t.Fatal(err)
	}
	products := 0
	got, gotV, err := SymEigTopOp(context.Background(), denseOp(a, &products), k)
	if err != nil {
		t.Fatal(err)
	}
	if products >= n {
		t.Fatalf("%d vector products, want fewer than %d (the iteration)", products, n)
	}
	if d := maxDiff(got, want); d > 1e-13 {
		t.Errorf("values differ from SymEigTop's by %.3g, want ≤ 1e-13", d)
	}
	if g := subspaceGap(gotV, wantV); g > 1e-10 {
		t.Errorf("span differs from SymEigTop's by %.3g, want ≤ 1e-10", g)
	}

	// 60 values within 1e-9 at the top, with a dense-matrix cost: the
	// iteration gives up and the matrix is formed (n more products).
	top := make([]float64, n)
	for i := range top {
		if i < 60 {
			top[i] = 10 + 1e-9*float64(i)
		} else {
			top[i] = rng.Float64()
		}
	}
	c := rotated(rng, top)
	products = 0
	vals, vecs, err := SymEigTopOp(context.Background(), denseOp(c, &products), 20)
	if err != nil {
		t.Fatal(err)
	}
	if products < n {
		t.Errorf("%d vector products, want at least %d (the iteration given up, the matrix formed)", products, n)
	}
	resid, _, problems := eigenError(c, vals, vecs)
	for _, p := range problems {
		t.Error(p)
	}
	if resid > TopTol {
		t.Errorf("top cluster: residual %.3g, want ≤ %.0e", resid, TopTol)
	}
}

func TestSymEigTopOpErrors(t *testing.T) {
	ok := mat.NewSymDense(3, []float64{2, 1, 0, 1, 2, 0, 0, 0, 1})
	count := 0
	good := denseOp(ok, &count)
	nanOp := SymOp{N: 300, Apply: func(_ context.Context, v, av blas64.General) error {
		for i := range av.Data {
			av.Data[i] = math.NaN()
		}
		return nil
	}}
	boom := errors.New("boom")
	failing := SymOp{N: 300, Apply: func(context.Context, blas64.General, blas64.General) error { return boom }}
	tests := []struct {
		name string
		op   SymOp
		k    int
		want error
	}{
		{"empty", SymOp{}, 1, ErrEmpty},
		{"k=0", good, 0, ErrBadK},
		{"k>n", good, 4, ErrBadK},
		{"nan", nanOp, 2, ErrNotFinite},
		{"apply fails", failing, 2, boom},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, err := SymEigTopOp(context.Background(), tc.op, tc.k); !errors.Is(err, tc.want) {
				t.Errorf("got error %v, want %v", err, tc.want)
			}
		})
	}
}

func TestSymEigTopOpCancel(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	a := randomSym(rng, 400, 1)
	count := 0
	op := denseOp(a, &count)
	checkCancel(t, "SymEigTopOp", func(ctx context.Context) error { _, _, err := SymEigTopOp(ctx, op, 10); return err })
}

// TestLanczosEarly checks the op route's early end of a cycle: on a
// spectrum whose 30 leading eigenvalues (10, 9.8, …, 4.2) stand well apart from a bulk in
// [0, 1), the shape with estimated residuals stops within its first cycle
// (which would otherwise run to its full length), with no more products
// than the growing cycles of the same block, and both answers pass the
// accuracy check on products formed here and equal SymEig's values.
func TestLanczosEarly(t *testing.T) {
	const n, k = 2000, 20
	rng := rand.New(rand.NewPCG(3, 3))
	lam := make([]float64, n)
	for i := range lam {
		if i < 30 {
			lam[i] = 10 - 0.2*float64(i)
		} else {
			lam[i] = rng.Float64()
		}
	}
	a := rotated(rng, lam)
	full := make([]float64, n*n)
	if err := copyUpper(full, a); err != nil {
		t.Fatal(err)
	}
	mirrorUpper(full, n)
	want, _, err := SymEig(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	norm := spectralNorm(want)
	products := map[bool]int{}
	for _, early := range []bool{true, false} {
		shape := opShape(k)
		shape.early = early
		count := 0
		dense := denseRows(full, n)
		apply := func(ctx context.Context, blk, w []float64, b int) error {
			count += b
			return dense(ctx, blk, w, b)
		}
		vals, yt, err := lanczosTop(context.Background(), apply, n, k, shape, 2*float64(n)*float64(n), 0)
		if err != nil {
			t.Fatal(err)
		}
		if yt == nil {
			t.Fatalf("early %v: the iteration gave up", early)
		}
		products[early] = count
		y := columnsFromRows(yt, n, seq(k))
		var ay mat.Dense
		ay.Mul(a, y)
		for i := range k {
			if d := math.Abs(vals[i] - want[i]); d > 1e-10*norm {
				t.Errorf("early %v: value %d is %v, SymEig's %v", early, i, vals[i], want[i])
			}
			r := mat.NewVecDense(n, nil)
			r.AddScaledVec(ay.ColView(i), -vals[i], y.ColView(i))
			if res := mat.Norm(r, 2); res > TopTol*norm {
				t.Errorf("early %v: residual %d is %.3g, above %.3g", early, i, res, TopTol*norm)
			}
		}
	}
	firstCycle := min(n, k+opExtra+opBlocksPerCycle*opBlock) / opBlock * opBlock
	if products[true] >= firstCycle || products[true] > products[false] {
		t.Errorf("products: %d with the early end, %d without, a first cycle %d", products[true], products[false], firstCycle)
	}
	t.Logf("products: %d with the early end, %d without", products[true], products[false])
}
