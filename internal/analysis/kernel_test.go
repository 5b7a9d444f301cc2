package analysis

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/sparse"
)

// kernelRef is testdata/ref/kernel.json, written by kernel.py (same
// folder) with scikit-learn's KernelPCA and numpy from the dual equations.
type kernelRef struct {
	Software map[string]string `json:"software"`
	XTrain   [][]float64       `json:"x_train"`
	YTrain   [][]float64       `json:"y_train"`
	XTest    [][]float64       `json:"x_test"`
	KPCA     []kernelRefCase   `json:"kpca"`
	KMDDM    []kernelRefCase   `json:"kmddm"`
}

// kernelRefCase is one kernel's reference: eigenvalues, and the projected
// training and test rows as columns.
type kernelRefCase struct {
	Params      map[string]any `json:"params"`
	LabelKernel string         `json:"label_kernel"`
	Eigenvalues []float64      `json:"eigenvalues"`
	Train       [][]float64    `json:"train"`
	Test        [][]float64    `json:"test"`
}

func readKernelRef(t *testing.T) kernelRef {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "ref", "kernel.json"))
	if err != nil {
		t.Fatalf("reading the kernel reference (regenerate with /usr/bin/python3 testdata/ref/kernel.py): %v", err)
	}
	var r kernelRef
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("decoding kernel.json: %v", err)
	}
	return r
}

// rowsMatrix turns rows into a matrix.
func rowsMatrix(rows [][]float64) *mat.Dense {
	m := mat.NewDense(len(rows), len(rows[0]), nil)
	for i, r := range rows {
		m.SetRow(i, r)
	}
	return m
}

// colsMatrix turns columns into a matrix.
func colsMatrix(cols [][]float64) *mat.Dense {
	m := mat.NewDense(len(cols[0]), len(cols), nil)
	for j, c := range cols {
		m.SetCol(j, c)
	}
	return m
}

// refParams are a reference case's kernel parameters as Params.
func refParams(c kernelRefCase) Params {
	p := Params{Kernel: c.Params["kernel"].(string)}
	if g, ok := c.Params["gamma"].(float64); ok {
		p.Gamma = Float(g)
	}
	if d, ok := c.Params["degree"].(float64); ok {
		p.Degree = int(d)
	}
	if c0, ok := c.Params["coef0"].(float64); ok {
		p.Coef0 = Float(c0)
	}
	return p
}

// maxColDiff is the largest |got − want| over the first k columns, each
// matched up to sign, relative to the largest |want| of its column.
func maxColDiff(got, want mat.Matrix, k int) float64 {
	r, _ := want.Dims()
	worst := 0.0
	for c := range k {
		scale, dot := 0.0, 0.0
		for i := range r {
			scale = math.Max(scale, math.Abs(want.At(i, c)))
			dot += got.At(i, c) * want.At(i, c)
		}
		sign := math.Copysign(1, dot)
		for i := range r {
			worst = math.Max(worst, math.Abs(sign*got.At(i, c)-want.At(i, c))/scale)
		}
	}
	return worst
}

// TestKernelGolden fits kpca and kmddm on kernel.json's data and compares
// eigenvalues and the projections of training and test rows (each column
// up to sign; every reference eigenvalue is apart from its neighbours by
// more than 1e-4 of the largest) with scikit-learn 1.2's KernelPCA and
// numpy 1.24's solution of the dual KHLHKα = λKα (kernel.py).
func TestKernelGolden(t *testing.T) {
	ref := readKernelRef(t)
	x, xte := rowsMatrix(ref.XTrain), rowsMatrix(ref.XTest)
	in := Input{X: x, Y: rowsMatrix(ref.YTrain)}
	src := fmt.Sprintf("kernel.py, numpy %s, sklearn %s", ref.Software["numpy"], ref.Software["sklearn"])
	type tc struct {
		id string
		c  kernelRefCase
	}
	var cases []tc
	for _, c := range ref.KPCA {
		cases = append(cases, tc{"kpca", c})
	}
	for _, c := range ref.KMDDM {
		cases = append(cases, tc{"kmddm", c})
	}
	const eigTol, projTol = 1e-9, 1e-7
	for _, c := range cases {
		name := fmt.Sprintf("%s/%s", c.id, c.c.Params["kernel"])
		if c.c.LabelKernel != "" {
			name += "/labels=" + c.c.LabelKernel
		}
		t.Run(name, func(t *testing.T) {
			k := len(c.c.Eigenvalues)
			for j := 1; j < k; j++ {
				if gap := c.c.Eigenvalues[j-1] - c.c.Eigenvalues[j]; gap < 1e-4*c.c.Eigenvalues[0] {
					t.Fatalf("reference eigenvalues %d and %d are %g apart: compare subspaces instead", j-1, j, gap)
				}
			}
			p := refParams(c.c)
			p.D = k
			if c.c.LabelKernel != "linear" {
				p.LabelKernel = c.c.LabelKernel
			}
			m, err := Fit(context.Background(), c.id, in, p, nil)
			if err != nil {
				t.Fatalf("Fit: %v", err)
			}
			worst := 0.0
			for j, want := range c.c.Eigenvalues {
				rel := math.Abs(m.Eigenvalues[j]-want) / want
				worst = math.Max(worst, rel)
				if rel > eigTol {
					t.Errorf("eigenvalue %d: got %.15g, want %.15g (relative error %.2g > %g; %s)", j, m.Eigenvalues[j], want, rel, eigTol, src)
				}
			}
			if d := maxColDiff(m.Projected, colsMatrix(c.c.Train), k); d > projTol {
				t.Errorf("training rows: largest difference %.3g of a column's scale, want ≤ %g (%s)", d, projTol, src)
			}
			zte, err := m.Transform(xte)
			if err != nil {
				t.Fatalf("Transform: %v", err)
			}
			if d := maxColDiff(zte, colsMatrix(c.c.Test), k); d > projTol {
				t.Errorf("test rows: largest difference %.3g of a column's scale, want ≤ %g (%s)", d, projTol, src)
			}
			t.Logf("%d eigenvalues within %.2g relative, training rows %.2g, test rows %.2g of a column's scale",
				k, worst, maxColDiff(m.Projected, colsMatrix(c.c.Train), k), maxColDiff(zte, colsMatrix(c.c.Test), k))
		})
	}
}

// kernelInput is seeded multi-label data with n rows of d features, and
// test rows from the same distribution.
func kernelInput(n, d int) (Input, *mat.Dense) {
	in := tuMultiLabel(41, n+40, d, 5)
	x := mat.DenseCopyOf(in.X.Slice(0, n, 0, d))
	y := mat.DenseCopyOf(in.Y.Slice(0, n, 0, 5))
	return Input{X: x, Y: y}, mat.DenseCopyOf(in.X.Slice(n, n+40, 0, d))
}

// kernelCases are the kernels the identities are checked with.
var kernelCases = []Params{
	{Kernel: KernelRBF},
	{Kernel: KernelRBF, Gamma: Float(0.05)},
	{Kernel: KernelPoly, Degree: 2, Coef0: Float(0.5)},
	{Kernel: KernelLinear},
}

func kernelName(p Params) string {
	s := p.Kernel
	if p.Gamma != nil {
		s += fmt.Sprintf(",gamma=%v", *p.Gamma)
	}
	if p.Degree != 0 {
		s += fmt.Sprintf(",degree=%d", p.Degree)
	}
	if p.Landmarks != 0 {
		s += fmt.Sprintf(",landmarks=%d", p.Landmarks)
	}
	return s
}

// TestKernelOutOfSample: the training rows projected through the
// out-of-sample path (Transform: their kernel rows, centred with the
// training kernel's column means) equal their in-sample projection, for
// both methods, every kernel, the exact dual and Nyström; sparse rows
// project as the same rows dense.
func TestKernelOutOfSample(t *testing.T) {
	in, _ := kernelInput(90, 6)
	for _, id := range []string{"kpca", "kmddm"} {
		for _, kp := range kernelCases {
			for _, m := range []int{0, 30, 90} {
				p := kp
				p.D, p.Landmarks = 3, m
				t.Run(id+"/"+kernelName(p), func(t *testing.T) {
					model, err := Fit(context.Background(), id, in, p, nil)
					if err != nil {
						t.Fatalf("Fit: %v", err)
					}
					got, err := model.Transform(in.X)
					if err != nil {
						t.Fatalf("Transform: %v", err)
					}
					scale := mat.Norm(model.Projected, math.Inf(1))
					if d := maxAbsDiff(got, model.Projected); d > 1e-10*scale {
						t.Errorf("Transform of the training rows differs from Projected by %.3g (scale %.3g)", d, scale)
					}
					sp, err := model.Transform(sparse.FromDense(in.X))
					if err != nil {
						t.Fatalf("Transform of sparse rows: %v", err)
					}
					if !mat.Equal(sp, got) {
						t.Error("sparse rows projected to other numbers than the same rows dense")
					}
				})
			}
		}
	}
}

func maxAbsDiff(a, b mat.Matrix) float64 {
	r, c := a.Dims()
	worst := 0.0
	for i := range r {
		for j := range c {
			worst = math.Max(worst, math.Abs(a.At(i, j)-b.At(i, j)))
		}
	}
	return worst
}

// TestKernelLinearIdentities: with the linear kernel, kmddm projects the
// rows (training and new) as mddmp does with every label kernel, and kpca
// as pca, with the same eigenvalues: K = XXᵀ makes the dual the primal
// problem. Exact dual and Nyström with every row a landmark.
func TestKernelLinearIdentities(t *testing.T) {
	in, xte := kernelInput(80, 7)
	for _, tc := range []struct {
		kernel, linear string
		p              Params
	}{
		{"kmddm", "mddmp", Params{D: 4}},
		{"kmddm", "mddmp", Params{D: 4, LabelKernel: KernelQuadratic}},
		{"kmddm", "mddmp", Params{D: 4, LabelKernel: KernelRBF}},
		{"kpca", "pca", Params{D: 5}},
	} {
		for _, m := range []int{0, 80} {
			t.Run(fmt.Sprintf("%s=%s/%s/landmarks=%d", tc.kernel, tc.linear, tc.p.LabelKernel, m), func(t *testing.T) {
				kp := tc.p
				kp.Kernel, kp.Landmarks = KernelLinear, m
				km, err := Fit(context.Background(), tc.kernel, in, kp, nil)
				if err != nil {
					t.Fatalf("Fit(%s): %v", tc.kernel, err)
				}
				lm, err := Fit(context.Background(), tc.linear, in, tc.p, nil)
				if err != nil {
					t.Fatalf("Fit(%s): %v", tc.linear, err)
				}
				tuCloseValues(t, "eigenvalues", km.Eigenvalues, lm.Eigenvalues, tc.p.D, 1e-10)
				tuSameColumns(t, "training rows", km.Projected, lm.Projected, tc.p.D, 1e-9)
				kt, err := km.Transform(xte)
				if err != nil {
					t.Fatal(err)
				}
				lt, err := lm.Transform(xte)
				if err != nil {
					t.Fatal(err)
				}
				tuSameColumns(t, "new rows", kt, lt, tc.p.D, 1e-9)
			})
		}
	}
}

// TestNystromAllRowsIsExact: Nyström with every row a landmark gives the
// exact dual's eigenvalues and projections of training and new rows.
func TestNystromAllRowsIsExact(t *testing.T) {
	in, xte := kernelInput(100, 6)
	for _, id := range []string{"kpca", "kmddm"} {
		for _, kp := range kernelCases {
			t.Run(id+"/"+kernelName(kp), func(t *testing.T) {
				p := kp
				p.D = 3
				exact, err := Fit(context.Background(), id, in, p, nil)
				if err != nil {
					t.Fatalf("exact: %v", err)
				}
				p.Landmarks = 100
				ny, err := Fit(context.Background(), id, in, p, nil)
				if err != nil {
					t.Fatalf("Nyström: %v", err)
				}
				if exact.Kernel == nil || len(exact.Kernel.Index) != 100 || ny.Kernel == nil || len(ny.Kernel.Index) != 100 {
					t.Fatal("want 100 basis rows from both routes")
				}
				tuCloseValues(t, "eigenvalues", ny.Eigenvalues, exact.Eigenvalues, 3, 1e-9)
				tuSameColumns(t, "training rows", ny.Projected, exact.Projected, 3, 1e-7)
				a, err := ny.Transform(xte)
				if err != nil {
					t.Fatal(err)
				}
				b, err := exact.Transform(xte)
				if err != nil {
					t.Fatal(err)
				}
				tuSameColumns(t, "new rows", a, b, 3, 1e-7)
			})
		}
	}
}

// TestNystromSeeded: the landmarks, and so the fit, follow the seed: the
// same seed gives the same numbers, another seed other landmarks; both
// samplings. Fewer landmarks approximate the exact dual's leading
// eigenvalue.
func TestNystromSeeded(t *testing.T) {
	in, _ := kernelInput(150, 6)
	for _, id := range []string{"kpca", "kmddm"} {
		for _, how := range []string{SamplingKMeansPP, SamplingUniform} {
			t.Run(id+"/"+how, func(t *testing.T) {
				fit := func(seed uint64) *Model {
					p := Params{D: 2, Landmarks: 40, LandmarkSampling: how, LandmarkSeed: &seed}
					m, err := Fit(context.Background(), id, in, p, nil)
					if err != nil {
						t.Fatalf("Fit: %v", err)
					}
					return m
				}
				a, b, c := fit(7), fit(7), fit(8)
				if !mat.Equal(a.Projected, b.Projected) || !mat.Equal(a.Basis, b.Basis) || fmt.Sprint(a.Kernel.Index) != fmt.Sprint(b.Kernel.Index) {
					t.Error("the same seed gave other landmarks or numbers")
				}
				if fmt.Sprint(a.Kernel.Index) == fmt.Sprint(c.Kernel.Index) {
					t.Errorf("seeds 7 and 8 chose the same landmarks %v", a.Kernel.Index)
				}
				if len(a.Kernel.Index) != 40 || *a.Params.LandmarkSeed != 7 || a.Params.Landmarks != 40 || a.Params.LandmarkSampling != how {
					t.Errorf("got %d landmarks and params %+v, want 40 landmarks by %s, seed 7", len(a.Kernel.Index), a.Params, how)
				}
				seen := map[int]bool{}
				for _, i := range a.Kernel.Index {
					if seen[i] || i < 0 || i >= 150 {
						t.Fatalf("landmark %d repeated or out of range", i)
					}
					seen[i] = true
				}
				exact, err := Fit(context.Background(), id, in, Params{D: 2}, nil)
				if err != nil {
					t.Fatal(err)
				}
				if rel := math.Abs(a.Eigenvalues[0]-exact.Eigenvalues[0]) / exact.Eigenvalues[0]; rel > 0.1 {
					t.Errorf("leading eigenvalue %.6g with 40 landmarks, %.6g exact: relative difference %.2g > 0.1", a.Eigenvalues[0], exact.Eigenvalues[0], rel)
				}
			})
		}
	}
}

// TestKernelRefusals: every refusal of the kernel parameters, with its
// parameter.
func TestKernelRefusals(t *testing.T) {
	in, _ := kernelInput(60, 4)
	seed := uint64(3)
	for _, tc := range []struct {
		id    string
		p     Params
		param string
	}{
		{"kpca", Params{Kernel: "sigmoid"}, ParamKernel},
		{"kpca", Params{Kernel: KernelLinear, Gamma: Float(1)}, ParamGamma},
		{"kpca", Params{Degree: 2}, ParamDegree},
		{"kmddm", Params{Kernel: KernelRBF, Coef0: Float(1)}, ParamCoef0},
		{"kpca", Params{Kernel: KernelPoly, Coef0: Float(-1)}, ParamCoef0},
		{"kpca", Params{Kernel: KernelPoly, Degree: 11}, ParamDegree},
		{"kpca", Params{Kernel: KernelPoly, Degree: -1}, ParamDegree},
		{"kpca", Params{Gamma: Float(0)}, ParamGamma},
		{"kpca", Params{Landmarks: 61}, ParamLandmarks},
		{"kpca", Params{Landmarks: -2}, ParamLandmarks},
		{"kmddm", Params{Landmarks: MaxLandmarks + 1}, ParamLandmarks},
		{"kpca", Params{Landmarks: 20, LandmarkSampling: "random"}, ParamLandmarkSampling},
		{"kpca", Params{LandmarkSeed: &seed}, ParamLandmarkSeed},
		{"kmddm", Params{LandmarkSampling: SamplingUniform}, ParamLandmarkSampling},
		{"kmddm", Params{LabelKernel: "cosine"}, ParamLabelKernel},
		{"kpca", Params{LabelKernel: KernelLinear}, ParamLabelKernel},
	} {
		t.Run(fmt.Sprintf("%s/%s", tc.id, tc.param), func(t *testing.T) {
			_, err := Fit(context.Background(), tc.id, in, tc.p, nil)
			var e *Error
			if !errors.As(err, &e) || e.Param != tc.param {
				t.Fatalf("Fit(%+v): got %v, want a refusal of %s", tc.p, err, tc.param)
			}
		})
	}
}

// TestKernelCheck: Check, before any data are read, refuses what the
// shape tells: more landmarks than rows or than MaxLandmarks, a d beyond
// the rows, the landmarks (the default ones above MaxNKernelExact rows),
// the linear kernel's D or kmddm's label columns; with the largest value
// allowed.
func TestKernelCheck(t *testing.T) {
	big := Shape{N: MaxNKernelExact + 2000, D: 10, Q: 3}
	small := Shape{N: 100, D: 10, Q: 3}
	for _, tc := range []struct {
		id    string
		p     Params
		s     Shape
		param string // "": accepted
		max   int
	}{
		{"kpca", Params{D: 99}, small, "", 0},
		{"kpca", Params{D: 100}, small, ParamD, 99},
		{"kpca", Params{D: DefaultLandmarks}, big, "", 0},
		{"kpca", Params{D: DefaultLandmarks + 1}, big, ParamD, DefaultLandmarks},
		{"kpca", Params{D: 1500, Landmarks: 2000}, big, "", 0},
		{"kpca", Params{D: 11, Kernel: KernelLinear}, small, ParamD, 10},
		{"kmddm", Params{D: 4}, small, ParamD, 3},
		{"kmddm", Params{D: 6, LabelKernel: KernelQuadratic}, small, "", 0},
		{"kpca", Params{Landmarks: 101}, small, ParamLandmarks, 100},
		{"kmddm", Params{Landmarks: MaxLandmarks + 1}, big, ParamLandmarks, MaxLandmarks},
	} {
		t.Run(fmt.Sprintf("%s/%+v/N=%d", tc.id, tc.p, tc.s.N), func(t *testing.T) {
			err := Check(tc.id, tc.p, tc.s)
			if tc.param == "" {
				if err != nil {
					t.Fatalf("got %v, want accepted", err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) || e.Param != tc.param || e.Max != tc.max {
				t.Fatalf("got %v, want a refusal of %s with the largest value %d", err, tc.param, tc.max)
			}
		})
	}
}

// TestKernelConstantRows: rows that are all the same have a centred
// kernel of 0: every route refuses with a sentence, never a NaN model.
func TestKernelConstantRows(t *testing.T) {
	in, _ := kernelInput(40, 3)
	in.X = mat.NewDense(40, 3, nil)
	for i := range 40 {
		in.X.SetRow(i, []float64{1, 2, 3})
	}
	for _, id := range []string{"kpca", "kmddm"} {
		for _, p := range []Params{{D: 1}, {D: 1, Kernel: KernelPoly}, {D: 1, Kernel: KernelLinear}, {D: 1, Landmarks: 10}, {D: 1, Kernel: KernelPoly, Landmarks: 10}} {
			t.Run(id+"/"+kernelName(p), func(t *testing.T) {
				_, err := Fit(context.Background(), id, in, p, nil)
				var e *Error
				if !errors.As(err, &e) || e.Kind != Unservable || !strings.Contains(e.Msg, "gives no direction") {
					t.Fatalf("got %v, want a refusal: no direction", err)
				}
			})
		}
	}
}
