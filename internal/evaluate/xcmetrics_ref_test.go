package evaluate_test

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"mldr/internal/evaluate"
)

// xcRefFile is testdata/ref/xcmetrics.json.
type xcRefFile struct {
	Generator string `json:"generator"`
	Cases     []struct {
		Name    string              `json:"name"`
		A       float64             `json:"a"`
		B       float64             `json:"b"`
		YTrain  [][]float64         `json:"ytrain"`
		Y       [][]float64         `json:"y"`
		Scores  [][]float64         `json:"scores"`
		InvProp []float64           `json:"inv_propensities"`
		Metrics map[string]*float64 `json:"metrics"`
	} `json:"cases"`
}

// TestXCMetricsReference checks InversePropensities and XCMetrics against
// testdata/ref/xcmetrics.json, computed by xcmetrics.py (numpy 1.24, from
// the formulas of Jain et al. 2016 and pyxclib's conventions, its nDCG
// cross-checked with scikit-learn 1.2's ndcg_score): random labels and
// scores with ties, rows without labels and with fewer than 5, labels no
// training row has, q = 3 < k, A, B of Wikipedia (0.5, 0.4) and Amazon
// (0.6, 2.6), and 2 training rows (no propensities).
func TestXCMetricsReference(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(refDir, "xcmetrics.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref xcRefFile
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Cases) == 0 {
		t.Fatal("xcmetrics.json has no cases")
	}
	for _, c := range ref.Cases {
		t.Run(c.Name, func(t *testing.T) {
			w, err := evaluate.InversePropensities(refDense(c.YTrain), c.A, c.B)
			if err != nil {
				t.Fatal(err)
			}
			if (w == nil) != (c.InvProp == nil) || len(w) != len(c.InvProp) {
				t.Fatalf("got inverse propensities %v, want %v (%s)", w, c.InvProp, ref.Generator)
			}
			for l := range w {
				if math.Abs(w[l]-c.InvProp[l]) > 1e-12*c.InvProp[l] {
					t.Errorf("1/p_%d: got %.17g, want %.17g (%s)", l, w[l], c.InvProp[l], ref.Generator)
				}
			}
			got := evaluate.XCMetrics(refDense(c.Y), refDense(c.Scores), w)
			for _, k := range evaluate.XCMetricKeys {
				p, ok := c.Metrics[k]
				if !ok {
					t.Fatalf("%s has no %s", ref.Generator, k)
				}
				want := math.NaN()
				if p != nil {
					want = *p
				}
				refCheckMetrics(t, c.Name, got, map[string]float64{k: want}, []string{k}, 1e-12, nil, ref.Generator)
			}
		})
	}
}
