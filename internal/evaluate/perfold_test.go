package evaluate_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"mldr/internal/analysis"
	"mldr/internal/evaluate"
)

// TestOwnDPerFold: lpp and ge-gh at thr = 0.99 on song's 10 predefined
// folds choose d = 59 on some folds and 60 on others. Each method gets one
// mean row over all 10 folds, with each fold's d in d_per_fold (in fold
// order, equal to its fold row's d), their median in d, and a note; the
// mean is the plain mean of the 10 fold rows. Methods whose d is the same
// on every fold get no d_per_fold.
func TestOwnDPerFold(t *testing.T) {
	refRequireShared(t)
	if evaluate.RaceEnabled {
		t.Skip("10 folds of lpp and ge-gh: in the pass without -race")
	}
	const file = "song.json"
	var ref struct {
		Data      refInfo `json:"data"`
		FoldsFile refInfo `json:"folds_file"`
	}
	llRead(t, file, &ref)
	ds := refLoad(t, ref.Data, file)
	splits := refEdmSplits(t, ref.FoldsFile, file)
	classes := make([]int, len(ds.Categories))
	for j, c := range ds.Categories {
		classes[j] = len(c)
	}
	thr := 0.99
	data := analysis.Input{X: ds.X, Y: ds.Y, Classes: classes}
	spec := evaluate.Spec{Methods: []evaluate.MethodRun{
		{ID: "lpp", Params: analysis.Params{Thr: thr}},
		{ID: "ge-gh", Params: analysis.Params{Thr: thr}},
		{ID: "pca", Params: analysis.Params{D: 5}},
	}}
	res, err := evaluate.Run(context.Background(), data, splits, spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	varied := 0
	for _, m := range []string{"lpp", "ge-gh", "pca"} {
		var folds []evaluate.Row
		var means []evaluate.Row
		for _, r := range res.Rows {
			switch {
			case r.Method != m:
			case r.Fold == nil:
				means = append(means, r)
			default:
				folds = append(folds, r)
			}
		}
		if len(means) != 1 || len(folds) != 10 || means[0].Folds != 10 {
			t.Fatalf("%s: %d mean rows and %d fold rows (the mean over %v folds), want one mean row over 10 folds", m, len(means), len(folds), len(means))
		}
		mean := means[0]
		ds := make([]int, len(folds))
		for i, f := range folds {
			ds[i] = f.D
		}
		lo, hi := slices.Min(ds), slices.Max(ds)
		if lo == hi {
			if mean.DPerFold != nil || mean.D != lo {
				t.Errorf("%s: d %d on every fold: got d %d and d_per_fold %v, want d %d and none", m, lo, mean.D, mean.DPerFold, lo)
			}
			continue
		}
		varied++
		sorted := slices.Sorted(slices.Values(ds))
		if !slices.Equal(mean.DPerFold, ds) || mean.D != sorted[4] {
			t.Errorf("%s: d_per_fold %v and d %d, want %v and the median %d", m, mean.DPerFold, mean.D, ds, sorted[4])
		}
		for key, v := range mean.Metrics {
			sum := 0.0
			for _, f := range folds {
				sum += f.Metrics[key]
			}
			if want := sum / 10; math.Abs(v-want) > 1e-12 && !(math.IsNaN(v) && math.IsNaN(want)) {
				t.Errorf("%s: mean %s %v, want the mean of the 10 folds %v", m, key, v, want)
			}
		}
		note := fmt.Sprintf("%s: the d its parameters chose on each fold's training part was %d to %d depending on the fold", m, lo, hi)
		if !slices.ContainsFunc(res.Notes, func(n string) bool { return len(n) >= len(note) && n[:len(note)] == note }) {
			t.Errorf("%s: no note %q among %q", m, note, res.Notes)
		}
	}
	if varied == 0 {
		t.Error("neither lpp nor ge-gh chose different d on different folds: the test no longer tests that")
	}
}
