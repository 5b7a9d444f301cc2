package evaluate_test

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/evaluate"
)

// The k-NN vote on five training points on a line with two labels, k = 3:
// the test point 1.2 has the neighbours 1, 2 and 0; two of the three have
// label a (2 > 3/2: predicted), one has label b (not).
func ExampleKNN() {
	xtr := mat.NewDense(5, 1, []float64{0, 1, 2, 10, 11})
	ytr := mat.NewDense(5, 2, []float64{
		1, 0,
		1, 1,
		0, 0,
		0, 1,
		0, 1,
	})
	pred, scores, err := evaluate.KNN{K: 3}.Predict(context.Background(), xtr, ytr, mat.NewDense(1, 1, []float64{1.2}))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("scores:", scores.RawRowView(0), "labels:", pred.RawRowView(0))
	// Output: scores: [2 1] labels: [1 0]
}
