package evaluate

import (
	"context"
	"errors"
	"maps"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/analysis"
)

func TestSplits(t *testing.T) {
	h, err := Holdout(10, 0.2, 7)
	if err != nil || len(h.Test) != 2 || len(h.Train) != 8 {
		t.Fatalf("holdout: got %+v, %v", h, err)
	}
	if err := h.check(10); err != nil {
		t.Error(err)
	}
	again, _ := Holdout(10, 0.2, 7)
	other, _ := Holdout(10, 0.2, 8)
	if !reflect.DeepEqual(h, again) || reflect.DeepEqual(h, other) {
		t.Error("holdout: the same seed must give the same split, another seed another")
	}
	folds, err := KFold(23, 5, 1)
	if err != nil {
		t.Fatal(err)
	}
	var all []int
	for _, f := range folds {
		if err := f.check(23); err != nil {
			t.Error(err)
		}
		if n := len(f.Test); n != 4 && n != 5 {
			t.Errorf("fold of %d rows, want 4 or 5", n)
		}
		all = append(all, f.Test...)
	}
	slices.Sort(all)
	for i, v := range all {
		if v != i {
			t.Fatalf("the test parts do not partition the rows: %v", all)
		}
	}
	for _, bad := range []func() error{
		func() error { _, err := Holdout(10, 0, 1); return err },
		func() error { _, err := Holdout(10, 1, 1); return err },
		func() error { _, err := Holdout(1, 0.5, 1); return err },
		func() error { _, err := KFold(5, 6, 1); return err },
		func() error { _, err := KFold(5, 1, 1); return err },
	} {
		if bad() == nil {
			t.Error("got no error")
		}
	}
	tt := TrainTest(3, 2)
	if !slices.Equal(tt.Train, []int{0, 1, 2}) || !slices.Equal(tt.Test, []int{3, 4}) {
		t.Errorf("TrainTest: got %+v", tt)
	}
}

func runData(seed uint64, n, d, q int, classes []int) analysis.Input {
	rng := rand.New(rand.NewPCG(seed, 5))
	x := mat.NewDense(n, d, nil)
	for i := range n {
		for j := range d {
			x.Set(i, j, rng.NormFloat64())
		}
	}
	if classes != nil {
		y := mat.NewDense(n, len(classes), nil)
		for i := range n {
			for j, k := range classes {
				y.Set(i, j, float64(int(math.Abs(x.At(i, j)*float64(k)))%k))
			}
		}
		return analysis.Input{X: x, Y: y, Classes: classes}
	}
	y := mat.NewDense(n, q, nil)
	for i := range n {
		for l := range q {
			if x.At(i, l)+0.5*rng.NormFloat64() > 0 {
				y.Set(i, l, 1)
			}
		}
	}
	return analysis.Input{X: x, Y: y}
}

// TestRunLDAGridPerVariable: lda's d applies to each class variable, so a
// grid value above the most directions any variable gives is skipped with
// a note, not an error (its rank, the sum over variables, is larger); its
// rows give that d in DPerVariable and the columns used, the sum over the
// variables, in D (classes 2 and 3: d = 1 uses 1 + 1 columns, d = 2 uses
// 1 + 2).
func TestRunLDAGridPerVariable(t *testing.T) {
	data := runData(2, 120, 5, 0, []int{2, 3})
	folds, _ := KFold(120, 2, 1)
	res, err := Run(context.Background(), data, folds, Spec{
		Methods: []MethodRun{{ID: "lda"}},
		Grid:    Grid{Dims: []int{1, 2, 3}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ds, per []int
	for _, r := range res.Rows {
		if r.Method == "lda" && r.Fold == nil {
			ds, per = append(ds, r.D), append(per, r.DPerVariable)
		}
	}
	if !slices.Equal(ds, []int{2, 3}) || !slices.Equal(per, []int{1, 2}) {
		t.Errorf("lda mean rows: got d %v and d_per_variable %v, want d 2, 3 (columns used) and d_per_variable 1, 2", ds, per)
	}
	if len(res.Notes) != 2 || !strings.Contains(res.Notes[0], "d = 3 is above its limit 2") || !strings.Contains(res.Notes[1], "d is per class variable") {
		t.Errorf("got notes %q, want d = 3 skipped and the note on d per class variable", res.Notes)
	}
}

func TestRunStructure(t *testing.T) {
	data := runData(1, 90, 6, 2, nil)
	folds, _ := KFold(90, 3, 4)
	var seen []float64
	res, err := Run(context.Background(), data, folds, Spec{
		Methods: []MethodRun{{ID: "pca"}, {ID: "mddmp"}},
		Grid:    Grid{Dims: []int{3, 1, 2}},
	}, func(f float64, _ string) { seen = append(seen, f) })
	if err != nil {
		t.Fatal(err)
	}
	// ori: 1 cell, pca: 3, mddmp: 2 (d = 3 is above its rank 2) → 6 cells
	// of 3 folds + a mean row.
	if len(res.Rows) != 6*4 {
		t.Fatalf("got %d rows, want 24", len(res.Rows))
	}
	if len(res.Notes) != 1 {
		t.Errorf("got notes %q, want one about mddmp's d = 3", res.Notes)
	}
	for c := 0; c < len(res.Rows); c += 4 {
		cell := res.Rows[c : c+4]
		mean := cell[3]
		if mean.Fold != nil || mean.Folds != 3 || mean.Std == nil {
			t.Fatalf("row %d is not a mean row: %+v", c+3, mean)
		}
		for k, v := range mean.Metrics {
			s := 0.0
			for _, r := range cell[:3] {
				if r.Fold == nil || r.Method != mean.Method || r.D != mean.D {
					t.Fatalf("cell rows do not match: %+v", r)
				}
				s += r.Metrics[k]
			}
			if math.Abs(s/3-v) > 1e-12 {
				t.Errorf("%s d=%d %s: mean %v, want %v", mean.Method, mean.D, k, v, s/3)
			}
		}
	}
	if res.Rows[0].Method != Ori || res.Rows[0].D != 6 || res.Rows[4].Method != "pca" || res.Rows[4].D != 1 {
		t.Errorf("row order: got %s/%d then %s/%d", res.Rows[0].Method, res.Rows[0].D, res.Rows[4].Method, res.Rows[4].D)
	}
	for i := 1; i < len(seen); i++ {
		if seen[i] < seen[i-1] || seen[i] > 1 {
			t.Fatalf("progress %v", seen)
		}
	}
	again, _ := Run(context.Background(), data, folds, Spec{Methods: []MethodRun{{ID: "pca"}, {ID: "mddmp"}}, Grid: Grid{Dims: []int{3, 1, 2}}}, nil)
	if !reflect.DeepEqual(withoutTimes(res), withoutTimes(again)) { // wall times differ from run to run
		t.Error("the same run gave other numbers")
	}
}

// At M = q, PLST and CPLST decode the same labels (V is a rotation), so
// every metric but the errors agrees.
func TestRunLabelSpaceFullDimension(t *testing.T) {
	data := runData(2, 120, 5, 4, nil)
	h, _ := Holdout(120, 0.25, 3)
	res, err := Run(context.Background(), data, []Split{h}, Spec{
		Methods: []MethodRun{{ID: "plst"}, {ID: "cplst"}}, Grid: Grid{Dims: []int{4}},
		Options: Options{Classifier: ClassifierRidge},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var plst, cplst map[string]float64
	for _, r := range res.Rows {
		if r.Fold == nil && r.Method == "plst" {
			plst = r.Metrics
		}
		if r.Fold == nil && r.Method == "cplst" {
			cplst = r.Metrics
		}
	}
	for _, k := range []string{HammingLoss, SubsetAccuracy, MicroF1, RankingLoss} {
		if math.Abs(plst[k]-cplst[k]) > 1e-12 {
			t.Errorf("%s: plst %v, cplst %v", k, plst[k], cplst[k])
		}
	}
	if plst[EncodingError] > 1e-20 || math.Abs(plst[LossBound]-plst[PredictionError]) > 1e-12 {
		t.Errorf("at M = q the encoding error must be 0: %v", plst)
	}
}

func TestRunMultiDim(t *testing.T) {
	data := runData(3, 150, 5, 0, []int{3, 2})
	folds, _ := KFold(150, 3, 1)
	for _, cl := range []string{ClassifierMLkNN, ClassifierRidge, ClassifierSVM} {
		res, err := Run(context.Background(), data, folds, Spec{
			Methods: []MethodRun{{ID: "sdem"}, {ID: "lda"}}, Grid: Grid{Dims: []int{1, 2}},
			Options: Options{Classifier: cl},
		}, nil)
		if err != nil {
			t.Fatalf("%s: %v", cl, err)
		}
		for _, r := range res.Rows {
			hs := r.Metrics[HammingScore]
			if hs <= 0 || hs > 1 || r.Metrics[ExactMatch] > r.Metrics[SubExactMatch] {
				t.Errorf("%s %s d=%d: %v", cl, r.Method, r.D, r.Metrics)
			}
		}
	}
}

func TestRunRefusals(t *testing.T) {
	data := runData(4, 40, 4, 2, nil)
	h, _ := Holdout(40, 0.25, 1)
	for name, tc := range map[string]struct {
		spec   Spec
		splits []Split
	}{
		"classifier":     {Spec{Options: Options{Classifier: "svc"}}, []Split{h}},
		"c of mlknn":     {Spec{Options: Options{C: 2}}, []Split{h}},
		"negative c":     {Spec{Options: Options{Classifier: ClassifierSVM, C: -1}}, []Split{h}},
		"NaN eps":        {Spec{Options: Options{Classifier: ClassifierSVM, Eps: math.NaN()}}, []Split{h}},
		"negative ps_a":  {Spec{Options: Options{PsA: -0.5}}, []Split{h}},
		"NaN ps_b":       {Spec{Options: Options{PsB: math.NaN()}}, []Split{h}},
		"infinite ps_a":  {Spec{Options: Options{PsA: math.Inf(1)}}, []Split{h}},
		"grid both":      {Spec{Grid: Grid{Dims: []int{1}, Percent: []float64{50}}}, []Split{h}},
		"grid percent":   {Spec{Grid: Grid{Percent: []float64{150}}}, []Split{h}},
		"no split":       {Spec{}, nil},
		"bad split":      {Spec{}, []Split{{Name: "x", Train: []int{0, 1}, Test: []int{1}}}},
		"unknown method": {Spec{Methods: []MethodRun{{ID: "tsne"}}}, []Split{h}},
	} {
		if _, err := Run(context.Background(), data, tc.splits, tc.spec, nil); err == nil {
			t.Errorf("%s: got no error", name)
		}
	}
	if _, err := Run(context.Background(), data, []Split{h}, Spec{Options: Options{Classifier: ClassifierNone}}, nil); !errors.Is(err, ErrNothingToEvaluate) {
		t.Errorf("classifier none: got %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, data, []Split{h}, Spec{Methods: []MethodRun{{ID: "pca"}}}, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: got %v", err)
	}
}

// TestRunSVM: the classifier svm after a method and for ori equals
// SVM's own predictions on the same projected rows; its defaults (c = 1,
// eps = 1e-4) are what a zero Options gives; its progress moves forward
// within each step and names the SVMs; a fit stopped at LIBLINEAR's limit
// of sweeps is noted.
func TestRunSVM(t *testing.T) {
	data := runData(6, 160, 6, 3, nil)
	h, _ := Holdout(160, 0.25, 2)
	var phases []string
	var seen []float64
	spec := Spec{Methods: []MethodRun{{ID: "pca", Params: analysis.Params{D: 3}}}, Options: Options{Classifier: ClassifierSVM}}
	res, err := Run(context.Background(), data, []Split{h}, spec, func(f float64, phase string) {
		seen, phases = append(seen, f), append(phases, phase)
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(seen); i++ {
		if seen[i] < seen[i-1] {
			t.Fatalf("progress went back: %v", seen)
		}
	}
	if !slices.Contains(phases, "pca: svm 3 of 3") || !slices.Contains(phases, "ori: svm 3 of 3") {
		t.Errorf("phases %q, want the svm's progress of ori and pca", phases)
	}
	train, test := data.SelectRows(h.Train), data.SelectRows(h.Test)
	m, err := analysis.Fit(context.Background(), "pca", train, analysis.Params{D: 3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ztr, _ := m.Transform(train.X)
	zte, _ := m.Transform(test.X)
	for _, c := range []struct {
		method   string
		xtr, xte *mat.Dense
	}{{Ori, train.X, test.X}, {"pca", ztr, zte}} {
		pred, scores, _, err := SVM{C: 1, Eps: 1e-4}.PredictLabels(context.Background(), c.xtr, train.Y, c.xte)
		if err != nil {
			t.Fatal(err)
		}
		// The svm's decision values are the scores of the ranking metrics,
		// those of extreme classification included.
		want := MultiLabelMetrics(test.Y, pred, scores)
		maps.Copy(want, XCMetrics(test.Y, scores, inversePropensities(train.Y, DefaultPropensityA, DefaultPropensityB)))
		for _, r := range res.Rows {
			if r.Method == c.method && r.Fold == nil && !reflect.DeepEqual(r.Metrics, want) {
				t.Errorf("%s: metrics %v, want SVM's own %v", c.method, r.Metrics, want)
			}
		}
	}
	// The defaults, and the note on fits stopped at the limit of sweeps.
	r, err := newRunner(data, []Split{h}, spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	if o := r.spec.Options; o.C != DefaultC || o.Eps != DefaultEps {
		t.Errorf("defaults c = %v, eps = %v; want %v, %v", o.C, o.Eps, DefaultC, DefaultEps)
	}
	r.svmFits = map[string]SVMFits{Ori: {Total: 3, Capped: 2}}
	r.svmNotes()
	if len(r.notes) != 1 || !strings.Contains(r.notes[0], "2 of the 3 binary SVMs of ori") {
		t.Errorf("notes %q, want one on ori's 2 capped fits", r.notes)
	}
}

func TestGridPercent(t *testing.T) {
	g := Grid{Percent: []float64{10, 50, 100, 12}}
	if got := g.values(20, 4); !slices.Equal(got, []int{2, 10, 20}) {
		t.Errorf("of features: got %v", got)
	}
	g.Of = "rank"
	if got := g.values(20, 4); !slices.Equal(got, []int{1, 2, 4}) {
		t.Errorf("of rank: got %v", got)
	}
}
