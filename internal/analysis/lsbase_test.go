package analysis

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/dataset"
)

// The references of the label-space baselines (lsbase.go) are computed by
// testdata/ref/lsbase.py from the papers' equations with numpy/scipy, by
// other routes than the Go code (N×N matrices, lstsq and pinv, scipy's
// Sylvester solver), without reading it; README.md beside it says how to
// regenerate lsbase.json.

// lsDatasets holds the shared data sets (beside the repository).
const lsDatasets = "../../../shared/datasets"

type lsRef struct {
	Software map[string]string `json:"software"`
	M        int               `json:"m"`
	Cases    []lsCase          `json:"cases"`
}

type lsCase struct {
	Dataset, File, SHA256 string
	N, D, Q               int
	Rembrandt             *struct {
		Lambda      float64     `json:"lambda"`
		Eigenvalues []float64   `json:"eigenvalues"`
		Directions  [][]float64 `json:"directions"`
		Projection  *struct {
			Eigenvalues []float64   `json:"eigenvalues"`
			Directions  [][]float64 `json:"directions"`
		} `json:"projection"`
	} `json:"rembrandt"`
	MLCSSP *struct {
		K             int         `json:"k"`
		Probabilities []float64   `json:"probabilities"`
		Columns       []int       `json:"columns"`
		Decoder       [][]float64 `json:"decoder"` // M×q rows of Z_C⁺Z
		EncodingError []float64   `json:"encoding_error"`
	} `json:"mlcssp"`
	FaIE *struct {
		Alpha       float64     `json:"alpha"`
		Lambda      float64     `json:"lambda"`
		Eigenvalues []float64   `json:"eigenvalues"`
		Decoder     [][]float64 `json:"decoder"`    // columns of ZᵀV
		CodesHead   [][]float64 `json:"codes_head"` // columns of V's first 20 rows
	} `json:"faie"`
	LEML *struct {
		Lambda    float64     `json:"lambda"`
		M         int         `json:"m"`
		Objective float64     `json:"objective"`
		W         [][]float64 `json:"w"` // columns of W = UVᵀ (D×q)
	} `json:"leml"`
}

// lsLoad reads lsbase.json and the data set of each case, or skips
// without the shared data sets.
func lsLoad(t *testing.T) (lsRef, map[string]Input) {
	t.Helper()
	if _, err := os.Stat(lsDatasets); os.IsNotExist(err) {
		if os.Getenv("MLDR_REQUIRE_SHARED") == "1" {
			t.Fatalf("%s is missing (MLDR_REQUIRE_SHARED=1)", lsDatasets)
		}
		t.Skipf("%s is missing: the references need the shared data sets", lsDatasets)
	}
	raw, err := os.ReadFile(filepath.Join("testdata", "ref", "lsbase.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref lsRef
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	ins := make(map[string]Input)
	for _, c := range ref.Cases {
		b, err := os.ReadFile(filepath.Join(lsDatasets, c.File))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		if got := hex.EncodeToString(sum[:]); got != c.SHA256 {
			t.Fatalf("%s has sha256 %s; the reference was computed from %s (regenerate with lsbase.py)", c.File, got, c.SHA256)
		}
		ds, err := dataset.Load(strings.NewReader(string(b)), dataset.Options{})
		if err != nil {
			t.Fatal(err)
		}
		ins[c.Dataset] = Input{X: ds.X, Sparse: ds.Sparse, Y: ds.Y, Labels: ds.YSparse}
	}
	return ref, ins
}

// lsCols makes a matrix of reference columns.
func lsCols(cols [][]float64) *mat.Dense {
	m := mat.NewDense(len(cols[0]), len(cols), nil)
	for k, c := range cols {
		m.SetCol(k, c)
	}
	return m
}

// lsSubspaceGap is 1 − the smallest cosine of the principal angles between
// the column spans of a and b (both with orthonormal columns after QR).
func lsSubspaceGap(a, b mat.Matrix) float64 {
	qa, _ := thinQR(mat.DenseCopyOf(a))
	qb, _ := thinQR(mat.DenseCopyOf(b))
	var c mat.Dense
	c.Mul(qa.T(), qb)
	var svd mat.SVD
	svd.Factorize(&c, mat.SVDNone)
	s := svd.Values(nil)
	return 1 - s[len(s)-1]
}

// lsRelErr is the largest |got − want| over the largest |want|.
func lsRelErr(got, want mat.Matrix) float64 {
	var d mat.Dense
	d.Sub(got, want)
	return mat.Norm(&d, math.Inf(1)) / mat.Norm(want, math.Inf(1))
}

// lsEigErr is the largest relative error of the first len(got) values.
func lsEigErr(got, want []float64) float64 {
	e := 0.0
	for i := range min(len(got), len(want)) {
		e = max(e, math.Abs(got[i]-want[i])/math.Abs(want[i]))
	}
	return e
}

// TestLSBaseRembrandt holds rembrandt to numpy: with λ = 0.1 to the top
// eigenpairs of Zᵀ·Ĥ·Z with the N×N ridge hat matrix; with λ = 1e-9 to
// the exact SVD of Π_X·Z (QR of X). yeast's sketch (M + 10 ≥ q = 14) is
// exact; enron's (q = 53) is approximate and must reach the reference
// with enough power iterations.
func TestLSBaseRembrandt(t *testing.T) {
	ref, ins := lsLoad(t)
	for _, tc := range []struct {
		name, dataset string
		lambda        float64
		over, power   int
		projection    bool
		eig, sub      float64
	}{
		{"yeast/ridge", "yeast", 0.1, 10, 2, false, 1e-10, 1e-12},
		{"yeast/projection", "yeast", 1e-9, 10, 2, true, 1e-6, 1e-9},
		{"enron/ridge/power=2", "enron", 0.1, 10, 2, false, 0.05, 0.01}, // the default sketch: an approximation
		{"enron/ridge/power=12", "enron", 0.1, 10, 12, false, 1e-8, 1e-10},
		{"enron/projection/power=12", "enron", 1e-9, 10, 12, true, 1e-6, 1e-6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c lsCase
			for _, x := range ref.Cases {
				if x.Dataset == tc.dataset {
					c = x
				}
			}
			r := c.Rembrandt
			wantVals, wantDirs := r.Eigenvalues, r.Directions
			if tc.projection {
				wantVals, wantDirs = r.Projection.Eigenvalues, r.Projection.Directions
			}
			m, err := Fit(context.Background(), "rembrandt", ins[tc.dataset],
				Params{D: ref.M, Lambda: Float(tc.lambda), Oversample: Int(tc.over), PowerIters: Int(tc.power)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			want := lsCols(wantDirs)
			eig, sub := lsEigErr(m.Eigenvalues[:ref.M], wantVals), lsSubspaceGap(m.P(), want)
			t.Logf("eigenvalues %.2g relative, subspace 1 − cos θ %.2g, directions %.2g", eig, sub, lsRelErr(m.P(), want))
			if eig > tc.eig || sub > tc.sub {
				t.Errorf("got eigenvalue error %.3g, subspace gap %.3g; want ≤ %g, %g (numpy %s, lsbase.py)", eig, sub, tc.eig, tc.sub, ref.Software["numpy"])
			}
			if tc.sub <= 1e-9 {
				if e := lsRelErr(m.P(), want); e > 1e-6 {
					t.Errorf("directions differ by %.3g, want ≤ 1e-6", e)
				}
			}
		})
	}
	// More power iterations never take enron's sketch further from the
	// exact subspace.
	prev := math.Inf(1)
	var c lsCase
	for _, x := range ref.Cases {
		if x.Dataset == "enron" {
			c = x
		}
	}
	for _, power := range []int{0, 1, 2, 4, 8} {
		m, err := Fit(context.Background(), "rembrandt", ins["enron"], Params{D: ref.M, Oversample: Int(2), PowerIters: Int(power)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		gap := lsSubspaceGap(m.P(), lsCols(c.Rembrandt.Directions))
		if gap > prev*(1+1e-6)+1e-14 {
			t.Errorf("power_iters = %d: subspace gap %.3g, above %.3g with fewer", power, gap, prev)
		}
		prev = gap
	}
}

// TestLSBaseMLCSSP holds ML-CSSP's deterministic parts to numpy: the
// leverage probabilities (from numpy's SVD of Z), and for numpy's fixed
// column set the least-squares decoder Z_C⁺Z and the encoding errors of
// the first m columns.
func TestLSBaseMLCSSP(t *testing.T) {
	ref, ins := lsLoad(t)
	for _, c := range ref.Cases {
		if c.MLCSSP == nil {
			continue
		}
		t.Run(c.Dataset, func(t *testing.T) {
			r := c.MLCSSP
			in := ins[c.Dataset]
			ones := in.ones()
			m01 := labelMeans01(ones)
			e, err := labelSpectrum(context.Background(), in, ones, m01, Params{D: r.K}, stage{})
			if err != nil {
				t.Fatal(err)
			}
			p := leverageProbabilities(e.vectors, r.K)
			for i, want := range r.Probabilities {
				if math.Abs(p[i]-want) > 1e-10 {
					t.Errorf("p[%d] = %.12g, want %.12g", i, p[i], want)
				}
			}
			labels := newLabelSide(ones, m01)
			cols, enc, dec, codes, err := csspFromOrder(context.Background(), labels, r.Columns, r.K, stage{})
			if err != nil {
				t.Fatal(err)
			}
			for i, j := range cols {
				if j != r.Columns[i] {
					t.Fatalf("columns %v, want %v", cols, r.Columns)
				}
			}
			// The reconstruction operator z ↦ z·E·Decᵀ is S·(Z_C⁺Z).
			var got mat.Dense
			got.Mul(enc, dec.T())
			want := mat.NewDense(c.Q, c.Q, nil)
			for a, j := range r.Columns {
				want.SetRow(j, r.Decoder[a])
			}
			if e := lsRelErr(&got, want); e > 1e-10 {
				t.Errorf("E·Decᵀ differs from S·Z_C⁺Z by %.3g, want ≤ 1e-10", e)
			}
			z := labels.dense()
			for m := 1; m <= r.K; m++ {
				var rec, diff mat.Dense
				rec.Mul(codes.Slice(0, c.N, 0, m), dec.Slice(0, c.Q, 0, m).T())
				diff.Sub(z, &rec)
				f := mat.Norm(&diff, 2)
				if e := math.Abs(f*f-r.EncodingError[m-1]) / r.EncodingError[m-1]; e > 1e-10 {
					t.Errorf("m = %d: encoding error %.12g, want %.12g", m, f*f, r.EncodingError[m-1])
				}
			}
		})
	}
}

// TestLSBaseMLCSSPSampling: the draw is a weighted draw without
// replacement: over many generators, each column comes first with its
// probability (within 5 standard errors), and a fit is reproducible.
func TestLSBaseMLCSSPSampling(t *testing.T) {
	in := tuMultiLabel(41, 300, 6, 8)
	ones := in.ones()
	e, err := labelSpectrum(context.Background(), in, ones, labelMeans01(ones), Params{D: 3}, stage{})
	if err != nil {
		t.Fatal(err)
	}
	p := leverageProbabilities(e.vectors, 3)
	const draws = 20000
	first := make([]float64, len(p))
	for s := range draws {
		order := leverageOrder(e.vectors, 3, rand.New(rand.NewPCG(uint64(s), 9)))
		first[order[0]]++
	}
	for i, pi := range p {
		got := first[i] / draws
		if se := math.Sqrt(pi * (1 - pi) / draws); math.Abs(got-pi) > 5*se+1e-12 {
			t.Errorf("column %d first in %.4f of draws, want %.4f ± %.4f", i, got, pi, 5*se)
		}
	}
	a, _ := Fit(context.Background(), "mlcssp", in, Params{D: 3}, nil)
	b, _ := Fit(context.Background(), "mlcssp", in, Params{D: 3}, nil)
	if !mat.Equal(a.Basis, b.Basis) || a.Notes[0] != b.Notes[0] {
		t.Error("two fits of the same data chose differently")
	}
}

// TestLSBaseFaIE holds faie to numpy's N×N eigen-decomposition of
// Ω = ZZᵀ + α·X(XᵀX + λI)⁻¹Xᵀ: eigenvalues, the decoder ZᵀV (each column
// and its span) and the first rows of the codes V.
func TestLSBaseFaIE(t *testing.T) {
	ref, ins := lsLoad(t)
	for _, c := range ref.Cases {
		if c.FaIE == nil {
			continue
		}
		t.Run(c.Dataset, func(t *testing.T) {
			r := c.FaIE
			m, err := Fit(context.Background(), "faie", ins[c.Dataset], Params{D: ref.M, Alpha: Float(r.Alpha), Lambda: Float(r.Lambda)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			want := lsCols(r.Decoder)
			dec := m.Decoding()
			eig, sub, col := lsEigErr(m.Eigenvalues[:ref.M], r.Eigenvalues), lsSubspaceGap(dec, want), lsRelErr(dec, want)
			head := lsRelErr(m.Projected.Slice(0, 20, 0, ref.M), lsCols(r.CodesHead))
			t.Logf("eigenvalues %.2g, decoder subspace %.2g, columns %.2g, codes %.2g", eig, sub, col, head)
			if eig > 1e-9 || sub > 1e-12 || col > 1e-8 || head > 1e-8 {
				t.Errorf("got errors %.3g (eigenvalues), %.3g (decoder span), %.3g (decoder), %.3g (codes); want ≤ 1e-9, 1e-12, 1e-8, 1e-8", eig, sub, col, head)
			}
		})
	}
}

// TestLSBaseLEML holds leml to numpy's own alternating least squares
// (another start, scipy's Sylvester solver): the final objective and
// W = UVᵀ; and checks the sweeps: J never rises, and the result is a fixed
// point (one more sweep moves U and V by little).
func TestLSBaseLEML(t *testing.T) {
	ref, ins := lsLoad(t)
	for _, c := range ref.Cases {
		if c.LEML == nil {
			continue
		}
		t.Run(c.Dataset, func(t *testing.T) {
			r := c.LEML
			in := ins[c.Dataset]
			m, err := Fit(context.Background(), "leml", in, Params{D: r.M, Lambda: Float(r.Lambda), Iterations: 20000}, nil)
			if err != nil {
				t.Fatal(err)
			}
			var w mat.Dense
			w.Mul(m.regressor, m.Basis.T())
			if e := lsRelErr(&w, lsCols(r.W)); e > 1e-5 {
				t.Errorf("W = UVᵀ differs from numpy's by %.3g, want ≤ 1e-5", e)
			} else {
				t.Logf("W agrees to %.2g", e)
			}
			// the sweeps themselves, from explicit G, C and ‖Z‖²
			xc := tuCentred(in.X)
			z := newLabelSide(in.ones(), labelMeans01(in.ones())).dense()
			var gd, cm mat.Dense
			gd.Mul(xc.T(), xc)
			cm.Mul(xc.T(), z)
			g := mat.NewSymDense(c.D, nil)
			for i := range c.D {
				for j := i; j < c.D; j++ {
					g.SetSym(i, j, gd.At(i, j))
				}
			}
			zn := mat.Norm(z, 2)
			fit, err := lemlALS(context.Background(), g, &cm, zn*zn, r.Lambda, r.M, 20000, stage{})
			if err != nil {
				t.Fatal(err)
			}
			js := fit.objective
			if e := math.Abs(js[len(js)-1]-r.Objective) / r.Objective; e > 1e-10 {
				t.Errorf("J = %.15g, want %.15g (relative error %.3g)", js[len(js)-1], r.Objective, e)
			}
			for i := 1; i < len(js); i++ {
				if js[i] > js[i-1]*(1+1e-13) {
					t.Fatalf("J rose at sweep %d: %.15g after %.15g", i, js[i], js[i-1])
				}
			}
			// J from the explicit residual equals the statistics' J.
			var pred, res mat.Dense
			pred.Mul(xc, fit.u)
			res.Mul(&pred, fit.v.T())
			res.Sub(z, &res)
			rn, un, vn := mat.Norm(&res, 2), mat.Norm(fit.u, 2), mat.Norm(fit.v, 2)
			explicit := rn*rn + r.Lambda/2*(un*un+vn*vn)
			if e := math.Abs(explicit-js[len(js)-1]) / explicit; e > 1e-10 {
				t.Errorf("J from the statistics %.15g, from the residual %.15g", js[len(js)-1], explicit)
			}
			// One more sweep, in G's eigenbasis as the sweeps run.
			u0, v0 := mat.DenseCopyOf(fit.u), mat.DenseCopyOf(fit.v)
			eg, err := symEig(context.Background(), g)
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range eg.values {
				eg.values[i] = max(v, 0)
			}
			var ct, ut mat.Dense
			ct.Mul(eg.vectors.T(), &cm)
			ut.Mul(eg.vectors.T(), fit.u)
			var cv mat.Dense
			cv.Mul(&ct, fit.v)
			lemlStepU(eg.values, &cv, fit.v, r.Lambda/2, &ut)
			if err := lemlStepV(&ct, &ut, lemlUGU(eg.values, &ut), r.Lambda/2, fit.v); err != nil {
				t.Fatal(err)
			}
			fit.u.Mul(eg.vectors, &ut)
			du, dv := lsRelErr(fit.u, u0), lsRelErr(fit.v, v0)
			t.Logf("%d sweeps; one more moves U by %.2g, V by %.2g", len(js), du, dv)
			if du > 1e-6 || dv > 1e-6 {
				t.Errorf("not a fixed point: one more sweep moves U by %.3g, V by %.3g (want ≤ 1e-6)", du, dv)
			}
		})
	}
}

// TestLSBaseRefusals: the baselines' parameters out of range, a parameter
// a method does not take, and M above what the method can give are
// refused with the parameter named and its kind (400 invalid, 422
// unservable).
func TestLSBaseRefusals(t *testing.T) {
	in := tuMultiLabel(43, 60, 5, 4)
	for _, tc := range []struct {
		method string
		p      Params
		param  string
		kind   ErrorKind
		msg    string
	}{
		{"faie", Params{Alpha: Float(-1)}, ParamAlpha, Invalid, "alpha must be 0 or more"},
		{"rembrandt", Params{Oversample: Int(-1)}, ParamOversample, Invalid, "oversample must be in 0…1000"},
		{"rembrandt", Params{PowerIters: Int(1001)}, ParamPowerIters, Invalid, "power_iters must be in 0…1000"},
		{"leml", Params{Iterations: -2}, ParamIterations, Invalid, "iterations must be in 1…100000"},
		{"leml", Params{Alpha: Float(1)}, ParamAlpha, Invalid, "leml does not take the parameter alpha"},
		{"mlcssp", Params{PowerIters: Int(1)}, ParamPowerIters, Invalid, "mlcssp does not take"},
		{"rembrandt", Params{D: 5}, ParamD, Unservable, "M = 5 is above 4"},
		{"leml", Params{D: 5}, ParamD, Unservable, "M = 5 is above 4"},
		{"mlcssp", Params{D: 5}, ParamD, Unservable, ""},
	} {
		t.Run(tc.method+"/"+tc.param, func(t *testing.T) {
			_, err := Fit(context.Background(), tc.method, in, tc.p, nil)
			var e *Error
			if !errors.As(err, &e) || e.Param != tc.param || e.Kind != tc.kind || !strings.Contains(e.Msg, tc.msg) {
				t.Errorf("got %v, want a %v error on %s saying %q", err, tc.kind, tc.param, tc.msg)
			}
		})
	}
}

// TestLSBaseChoose: a fit of mlcssp, rembrandt or leml serves Choose only
// at its own M (the cache then reuses it for the same request), since at
// another M a fresh fit differs by design; faie's, a decomposition, is
// cut like the other methods'.
func TestLSBaseChoose(t *testing.T) {
	in := tuMultiLabel(44, 80, 6, 5)
	for _, tc := range []struct {
		method string
		reuse  bool
	}{{"mlcssp", false}, {"rembrandt", false}, {"leml", false}, {"faie", true}} {
		t.Run(tc.method, func(t *testing.T) {
			m := fit(t, tc.method, in, Params{D: 3})
			if same, err := m.Choose(Params{D: 3}); err != nil || !mat.Equal(same.P(), m.P()) {
				t.Errorf("Choose at its own M: %v", err)
			}
			if _, err := m.Choose(Params{D: 2}); (err == nil) != tc.reuse {
				t.Errorf("Choose(d = 2): got error %v, want reuse %v", err, tc.reuse)
			}
		})
	}
}
