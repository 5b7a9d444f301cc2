package stats

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// ErrNoVariance is returned (wrapped) by PairedT when every difference x−y
// is zero: t is 0/0, which scipy returns as NaN (t and p).
var ErrNoVariance = errors.New("all differences are zero")

// PairedT returns the paired t statistic and its two-sided p-value for x
// and y, as scipy.stats.ttest_rel(x, y) (scipy 1.10.1, alternative
// 'two-sided'); Demšar 2006, section 3.1.2. With d = x − y,
//
//	t = mean(d) / √(var(d)/n),  var with n − 1 in the denominator,
//
// p = 2·P(T_{n−1} ≤ −|t|). Means are summed in numpy's order (pairwise
// summation) so that t agrees with scipy's to the last bits.
//
// When the differences all equal one non-zero value, their variance is
// usually exactly zero: scipy then returns t = ±Inf and p = 0, and so does
// PairedT (a nil error; callers that write JSON must map ±Inf themselves).
// (When the mean of equal values is not exact in float64 the variance is a
// tiny positive number, t huge but finite and p about 0, as in scipy.)
//
// Errors: x and y of different lengths, fewer than 2 pairs (scipy returns
// NaN), a NaN (scipy returns NaN), every difference zero (ErrNoVariance;
// scipy returns NaN).
func PairedT(x, y []float64) (t, p float64, err error) {
	if len(x) != len(y) {
		return 0, 0, fmt.Errorf("stats: paired t-test: x has %d values and y %d; the samples must be paired", len(x), len(y))
	}
	n := len(x)
	if n < 2 {
		return 0, 0, fmt.Errorf("stats: paired t-test: %d pair(s) given; it needs at least 2", n)
	}
	d := make([]float64, n)
	for i := range x {
		d[i] = x[i] - y[i]
		if math.IsNaN(d[i]) {
			return 0, 0, fmt.Errorf("stats: paired t-test: pair %d is NaN (x = %v, y = %v); leave it out", i, x[i], y[i])
		}
	}
	N := float64(n)
	dm := pairwiseSum(d) / N
	sq := make([]float64, n)
	for i, v := range d {
		sq[i] = (v - dm) * (v - dm)
	}
	v := pairwiseSum(sq) / N
	v *= N / (N - 1)
	denom := math.Sqrt(v / N)
	if denom == 0 {
		if dm == 0 {
			return 0, 0, fmt.Errorf("stats: paired t-test: %w (%d pairs), so t is 0/0 and there is no p-value", ErrNoVariance, n)
		}
		return math.Copysign(math.Inf(1), dm), 0, nil
	}
	t = dm / denom
	p = 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: N - 1}.CDF(-math.Abs(t))
	return t, p, nil
}
