package analysis

import (
	"context"
	"errors"
	"testing"
)

// The structural bound is never below what a fit gives, for every method.
func TestCheckBoundCoversRank(t *testing.T) {
	for _, m := range Methods() {
		for _, p := range []Params{{}, {LabelKernel: KernelQuadratic}, {Beta: Float(1)}} {
			if Check(m.ID, p, Shape{N: 150, D: 8, Q: 5}) != nil && Check(m.ID, p, Shape{N: 150, D: 8, Q: 3, Classes: []int{3, 4, 2}}) != nil {
				continue // these parameters do not apply to this method
			}
			in := tuInputFor(m)
			n, d := in.X.Dims()
			_, q := in.Y.Dims()
			model, err := Fit(context.Background(), m.ID, in, p, nil)
			if err != nil {
				continue
			}
			rank := model.Rank
			if len(model.Blocks) > 0 { // d applies per class variable
				rank = 0
				for _, b := range model.Blocks {
					rank = max(rank, len(b.Values))
				}
			}
			if b := dimBound(m, p, Shape{N: n, D: d, Q: q, Classes: in.Classes}); rank > b {
				t.Errorf("%s %+v: rank %d above the bound %d", m.ID, p, rank, b)
			}
		}
	}
}

func TestCheck(t *testing.T) {
	ml := Shape{N: 100, D: 20, Q: 6}
	md := Shape{N: 100, D: 20, Q: 2, Classes: []int{3, 4}}
	for _, tc := range []struct {
		id    string
		p     Params
		s     Shape
		kind  ErrorKind
		param string
	}{
		{"nope", Params{}, ml, Invalid, "method"},
		{"mddmp", Params{D: 7}, ml, Unservable, ParamD},
		{"sdem", Params{D: 6}, md, Unservable, ParamD},
		{"sdem", Params{}, ml, Unservable, "method"},
		{"mddmf", Params{Beta: Float(1)}, ml, Invalid, ParamBeta},
		{"mvmd", Params{Beta: Float(2)}, ml, Invalid, ParamBeta},
		{"kcplst", Params{Gamma: Float(-1)}, ml, Invalid, ParamGamma},
		{"cplst", Params{Lambda: Float(0)}, ml, Invalid, ParamLambda},
		{"cca", Params{Ridge: Float(-1)}, ml, Invalid, ParamRidge},
		{"mddmp", Params{LabelKernel: "x"}, ml, Invalid, ParamLabelKernel},
		{"lpp", Params{K: 300}, ml, Invalid, ParamK},
		{"lpp", Params{K: 100}, ml, Unservable, ParamK},
		{"kcplst", Params{}, Shape{N: maxNKCPLST + 1, D: 3, Q: 2}, Unservable, "method"},
		{"pca", Params{Beta: Float(0.5)}, ml, Invalid, ParamBeta},
	} {
		err := Check(tc.id, tc.p, tc.s)
		var e *Error
		if !errors.As(err, &e) || e.Kind != tc.kind || e.Param != tc.param {
			t.Errorf("Check(%s, %+v): got %v, want kind %d on %q", tc.id, tc.p, err, tc.kind, tc.param)
		}
	}
	for _, ok := range []struct {
		id string
		p  Params
		s  Shape
	}{{"mddmp", Params{D: 6}, ml}, {"sdem", Params{D: 5}, md}, {"lda", Params{D: 3}, md}, {"pca", Params{Thr: 0.9}, ml}} {
		if err := Check(ok.id, ok.p, ok.s); err != nil {
			t.Errorf("Check(%s, %+v): %v", ok.id, ok.p, err)
		}
	}
}

// TestCheckLabelKernels: the quadratic and rbf label kernels are refused
// at submission above the sizes they serve, with the sizes in the message;
// at the limits they pass. Fit refuses the quadratic kernel the same way.
func TestCheckLabelKernels(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    Params
		s    Shape
		want string // "" for no refusal
	}{
		{"quadratic at 200 labels", Params{LabelKernel: KernelQuadratic}, Shape{N: 1000, D: 50, Q: 200}, ""},
		{"quadratic at 201 labels", Params{LabelKernel: KernelQuadratic}, Shape{N: 1000, D: 50, Q: 201},
			"analysis: the quadratic label kernel builds q(q+1)/2 label columns, 20301 for these 201 labels; it serves at most 200 labels (20100 columns). Use the linear kernel, or fewer labels"},
		{"quadratic at 5000 labels", Params{LabelKernel: KernelQuadratic}, Shape{N: 10, D: 50, Q: 5000},
			"analysis: the quadratic label kernel builds q(q+1)/2 label columns, 12502500 for these 5000 labels; it serves at most 200 labels (20100 columns). Use the linear kernel, or fewer labels"},
		{"linear at 5000 labels", Params{}, Shape{N: 10, D: 50, Q: 5000}, ""},
		{"rbf at 2000 sets", Params{LabelKernel: KernelRBF}, Shape{N: 5000, D: 50, Q: 30, LabelSets: 2000}, ""},
		{"rbf at 2001 sets", Params{LabelKernel: KernelRBF}, Shape{N: 5000, D: 50, Q: 30, LabelSets: 2001},
			"analysis: the rbf label kernel is computed between the distinct label sets, and these data have 2001; it serves at most 2000. Use the linear or quadratic kernel, or fewer labels"},
		{"rbf, sets unknown", Params{LabelKernel: KernelRBF}, Shape{N: 5000, D: 50, Q: 30}, ""},
	} {
		err := Check("mddmp", tc.p, tc.s)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: got %v, want no error", tc.name, err)
			}
			continue
		}
		var e *Error
		if !errors.As(err, &e) || e.Kind != Unservable || e.Param != ParamLabelKernel || err.Error() != tc.want {
			t.Errorf("%s: got %#v, want Unservable on label_kernel: %q", tc.name, err, tc.want)
		}
	}
	in := tuMultiLabel(5, 20, 4, maxQuadraticLabels+1)
	_, err := Fit(context.Background(), "mddmp", in, Params{LabelKernel: KernelQuadratic}, nil)
	var e *Error
	if !errors.As(err, &e) || e.Kind != Unservable || e.Param != ParamLabelKernel {
		t.Errorf("Fit with 201 labels, quadratic: got %v, want an Unservable refusal on label_kernel", err)
	}
}
