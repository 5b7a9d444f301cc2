package sparse

import (
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestStack: rows of a over rows of b, whole matrices and row ranges
// (whose pointers do not start at 0), against the dense stack.
func TestStack(t *testing.T) {
	x := mat.NewDense(4, 3, []float64{1, 0, 2, 0, 0, 0, 0, 3, 0, 4, 0, 5})
	y := mat.NewDense(2, 3, []float64{0, 6, 0, 7, 0, 8})
	m, n := FromDense(x), FromDense(y)
	for _, tc := range []struct {
		name string
		a, b *CSR
		want []*mat.Dense
	}{
		{"whole", m, n, []*mat.Dense{x, y}},
		{"ranges", m.RowRange(2, 4), m.RowRange(1, 3), []*mat.Dense{x.Slice(2, 4, 0, 3).(*mat.Dense), x.Slice(1, 3, 0, 3).(*mat.Dense)}},
		{"empty over rows", &CSR{R: 2, C: 3, Ptr: []int64{0, 0, 0}}, n, []*mat.Dense{mat.NewDense(2, 3, nil), y}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Stack(tc.a, tc.b)
			if err := got.Check(); err != nil {
				t.Fatalf("Check: %v", err)
			}
			var want mat.Dense
			want.Stack(tc.want[0], tc.want[1])
			if !mat.Equal(got.Dense(), &want) {
				t.Errorf("got %v, want %v", mat.Formatted(got.Dense()), mat.Formatted(&want))
			}
		})
	}
}
