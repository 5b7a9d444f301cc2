package analysis_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/analysis"
	"mldr/internal/dataset"
)

// Top-d against the full decomposition. A fit given d (or a caller's
// MaxDim) computes only the leading eigenpairs, and a fit given thr every
// eigenvalue but only the chosen directions; MaxDim = MaxDimAll asks for
// the full decomposition, which is the reference here. For every method
// the two must agree: eigenvalues to 1e-10 relative, or to 1e-13·|λ₁| for
// the small ones, which no method gets to better than ε‖A‖ (DSTERF's and
// divide and conquer's differ by 1e-9 relative at λ ≈ 1e-5·λ₁), the
// span of the first Dim directions to sin θ ≤ 1e-8 where the spectrum has
// a gap after Dim, and Dim, Rank, Energy, Notes and the projected rows.

// topTakes lists the methods whose solver has a top-d path: the symmetric
// problems. partial ones compute only the leading eigenvalues (their
// matrix is semi-definite by construction); the others every eigenvalue
// and fewer directions. The low-rank methods are in topLowRank.
var topTakes = map[string]bool{
	"pca": true, "mvmd": true, "mlsi": true, "ge-hamming": true, "ge-euclid-y": true, "ge-euclid-x": true,
	"mds": true, "plst": true, "cplst": true, "kcplst": true, "kpca": true, "faie": true,
	"ge-gh": false, "lpp": false, "occa": false,
}

// topLowRank lists the low-rank methods (FFᵀ for a D×c matrix F): given d
// with 2(d + 1) < c, they compute the d leading pairs through the c×c Gram
// FᵀF, a partial spectrum, when its a posteriori check accepts them (it
// does on these data sets; TestLowRankTop covers its refusals); with thr,
// or d + 1 ≥ c/2, every pair by the thin SVD.
var topLowRank = map[string]bool{"mddmp": true, "mddmf": true, "sdem": true, "cca": true, "kmddm": true}

// topSized lists the methods whose result depends on how many directions
// the fit serves, by design, so that a top-d fit is not the full one cut:
// mlcssp samples that many label columns (with the leverage scores of as
// many directions), rembrandt sketches that many, leml fits that rank.
// lsbase_test.go checks them against their references instead.
var topSized = map[string]bool{"mlcssp": true, "rembrandt": true, "leml": true}

// topTol are the tolerances of the comparison (see above).
const (
	topEigTol  = 1e-10
	topZeroTol = 1e-13
	topSubTol  = 1e-8
	topMinGap  = 1e-6 // relative to |λ₁|: below it the d-subspace is not defined
)

// topData is a data set of the comparison.
type topData struct {
	name string
	in   analysis.Input
}

// topGoldenData loads the golden test's data sets, or skips.
func topGoldenData(t *testing.T) []topData {
	t.Helper()
	if _, err := os.Stat(goldenDatasetsDir); os.IsNotExist(err) {
		t.Skipf("%s is missing: the comparison on the golden data sets needs them", goldenDatasetsDir)
	}
	var out []topData
	for _, ref := range []string{"pca", "lda"} {
		for _, c := range goldenReadRef(t, ref).Cases {
			if slices.ContainsFunc(out, func(d topData) bool { return d.name == c.Dataset }) {
				continue
			}
			ds := goldenLoad(t, c)
			in := analysis.Input{X: ds.X, Y: ds.Y}
			if ds.Kind == dataset.MultiDim {
				for _, cats := range ds.Categories {
					in.Classes = append(in.Classes, len(cats))
				}
			}
			out = append(out, topData{c.Dataset, in})
		}
	}
	return out
}

// topWide is a seeded multi-label data set with more than 200 features, so
// that SymEigTop runs its block Krylov–Schur iteration (below 200 it takes
// its direct method): a decaying spectrum, labels that follow the leading
// directions.
func topWide() topData {
	const n, d, q = 400, 260, 12
	rng := rand.New(rand.NewPCG(15, 1))
	x := mat.NewDense(n, d, nil)
	y := mat.NewDense(n, q, nil)
	for i := range n {
		z := [3]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		for j := range d {
			x.Set(i, j, 5*z[j%3]*math.Pow(float64(j+1), -0.5)+rng.NormFloat64()*math.Pow(float64(j+1), -0.3)+float64(j%7))
		}
		for l := range q {
			if z[l%3]+0.7*rng.NormFloat64() > 0.3*float64(l%4) {
				y.Set(i, l, 1)
			}
		}
	}
	return topData{"wide", analysis.Input{X: x, Y: y}}
}

// topD is the d compared: small against every method's order (label-space
// methods decompose a q×q matrix).
func topD(m analysis.Method, in analysis.Input) int {
	switch {
	case m.Space == analysis.LabelSpace:
		_, q := in.Y.Dims()
		return max(1, (q-1)/3)
	case m.ID == "lda":
		return 1 // per class variable: at most classes − 1
	}
	return 3
}

func TestTopDAgainstFull(t *testing.T) {
	data := append(topGoldenData(t), topWide())
	for _, ds := range data {
		if analysis.RaceEnabled && ds.name != "emotions" && ds.name != "edm" && ds.name != "wide" {
			continue // yeast and song in the pass without the race detector
		}
		for _, m := range analysis.Methods() {
			if ds.in.MultiDim() && !m.MultiDim || !ds.in.MultiDim() && !m.MultiLabel {
				continue
			}
			if topSized[m.ID] {
				continue
			}
			if n, _ := ds.in.X.Dims(); m.MaxN > 0 && n > m.MaxN || (m.ID == "kcplst" || m.ID == "kpca" || m.ID == "kmddm") && n > 1000 {
				continue // kcplst, kpca, kmddm: N³ twice per case; the smaller sets cover them
			}
			d := topD(m, ds.in)
			t.Run(m.ID+"/"+ds.name+"/d", func(t *testing.T) {
				full := topFit(t, m.ID, ds.in, analysis.Params{D: d, MaxDim: analysis.MaxDimAll})
				top := topFit(t, m.ID, ds.in, analysis.Params{D: d})
				topCompare(t, full, top)
				topTaken(t, m.ID, full, top)
			})
			if !slices.Contains(m.Takes, analysis.ParamThr) {
				continue
			}
			t.Run(m.ID+"/"+ds.name+"/thr-boundary", func(t *testing.T) {
				full := topFit(t, m.ID, ds.in, analysis.Params{D: d, MaxDim: analysis.MaxDimAll})
				if len(full.Blocks) > 0 {
					t.Skip("lda with blocks chooses d per class variable")
				}
				// thr exactly the share the first d keep: d must be chosen.
				thr := full.Energy
				if thr <= 0 || thr > 1 {
					t.Skipf("energy %v at d = %d: no threshold to put on the boundary", thr, d)
				}
				fullThr := topFit(t, m.ID, ds.in, analysis.Params{Thr: thr, MaxDim: analysis.MaxDimAll})
				top := topFit(t, m.ID, ds.in, analysis.Params{Thr: thr})
				if fullThr.Dim != d {
					t.Fatalf("full decomposition with thr = %v: got d = %d, want %d", thr, fullThr.Dim, d)
				}
				topCompare(t, fullThr, top)
				if topTakes[m.ID] && top.Directions() >= fullThr.Directions() {
					t.Errorf("thr: got %d directions computed, want fewer than the full decomposition's %d", top.Directions(), fullThr.Directions())
				}
				// A partial decomposition (d = 2d + 1, as the cache keeps
				// it) chooses the same d for the same thr, from its trace.
				wide := topFit(t, m.ID, ds.in, analysis.Params{D: min(2*d+1, full.Rank)})
				chosen, err := wide.Choose(analysis.Params{Thr: thr})
				if err != nil {
					t.Fatalf("Choose(thr = %v) on %d computed pairs: %v", thr, wide.Computed(), err)
				}
				if chosen.Dim != d || math.Abs(chosen.Energy-full.Energy) > 1e-12 {
					t.Errorf("Choose(thr = %v): got d = %d, energy %v; want %d, %v", thr, chosen.Dim, chosen.Energy, d, full.Energy)
				}
			})
		}
	}
}

// topTaken checks that the top-d path was taken where it exists, so that
// the comparison cannot pass by comparing the full decomposition with
// itself.
func topTaken(t *testing.T, id string, full, top *analysis.Model) {
	t.Helper()
	partial, ok := topTakes[id]
	if topLowRank[id] {
		if 2*(top.Dim+1) < full.Computed() {
			if top.Computed() != top.Dim || top.Directions() != top.Dim || top.Order != full.Computed() {
				t.Errorf("%s: got %d of %d eigenvalues and %d directions, want the %d leading pairs of %d (through the Gram)",
					id, top.Computed(), top.Order, top.Directions(), top.Dim, full.Computed())
			}
			return
		}
		ok = false // every pair by the SVD
	}
	if !ok {
		if top.Order != top.Computed() || top.Directions() != full.Directions() {
			t.Errorf("%s: got %d of %d eigenvalues and %d directions, want the full decomposition's %d and %d (a low-rank method)",
				id, top.Computed(), top.Order, top.Directions(), full.Computed(), full.Directions())
		}
		return
	}
	if top.Directions() >= full.Directions() {
		t.Errorf("%s: got %d directions computed, want fewer than the full decomposition's %d", id, top.Directions(), full.Directions())
	}
	if partial && top.Computed() >= top.Order {
		t.Errorf("%s: got %d of %d eigenvalues computed, want only the leading ones", id, top.Computed(), top.Order)
	}
	if !partial && top.Computed() != full.Computed() {
		t.Errorf("%s: got %d eigenvalues, want all %d (an indefinite matrix: its Energy needs them all)", id, top.Computed(), full.Computed())
	}
}

func topFit(t *testing.T, id string, in analysis.Input, p analysis.Params) *analysis.Model {
	t.Helper()
	m, err := analysis.Fit(t.Context(), id, in, p, nil)
	if err != nil {
		t.Fatalf("Fit(%s, %+v): %v", id, p, err)
	}
	return m
}

// topCompare compares a top-d model with the full decomposition's.
func topCompare(t *testing.T, full, top *analysis.Model) {
	t.Helper()
	if top.Dim != full.Dim {
		t.Fatalf("got d = %d, want %d", top.Dim, full.Dim)
	}
	if top.RankAtLeast {
		if top.Rank > full.Rank || top.Rank != top.Computed() {
			t.Errorf("got rank at least %d (%d computed), want at most the full rank %d and the computed count", top.Rank, top.Computed(), full.Rank)
		}
	} else if top.Rank != full.Rank {
		t.Errorf("got rank %d, want %d", top.Rank, full.Rank)
	}
	if top.RankOf != full.RankOf || !slices.Equal(top.Notes, full.Notes) {
		t.Errorf("got rank of %q, notes %q; want %q, %q", top.RankOf, top.Notes, full.RankOf, full.Notes)
	}
	if d := math.Abs(top.Energy - full.Energy); d > 1e-12 {
		t.Errorf("got energy %v, want %v (difference %.3g)", top.Energy, full.Energy, d)
	}
	if d := math.Abs(top.Total - full.Total); d > 1e-12*math.Abs(full.Total) {
		t.Errorf("got total %v, want %v", top.Total, full.Total)
	}
	topCloseValues(t, top.Eigenvalues, full.Eigenvalues)
	if top.Basis == nil && top.Projected == nil {
		return
	}
	vals := full.Eigenvalues
	d := top.Dim
	if d < len(vals) && vals[d-1]-vals[d] < topMinGap*math.Abs(vals[0]) {
		return // no gap after d: the d-subspace is not defined (TestTopDClusters)
	}
	if top.Basis != nil {
		if s := topSin(firstColumns(top.Basis, d), firstColumns(full.Basis, d)); s > topSubTol {
			t.Errorf("span of the first %d directions: sin θ = %.3g from the full decomposition's, want ≤ %.0e", d, s, topSubTol)
		}
	}
	if s := topSin(top.Projected, full.Projected); s > topSubTol {
		t.Errorf("span of the projected rows: sin θ = %.3g from the full decomposition's, want ≤ %.0e", s, topSubTol)
	}
}

// topCloseValues compares the eigenvalues top has with full's.
func topCloseValues(t *testing.T, top, full []float64) {
	t.Helper()
	if len(top) > len(full) || len(top) == 0 {
		t.Fatalf("got %d eigenvalues, want 1 to the full decomposition's %d", len(top), len(full))
	}
	scale := math.Abs(full[0])
	for i, v := range top {
		w := full[i]
		tol := max(topEigTol*math.Abs(w), topZeroTol*scale)
		if math.Abs(v-w) > tol {
			t.Errorf("eigenvalue %d: got %.17g, want %.17g (difference %.3g, tolerance %.3g)", i+1, v, w, math.Abs(v-w), tol)
		}
	}
}

func firstColumns(a *mat.Dense, k int) mat.Matrix {
	r, _ := a.Dims()
	return a.Slice(0, r, 0, k)
}

// topSin is sin of the largest principal angle between the column spans of
// a and b (same number of columns): ‖(I − QbQbᵀ)Qa‖₂.
func topSin(a, b mat.Matrix) float64 {
	qa, qb := goldenOrth(a), goldenOrth(b)
	var c, r mat.Dense
	c.Mul(qb.T(), qa)
	r.Mul(qb, &c)
	r.Sub(qa, &r)
	return mat.Norm(&r, 2)
}

// topSpectrum builds X (N×D, rank len(s), column means mu) whose XcᵀXc has
// the eigenvalues s exactly (up to rounding): X = U·diag(√s)·Wᵀ + 1μᵀ with
// U (N×r) orthonormal and centred, W (D×r) orthonormal; and 0/1 labels.
func topSpectrum(seed uint64, n, d int, s []float64) (analysis.Input, *mat.Dense) {
	rng := rand.New(rand.NewPCG(seed, 3))
	r := len(s)
	orth := func(rows int, centre bool) *mat.Dense {
		a := mat.NewDense(rows, r, nil)
		for i := range rows {
			for j := range r {
				a.Set(i, j, rng.NormFloat64())
			}
		}
		if centre {
			a = goldenCentre(a)
		}
		var qr mat.QR
		qr.Factorize(a)
		var q mat.Dense
		qr.QTo(&q)
		return mat.DenseCopyOf(q.Slice(0, rows, 0, r))
	}
	u, w := orth(n, true), orth(d, false)
	for j := range r {
		for i := range n {
			u.Set(i, j, u.At(i, j)*math.Sqrt(s[j]))
		}
	}
	var x mat.Dense
	x.Mul(u, w.T())
	for i := range n {
		for j := range d {
			x.Set(i, j, x.At(i, j)+float64(j%5))
		}
	}
	y := mat.NewDense(n, 8, nil)
	for i := range n {
		for l := range 8 {
			if x.At(i, l)+x.At(i, l+8) > float64(l%5) {
				y.Set(i, l, 1)
			}
		}
	}
	var c mat.Dense
	xc := goldenCentre(&x)
	c.Mul(xc.T(), xc)
	return analysis.Input{X: &x, Y: y}, &c
}

// goldenCentre returns a with its column means removed.
func goldenCentre(a mat.Matrix) *mat.Dense {
	n, d := a.Dims()
	c := mat.DenseCopyOf(a)
	for j := range d {
		m := 0.0
		for i := range n {
			m += c.At(i, j)
		}
		m /= float64(n)
		for i := range n {
			c.Set(i, j, c.At(i, j)-m)
		}
	}
	return c
}

// decaying is s followed by rest values decaying from s's last by half.
func decaying(s []float64, rest int) []float64 {
	out := slices.Clone(s)
	v := s[len(s)-1]
	for range rest {
		v /= 2
		out = append(out, v)
	}
	return out
}

// TestTopDClusters puts the d-th eigenvalue of XcᵀXc inside a repeated
// eigenvalue and a tight cluster, at D = 300 (the Krylov–Schur iteration):
// the values must be the full decomposition's, every pair an eigenpair of
// XcᵀXc, the span inside the full decomposition's leading eigenvectors up
// to the end of the cluster, and containing those above it.
func TestTopDClusters(t *testing.T) {
	const n, dim = 500, 300
	for _, tc := range []struct {
		name string
		s    []float64
		d    int
	}{
		{"repeated at d", decaying([]float64{90, 40, 20, 20, 20, 20, 9}, 40), 4},
		{"repeated after d", decaying([]float64{90, 40, 20, 10, 10, 10, 9}, 40), 3},
		{"cluster at d", decaying([]float64{90, 40, 20 + 3e-9, 20 + 2e-9, 20 + 1e-9, 20, 9}, 40), 4},
		{"all equal", slices.Repeat([]float64{7}, 30), 5},
	} {
		in, c := topSpectrum(11, n, dim, tc.s)
		for _, id := range []string{"pca", "mds"} {
			t.Run(tc.name+"/"+id, func(t *testing.T) {
				full := topFit(t, id, in, analysis.Params{D: tc.d, MaxDim: analysis.MaxDimAll})
				top := topFit(t, id, in, analysis.Params{D: tc.d})
				topCompare(t, full, top)
				topTaken(t, id, full, top)
				if id != "pca" {
					return
				}
				scale := full.Eigenvalues[0]
				for j, v := range top.Eigenvalues {
					if want := tc.s[j]; math.Abs(v-want) > 1e-10*want {
						t.Errorf("eigenvalue %d: got %.15g, want %.15g (by construction)", j+1, v, want)
					}
				}
				// Every computed pair is an eigenpair of C.
				var cv mat.Dense
				cv.Mul(c, top.Basis)
				for j := range top.Directions() {
					res := 0.0
					for i := range dim {
						r := cv.At(i, j) - top.Eigenvalues[j]*top.Basis.At(i, j)
						res += r * r
					}
					if math.Sqrt(res) > 1e-10*scale {
						t.Errorf("pair %d: ‖Cv − λv‖ = %.3g, want ≤ %.3g", j+1, math.Sqrt(res), 1e-10*scale)
					}
				}
				// The span lies in the leading eigenvectors up to the end of
				// the cluster at d, and holds those above it.
				vals, delta := full.Eigenvalues, 1e-8*scale
				lo, hi := tc.d, 0
				for lo < len(vals) && vals[lo] >= vals[tc.d-1]-delta {
					lo++
				}
				for hi < tc.d && vals[hi] > vals[tc.d-1]+delta {
					hi++
				}
				fullCols := topMaxDimAll(t, in)
				if s := topSubGap(firstColumns(top.Basis, tc.d), firstColumns(fullCols, lo)); s > topSubTol {
					t.Errorf("the first %d directions are %.3g outside the %d leading eigenvectors", tc.d, s, lo)
				}
				if hi > 0 {
					if s := topSubGap(firstColumns(fullCols, hi), firstColumns(top.Basis, tc.d)); s > topSubTol {
						t.Errorf("the %d eigenvectors above the cluster are %.3g outside the first %d directions", hi, s, tc.d)
					}
				}
			})
		}
	}
}

// topMaxDimAll is pca's full Basis on in.
func topMaxDimAll(t *testing.T, in analysis.Input) *mat.Dense {
	t.Helper()
	return topFit(t, "pca", in, analysis.Params{D: 1, MaxDim: analysis.MaxDimAll}).Basis
}

// topSubGap is ‖A − QQᵀA‖₂ for orthonormalised columns: how far span(a)
// is from lying in span(b), which may be wider.
func topSubGap(a, b mat.Matrix) float64 {
	qa, qb := goldenOrth(a), goldenOrth(b)
	var c, r mat.Dense
	c.Mul(qb.T(), qa)
	r.Mul(qb, &c)
	r.Sub(qa, &r)
	return mat.Norm(&r, 2)
}

// TestTopDRankDeficient: XcᵀXc of rank 8 at D = 300. A d within the rank
// gives the full decomposition's model; a d beyond it the same refusal;
// a caller's MaxDim beyond it (a grid) gives the rank as d, known exactly
// because the trace leaves nothing to the uncomputed eigenvalues; a model
// whose computed pairs all count and leave part of the trace says its rank
// is only a lower bound, and refuses a larger d with a request to fit
// again, not a false rank.
func TestTopDRankDeficient(t *testing.T) {
	s := []float64{50, 30, 12, 9, 5, 2, 1, 0.5}
	in, _ := topSpectrum(5, 400, 300, s)
	for _, id := range []string{"pca", "mds", "mvmd", "ge-hamming"} {
		t.Run(id, func(t *testing.T) {
			full := topFit(t, id, in, analysis.Params{D: 5, MaxDim: analysis.MaxDimAll})
			top := topFit(t, id, in, analysis.Params{D: 5})
			topCompare(t, full, top)
			topTaken(t, id, full, top)

			_, errFull := analysis.Fit(t.Context(), id, in, analysis.Params{D: 12, MaxDim: analysis.MaxDimAll}, nil)
			_, errTop := analysis.Fit(t.Context(), id, in, analysis.Params{D: 12}, nil)
			var ef, et *analysis.Error
			if !errors.As(errFull, &ef) || !errors.As(errTop, &et) || errFull.Error() != errTop.Error() || ef.Max != et.Max {
				t.Errorf("d = 12 beyond the rank: got error %v, want the full decomposition's %v", errTop, errFull)
			}
		})
	}
	t.Run("grid beyond the rank", func(t *testing.T) {
		m := topFit(t, "pca", in, analysis.Params{MaxDim: 20})
		if m.Rank != len(s) || m.RankAtLeast || m.Dim != len(s) {
			t.Errorf("got rank %d (at least: %v), d = %d; want rank %d exactly and d = %d", m.Rank, m.RankAtLeast, m.Dim, len(s), len(s))
		}
		if m.Computed() >= m.Order {
			t.Errorf("got %d of %d eigenvalues computed, want the top-d path", m.Computed(), m.Order)
		}
	})
	t.Run("d equal to the rank", func(t *testing.T) {
		// Every computed pair counts, but the trace leaves nothing to the
		// others: the rank is exact, and a larger d is beyond it.
		m := topFit(t, "pca", in, analysis.Params{D: len(s)})
		if m.Rank != len(s) || m.RankAtLeast || m.Computed() >= m.Order {
			t.Fatalf("got rank %d (at least: %v), %d of %d eigenvalues; want rank %d exactly from a partial spectrum",
				m.Rank, m.RankAtLeast, m.Computed(), m.Order, len(s))
		}
		_, err := m.WithDim(len(s) + 1)
		if want := "analysis: d = 9 is outside 1…8, the rank of XcᵀXc"; err == nil || err.Error() != want {
			t.Errorf("WithDim(9): got error %v, want %q", err, want)
		}
	})
	t.Run("rank at least", func(t *testing.T) {
		m := topFit(t, "pca", in, analysis.Params{D: 3})
		if !m.RankAtLeast || m.Rank != 3 {
			t.Fatalf("got rank %d (at least: %v), want at least 3", m.Rank, m.RankAtLeast)
		}
		if _, err := m.WithDim(2); err != nil {
			t.Errorf("WithDim(2): %v", err)
		}
		for _, d := range []int{4, 8} {
			_, err := m.WithDim(d)
			if want := fmt.Sprintf("analysis: d = %d: this fit of pca computed only its 3 leading directions; fit it again with d = %d", d, d); err == nil || err.Error() != want {
				t.Errorf("WithDim(%d): got error %v, want %q", d, err, want)
			}
			_, err = m.Choose(analysis.Params{D: d})
			if want := fmt.Sprintf("analysis: d = %d: this fit of pca computed only its 3 leading directions; fit it again with d = %d", d, d); err == nil || err.Error() != want {
				t.Errorf("Choose(d = %d): got error %v, want %q", d, err, want)
			}
		}
	})
}
