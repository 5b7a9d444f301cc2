package knn

import "math"

// maxTreeDim is the most columns the tree is ever used for: beyond it the
// cost model below is an extrapolation (it predicts the tree up to d = 15
// for k = 10 at a million rows).
const maxTreeDim = 24

// The blocked search's predicted time, in ns on the 2-core machine of
// docs/BENCHMARKS.md: brutePair + brutePairCol·d a pair of a query and a
// reference row (the products of a tile, the pass over it that
// shortlists) and bruteQuery a query (its shortlist: the heap's pushes,
// Dist again and the sort). They are fitted to the ratio of the two ways'
// times in the same runs of BenchmarkSearchPaths (every row its own
// query, k = 10), so that they are in the tree's units (treeUnit): on a
// quiet host both ran faster than those units say, the blocked search at
// 1.2 to 1.8 ns a pair at 10 000 rows and d = 2…20, 1.4 to 1.5 at 50 000,
// 2.1 to 2.9 at 2 000. brutePairCol is the 4×12 kernel's 2·d flops a pair
// at about 40 GFLOP/s a core.
const (
	brutePair    = 1.5
	brutePairCol = 0.025
	bruteQuery   = 3000
)

// treeUnit is the unit, in ns, of the tree's costs in useTree: the
// blocked search's time per pair when they were fitted (gonum's Gemm and
// a second pass over a stored block of distances, about 10 ns whatever
// d).
const treeUnit = 10

// useTree tells whether Search should use the tree for the k nearest of q
// query rows among r reference rows of d columns (built: the tree is
// already built): whether the tree's predicted time is below the blocked
// distance products'.
//
// The blocked search takes q·(r·(brutePair + brutePairCol·d) +
// bruteQuery) ns. The tree's costs are counted in treeUnit: its build
// about 3·r·log₂ r (measured 0.075–0.1 s for 200 000 rows of d = 2…5),
// and for each query E:
//
//	E = 1 / (1/(76·(0.685·(k/24)^(1/d) + 1)^d) + 1/(1.25·r))
//
// The first term is Friedman, Bentley and Finkel's count of the leaves
// (of 24 rows on average) that the ball of the k nearest meets, (1 +
// G·(k/L)^(1/d))^d; the second the tree's cost when it meets them all,
// about that of the former blocked search (measured 1.07 to 1.38 times it
// at d = 16; 1.25 is taken). c = 76 and G = 0.685 are a least-squares fit
// (in log; rms error ×1.32) of the ratio of the two searches' times,
// measured with every row its own query on Gaussian rows (the tree's
// hardest case: real projections, whose variance falls off by direction,
// prune better) at r = 2 000, 10 000 and 50 000, d = 1…16, k = 1, 10, 50
// and 200, when the blocked search took treeUnit a pair. With the
// blocked search's present cost, for k = 10 the tree is taken up to
// d = 5 at r = 2 000, 7 at 10 000, 10 at 50 000 and 12 at 200 000. The
// predicted ratio of the tree's time to the blocked search's against the
// measured one (BenchmarkSearchPaths, load about 2): 0.96 and 0.89–0.93
// at r = 2 000, d = 5; 3.1 and 2.5–3.0 at d = 10; 0.38 and 0.27–0.31 at
// r = 10 000, d = 5; 2.7 and 2.3–3.0 at d = 10; 0.95 and 1.18 at
// r = 50 000, d = 10: a wrong choice near a crossover costs little
// either way. At d ≤ 3 the tree is 3 to 12 times faster.
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
	return treeUnit*(build+qf*perQuery) < qf*(rf*(brutePair+brutePairCol*df)+bruteQuery)
}
