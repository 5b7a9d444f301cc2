package knn

import "runtime"

// EstimateMemory is the peak number of bytes Search allocates to find the k
// nearest of ref rows for query rows of d features (self: query is ref):
// the centred copies of ref (and of the queries), their norms, the result
// (an int32 and a float64 per neighbour) and, per worker goroutine, its
// block of distances (at most 256 rows × ref, and at most 8 MiB unless a
// single row is longer), its heap and its shortlist (every reference row in
// the worst case, when distances tie).
func EstimateMemory(ref, query, d, k int, self bool) int64 {
	r, q, dd, kk := float64(ref), float64(query), float64(d), float64(k)
	units := dd + r*dd + r // means, centred ref, norms
	if !self {
		units += q*dd + q
	}
	units += 1.5 * q * kk
	rows := float64(max(1, min(blockRows, scratch/max(ref, 1))))
	blocks := (q + rows - 1) / rows
	workers := max(1, min(float64(runtime.GOMAXPROCS(0)), blocks))
	units += workers * (rows*r + kk + 2*2*r)
	return int64(8 * units)
}
