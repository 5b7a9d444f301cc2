package analysis

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/sparse"
)

func TestValidation(t *testing.T) {
	ml := tuMultiLabel(41, 60, 6, 4)
	md := tuMultiDim(41, 60, 6, []int{3, 2})
	nan := tuMultiLabel(41, 60, 6, 4)
	nan.X.Set(5, 2, math.NaN())
	one := tuMultiLabel(41, 1, 6, 4)
	// Labels in CSR form: both forms given, a stored 2, class variables.
	both := tuMultiLabel(41, 60, 6, 4)
	both.Labels = sparse.FromDense(both.Y)
	two := tuMultiLabel(41, 60, 6, 4)
	two.Y.Set(7, 1, 2)
	two.Labels, two.Y = sparse.FromDense(two.Y), nil
	mdSparse := tuMultiDim(41, 60, 6, []int{3, 2})
	mdSparse.Labels, mdSparse.Y = sparse.FromDense(mdSparse.Y), nil
	short := tuMultiLabel(41, 60, 6, 4)
	short.Labels, short.Y = sparse.FromDense(short.Y).RowRange(0, 59), nil
	tests := []struct {
		name   string
		method string
		in     Input
		p      Params
		kind   ErrorKind
		param  string
		max    int
		phrase string
	}{
		{"unknown method", "tsne", ml, Params{}, Invalid, "method", 0, "unknown method"},
		{"d and thr", "pca", ml, Params{D: 2, Thr: 0.9}, Invalid, ParamD, 0, "not both"},
		{"thr above 1", "pca", ml, Params{Thr: 1.5}, Invalid, ParamThr, 0, "(0, 1]"},
		{"thr negative", "pca", ml, Params{Thr: -0.2}, Invalid, ParamThr, 0, "(0, 1]"},
		{"negative d", "pca", ml, Params{D: -1}, Invalid, ParamD, 0, "at least 1"},
		{"d above the rank", "mddmp", ml, Params{D: 5}, Unservable, ParamD, 4, "largest d mddmp can give on these data is 4"},
		{"d above D", "pca", ml, Params{D: 7}, Unservable, ParamD, 6, "is 6"},
		{"sdem d above ΣK−q", "sdem", md, Params{D: 4}, Unservable, ParamD, 3, "is 3"},
		{"beta above 1", "mvmd", ml, Params{Beta: Float(1.5)}, Invalid, ParamBeta, 0, "[0, 1]"},
		{"beta negative", "mlsi", ml, Params{Beta: Float(-0.1)}, Invalid, ParamBeta, 0, "[0, 1]"},
		{"mddmf beta 1", "mddmf", ml, Params{Beta: Float(1)}, Invalid, ParamBeta, 0, "singular"},
		{"gamma zero", "mddmp", ml, Params{LabelKernel: KernelRBF, Gamma: Float(0)}, Invalid, ParamGamma, 0, "greater than 0"},
		{"gamma with a linear kernel", "mddmp", ml, Params{Gamma: Float(1)}, Invalid, ParamGamma, 0, "rbf label kernel"},
		{"unknown label kernel", "mddmp", ml, Params{LabelKernel: "cubic"}, Invalid, ParamLabelKernel, 0, "linear, quadratic or rbf"},
		{"negative ridge", "cca", ml, Params{Ridge: Float(-1)}, Invalid, ParamRidge, 0, "0 or more"},
		{"infinite ridge", "mlsi", ml, Params{Ridge: Float(math.Inf(1))}, Invalid, ParamRidge, 0, "finite"},
		{"a parameter the method does not take", "pca", ml, Params{Beta: Float(0.5)}, Invalid, ParamBeta, 0, "does not take"},
		{"sdem on multi-label data", "sdem", ml, Params{}, Unservable, "method", 0, "needs multi-dimensional"},
		{"mddmp on multi-dimensional data", "mddmp", md, Params{}, Unservable, "method", 0, "sdem is MDDM"},
		{"mvmd on multi-dimensional data", "mvmd", md, Params{}, Unservable, "method", 0, "needs multi-label"},
		{"one row", "pca", one, Params{}, Unservable, "", 0, "at least 2 rows"},
		{"NaN in the features", "pca", nan, Params{}, Invalid, "", 0, "finite"},
		{"labels dense and sparse", "pca", both, Params{}, Invalid, "", 0, "labels are given both dense and sparse"},
		{"a sparse label of 2", "mddmp", two, Params{}, Invalid, "", 0, "label 2 of row 8 is 2"},
		{"sparse class variables", "sdem", mdSparse, Params{}, Invalid, "", 0, "class variables cannot be given as sparse labels"},
		{"sparse labels of fewer rows", "plst", short, Params{}, Invalid, "", 0, "the features have 60 rows but the labels 59"},
		{"lpp k above its cap", "lpp", ml, Params{K: 500}, Invalid, ParamK, 0, "at most 200"},
		{"lda d above classes − 1", "lda", md, Params{D: 3}, Unservable, ParamD, 2, "number of classes − 1"},
		{"unknown normalize", "mlsi", ml, Params{Normalize: "l2"}, Invalid, ParamNormalize, 0, `normalize must be unit (unit-length directions) or b (B-orthonormal directions, PᵀBP = I), not "l2"`},
		{"mddmf takes no normalize", "mddmf", ml, Params{Normalize: NormalizeUnit}, Invalid, ParamNormalize, 0, "mddmf does not take the parameter normalize"},
		{"pca takes no normalize", "pca", ml, Params{Normalize: NormalizeB}, Invalid, ParamNormalize, 0, "pca does not take the parameter normalize"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Fit(context.Background(), tc.method, tc.in, tc.p, nil)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v, want an *Error", err)
			}
			if e.Kind != tc.kind || e.Param != tc.param || e.Max != tc.max {
				t.Errorf("got kind %d param %q max %d, want %d %q %d (%v)", e.Kind, e.Param, e.Max, tc.kind, tc.param, tc.max, err)
			}
			if !strings.Contains(err.Error(), tc.phrase) {
				t.Errorf("got %q, want it to contain %q", err, tc.phrase)
			}
		})
	}
}

func TestParamsOnly(t *testing.T) {
	p := Params{D: 3, Beta: Float(0.2), Gamma: Float(2), LabelKernel: KernelRBF, K: 5}
	pca, _ := Lookup("pca")
	if got := p.Only(pca.Takes).Given(); strings.Join(got, ",") != "d" {
		t.Errorf("pca keeps %v, want d", got)
	}
	mddmp, _ := Lookup("mddmp")
	if got := p.Only(mddmp.Takes).Given(); strings.Join(got, ",") != "d,gamma,label_kernel" {
		t.Errorf("mddmp keeps %v", got)
	}
}

// scanDense finds the first NaN or infinity in row order wherever it is:
// in either worker's rows, in the sums' tails, or nowhere; and, when there
// is none, each column's largest magnitude and its mean, the latter to the
// bit what meansOfColumns gives (the statistics use either).
func TestScanDense(t *testing.T) {
	tests := []struct {
		n, d, i, j int
		v          float64
	}{
		{3, 1, -1, -1, 0},
		{5000, 7, 0, 0, math.NaN()},
		{5000, 7, 4999, 6, math.Inf(1)},
		{5000, 9, 2600, 8, math.Inf(-1)},
		{2, 4, 1, 3, math.NaN()},
		{9000, 5, -1, -1, 0},
		{13000, 3, 12000, 1, math.NaN()},
		{13000, 3, 5000, 2, math.Inf(1)},
		{20000, 11, -1, -1, 0},
	}
	for _, tc := range tests {
		x := mat.NewDense(tc.n, tc.d, nil)
		for i := range tc.n {
			for j := range tc.d {
				x.Set(i, j, float64(i-j)*1e300+float64(i%7)/3)
			}
		}
		if tc.i >= 0 {
			x.Set(tc.i, tc.j, tc.v)
			x.Set(tc.n-1, 0, math.NaN()) // a later one must not be reported instead
			if tc.i == tc.n-1 {
				x.Set(tc.n-1, 0, 1)
			}
		}
		maxAbs, mean, i, j, ok := scanDense(x.RawMatrix())
		if ok != (tc.i < 0) || (!ok && (i != tc.i || j != tc.j)) {
			t.Errorf("%+v: got (%d, %d, %v)", tc, i, j, ok)
		}
		if ok {
			for c := range tc.d {
				want := 0.0
				for r := range tc.n {
					want = math.Max(want, math.Abs(x.At(r, c)))
				}
				if maxAbs[c] != want {
					t.Errorf("%+v: column %d's largest magnitude %v, want %v", tc, c, maxAbs[c], want)
				}
			}
			want, err := meansOfColumns(context.Background(), x.RawMatrix(), stage{})
			if err != nil {
				t.Fatal(err)
			}
			for c := range tc.d {
				if math.Float64bits(mean[c]) != math.Float64bits(want[c]) {
					t.Errorf("%+v: column %d's mean %v, meansOfColumns %v", tc, c, mean[c], want[c])
				}
			}
		}
	}
}
