package evaluate

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestXCMetricsHandComputed: the metrics at k = 1, 3, 5 on small cases
// worked out by hand, with inverse propensities given directly.
func TestXCMetricsHandComputed(t *testing.T) {
	l3 := math.Log2(3)
	ideal2 := 1 + 1/l3 // Σ_{r≤2} 1/log2(r+1)
	cases := []struct {
		name    string
		y, s    *mat.Dense
		w       []float64
		want    map[string]float64
		comment string
	}{{
		// Row 1: labels {0, 2}, order 0, 2, 1, 3. Row 2: label {1},
		// scores tied but for label 2: order 2, 3, 1, 0 (ties: the higher
		// index first), so label 1 is third. Row 3: no label (0 in every
		// sum). w = 1, 2, 4, 8.
		name: "three rows, q = 4",
		y:    m(3, 4, 1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0),
		s:    m(3, 4, 0.9, 0.2, 0.4, 0.1, 0.3, 0.3, 0.8, 0.3, 0.5, 0.1, 0.2, 0.6),
		w:    []float64{1, 2, 4, 8},
		want: map[string]float64{
			PrecisionAt1: 1.0 / 3, PrecisionAt3: (2.0/3 + 1.0/3) / 3, PrecisionAt5: (2.0/5 + 1.0/5) / 3,
			NDCGAt1: 1.0 / 3, NDCGAt3: (1 + 0.5) / 3, NDCGAt5: (1 + 0.5) / 3,
			// Σ over rows of the hits' weights / k, over the same for the best.
			PSPrecisionAt1: (1 + 0) / (4.0 + 2), PSPrecisionAt3: (5.0/3 + 2.0/3) / (5.0/3 + 2.0/3), PSPrecisionAt5: 1,
			PSNDCGAt1: (1 + 0) / (4.0 + 2),
			PSNDCGAt3: ((1+4/l3)/ideal2 + 2*0.5) / ((4+1/l3)/ideal2 + 2),
			PSNDCGAt5: ((1+4/l3)/ideal2 + 2*0.5) / ((4+1/l3)/ideal2 + 2),
		},
	}, {
		// Tied top scores: label 1 ranks above label 0 (the higher index
		// first, as rankOf ranks them), so the one true label is second.
		name: "tie at the top",
		y:    m(1, 3, 1, 0, 0),
		s:    m(1, 3, 0.5, 0.5, 0.1),
		w:    []float64{3, 1, 1},
		want: map[string]float64{
			PrecisionAt1: 0, PrecisionAt3: 1.0 / 3, PrecisionAt5: 1.0 / 5,
			NDCGAt1: 0, NDCGAt3: 1 / l3, NDCGAt5: 1 / l3,
			PSPrecisionAt1: 0, PSPrecisionAt3: 1, PSPrecisionAt5: 1,
			PSNDCGAt1: 0, PSNDCGAt3: 1 / l3, PSNDCGAt5: 1 / l3,
		},
	}, {
		// No test row has a label: P@k and nDCG@k are 0, the
		// propensity-scored metrics 0/0, undefined.
		name: "no labelled row",
		y:    m(2, 2, 0, 0, 0, 0),
		s:    m(2, 2, 0.1, 0.2, 0.3, 0.4),
		w:    []float64{2, 3},
		want: map[string]float64{
			PrecisionAt1: 0, PrecisionAt3: 0, PrecisionAt5: 0, NDCGAt1: 0, NDCGAt3: 0, NDCGAt5: 0,
			PSPrecisionAt1: math.NaN(), PSPrecisionAt3: math.NaN(), PSPrecisionAt5: math.NaN(),
			PSNDCGAt1: math.NaN(), PSNDCGAt3: math.NaN(), PSNDCGAt5: math.NaN(),
		},
	}, {
		// Without propensities (fewer than 3 training rows) the
		// propensity-scored metrics are undefined, the others unchanged.
		name: "no propensities",
		y:    m(1, 2, 0, 1),
		s:    m(1, 2, 0.1, 0.2),
		want: map[string]float64{
			PrecisionAt1: 1, PrecisionAt3: 1.0 / 3, PrecisionAt5: 1.0 / 5, NDCGAt1: 1, NDCGAt3: 1, NDCGAt5: 1,
			PSPrecisionAt1: math.NaN(), PSPrecisionAt3: math.NaN(), PSPrecisionAt5: math.NaN(),
			PSNDCGAt1: math.NaN(), PSNDCGAt3: math.NaN(), PSNDCGAt5: math.NaN(),
		},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := XCMetrics(c.y, c.s, c.w)
			if len(got) != len(XCMetricKeys) {
				t.Errorf("got %d metrics, want %d", len(got), len(XCMetricKeys))
			}
			for _, k := range XCMetricKeys {
				near(t, k, got[k], c.want[k])
			}
		})
	}
}

// TestInversePropensitiesFormula: 1/p_l = 1 + (ln N − 1)(B + 1)^A (N_l + B)^−A
// on a small matrix, a label no training row has included; none below
// MinPropensityRows rows; A and B out of range refused.
func TestInversePropensitiesFormula(t *testing.T) {
	y := m(4, 3, 1, 1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0) // N_l = 3, 1, 0
	a, b := 0.55, 1.5
	c := (math.Log(4) - 1) * math.Pow(b+1, a)
	w, err := InversePropensities(y, a, b)
	if err != nil {
		t.Fatal(err)
	}
	for l, nl := range []float64{3, 1, 0} {
		near(t, "1/p", w[l], 1+c*math.Pow(nl+b, -a))
	}
	if !(w[2] > w[1] && w[1] > w[0] && w[0] > 1) {
		t.Errorf("got weights %v, want them above 1 and larger for rarer labels", w)
	}
	if w, err := InversePropensities(m(2, 2, 1, 0, 0, 1), a, b); w != nil || err != nil {
		t.Errorf("2 training rows: got %v, %v; want nil, nil", w, err)
	}
	for _, ab := range [][2]float64{{0, 1.5}, {-1, 1.5}, {math.NaN(), 1.5}, {math.Inf(1), 1.5}, {0.55, 0}, {0.55, -0.5}, {0.55, math.NaN()}} {
		if _, err := InversePropensities(y, ab[0], ab[1]); err == nil {
			t.Errorf("A = %v, B = %v: got no error, want one", ab[0], ab[1])
		}
	}
}

// TestXCMetricsProperties: on seeded random labels and scores (ties
// included) every metric is in [0, 1]; scores that put the true labels
// first by weight give P@k = mean min(k, |y|)/k, nDCG@k = the share of
// labelled rows, and PSP@k = PSnDCG@k = 1.
func TestXCMetricsProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for trial := range 200 {
		n, q := 1+rng.IntN(12), 1+rng.IntN(9)
		ntr := 3 + rng.IntN(20)
		ytr, y, s := mat.NewDense(ntr, q, nil), mat.NewDense(n, q, nil), mat.NewDense(n, q, nil)
		rate := rng.Float64()
		for i := range ntr {
			for l := range q {
				if rng.Float64() < rate {
					ytr.Set(i, l, 1)
				}
			}
		}
		for i := range n {
			for l := range q {
				if rng.Float64() < rate {
					y.Set(i, l, 1)
				}
				s.Set(i, l, float64(rng.IntN(4))) // many ties
			}
		}
		w, err := InversePropensities(ytr, 0.1+rng.Float64(), 0.1+3*rng.Float64())
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range XCMetrics(y, s, w) {
			if !(v >= 0 && v <= 1+1e-12) && !(math.IsNaN(v) && isPropensityScored(k)) {
				t.Fatalf("trial %d: %s = %v, want it in [0, 1]", trial, k, v)
			}
		}
		perfect := mat.NewDense(n, q, nil)
		perfect.Apply(func(i, l int, v float64) float64 { return v * w[l] }, y)
		got := XCMetrics(y, perfect, w)
		labelled := 0.0
		for j, k := range xcK {
			want := 0.0
			for i := range n {
				nY := mat.Sum(y.RowView(i))
				want += min(float64(k), nY) / float64(k)
				if j == 0 && nY > 0 {
					labelled++
				}
			}
			near(t, xcKeys[j][0], got[xcKeys[j][0]], want/float64(n))
			near(t, xcKeys[j][1], got[xcKeys[j][1]], labelled/float64(n))
			if labelled > 0 {
				near(t, xcKeys[j][2], got[xcKeys[j][2]], 1)
				near(t, xcKeys[j][3], got[xcKeys[j][3]], 1)
			}
		}
	}
}

// TestTopLabelsRankOrder: the i-th of topLabels is the label rankOf ranks
// i + 1, ties and NaN included, so that P@k uses the ranking of the other
// ranking metrics.
func TestTopLabelsRankOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	for range 500 {
		q := 1 + rng.IntN(10)
		s := make([]float64, q)
		for l := range s {
			s[l] = float64(rng.IntN(3))
			if rng.IntN(10) == 0 {
				s[l] = math.NaN()
			}
		}
		top := topLabels(nil, s, 5)
		if len(top) != min(5, q) {
			t.Fatalf("scores %v: got %d labels, want %d", s, len(top), min(5, q))
		}
		for i, l := range top {
			if r := rankOf(s, l); r != i+1 {
				t.Fatalf("scores %v: label %d is %d-th of topLabels %v, and rankOf ranks it %d", s, l, i+1, top, r)
			}
		}
	}
}

// TestRunXCMetrics: every classifier that gives scores (ML-kNN's
// posteriors, ridge's outputs, the svm's decision values, a label-space
// method's decoded scores) reports the twelve metrics of XCMetrics on every
// row, in [0, 1], with the default propensities; ps_a and ps_b change the
// propensity-scored ones only; multi-dimensional data refuses them.
func TestRunXCMetrics(t *testing.T) {
	data := runData(6, 120, 8, 8, nil)
	folds, _ := KFold(120, 3, 1)
	run := func(o Options) *Result {
		t.Helper()
		res, err := Run(context.Background(), data, folds, Spec{
			Methods: []MethodRun{{ID: "pca"}, {ID: "cplst"}}, Grid: Grid{Dims: []int{1, 2}}, Options: o,
		}, nil)
		if err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
		return res
	}
	for _, cl := range []string{ClassifierMLkNN, ClassifierRidge, ClassifierSVM} {
		t.Run(cl, func(t *testing.T) {
			def, wik := run(Options{Classifier: cl}), run(Options{Classifier: cl, PsA: 0.5, PsB: 0.4})
			if p := def.Propensity; p == nil || *p != (Propensity{A: DefaultPropensityA, B: DefaultPropensityB}) {
				t.Errorf("default propensity: got %+v, want A = 0.55, B = 1.5", p)
			}
			if p := wik.Propensity; p == nil || *p != (Propensity{A: 0.5, B: 0.4}) {
				t.Errorf("propensity: got %+v, want A = 0.5, B = 0.4", p)
			}
			changed := false
			for i, r := range def.Rows {
				for _, k := range XCMetricKeys {
					v, ok := r.Metrics[k]
					if !ok || !(v >= 0 && v <= 1+1e-12) {
						t.Fatalf("%s d=%d fold %v: %s = %v (present %v), want a value in [0, 1]", r.Method, r.D, r.Fold, k, v, ok)
					}
					w := wik.Rows[i].Metrics[k]
					if isPropensityScored(k) {
						changed = changed || v != w
					} else if v != w {
						t.Errorf("%s d=%d: %s = %v with A, B = 0.5, 0.4, want %v as with the defaults", r.Method, r.D, k, w, v)
					}
				}
			}
			if !changed {
				t.Error("ps_a, ps_b = 0.5, 0.4 changed no propensity-scored metric")
			}
		})
	}
	md := runData(3, 60, 5, 0, []int{3, 2})
	mdFolds, _ := KFold(60, 3, 1)
	if _, err := Run(context.Background(), md, mdFolds, Spec{Methods: []MethodRun{{ID: "pca"}}, Options: Options{PsB: 2}}, nil); err == nil ||
		!strings.Contains(err.Error(), "multi-dimensional") {
		t.Errorf("ps_b on multi-dimensional data: got %v, want a refusal that says why", err)
	}
	res, err := Run(context.Background(), md, mdFolds, Spec{Methods: []MethodRun{{ID: "pca"}}}, nil)
	if err != nil {
		t.Fatalf("multi-dimensional data: %v", err)
	}
	if res.Propensity != nil {
		t.Errorf("multi-dimensional data: got propensity %+v, want none", res.Propensity)
	}
}

// TestXCMetricsHigherIsBetter: studies, curves and tables rank the
// extreme-classification metrics with higher better.
func TestXCMetricsHigherIsBetter(t *testing.T) {
	for _, k := range XCMetricKeys {
		if LowerIsBetter(k) {
			t.Errorf("LowerIsBetter(%s): got true, want false", k)
		}
	}
}
