package knn

import (
	"runtime"

	"mldr/internal/linalg"
)

// EstimateMemory is the peak number of bytes Search allocates to find the k
// nearest of ref rows for query rows of d features (self: query is ref), on
// the way Search takes for that shape (useTree). d = 0, no feature
// columns, is instead SearchSparse's without the reference rows'
// transpose (estimateSparse), which the sparse estimates add. The tree's
// is never above the blocked search's for the same shape, so a Reference
// that keeps its tree for the next search, which then takes either way,
// holds no more than this estimate of that search.
func EstimateMemory(ref, query, d, k int, self bool) int64 {
	if d == 0 {
		return estimateSparse(ref, query, k)
	}
	if useTree(ref, query, d, k, false) {
		return estimateTree(ref, query, d, k)
	}
	return estimateBrute(ref, query, d, k, self)
}

// estimateSparse is SearchSparse's peak but for the reference rows'
// transpose: the norms of the reference and query rows, the result and,
// per worker goroutine, its block of distances (at most 256 rows × ref,
// and at most 8 MiB unless a single row is longer), its heap and its
// shortlist (every reference row in the worst case, when distances tie).
func estimateSparse(ref, query, k int) int64 {
	r, q, kk := float64(ref), float64(query), float64(k)
	units := r + q + 1.5*q*kk
	rows := float64(max(1, min(blockRows, scratch/max(ref, 1))))
	blocks := (q + rows - 1) / rows
	workers := max(1, min(float64(runtime.GOMAXPROCS(0)), blocks))
	units += workers * (rows*r + kk + 2*2*r)
	return int64(8 * units)
}

// estimateBrute is EstimateMemory for the blocked search: the packed
// centred copies of ref (and of the queries), their rows rounded up to a
// multiple of 12 (linalg.PanelsLen), their norms, the result (an int32
// and a float64 per neighbour) and, per worker goroutine, for each row of
// its block (256) a heap of k and a shortlist of shortCap(k) candidates
// (16 bytes each), the sums of the tiles (linalg.TileScratch, 12 KB),
// and for a row whose shortlist overflows a row of products and a
// shortlist of every reference row (the worst case, when distances tie,
// grown by appending); and 64 KiB for the rounding of the large arrays
// to whole pages of 8 KiB and for the goroutines' and the search's own
// small objects.
func estimateBrute(ref, query, d, k int, self bool) int64 {
	r, q, dd, kk := float64(ref), float64(query), float64(d), float64(k)
	units := dd + float64(linalg.PanelsLen(ref, d)) + r // means, packed ref, norms
	if !self {
		units += float64(linalg.PanelsLen(query, d)) + q
	}
	units += 1.5 * q * kk
	blocks := (q + blockRows - 1) / blockRows
	workers := max(1, min(float64(runtime.GOMAXPROCS(0)), blocks))
	perRow := kk + 2*float64(shortCap(k)) + 8 // heap, shortlist, their headers
	units += workers * (blockRows*perRow + 12<<10/8 + r + 2*2*r)
	return int64(8*units) + 64<<10
}

// estimateTree is EstimateMemory for the tree: the means (for the scale
// check), the reference rows in tree order (R·D), their order (an int32
// each), at most max(1, R/8) nodes (16 bytes and a box of 2·D float64s
// each), the result, per worker goroutine its heap of k candidates (16
// bytes each) and its stack (at most 2·64 frames of 16 bytes); and 64 KiB
// for the rounding of the six large arrays to whole pages of 8 KiB and for
// the goroutines' and the search's own small objects.
func estimateTree(ref, query, d, k int) int64 {
	r, q, dd, kk := float64(ref), float64(query), float64(d), float64(k)
	nodes := max(1, r/8)
	units := dd + r*dd + r/2 + nodes*(2+2*dd) + 1.5*q*kk
	units += float64(runtime.GOMAXPROCS(0)) * (2*kk + 2*2*64)
	return int64(8*units) + 64<<10
}
