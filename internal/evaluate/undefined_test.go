package evaluate

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/analysis"
)

// TestMetricsUndefined checks that ranking metrics the rows do not define
// are NaN, never a made-up value such as a coverage of −1.
func TestMetricsUndefined(t *testing.T) {
	s := m(2, 3, 0.9, 0.2, 0.4, 0.1, 0.5, 0.3)
	for _, tc := range []struct {
		name      string
		y         *mat.Dense
		undefined []string
	}{
		{"no relevant label", m(2, 3, 0, 0, 0, 0, 0, 0), []string{OneError, Coverage, RankingLoss, AveragePrecision}},
		{"all labels or none", m(2, 3, 1, 1, 1, 0, 0, 0), []string{OneError, RankingLoss, AveragePrecision}},
		{"one row with labels", m(2, 3, 0, 0, 0, 0, 1, 0), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := MultiLabelMetrics(tc.y, tc.y, s)
			for k, v := range got {
				if want := slices.Contains(tc.undefined, k); math.IsNaN(v) != want {
					t.Errorf("%s: got %v, want undefined (NaN) %v", k, v, want)
				}
			}
			if c := got[Coverage]; c < 0 {
				t.Errorf("coverage: got %v, want ≥ 0 or undefined", c)
			}
		})
	}
}

// TestRowJSONUndefined checks that an undefined metric is null in JSON and
// NaN again when read back.
func TestRowJSONUndefined(t *testing.T) {
	f := 1
	row := Row{Method: "pca", D: 2, Fold: &f, Metrics: map[string]float64{Coverage: math.NaN(), HammingLoss: 0.25},
		Std: map[string]float64{Coverage: math.NaN(), HammingLoss: 0}, Folds: 2}
	b, err := json.Marshal(row)
	if err != nil {
		t.Fatalf("Marshal: got %v, want nil", err)
	}
	want := `{"method":"pca","d":2,"fold":1,"folds":2,"fit_seconds":0,"eval_seconds":0,"metrics":{"coverage":null,"hamming_loss":0.25},"std":{"coverage":null,"hamming_loss":0}}`
	if string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
	var back Row
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatalf("Unmarshal: got %v, want nil", err)
	}
	if !math.IsNaN(back.Metrics[Coverage]) || back.Metrics[HammingLoss] != 0.25 || *back.Fold != 1 || back.Folds != 2 || !math.IsNaN(back.Std[Coverage]) {
		t.Errorf("read back %+v, want the row written", back)
	}
}

// TestRunUndefinedOnAFold checks that a fold whose test rows have no
// relevant label reports coverage as undefined with a note, and that the
// mean is over the folds where it is defined.
func TestRunUndefinedOnAFold(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	const n = 40
	x, y := mat.NewDense(n, 4, nil), mat.NewDense(n, 3, nil)
	for i := range n {
		for j := range 4 {
			x.Set(i, j, rng.NormFloat64())
		}
		if i < 30 { // rows 30… have no label
			y.Set(i, i%3, 1)
		}
	}
	seq := func(from, to int) []int {
		var s []int
		for i := from; i < to; i++ {
			s = append(s, i)
		}
		return s
	}
	splits := []Split{
		{Name: "fold 1", Train: seq(0, 30), Test: seq(30, 40)},
		{Name: "fold 2", Train: append(seq(0, 20), seq(30, 40)...), Test: seq(20, 30)},
	}
	res, err := Run(context.Background(), analysis.Input{X: x, Y: y}, splits,
		Spec{Methods: []MethodRun{{ID: "pca", Params: analysis.Params{D: 2}}}}, nil)
	if err != nil {
		t.Fatalf("Run: got %v, want nil", err)
	}
	note := "coverage is undefined on fold 1: no test row has a relevant label; the mean is over the folds where it is defined"
	if !slices.Contains(res.Notes, note) {
		t.Errorf("notes: got %q, want %q among them", res.Notes, note)
	}
	// The propensity-scored metrics are 0/0 there too; P@k is 0, defined.
	psNote := "psprecision_at_1, psprecision_at_3, psprecision_at_5, psndcg_at_1, psndcg_at_3, psndcg_at_5 are undefined on fold 1: " +
		"no test row has a relevant label; the mean is over the folds where they are defined"
	if !slices.Contains(res.Notes, psNote) {
		t.Errorf("notes: got %q, want %q among them", res.Notes, psNote)
	}
	for _, r := range res.Rows {
		if r.Fold != nil && *r.Fold == 1 && (!math.IsNaN(r.Metrics[PSPrecisionAt1]) || r.Metrics[PrecisionAt1] != 0) {
			t.Errorf("%s d=%d fold 1: psprecision_at_1 %v, precision_at_1 %v; want undefined and 0", r.Method, r.D, r.Metrics[PSPrecisionAt1], r.Metrics[PrecisionAt1])
		}
		c := r.Metrics[Coverage]
		switch {
		case r.Fold != nil && *r.Fold == 1 && !math.IsNaN(c):
			t.Errorf("%s d=%d fold 1: coverage %v, want undefined", r.Method, r.D, c)
		case r.Fold != nil && *r.Fold == 2 && !(c >= 0):
			t.Errorf("%s d=%d fold 2: coverage %v, want a value ≥ 0", r.Method, r.D, c)
		case r.Fold == nil:
			if !(c >= 0) || !math.IsNaN(r.Std[Coverage]) {
				t.Errorf("%s d=%d mean: coverage %v ± %v, want fold 2's value and no deviation", r.Method, r.D, c, r.Std[Coverage])
			}
		}
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatalf("Marshal: got %v, want nil", err)
	}
	if !strings.Contains(string(b), `"coverage":null`) || strings.Contains(string(b), `"coverage":-1`) {
		t.Errorf("got JSON %s, want coverage null on fold 1 and never -1", b)
	}
}
