package knn

import "math"

// maxTreeDim is the most columns the tree is ever used for: beyond it the
// cost model below is an extrapolation (it predicts the tree up to d = 21
// for k = 10 at a million rows).
const maxTreeDim = 24

// useTree tells whether Search should use the tree for the k nearest of q
// query rows among r reference rows of d columns (built: the tree is
// already built): whether the tree's predicted cost is below the blocked
// distance products'.
//
// The costs are counted in the blocked search's cost per pair of a query
// and a reference row, which is about constant: about 10 ns on the 2-core
// machine of docs/BENCHMARKS.md for d = 1 to 16 (the Gemm is a small part
// at these d; the rest is the pass over each block's distances), so the
// blocked search costs q·r. The tree costs its build, about 3·r·log₂ r
// (measured 0.075–0.1 s for 200 000 rows of d = 2…5), and for each query
// E pairs' worth:
//
//	E = 1 / (1/(76·(0.685·(k/24)^(1/d) + 1)^d) + 1/(1.25·r))
//
// The first term is Friedman, Bentley and Finkel's count of the leaves
// (of 24 rows on average) that the ball of the k nearest meets, (1 +
// G·(k/L)^(1/d))^d; the second the tree's cost when it meets them all,
// about that of the blocked search (measured 1.07 to 1.38 times it at
// d = 16; 1.25 is taken, to lean to the blocked search where the two are
// close). c = 76 and G = 0.685 are a least-squares fit (in log; rms error
// ×1.32) of the ratio of the two searches' times, measured with every row
// its own query on Gaussian rows (the tree's hardest case: real
// projections, whose variance falls off by direction, prune better) at
// r = 2 000, 10 000 and 50 000, d = 1…16, k = 1, 10, 50 and 200. For
// k = 10 the tree is taken up to d = 9 at r = 2 000, 13 at 10 000, 16 at
// 50 000 and 18 at 200 000. Near those crossovers the measured ratio of
// the tree's time to the blocked search's was 0.61 at r = 2 000, d = 10
// (where the blocked search is taken), 0.81 and 1.15 at r = 10 000,
// d = 12 and 14, 0.71 and 1.06 at r = 50 000, d = 14 and 16: a wrong
// choice near a crossover costs little either way. At d ≤ 3 the tree is
// 7 to 250 times faster.
func useTree(r, q, d, k int, built bool) bool {
	if d < 1 || d > maxTreeDim || q < 1 || r < 2 {
		return false
	}
	rf, qf, df := float64(r), float64(q), float64(d)
	leaves := 76 * math.Pow(0.685*math.Pow(float64(k)/24, 1/df)+1, df)
	perQuery := 1 / (1/leaves + 1/(1.25*rf))
	build := 3 * rf * math.Log2(rf)
	if built {
		build = 0
	}
	return build+qf*perQuery < qf*rf
}
