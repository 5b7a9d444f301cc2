// Package knn finds exact k nearest neighbours by Euclidean distance, by
// a k-d tree in few dimensions and by blocked distance products
// otherwise, in parallel and without an N×N matrix. LPP's graph and the
// ML-kNN and k-NN classifiers use it.
package knn

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"mldr/internal/linalg"
)

// Neighbours holds the k nearest reference rows of each query row.
type Neighbours struct {
	Queries, K int
	// Index[i*K:(i+1)*K] are query i's neighbours, nearest first, equal
	// distances by lower index.
	Index []int32
	// Dist holds their squared distances (Dist of the two rows).
	Dist []float64
}

// Row returns query i's neighbours and squared distances.
func (n *Neighbours) Row(i int) ([]int32, []float64) {
	return n.Index[i*n.K : (i+1)*n.K], n.Dist[i*n.K : (i+1)*n.K]
}

// Dist is the squared Euclidean distance of two rows, summed in order. It
// defines the neighbours, ties included, and is exactly symmetric; the
// conversion rounds each square so that no fused multiply-add makes the
// result depend on the compiler.
func Dist(a, b []float64) float64 {
	s := 0.0
	for t, v := range a {
		d := v - b[t]
		s += float64(d * d)
	}
	return s
}

// scratch bounds, in float64s, the block of distances one worker of
// SearchSparse holds (8 MiB): rows·len(ref) ≤ scratch.
const scratch = 1 << 20

// blockRows is the most query rows one block takes.
const blockRows = 256

// Search finds, for every row of query, its k nearest rows of ref by Dist,
// ties by lower index. With self, query must be ref and each row's own
// index is left out (duplicates of it are not). Progress, if not nil, gets
// the fraction done, from the calling goroutine. It is
// NewReference(ref).Search: use a Reference to search the same rows
// again.
func Search(ctx context.Context, ref, query *mat.Dense, k int, self bool, progress func(float64)) (*Neighbours, error) {
	return NewReference(ref).Search(ctx, query, k, self, progress)
}

// Reference holds reference rows for any number of searches, and the k-d
// tree over them once a search has built it.
type Reference struct {
	x     *mat.Dense
	tree  func() *kdTree // builds the tree the first time, then returns it
	built atomic.Bool    // whether tree has been built
}

// NewReference returns the reference rows x (R×D) for searches. x must
// not change while the Reference is used.
func NewReference(x *mat.Dense) *Reference {
	ref := &Reference{x: x}
	ref.tree = sync.OnceValue(func() *kdTree {
		t := buildTree(x.RawMatrix())
		ref.built.Store(true)
		return t
	})
	return ref
}

// Search finds, for every row of query (Q×D), its k nearest reference
// rows by Dist, ties by lower index. With self, query must be the
// reference rows and each row's own index is left out (duplicates of it
// are not). Progress, if not nil, gets the fraction done, from the calling
// goroutine. The neighbours and their distances are exact: the same, to
// the bit, whichever of two ways finds them, chosen by their predicted
// cost (useTree):
//
//   - A k-d tree of the reference rows (few columns): built by the first
//     search that takes this way, O(R·D·log R), and kept with the
//     Reference for the next.
//     Each query walks it depth first, measuring the rows of the leaves
//     it cannot rule out with Dist itself; a subtree is ruled out only by
//     a lower bound of Dist that rounding cannot raise (kdTree.boxDist).
//     Queries run in blocks on every core. Memory O(R·D + Q·k).
//   - Blocks of query rows compared with all reference rows through the
//     products of rows centred by the reference means (‖a‖² + ‖b‖² −
//     2aᵀb, clamped at 0) by GOMAXPROCS workers that each own their
//     block's output and compute its products alone, a 4×12 tile at a
//     time (linalg.RowDotTiles; the rows packed once per search, read by
//     every block). These distances only shortlist, as the tiles come:
//     every reference row whose distance could, within its rounding
//     error, be among the k smallest is measured again with Dist on the
//     rows as given, and the k smallest of those are kept. O(Q·R·D) time,
//     O((Q+R)·D + Q·k + R) memory: no block of distances is stored.
//
// Either way the result is independent of rounding, blocks and workers;
// ctx is checked between blocks of queries, and errors are the same.
// Search may be called from several goroutines at once.
func (ref *Reference) Search(ctx context.Context, query *mat.Dense, k int, self bool, progress func(float64)) (*Neighbours, error) {
	r, d := ref.x.Dims()
	q, _ := query.Dims()
	if useTree(r, q, d, k, ref.built.Load()) {
		return ref.searchTree(ctx, query, k, self, progress)
	}
	return searchBrute(ctx, ref.x, query, k, self, progress)
}

// searchBrute is the blocked search by distance products that
// Reference.Search describes.
func searchBrute(ctx context.Context, ref, query *mat.Dense, k int, self bool, progress func(float64)) (*Neighbours, error) {
	return searchRows(ctx, ref, query, k, self, progress, blockRows)
}

// searchRows is searchBrute with rows query rows per block.
func searchRows(ctx context.Context, ref, query *mat.Dense, k int, self bool, progress func(float64), rows int) (*Neighbours, error) {
	r, d := ref.Dims()
	q, dq := query.Dims()
	if err := checkSearch(r, d, dq, k, self); err != nil {
		return nil, err
	}
	// The reference rows' norms are checked before anything is packed.
	mean := columnMeans(ref)
	refNorm, err := centredNorms(ref, mean)
	if err != nil {
		return nil, err
	}
	qNorm := refNorm
	if !self {
		if qNorm, err = centredNorms(query, mean); err != nil {
			return nil, err
		}
	}
	// The reference rows are packed once, for every block and worker;
	// with self they are the queries' packing too.
	refP := linalg.NewPanels(ref.RawMatrix(), mean)
	qP := refP
	if !self {
		qP = linalg.NewPanels(query.RawMatrix(), mean)
	}
	s := &search{
		ref: ref.RawMatrix(), query: query.RawMatrix(), refP: refP, qP: qP,
		refNorm: refNorm, qNorm: qNorm, self: self, rows: rows, k: k,
		// The product's distance, the centring and Dist each err by at
		// most about (D+3)·u·(‖a‖² + ‖b‖²) (u = 2⁻⁵³): twice that is safe.
		tol: 8 * float64(d+4) * 0x1p-53,
		out: &Neighbours{Queries: q, K: k, Index: make([]int32, q*k), Dist: make([]float64, q*k)},
	}
	if err := runBlocks(ctx, s, q, rows, progress); err != nil {
		return nil, err
	}
	return s.out, nil
}

// blockSearcher finds the neighbours of blocks of query rows. Each worker
// goroutine asks it once for a function of its own, which keeps that
// worker's scratch memory between blocks and finds the neighbours of query
// rows i0…i1−1.
type blockSearcher interface {
	worker() func(i0, i1 int)
}

// runBlocks runs s over the q query rows in blocks of rows, on every
// core, stopping when ctx is canceled.
func runBlocks(ctx context.Context, s blockSearcher, q, rows int, progress func(float64)) error {
	blocks := (q + rows - 1) / rows
	if blocks == 0 {
		return nil
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var next atomic.Int64
	done := make(chan struct{}, blocks) // never blocks a worker
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), blocks) {
		wg.Go(func() {
			block := s.worker()
			for wctx.Err() == nil {
				b := int(next.Add(1)) - 1
				if b >= blocks {
					return
				}
				block(b*rows, min((b+1)*rows, q))
				done <- struct{}{}
			}
		})
	}
	err := ctx.Err()
	for finished := 0; err == nil && finished < blocks; {
		select {
		case <-done:
			// select picks at random among ready cases: a block may be
			// ready together with the cancellation, and is not reported.
			if err = ctx.Err(); err != nil {
				break
			}
			finished++
			if progress != nil {
				progress(float64(finished) / float64(blocks))
			}
		case <-ctx.Done():
			err = ctx.Err()
		}
	}
	cancel()
	wg.Wait()
	return err
}

// columnMeans returns the means of x's columns, summed in row order.
func columnMeans(x *mat.Dense) []float64 {
	r, d := x.Dims()
	mean := make([]float64, d)
	raw := x.RawMatrix()
	for i := range r {
		for j, v := range raw.Data[i*raw.Stride : i*raw.Stride+d] {
			mean[j] += v
		}
	}
	for j := range mean {
		mean[j] /= float64(r)
	}
	return mean
}

// centredNorms returns the squared norms of x's rows minus mean, or
// tooLarge's error for the first row it refuses.
func centredNorms(x *mat.Dense, mean []float64) ([]float64, error) {
	n, d := x.Dims()
	raw := x.RawMatrix()
	norm := make([]float64, n)
	for i := range n {
		v := centreRow(nil, raw.Data[i*raw.Stride:i*raw.Stride+d], mean)
		if err := tooLarge(i, v); err != nil {
			return nil, err
		}
		norm[i] = v
	}
	return norm, nil
}

// centreRow writes src − mean into dst (nil: nowhere) and returns its
// squared norm.
func centreRow(dst, src, mean []float64) float64 {
	v := 0.0
	for j, a := range src {
		c := a - mean[j]
		if dst != nil {
			dst[j] = c
		}
		v += float64(c * c)
	}
	return v
}

// tooLarge refuses row i (0-based) when the squared norm v of its centred
// form is not finite or so large that squared distances could overflow;
// NaN and infinite features are refused here too.
func tooLarge(i int, v float64) error {
	if !(v <= math.MaxFloat64/64) {
		return fmt.Errorf("knn: row %d is too large for squared distances; rescale the features", i+1)
	}
	return nil
}

type search struct {
	ref, query blas64.General // the rows as given, for Dist
	refP, qP   *linalg.Panels // the rows minus the reference means, packed
	refNorm    []float64      // squared norms of the centred rows
	qNorm      []float64
	self       bool
	rows, k    int
	tol        float64
	out        *Neighbours
}

// candidate is a reference row j and a distance d: its Dist, or, in a
// blocked search's shortlist before finish, a lower bound of it.
type candidate struct {
	d float64
	j int32
}

// shortCap is the most reference rows one query row's shortlist holds
// while its block's products come in: some times the k of the result
// (a shortlist in random order takes about k·ln(R/k) rows, most of
// which later distances rule out).
func shortCap(k int) int { return 4*k + 64 }

// bruteWorker is one worker's state for the blocked search: for each row
// of its block, the heap of its k smallest upper bounds so far and its
// shortlist; and, for a row whose shortlist overflows (many rows at its
// k-th distance), one row of products and a shortlist as long as needed.
type bruteWorker struct {
	s      *search
	i0, i1 int
	rows   []shortlist
	tile   func(r0, j0 int, t *[linalg.TileRows * linalg.TileCols]float64)
	sums   linalg.TileScratch
	prods  []float64   // one query row's products with every reference row
	cand   []candidate // the shortlist of an overflowed row, then the result's
}

// shortlist is one query row's part of a bruteWorker.
type shortlist struct {
	h    []float64   // max-heap of the k smallest upper bounds so far
	t    float64     // h[0] once it holds k, +Inf before
	cand []candidate // each row whose lower bound (d) was at most t when it came
	over bool        // cand overflowed shortCap: the row is searched again alone
}

// worker gives each worker goroutine a bruteWorker of its own, with room
// for a block's shortlists.
func (s *search) worker() func(i0, i1 int) {
	w := &bruteWorker{s: s, rows: make([]shortlist, s.rows)}
	for r := range w.rows {
		w.rows[r].h = make([]float64, 0, s.k)
		w.rows[r].cand = make([]candidate, 0, shortCap(s.k))
	}
	w.tile = w.addTile
	return w.block
}

// block finds the neighbours of query rows i0…i1−1. The products of the
// block come a tile at a time (linalg.RowDotTiles) and are never stored:
// each gives, for its query row, a distance dj and its rounding error e;
// dj + e enters the row's heap of the k smallest upper bounds (their
// largest t), and the reference row is shortlisted if dj − e ≤ t. As t
// only falls, the rows whose lower bound is at most the final t are
// all shortlisted; only they are measured again with Dist, the k smallest
// of those kept.
func (w *bruteWorker) block(i0, i1 int) {
	s := w.s
	w.i0, w.i1 = i0, i1
	for r := range i1 - i0 {
		st := &w.rows[r]
		st.h, st.t, st.cand, st.over = st.h[:0], math.Inf(1), st.cand[:0], false
	}
	linalg.RowDotTiles(s.qP, i0, i1, s.refP, &w.sums, w.tile)
	for i := i0; i < i1; i++ {
		st := &w.rows[i-i0]
		if st.over {
			w.searchAlone(i)
			continue
		}
		st.cand = keepBelow(st.cand, st.t)
		s.finish(i, st.cand)
	}
}

// addTile takes the products of query rows r0… and reference rows j0…
// (the tile RowDotTiles hands out) into the rows' heaps and shortlists.
func (w *bruteWorker) addTile(r0, j0 int, t *[linalg.TileRows * linalg.TileCols]float64) {
	s := w.s
	cols := min(linalg.TileCols, s.ref.Rows-j0)
	norms := s.refNorm[j0 : j0+cols]
	for i := max(r0, w.i0); i < min(r0+linalg.TileRows, w.i1); i++ {
		st := &w.rows[i-w.i0]
		if st.over {
			continue
		}
		ni := s.qNorm[i]
		for c, v := range t[(i-r0)*linalg.TileCols : (i-r0)*linalg.TileCols+cols] {
			nj := norms[c]
			dj := max(ni+nj-2*v, 0)
			e := s.tol * (ni + nj)
			if dj-e > st.t || s.self && j0+c == i {
				continue // most rows, once the heap holds k
			}
			if len(st.cand) == cap(st.cand) {
				st.cand = keepBelow(st.cand, st.t)
				if len(st.cand) > cap(st.cand)/2 {
					st.over = true
					break
				}
			}
			st.cand = append(st.cand, candidate{d: dj - e, j: int32(j0 + c)})
			if u := dj + e; len(st.h) < s.k || u < st.h[0] {
				st.h = push(st.h, u, s.k)
				if len(st.h) == s.k {
					st.t = st.h[0]
				}
			}
		}
	}
}

// keepBelow keeps the candidates whose lower bound (in d) is at most t.
func keepBelow(cand []candidate, t float64) []candidate {
	kept := cand[:0]
	for _, c := range cand {
		if c.d <= t {
			kept = append(kept, c)
		}
	}
	return kept
}

// searchAlone finds query row i's neighbours from its products with every
// reference row, held at once: the k-th smallest upper bound t first,
// then every row whose lower bound is at most t. It is for the rows
// whose shortlist overflowed while the products came in tiles.
func (w *bruteWorker) searchAlone(i int) {
	s := w.s
	n := s.ref.Rows
	if w.prods == nil {
		w.prods = make([]float64, n)
	}
	row := w.prods
	linalg.RowDotTiles(s.qP, i, i+1, s.refP, &w.sums, func(r0, j0 int, t *[linalg.TileRows * linalg.TileCols]float64) {
		copy(row[j0:min(j0+linalg.TileCols, n)], t[(i-r0)*linalg.TileCols:])
	})
	ni := s.qNorm[i]
	h := w.rows[i-w.i0].h[:0]
	for j, v := range row {
		nj := s.refNorm[j]
		dj := max(ni+nj-2*v, 0)
		e := s.tol * (ni + nj)
		row[j] = dj - e
		if u := dj + e; (!s.self || j != i) && (len(h) < s.k || u < h[0]) {
			h = push(h, u, s.k)
		}
	}
	if s.self {
		row[i] = math.Inf(1)
	}
	w.cand = w.cand[:0]
	for j, lo := range row {
		if lo <= h[0] {
			w.cand = append(w.cand, candidate{d: lo, j: int32(j)})
		}
	}
	s.finish(i, w.cand)
}

// finish measures query row i's shortlist again with Dist and writes the
// k smallest, ties by lower index, to the result.
func (s *search) finish(i int, cand []candidate) {
	d, k := s.ref.Cols, s.k
	xi := s.query.Data[i*s.query.Stride : i*s.query.Stride+d]
	for c := range cand {
		j := int(cand[c].j)
		cand[c].d = Dist(xi, s.ref.Data[j*s.ref.Stride:j*s.ref.Stride+d])
	}
	slices.SortFunc(cand, func(p, q candidate) int {
		return cmp.Or(cmp.Compare(p.d, q.d), cmp.Compare(p.j, q.j))
	})
	for t, cd := range cand[:k] {
		s.out.Index[i*k+t] = cd.j
		s.out.Dist[i*k+t] = cd.d
	}
}

// push keeps the k smallest values in a max-heap.
func push(h []float64, v float64, k int) []float64 {
	if len(h) < k {
		h = append(h, v)
		for c := len(h) - 1; c > 0; {
			p := (c - 1) / 2
			if h[p] >= h[c] {
				break
			}
			h[p], h[c] = h[c], h[p]
			c = p
		}
		return h
	}
	if v >= h[0] {
		return h
	}
	h[0] = v
	for p := 0; ; {
		c := 2*p + 1
		if c >= len(h) {
			break
		}
		if c+1 < len(h) && h[c+1] > h[c] {
			c++
		}
		if h[p] >= h[c] {
			break
		}
		h[p], h[c] = h[c], h[p]
		p = c
	}
	return h
}

// checkSearch refuses a search of k neighbours among r reference rows of d
// columns for queries of dq columns (self: a query is among the reference
// rows and never its own neighbour).
func checkSearch(r, d, dq, k int, self bool) error {
	avail := r
	if self {
		avail--
	}
	switch {
	case dq != d:
		return fmt.Errorf("knn: the queries have %d columns, the reference rows %d", dq, d)
	case k < 1:
		return fmt.Errorf("knn: k must be at least 1, not %d", k)
	case k > avail:
		return fmt.Errorf("knn: k = %d neighbours needs more than %d reference rows", k, avail)
	}
	return nil
}
