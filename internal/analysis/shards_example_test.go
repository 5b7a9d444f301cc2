package analysis_test

import (
	"bytes"
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/analysis"
)

// A data set fitted from two row shards: each shard's statistics are
// formed (on any worker), written and read back, merged, and the model is
// solved from the whole; the rows are then projected shard by shard.
func ExampleFitFromPartial() {
	x := mat.NewDense(6, 2, []float64{1, 2, 2, 1, 3, 5, 4, 3, 5, 6, 6, 5})
	y := mat.NewDense(6, 1, []float64{0, 0, 0, 1, 1, 1})
	shards := []analysis.Input{
		{X: mat.DenseCopyOf(x.Slice(0, 2, 0, 2)), Y: mat.DenseCopyOf(y.Slice(0, 2, 0, 1))},
		{X: mat.DenseCopyOf(x.Slice(2, 6, 0, 2)), Y: mat.DenseCopyOf(y.Slice(2, 6, 0, 1))},
	}
	ctx := context.Background()
	p := analysis.Params{D: 1}
	var merged *analysis.Partial
	for _, s := range shards {
		part, err := analysis.ShardStats(ctx, "pca", p, s, nil)
		if err != nil {
			fmt.Println(err)
			return
		}
		var buf bytes.Buffer // a file or an object store between jobs
		if _, err := part.WriteTo(&buf); err != nil {
			fmt.Println(err)
			return
		}
		if part, err = analysis.ReadPartial(&buf); err != nil {
			fmt.Println(err)
			return
		}
		if merged == nil {
			merged = part
		} else if err := merged.Merge(part); err != nil {
			fmt.Println(err)
			return
		}
	}
	m, err := analysis.FitFromPartial(ctx, "pca", p, merged, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	whole, err := analysis.Fit(ctx, "pca", analysis.Input{X: x, Y: y}, p, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d rows, eigenvalues %.4f (in memory %.4f)\n", merged.Rows(), m.Eigenvalues, whole.Eigenvalues)
	for _, s := range shards {
		z, _ := analysis.ProjectShard(ctx, m, s)
		fmt.Printf("%.4f\n", mat.Col(nil, 0, z))
	}
	_, err = analysis.ShardStats(ctx, "lpp", analysis.Params{}, shards[0], nil)
	fmt.Println(err)
	// Output:
	// 6 rows, eigenvalues [32.4466 4.3867] (in memory [32.4466 4.3867])
	// [-2.9254 -2.9717]
	// [0.6313 -0.1448 2.7284 2.6822]
	// analysis: lpp cannot be fitted from row shards: its neighbour graph compares every pair of rows. Fit it in memory (on a sample of the rows if they do not fit)
}
