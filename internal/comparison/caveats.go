package comparison

import (
	"fmt"
	"strconv"

	"mldr/internal/stats"
)

// Rules of thumb for the tests over ranks (Demšar 2006, section 3.2.2):
// with fewer data sets or methods their verdicts say little.
const (
	// FewDatasets is the number of data sets below which Friedman and
	// Nemenyi get a caveat.
	FewDatasets = 5
	// FewMethods is the number of methods below which Friedman and
	// Nemenyi get a caveat.
	FewMethods = 3
)

// significance is the level the caveats speak of.
const significance = 0.05

// RankedMethods is the number k of methods the ranks, Friedman and
// Nemenyi of c use: those with an average rank.
func (c Comparison) RankedMethods() int {
	k := 0
	for _, m := range c.Methods {
		if c.AverageRanks[m] != nil {
			k++
		}
	}
	return k
}

// WilcoxonCaveat says the smallest two-sided p-value the Wilcoxon test of
// c's pairs can give at their number of data sets N (the most data sets
// any pair has; stats.WilcoxonMinP), and the smallest Holm-adjusted one
// over the m pairs (m times it, at most 1), adding that no pair can be
// significant at 0.05 when that is so. It is empty without pairs.
func (c Comparison) WilcoxonCaveat() string {
	n := 0
	for _, p := range c.Pairs {
		n = max(n, p.Datasets)
	}
	if n == 0 {
		return ""
	}
	least := stats.WilcoxonMinP(n)
	s := fmt.Sprintf("With N = %d data sets the smallest two-sided Wilcoxon p-value attainable is %s", n, formatMinP(least))
	if m := len(c.Pairs); m > 1 {
		s += fmt.Sprintf(" (after Holm's adjustment over the %d pairs, %s)", m, formatMinP(min(1, float64(m)*least)))
		least = min(1, float64(m)*least)
	}
	if least >= significance {
		return s + ": no pair can differ significantly at the 0.05 level, whatever the scores."
	}
	return s + "."
}

// RankCaveats say when Friedman's and Nemenyi's tests of c can say little
// (Demšar 2006): over fewer than FewDatasets data sets, or fewer than
// FewMethods methods. None when c ranks enough of both, or has no test.
func (c Comparison) RankCaveats() []string {
	if c.Friedman == nil && c.NemenyiCD == nil {
		return nil
	}
	var out []string
	if n := c.RankedDatasets; n < FewDatasets {
		out = append(out, fmt.Sprintf("Friedman's and Nemenyi's tests rest on large-sample approximations (chi-square, studentized range) that are rough with fewer than %d data sets (N = %d here): read the average ranks as a description rather than a verdict (Demšar 2006).", FewDatasets, n))
	}
	if k := c.RankedMethods(); k < FewMethods {
		out = append(out, fmt.Sprintf("With fewer than %d methods ranked (k = %d here) Friedman's test is a sign test and Nemenyi's a single comparison: the Wilcoxon test of the pair says more (Demšar 2006).", FewMethods, k))
	}
	return out
}

// Caveats are RankCaveats and WilcoxonCaveat together, the tests over
// ranks first.
func (c Comparison) Caveats() []string {
	out := c.RankCaveats()
	if w := c.WilcoxonCaveat(); w != "" {
		out = append(out, w)
	}
	return out
}

// formatMinP writes a smallest p-value: 3 significant digits.
func formatMinP(p float64) string {
	return strconv.FormatFloat(p, 'g', 3, 64)
}
