package evaluate

import (
	"context"
	"math"
	"testing"

	"mldr/internal/analysis"
)

// TestRunLabelSpaceBaselines runs the label-space baselines of
// analysis/lsbase.go through Run with their decoding, and checks what
// their definitions imply of the metrics on one holdout split:
//
//   - rembrandt's sketch is exact on 6 labels (M + oversample ≥ q), so it
//     is cplst with the same λ: the same subspace, the same metrics;
//   - mlcssp at M = q keeps every label column, so its least-squares
//     decoding is exact (encoding error 0) and it predicts as plst at
//     M = q, plain ridge regression on every label;
//   - faie and leml give finite metrics and an encoding error that does
//     not grow with M (their decoders are nested).
func TestRunLabelSpaceBaselines(t *testing.T) {
	data := runData(11, 200, 8, 6, nil)
	split, err := Holdout(200, 0.25, 1)
	if err != nil {
		t.Fatal(err)
	}
	spec := Spec{
		Methods: []MethodRun{{ID: "plst"}, {ID: "cplst"}, {ID: "mlcssp"}, {ID: "rembrandt"},
			{ID: "faie", Params: analysis.Params{Alpha: analysis.Float(30)}}, {ID: "leml"}},
		Grid:    Grid{Dims: []int{2, 4, 6}},
		Options: Options{Classifier: ClassifierRidge},
	}
	res, err := Run(context.Background(), data, []Split{split}, spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	at := make(map[string]map[int]map[string]float64)
	for _, r := range res.Rows {
		if r.Fold != nil {
			continue
		}
		if at[r.Method] == nil {
			at[r.Method] = make(map[int]map[string]float64)
		}
		at[r.Method][r.D] = r.Metrics
	}
	for _, m := range []string{"mlcssp", "rembrandt", "faie", "leml"} {
		prev := math.Inf(1)
		for _, d := range []int{2, 4, 6} {
			mt, ok := at[m][d]
			if !ok {
				t.Fatalf("%s: no row at M = %d (notes %v)", m, d, res.Notes)
			}
			for _, k := range []string{"hamming_loss", EncodingError, PredictionError, "micro_f1"} {
				if v, ok := mt[k]; !ok || math.IsNaN(v) || math.IsInf(v, 0) {
					t.Errorf("%s at M = %d: %s = %v", m, d, k, v)
				}
			}
			if e := mt[EncodingError]; e > prev*(1+1e-12) {
				t.Errorf("%s: encoding error %v at M = %d, above %v at a smaller M", m, e, d, prev)
			}
			prev = mt[EncodingError]
		}
	}
	for _, tc := range []struct {
		name, a, b string
		d          int
	}{
		{"rembrandt = cplst", "rembrandt", "cplst", 2},
		{"rembrandt = cplst", "rembrandt", "cplst", 4},
		{"mlcssp = plst at M = q", "mlcssp", "plst", 6},
	} {
		for _, k := range []string{"hamming_loss", "micro_f1", "ranking_loss", EncodingError, PredictionError} {
			a, b := at[tc.a][tc.d][k], at[tc.b][tc.d][k]
			if math.Abs(a-b) > 1e-9*math.Max(1, math.Abs(b)) {
				t.Errorf("%s at M = %d: %s got %v, want %v", tc.name, tc.d, k, a, b)
			}
		}
	}
	if e := at["mlcssp"][6][EncodingError]; e > 1e-18 {
		t.Errorf("mlcssp at M = q: encoding error %v, want 0 (every label column kept)", e)
	}
}
