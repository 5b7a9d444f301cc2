package stats

import (
	"math"
	"slices"
)

// Rank returns the 1-based ranks of x, tied values sharing the average of
// the ranks they span, as scipy.stats.rankdata(x) (method='average') does:
// Rank([]float64{10, 20, 10, 30}) is [1.5, 3, 1.5, 4]. Values tie when they
// are equal under ==, so −0 and +0 tie. As scipy's default
// nan_policy='propagate', a NaN anywhere makes every rank NaN. The result
// is a new slice of len(x); x is not changed.
//
// One deliberate difference: scipy 1.10 detects NaN by np.isnan(np.sum(x)),
// so an x holding both +Inf and −Inf (or finite values whose sum overflows
// to them) gets all-NaN ranks there; Rank ranks such values (−Inf first,
// +Inf last), as later scipy versions do.
func Rank(x []float64) []float64 {
	n := len(x)
	r := make([]float64, n)
	for _, v := range x {
		if math.IsNaN(v) {
			for i := range r {
				r[i] = math.NaN()
			}
			return r
		}
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		switch {
		case x[a] < x[b]:
			return -1
		case x[a] > x[b]:
			return 1
		}
		return 0
	})
	for start := 0; start < n; {
		end := start + 1
		for end < n && x[order[end]] == x[order[start]] {
			end++
		}
		// Positions start..end-1 (0-based) hold ranks start+1..end; their
		// average, as scipy's 0.5*(count[dense]+count[dense-1]+1).
		avg := 0.5 * float64(end+start+1)
		for _, i := range order[start:end] {
			r[i] = avg
		}
		start = end
	}
	return r
}

// tieCounts returns the sizes of the groups of equal values in x that have
// more than one member, as the counts of scipy.stats.find_repeats.
func tieCounts(x []float64) []int {
	s := slices.Clone(x)
	slices.Sort(s)
	var counts []int
	for start := 0; start < len(s); {
		end := start + 1
		for end < len(s) && s[end] == s[start] {
			end++
		}
		if end-start > 1 {
			counts = append(counts, end-start)
		}
		start = end
	}
	return counts
}

// pairwiseSum returns the sum of x in the order numpy 1.24's np.sum (its
// pairwise_sum for contiguous float64) adds the terms, so that means and
// variances agree with scipy's to the last bit: fewer than 8 terms from
// left to right; up to 128 in eight running sums combined as
// ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7)), then the rest; more in two halves
// split at a multiple of 8.
func pairwiseSum(x []float64) float64 {
	n := len(x)
	switch {
	case n < 8:
		s := 0.0
		for _, v := range x {
			s += v
		}
		return s
	case n <= 128:
		var r [8]float64
		copy(r[:], x[:8])
		i := 8
		for ; i < n-n%8; i += 8 {
			for j := range r {
				r[j] += x[i+j]
			}
		}
		s := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			s += x[i]
		}
		return s
	default:
		n2 := n / 2
		n2 -= n2 % 8
		return pairwiseSum(x[:n2]) + pairwiseSum(x[n2:])
	}
}
