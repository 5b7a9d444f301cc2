package evaluate

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/sparse"
)

// Keys of the extreme-classification ranking metrics (XCMetrics), named as
// pyxclib's functions: precision, ndcg, psprecision and psndcg at k.
const (
	PrecisionAt1   = "precision_at_1"
	PrecisionAt3   = "precision_at_3"
	PrecisionAt5   = "precision_at_5"
	NDCGAt1        = "ndcg_at_1"
	NDCGAt3        = "ndcg_at_3"
	NDCGAt5        = "ndcg_at_5"
	PSPrecisionAt1 = "psprecision_at_1"
	PSPrecisionAt3 = "psprecision_at_3"
	PSPrecisionAt5 = "psprecision_at_5"
	PSNDCGAt1      = "psndcg_at_1"
	PSNDCGAt3      = "psndcg_at_3"
	PSNDCGAt5      = "psndcg_at_5"
)

// Default propensity parameters of Jain, Prabhu and Varma (KDD 2016) for
// data sets other than Wikipedia and Amazon: A = 0.55, B = 1.5.
const (
	DefaultPropensityA = 0.55
	DefaultPropensityB = 1.5
)

// MinPropensityRows is the fewest training rows the propensities take:
// with N < 3, ln N − 1 < 0, so C < 0 and a rare label would weigh less
// than a frequent one (or a weight would fall to 0 or below), the opposite
// of what the weighting is for. Below it the propensity-scored metrics are
// undefined (NaN).
const MinPropensityRows = 3

// xcK are the k at which XCMetrics reports, ascending; xcKMax the largest.
var xcK = [...]int{1, 3, 5}

const xcKMax = 5

// xcKeys[j] are the keys of precision, ndcg, psprecision and psndcg at
// xcK[j].
var xcKeys = [len(xcK)][4]string{
	{PrecisionAt1, NDCGAt1, PSPrecisionAt1, PSNDCGAt1},
	{PrecisionAt3, NDCGAt3, PSPrecisionAt3, PSNDCGAt3},
	{PrecisionAt5, NDCGAt5, PSPrecisionAt5, PSNDCGAt5},
}

// XCMetricKeys lists the keys XCMetrics reports, in the pages' order.
var XCMetricKeys = []string{
	PrecisionAt1, PrecisionAt3, PrecisionAt5, NDCGAt1, NDCGAt3, NDCGAt5,
	PSPrecisionAt1, PSPrecisionAt3, PSPrecisionAt5, PSNDCGAt1, PSNDCGAt3, PSNDCGAt5,
}

// isPropensityScored reports whether key is one of the propensity-scored
// metrics, undefined when no test row has a label.
func isPropensityScored(key string) bool {
	for _, k := range xcKeys {
		if key == k[2] || key == k[3] {
			return true
		}
	}
	return false
}

// CheckPropensity refuses propensity parameters a (A) and b (B) that are
// not finite numbers greater than 0 (B ≤ 0 would make (N_l + B)^−A of a
// label no training row has infinite or undefined; A ≤ 0 would not favour
// rare labels). Zero values are not accepted here: Options treats them as
// the defaults before calling it.
func CheckPropensity(a, b float64) error {
	if !(a > 0) || math.IsInf(a, 0) {
		return fmt.Errorf("evaluate: ps_a, the propensity model's exponent A, must be a number greater than 0 (default %v), not %v", DefaultPropensityA, a)
	}
	if !(b > 0) || math.IsInf(b, 0) {
		return fmt.Errorf("evaluate: ps_b, the propensity model's offset B, must be a number greater than 0 (default %v), not %v", DefaultPropensityB, b)
	}
	return nil
}

// InversePropensities returns 1/p_l for each of the q labels of the
// training labels ytr (N×q, nonzero: present), as Jain, Prabhu and Varma,
// "Extreme multi-label loss functions for recommendation, tagging, ranking
// & other missing label applications", KDD 2016, §4:
//
//	p_l = 1/(1 + C·e^{−A·ln(N_l + B)}),  C = (ln N − 1)·(B + 1)^A,
//
// so 1/p_l = 1 + C·(N_l + B)^−A, N_l the training rows with label l. A
// label no training row has (N_l = 0) gets 1 + C·B^−A, the largest weight.
// It returns nil when N < MinPropensityRows, and an error from
// CheckPropensity for a or b out of range.
func InversePropensities(ytr *mat.Dense, a, b float64) ([]float64, error) {
	if err := CheckPropensity(a, b); err != nil {
		return nil, err
	}
	return inversePropensities(ytr, a, b), nil
}

// inversePropensities is InversePropensities with a and b in range.
func inversePropensities(ytr *mat.Dense, a, b float64) []float64 {
	n, q := ytr.Dims()
	if n < MinPropensityRows {
		return nil
	}
	count := make([]float64, q) // N_l
	for i := range n {
		for l, v := range ytr.RawRowView(i)[:q] {
			if v != 0 {
				count[l]++
			}
		}
	}
	return propensityWeights(count, n, a, b)
}

// inversePropensitiesSparse is inversePropensities of labels in CSR form.
func inversePropensitiesSparse(ytr *sparse.CSR, a, b float64) []float64 {
	if ytr.R < MinPropensityRows {
		return nil
	}
	count := make([]float64, ytr.C)
	for _, l := range ytr.Ind {
		count[l]++
	}
	return propensityWeights(count, ytr.R, a, b)
}

// propensityWeights are the inverse propensities of labels that count[l]
// of n training rows have, in count's place.
func propensityWeights(count []float64, n int, a, b float64) []float64 {
	c := (math.Log(float64(n)) - 1) * math.Pow(b+1, a)
	for l, nl := range count {
		count[l] = 1 + c*math.Pow(nl+b, -a)
	}
	return count
}

// XCMetrics computes the ranking metrics of extreme classification at
// k = 1, 3, 5 for scores (higher: more likely) against y (0/1), both N×q,
// with inverse propensities invProp (q, from InversePropensities; nil:
// the propensity-scored metrics are NaN). As pyxclib's xc_metrics and the
// Extreme Classification Repository define them:
//
//   - top_k(i): the k labels of row i with the highest scores; among equal
//     scores the higher label index first, the order of the other ranking
//     metrics (rankOf: a stable ascending sort read from its end; NaN
//     lowest). With q < k it holds all q labels.
//   - precision_at_k: (1/k) Σ_{l∈top_k} y_l, averaged over all rows; a row
//     without labels counts 0, and the divisor stays k when the row has
//     fewer than k labels (or q < k).
//   - ndcg_at_k: DCG@k = Σ_{r=1..k} y_{(r)}/log2(r+1) over top_k in order,
//     divided by its ideal Σ_{r=1..min(k,|y|)} 1/log2(r+1); a row without
//     labels counts 0. Averaged over all rows.
//   - psprecision_at_k: with w_l = invProp[l], Σ_{top_k} y_l w_l / k,
//     averaged over the rows, divided by the average of its best value,
//     the same sum over the row's true labels of the k largest w_l: a ratio
//     of means (pyxclib's psprecision), not a mean of per-row ratios.
//   - psndcg_at_k: likewise, Σ_{r≤k} y_{(r)} w_{(r)}/log2(r+1) divided by
//     the row's nDCG ideal (as above), averaged, over the average of the
//     same with the row's true labels ordered by w descending (pyxclib's
//     psndcg).
//
// Rows without labels add 0 to both sides of the propensity-scored ratios;
// with no labelled row at all (or no propensities) those are NaN
// (undefined). Every value lies in [0, 1].
func XCMetrics(y, scores *mat.Dense, invProp []float64) map[string]float64 {
	n, q := y.Dims()
	a := newXCAcc(invProp)
	for i := range n {
		a.addRow(y.RawRowView(i)[:q], scores.RawRowView(i)[:q])
	}
	return a.metrics()
}

// xcAcc sums XCMetrics row by row (as multiLabelAcc does MultiLabelMetrics),
// the same sums in the same order whichever way the rows come.
type xcAcc struct {
	invProp                                []float64
	n                                      int
	disc, idealCum                         [xcKMax + 1]float64 // disc[r] = 1/log2(r+1); idealCum[m] = Σ_{r≤m} disc[r]
	prec, ndcg, psp, pspBest, psn, psnBest [len(xcK)]float64
	top                                    []int
	trueW                                  []float64
}

func newXCAcc(invProp []float64) *xcAcc {
	a := &xcAcc{invProp: invProp, top: make([]int, 0, xcKMax)}
	for r := 1; r <= xcKMax; r++ {
		a.disc[r] = 1 / math.Log2(float64(r+1))
		a.idealCum[r] = a.idealCum[r-1] + a.disc[r]
	}
	return a
}

// addRow adds a row: its labels yi and scores si (q each).
func (a *xcAcc) addRow(yi, si []float64) {
	a.n++
	invProp, disc := a.invProp, &a.disc
	a.top = topLabels(a.top[:0], si, xcKMax)
	top := a.top
	nY := 0
	a.trueW = a.trueW[:0]
	for l, v := range yi {
		if v != 0 {
			nY++
			if invProp != nil {
				a.trueW = append(a.trueW, invProp[l])
			}
		}
	}
	if nY == 0 {
		return // 0 in every sum
	}
	trueW := a.trueW
	slices.SortFunc(trueW, func(a, b float64) int { return cmp.Compare(b, a) })
	var hits, dcg, psHits, psDCG, bestHits, bestDCG float64
	r, j := 0, 0
	for rank := 1; rank <= xcKMax; rank++ {
		if r < len(top) {
			if l := top[r]; yi[l] != 0 {
				hits++
				dcg += disc[rank]
				if invProp != nil {
					psHits += invProp[l]
					psDCG += invProp[l] * disc[rank]
				}
			}
			r++
		}
		if rank <= len(trueW) {
			bestHits += trueW[rank-1]
			bestDCG += trueW[rank-1] * disc[rank]
		}
		if rank != xcK[j] {
			continue
		}
		k := float64(rank)
		ideal := a.idealCum[min(rank, nY)]
		a.prec[j] += hits / k
		a.ndcg[j] += dcg / ideal
		a.psp[j] += psHits / k
		a.pspBest[j] += bestHits / k
		a.psn[j] += psDCG / ideal
		a.psnBest[j] += bestDCG / ideal
		j++
	}
}

// merge adds o's rows (rows that came after a's) to a.
func (a *xcAcc) merge(o *xcAcc) {
	a.n += o.n
	for j := range a.prec {
		a.prec[j] += o.prec[j]
		a.ndcg[j] += o.ndcg[j]
		a.psp[j] += o.psp[j]
		a.pspBest[j] += o.pspBest[j]
		a.psn[j] += o.psn[j]
		a.psnBest[j] += o.psnBest[j]
	}
}

// metrics is XCMetrics of the rows added.
func (a *xcAcc) metrics() map[string]float64 {
	nf := float64(a.n)
	m := make(map[string]float64, 4*len(xcK))
	for j, keys := range xcKeys {
		m[keys[0]] = a.prec[j] / nf
		m[keys[1]] = a.ndcg[j] / nf
		m[keys[2]], m[keys[3]] = math.NaN(), math.NaN()
		if a.invProp != nil && a.pspBest[j] > 0 {
			m[keys[2]] = a.psp[j] / a.pspBest[j]
			m[keys[3]] = a.psn[j] / a.psnBest[j]
		}
	}
	return m
}

// topLabels appends to dst the (at most k) labels of the highest scores s,
// best first: higher score first, among equal scores (cmp.Compare's order,
// NaN lowest) the higher label index first, so that the i-th is the label
// rankOf ranks i+1.
func topLabels(dst []int, s []float64, k int) []int {
	before := func(a, b int) bool { // a ranks above b
		c := cmp.Compare(s[a], s[b])
		return c > 0 || (c == 0 && a > b)
	}
	for l := range s {
		if len(dst) == k && !before(l, dst[k-1]) {
			continue
		}
		if len(dst) < k {
			dst = append(dst, l)
		} else {
			dst[k-1] = l
		}
		for p := len(dst) - 1; p > 0 && before(dst[p], dst[p-1]); p-- {
			dst[p], dst[p-1] = dst[p-1], dst[p]
		}
	}
	return dst
}
