package evaluate

import (
	"cmp"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Metric keys, as in the API.
const (
	HammingLoss      = "hamming_loss"
	OneError         = "one_error"
	Coverage         = "coverage"
	RankingLoss      = "ranking_loss"
	AveragePrecision = "average_precision"
	SubsetAccuracy   = "subset_accuracy"
	ExampleAccuracy  = "example_accuracy"
	ExampleF1        = "example_f1"
	// ExamplePrecision and ExampleRecall are seed 004's instance-based
	// precision and recall: mean |Y∩P|/|P| and |Y∩P|/|Y|, 1 for an empty
	// P or Y (scikit-learn's zero_division=1).
	ExamplePrecision = "example_precision"
	ExampleRecall    = "example_recall"
	MicroF1          = "micro_f1"
	MacroF1          = "macro_f1"
	EncodingError    = "encoding_error"
	PredictionError  = "prediction_error"
	// LossBound is encoding_error + prediction_error: the Hamming-loss bound
	// of seed 001 eq. (1) up to its constant.
	LossBound     = "loss_bound"
	HammingScore  = "hamming_score"
	ExactMatch    = "exact_match"
	SubExactMatch = "sub_exact_match"
)

// LowerIsBetter tells the direction of a metric.
func LowerIsBetter(key string) bool {
	switch key {
	case HammingLoss, OneError, Coverage, RankingLoss, EncodingError, PredictionError, LossBound:
		return true
	}
	return false
}

// MultiLabelMetrics computes the multi-label metrics of predictions pred
// (0/1) and real-valued scores (higher: more likely) against y (0/1), all
// N×q, with the conventions of the ML-kNN authors' MATLAB package:
//
//   - hamming_loss: the fraction of wrong label decisions.
//   - ranks: label l's rank is q − pos(l) + 1, pos its place in a stable
//     ascending sort of the row's scores, so of tied scores the lower label
//     index ranks worse.
//   - one_error, ranking_loss, average_precision skip rows whose labels are
//     all or none, as the MATLAB package does (One_error.m, Ranking_loss.m,
//     Average_precision.m; scikit-learn instead counts such rows as loss 0
//     and precision 1). With no row left they are undefined: NaN (MATLAB's
//     0/0), where earlier versions reported 0, 0 and 1. one_error's top
//     label is the first index of the maximum score; ranking_loss counts a
//     (relevant, irrelevant) pair as wrong when the relevant score is ≤.
//   - coverage: over the rows with a relevant label, the worst rank of a
//     relevant label minus 1. Coverage.m and scikit-learn's coverage_error
//     count a row without labels as rank 0 instead, so that their mean can
//     fall below 0 (−1 when no row has a label), which no ranking can
//     have; here such rows are skipped as the other ranking metrics skip
//     them, and with no row left coverage is undefined: NaN. On rows that
//     all have a label it is scikit-learn's coverage_error minus 1.
//   - subset_accuracy: rows predicted exactly; example_accuracy and
//     example_f1: |Y∩P|/|Y∪P| and 2|Y∩P|/(|Y|+|P|) per row, 1 when both are
//     empty; micro_f1 over all decisions; macro_f1 the mean of per-label F1,
//     a label never present and never predicted counting 1.
//   - example_precision and example_recall (seed 004's instance-based
//     precision and recall): the mean over rows of |Y∩P|/|P| and |Y∩P|/|Y|;
//     a row that predicts nothing has precision 1 (nothing claimed, nothing
//     wrong) and a row without labels recall 1 (nothing to find), whatever
//     the other set holds: scikit-learn's precision_score and recall_score
//     with average="samples", zero_division=1.
func MultiLabelMetrics(y, pred, scores *mat.Dense) map[string]float64 {
	n, q := y.Dims()
	a := newMultiLabelAcc(q)
	for i := range n {
		a.addRow(y.RawRowView(i)[:q], pred.RawRowView(i)[:q], scores.RawRowView(i)[:q])
	}
	return a.metrics()
}

// multiLabelAcc sums MultiLabelMetrics row by row, so that rows can come
// a block at a time (the evaluation of a wide label space holds a block of
// q-wide rows, never all of them); the sums are the same, in the same
// order, whichever way the rows come.
type multiLabelAcc struct {
	q, n                                 int
	wrong, exact, acc, f1, exPrec, exRec float64
	tp, fp, fn                           []float64
	oneErr, rankLoss, avgPrec, cover     float64
	ranked, labelled                     int
	rank                                 []int
	relevant                             []int
}

func newMultiLabelAcc(q int) *multiLabelAcc {
	return &multiLabelAcc{q: q, tp: make([]float64, q), fp: make([]float64, q), fn: make([]float64, q), rank: make([]int, q)}
}

// addRow adds a row: its labels yi, decisions pi and scores si (q each).
func (m *multiLabelAcc) addRow(yi, pi, si []float64) {
	q := m.q
	m.n++
	var inter, nY, nP, diff float64
	for l := range q {
		a, b := yi[l] != 0, pi[l] != 0
		switch {
		case a && b:
			inter++
			m.tp[l]++
		case b:
			m.fp[l]++
		case a:
			m.fn[l]++
		}
		if a {
			nY++
		}
		if b {
			nP++
		}
		if a != b {
			diff++
		}
	}
	m.wrong += diff
	if diff == 0 {
		m.exact++
	}
	if union := nY + nP - inter; union == 0 {
		m.acc++
		m.f1++
	} else {
		m.acc += inter / union
		m.f1 += 2 * inter / (nY + nP)
	}
	m.exPrec += ratioOr1(inter, nP)
	m.exRec += ratioOr1(inter, nY)
	// Ranks of the row's labels: 1 for the highest score, ties
	// ranked by label index, the later label first (the order a
	// stable ascending sort of the scores gives, read from its end).
	// Only the labels the row has need one: O(|y_i|·q), no sort.
	rank := m.rank
	m.relevant = m.relevant[:0]
	for l, v := range yi[:q] {
		if v != 0 {
			m.relevant = append(m.relevant, l)
		}
	}
	worst := 0
	for _, l := range m.relevant {
		rank[l] = rankOf(si, l)
		worst = max(worst, rank[l])
	}
	m.cover += float64(worst)
	if nY > 0 {
		m.labelled++
	}
	if nY == 0 || nY == float64(q) {
		return
	}
	m.ranked++
	top := 0
	for l := range q {
		if si[l] > si[top] {
			top = l
		}
	}
	if yi[top] == 0 {
		m.oneErr++
	}
	pairs := 0.0
	for a := range q {
		if yi[a] == 0 {
			continue
		}
		for b := range q {
			if yi[b] == 0 && si[a] <= si[b] {
				pairs++
			}
		}
	}
	m.rankLoss += pairs / (nY * (float64(q) - nY))
	prec := 0.0
	for _, a := range m.relevant {
		better := 0.0
		for _, b := range m.relevant {
			if rank[b] <= rank[a] {
				better++
			}
		}
		prec += better / float64(rank[a])
	}
	m.avgPrec += prec / nY
}

// merge adds o's rows (rows that came after m's) to m.
func (m *multiLabelAcc) merge(o *multiLabelAcc) {
	m.n += o.n
	m.wrong, m.exact, m.acc, m.f1 = m.wrong+o.wrong, m.exact+o.exact, m.acc+o.acc, m.f1+o.f1
	m.exPrec, m.exRec = m.exPrec+o.exPrec, m.exRec+o.exRec
	m.oneErr, m.rankLoss, m.avgPrec, m.cover = m.oneErr+o.oneErr, m.rankLoss+o.rankLoss, m.avgPrec+o.avgPrec, m.cover+o.cover
	m.ranked, m.labelled = m.ranked+o.ranked, m.labelled+o.labelled
	for l := range m.tp {
		m.tp[l] += o.tp[l]
		m.fp[l] += o.fp[l]
		m.fn[l] += o.fn[l]
	}
}

// metrics is MultiLabelMetrics of the rows added.
func (m *multiLabelAcc) metrics() map[string]float64 {
	out := map[string]float64{}
	nf, q := float64(m.n), m.q
	out[HammingLoss] = m.wrong / (nf * float64(q))
	out[SubsetAccuracy] = m.exact / nf
	out[ExampleAccuracy] = m.acc / nf
	out[ExampleF1] = m.f1 / nf
	out[ExamplePrecision] = m.exPrec / nf
	out[ExampleRecall] = m.exRec / nf
	out[Coverage] = math.NaN()
	if m.labelled > 0 {
		out[Coverage] = m.cover/float64(m.labelled) - 1
	}
	out[OneError], out[RankingLoss], out[AveragePrecision] = math.NaN(), math.NaN(), math.NaN()
	if m.ranked > 0 {
		r := float64(m.ranked)
		out[OneError], out[RankingLoss], out[AveragePrecision] = m.oneErr/r, m.rankLoss/r, m.avgPrec/r
	}
	var stp, sfp, sfn, macro float64
	for l := range q {
		stp, sfp, sfn = stp+m.tp[l], sfp+m.fp[l], sfn+m.fn[l]
		macro += f1Of(m.tp[l], m.fp[l], m.fn[l])
	}
	out[MicroF1] = f1Of(stp, sfp, sfn)
	out[MacroF1] = macro / float64(q)
	return out
}

// rankOf is the rank of score s[l] among s: q minus its position in the
// stable ascending sort of s (cmp.Compare's order, NaN lowest), so 1 for
// the highest score, and among equal scores the later label ranks first.
func rankOf(s []float64, l int) int {
	sl, r := s[l], 0
	for m, v := range s {
		if c := cmp.Compare(v, sl); c > 0 || (c == 0 && m >= l) {
			r++
		}
	}
	return r
}

// ratioOr1 is a/b, 1 when b is 0 (an empty set: nothing claimed, or
// nothing to find).
func ratioOr1(a, b float64) float64 {
	if b == 0 {
		return 1
	}
	return a / b
}

// f1Of is 2TP/(2TP + FP + FN), 1 when nothing was there to find or claimed.
func f1Of(tp, fp, fn float64) float64 {
	if d := 2*tp + fp + fn; d > 0 {
		return 2 * tp / d
	}
	return 1
}

// MultiDimMetrics computes the multi-dimensional metrics (seed 003, eq.
// 8–10) of predicted class indices pred against y (N×q): with r_i the
// variables of row i predicted right, hamming_score = mean r_i/q,
// exact_match = mean(r_i = q), sub_exact_match = mean(r_i ≥ q − 1).
func MultiDimMetrics(y, pred *mat.Dense) map[string]float64 {
	n, q := y.Dims()
	var hs, em, sem float64
	for i := range n {
		r := 0
		for j := range q {
			if y.At(i, j) == pred.At(i, j) {
				r++
			}
		}
		hs += float64(r) / float64(q)
		if r == q {
			em++
		}
		if r >= q-1 {
			sem++
		}
	}
	nf := float64(n)
	return map[string]float64{HammingScore: hs / nf, ExactMatch: em / nf, SubExactMatch: sem / nf}
}
