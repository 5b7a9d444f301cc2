package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/dataset"
	"mldr/internal/memtest"
	"mldr/internal/sparse"
)

// opData loads a shared multi-label data set with sparse features.
func opData(t *testing.T, file string) Input {
	t.Helper()
	path := filepath.Join("../../../shared/datasets", filepath.FromSlash(file))
	raw, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		if os.Getenv("MLDR_REQUIRE_SHARED") == "1" {
			t.Fatalf("%s is missing (MLDR_REQUIRE_SHARED=1)", path)
		}
		t.Skipf("%s is missing: the matrix-free comparisons need the shared data sets", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	ds, err := dataset.Load(strings.NewReader(string(raw)), dataset.Options{})
	if err != nil {
		t.Fatalf("loading %s: %v", path, err)
	}
	if ds.Sparse == nil {
		t.Fatalf("%s loaded dense; the loader stores it sparse", path)
	}
	return Input{Sparse: ds.Sparse, Y: ds.Y}
}

// TestMatrixFreeMatchesGram fits pca, mvmd (β = 0.5, and β = 0, which
// is pca's matrix) and mddmp (the linear kernel: XcᵀLcLcᵀXc as an
// operator instead of the low-rank route's XᵀHY) on medical and enron by the matrix-free route and by
// the Gram route (both forced, on the D×D path), and on medical (978 rows
// of 1 449 features) by the matrix-free route and by the N×N path (the
// route it replaces with fewer rows than features), and requires the same
// eigenvalues (1e-10 relative to the largest, and to their own for the
// first d), the same subspaces and projected rows (1e-8), the same totals,
// energies and ranks; the phases reported say which route each fit took,
// so the comparison cannot pass by comparing a route with itself.
func TestMatrixFreeMatchesGram(t *testing.T) {
	for _, c := range []struct {
		file  string
		path  pathChoice // of the fit compared with the matrix-free one
		route routeChoice
	}{
		{"medical/medical.csv", pathFeatures, routeGram},
		{"enron/enron.csv", pathFeatures, routeGram},
		{"medical/medical.csv", pathRows, routeAuto},
	} {
		file := c.file
		in := opData(t, file)
		for _, tc := range []struct {
			method string
			p      Params
		}{
			{"pca", Params{D: 5}},
			{"pca", Params{D: 20}},
			{"mvmd", Params{D: 5, Beta: Float(0.5)}},
			{"mvmd", Params{D: 10, Beta: Float(0)}},
			{"mddmp", Params{D: 5}},
			{"mddmp", Params{D: 20}},
		} {
			t.Run(fmt.Sprintf("%s/%s/d=%d/path=%d", file, tc.method, tc.p.D, c.path), func(t *testing.T) {
				ref := in
				ref.path = c.path
				want, gramPhases := fitRoute(t, tc.method, ref, c.route, tc.p)
				free := in
				free.path = pathFeatures
				if c.path == pathRows {
					free.path = pathAuto // as a fit with fewer rows than features chooses
				}
				got, freePhases := fitRoute(t, tc.method, free, routeFree, tc.p)
				if !slices.Contains(freePhases, opPhase) {
					t.Fatalf("forced matrix-free fit reported phases %q, want %q among them", freePhases, opPhase)
				}
				if slices.Contains(gramPhases, opPhase) {
					t.Fatalf("forced Gram fit reported phases %q, want no %q", gramPhases, opPhase)
				}
				if got.Dim != want.Dim || got.Rank != want.Rank || got.RankAtLeast != want.RankAtLeast || got.Order != want.Order {
					t.Fatalf("got d = %d, rank %d (at least %v), order %d; want %d, %d (%v), %d",
						got.Dim, got.Rank, got.RankAtLeast, got.Order, want.Dim, want.Rank, want.RankAtLeast, want.Order)
				}
				if got.Computed() >= got.Order {
					t.Errorf("got %d of %d eigenvalues, want only the leading ones", got.Computed(), got.Order)
				}
				// Each pair's residual is reported, and holds for the
				// directions in the features' space too: ‖C·p − λp‖/λ₁
				// with C formed from the dense features.
				if len(got.Residuals) != len(got.Eigenvalues) {
					t.Fatalf("%d residuals for %d pairs", len(got.Residuals), len(got.Eigenvalues))
				}
				if tc.method == "pca" {
					xc := mat.DenseCopyOf(in.Sparse.Dense())
					r, cols := xc.Dims()
					for j := range cols {
						col := xc.ColView(j)
						mean := mat.Sum(col) / float64(r)
						for i := range r {
							xc.Set(i, j, xc.At(i, j)-mean)
						}
					}
					var c mat.Dense
					c.Mul(xc.T(), xc)
					for i := range got.Computed() {
						p := got.Basis.ColView(i)
						var cp mat.VecDense
						cp.MulVec(&c, p)
						cp.AddScaledVec(&cp, -got.Eigenvalues[i], p)
						if r := mat.Norm(&cp, 2) / got.Eigenvalues[0]; r > 1e-9 || got.Residuals[i] > 1e-9 {
							t.Errorf("pair %d: residual %.3g in the features' space, %.3g reported; want both ≤ 1e-9", i+1, r, got.Residuals[i])
						}
					}
				}
				if want.Residuals != nil {
					t.Errorf("the Gram route reported residuals %v; it computes none", want.Residuals)
				}
				if d := math.Abs(got.Total - want.Total); d > 1e-10*want.Total {
					t.Errorf("got total %v, want %v", got.Total, want.Total)
				}
				if d := math.Abs(got.Energy - want.Energy); d > 1e-10 {
					t.Errorf("got energy %v, want %v", got.Energy, want.Energy)
				}
				if len(got.Eigenvalues) != len(want.Eigenvalues) {
					t.Fatalf("got %d eigenvalues, want %d", len(got.Eigenvalues), len(want.Eigenvalues))
				}
				scale := math.Abs(want.Eigenvalues[0])
				for i, w := range want.Eigenvalues {
					tol := 1e-10 * scale
					if i < got.Dim {
						tol = min(tol, 1e-10*math.Abs(w)+1e-13*scale)
					}
					if g := got.Eigenvalues[i]; math.Abs(g-w) > tol {
						t.Errorf("eigenvalue %d: got %.17g, want %.17g (difference %.3g, tolerance %.3g)", i+1, g, w, math.Abs(g-w), tol)
					}
				}
				d := got.Dim
				if s := opSin(got.Basis, want.Basis, d); s > 1e-8 {
					t.Errorf("span of the %d directions: sin θ = %.3g, want ≤ 1e-8", d, s)
				}
				if s := opSin(got.Projected, want.Projected, d); s > 1e-8 {
					t.Errorf("span of the projected rows: sin θ = %.3g, want ≤ 1e-8", s)
				}
			})
		}
	}
}

// opSin is the sine of the largest principal angle between the column
// spans of the first k columns of a and b.
func opSin(a, b *mat.Dense, k int) float64 {
	qa, qb := tuOrthonormal(a, k), tuOrthonormal(b, k)
	var m, r mat.Dense
	m.Mul(qb.T(), qa)
	r.Mul(qb, &m)
	r.Sub(qa, &r)
	return mat.Norm(&r, 2)
}

// TestEstimateMemoryFree holds EstimateMemory to the measured peak of pca
// and mvmd on the matrix-free route (asserted taken, by the phase; pca also
// with fewer rows than features, on the rows' side), as
// TestEstimateMemorySparse does for the Gram route: measured ≤ estimate ≤
// estimateSlack × measured + estimateFloor; and the estimate is below what
// the D×D matrix alone would take.
func TestEstimateMemoryFree(t *testing.T) {
	if testing.Short() {
		t.Skip("measures real fits")
	}
	for _, tc := range []struct {
		id   string
		p    Params
		n, d int
	}{
		{"pca", Params{D: 2}, 4000, 1200},
		{"mvmd", Params{D: 2, Beta: Float(0.5)}, 4000, 1200},
		{"pca", Params{D: 2}, 1000, 4000}, // the rows' side
	} {
		t.Run(fmt.Sprintf("%s/%d×%d", tc.id, tc.n, tc.d), func(t *testing.T) {
			m, _ := Lookup(tc.id)
			c := memCase{id: tc.id, p: tc.p, n: tc.n, d: tc.d, q: 10}
			in, s := memInput(m, c, 1)
			raw := in.X.RawMatrix()
			for i, v := range raw.Data {
				if (i*7919)%20 != 0 {
					raw.Data[i] = 0
				} else {
					raw.Data[i] = v + 1
				}
			}
			in.Sparse, in.X = sparse.FromDense(in.X), nil
			s.NNZ = int64(in.Sparse.NNZ())
			if _, ok := shapeFree(tc.p, s); !ok {
				t.Fatalf("shapeFree(%+v, %+v) = false, want the matrix-free route", tc.p, s)
			}
			est, err := EstimateMemory(tc.id, tc.p, s)
			if err != nil {
				t.Fatal(err)
			}
			peak := fitPeakOnRoute(t, tc.id, in, tc.p, est)
			if dd := int64(8 * c.d * c.d); est >= dd {
				t.Errorf("estimate %d bytes, want less than the D×D matrix's %d", est, dd)
			}
			t.Logf("estimate %d, peak %d, D×D %d", est, peak, 8*c.d*c.d)
		})
	}
}

// TestMDDMpFreeRoute: mddmp with the linear kernel on 3 000 sparse rows
// of 60 000 features and 3 000 labels held sparse (Input.Labels), whose
// XᵀHY would take 1.4 GB, is fitted matrix-free on its own (Fit's choice,
// by the phases), within its memory estimate, which stays far below that
// matrix; and its leading pairs are those of the low-rank route (forced)
// on the same data.
func TestMDDMpFreeRoute(t *testing.T) {
	if testing.Short() {
		t.Skip("fits mddmp on 3 000 × 60 000 sparse rows twice")
	}
	if RaceEnabled {
		t.Skip("slow under the race detector; the build without it (.ci/run's openblas pass) runs it")
	}
	const n, d, q = 3000, 60000, 3000
	in := wideLabelsInput(n, d, q, 11)
	p := Params{D: 5}
	s := Shape{N: n, D: d, Q: q, NNZ: int64(in.Sparse.NNZ()), LabelOnes: in.Labels.NNZ()}
	if _, ok := mddmpFreeRule(n, d, q, s.NNZ, p, false); !ok {
		t.Fatalf("mddmpFreeRule = false, want the matrix-free route for a %d × %d XᵀHY", d, q)
	}
	est, err := EstimateMemory("mddmp", p, s)
	if err != nil {
		t.Fatal(err)
	}
	if dense := int64(8 * d * q); est >= dense/4 {
		t.Errorf("estimate %d bytes, want far less than XᵀHY's %d", est, dense)
	}
	peak := fitPeakOnRoute(t, "mddmp", in, p, est)
	got, _ := fitRoute(t, "mddmp", in, routeAuto, p)
	want, phases := fitRoute(t, "mddmp", in, routeGram, p)
	if slices.Contains(phases, opPhase) {
		t.Fatalf("forced low-rank fit reported phases %q", phases)
	}
	requireSameLeading(t, got, want, p.D)
	t.Logf("estimate %d, peak %d, XᵀHY %d", est, peak, 8*d*q)
}

// wideLabelsInput is n sparse rows of d features (about 20 a row) with q
// labels held sparse (Input.Labels), 1–3 a row, the first marking a
// feature column (d ≥ 20·q) so that the labels depend on the features.
func wideLabelsInput(n, d, q int, seed uint64) Input {
	rng := rand.New(rand.NewPCG(seed, 2))
	xb, yb := sparse.NewBuilder(d, n*20), sparse.NewBuilder(q, n*3)
	for range n {
		first := rng.IntN(q)
		labels := []int{first, rng.IntN(q), rng.IntN(q)}
		slices.Sort(labels)
		labels = slices.Compact(labels)
		for _, l := range labels {
			yb.Add(l, 1)
		}
		yb.EndRow()
		cols := []int{first * 20 % d}
		for range 19 {
			cols = append(cols, rng.IntN(d))
		}
		slices.Sort(cols)
		for _, j := range slices.Compact(cols) {
			xb.Add(j, 0.5+rng.Float64())
		}
		xb.EndRow()
	}
	return Input{Sparse: xb.Build(), Labels: yb.Build()}
}

// fitRoute fits method id on in with its route forced (routeAuto: as
// Fit chooses) and returns the model and the phases it reported, each
// once in order.
func fitRoute(t *testing.T, id string, in Input, route routeChoice, p Params) (*Model, []string) {
	t.Helper()
	in.route = route
	var phases []string
	m, err := Fit(t.Context(), id, in, p, func(_ float64, phase string) {
		if len(phases) == 0 || phases[len(phases)-1] != phase {
			phases = append(phases, phase)
		}
	})
	if err != nil {
		t.Fatalf("Fit(%s, route %d): %v", id, route, err)
	}
	return m, phases
}

// fitPeakOnRoute fits method id, requires it to take the matrix-free
// route (by its phases) and its measured peak to lie within est:
// peak ≤ est ≤ estimateSlack × peak + estimateFloor. It returns the peak.
func fitPeakOnRoute(t *testing.T, id string, in Input, p Params, est int64) int64 {
	t.Helper()
	var phases []string
	peak, _ := memtest.Peak(func() { _, phases = fitRoute(t, id, in, routeAuto, p) })
	if !slices.Contains(phases, opPhase) {
		t.Fatalf("phases %q, want %q among them", phases, opPhase)
	}
	if peak > est {
		t.Errorf("measured peak %d bytes, above the estimate %d", peak, est)
	}
	if est > estimateSlack*peak+estimateFloor {
		t.Errorf("estimate %d bytes, more than %d × the measured peak %d + %d", est, estimateSlack, peak, estimateFloor)
	}
	return peak
}

// TestModelColumns: ModelColumns bounds the directions a fitted model
// holds (pca, mddmp, plst and cplst on medical, sparse, at d = 5 and with
// a threshold), and on AmazonCat-13K's shape at a twentieth the routes
// that iterate for d = 100 pairs keep 100, not the 59 311 that MaxDim
// allows (which admission would count as a 48 GB model).
func TestModelColumns(t *testing.T) {
	in := opData(t, "medical/medical.csv")
	n, d := in.dims()
	_, q := in.LabelDims()
	s := Shape{N: n, D: d, Q: q, NNZ: int64(in.Sparse.NNZ())}
	for _, id := range []string{"pca", "mddmp", "plst", "cplst"} {
		for _, p := range []Params{{D: 5}, {Thr: 0.9}} {
			m, err := Fit(t.Context(), id, in, p, nil)
			if err != nil {
				t.Fatalf("%s %+v: %v", id, p, err)
			}
			if _, cols := m.Basis.Dims(); cols > ModelColumns(id, p, s) {
				t.Errorf("%s %+v: the model holds %d directions, ModelColumns says at most %d", id, p, cols, ModelColumns(id, p, s))
			}
		}
	}
	amazon := Shape{N: 59312, D: 203882, Q: 13330, NNZ: 4204441, LabelOnes: 296000}
	for _, id := range []string{"pca", "mddmp", "plst"} {
		if got := ModelColumns(id, Params{D: 100}, amazon); got != 100 {
			t.Errorf("%s at d = 100 on %+v: ModelColumns %d, want 100", id, amazon, got)
		}
	}
	if got, want := ModelColumns("cplst", Params{D: 100}, amazon), MaxDim("cplst", Params{D: 100}, amazon); got != want {
		t.Errorf("cplst: ModelColumns %d, want MaxDim's %d", got, want)
	}
}

// TestOperatorProgress: while an operator route iterates (pca and mddmp
// matrix-free, plst's label-Gram operator, on 1 500 sparse rows of 8 000
// features and 400 labels), the fit's progress
// moves with its products: many distinct values in the phase, never
// decreasing, below the value the fit reports once it is done.
func TestOperatorProgress(t *testing.T) {
	in := wideLabelsInput(1500, 8000, 400, 5)
	for _, tc := range []struct {
		id    string
		route routeChoice
	}{{"pca", routeFree}, {"mddmp", routeFree}, {"plst", routeFree}} {
		t.Run(tc.id, func(t *testing.T) {
			f := in
			f.route = tc.route
			var seen []float64
			last := -1.0
			_, err := Fit(t.Context(), tc.id, f, Params{D: 5}, func(done float64, phase string) {
				if done < last {
					t.Errorf("progress went back from %v to %v", last, done)
				}
				last = done
				if phase == opPhase && (len(seen) == 0 || seen[len(seen)-1] != done) {
					seen = append(seen, done)
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(seen) < 5 {
				t.Errorf("%d distinct progress values in %q (%v), want the products to move it", len(seen), opPhase, seen)
			}
			if len(seen) > 0 && seen[len(seen)-1] >= last && last < 1 {
				t.Errorf("the phase reached %v, the fit's last value %v", seen[len(seen)-1], last)
			}
		})
	}
}
