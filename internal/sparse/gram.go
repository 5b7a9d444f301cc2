package sparse

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/blas/blas64"
)

// Gram adds to the upper triangle of c (C×C) the weighted Gram matrix of
// x's rows, uncentred:
//
//	c += Σ_i w_i x_i x_iᵀ = XᵀWX,
//
// with w_i = 1 when weights is nil (weights may be negative; one per row).
// The entries of c below the diagonal are not touched.
//
// It walks x by columns (Gustavson's row-by-row product, on Xᵀ): row a of
// the result is the sum, over the rows i that hold feature a, of
// x_ia·w_i times the part of row i from column a on, so each output row is
// written by one worker, contiguously (its D values stay in the cache),
// and no worker holds a copy of the output. The work is
// Σ_i nnz_i(nnz_i+1)/2 multiply-adds, split among GOMAXPROCS workers by
// that count; the extra memory is the column index, 12 bytes per entry.
// Every entry is summed in ascending row order, so the result does not
// depend on the number of workers. Between rounds it checks ctx and calls
// progress (if not nil) with the fraction done; an error from either stops
// it, c then holding a partial sum.
//
// Centring is the caller's: XcᵀXc = XᵀX − N·μμᵀ (see package analysis for
// the cancellation this can cause and how it is guarded).
func Gram(ctx context.Context, x *CSR, weights []float64, c blas64.Symmetric, progress func(frac float64) error) error {
	switch {
	case c.N != x.C:
		return fmt.Errorf("sparse: Gram into a %d×%d matrix of a matrix of %d columns", c.N, c.N, x.C)
	case weights != nil && len(weights) != x.R:
		return fmt.Errorf("sparse: %d weights for %d rows", len(weights), x.R)
	}
	if x.NNZ() == 0 {
		return ctx.Err()
	}
	ix := columnIndex(x)
	// The cost of output row a: the entries of the rows holding feature a
	// from column a on.
	cum := make([]int64, x.C+1)
	for a := range x.C {
		cost := int64(1)
		for t := ix.Ptr[a]; t < ix.Ptr[a+1]; t++ {
			cost += x.Ptr[ix.Row[t]+1] - ix.Pos[t]
		}
		cum[a+1] = cum[a] + cost
	}
	work := func(lo, hi int) {
		for a := lo; a < hi; a++ {
			out := c.Data[a*c.Stride : a*c.Stride+c.N]
			for t := ix.Ptr[a]; t < ix.Ptr[a+1]; t++ {
				i, k := ix.Row[t], ix.Pos[t]
				va := x.Val[k]
				if weights != nil {
					va *= weights[i]
				}
				end := x.Ptr[i+1]
				ind, val := x.Ind[k:end], x.Val[k:end]
				val = val[:len(ind)]
				for m, j := range ind {
					out[j] += va * val[m]
				}
			}
		}
	}
	return byCost(ctx, cum, work, fraction(cum, progress))
}

// fraction turns progress in items into progress as the fraction of the
// cost done.
func fraction(cum []int64, progress func(float64) error) func(int) error {
	if progress == nil {
		return nil
	}
	total := float64(max(cum[len(cum)-1], 1))
	return func(done int) error { return progress(float64(cum[done]) / total) }
}
