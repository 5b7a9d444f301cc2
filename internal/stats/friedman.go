package stats

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat/distuv"
)

// ErrAllTied is returned (wrapped) by Friedman when every block ranks all
// its treatments equal: the tie correction is then 0 and the statistic
// 0/0, which scipy returns as NaN.
var ErrAllTied = errors.New("every data set gives all methods the same score")

// Friedman returns the Friedman statistic χ²_F and its p-value for scores,
// whose rows are blocks (data sets) and columns treatments (methods):
// within each row the scores are ranked (Rank: ascending, ties averaged;
// the direction does not matter to χ²_F), and
//
//	χ²_F = (12/(N k (k+1)) Σ_j R_j² − 3 N (k+1)) / C,
//	C = 1 − Σ t(t²−1) / (k (k²−1) N),
//
// with R_j the sum of column j's ranks over the N rows and the sum in C over
// every group of t tied values in a row. p is the upper tail of χ² with
// k − 1 degrees of freedom. This is scipy.stats.friedmanchisquare(*columns)
// (scipy 1.10.1), tie correction included (Demšar 2006, eq. 3, uses the
// uncorrected form, equal to it without ties).
//
// scipy refuses k = 2; Friedman computes the same formula for k = 2, as
// Demšar allows (the test is then the sign test's two-sided normal form),
// and its goldens for k = 2 come from the formula in numpy.
//
// Errors: fewer than 2 columns or no row, rows of unequal length, a NaN
// score (scipy would return NaN; leave that data set out), every row all
// ties (ErrAllTied; scipy returns NaN).
func Friedman(scores [][]float64) (chi2, p float64, err error) {
	n := len(scores)
	if n == 0 {
		return 0, 0, errors.New("stats: Friedman test: no data set given; it needs at least one row of scores")
	}
	k := len(scores[0])
	if k < 2 {
		return 0, 0, fmt.Errorf("stats: Friedman test: %d method(s) given; it needs at least 2", k)
	}
	colSums := make([]float64, k)
	ties := 0
	for i, row := range scores {
		if len(row) != k {
			return 0, 0, fmt.Errorf("stats: Friedman test: row %d has %d scores, row 0 has %d; every row needs one score per method", i, len(row), k)
		}
		for j, v := range row {
			if math.IsNaN(v) {
				return 0, 0, fmt.Errorf("stats: Friedman test: score [%d][%d] is NaN; leave that data set out", i, j)
			}
		}
		r := Rank(row)
		for j, v := range r {
			colSums[j] += v
		}
		for _, t := range tieCounts(r) {
			ties += t * (t*t - 1)
		}
	}
	c := 1 - float64(ties)/float64(k*(k*k-1)*n)
	if c == 0 {
		return 0, 0, fmt.Errorf("stats: Friedman test: %w, so the statistic is undefined", ErrAllTied)
	}
	sq := make([]float64, k)
	for j, s := range colSums {
		sq[j] = s * s
	}
	ssbn := pairwiseSum(sq)
	chi2 = (12.0/float64(k*n*(k+1))*ssbn - float64(3*n*(k+1))) / c
	p = distuv.ChiSquared{K: float64(k - 1)}.Survival(chi2)
	return chi2, p, nil
}

// ImanDavenport returns Iman and Davenport's F_F and its p-value for the
// Friedman statistic chi2 of n blocks (data sets) and k treatments
// (methods) (Demšar 2006, section 3.2.2):
//
//	F_F = (N−1) χ²_F / (N(k−1) − χ²_F),
//
// distributed as F with k−1 and (k−1)(N−1) degrees of freedom; p is its
// upper tail, as scipy.stats.f.sf(F_F, k−1, (k−1)(N−1)). χ²_F reaches its
// maximum N(k−1) when every block ranks the treatments the same way without
// ties; F_F is then +Inf and p 0. With n < 2, k < 2 or a NaN chi2 the
// statistic is undefined and both results are NaN.
func ImanDavenport(chi2 float64, n, k int) (f, p float64) {
	if n < 2 || k < 2 || math.IsNaN(chi2) {
		return math.NaN(), math.NaN()
	}
	N, K := float64(n), float64(k)
	den := N*(K-1) - chi2
	if den <= 0 {
		return math.Inf(1), 0
	}
	f = (N - 1) * chi2 / den
	d1, d2 := K-1, (K-1)*(N-1)
	// distuv.F.Survival is 1 − CDF, which loses small p-values; the upper
	// tail is I_{d2/(d2+d1 f)}(d2/2, d1/2), as Cephes' fdtrc that scipy uses.
	p = mathext.RegIncBeta(d2/2, d1/2, d2/(d2+d1*f))
	return f, p
}

// NemenyiCD returns the critical difference of the Nemenyi test for k
// methods compared over n data sets at level alpha (Demšar 2006, section
// 3.2.2, table 5(a)): two methods whose average ranks differ by at least
//
//	CD = q_α √(k(k+1)/(6N))
//
// differ significantly, where q_α is the studentized range quantile at
// 1−α for k groups and infinite degrees of freedom divided by √2
// (StudentizedRangeQuantile). q_α matches
// scipy.stats.studentized_range.ppf(1−α, k, np.inf)/√2 (scipy 1.10.1) to
// 1e−9 and Demšar's table to one unit of its third decimal (three of its
// entries are not the rounded exact value, e.g. 2.343 for k = 3, α = 0.05,
// where q_α = 2.34370). It returns NaN for k < 2,
// n < 1 or alpha outside (0, 1).
func NemenyiCD(k, n int, alpha float64) float64 {
	if k < 2 || n < 1 || !(alpha > 0 && alpha < 1) {
		return math.NaN()
	}
	q := StudentizedRangeQuantile(1-alpha, k) / math.Sqrt2
	return q * math.Sqrt(float64(k*(k+1))/(6*float64(n)))
}
