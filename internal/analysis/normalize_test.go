package analysis

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestNormalize: the generalised problems (mlsi, cca, lpp, lda, mlda) give
// unit-length directions by default (the FSDR reference code's
// normalisation) and B-orthonormal ones with normalize = b; the two differ
// only by a positive scale per column, so the eigenvalues, the subspaces
// and the signs are the same. Both paths: N > D and N < D (rowspace.go).
func TestNormalize(t *testing.T) {
	for _, id := range []string{"mlsi", "cca", "lpp", "lda", "mlda"} {
		m, _ := Lookup(id)
		if !slices.Contains(m.Takes, ParamNormalize) {
			t.Errorf("%s: Takes is %v, want it to hold %s", id, m.Takes, ParamNormalize)
		}
		for _, sh := range []struct{ n, d int }{{150, 8}, {20, 60}} {
			t.Run(fmt.Sprintf("%s/N=%d,D=%d", id, sh.n, sh.d), func(t *testing.T) {
				in := tuInputShape(m, sh.n, sh.d)
				p := Params{D: 2}
				if id == "lpp" {
					p.K = 5
				}
				unit := fit(t, id, in, p)
				p.Normalize = NormalizeB
				b := fit(t, id, in, p)
				if unit.Params.Normalize != NormalizeUnit || b.Params.Normalize != NormalizeB {
					t.Errorf("Params.Normalize: got %q and %q, want %q (the default, filled in) and %q",
						unit.Params.Normalize, b.Params.Normalize, NormalizeUnit, NormalizeB)
				}
				if !slices.Equal(unit.Eigenvalues, b.Eigenvalues) || unit.Dim != b.Dim || unit.Rank != b.Rank {
					t.Errorf("eigenvalues, Dim or Rank differ between unit and b: %v (d %d, rank %d) against %v (d %d, rank %d)",
						unit.Eigenvalues, unit.Dim, unit.Rank, b.Eigenvalues, b.Dim, b.Rank)
				}
				r, c := unit.Basis.Dims()
				if br, bc := b.Basis.Dims(); br != r || bc != c {
					t.Fatalf("Basis: got %d×%d (unit) and %d×%d (b), want the same shape", r, c, br, bc)
				}
				offUnit := 0.0 // how far b's lengths are from 1: the two options must differ
				for k := range c {
					nu, nb := tuColNorm(unit.Basis, k), tuColNorm(b.Basis, k)
					if math.Abs(nu-1) > 1e-12 {
						t.Errorf("column %d of unit: got length %.17g, want 1", k+1, nu)
					}
					offUnit = max(offUnit, math.Abs(nb-1))
					for i := range r {
						if want := b.Basis.At(i, k) / nb; math.Abs(unit.Basis.At(i, k)-want) > 1e-12 {
							t.Fatalf("column %d, entry %d: got %.17g, want b's column over its length %.17g", k+1, i+1, unit.Basis.At(i, k), want)
						}
					}
				}
				if offUnit < 1e-3 {
					t.Errorf("b's columns all have length 1 within %.2g: the data do not tell the normalisations apart", offUnit)
				}
				tuSameSubspace(t, id+" unit against b", unit.P(), b.P(), unit.Dim, 1e-12)
				if len(unit.Blocks) != len(b.Blocks) {
					t.Errorf("Blocks: got %d (unit) and %d (b), want the same", len(unit.Blocks), len(b.Blocks))
				}
			})
		}
	}
}

// tuColNorm is the Euclidean length of column k of a.
func tuColNorm(a mat.Matrix, k int) float64 {
	r, _ := a.Dims()
	s := 0.0
	for i := range r {
		s += a.At(i, k) * a.At(i, k)
	}
	return math.Sqrt(s)
}
