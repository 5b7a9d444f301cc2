package views

import (
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
