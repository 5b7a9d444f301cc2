package views

import (
	"fmt"
	"testing"

	"mldr/internal/evaluate"
	"mldr/internal/jobs"
	"mldr/web/templates"
)

// DefaultMetric opens a job on precision at 1 from 100 labels on, when
// the run reported it, and on the first metric in the pages' order
// (Hamming loss) otherwise; with no metrics, on nothing.
func TestDefaultMetric(t *testing.T) {
	run := func(labels int, metrics ...string) (*jobs.Results, []templates.Option) {
		names := make([]string, labels)
		for i := range names {
			names[i] = fmt.Sprintf("l%d", i)
		}
		m := map[string]float64{}
		for _, k := range metrics {
			m[k] = 0.5
		}
		res := &jobs.Results{
			Methods: []jobs.MethodResult{{Method: "pca", Manifest: &jobs.Manifest{Labels: names}}},
			Metrics: &jobs.MetricsFile{Rows: []evaluate.Row{{Method: "pca", D: 2, Metrics: m}}},
		}
		return res, MetricOptions(res.Metrics)
	}
	for _, tc := range []struct {
		labels  int
		metrics []string
		want    string
	}{
		{6, []string{evaluate.HammingLoss, evaluate.PrecisionAt1}, evaluate.HammingLoss},
		{99, []string{evaluate.HammingLoss, evaluate.PrecisionAt1}, evaluate.HammingLoss},
		{100, []string{evaluate.HammingLoss, evaluate.PrecisionAt1}, evaluate.PrecisionAt1},
		{3993, []string{evaluate.HammingLoss, evaluate.PrecisionAt1, evaluate.PrecisionAt5}, evaluate.PrecisionAt1},
		{3993, []string{evaluate.HammingLoss, evaluate.AveragePrecision}, evaluate.HammingLoss},
		{3993, nil, ""},
	} {
		res, opts := run(tc.labels, tc.metrics...)
		if got := DefaultMetric(res, opts); got != tc.want {
			t.Errorf("%d labels, metrics %v: got %q, want %q", tc.labels, tc.metrics, got, tc.want)
		}
	}
}
