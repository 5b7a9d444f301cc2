package sparse

import (
	"context"
	"fmt"
	"sort"

	"gonum.org/v1/gonum/blas/blas64"
)

// tmulBlockBytes is the size of the block of output rows a worker of TMul
// fills in one pass over the rows: the size of a core's L2 cache on the
// benchmark machine. Smaller blocks lose more to the passes over the rows
// than they gain in the cache (at q = 400, 20 000 × 5 000 at 2 %: 64 KiB
// 0.3 s, 256 KiB 0.3 s, 2 MiB 0.07–0.11 s, 4 MiB 0.10–0.12 s, the column-
// index kernel it replaces 0.07–0.15 s and 24 MB of index; scipy's
// X.T @ Y 0.10 s).
const tmulBlockBytes = 1 << 21

// TMul adds XᵀL to out (C×c), for x (N×C) and l (N×c), both sparse: the
// cross product of the features with the labels (or any sparse matrix of
// the same rows). Entries are summed in ascending row order, so the result
// does not depend on the number of workers. Work O(Σ_i nnz(x_i)·nnz(l_i)
// + N·C/B) for blocks of B rows of out (see TMulRows); the extra memory is
// one cursor a row per worker.
func TMul(ctx context.Context, x, l *CSR, out blas64.General, progress func(frac float64) error) error {
	switch {
	case l.R != x.R:
		return fmt.Errorf("sparse: XᵀL with %d rows in X and %d in L", x.R, l.R)
	case out.Rows != x.C || out.Cols != l.C:
		return fmt.Errorf("sparse: XᵀL (%d×%d) into a %d×%d matrix", x.C, l.C, out.Rows, out.Cols)
	}
	return tmulRows(ctx, x, l, func(a0, a1 int) blas64.General {
		return blas64.General{Rows: a1 - a0, Cols: out.Cols, Stride: out.Stride, Data: out.Data[a0*out.Stride:]}
	}, nil, progress)
}

// TMulRows computes XᵀL (C×c) for x (N×C) and l (N×c) sparse, a block of
// rows at a time, without holding it whole: visit gets the rows a0…a1−1
// of XᵀL (as a (a1−a0)×c matrix it may read but not keep) once each,
// from several workers at once (blocks are disjoint; visit must be safe
// for that). It is for a caller that needs only something of XᵀL, such as
// its norm: the memory is a block of about 2 MiB and one cursor a row
// per worker. An error from visit stops the work.
func TMulRows(ctx context.Context, x, l *CSR, visit func(a0 int, rows blas64.General) error) error {
	if l.R != x.R {
		return fmt.Errorf("sparse: XᵀL with %d rows in X and %d in L", x.R, l.R)
	}
	return tmulRows(ctx, x, l, nil, visit, nil)
}

// tmulRows is TMul and TMulRows: x's features are split into blocks of
// rows of the result that fit tmulBlockBytes, the blocks among the workers
// by their work (byCost); a worker fills a block in one pass over the rows
// of x, each row's entries in the block found from a cursor that the
// previous block left there (columns ascend within a row), and then
// either writes it into target's rows (added to them) or hands it to
// visit (from a buffer of its own).
func tmulRows(ctx context.Context, x, l *CSR, target func(a0, a1 int) blas64.General, visit func(int, blas64.General) error, progress func(float64) error) error {
	c := l.C
	if x.C == 0 || c == 0 {
		return ctx.Err()
	}
	bs := max(8, min(x.C, tmulBlockBytes/(8*c)))
	nb := (x.C + bs - 1) / bs
	// The cost of block t: its entries times their rows' labels, and a
	// step a row for the cursors.
	cum := make([]int64, nb+1)
	for i := range x.R {
		li := 1 + l.Ptr[i+1] - l.Ptr[i]
		for _, j := range x.Ind[x.Ptr[i]:x.Ptr[i+1]] {
			cum[int(j)/bs+1] += li
		}
	}
	for t := range nb {
		cum[t+1] += cum[t] + int64(x.R)
	}
	var failed error
	errs := make([]error, nb)
	work := func(lo, hi int) {
		cur := make([]int64, x.R)
		a0 := lo * bs
		for i := range x.R {
			ind := x.Ind[x.Ptr[i]:x.Ptr[i+1]]
			cur[i] = x.Ptr[i] + int64(sort.Search(len(ind), func(m int) bool { return int(ind[m]) >= a0 }))
		}
		var buf []float64
		if visit != nil {
			buf = make([]float64, bs*c)
		}
		for t := lo; t < hi; t++ {
			a0, a1 := t*bs, min(x.C, (t+1)*bs)
			var dst blas64.General
			if visit != nil {
				dst = blas64.General{Rows: a1 - a0, Cols: c, Stride: c, Data: buf[:(a1-a0)*c]}
				clear(dst.Data)
			} else {
				dst = target(a0, a1)
			}
			for i := range x.R {
				k, end := cur[i], x.Ptr[i+1]
				if k == end || int(x.Ind[k]) >= a1 {
					continue
				}
				lind, lval := l.Row(i)
				lval = lval[:len(lind)]
				for ; k < end; k++ {
					j := int(x.Ind[k])
					if j >= a1 {
						break
					}
					v := x.Val[k]
					row := dst.Data[(j-a0)*dst.Stride : (j-a0)*dst.Stride+c]
					for m, q := range lind {
						row[q] += v * lval[m]
					}
				}
				cur[i] = k
			}
			if visit != nil {
				if errs[t] = visit(a0, dst); errs[t] != nil {
					return
				}
			}
		}
	}
	err := byCost(ctx, cum, work, func(done int) error {
		for _, e := range errs[:done] {
			if e != nil {
				failed = e
				return e
			}
		}
		if progress != nil {
			return progress(float64(cum[done]) / float64(max(cum[nb], 1)))
		}
		return nil
	})
	if failed != nil {
		return failed
	}
	return err
}
