package knn

import (
	"cmp"
	"context"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sync"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// leafSize is the most reference rows a leaf of the tree holds. A node
// of more is split in two halves, so a leaf holds leafSize/2 to leafSize
// rows (fewer only when the tree is a single leaf).
const leafSize = 32

// kdTree is a k-d tree over the reference rows: each node is a range of
// positions in tree order with the tight bounding box of its rows; a node
// of more than leafSize rows is split at the median of its widest column
// (ties by lower index, so that the split is a total order and rows equal
// in that column are cut by index). Nodes are numbered in pre-order, so a
// node's first child follows it. Its memory, beyond the rows it copies in
// tree order (R·D), is O(R): the order (R int32s) and at most R/8 nodes
// with their boxes (see EstimateMemory).
type kdTree struct {
	d     int
	pts   []float64 // the reference rows in tree order, d values each
	idx   []int32   // idx[p] is the reference index of the row at position p
	nodes []kdNode  // nodes[0] is the root
	// box holds each node's box: node n's lower corner at box[2nd:2nd+d],
	// its upper corner at box[2nd+d:2nd+2d].
	box []float64
}

// kdNode is a node of a kdTree.
type kdNode struct {
	start, end int32 // its rows are at positions start…end−1
	// right is its second child (the first is the next node); 0 for a
	// leaf.
	right int32
	// minIdx is the lowest reference index among its rows.
	minIdx int32
}

// treeNodes is the number of nodes of the tree of n rows: at most
// max(1, n/8), since a split node has more than leafSize rows and so
// every leaf at least leafSize/2.
func treeNodes(n int) int {
	if n <= leafSize {
		return 1
	}
	return 1 + treeNodes(n/2) + treeNodes(n-n/2)
}

// parallelRows is the fewest rows a subtree must have for its halves to
// be built by two goroutines.
const parallelRows = 8192

// buildTree builds the tree of ref's rows, in O(R·D·log R) time, the
// subtrees of parallelRows rows or more on goroutines of their own (the
// tree does not depend on them).
func buildTree(ref blas64.General) *kdTree {
	r, d := ref.Rows, ref.Cols
	n := treeNodes(r)
	t := &kdTree{d: d, pts: make([]float64, r*d), idx: make([]int32, r), nodes: make([]kdNode, n), box: make([]float64, 2*d*n)}
	for i := range t.idx {
		t.idx[i] = int32(i)
	}
	t.split(ref, 0, 0, r)
	return t
}

// split makes node n of the rows at positions start…end−1, and its
// subtree.
func (t *kdTree) split(ref blas64.General, n, start, end int) {
	d := t.d
	lo, hi := t.box[2*n*d:2*n*d+d], t.box[2*n*d+d:2*n*d+2*d]
	row := func(i int32) []float64 { return ref.Data[int(i)*ref.Stride : int(i)*ref.Stride+d] }
	copy(lo, row(t.idx[start]))
	copy(hi, lo)
	m := t.idx[start]
	for _, i := range t.idx[start+1 : end] {
		for c, v := range row(i) {
			lo[c] = min(lo[c], v)
			hi[c] = max(hi[c], v)
		}
		m = min(m, i)
	}
	t.nodes[n] = kdNode{start: int32(start), end: int32(end), minIdx: m}
	if end-start <= leafSize {
		for p, i := range t.idx[start:end] {
			copy(t.pts[(start+p)*d:(start+p+1)*d], row(i))
		}
		return
	}
	dim, width := 0, hi[0]-lo[0]
	for c := 1; c < d; c++ {
		if w := hi[c] - lo[c]; w > width {
			dim, width = c, w
		}
	}
	mid := start + (end-start)/2
	selectNth(t.idx[start:end], mid-start, func(i int32) float64 { return ref.Data[int(i)*ref.Stride+dim] })
	right := n + 1 + treeNodes(mid-start)
	t.nodes[n].right = int32(right)
	if end-start < parallelRows {
		t.split(ref, n+1, start, mid)
		t.split(ref, right, mid, end)
		return
	}
	var wg sync.WaitGroup
	wg.Go(func() { t.split(ref, n+1, start, mid) })
	t.split(ref, right, mid, end)
	wg.Wait()
}

// selectNth reorders idx so that idx[nth] is the row of rank nth by
// (key, index), with every row before it lower and every row after it
// higher: quickselect by Hoare's partition around a median of three,
// which sorts the part left once it has taken more rounds than about
// 2·log₂ of the rows (so never quadratic).
func selectNth(idx []int32, nth int, key func(int32) float64) {
	less := func(a, b int32) bool {
		ka, kb := key(a), key(b)
		return ka < kb || ka == kb && a < b
	}
	lo, hi := 0, len(idx)-1
	for rounds := 2 * bits.Len(uint(len(idx))); lo < hi; rounds-- {
		if rounds == 0 {
			slices.SortFunc(idx[lo:hi+1], func(a, b int32) int {
				return cmp.Or(cmp.Compare(key(a), key(b)), cmp.Compare(a, b))
			})
			return
		}
		m := lo + (hi-lo)/2
		if less(idx[m], idx[lo]) {
			idx[m], idx[lo] = idx[lo], idx[m]
		}
		if less(idx[hi], idx[lo]) {
			idx[hi], idx[lo] = idx[lo], idx[hi]
		}
		if less(idx[hi], idx[m]) {
			idx[hi], idx[m] = idx[m], idx[hi]
		}
		pivot := idx[m]
		i, j := lo, hi
		for i <= j {
			for less(idx[i], pivot) {
				i++
			}
			for less(pivot, idx[j]) {
				j--
			}
			if i <= j {
				idx[i], idx[j] = idx[j], idx[i]
				i++
				j--
			}
		}
		// idx[lo…j] ≤ pivot ≤ idx[i…hi], and any row between is the pivot.
		switch {
		case nth <= j:
			hi = j
		case nth >= i:
			lo = i
		default:
			return
		}
	}
}

// boxDist is a lower bound of Dist(x, y) over every y in node n's box, or
// a number above tau when that bound is above tau. It is exact with
// respect to rounding, not within a tolerance: it sums, in column order as
// Dist does, the rounded squares of the rounded gaps x_t − lo_t (or
// x_t − hi_t, or 0 inside), and for y in the box |fl(x_t − y_t)| ≥
// |fl(x_t − lo_t)| because rounding is monotonic, so each rounded square
// and then each rounded partial sum is at most Dist's own. A subtree is
// left out only when this bound is above the k-th distance (or equal to it
// with every index in the subtree above the k-th's), so no row that could
// be among the k nearest, ties included, is ever left out.
func (t *kdTree) boxDist(x []float64, n int) float64 {
	d := t.d
	lo, hi := t.box[2*n*d:2*n*d+d], t.box[2*n*d+d:2*n*d+2*d]
	s := 0.0
	for c, v := range x {
		// lo_t − x_t rounds to −fl(x_t − lo_t): the same square.
		g := max(lo[c]-v, v-hi[c], 0)
		s += float64(g * g)
	}
	return s
}

// frame is a node waiting on the search's stack with a lower bound of
// its distance.
type frame struct {
	node  int32
	bound float64
}

// before orders candidates by distance, then index.
func before(a, b candidate) bool {
	return a.d < b.d || a.d == b.d && a.j < b.j
}

// nearest finds the k rows nearest to x by Dist, ties by lower index,
// leaving out the row of index skip (−1: none), into h, sorted; stack is
// scratch. Depth first, the nearer child first (by their bounds, then by
// their lowest index), with h a max-heap of the k best so far by
// (distance, index).
func (t *kdTree) nearest(x []float64, skip int32, k int, h []candidate, stack []frame) ([]candidate, []frame) {
	d := t.d
	h, stack = h[:0], append(stack[:0], frame{0, 0})
	// The k-th so far (by distance, then index), once there are k: a node
	// of lower bound b and lowest index m may hold a row that goes before
	// it only if b < tau or b = tau and m < top.
	tau, top := math.Inf(1), int32(math.MaxInt32)
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		nd := &t.nodes[f.node]
		if f.bound > tau || f.bound == tau && nd.minIdx > top {
			continue
		}
		if nd.right == 0 {
			pts := t.pts[int(nd.start)*d : int(nd.end)*d]
			for m, j := range t.idx[nd.start:nd.end] {
				dj := Dist(x, pts[m*d:m*d+d])
				switch {
				case j == skip:
				case len(h) < k:
					h = heapUp(append(h, candidate{dj, j}))
					if len(h) == k {
						tau, top = h[0].d, h[0].j
					}
				case dj < tau || dj == tau && j < top:
					h[0] = candidate{dj, j}
					heapDown(h)
					tau, top = h[0].d, h[0].j
				}
			}
			continue
		}
		a, b := f.node+1, nd.right
		na, nb := &t.nodes[a], &t.nodes[b]
		ba, bb := t.boxDist(x, int(a)), t.boxDist(x, int(b))
		if ba > bb || ba == bb && na.minIdx > nb.minIdx {
			a, b, ba, bb, na, nb = b, a, bb, ba, nb, na
		}
		if bb < tau || bb == tau && nb.minIdx < top {
			stack = append(stack, frame{b, bb})
		}
		if ba < tau || ba == tau && na.minIdx < top {
			stack = append(stack, frame{a, ba})
		}
	}
	slices.SortFunc(h, func(p, q candidate) int {
		return cmp.Or(cmp.Compare(p.d, q.d), cmp.Compare(p.j, q.j))
	})
	return h, stack
}

// heapUp restores the max-heap order of h by (distance, index) after a
// candidate was appended.
func heapUp(h []candidate) []candidate {
	for c := len(h) - 1; c > 0; {
		p := (c - 1) / 2
		if !before(h[p], h[c]) {
			break
		}
		h[p], h[c] = h[c], h[p]
		c = p
	}
	return h
}

// heapDown restores the max-heap order of h after its top was replaced.
func heapDown(h []candidate) {
	for p := 0; ; {
		c := 2*p + 1
		if c >= len(h) {
			return
		}
		if c+1 < len(h) && before(h[c], h[c+1]) {
			c++
		}
		if !before(h[p], h[c]) {
			return
		}
		h[p], h[c] = h[c], h[p]
		p = c
	}
}

// treeBlockRows is the most query rows one block of the tree search
// takes. Blocks are smaller when there are few queries, so that every
// core gets several.
const treeBlockRows = 256

// searchTree is Search by a k-d tree of ref's rows, built for this search
// alone.
func searchTree(ctx context.Context, ref, query *mat.Dense, k int, self bool, progress func(float64)) (*Neighbours, error) {
	return NewReference(ref).searchTree(ctx, query, k, self, progress)
}

// searchTree is Search by the k-d tree of ref's rows, built by the first
// search that needs it: the same neighbours and distances, ties included,
// as searchBrute, after the same checks with the same errors. With self
// the queries are taken in tree order, so that consecutive queries walk
// the same nodes.
func (ref *Reference) searchTree(ctx context.Context, query *mat.Dense, k int, self bool, progress func(float64)) (*Neighbours, error) {
	r, d := ref.x.Dims()
	q, dq := query.Dims()
	if err := checkSearch(r, d, dq, k, self); err != nil {
		return nil, err
	}
	if err := checkScale(ref.x, query, self); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s := &treeSearch{t: ref.tree(), query: query.RawMatrix(), self: self, k: k,
		out: &Neighbours{Queries: q, K: k, Index: make([]int32, q*k), Dist: make([]float64, q*k)}}
	rows := max(1, min(treeBlockRows, q/(8*runtime.GOMAXPROCS(0))))
	if err := runBlocks(ctx, s, q, rows, progress); err != nil {
		return nil, err
	}
	return s.out, nil
}

// checkScale refuses what searchBrute's centring refuses, with the same
// error, without a centred copy: ref's rows, then the queries'.
func checkScale(ref, query *mat.Dense, self bool) error {
	mean := columnMeans(ref)
	rows := []*mat.Dense{ref}
	if !self {
		rows = append(rows, query)
	}
	for _, x := range rows {
		n, d := x.Dims()
		raw := x.RawMatrix()
		for i := range n {
			if err := tooLarge(i, centreRow(nil, raw.Data[i*raw.Stride:i*raw.Stride+d], mean)); err != nil {
				return err
			}
		}
	}
	return nil
}

// treeSearch is the tree search's work, shared by its workers.
type treeSearch struct {
	t     *kdTree
	query blas64.General
	self  bool
	k     int
	out   *Neighbours
}

// worker holds a heap of k candidates and a stack of nodes.
func (s *treeSearch) worker() func(i0, i1 int) {
	h := make([]candidate, 0, s.k)
	stack := make([]frame, 0, 2*bits.Len(uint(len(s.t.idx)))+2)
	d := s.t.d
	return func(i0, i1 int) {
		for p := i0; p < i1; p++ {
			i, x, skip := p, s.query.Data[p*s.query.Stride:p*s.query.Stride+d], int32(-1)
			if s.self {
				skip = s.t.idx[p]
				i, x = int(skip), s.t.pts[p*d:(p+1)*d]
			}
			h, stack = s.t.nearest(x, skip, s.k, h, stack)
			for t, c := range h {
				s.out.Index[i*s.k+t] = c.j
				s.out.Dist[i*s.k+t] = c.d
			}
		}
	}
}
