package evaluate

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/analysis"
)

// checkRowErrors checks a run's per-row errors against its metrics: one
// entry per mean row, naming the same cell; on each fold the mean of Hamming
// over the fold's test rows is its Hamming loss (1 − hamming score) and the
// mean of Exact is 1 − subset accuracy (1 − exact match), to 1e-6; every
// value is a fraction k/q (Hamming) or 0/1 (Exact); rows no split tests are
// NaN. It returns the rows the splits test.
func checkRowErrors(t *testing.T, res *Result, splits []Split, n, q int, multiDim bool) {
	t.Helper()
	loss, exact := HammingLoss, SubsetAccuracy
	if multiDim {
		loss, exact = HammingScore, ExactMatch
	}
	tested := make([]bool, n)
	for _, sp := range splits {
		for _, i := range sp.Test {
			tested[i] = true
		}
	}
	var folds []Row
	cell := 0
	for _, r := range res.Rows {
		if r.Fold != nil {
			folds = append(folds, r)
			continue
		}
		if cell >= len(res.RowErrors) {
			t.Fatalf("got %d per-row entries, want one per mean row (more than that)", len(res.RowErrors))
		}
		e := res.RowErrors[cell]
		cell++
		name := fmt.Sprintf("%s d=%d/%d", r.Method, r.D, r.DPerVariable)
		if e.Method != r.Method || e.D != r.D || e.DPerVariable != r.DPerVariable || !reflect.DeepEqual(e.Percent, r.Percent) {
			t.Fatalf("%s: got per-row entry %s d=%d/%d, want the mean row's cell", name, e.Method, e.D, e.DPerVariable)
		}
		if len(e.Hamming) != n || len(e.Exact) != n {
			t.Fatalf("%s: got %d and %d values, want %d", name, len(e.Hamming), len(e.Exact), n)
		}
		for i := range n {
			h, x := float64(e.Hamming[i]), float64(e.Exact[i])
			if !tested[i] {
				if !math.IsNaN(h) || !math.IsNaN(x) {
					t.Errorf("%s: row %d, which no split tests: got %v, %v, want NaN", name, i, h, x)
				}
				continue
			}
			k := h * float64(q)
			if math.Abs(k-math.Round(k)) > 1e-5 || h < 0 || h > 1 || (x != 0 && x != 1) || (x == 1) != (h > 0) {
				t.Errorf("%s: row %d: got Hamming %v and exact failure %v, want k/%d and 1 exactly when it is > 0", name, i, h, x, q)
			}
		}
		for _, f := range folds {
			var sh, sx float64
			test := splits[*f.Fold-1].Test
			for _, i := range test {
				sh, sx = sh+float64(e.Hamming[i]), sx+float64(e.Exact[i])
			}
			sh, sx = sh/float64(len(test)), sx/float64(len(test))
			wantH, wantX := f.Metrics[loss], 1-f.Metrics[exact]
			if multiDim {
				wantH = 1 - wantH
			}
			if math.Abs(sh-wantH) > 1e-6 || math.Abs(sx-wantX) > 1e-6 {
				t.Errorf("%s fold %d: mean per-row Hamming loss %v and exact failure %v, want %v and %v (from %s and %s)",
					name, *f.Fold, sh, sx, wantH, wantX, loss, exact)
			}
		}
		folds = folds[:0]
	}
	if cell != len(res.RowErrors) {
		t.Errorf("got %d per-row entries, want %d, one per mean row", len(res.RowErrors), cell)
	}
}

// checkLabelCounts checks a multi-label run's per-label counts against
// the data and the per-row errors: each label's TP + FN is its number of
// ones among the rows the splits test (each row once), Σ(FP + FN) over
// the labels is the per-row Hamming losses' sum times q, and with a single
// split the fold's macro_f1 and micro_f1 are those of the counts (a label
// never had nor predicted counting 1, as MultiLabelMetrics does).
func checkLabelCounts(t *testing.T, res *Result, splits []Split, y *mat.Dense) {
	t.Helper()
	n, q := y.Dims()
	tested := make([]bool, n)
	for _, sp := range splits {
		for _, i := range sp.Test {
			tested[i] = true
		}
	}
	had := make([]int32, q)
	for i := range n {
		if tested[i] {
			for l, v := range y.RawRowView(i) {
				if v != 0 {
					had[l]++
				}
			}
		}
	}
	cell := 0
	for _, r := range res.Rows {
		if r.Fold != nil {
			if len(splits) == 1 {
				e := res.RowErrors[cell]
				var macro float64
				var tp, fp, fn float64
				for l := range q {
					macro += f1Of(float64(e.TP[l]), float64(e.FP[l]), float64(e.FN[l]))
					tp, fp, fn = tp+float64(e.TP[l]), fp+float64(e.FP[l]), fn+float64(e.FN[l])
				}
				if got, want := macro/float64(q), r.Metrics[MacroF1]; math.Abs(got-want) > 1e-12 {
					t.Errorf("%s d=%d: macro F1 of the per-label counts %v, the fold's %v", r.Method, r.D, got, want)
				}
				if got, want := f1Of(tp, fp, fn), r.Metrics[MicroF1]; math.Abs(got-want) > 1e-12 {
					t.Errorf("%s d=%d: micro F1 of the per-label counts %v, the fold's %v", r.Method, r.D, got, want)
				}
			}
			continue
		}
		e := res.RowErrors[cell]
		cell++
		if len(e.TP) != q || len(e.FP) != q || len(e.FN) != q {
			t.Fatalf("%s d=%d: %d, %d and %d per-label counts, want %d each", r.Method, r.D, len(e.TP), len(e.FP), len(e.FN), q)
		}
		var wrong, hamming float64
		for l := range q {
			if e.TP[l]+e.FN[l] != had[l] {
				t.Errorf("%s d=%d: label %d: TP %d + FN %d, want its %d ones among the tested rows", r.Method, r.D, l, e.TP[l], e.FN[l], had[l])
			}
			wrong += float64(e.FP[l] + e.FN[l])
		}
		for i, h := range e.Hamming {
			if tested[i] {
				hamming += float64(h) * float64(q)
			}
		}
		if math.Abs(wrong-hamming) > 1e-3 {
			t.Errorf("%s d=%d: Σ(FP + FN) = %v, the per-row Hamming losses sum to %v wrong decisions", r.Method, r.D, wrong, hamming)
		}
	}
}

// TestRunRowErrors: with Spec.RowErrors, every cell's per-row errors agree
// with its fold metrics, and on multi-label data its per-label counts with
// the labels and the metrics (checkLabelCounts) (feature-space methods, label-space ones on their
// decoded labels, lda's blocks on the assembled prediction, a percent grid
// whose percentages share a d, ori), k-fold gives every row a value and a
// holdout only its test rows; the metrics are those of a run without them.
func TestRunRowErrors(t *testing.T) {
	ml := runData(11, 90, 6, 3, nil)
	md := runData(12, 90, 5, 0, []int{3, 2})
	kfold, _ := KFold(90, 3, 2)
	holdout, _ := Holdout(90, 0.3, 5)
	for _, tc := range []struct {
		name     string
		data     analysis.Input
		splits   []Split
		spec     Spec
		multiDim bool
	}{
		{"multi-label k-fold mlknn", ml, kfold, Spec{Methods: []MethodRun{{ID: "pca"}, {ID: "mddmp"}, {ID: "cplst"}}, Grid: Grid{Dims: []int{1, 2}}}, false},
		{"multi-label holdout ridge", ml, []Split{holdout}, Spec{Methods: []MethodRun{{ID: "pca"}, {ID: "plst"}, {ID: "lda"}},
			Options: Options{Classifier: ClassifierRidge}}, false},
		{"multi-label percent", ml, kfold, Spec{Methods: []MethodRun{{ID: "mddmp"}, {ID: "plst"}}, Grid: Grid{Percent: []float64{30, 34, 100}, Of: "rank"}}, false},
		{"multi-dimensional k-fold", md, kfold, Spec{Methods: []MethodRun{{ID: "sdem"}, {ID: "lda"}}, Grid: Grid{Dims: []int{1, 2}}}, true},
		{"multi-dimensional holdout ridge", md, []Split{holdout}, Spec{Methods: []MethodRun{{ID: "lda"}}, Options: Options{Classifier: ClassifierRidge}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plain, err := Run(context.Background(), tc.data, tc.splits, tc.spec, nil)
			if err != nil {
				t.Fatal(err)
			}
			if plain.RowErrors != nil {
				t.Errorf("without Spec.RowErrors: got %d per-row entries, want none", len(plain.RowErrors))
			}
			spec := tc.spec
			spec.RowErrors = true
			res, err := Run(context.Background(), tc.data, tc.splits, spec, nil)
			if err != nil {
				t.Fatal(err)
			}
			n, _ := tc.data.X.Dims()
			_, q := tc.data.Y.Dims()
			checkRowErrors(t, res, tc.splits, n, q, tc.multiDim)
			if tc.multiDim {
				for _, e := range res.RowErrors {
					if e.TP != nil || e.FP != nil || e.FN != nil {
						t.Errorf("%s: per-label counts on multi-dimensional data", e.Method)
					}
				}
			} else {
				checkLabelCounts(t, res, tc.splits, tc.data.Y)
			}
			kept := withoutTimes(res)
			kept.RowErrors = nil
			if !reflect.DeepEqual(kept, withoutTimes(plain)) {
				t.Error("the metrics with per-row errors differ from those without")
			}
			methods := map[string]bool{}
			for _, e := range res.RowErrors {
				methods[e.Method] = true
			}
			if want := len(tc.spec.Methods) + 1; len(methods) != want {
				t.Errorf("per-row errors of %d methods (%v), want %d with ori", len(methods), methods, want)
			}
		})
	}
}

// TestRunRowErrorsFirstSplit: with splits whose test parts overlap (as
// predefined folds may), a row keeps the errors of the first split that
// tests it.
func TestRunRowErrorsFirstSplit(t *testing.T) {
	data := runData(13, 80, 6, 4, nil)
	a := Split{Name: "a", Train: seqInts(30, 80), Test: seqInts(0, 30)}
	b := Split{Name: "b", Train: append(seqInts(0, 10), seqInts(50, 80)...), Test: seqInts(10, 50)}
	spec := Spec{Methods: []MethodRun{{ID: "pca", Params: analysis.Params{D: 2}}}, RowErrors: true}
	run := func(splits ...Split) []float32 {
		res, err := Run(context.Background(), data, splits, spec, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res.RowErrors[1].Hamming // pca
	}
	both, onlyA, onlyB := run(a, b), run(a), run(b)
	if slices.Equal(onlyA[10:30], onlyB[10:30]) {
		t.Fatal("the two splits give the shared rows the same errors: the test cannot tell which one is kept")
	}
	if !slices.Equal(both[:30], onlyA[:30]) {
		t.Errorf("rows 0–29: got %v, want split a's %v", both[:30], onlyA[:30])
	}
	if !slices.Equal(both[30:50], onlyB[30:50]) {
		t.Errorf("rows 30–49: got %v, want split b's %v", both[30:50], onlyB[30:50])
	}
	for i, v := range both[50:] {
		if !math.IsNaN(float64(v)) {
			t.Errorf("row %d, which no split tests: got %v, want NaN", 50+i, v)
		}
	}
}

// TestEstimateMemoryRowErrors: the per-row errors add RowErrorBytes per
// row and LabelCountBytes per label, per (method, d), ori included.
func TestEstimateMemoryRowErrors(t *testing.T) {
	s := analysis.Shape{N: 1000, D: 20, Q: 5}
	spec := Spec{Methods: []MethodRun{{ID: "pca"}, {ID: "cplst"}}, Grid: Grid{Dims: []int{1, 2, 3}}}
	without, err := EstimateMemory(s, 250, spec)
	if err != nil {
		t.Fatal(err)
	}
	spec.RowErrors = true
	with, err := EstimateMemory(s, 250, spec)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := with-without, int64((RowErrorBytes*1000+LabelCountBytes*5)*(1+2*3)); got != want {
		t.Errorf("per-row errors add %d bytes, want %d ((8 bytes × 1000 rows + 12 × 5 labels) × 7 cells)", got, want)
	}
}

func seqInts(from, to int) []int {
	s := make([]int, 0, to-from)
	for i := from; i < to; i++ {
		s = append(s, i)
	}
	return s
}
