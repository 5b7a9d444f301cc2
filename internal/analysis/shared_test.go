package analysis

import (
	"context"
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/sparse"
)

// TestSharedFitsEqualAlone fits every method of rowSpaceCases in turn
// through one Shared, on dense and on sparse rows with fewer rows than
// features (the N×N path, whose factorisation the Shared keeps), and
// requires each model to equal the method's fit alone to the bit: the
// eigenvalues, the basis, the means and the projected rows. The Shared
// must also have kept the factorisations, or the test would prove nothing.
func TestSharedFitsEqualAlone(t *testing.T) {
	for _, form := range []string{"dense", "sparse"} {
		ml, md := tuMultiLabel(43, 30, 90, 5), tuMultiDim(43, 30, 90, []int{3, 4, 2})
		if form == "sparse" {
			ml.X, ml.Sparse = nil, sparse.FromDense(ml.X)
			md.X, md.Sparse = nil, sparse.FromDense(md.X)
		}
		shared := map[*Input]*Shared{&ml: NewShared(), &md: NewShared()}
		for _, tc := range rowSpaceCases {
			m, _ := Lookup(tc.id)
			in := &md
			if m.MultiLabel && tc.id != "lda" {
				in = &ml
			}
			t.Run(fmt.Sprintf("%s/%s%s", form, tc.id, tc.p.LabelKernel), func(t *testing.T) {
				alone, err := Fit(context.Background(), tc.id, *in, tc.p, nil)
				if err != nil {
					t.Fatalf("alone: %v", err)
				}
				with, err := Fit(context.Background(), tc.id, in.WithShared(shared[in]), tc.p, nil)
				if err != nil {
					t.Fatalf("through a Shared: %v", err)
				}
				sameBits(t, "eigenvalues", alone.Eigenvalues, with.Eigenvalues)
				sameBits(t, "means", alone.Means, with.Means)
				for _, p := range []struct {
					what string
					a, b *mat.Dense
				}{{"basis", alone.Basis, with.Basis}, {"projected rows", alone.Projected, with.Projected}} {
					if (p.a == nil) != (p.b == nil) {
						t.Fatalf("%s: one fit has them, the other not", p.what)
					}
					if p.a != nil {
						sameBits(t, p.what, p.a.RawMatrix().Data, p.b.RawMatrix().Data)
					}
				}
			})
		}
		if n := len(shared[&ml].spaces); n != 2 {
			t.Errorf("%s: the multi-label rows' Shared kept %d factorisations, want 2 (centred and as given)", form, n)
		}
	}
}

// TestSharedServesOneMatrix: a Shared first used with one feature matrix
// serves nothing to another (its factorisation would be the wrong one).
func TestSharedServesOneMatrix(t *testing.T) {
	a, b := tuMultiLabel(1, 20, 50, 3), tuMultiLabel(2, 20, 50, 3)
	s := NewShared()
	if _, err := Fit(context.Background(), "pca", a.WithShared(s), Params{}, nil); err != nil {
		t.Fatal(err)
	}
	got, err := Fit(context.Background(), "pca", b.WithShared(s), Params{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Fit(context.Background(), "pca", b, Params{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sameBits(t, "eigenvalues", want.Eigenvalues, got.Eigenvalues)
}

// sameBits fails t unless a and b hold the same float64s, bit for bit.
func sameBits(t *testing.T, what string, a, b []float64) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%s: %d values through the Shared, %d alone", what, len(b), len(a))
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			t.Fatalf("%s[%d]: %v through the Shared, %v alone", what, i, b[i], a[i])
		}
	}
}
