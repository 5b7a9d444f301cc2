package analysis_test

import (
	"context"
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/analysis"
)

// ExampleFit_cplst reduces three labels to two directions with CPLST
// (seed 001, algorithm 1), the ridge λ at its default 0.1.
func ExampleFit_cplst() {
	x := mat.NewDense(6, 2, []float64{
		0.0, 1.0,
		1.0, 0.5,
		2.0, 2.0,
		3.0, 1.5,
		4.0, 3.0,
		5.0, 2.5,
	})
	y := mat.NewDense(6, 3, []float64{
		1, 0, 0,
		1, 1, 0,
		0, 1, 0,
		0, 1, 1,
		0, 0, 1,
		0, 1, 1,
	})
	m, err := analysis.Fit(context.Background(), "cplst", analysis.Input{X: x, Y: y}, analysis.Params{D: 2}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("M:", m.Dim, "of rank", m.Rank)
	vals := make([]string, len(m.Eigenvalues))
	for i, v := range m.Eigenvalues {
		vals[i] = fmt.Sprintf("%.3f", math.Abs(v)) // the third is 0 up to rounding, of either sign
		if v < -1e-9 {
			vals[i] = fmt.Sprintf("%.3f", v)
		}
	}
	fmt.Println("eigenvalues:", strings.Join(vals, " "))
	r, c := m.P().Dims()
	n, k := m.Projected.Dims()
	fmt.Printf("P: %d×%d, codes: %d×%d\n", r, c, n, k)
	// Output:
	// M: 2 of rank 2
	// eigenvalues: 5.826 0.723 0.000
	// P: 3×2, codes: 6×2
}
