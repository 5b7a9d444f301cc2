package evaluate

import (
	"math"
	"strings"
	"testing"

	"mldr/internal/analysis"
)

// TestRunApproximateKNN checks the k-NN vote's approximate neighbour
// search in a run: with the exact search's predicted time above the
// budget, each method's vote searches approximately and a note says so
// with the recall measured; its metrics stay near the exact search's;
// with recall 1 the run is the exact run to the bit whatever the budget.
func TestRunApproximateKNN(t *testing.T) {
	ds := loadShared(t, "medical/medical.csv")
	data := analysis.Input{X: ds.Dense(), Y: ds.DenseY()}
	n, _ := data.Y.Dims()
	splits, err := KFold(n, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	spec := Spec{Methods: []MethodRun{{ID: "pca"}, {ID: "mddmp"}}, Grid: Grid{Dims: []int{20}}, Options: Options{Classifier: ClassifierKNN}}
	run := func(spec Spec, budget float64) *Result {
		r, err := newRunner(data, splits, spec, nil)
		if err != nil {
			t.Fatal(err)
		}
		r.budget = budget
		res, err := r.run(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	exact := run(spec, 0)
	approx := run(spec, 1e-9)
	for _, res := range []*Result{exact} {
		for _, note := range res.Notes {
			if strings.Contains(note, "approximately") {
				t.Fatalf("the exact run says %q", note)
			}
		}
	}
	// medical's features are dense here, so ori's vote is approximate too.
	for _, m := range []string{Ori, "pca", "mddmp"} {
		var note string
		for _, s := range approx.Notes {
			if strings.HasPrefix(s, m+": the k-NN vote searched its 10 nearest neighbours approximately") {
				note = s
			}
		}
		if note == "" || !strings.Contains(note, "recall@10") || !strings.Contains(note, "over 2 searches") {
			t.Errorf("no note of %s's approximate search with its recall over the 2 folds in %q", m, approx.Notes)
		}
		t.Log(note)
	}
	for i, row := range approx.Rows {
		want := exact.Rows[i]
		for _, key := range []string{"precision_at_1", "precision_at_5", "hamming_loss"} {
			if d := math.Abs(row.Metrics[key] - want.Metrics[key]); d > 0.03 {
				t.Errorf("%s d=%d fold %v: %s %.4f approximate, %.4f exact", row.Method, row.D, row.Fold, key, row.Metrics[key], want.Metrics[key])
			}
		}
	}
	spec.Options.Recall = 1
	forced := run(spec, 1e-9)
	for i, row := range forced.Rows {
		for key, v := range row.Metrics {
			if w := exact.Rows[i].Metrics[key]; v != w && !(math.IsNaN(v) && math.IsNaN(w)) {
				t.Fatalf("recall 1: %s d=%d %s = %v, the exact run's %v", row.Method, row.D, key, v, w)
			}
		}
	}
}
