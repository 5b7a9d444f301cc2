package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/sparse"
)

// powerLawLabels is n rows of q 0/1 labels shaped like the Extreme
// Classification Repository's: 1 + Poisson-like(perRow − 1) labels a row,
// each drawn with p(j) ∝ (j + 1)^−alpha, so that a few labels are
// frequent and a long tail is rare (some unused: constant columns). The
// features are n×4 Gaussian, which plst does not read.
func powerLawLabels(seed uint64, n, q int, perRow, alpha float64) Input {
	rng := rand.New(rand.NewPCG(seed, 17))
	cum := make([]float64, q)
	s := 0.0
	for j := range q {
		s += math.Pow(float64(j+1), -alpha)
		cum[j] = s
	}
	y := mat.NewDense(n, q, nil)
	x := mat.NewDense(n, 4, nil)
	for i := range n {
		count := 1
		for rng.Float64() < (perRow-1)/perRow && count < q/2 {
			count++
		}
		for range count {
			j, _ := slices.BinarySearch(cum, rng.Float64()*s)
			y.Set(i, min(j, q-1), 1)
		}
		for j := range 4 {
			x.Set(i, j, rng.NormFloat64())
		}
	}
	return Input{X: x, Y: y}
}

// TestLabelOperatorMatchesGram fits plst by the label-Gram operator and by
// the formed q×q matrix (both forced) on power-law labels (q = 400 and
// 900, some labels unused; with 300 and 700 rows the operator iterates on
// the rows' side, 4·YcYcᵀ) and requires the same leading eigenvalues
// (1e-10 relative to their own), the same subspaces and codes (1e-8 in
// sin θ), the same total, energy, rank and order; the phases say which
// route each took. It also holds the automatic choice: the operator for
// these shapes at d = 20, the formed matrix for thr and for q below 200.
func TestLabelOperatorMatchesGram(t *testing.T) {
	for _, tc := range []struct {
		n, q int
		p    Params
	}{
		{3000, 400, Params{D: 20}},
		{3000, 400, Params{D: 5, MaxDim: 40}},
		{5000, 900, Params{D: 100}},
		{300, 900, Params{D: 20}},  // fewer rows than labels: the rows' side
		{700, 900, Params{D: 100}}, // likewise
	} {
		in := powerLawLabels(uint64(tc.q), tc.n, tc.q, 4, 1.1)
		t.Run(fmt.Sprintf("N=%d q=%d d=%d MaxDim=%d", tc.n, tc.q, tc.p.D, tc.p.MaxDim), func(t *testing.T) {
			want, gramPhases := fitRoute(t, "plst", in, routeGram, tc.p)
			got, freePhases := fitRoute(t, "plst", in, routeFree, tc.p)
			if !slices.Contains(freePhases, opPhase) || slices.Contains(gramPhases, opPhase) {
				t.Fatalf("phases: operator %q, formed %q; want %q in the first only", freePhases, gramPhases, opPhase)
			}
			if got.Dim != want.Dim || got.Order != want.Order || got.Rank != want.Rank || got.RankAtLeast != want.RankAtLeast {
				t.Fatalf("got d = %d, order %d, rank %d (at least %v); want %d, %d, %d (%v)",
					got.Dim, got.Order, got.Rank, got.RankAtLeast, want.Dim, want.Order, want.Rank, want.RankAtLeast)
			}
			if math.Abs(got.Total-want.Total) > 1e-12*want.Total || math.Abs(got.Energy-want.Energy) > 1e-10 {
				t.Errorf("total %v, energy %v; want %v, %v", got.Total, got.Energy, want.Total, want.Energy)
			}
			k := max(tc.p.D, tc.p.MaxDim)
			if len(got.Eigenvalues) != k {
				t.Fatalf("got %d eigenvalues, want the %d leading", len(got.Eigenvalues), k)
			}
			requireSameLeading(t, got, want, k)
			if _, ok := labelFree(in, in.ones(), tc.p); !ok {
				t.Errorf("the automatic choice takes the formed matrix; want the operator at q = %d, d = %d", tc.q, tc.p.D)
			}
		})
	}
	small := powerLawLabels(1, 500, 150, 4, 1.1)
	if _, ok := labelFree(small, binaryRows(small.Y), Params{D: 20}); ok {
		t.Error("the automatic choice takes the operator at q = 150; want the formed matrix below 200 labels")
	}
	big := powerLawLabels(2, 3000, 400, 4, 1.1)
	if _, ok := labelFree(big, binaryRows(big.Y), Params{Thr: 0.9}); ok {
		t.Error("the automatic choice takes the operator for thr; want the formed matrix (thr needs every eigenvalue)")
	}
}

// TestEstimateMemoryLabelOperator holds EstimateMemory to the measured
// peak of plst on the label-Gram operator (asserted taken, by the phase),
// as TestEstimateMemoryFree does for the feature operator: measured ≤
// estimate ≤ estimateSlack × measured + estimateFloor, and below the
// three q×q matrices the formed route holds.
func TestEstimateMemoryLabelOperator(t *testing.T) {
	if testing.Short() {
		t.Skip("measures real fits")
	}
	const n, q = 6000, 2000
	p := Params{D: 50}
	in := powerLawLabels(3, n, q, 5, 1.1)
	ones := 0
	for _, v := range in.Y.RawMatrix().Data {
		if v != 0 {
			ones++
		}
	}
	s := Shape{N: n, D: 4, Q: q, LabelOnes: ones}
	if _, ok := labelFreeRule(n, q, float64(ones), p, false); !ok {
		t.Fatalf("labelFreeRule(%d, %d, %d) = false, want the operator", n, q, ones)
	}
	est, err := EstimateMemory("plst", p, s)
	if err != nil {
		t.Fatal(err)
	}
	peak := fitPeakOnRoute(t, "plst", in, p, est)
	if qq := int64(3 * 8 * q * q); est >= qq {
		t.Errorf("estimate %d bytes, want less than the formed route's three q×q matrices, %d", est, qq)
	}
	t.Logf("estimate %d, peak %d, q×q %d", est, peak, 8*q*q)
}

// TestCPLSTKrylovMatchesDirect fits cplst with its q×q matrix decomposed
// by formedTop (linalg.SymEigTopOp's small blocks) and, forced, by
// symEigFor, on power-law labels with 60 Gaussian features, and requires
// the same leading eigenvalues (1e-10 relative), subspaces and codes
// (1e-8), total and energy; the phases say which route each took.
func TestCPLSTKrylovMatchesDirect(t *testing.T) {
	in := powerLawLabels(9, 2500, 400, 4, 1.1)
	rng := rand.New(rand.NewPCG(9, 1))
	in.X = mat.NewDense(2500, 60, nil)
	for i := range 2500 {
		for j := range 60 {
			in.X.Set(i, j, rng.NormFloat64()+in.Y.At(i, j%7))
		}
	}
	for _, p := range []Params{{D: 20}, {D: 5, MaxDim: 30}} {
		t.Run(fmt.Sprintf("d=%d MaxDim=%d", p.D, p.MaxDim), func(t *testing.T) {
			want, direct := fitRoute(t, "cplst", in, routeGram, p)
			got, krylov := fitRoute(t, "cplst", in, routeAuto, p)
			if !slices.Contains(krylov, krylovPhase) || slices.Contains(direct, krylovPhase) {
				t.Fatalf("phases: automatic %q, forced %q; want %q in the first only", krylov, direct, krylovPhase)
			}
			if math.Abs(got.Total-want.Total) > 1e-12*want.Total || math.Abs(got.Energy-want.Energy) > 1e-10 || got.Dim != want.Dim {
				t.Errorf("total %v, energy %v, d %d; want %v, %v, %d", got.Total, got.Energy, got.Dim, want.Total, want.Energy, want.Dim)
			}
			requireSameLeading(t, got, want, max(p.D, p.MaxDim))
		})
	}
}

// requireSameLeading holds got (an operator route's fit) to want's k
// leading eigenvalues (1e-10 relative), the span of their directions and
// of the codes (1e-8 in sin θ), and requires got to report every pair's
// residual, each at most 1e-9.
func requireSameLeading(t *testing.T, got, want *Model, k int) {
	t.Helper()
	if len(got.Residuals) != len(got.Eigenvalues) {
		t.Errorf("%d residuals for %d pairs", len(got.Residuals), len(got.Eigenvalues))
	}
	for i, r := range got.Residuals {
		if !(r <= 1e-9) {
			t.Errorf("pair %d: residual %.3g, want ≤ 1e-9", i+1, r)
		}
	}
	for i := range k {
		if g, w := got.Eigenvalues[i], want.Eigenvalues[i]; math.Abs(g-w) > 1e-10*math.Abs(w) {
			t.Errorf("eigenvalue %d: got %.17g, want %.17g", i+1, g, w)
		}
	}
	if s := opSin(got.Basis, want.Basis, k); s > 1e-8 {
		t.Errorf("span of the %d directions: sin θ = %.3g, want ≤ 1e-8", k, s)
	}
	if s := opSin(got.Projected, want.Projected, got.Dim); s > 1e-8 {
		t.Errorf("span of the codes: sin θ = %.3g, want ≤ 1e-8", s)
	}
}

// TestProjectSparseCodes: the codes of sparse labels from the sparse
// product (projectSparseCodes, Transform's route beyond codeDenseCells)
// equal those of the dense ±1 codes projected (Transform on the dense
// labels), for plst (±1 coding) on power-law labels, to 1e-12 relative to
// their largest magnitude.
func TestProjectSparseCodes(t *testing.T) {
	in := powerLawLabels(7, 2000, 500, 4, 1.1)
	m, err := Fit(t.Context(), "plst", in, Params{D: 10}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.LabelCoding != "pm1" {
		t.Fatalf("plst codes labels %q; the test needs ±1", m.LabelCoding)
	}
	want, err := m.Transform(in.Y)
	if err != nil {
		t.Fatal(err)
	}
	got := m.projectSparseCodes(sparse.FromDense(in.Y))
	var d mat.Dense
	d.Sub(got, want)
	diff := math.Max(mat.Max(&d), -mat.Min(&d))
	scale := math.Max(mat.Max(want), -mat.Min(want))
	if diff > 1e-12*scale {
		t.Errorf("codes differ by up to %.3g (largest code %.3g)", diff, scale)
	}
}
