package evaluate

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func m(r, c int, v ...float64) *mat.Dense { return mat.NewDense(r, c, v) }

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	// A NaN is near only a NaN (a plain difference would let any NaN pass).
	if math.IsNaN(got) || math.IsNaN(want) {
		if math.IsNaN(got) != math.IsNaN(want) {
			t.Errorf("%s: got %.15g, want %.15g", what, got, want)
		}
		return
	}
	if math.Abs(got-want) > 1e-12 {
		t.Errorf("%s: got %.15g, want %.15g", what, got, want)
	}
}

// TestMetricsHandComputed: every metric on small cases worked out by hand,
// including ties, a row without labels, a row with every label and a label
// that never occurs.
func TestMetricsHandComputed(t *testing.T) {
	// Row 1: labels {0, 2}; scores 0.9, 0.2, 0.4, 0.1 → ranks 1, 3, 2, 4.
	// Row 2: label {1}; scores 0.3, 0.3, 0.8, 0.3 (ties): stable ascending
	//   order is 0, 1, 3, 2 → ranks: l0 = 4, l1 = 3, l3 = 2, l2 = 1.
	// Row 3: no label (skipped by one-error, ranking loss, average precision).
	// Row 4: every label (skipped likewise).
	y := m(4, 4, 1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1)
	s := m(4, 4, 0.9, 0.2, 0.4, 0.1, 0.3, 0.3, 0.8, 0.3, 0.5, 0.1, 0.2, 0.6, 0.4, 0.3, 0.2, 0.1)
	p := m(4, 4, 1, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1, 1, 1, 1, 1)
	got := MultiLabelMetrics(y, p, s)
	// Hamming: row1 1 wrong (l2), row2 2 wrong (l1, l2), row3 2 wrong, row4 0 → 5/16.
	near(t, "hamming_loss", got[HammingLoss], 5.0/16)
	// One-error over rows 1, 2: row1 top l0 relevant; row2 top l2 irrelevant → 1/2.
	near(t, "one_error", got[OneError], 0.5)
	// Coverage over the rows with labels: worst ranks 2, 3, 4 → 9/3 − 1.
	near(t, "coverage", got[Coverage], 9.0/3-1)
	// Ranking loss: row1 pairs (0,1),(0,3),(2,1),(2,3): 0.4 ≤ ... none wrong
	// → 0; row2 relevant l1 (0.3) vs l0 (0.3 ≤ wrong), l2 (wrong), l3 (0.3
	// wrong) → 3/3 = 1. Mean 0.5.
	near(t, "ranking_loss", got[RankingLoss], 0.5)
	// Average precision: row1 ranks l0 = 1, l2 = 2 → (1/1 + 2/2)/2 = 1;
	// row2 l1 rank 3 → 1/3. Mean 2/3.
	near(t, "average_precision", got[AveragePrecision], 2.0/3)
	// Subset accuracy: only row 4 exact → 1/4.
	near(t, "subset_accuracy", got[SubsetAccuracy], 0.25)
	// Example accuracy: row1 1/2, row2 0/2, row3 0/2, row4 1 → 1.5/4.
	near(t, "example_accuracy", got[ExampleAccuracy], 1.5/4)
	// Example F1: row1 2·1/3, row2 0, row3 0, row4 1 → (2/3 + 1)/4.
	near(t, "example_f1", got[ExampleF1], (2.0/3+1)/4)
	// Example precision |Y∩P|/|P|: row1 1/1, row2 0/1, row3 0/2, row4 1 →
	// 2/4; recall |Y∩P|/|Y|: row1 1/2, row2 0/1, row3 no label → 1, row4 1
	// → 2.5/4.
	near(t, "example_precision", got[ExamplePrecision], 0.5)
	near(t, "example_recall", got[ExampleRecall], 2.5/4)
	// Per label TP/FP/FN: l0 2/1/0, l1 1/0/1, l2 1/1/1, l3 1/1/0 → micro
	// 2·5/(10 + 3 + 2).
	near(t, "micro_f1", got[MicroF1], 10.0/15)
	near(t, "macro_f1", got[MacroF1], (4.0/5+2.0/3+2.0/4+2.0/3)/4)
}

func TestMetricsEdgeCases(t *testing.T) {
	// A label never present and never predicted counts F1 = 1; with no
	// row that has a label there is nothing to rank, so the ranking
	// metrics are undefined (NaN; undefined.go), never a made-up value.
	y := m(2, 2, 0, 0, 0, 0)
	p := m(2, 2, 0, 0, 0, 0)
	got := MultiLabelMetrics(y, p, m(2, 2, 0.1, 0.2, 0.3, 0.4))
	nan := math.NaN()
	for k, want := range map[string]float64{MacroF1: 1, MicroF1: 1, ExampleF1: 1, ExampleAccuracy: 1, SubsetAccuracy: 1,
		OneError: nan, RankingLoss: nan, AveragePrecision: nan, Coverage: nan, HammingLoss: 0} {
		near(t, k, got[k], want)
	}
	// Empty sets (scikit-learn's zero_division=1): a row predicting nothing
	// has precision 1, a row without labels recall 1. Row 1: labels {0},
	// nothing predicted → precision 1, recall 0; row 2: no label, {1}
	// predicted → precision 0, recall 1.
	got = MultiLabelMetrics(m(2, 2, 1, 0, 0, 0), m(2, 2, 0, 0, 0, 1), m(2, 2, 0.1, 0.2, 0.3, 0.4))
	near(t, "example_precision with empty sets", got[ExamplePrecision], 0.5)
	near(t, "example_recall with empty sets", got[ExampleRecall], 0.5)
	// One-error takes the first of tied top scores.
	got = MultiLabelMetrics(m(1, 3, 0, 1, 0), m(1, 3, 0, 0, 0), m(1, 3, 0.7, 0.7, 0.1))
	near(t, "one_error with a tie", got[OneError], 1)
}

func TestMultiDimMetrics(t *testing.T) {
	y := m(4, 3, 0, 1, 2, 1, 1, 1, 2, 0, 1, 0, 0, 0)
	p := m(4, 3, 0, 1, 2, 1, 0, 1, 0, 0, 0, 1, 1, 1)
	// Right per row: 3, 2, 1, 0.
	got := MultiDimMetrics(y, p)
	near(t, "hamming_score", got[HammingScore], (1+2.0/3+1.0/3+0)/4)
	near(t, "exact_match", got[ExactMatch], 0.25)
	near(t, "sub_exact_match", got[SubExactMatch], 0.5)
}

// TestTiedScoresRankLowerIndexWorse: labels {0}, scores 0.5, 0.5, 0.1. The
// stable ascending order is l2, l0, l1, so l0 ranks 2 (behind the tied l1):
// coverage 2 − 1, average precision 1/2, ranking loss 1/2.
func TestTiedScoresRankLowerIndexWorse(t *testing.T) {
	got := MultiLabelMetrics(m(1, 3, 1, 0, 0), m(1, 3, 1, 0, 0), m(1, 3, 0.5, 0.5, 0.1))
	near(t, "coverage", got[Coverage], 1)
	near(t, "average_precision", got[AveragePrecision], 0.5)
	near(t, "ranking_loss", got[RankingLoss], 0.5)
}
