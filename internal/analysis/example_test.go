package analysis_test

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/analysis"
)

// Six rows, three features, two labels; the first label follows feature 1.
var (
	exampleX = mat.NewDense(6, 3, []float64{
		1, 0.1, 5,
		2, -0.2, 5,
		3, 0.0, 4,
		4, 0.3, 6,
		5, -0.1, 5,
		6, 0.2, 5,
	})
	exampleY = mat.NewDense(6, 2, []float64{0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 0})
)

// The values below were checked against numpy 1.24 (eigh of XcᵀXc, svd of
// XcᵀY).
func ExampleFit_pca() {
	m, err := analysis.Fit(context.Background(), "pca", analysis.Input{X: exampleX, Y: exampleY}, analysis.Params{Thr: 0.9}, nil)
	if err != nil {
		panic(err)
	}
	r, c := m.P().Dims()
	fmt.Printf("d = %d (P is %d×%d), energy %.3f, first eigenvalue %.3f\n", m.Dim, r, c, m.Energy, m.Eigenvalues[0])
	fmt.Printf("first direction %.3f\n", mat.Col(nil, 0, m.P()))
	// Output:
	// d = 2 (P is 3×2), energy 0.994, first eigenvalue 17.583
	// first direction [0.997 0.033 0.065]
}

func ExampleFit_mddmp() {
	m, err := analysis.Fit(context.Background(), "mddmp", analysis.Input{X: exampleX, Y: exampleY}, analysis.Params{D: 1}, nil)
	if err != nil {
		panic(err)
	}
	fmt.Printf("rank %d (%s); eigenvalues %.3f\n", m.Rank, m.RankOf, m.Eigenvalues)
	fmt.Printf("direction %.3f\n", mat.Col(nil, 0, m.P()))
	z, _ := m.Transform(mat.NewDense(1, 3, []float64{3.5, 0, 5}))
	fmt.Printf("a new row at the mean projects to %.3f\n", z.At(0, 0))
	// Output:
	// rank 2 (rank of XᵀHY); eigenvalues [24.209 0.376]
	// direction [0.963 0.058 0.261]
	// a new row at the mean projects to -0.003
}
