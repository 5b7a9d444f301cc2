package evaluate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/knn"
	"mldr/internal/sparse"
)

// TestKNNReference checks KNN against testdata/ref/knn.json, computed by
// knn.py (scikit-learn 1.2.1's NearestNeighbors, brute force, cross-checked
// with its own numpy search; random data without ties in distance at the
// k-th neighbour): knn.Search's neighbours, KNN's scores and labels, on the
// dense features and on their CSR form, at k = 1, 4 and 5.
func TestKNNReference(t *testing.T) {
	const src = "testdata/ref/knn.json from testdata/ref/knn.py"
	raw, err := os.ReadFile(filepath.Join("testdata", "ref", "knn.json"))
	if err != nil {
		t.Fatalf("%v (%s; regenerate it as its script says)", err, src)
	}
	var ref struct {
		Cases []struct {
			Name          string
			K             int
			XTrain, XTest [][]float64
			YTrain        [][]float64
			Neighbours    [][]int32
			Scores, Pred  [][]float64
		}
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatalf("decoding %s: %v", src, err)
	}
	if len(ref.Cases) == 0 {
		t.Fatalf("%s holds no case", src)
	}
	dense := func(rows [][]float64) *mat.Dense {
		m := mat.NewDense(len(rows), len(rows[0]), nil)
		for i, r := range rows {
			m.SetRow(i, r)
		}
		return m
	}
	for _, c := range ref.Cases {
		xtr, ytr, xte := dense(c.XTrain), dense(c.YTrain), dense(c.XTest)
		nn, err := knn.Search(t.Context(), xtr, xte, c.K, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range c.Neighbours {
			if got, _ := nn.Row(i); !slices.Equal(got, want) {
				t.Errorf("%s, test row %d: got neighbours %v, want %v (%s)", c.Name, i, got, want, src)
			}
		}
		for _, f := range []struct {
			name   string
			xtr, x mat.Matrix
		}{{"dense", xtr, xte}, {"sparse", sparse.FromDense(xtr), sparse.FromDense(xte)}} {
			pred, scores, err := KNN{K: c.K}.predict(t.Context(), f.xtr, ytr, f.x)
			if err != nil {
				t.Fatal(err)
			}
			for i := range c.Scores {
				if got := scores.RawRowView(i); !slices.Equal(got, c.Scores[i]) {
					t.Errorf("%s, %s, test row %d: got scores %v, want %v (%s)", c.Name, f.name, i, got, c.Scores[i], src)
				}
				if got := pred.RawRowView(i); !slices.Equal(got, c.Pred[i]) {
					t.Errorf("%s, %s, test row %d: got labels %v, want %v (%s)", c.Name, f.name, i, got, c.Pred[i], src)
				}
			}
		}
	}
}
