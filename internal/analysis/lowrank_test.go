package analysis

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/linalg"
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
// leading pairs and the check accepts them (the Gram's pairs, or their
// Rayleigh–Ritz refinement on F), and then agrees with the thin SVD:
// eigenvalues to 1e-10 relative, the span of the directions to
// sin θ ≤ 1e-8, UᵀU = I, a partial spectrum of order r whose total is
// ‖F‖²_F. Where neither can give that — σ_k/σ₁ = 1e-6, a repeated value
// at k, rank below k — or where p needs more (thr, every pair,
// k + 1 ≥ r/2), it returns the SVD's answer itself.
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
		{"ill-conditioned: σ_k/σ₁ = 1e-4 (refined)", geometric(r, 10, math.Pow(10, -4.0/3)), Params{D: 4}, true},
		{"near gap at d: σ_{k+1} = σ_k·(1 − 1e-5)", nearGap(geometric(r, 1000, 0.9), 5, 1e-5), Params{D: 5}, true},
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

// nearGap is sigma with σ_{k+1} set to σ_k·(1 − rel): a near tie at the
// k-th value (1-based).
func nearGap(sigma []float64, k int, rel float64) []float64 {
	sigma[k] = sigma[k-1] * (1 - rel)
	return sigma
}

// lowRankRefine, the Rayleigh–Ritz step on F that follows when the Gram's
// pairs fail their check, agrees with the thin SVD where the Gram alone
// loses digits: σ_k/σ₁ = 1e-4, whose small values G = FᵀF holds only to
// about ε·σ₁², and near ties at k (the subspace check's gap). Eigenvalues
// to 1e-12 relative, sin θ ≤ 1e-9 (ten times inside lowRankEig's promise);
// it refuses where F's pairs cannot be had from G's vectors at all
// (σ_k/σ₁ = 1e-6) and at an exact tie.
func TestLowRankRefine(t *testing.T) {
	const d, r = 300, 40
	repeated := geometric(r, 10, 0.9)
	repeated[5] = repeated[4]
	for _, tc := range []struct {
		name  string
		sigma []float64
		k     int
		ok    bool
	}{
		{"σ_k/σ₁ = 1e-4", geometric(r, 10, math.Pow(10, -4.0/3)), 4, true},
		{"near tie 1e-5 at k", nearGap(geometric(r, 1000, 0.9), 5, 1e-5), 5, true},
		{"near tie 1e-3 at k, fast decay", nearGap(geometric(r, 1000, 0.8), 9, 1e-3), 9, true},
		{"σ_k/σ₁ = 1e-6", geometric(r, 10, 1e-2), 4, false},
		{"tie at k", repeated, 5, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := lowRankMatrix(7, d, tc.sigma)
			g := mat.NewSymDense(r, nil)
			g.SymOuterK(1, f.T())
			vals, v, err := linalg.SymEigTop(context.Background(), g, tc.k+1)
			if err != nil {
				t.Fatal(err)
			}
			got, ok, err := lowRankRefine(context.Background(), f, v, vals, tc.k, trace(g))
			if err != nil {
				t.Fatal(err)
			}
			if ok != tc.ok {
				t.Fatalf("refinement accepted: %v, want %v", ok, tc.ok)
			}
			if !ok {
				return
			}
			want, err := lowRankSVD(mat.DenseCopyOf(f))
			if err != nil {
				t.Fatal(err)
			}
			if len(got.values) != tc.k || got.order != r || got.total != trace(g) {
				t.Fatalf("got %d values of order %d, total %v; want %d of %d, total %v", len(got.values), got.order, got.total, tc.k, r, trace(g))
			}
			for i, v := range got.values {
				if w := want.values[i]; math.Abs(v-w) > 1e-12*w {
					t.Errorf("eigenvalue %d: got %.17g, want %.17g", i+1, v, w)
				}
			}
			wk := mat.DenseCopyOf(want.vectors.Slice(0, d, 0, tc.k))
			if s := lowRankSin(got.vectors, wk); s > 1e-9 {
				t.Errorf("span of the %d directions: sin θ = %.3g from the SVD's, want ≤ 1e-9", tc.k, s)
			}
			for j := range tc.k { // each direction, not only the span, up to sign (fixSigns on both)
				if c := math.Abs(mat.Dot(got.vectors.ColView(j), wk.ColView(j))); math.Abs(c-1) > 1e-9 {
					t.Errorf("direction %d: |cos| = %.17g with the SVD's, want 1 to 1e-9", j+1, c)
				}
			}
		})
	}
}
