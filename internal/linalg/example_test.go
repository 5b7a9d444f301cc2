package linalg_test

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/linalg"
)

// The values below were checked against numpy 1.24's eigh.
func ExampleSymEig() {
	a := mat.NewSymDense(3, []float64{
		2, -1, 0,
		-1, 2, -1,
		0, -1, 2,
	})
	values, vectors, err := linalg.SymEig(context.Background(), a)
	if err != nil {
		panic(err)
	}
	fmt.Printf("values %.4f\n", values)
	// numpy's sign is arbitrary; here the largest entry is positive.
	fmt.Printf("first vector %.4f\n", mat.Col(nil, 0, vectors))
	// Output:
	// values [3.4142 2.0000 0.5858]
	// first vector [-0.5000 0.7071 -0.5000]
}

func ExampleSymEigValues() {
	a := mat.NewSymDense(2, []float64{2, 1, 1, 2})
	values, err := linalg.SymEigValues(context.Background(), a)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%.4f\n", values)
	// Output:
	// [3.0000 1.0000]
}

func ExampleSymEigTop() {
	// I + uuᵀ with u = (1, 1, 1, 1): eigenvalue 5 once, 1 three times.
	n := 4
	a := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			v := 1.0
			if i == j {
				v = 2
			}
			a.SetSym(i, j, v)
		}
	}
	values, vectors, err := linalg.SymEigTop(context.Background(), a, 2)
	if err != nil {
		panic(err)
	}
	fmt.Printf("values %.4f\n", values)
	fmt.Printf("first vector %.4f\n", mat.Col(nil, 0, vectors))
	// The second vector is some unit vector orthogonal to the first.
	fmt.Printf("second vector ⟂ first: %.4f\n", mat.Dot(vectors.ColView(0), vectors.ColView(1)))
	// Output:
	// values [5.0000 1.0000]
	// first vector [0.5000 0.5000 0.5000 0.5000]
	// second vector ⟂ first: 0.0000
}
