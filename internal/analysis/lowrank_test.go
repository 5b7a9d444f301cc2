package analysis

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// lowRankMatrix is F = W·diag(sigma)·Vᵀ (D×r) with W (D×r) and V (r×r)
// seeded random orthonormal: singular values exactly sigma, up to rounding.
func lowRankMatrix(seed uint64, d int, sigma []float64) *mat.Dense {
	rng := rand.New(rand.NewPCG(seed, 21))
	r := len(sigma)
	orth := func(rows int) *mat.Dense {
		a := mat.NewDense(rows, r, nil)
		for i := range rows {
			for j := range r {
				a.Set(i, j, rng.NormFloat64())
			}
		}
		var qr mat.QR
		qr.Factorize(a)
		var q mat.Dense
		qr.QTo(&q)
		return mat.DenseCopyOf(q.Slice(0, rows, 0, r))
	}
	w, v := orth(d), orth(r)
	for j, s := range sigma {
		for i := range d {
			w.Set(i, j, w.At(i, j)*s)
		}
	}
	var f mat.Dense
	f.Mul(w, v.T())
	return &f
}

// geometric is n values from first, each ratio times the one before.
func geometric(n int, first, ratio float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = first
		first *= ratio
	}
	return out
}

// lowRankSin is sin of the largest principal angle between the spans of
// the orthonormal columns of a and b.
func lowRankSin(a, b *mat.Dense) float64 {
	var c, r mat.Dense
	c.Mul(b.T(), a)
	r.Mul(b, &c)
	r.Sub(a, &r)
	return mat.Norm(&r, 2)
}

// lowRankEig takes the route through the r×r Gram when p needs only a few
// leading pairs and the check accepts them, and then agrees with the thin
// SVD: eigenvalues to 1e-10 relative, the span of the directions to
// sin θ ≤ 1e-8, UᵀU = I, a partial spectrum of order r whose total is
// ‖F‖²_F. Where the Gram cannot give that — σ_k ≪ σ₁, a repeated value at
// k, rank below k — or where p needs more (thr, every pair, k + 1 ≥ r/2),
// it returns the SVD's answer itself.
func TestLowRankTop(t *testing.T) {
	const d, r = 300, 40
	mild := geometric(r, 10, 0.97)
	repeated := geometric(r, 10, 0.9)
	repeated[5] = repeated[4]
	deficient := geometric(r, 10, 0.9)
	for i := 3; i < r; i++ {
		deficient[i] = 0
	}
	for _, tc := range []struct {
		name  string
		sigma []float64
		p     Params
		gram  bool
	}{
		{"mild decay, d", mild, Params{D: 5}, true},
		{"mild decay, MaxDim", mild, Params{MaxDim: 8}, true},
		{"fast decay, d", geometric(r, 10, 0.5), Params{D: 4}, true},
		{"ill-conditioned: σ_k/σ₁ = 1e-6", geometric(r, 10, 1e-2), Params{D: 4}, false},
		{"ill-conditioned: σ_k/σ₁ = 1e-4", geometric(r, 10, math.Pow(10, -4.0/3)), Params{D: 4}, false},
		{"repeated at d", repeated, Params{D: 5}, false},
		{"rank below d", deficient, Params{D: 5}, false},
		{"thr", mild, Params{Thr: 0.5}, false},
		{"every pair", mild, Params{D: 5, MaxDim: MaxDimAll}, false},
		{"d + 1 = r/2", mild, Params{D: r/2 - 1}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := lowRankMatrix(7, d, tc.sigma)
			want, err := lowRankSVD(mat.DenseCopyOf(f))
			if err != nil {
				t.Fatal(err)
			}
			got, err := lowRankEig(context.Background(), mat.DenseCopyOf(f), tc.p)
			if err != nil {
				t.Fatalf("lowRankEig: %v", err)
			}
			if !tc.gram {
				if got.partial() || !mat.Equal(got.vectors, want.vectors) || fmt.Sprint(got.values) != fmt.Sprint(want.values) {
					t.Errorf("got %d of %d values, want the SVD's answer (%d values) itself", len(got.values), got.order, len(want.values))
				}
				return
			}
			k := max(tc.p.D, tc.p.MaxDim)
			if !got.partial() || len(got.values) != k || got.order != r {
				t.Fatalf("got %d values of order %d, want the %d leading of %d (the Gram route)", len(got.values), got.order, k, r)
			}
			fro := mat.Norm(f, 2) // gonum's 2-norm of a matrix is the Frobenius norm
			if math.Abs(got.total-fro*fro) > 1e-12*fro*fro {
				t.Errorf("total: got %v, want ‖F‖²_F = %v", got.total, fro*fro)
			}
			for i, v := range got.values {
				if w := want.values[i]; math.Abs(v-w) > 1e-10*w {
					t.Errorf("eigenvalue %d: got %.17g, want %.17g", i+1, v, w)
				}
			}
			wk := mat.DenseCopyOf(want.vectors.Slice(0, d, 0, k))
			if s := lowRankSin(got.vectors, wk); s > 1e-8 {
				t.Errorf("span of the %d directions: sin θ = %.3g from the SVD's, want ≤ 1e-8", k, s)
			}
			var utu mat.Dense
			utu.Mul(got.vectors.T(), got.vectors)
			for i := range k {
				utu.Set(i, i, utu.At(i, i)-1)
			}
			if e := mat.Norm(&utu, math.Inf(1)); e > 1e-10 {
				t.Errorf("UᵀU − I: got max row sum %.3g, want ≤ 1e-10", e)
			}
		})
	}
}
