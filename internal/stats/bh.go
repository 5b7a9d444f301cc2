package stats

import (
	"math"
)

// BenjaminiHochberg returns the Benjamini–Hochberg step-up adjusted
// p-values (false discovery rate) of the m p-values p, in the order given
// (Y. Benjamini and Y. Hochberg, "Controlling the false discovery rate",
// J. R. Statist. Soc. B 57 (1995) 289–300): with p sorted ascending, the
// i-th smallest (1-based) gets min over j ≥ i of p_(j)·m/j, capped at 1, so
// the adjusted values keep the order of the raw ones. This is statsmodels'
// multipletests(p, method='fdr_bh')[1] (scipy 1.10 has none); its goldens
// come from the same lines of numpy. As in Holm, a NaN p stays NaN and does
// not count in m. The result is a new slice; p is not changed.
func BenjaminiHochberg(p []float64) []float64 {
	out, idx := sortedDefined(p)
	m := len(idx)
	running := math.Inf(1)
	for j := m - 1; j >= 0; j-- {
		i := idx[j]
		// p / (rank/m), as statsmodels divides by its ecdf factor.
		running = math.Min(running, p[i]/(float64(j+1)/float64(m)))
		out[i] = math.Min(1, running)
	}
	return out
}
