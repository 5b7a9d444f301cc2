package knn

import (
	"cmp"
	"context"
	"slices"

	"mldr/internal/sparse"
)

// SearchSparse is Search for sparse rows: the same neighbours, ties
// included, as Search on the dense rows, without densifying them. The
// shortlist comes from ‖a‖² + ‖b‖² − 2a·b with the dot products of a block
// of query rows against every reference row formed from the non-zeros
// (the reference rows by column: O(Σ over the query's non-zeros of the
// column's non-zeros)); every reference row that could be among the k
// nearest within that formula's rounding error is measured again with
// sparse.Dist, which gives Dist's number to the last bit, and the k
// smallest are kept, ties by lower index. Memory: the reference rows'
// transpose (one more copy of their entries) and a block of distances per
// worker.
func SearchSparse(ctx context.Context, ref, query *sparse.CSR, k int, self bool, progress func(float64)) (*Neighbours, error) {
	r, d := ref.Dims()
	q, dq := query.Dims()
	if err := checkSearch(r, d, dq, k, self); err != nil {
		return nil, err
	}
	s := &sparseSearch{ref: ref, query: query, refT: ref.Transpose(), refNorm: ref.RowSqNorms(), qNorm: query.RowSqNorms(), self: self,
		// Each dot product and norm errs by at most about
		// nnz·u·(‖a‖² + ‖b‖²)/2 (u = 2⁻⁵³), nnz ≤ D: as Search's bound.
		tol: 8 * float64(d+4) * 0x1p-53,
		out: &Neighbours{Queries: q, K: k, Index: make([]int32, q*k), Dist: make([]float64, q*k)}}
	for i, v := range s.refNorm {
		if err := tooLarge(i, v); err != nil {
			return nil, err
		}
	}
	s.rows, s.k = max(1, min(blockRows, scratch/max(r, 1))), k
	if err := runBlocks(ctx, s, q, s.rows, progress); err != nil {
		return nil, err
	}
	return s.out, nil
}

type sparseSearch struct {
	ref, query, refT *sparse.CSR
	refNorm, qNorm   []float64
	self             bool
	rows, k          int
	tol              float64
	out              *Neighbours
}

// worker holds a block of distances (rows·R, of which block uses a row),
// a heap and a shortlist.
func (s *sparseSearch) worker() func(i0, i1 int) {
	g := make([]float64, s.rows*s.ref.R)
	heap := make([]float64, 0, s.k)
	var cand []candidate
	return func(i0, i1 int) { cand = s.block(i0, i1, s.k, g, heap, cand) }
}

// block finds the neighbours of query rows i0…i1−1.
func (s *sparseSearch) block(i0, i1, k int, g, heap []float64, cand []candidate) []candidate {
	n := s.ref.R
	row := g[:n]
	for i := i0; i < i1; i++ {
		clear(row)
		qi, qv := s.query.Row(i)
		for t, a := range qi {
			ri, rv := s.refT.Row(int(a))
			v := qv[t]
			for m, j := range ri {
				row[j] += v * rv[m]
			}
		}
		ni := s.qNorm[i]
		h := heap[:0]
		for j, v := range row {
			dj := max(ni+s.refNorm[j]-2*v, 0)
			row[j] = dj
			if !s.self || j != i {
				h = push(h, dj+s.tol*(ni+s.refNorm[j]), k)
			}
		}
		t := h[0]
		cand = cand[:0]
		for j, dj := range row {
			if (!s.self || j != i) && dj-s.tol*(ni+s.refNorm[j]) <= t {
				ri, rv := s.ref.Row(j)
				cand = append(cand, candidate{d: sparse.Dist(qi, qv, ri, rv), j: int32(j)})
			}
		}
		slices.SortFunc(cand, func(p, q candidate) int {
			return cmp.Or(cmp.Compare(p.d, q.d), cmp.Compare(p.j, q.j))
		})
		for t, cd := range cand[:k] {
			s.out.Index[i*k+t] = cd.j
			s.out.Dist[i*k+t] = cd.d
		}
	}
	return cand
}
