package analysis

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/sparse"
)

// TestLabelNMIBlock checks that every block is the same numbers as the
// whole LabelNMI matrix: rows and columns in any order, repeated, with a
// constant label (all zeros) and one present in every row, and N not a
// multiple of 64 so the bitsets' last word is partial.
func TestLabelNMIBlock(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	const n, q = 131, 9
	y := mat.NewDense(n, q, nil)
	for i := range n {
		for j := range q {
			if rng.Float64() < 0.1+0.08*float64(j) {
				y.Set(i, j, 1)
			}
		}
		y.Set(i, 7, 0) // never present
		y.Set(i, 8, 1) // always present
	}
	whole, constant := LabelNMI(y)
	cases := []struct {
		name       string
		rows, cols []int
	}{
		{"all", []int{0, 1, 2, 3, 4, 5, 6, 7, 8}, []int{0, 1, 2, 3, 4, 5, 6, 7, 8}},
		{"rows of all", []int{3, 4}, []int{0, 1, 2, 3, 4, 5, 6, 7, 8}},
		{"reordered subset", []int{5, 0, 7}, []int{6, 5, 8, 0}},
		{"repeated", []int{2, 2}, []int{2, 1, 2}},
		{"empty", nil, []int{1}},
	}
	// The labels held sparse (a data set's YSparse) give the same bits.
	ys := sparse.FromDense(y)
	for _, c := range cases {
		for _, form := range []struct {
			name string
			y    mat.Matrix
		}{{"dense", y}, {"sparse", ys}} {
			t.Run(c.name+"/"+form.name, func(t *testing.T) {
				block, rc, cc := LabelNMIBlock(form.y, c.rows, c.cols)
				if len(block) != len(c.rows) {
					t.Fatalf("got %d rows, want %d", len(block), len(c.rows))
				}
				for a, i := range c.rows {
					if rc[a] != constant[i] {
						t.Errorf("row constant[%d]: got %v, want %v", a, rc[a], constant[i])
					}
					for b, j := range c.cols {
						if got, want := block[a][b], whole.At(i, j); got != want {
							t.Errorf("block[%d][%d] (labels %d, %d): got %v, want %v", a, b, i, j, got, want)
						}
					}
				}
				for b, j := range c.cols {
					if cc[b] != constant[j] {
						t.Errorf("column constant[%d]: got %v, want %v", b, cc[b], constant[j])
					}
				}
			})
		}
	}
}

// BenchmarkLabelNMIBlock is the heatmap's block (50×50 labels) of a data
// set with 5 000 labels: its cost is that of the 50 labels, not of q.
func BenchmarkLabelNMIBlock(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	const n, q = 300, 5000
	y := mat.NewDense(n, q, nil)
	for i := range n {
		for j := range q {
			if rng.Float64() < 0.05 {
				y.Set(i, j, 1)
			}
		}
	}
	idx := make([]int, 50)
	for i := range idx {
		idx[i] = i * 100
	}
	for b.Loop() {
		LabelNMIBlock(y, idx, idx)
	}
}
