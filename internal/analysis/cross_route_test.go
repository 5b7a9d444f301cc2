package analysis

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// labelCross's two routes, the product (linalg.Cross) and the row by row
// pass, give the same XcᵀL to rounding, on labels with values (the rbf
// kernel's indicator and the quadratic map are not 0/1) and rows without
// labels; and the product is chosen for few label columns next to the
// labels a row has, not for many.
func TestLabelCrossRoutes(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	const n, d = crossMinRows, 29
	x := mat.NewDense(n, d, nil)
	for i := range n {
		for j := range d {
			x.Set(i, j, rng.NormFloat64()*float64(j+1)+100)
		}
	}
	mean, err := meansOfColumns(context.Background(), x.RawMatrix(), stage{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cols, perRow int
		product      bool
	}{{20, 2, true}, {6, 1, true}, {40, 1, false}, {400, 3, false}} {
		l := newSparse(n, tc.cols)
		for i := range n {
			if i%7 != 3 { // some rows have no label
				for _, j := range rng.Perm(tc.cols)[:tc.perRow] {
					l.add(j, 0.5+rng.Float64())
				}
			}
			l.endRow()
		}
		if got := crossAsProduct(l); got != tc.product {
			t.Errorf("%d columns, %d a row: product %v, want %v", tc.cols, tc.perRow, got, tc.product)
		}
		if few := (&sparseRows{rows: crossMinRows - 1, cols: l.cols, idx: l.idx}); crossAsProduct(few) {
			t.Errorf("%d columns: a product for %d rows", tc.cols, few.rows)
		}
		a, err := labelCrossProduct(context.Background(), x.RawMatrix(), mean, l, stage{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := labelCrossRows(context.Background(), x.RawMatrix(), mean, l, stage{})
		if err != nil {
			t.Fatal(err)
		}
		scale := mat.Norm(b, math.Inf(1))
		for i := range d {
			for j := range tc.cols {
				if math.Abs(a.At(i, j)-b.At(i, j)) > 1e-12*scale {
					t.Fatalf("%d columns: XcᵀL[%d][%d] is %v by the product, %v row by row", tc.cols, i, j, a.At(i, j), b.At(i, j))
				}
			}
		}
	}
}

// The memory estimate holds when labelCross forms its product (many rows,
// few label columns): mddmp, mvmd and cca, each of which takes XcᵀY.
func TestEstimateMemoryCrossProduct(t *testing.T) {
	if testing.Short() {
		t.Skip("measures real fits")
	}
	for _, id := range []string{"mddmp", "mvmd", "cca"} {
		c := memCase{id: id, n: crossMinRows + 808, d: 600, q: 12}
		t.Run(id, func(t *testing.T) {
			m, _ := Lookup(id)
			in, _ := memInput(m, c, 3)
			if !crossAsProduct(in.ones()) {
				t.Fatal("the labels of the case are not formed as a product")
			}
			est, peak, _, ok := checkEstimate(t, c, 3)
			if !ok {
				t.Fatal("the fit refused the data")
			}
			t.Logf("estimate %d, peak %d", est, peak)
		})
	}
}
