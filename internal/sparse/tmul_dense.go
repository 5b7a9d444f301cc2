package sparse

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"sync"

	"gonum.org/v1/gonum/blas/blas64"
)

// TMulDense sets out = Xᵀ·B for x (N×C) sparse and b (N×k) dense: row j of
// out is the sum, over the rows i holding feature j, of x_ij times row i
// of b. It is the other half of a matrix-free product with XᵀX:
// XᵀX·V = Xᵀ(X·V) is Mul then TMulDense, O(nnz·k) each, with no C×C
// matrix and no column index.
//
// The rows of x are split among GOMAXPROCS workers by their entries; each
// worker scatters its rows into its own C×k sum (the first into out) and
// the sums are added in worker order, so the extra memory is
// (workers − 1)·C·k values and the rounding of a sum depends on the number
// of workers (not on scheduling). Each worker checks ctx every 4096 rows.
func TMulDense(ctx context.Context, x *CSR, b, out blas64.General) error {
	switch {
	case b.Rows != x.R:
		return fmt.Errorf("sparse: Xᵀ·B with %d rows in X and %d in B", x.R, b.Rows)
	case out.Rows != x.C || out.Cols != b.Cols:
		return fmt.Errorf("sparse: Xᵀ·B (%d×%d) into a %d×%d matrix", x.C, b.Cols, out.Rows, out.Cols)
	}
	k := b.Cols
	for j := range out.Rows {
		clear(out.Data[j*out.Stride : j*out.Stride+k])
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if x.NNZ() == 0 || k == 0 {
		return nil
	}
	cum := rowCosts(x)
	workers := max(1, min(runtime.GOMAXPROCS(0), x.R))
	if cum[x.R] < 1<<14 {
		workers = 1
	}
	bounds := make([]int, workers+1)
	for w := 1; w < workers; w++ {
		c := cum[x.R] * int64(w) / int64(workers)
		bounds[w] = sort.Search(x.R, func(i int) bool { return cum[i+1] > c })
	}
	bounds[workers] = x.R
	sums := make([]blas64.General, workers)
	sums[0] = out
	for w := 1; w < workers; w++ {
		sums[w] = blas64.General{Rows: x.C, Cols: k, Stride: k, Data: make([]float64, x.C*k)}
	}
	const check = 4096
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi, s := bounds[w], bounds[w+1], sums[w]
		wg.Go(func() {
			for i := lo; i < hi; i++ {
				if (i-lo)%check == check-1 && ctx.Err() != nil {
					return
				}
				src := b.Data[i*b.Stride : i*b.Stride+k]
				ind, val := x.Row(i)
				for m, j := range ind {
					v := val[m]
					dst := s.Data[int(j)*s.Stride : int(j)*s.Stride+k]
					for t, u := range src {
						dst[t] += v * u
					}
				}
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	for w := 1; w < workers; w++ {
		for j := range x.C {
			dst := out.Data[j*out.Stride : j*out.Stride+k]
			for t, u := range sums[w].Data[j*k : (j+1)*k] {
				dst[t] += u
			}
		}
	}
	return nil
}
