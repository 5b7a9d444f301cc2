package analysis

import (
	"testing"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/sparse"
)

// TestSelectRows: the chosen rows, in the chosen order (one twice), of
// dense and sparse features and labels, the sparse ones staying sparse.
func TestSelectRows(t *testing.T) {
	x := mat.NewDense(4, 3, []float64{1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 0, 6})
	y := mat.NewDense(4, 2, []float64{1, 0, 0, 1, 1, 1, 0, 0})
	rows := []int{2, 0, 2}
	wantX := mat.NewDense(3, 3, []float64{4, 0, 5, 1, 0, 2, 4, 0, 5})
	wantY := mat.NewDense(3, 2, []float64{1, 1, 1, 0, 1, 1})
	for _, tc := range []struct {
		name string
		in   Input
	}{
		{"dense", Input{X: x, Y: y}},
		{"sparse", Input{Sparse: sparse.FromDense(x), Labels: sparse.FromDense(y)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := tc.in.SelectRows(rows)
			if (out.Sparse != nil) != (tc.in.Sparse != nil) || (out.Labels != nil) != (tc.in.Labels != nil) {
				t.Fatalf("storage changed: got sparse features %v, sparse labels %v", out.Sparse != nil, out.Labels != nil)
			}
			gx, gy := out.X, out.Y
			if out.Sparse != nil {
				gx, gy = out.Sparse.Dense(), out.Labels.Dense()
			}
			if !mat.Equal(gx, wantX) || !mat.Equal(gy, wantY) {
				t.Errorf("got X %v, Y %v; want %v, %v", mat.Formatted(gx), mat.Formatted(gy), mat.Formatted(wantX), mat.Formatted(wantY))
			}
		})
	}
}
