package views

import (
	"testing"

	"mldr/internal/evaluate"
	"mldr/internal/jobs"
)

// The job page's metrics table says which methods their own decoder
// predicted, from metrics.json's rows.
func TestMetricsTableDecoders(t *testing.T) {
	half, tenth := 0.5, 0.1
	rows := []evaluate.Row{
		{Method: "ori", D: 24, Metrics: map[string]float64{"micro_f1": 0.5}},
		{Method: "pca", D: 2, Metrics: map[string]float64{"micro_f1": 0.4}},
		{Method: "plst", D: 2, Decoder: evaluate.DecoderRidge, DecoderLambda: &half, Metrics: map[string]float64{"micro_f1": 0.4}},
		{Method: "cplst", D: 2, Decoder: evaluate.DecoderRidge, DecoderLambda: &half, Metrics: map[string]float64{"micro_f1": 0.4}},
		{Method: "leml", D: 2, Decoder: evaluate.DecoderLEML, DecoderLambda: &tenth, Metrics: map[string]float64{"micro_f1": 0.4}},
	}
	for _, tc := range []struct {
		rows []evaluate.Row
		want string
	}{
		{rows, "PLST and CPLST: decoded by ridge regression, λ = 0.5; LEML: decoded by LEML's own low-rank regression, λ = 0.1, not by the classifier"},
		{rows[:2], ""},
	} {
		res := &jobs.Results{Metrics: &jobs.MetricsFile{Rows: tc.rows}}
		if got := MetricsTable(res, "micro_f1").Decoders; got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}
