package stats

import (
	"errors"
	"fmt"
	"math"
)

// ErrAllZero is returned (wrapped) by Wilcoxon when every difference x−y
// is zero: with zero_method='wilcox' nothing is left to rank, and scipy
// raises ValueError. Callers report the p-value as undefined.
var ErrAllZero = errors.New("all differences are zero")

// wilcoxonExactMax is the largest number of pairs (zeros included) for
// which scipy 1.10's method='auto' uses the exact distribution.
const wilcoxonExactMax = 50

// Wilcoxon returns the Wilcoxon signed-rank statistic and its two-sided
// p-value for the paired samples x and y, exactly as
// scipy.stats.wilcoxon(x, y) with every default of scipy 1.10.1
// (zero_method='wilcox', correction=False, alternative='two-sided',
// method='auto'); Demšar 2006, section 3.1.3.
//
// The differences d = x − y are ranked by |d| (Rank, ties averaged); the
// statistic T is the smaller of the sums of the ranks of the positive and
// of the negative differences. Then, as scipy 1.10 does:
//
//   - with at most 50 pairs and no zero difference, p is exact, from the
//     distribution of the positive rank sum r+ under H0 (all 2^n sign
//     patterns equally likely): 2·min(P(R ≤ r+), P(R ≥ r+)), 1 when r+ is
//     the centre ⌊n(n+1)/4⌋, capped at 1. With tied |d| r+ may end in .5;
//     scipy truncates it to an integer for the look-up, and so does this.
//   - with more than 50 pairs, or any zero difference, the zero differences
//     are dropped and p comes from the normal approximation
//     z = (T − n(n+1)/4)/σ with σ² = (n(n+1)(2n+1) − ½Σ t(t²−1))/24 over
//     the n non-zero differences and the groups of t tied ranks, without
//     continuity correction: p = 2·(1 − Φ(|z|)).
//
// Errors: x and y of different lengths or empty (scipy: ValueError, or NaN
// for empty), a NaN (scipy returns NaN), every difference zero
// (ErrAllZero; scipy raises).
func Wilcoxon(x, y []float64) (stat, p float64, err error) {
	if len(x) != len(y) {
		return 0, 0, fmt.Errorf("stats: Wilcoxon test: x has %d values and y %d; the samples must be paired", len(x), len(y))
	}
	if len(x) == 0 {
		return 0, 0, errors.New("stats: Wilcoxon test: no pairs given; it needs at least one")
	}
	d := make([]float64, len(x))
	zeros := 0
	for i := range x {
		d[i] = x[i] - y[i]
		if math.IsNaN(d[i]) {
			return 0, 0, fmt.Errorf("stats: Wilcoxon test: pair %d is NaN (x = %v, y = %v); leave it out", i, x[i], y[i])
		}
		if d[i] == 0 {
			zeros++
		}
	}
	exact := len(d) <= wilcoxonExactMax && zeros == 0
	if !exact {
		if zeros == len(d) {
			return 0, 0, fmt.Errorf("stats: Wilcoxon test: %w (%d pairs), so there is nothing to rank and no p-value", ErrAllZero, len(d))
		}
		nz := d[:0]
		for _, v := range d {
			if v != 0 {
				nz = append(nz, v)
			}
		}
		d = nz
	}
	n := len(d)
	abs := make([]float64, n)
	for i, v := range d {
		abs[i] = math.Abs(v)
	}
	r := Rank(abs)
	var rPlus, rMinus float64
	for i, v := range d {
		switch {
		case v > 0:
			rPlus += r[i]
		case v < 0:
			rMinus += r[i]
		}
	}
	stat = math.Min(rPlus, rMinus)
	if exact {
		return stat, wilcoxonExactP(n, int(rPlus)), nil
	}
	N := float64(n)
	mn := N * (N + 1) * 0.25
	se := N * (N + 1) * (2*N + 1)
	corr := 0.0
	for _, t := range tieCounts(r) {
		T := float64(t)
		corr += T * (T*T - 1)
	}
	se -= 0.5 * corr
	se = math.Sqrt(se / 24)
	z := (stat - mn) / se
	p = math.Erfc(math.Abs(z) / math.Sqrt2) // 2·norm.sf(|z|)
	return stat, p, nil
}

// wilcoxonExactP returns the exact two-sided p-value of the positive rank
// sum rPlus of n non-zero differences without ties, as scipy 1.10's
// wilcoxon with method 'exact' and its _get_wilcoxon_distr.
func wilcoxonExactP(n, rPlus int) float64 {
	return wilcoxonTwoSided(wilcoxonNull(n), rPlus)
}

// wilcoxonNull is the null distribution of the positive rank sum of n
// non-zero differences without ties: pmf[r] = P(R+ = r), r = 0…n(n+1)/2,
// every one of the 2^n sign patterns equally likely.
func wilcoxonNull(n int) []float64 {
	pmf := []float64{1}
	for k := 1; k <= n; k++ {
		prev := pmf
		pmf = make([]float64, k*(k+1)/2+1)
		m := len(prev)
		for i, v := range prev {
			pmf[i] = v * 0.5
		}
		for i, v := range prev {
			pmf[len(pmf)-m+i] += v * 0.5
		}
	}
	return pmf
}

// wilcoxonTwoSided is scipy 1.10's exact two-sided p-value of the positive
// rank sum rPlus under the null distribution pmf (wilcoxonNull).
func wilcoxonTwoSided(pmf []float64, rPlus int) float64 {
	if rPlus == (len(pmf)-1)/2 {
		return 1
	}
	less := pairwiseSum(pmf[:rPlus+1])
	greater := pairwiseSum(pmf[rPlus:])
	return math.Min(1, math.Max(0, 2*math.Min(greater, less)))
}

// WilcoxonMinP returns the smallest two-sided p-value Wilcoxon can give
// for n pairs with no zero and no tied difference: with few pairs no
// outcome is significant (n = 3: 0.25, n = 5: 0.0625; the first n at
// which p < 0.05 is possible is 6), whatever the scores. For n ≤ 50 it is
// the least, over every attainable positive rank sum r+, of the exact
// p-value from the null distribution of r+ (that at r+ = 0) (as scipy 1.10's wilcoxon
// with method 'exact'); beyond, scipy's normal approximation at the most
// extreme statistic T = 0. It returns NaN for n < 1.
func WilcoxonMinP(n int) float64 {
	switch {
	case n < 1:
		return math.NaN()
	case n > wilcoxonExactMax:
		N := float64(n)
		z := N * (N + 1) / 4 / math.Sqrt(N*(N+1)*(2*N+1)/24)
		return math.Erfc(z / math.Sqrt2)
	}
	// The smallest p is at the most extreme rank sum, r+ = 0 (its tail
	// 2⁻ⁿ is the least of any r+; r+ = n(n+1)/2 mirrors it).
	return wilcoxonTwoSided(wilcoxonNull(n), 0)
}
