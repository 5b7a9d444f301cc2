package analysis_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/analysis"
	"mldr/internal/dataset"
	"mldr/internal/sparse"
)

// sparseData loads a shared data set with the dense loader and gives its
// input dense and sparse (sparse.FromDense of the same X).
func sparseData(t *testing.T, file string) (dense, sp analysis.Input) {
	t.Helper()
	path := filepath.Join(goldenDatasetsDir, filepath.FromSlash(file))
	raw, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		if os.Getenv("MLDR_REQUIRE_SHARED") == "1" {
			t.Fatalf("%s is missing (MLDR_REQUIRE_SHARED=1)", path)
		}
		t.Skipf("%s is missing: the sparse comparisons need the shared data sets", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	ds, err := dataset.Load(strings.NewReader(string(raw)), dataset.Options{})
	if err != nil {
		t.Fatalf("loading %s: %v", path, err)
	}
	dense = analysis.Input{X: ds.Dense(), Y: ds.Y}
	if ds.Kind == dataset.MultiDim {
		for _, cats := range ds.Categories {
			dense.Classes = append(dense.Classes, len(cats))
		}
	}
	sp = dense
	sp.X, sp.Sparse = nil, sparse.FromDense(dense.X)
	return dense, sp
}

// sparseTol: eigenvalues within 1e-10 of the largest's magnitude (and of
// their own for the first d), subspaces and single columns within 1e-8.
const (
	sparseEigTol = 1e-10
	sparseSubTol = 1e-8
)

// TestSparseMatchesDense fits every method on medical and enron (sparse
// bag-of-words data; medical has fewer rows than features, so it takes
// the N×N path, enron the D×D one) and on edm (multi-dimensional, for the
// methods that need class variables), from the dense X and from the same
// X in CSR form, and on the multi-label sets also with the labels in CSR
// form (Input.Labels), and requires the same eigenvalues, subspaces and
// projections (label codes too, for the label-space methods).
func TestSparseMatchesDense(t *testing.T) {
	if testing.Short() {
		t.Skip("fits every method twice on three data sets")
	}
	files := []struct{ name, file string }{
		{"medical", "medical/medical.csv"},
		{"enron", "enron/enron.csv"},
		{"edm", "edm/edm.csv"},
	}
	for _, f := range files {
		dense, sp := sparseData(t, f.file)
		for _, m := range analysis.Methods() {
			if (dense.MultiDim() && !m.MultiDim) || (!dense.MultiDim() && !m.MultiLabel) {
				continue
			}
			d := 5
			switch {
			case f.name == "edm":
				d = 2
			case m.ID == "lda": // one direction per binary label
				d = 1
			}
			params := []analysis.Params{{D: d}}
			if m.ID == "mddmp" {
				params = append(params, analysis.Params{D: d, LabelKernel: analysis.KernelQuadratic})
			}
			for _, p := range params {
				name := fmt.Sprintf("%s/%s/%s", f.name, m.ID, p.LabelKernel)
				t.Run(name, func(t *testing.T) {
					if analysis.RaceEnabled && (!underRace[m.ID] || p.LabelKernel != "") {
						t.Skip("slow under the race detector; the build without it (.ci/run's openblas pass) runs it")
					}
					want, err := analysis.Fit(t.Context(), m.ID, dense, p, nil)
					if err != nil {
						t.Fatalf("dense fit: %v", err)
					}
					got, err := analysis.Fit(t.Context(), m.ID, sp, p, nil)
					if err != nil {
						t.Fatalf("sparse fit: %v", err)
					}
					compareModels(t, got, want, dense.X)
					if !dense.MultiDim() {
						// The labels in CSR form (Input.Labels) give the same fit.
						sl := sp
						sl.Y, sl.Labels = nil, sparse.FromDense(dense.Y)
						gotL, err := analysis.Fit(t.Context(), m.ID, sl, p, nil)
						if err != nil {
							t.Fatalf("fit with sparse labels: %v", err)
						}
						compareModels(t, gotL, want, dense.X)
						if gotL.Basis != nil && m.Space == analysis.LabelSpace {
							zs, err := gotL.Transform(sl.Labels)
							if err != nil {
								t.Fatal(err)
							}
							zd, err := want.Transform(dense.Y)
							if err != nil {
								t.Fatal(err)
							}
							if diff := maxDiff(zs, zd); diff > 1e-8*max(1, maxAbs(zd)) {
								t.Errorf("Transform of sparse labels differs from dense ones by %.2g", diff)
							}
						}
					}
					if m.ID == "lpp" || m.ID == "kcplst" {
						if !slices.ContainsFunc(got.Notes, func(s string) bool { return strings.Contains(s, "made dense") }) {
							t.Errorf("notes %q, want one saying the features were made dense", got.Notes)
						}
					}
					if got.Basis != nil && m.Space == analysis.FeatureSpace {
						// Transform takes sparse rows and gives what it gives on dense ones.
						rows := []int{0, 3, 7}
						zs, err := got.Transform(sp.Sparse.SelectRows(rows))
						if err != nil {
							t.Fatal(err)
						}
						zd, err := got.Transform(sp.Sparse.SelectRows(rows).Dense())
						if err != nil {
							t.Fatal(err)
						}
						if diff := maxDiff(zs, zd); diff > 1e-12*max(1, maxAbs(zd)) {
							t.Errorf("Transform of sparse rows differs from dense rows by %.2g", diff)
						}
					}
				})
			}
		}
	}
}

// underRace are the methods compared under the race detector, which
// slows numeric code 5–10 times: the four of the wide benchmark and sdem,
// whose sparse paths (the Gram, the label cross products, the matrix-free
// operator) cover the parallel kernels; the build without the race
// detector compares every method.
var underRace = map[string]bool{"pca": true, "mddmp": true, "cplst": true, "mvmd": true, "sdem": true}

// compareModels requires got (fitted on sparse X) to match want (dense).
func compareModels(t *testing.T, got, want *analysis.Model, x *mat.Dense) {
	t.Helper()
	if got.Dim != want.Dim || got.Rank != want.Rank {
		t.Fatalf("d = %d, rank %d; want d = %d, rank %d", got.Dim, got.Rank, want.Dim, want.Rank)
	}
	if len(got.Eigenvalues) != len(want.Eigenvalues) {
		t.Fatalf("%d eigenvalues, want %d", len(got.Eigenvalues), len(want.Eigenvalues))
	}
	top := 0.0
	for _, v := range want.Eigenvalues {
		top = max(top, math.Abs(v))
	}
	worst := 0.0
	for i, w := range want.Eigenvalues {
		e := math.Abs(got.Eigenvalues[i]-w) / max(top, math.SmallestNonzeroFloat64)
		if i < want.Dim {
			e = max(e, math.Abs(got.Eigenvalues[i]-w)/max(math.Abs(w), 1e-3*top))
		}
		if !(e <= sparseEigTol) {
			t.Errorf("eigenvalue %d = %.17g, want %.17g: relative error %.2g > %.0e", i+1, got.Eigenvalues[i], w, e, sparseEigTol)
		}
		worst = max(worst, e)
	}
	t.Logf("eigenvalues: largest relative error %.2g", worst)
	if len(got.Blocks) != len(want.Blocks) {
		t.Fatalf("%d blocks, want %d", len(got.Blocks), len(want.Blocks))
	}
	switch {
	case len(want.Blocks) > 0:
		for j, b := range want.Blocks {
			gb := got.Blocks[j]
			if gb.Start != b.Start || gb.Dim != b.Dim {
				t.Fatalf("block %d: columns %d+%d, want %d+%d", j, gb.Start, gb.Dim, b.Start, b.Dim)
			}
			r, _ := want.Basis.Dims()
			checkSpan(t, fmt.Sprintf("block %d", j), got.Basis.Slice(0, r, b.Start, b.Start+b.Dim), want.Basis.Slice(0, r, b.Start, b.Start+b.Dim))
		}
	case want.Basis != nil:
		k := gapped(want.Eigenvalues, want.Dim)
		r, _ := want.Basis.Dims()
		checkSpan(t, "basis", got.Basis.Slice(0, r, 0, k), want.Basis.Slice(0, r, 0, k))
	default: // mds: the embedding
		k := gapped(want.Eigenvalues, want.Dim)
		r, _ := want.Projected.Dims()
		checkSpan(t, "embedding", got.Projected.Slice(0, r, 0, k), want.Projected.Slice(0, r, 0, k))
	}
	if got.Projected != nil && want.Basis != nil && len(want.Blocks) == 0 && got.Space == analysis.FeatureSpace {
		// The training rows projected: X·P − 1·μᵀP from the sparse
		// product, against the dense projection by the same P.
		var again *mat.Dense
		if got.Kernel != nil { // (k(x) − k̄)·α, the kernel with its basis rows
			var err error
			if again, err = got.Transform(x); err != nil {
				t.Fatalf("Transform: %v", err)
			}
		} else {
			again = analysis.Project(x, got.Means, got.P())
		}
		if d := maxDiff(got.Projected, again); d > 1e-10*max(1, maxAbs(again)) {
			t.Errorf("Projected differs from the dense projection by the same P by %.2g", d)
		}
	}
}

// gapped is the largest k ≤ d after which the eigenvalues have a gap of
// at least 1e-6 of the largest, so that the span of the first k columns is
// well defined.
func gapped(vals []float64, d int) int {
	top := 0.0
	for _, v := range vals {
		top = max(top, math.Abs(v))
	}
	for k := min(d, len(vals)); k > 0; k-- {
		if k == len(vals) || vals[k-1]-vals[k] >= 1e-6*top {
			return k
		}
	}
	return 0
}

// checkSpan requires the spans of a's and b's columns to agree: the sine
// of their largest principal angle within sparseSubTol.
func checkSpan(t *testing.T, what string, a, b mat.Matrix) {
	t.Helper()
	if _, c := a.Dims(); c == 0 {
		return
	}
	// sin θ_max ≤ ‖(I − Q_bQ_bᵀ)Q_a‖_F, computed directly (1 − cos²
	// cannot resolve angles below 1e-8).
	qa, qb := goldenOrth(a), goldenOrth(b)
	var proj, res mat.Dense
	proj.Mul(qb.T(), qa)
	res.Mul(qb, &proj)
	res.Sub(qa, &res)
	if sin := mat.Norm(&res, 2); !(sin <= sparseSubTol) {
		t.Errorf("%s: the spans differ, sin of the largest principal angle up to %.2g > %.0e", what, sin, sparseSubTol)
	} else {
		t.Logf("%s: sin of the largest principal angle ≤ %.2g", what, sin)
	}
}

func maxDiff(a, b *mat.Dense) float64 {
	r, c := a.Dims()
	d := 0.0
	for i := range r {
		for j := range c {
			d = max(d, math.Abs(a.At(i, j)-b.At(i, j)))
		}
	}
	return d
}

func maxAbs(a *mat.Dense) float64 {
	r, c := a.Dims()
	m := 0.0
	for i := range r {
		for j := range c {
			m = max(m, math.Abs(a.At(i, j)))
		}
	}
	return m
}
