package analysis

import (
	"context"
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// rowSpaceCases are the methods and parameters the N×N path serves (every
// feature-space method but lpp's neighbour search, which it does not
// change, is here; lpp is too, its matrices are).
var rowSpaceCases = []struct {
	id string
	p  Params
}{
	{"pca", Params{}},
	{"mds", Params{}},
	{"mddmp", Params{}},
	{"mddmp", Params{LabelKernel: KernelQuadratic}},
	{"mddmp", Params{LabelKernel: KernelRBF}},
	{"mddmf", Params{}},
	{"mddmf", Params{Beta: Float(0)}},
	{"mvmd", Params{}},
	{"mvmd", Params{Beta: Float(0)}},
	{"mlsi", Params{}},
	{"cca", Params{}},
	{"lpp", Params{K: 4}},
	{"lda", Params{}},
	{"mlda", Params{}},
	{"ge-hamming", Params{}},
	{"ge-euclid-y", Params{}},
	{"ge-euclid-x", Params{}},
	{"ge-gh", Params{}},
	{"sdem", Params{}},
	{"cplst", Params{}},
	{"occa", Params{}},
}

// TestRowSpaceMatchesFeatureSpace fits every method twice on the same data,
// once on the D×D path and once on the N×N path (rowspace.go), at shapes
// on both sides of N = D, and checks they agree: the rank and d, the
// eigenvalues (1e-10 relative to each value, or 1e-10 of the largest for
// values below 1e-3 of it, where no route can do better), the subspaces of
// the first d directions (principal angles' cosines ≥ 1 − 1e-8) and the
// projected rows. The reference is the D×D path, whose own golden tests
// check it against numpy/scipy (golden_test.go).
func TestRowSpaceMatchesFeatureSpace(t *testing.T) {
	shapes := []struct{ n, d int }{{8, 40}, {20, 21}, {21, 21}, {22, 21}, {40, 12}, {70, 150}, {150, 140}} // 70 and 140 take several blocks of 64
	for _, sh := range shapes {
		for _, tc := range rowSpaceCases {
			m, _ := Lookup(tc.id)
			name := fmt.Sprintf("%s%s/N=%d,D=%d", tc.id, tc.p.LabelKernel, sh.n, sh.d)
			t.Run(name, func(t *testing.T) {
				var in Input
				if m.MultiLabel && tc.id != "lda" {
					in = tuMultiLabel(41, sh.n, sh.d, 5)
				} else {
					in = tuMultiDim(41, sh.n, sh.d, []int{3, 4, 2})
				}
				byFeatures, byRows := in, in
				byFeatures.path, byRows.path = pathFeatures, pathRows
				a, err := Fit(context.Background(), tc.id, byFeatures, tc.p, nil)
				if err != nil {
					t.Fatalf("D×D path: %v", err)
				}
				b, err := Fit(context.Background(), tc.id, byRows, tc.p, nil)
				if err != nil {
					t.Fatalf("N×N path: %v", err)
				}
				if a.Rank != b.Rank || a.Dim != b.Dim {
					t.Fatalf("got rank %d, d %d on the N×N path, want %d, %d", b.Rank, b.Dim, a.Rank, a.Dim)
				}
				k := a.Rank
				if len(a.Blocks) > 0 {
					k = len(a.Eigenvalues)
				}
				big := math.Abs(a.Eigenvalues[0])
				for i := range min(k, len(b.Eigenvalues)) {
					got, want := b.Eigenvalues[i], a.Eigenvalues[i]
					scale := math.Max(math.Abs(want), 1e-3*big)
					if math.Abs(got-want) > 1e-10*scale {
						t.Errorf("eigenvalue %d: got %.15g, want %.15g", i, got, want)
					}
				}
				if a.Basis != nil {
					ra, _ := a.Basis.Dims()
					rb, _ := b.Basis.Dims()
					if ra != rb {
						t.Fatalf("got a basis of %d rows, want %d", rb, ra)
					}
					if len(a.Blocks) > 0 {
						for _, blk := range a.Blocks {
							tuSameSubspace(t, "block", a.Basis.Slice(0, ra, blk.Start, blk.Start+blk.Dim),
								b.Basis.Slice(0, rb, blk.Start, blk.Start+blk.Dim), blk.Dim, 1e-8)
						}
					} else {
						tuSameSubspace(t, "directions", a.Basis, b.Basis, a.Dim, 1e-8)
					}
				}
				if a.Space == FeatureSpace && a.Dim > 0 && distinct(a.Eigenvalues, a.Dim) {
					// Directions are unique up to sign when the eigenvalues
					// are apart: then the projected rows agree too.
					tol := 1e-7 * math.Max(1, mat.Norm(a.Projected, math.Inf(1)))
					if !mat.EqualApprox(a.Projected, b.Projected, tol) {
						t.Errorf("the projected rows differ between the paths by more than %.3g", tol)
					}
				}
			})
		}
	}
}

// distinct reports whether the first k+1 values are pairwise apart by more
// than 1e-6 of the largest (so their directions are unique up to sign).
func distinct(v []float64, k int) bool {
	for i := 1; i < min(k+1, len(v)); i++ {
		if math.Abs(v[i]-v[i-1]) <= 1e-6*math.Abs(v[0]) {
			return false
		}
	}
	return true
}

// TestRowSpaceInvariants: on the N×N path P is orthonormal (PᵀP = I) for
// the ordinary problems and B-orthonormal for the generalised ones, with B
// built here the long way in D×D, and it is the path Fit takes by itself
// when N < D.
func TestRowSpaceInvariants(t *testing.T) {
	in := tuMultiLabel(43, 15, 50, 4)
	if !useRowSpace(in) {
		t.Fatal("N = 15 < D = 50 does not take the N×N path")
	}
	xc := tuCentred(in.X)
	var c mat.Dense
	c.Mul(xc.T(), xc)
	plus := func(s, v float64) *mat.Dense {
		b := mat.NewDense(50, 50, nil)
		b.Scale(s, &c)
		for i := range 50 {
			b.Set(i, i, b.At(i, i)+v)
		}
		return b
	}
	for _, id := range []string{"pca", "mvmd", "ge-hamming", "ge-euclid-x", "ge-gh"} {
		m := fit(t, id, in, Params{D: 5, MaxDim: MaxDimAll}) // every direction
		tuIsIdentity(t, id+" PᵀP", tuGram(m.Basis, nil, m.Rank), 1e-10)
	}
	for _, tc := range []struct {
		id string
		p  Params
		b  *mat.Dense
	}{
		{"mddmf", Params{D: 3, Beta: Float(0.4)}, plus(0.4, 0.6)},
		{"mlsi", Params{D: 3, Normalize: NormalizeB}, plus(1, DefaultMLSIRidge)},
		{"cca", Params{D: 3, Normalize: NormalizeB}, plus(1, DefaultCCARidge)},
	} {
		m := fit(t, tc.id, in, tc.p)
		tuIsIdentity(t, tc.id+" PᵀBP", tuGram(m.Basis, tc.b, 3), 1e-8)
	}
}

// TestRowSpaceRefusesZeroRidge: with fewer rows than features, a ridge of 0
// leaves the right-hand matrix singular, and the fit says so.
func TestRowSpaceRefusesZeroRidge(t *testing.T) {
	in := tuMultiLabel(44, 10, 30, 4)
	for _, tc := range []struct {
		id, want string
	}{
		{"mlsi", "analysis: XcᵀXc + εI is singular on these data (10 rows, 30 features: its rank is at most 9); give a ridge greater than 0"},
		{"cca", "analysis: XcᵀXc + r_xI is singular on these data (10 rows, 30 features: its rank is at most 9); give a ridge greater than 0"},
		{"mlda", "analysis: Sw + εI is singular on these data (10 rows, 30 features: its rank is at most 9); give a ridge greater than 0"},
		{"lpp", "analysis: XcᵀD_WXc + εI is singular on these data (10 rows, 30 features: its rank is at most 9); give a ridge greater than 0"},
	} {
		p := Params{Ridge: Float(0)}
		if tc.id == "lpp" {
			p.K = 3
		}
		_, err := Fit(context.Background(), tc.id, in, p, nil)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: got %v, want %q", tc.id, err, tc.want)
		}
	}
}

// BenchmarkRowSpace compares the two paths with fewer rows than features:
//
//	go test -run '^$' -bench RowSpace -benchtime 1x ./internal/analysis/
//
// At D = 20 000 the D×D path (3.2 GB per matrix, a 20 000-order
// eigen-decomposition) is out of reach of the test machine, so it is timed
// at D = 2 000 and 4 000; the N×N path at all three.
func BenchmarkRowSpace(b *testing.B) {
	for _, tc := range []struct {
		id   string
		d    int
		path pathChoice
	}{
		{"pca", 2000, pathFeatures}, {"pca", 2000, pathRows},
		{"pca", 4000, pathFeatures}, {"pca", 4000, pathRows},
		{"pca", 20000, pathRows},
		{"cplst", 2000, pathFeatures}, {"cplst", 2000, pathRows},
		{"cplst", 20000, pathRows},
		{"lda", 20000, pathRows},
	} {
		name := map[pathChoice]string{pathFeatures: "DxD", pathRows: "NxN"}[tc.path]
		b.Run(fmt.Sprintf("%s/N=200,D=%d/%s", tc.id, tc.d, name), func(b *testing.B) {
			var in Input
			if tc.id == "lda" {
				in = tuMultiDim(7, 200, tc.d, []int{3, 4})
			} else {
				in = tuMultiLabel(7, 200, tc.d, 10)
			}
			in.path = tc.path
			p := Params{D: 5}
			if tc.id == "lda" {
				p.D = 2 // per class variable
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Fit(context.Background(), tc.id, in, p, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
