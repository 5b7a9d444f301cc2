package evaluate_test

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/analysis"
	"mldr/internal/evaluate"
)

// refFSDRFile is fsdr_emotions.json.
type refFSDRFile struct {
	Params struct {
		D      int     `json:"d"`
		Lambda float64 `json:"lambda"`
	} `json:"params"`
	Train refInfo       `json:"train"`
	Test  refInfo       `json:"test"`
	Cases []refFSDRCase `json:"cases"`
}

// refFSDRCase is one method with one normalisation.
type refFSDRCase struct {
	Method         string    `json:"method"`
	Normalize      string    `json:"normalize"`
	D              int       `json:"d"`
	Eigenvalues    []float64 `json:"eigenvalues"`
	Metrics        refValues `json:"metrics"`
	SmallestMargin float64   `json:"smallest_margin"`
}

// TestReferenceFSDREmotions runs mlsi and cca at d = 6 followed by ridge
// binary relevance (λ = 0.1) on emotions' Mulan split, with unit-length
// directions (the default, the FSDR reference code's) and with
// B-orthonormal ones (normalize = b), against fsdr_emotions.json
// (scipy.linalg.eigh(A, B), computed without the Go code). The Hamming
// losses must be equal, the other metrics within 1e-9: every reference
// score is at least 1.4e-4 from the 0.5 threshold, so no rounding
// difference can flip a prediction. With the old B-orthonormal default,
// mlsi gave 0.2665 where the reference gives 0.2558.
func TestReferenceFSDREmotions(t *testing.T) {
	refRequireShared(t)
	const file = "fsdr_emotions.json"
	var ref refFSDRFile
	refRead(t, file, &ref)
	src := refSource(file)
	if len(ref.Cases) != 4 || ref.Params.Lambda != evaluate.DefaultLambda {
		t.Fatalf("the %s has %d cases and λ = %v; want 4 (mlsi and cca, unit and b) and λ = %v",
			src, len(ref.Cases), ref.Params.Lambda, evaluate.DefaultLambda)
	}
	tr, te := refLoad(t, ref.Train, file), refLoad(t, ref.Test, file)
	var x, y mat.Dense
	x.Stack(tr.X, te.X)
	y.Stack(tr.Y, te.Y)
	data := analysis.Input{X: &x, Y: &y}
	split := evaluate.TrainTest(ref.Train.N, ref.Test.N)
	train := analysis.Input{X: tr.X, Y: tr.Y}
	for _, c := range ref.Cases {
		t.Run(c.Method+"/"+c.Normalize, func(t *testing.T) {
			if c.SmallestMargin < 1e-6 {
				t.Fatalf("the %s has a score %.2g from the threshold: too close to compare predictions", src, c.SmallestMargin)
			}
			p := analysis.Params{D: c.D}
			if c.Normalize != analysis.NormalizeUnit {
				p.Normalize = c.Normalize
			}
			m, err := analysis.Fit(t.Context(), c.Method, train, p, nil)
			if err != nil {
				t.Fatalf("Fit(%s, emotions-train, %+v): %v", c.Method, p, err)
			}
			if m.Params.Normalize != c.Normalize {
				t.Errorf("the model records normalize %q, want %q", m.Params.Normalize, c.Normalize)
			}
			for i, want := range c.Eigenvalues {
				if got := m.Eigenvalues[i]; math.Abs(got-want) > 1e-9*math.Abs(c.Eigenvalues[0]) {
					t.Errorf("eigenvalue %d: got %.17g, want %.17g (%s)", i+1, got, want, src)
				}
			}
			res, err := evaluate.Run(t.Context(), data, []evaluate.Split{split}, evaluate.Spec{
				Methods: []evaluate.MethodRun{{ID: c.Method, Params: p}},
				Options: evaluate.Options{Classifier: evaluate.ClassifierRidge, Lambda: ref.Params.Lambda},
			}, nil)
			if err != nil {
				t.Fatalf("Run(%s, %+v, ridge): %v", c.Method, p, err)
			}
			var rows []evaluate.Row
			for _, r := range res.Rows {
				if r.Method == c.Method {
					rows = append(rows, r)
				}
			}
			if len(rows) != 2 || rows[0].D != c.D {
				t.Fatalf("got %d rows for %s (%+v), want the split's and the mean at d = %d", len(rows), c.Method, rows, c.D)
			}
			for _, r := range rows {
				what := fmt.Sprintf("%s, normalize %s, d = %d", c.Method, c.Normalize, c.D)
				refCheckMetrics(t, what, r.Metrics, c.Metrics, refMLKeys, 1e-9, []string{evaluate.HammingLoss}, src)
			}
			t.Logf("%s, normalize %s: Hamming loss %.4f (reference %.4f)", c.Method, c.Normalize, rows[1].Metrics[evaluate.HammingLoss], c.Metrics[evaluate.HammingLoss])
		})
	}
}
