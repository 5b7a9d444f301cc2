package sparse

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/blas/blas64"
)

// Mul sets out = X·B for x (N×C) sparse and b (C×k) dense: each row of
// out is the sum of the rows of b at x's columns, weighted by its values,
// in ascending column order. Rows are split among GOMAXPROCS workers by
// their entries; between rounds it checks ctx. Work O(nnz·k). It is how
// sparse rows are projected (X·P, then − 1·μᵀP by the caller).
func Mul(ctx context.Context, x *CSR, b, out blas64.General) error {
	switch {
	case b.Rows != x.C:
		return fmt.Errorf("sparse: %d×%d times %d×%d", x.R, x.C, b.Rows, b.Cols)
	case out.Rows != x.R || out.Cols != b.Cols:
		return fmt.Errorf("sparse: a %d×%d product into a %d×%d matrix", x.R, b.Cols, out.Rows, out.Cols)
	}
	k := b.Cols
	work := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			row := out.Data[i*out.Stride : i*out.Stride+k]
			clear(row)
			ind, val := x.Row(i)
			for m, j := range ind {
				v := val[m]
				src := b.Data[int(j)*b.Stride : int(j)*b.Stride+k]
				for t, s := range src {
					row[t] += v * s
				}
			}
		}
	}
	return byCost(ctx, rowCosts(x), work, nil)
}

// ColumnSums returns Σ_i w_i x_ij for every column j (w_i = 1 when weights
// is nil), summed on every core: each worker sums its rows, and the
// workers' sums are added in order.
func ColumnSums(ctx context.Context, x *CSR, weights []float64) ([]float64, error) {
	if weights != nil && len(weights) != x.R {
		return nil, fmt.Errorf("sparse: %d weights for %d rows", len(weights), x.R)
	}
	const block = 4096
	nb := (x.R + block - 1) / block
	parts := make([][]float64, nb) // one sum per block of rows: the result does not depend on the workers
	cum := make([]int64, nb+1)
	for b := range nb {
		cum[b+1] = x.Ptr[min(x.R, (b+1)*block)] + int64(min(x.R, (b+1)*block))
	}
	err := byCost(ctx, cum, func(lo, hi int) {
		for b := lo; b < hi; b++ {
			s := make([]float64, x.C)
			for i := b * block; i < min(x.R, (b+1)*block); i++ {
				ind, val := x.Row(i)
				w := 1.0
				if weights != nil {
					w = weights[i]
				}
				for m, j := range ind {
					s[j] += w * val[m]
				}
			}
			parts[b] = s
		}
	}, nil)
	if err != nil {
		return nil, err
	}
	sum := make([]float64, x.C)
	for _, s := range parts {
		for j, v := range s {
			sum[j] += v
		}
	}
	return sum, nil
}
