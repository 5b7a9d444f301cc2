package analysis

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// smacofRef is testdata/ref/smacof.json, made by testdata/ref/smacof.py
// (scikit-learn 1.2.1).
type smacofRef struct {
	Software map[string]string `json:"software"`
	Cases    []struct {
		Name           string      `json:"name"`
		X              [][]float64 `json:"x"`
		D              int         `json:"d"`
		Init           [][]float64 `json:"init"`
		MetricFromInit struct {
			Z             [][]float64 `json:"z"`
			NIter         int         `json:"n_iter"`
			SklearnStress float64     `json:"sklearn_stress"`
			Stress        [2]float64  `json:"stress"`
		} `json:"metric_from_init"`
		NonmetricFromInit struct {
			Z      [][]float64 `json:"z"`
			NIter  int         `json:"n_iter"`
			Stress [2]float64  `json:"stress"`
		} `json:"nonmetric_from_init"`
		MetricSklearnMDS struct {
			Stress [2]float64  `json:"stress"`
			Z      [][]float64 `json:"z"`
		} `json:"metric_sklearn_mds"`
		NonmetricSklearnMDS struct {
			Stress [2]float64 `json:"stress"`
		} `json:"nonmetric_sklearn_mds"`
	} `json:"cases"`
}

func loadSMACOFRef(t *testing.T) smacofRef {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "ref", "smacof.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r smacofRef
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// smacofInput is x with one constant label column: mds reads no label.
func smacofInput(x *mat.Dense) Input {
	n, _ := x.Dims()
	y := mat.NewDense(n, 1, nil)
	for i := 0; i < n; i += 2 {
		y.Set(i, 0, 1)
	}
	return Input{X: x, Y: y}
}

// TestSMACOFFromInit follows scikit-learn from the same initial
// configuration: metric SMACOF must give sklearn.manifold.smacof's
// configuration and number of iterations, nonmetric the textbook loop of
// smacof.py (scikit-learn's with symmetric disparities); the stress of
// each configuration is compared too (reference: testdata/ref/smacof.py,
// scikit-learn 1.2.1).
func TestSMACOFFromInit(t *testing.T) {
	ref := loadSMACOFRef(t)
	for _, c := range ref.Cases {
		for _, kind := range []string{MDSMetric, MDSNonmetric} {
			t.Run(c.Name+" "+kind, func(t *testing.T) {
				x := rowsMatrix(c.X)
				n, nf := x.Dims()
				delta := pairs{n: n, v: make([]float64, n*(n-1)/2)}
				rowDistances(x.RawMatrix().Data, n, nf, delta)
				s := newSMACOF(delta, kind == MDSNonmetric)
				z := mat.DenseCopyOf(rowsMatrix(c.Init)).RawMatrix().Data
				it, conv, err := s.run(context.Background(), z, c.D, DefaultMDSIterations, smacofEps, nil)
				if err != nil || !conv {
					t.Fatalf("run: %v, converged %v", err, conv)
				}
				want, wantIt, wantStress := c.MetricFromInit.Z, c.MetricFromInit.NIter, c.MetricFromInit.Stress
				if kind == MDSNonmetric {
					want, wantIt, wantStress = c.NonmetricFromInit.Z, c.NonmetricFromInit.NIter, c.NonmetricFromInit.Stress
				}
				if it != wantIt {
					t.Errorf("iterations: got %d, want %d", it, wantIt)
				}
				got := mat.NewDense(n, c.D, z)
				if e := relDiff(got, rowsMatrix(want)); e > 1e-8 {
					t.Errorf("configuration: relative difference %.3g from the reference's, want ≤ 1e-8", e)
				}
				raw, s1 := s.stressOf(z, c.D)
				if math.Abs(raw-wantStress[0]) > 1e-8*wantStress[0] || math.Abs(s1-wantStress[1]) > 1e-9 {
					t.Errorf("stress: got raw %.10g, stress-1 %.10g; want %.10g, %.10g", raw, s1, wantStress[0], wantStress[1])
				}
			})
		}
	}
}

// relDiff is ‖a − b‖_F / ‖b‖_F.
func relDiff(a, b *mat.Dense) float64 {
	var e mat.Dense
	e.Sub(a, b)
	return mat.Norm(&e, 2) / mat.Norm(b, 2)
}

// procrustes is ‖a·R − b‖_F / ‖b‖_F after centring both, R the
// orthogonal matrix that minimises it (UVᵀ from the SVD of aᵀb).
func procrustes(t *testing.T, a, b *mat.Dense) float64 {
	t.Helper()
	ac, bc := tuCentred(a), tuCentred(b)
	var m mat.Dense
	m.Mul(ac.T(), bc)
	var svd mat.SVD
	if !svd.Factorize(&m, mat.SVDFull) {
		t.Fatal("SVD failed")
	}
	var u, v, r, ar mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	r.Mul(&u, v.T())
	ar.Mul(ac, &r)
	return relDiff(&ar, bc)
}

// TestMDSKindsFromRandomStarts fits metric and nonmetric mds from their
// own random starts (4, seed 1) and compares them with scikit-learn's
// MDS(n_init=4) on the same rows (testdata/ref/smacof.py): metric's
// stress-1 within 0.01 of sklearn's and, where sklearn's stress and the
// one from a given start agree (the curve: one minimum), the
// configuration within 0.2 after a Procrustes rotation (scikit-learn's
// stopping rule, a fall of σ/Σ‖x_i‖ below 1e-3, leaves different starts
// short of the minimum by different amounts: 0.12 here, stress-1 0.019
// against sklearn's 0.015; from one start the two agree to 1e-8,
// TestSMACOFFromInit); nonmetric's
// stress-1 within 0.01 of the textbook loop's from a given start and no
// worse than scikit-learn 1.2.1's non-metric MDS (whose lower-triangle
// disparities leave it far from a minimum: stress-1 0.33–0.41 here).
func TestMDSKindsFromRandomStarts(t *testing.T) {
	ref := loadSMACOFRef(t)
	for _, c := range ref.Cases {
		t.Run(c.Name, func(t *testing.T) {
			in := smacofInput(rowsMatrix(c.X))
			m := fit(t, "mds", in, Params{D: c.D, MDSKind: MDSMetric})
			if m.Stress == nil || m.Stress.Starts != DefaultMDSStarts || m.Dim != c.D {
				t.Fatalf("metric: Stress %+v, d = %d", m.Stress, m.Dim)
			}
			if got, want := m.Stress.Stress1, c.MetricSklearnMDS.Stress[1]; got > want+0.01 {
				t.Errorf("metric stress-1: got %.4f, want at most sklearn's %.4f + 0.01", got, want)
			}
			if math.Abs(c.MetricSklearnMDS.Stress[0]-c.MetricFromInit.Stress[0]) < 1e-6*c.MetricFromInit.Stress[0] {
				if e := procrustes(t, m.Projected, rowsMatrix(c.MetricSklearnMDS.Z)); e > 0.2 {
					t.Errorf("metric configuration: %.3g from sklearn's after rotation, want ≤ 0.2", e)
				}
			}
			if _, err := m.Transform(in.X); !errors.Is(err, ErrTransductive) {
				t.Errorf("metric Transform: got %v, want ErrTransductive", err)
			}
			nm := fit(t, "mds", in, Params{D: c.D, MDSKind: MDSNonmetric})
			got := nm.Stress.Stress1
			if want := c.NonmetricFromInit.Stress[1]; got > want+0.01 {
				t.Errorf("nonmetric stress-1: got %.4f, want at most the textbook loop's %.4f + 0.01", got, want)
			}
			if sk := c.NonmetricSklearnMDS.Stress[1]; got > sk {
				t.Errorf("nonmetric stress-1: got %.4f, want at most scikit-learn's %.4f", got, sk)
			}
		})
	}
}

// TestMDSKindParams checks the refusals of mds's own parameters and that a
// metric fit is the same for the same seed, other for another, and gives
// no other d.
func TestMDSKindParams(t *testing.T) {
	in := tuMultiLabel(3, 40, 5, 2)
	seed := uint64(9)
	for _, c := range []struct {
		name  string
		p     Params
		param string
	}{
		{"unknown kind", Params{MDSKind: "ordinal"}, ParamMDSKind},
		{"classical with a seed", Params{Seed: &seed}, ParamSeed},
		{"classical with starts", Params{MDSKind: MDSClassical, Starts: 2}, ParamStarts},
		{"metric with thr", Params{MDSKind: MDSMetric, Thr: 0.9}, ParamThr},
		{"too many starts", Params{MDSKind: MDSNonmetric, Starts: 101}, ParamStarts},
		{"d above N − 1", Params{MDSKind: MDSMetric, D: 40}, ParamD},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Fit(context.Background(), "mds", in, c.p, nil)
			var e *Error
			if !errors.As(err, &e) || e.Param != c.param {
				t.Fatalf("got %v, want an *Error on %s", err, c.param)
			}
		})
	}
	// iterations is leml's too: classical mds, exact, leaves it be.
	if a, b := fit(t, "mds", in, Params{D: 2}), fit(t, "mds", in, Params{D: 2, Iterations: 10}); !mat.Equal(a.Projected, b.Projected) {
		t.Error("classical mds with iterations differs from classical mds without")
	}
	p := Params{MDSKind: MDSMetric, D: 2, Starts: 2, Iterations: 50}
	a, b := fit(t, "mds", in, p), fit(t, "mds", in, p)
	if !mat.Equal(a.Projected, b.Projected) {
		t.Error("two fits with the same seed differ")
	}
	p.Seed = &seed
	if c := fit(t, "mds", in, p); mat.Equal(a.Projected, c.Projected) {
		t.Error("another seed gave the same configuration")
	}
	if _, err := a.WithDim(1); err == nil || !strings.Contains(err.Error(), "not nested") {
		t.Errorf("WithDim(1) of a metric fit: got %v, want a refusal (not nested)", err)
	}
	if err := Check("mds", Params{MDSKind: MDSNonmetric}, Shape{N: MaxNSMACOF + 1, D: 3, Q: 1}); err == nil ||
		!strings.Contains(err.Error(), "5000") || !strings.Contains(err.Error(), "5001") {
		t.Errorf("Check of %d rows: got %v, want a refusal naming the limit and the rows", MaxNSMACOF+1, err)
	}
	if err := Check("mds", Params{}, Shape{N: MaxNSMACOF + 1, D: 3, Q: 1}); err != nil {
		t.Errorf("classical mds on %d rows: %v", MaxNSMACOF+1, err)
	}
}
