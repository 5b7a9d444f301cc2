package views

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"mldr/internal/evaluate"
	"mldr/internal/jobs"
)

// TestUndefinedMetricsShown checks that an undefined (NaN) metric is left
// out of the curves and shown as "undefined" in the table, never as a
// number.
func TestUndefinedMetricsShown(t *testing.T) {
	nan := math.NaN()
	res := &jobs.Results{
		Job: jobs.Job{Request: jobs.Request{Method: "pca"}},
		Metrics: &jobs.MetricsFile{Rows: []evaluate.Row{
			{Method: "pca", D: 1, Metrics: map[string]float64{evaluate.Coverage: nan}, Std: map[string]float64{evaluate.Coverage: nan}, Folds: 2},
			{Method: "pca", D: 2, Metrics: map[string]float64{evaluate.Coverage: 1.5}, Std: map[string]float64{evaluate.Coverage: nan}, Folds: 2},
			{Method: "pca", D: 3, Metrics: map[string]float64{evaluate.Coverage: 1.25}, Std: map[string]float64{evaluate.Coverage: 0.5}, Folds: 2},
			{Method: evaluate.Ori, D: 24, Metrics: map[string]float64{evaluate.Coverage: nan}, Folds: 2},
		}},
	}
	table := MetricsTable(res, evaluate.Coverage)
	var cells []string
	for _, r := range table.Rows {
		cells = append(cells, strings.Join(r.Cells, "|"))
	}
	got := strings.Join(cells, "; ")
	for _, want := range []string{"undefined", "1.5000", "1.2500 ± 0.5000"} {
		if !strings.Contains(got, want) {
			t.Errorf("table cells %q: want %q among them", got, want)
		}
	}
	if strings.Contains(got, "NaN") || strings.Contains(got, "1.5000 ±") {
		t.Errorf("table cells %q: want no NaN and no deviation where it is undefined", got)
	}
	_, alt, err := Curves(res, evaluate.Coverage, []string{"pca"}, "linear", nil)
	if err != nil {
		t.Fatalf("Curves: got %v, want a figure without the undefined points", err)
	}
	if want := "for 1 methods"; !strings.Contains(alt, want) || strings.Contains(alt, "NaN") {
		t.Errorf("alt text %q: want %q (pca's curve, the undefined baseline left out) and no NaN", alt, want)
	}
	if want := "Best: PCA at d = 3 (1.25)"; !strings.Contains(alt, want) {
		t.Errorf("alt text %q: want %q", alt, want)
	}
}

// TestMetricsTableDPerFold: a method whose own d differed between the
// folds has its one mean row in the row of the median d, with the range
// of the folds' d beside its value.
func TestMetricsTableDPerFold(t *testing.T) {
	res := &jobs.Results{
		Job: jobs.Job{Request: jobs.Request{Methods: []string{"lpp", "pca"}}},
		Metrics: &jobs.MetricsFile{Rows: []evaluate.Row{
			{Method: "lpp", D: 60, DPerFold: []int{59, 60, 60, 59, 60}, Metrics: map[string]float64{evaluate.HammingLoss: 0.25}, Std: map[string]float64{evaluate.HammingLoss: 0.125}, Folds: 5},
			{Method: "pca", D: 5, Metrics: map[string]float64{evaluate.HammingLoss: 0.5}, Std: map[string]float64{evaluate.HammingLoss: 0.25}, Folds: 5},
		}},
	}
	table := MetricsTable(res, evaluate.HammingLoss)
	var got []string
	for _, r := range table.Rows {
		got = append(got, fmt.Sprint(r.D, " ", strings.Join(r.Cells, "|")))
	}
	want := []string{"5 —|0.5000 ± 0.2500", "60 0.2500 ± 0.1250 (d 59–60 by fold)|—"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("table rows %q, want %q", got, want)
	}
}

// TestXCMetricsOffered: a job's extreme-classification metrics are offered
// after the multi-label ones under their literature's names (P@1 …
// PSnDCG@5), and their curves and tables say higher is better.
func TestXCMetricsOffered(t *testing.T) {
	m := map[string]float64{evaluate.HammingLoss: 0.2, evaluate.MacroF1: 0.5}
	for i, k := range evaluate.XCMetricKeys {
		m[k] = 0.1 * float64(i%5+1)
	}
	m2 := map[string]float64{}
	for k, v := range m {
		m2[k] = v / 2
	}
	res := &jobs.Results{
		Job: jobs.Job{Request: jobs.Request{Method: "pca"}},
		Metrics: &jobs.MetricsFile{Rows: []evaluate.Row{
			{Method: "pca", D: 1, Metrics: m2, Folds: 1},
			{Method: "pca", D: 2, Metrics: m, Folds: 1},
		}},
	}
	var got []string
	for _, o := range MetricOptions(res.Metrics) {
		got = append(got, o.Value+"="+o.Text)
	}
	want := "hamming_loss=hamming loss macro_f1=macro f1 precision_at_1=P@1 precision_at_3=P@3 precision_at_5=P@5 " +
		"ndcg_at_1=nDCG@1 ndcg_at_3=nDCG@3 ndcg_at_5=nDCG@5 psprecision_at_1=PSP@1 psprecision_at_3=PSP@3 psprecision_at_5=PSP@5 " +
		"psndcg_at_1=PSnDCG@1 psndcg_at_3=PSnDCG@3 psndcg_at_5=PSnDCG@5"
	if strings.Join(got, " ") != want {
		t.Errorf("metric options: got %q, want %q", strings.Join(got, " "), want)
	}
	for _, k := range evaluate.XCMetricKeys {
		if table := MetricsTable(res, k); table.Best != "higher" {
			t.Errorf("%s table: best %q, want higher", k, table.Best)
		}
		_, alt, err := Curves(res, k, []string{"pca"}, "linear", nil)
		if err != nil {
			t.Fatalf("%s curves: %v", k, err)
		}
		if want := "; higher is better. Best: PCA at d = 2"; !strings.Contains(alt, want) {
			t.Errorf("%s alt text %q: want %q", k, alt, want)
		}
	}
}
