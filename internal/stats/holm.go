package stats

import (
	"math"
	"slices"
)

// Holm returns Holm's step-down adjusted p-values of the m p-values p, in
// the order given (Demšar 2006, section 3.2.2; S. Holm, "A simple
// sequentially rejective multiple test procedure", Scand. J. Statist. 6
// (1979) 65–70): with p sorted ascending, the i-th smallest (1-based) gets
// max over j ≤ i of (m − j + 1)·p_(j), capped at 1, so the adjusted values
// keep the order of the raw ones. This is statsmodels'
// multipletests(p, method='holm')[1]; its goldens come from the same few
// lines of numpy. A NaN p (a test that could not be done) stays NaN and
// does not count in m. The result is a new slice; p is not changed.
func Holm(p []float64) []float64 {
	out, idx := sortedDefined(p)
	m := len(idx)
	running := 0.0
	for j, i := range idx {
		running = math.Max(running, float64(m-j)*p[i])
		out[i] = math.Min(1, running)
	}
	return out
}

// sortedDefined returns a slice for p's adjusted values, NaN where p is
// NaN (a test that could not be done), and the indices of the other
// p-values in ascending order of them (ties in their order), as the
// step-down and step-up adjustments walk them.
func sortedDefined(p []float64) (out []float64, idx []int) {
	out = make([]float64, len(p))
	for i, v := range p {
		if math.IsNaN(v) {
			out[i] = math.NaN()
			continue
		}
		idx = append(idx, i)
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case p[a] < p[b]:
			return -1
		case p[a] > p[b]:
			return 1
		}
		return 0
	})
	return out, idx
}
