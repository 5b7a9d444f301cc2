package evaluate

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"mldr/internal/analysis"
)

// gridCells groups a result's rows by method and requested percentage
// (-1 without one): the fold rows and the mean row of each.
type gridCell struct {
	folds []Row
	mean  *Row
}

func gridCells(t *testing.T, res *Result) map[string]*gridCell {
	t.Helper()
	cells := map[string]*gridCell{}
	for i, r := range res.Rows {
		pc := -1.0
		if r.Percent != nil {
			pc = *r.Percent
		}
		key := fmt.Sprintf("%s@%v", r.Method, pc)
		c := cells[key]
		if c == nil {
			c = &gridCell{}
			cells[key] = c
		}
		if r.Fold == nil {
			if c.mean != nil {
				t.Errorf("%s: got two mean rows, want one per (method, percentage)", key)
			}
			c.mean = &res.Rows[i]
		} else {
			c.folds = append(c.folds, r)
		}
	}
	return cells
}

// TestRunPercentOfRankKFold: a percent grid of the rank with k-fold on data
// whose folds have different ranks (23 rows of 30 features in 5 folds: the
// training parts have 18 or 19 rows, so pca's rank is 17 or 18) gives one
// point per requested percentage, the same d on every fold, from the
// smallest rank over the folds: exactly one row per (method, percentage)
// per fold, and one mean row over all of them. mddmp (rank q = 4) has
// percentages that round to the same d: each still has its rows; plst
// takes the label-space path.
func TestRunPercentOfRankKFold(t *testing.T) {
	data := runData(6, 23, 30, 4, nil)
	folds, err := KFold(23, 5, 2)
	if err != nil {
		t.Fatal(err)
	}
	percent := []float64{10, 20, 30, 40, 50, 60, 70, 80, 90, 100}
	var seen []float64
	res, err := Run(context.Background(), data, folds, Spec{
		Methods: []MethodRun{{ID: "pca"}, {ID: "mddmp"}, {ID: "plst"}},
		Grid:    Grid{Percent: percent, Of: "rank"},
		Options: Options{Classifier: ClassifierRidge},
	}, func(f float64, _ string) { seen = append(seen, f) })
	if err != nil {
		t.Fatal(err)
	}
	cells := gridCells(t, res)
	want := map[string]struct {
		rank int
		d    []int
	}{
		"pca":   {17, []int{2, 3, 5, 7, 9, 10, 12, 14, 15, 17}},
		"mddmp": {4, []int{1, 1, 1, 2, 2, 2, 3, 3, 4, 4}},
		"plst":  {4, []int{1, 1, 1, 2, 2, 2, 3, 3, 4, 4}},
	}
	for method, w := range want {
		for i, pc := range percent {
			key := fmt.Sprintf("%s@%v", method, pc)
			c := cells[key]
			if c == nil || c.mean == nil {
				t.Errorf("%s: got no rows, want 5 fold rows and a mean row", key)
				continue
			}
			if len(c.folds) != 5 || c.mean.Folds != 5 {
				t.Errorf("%s: got %d fold rows and a mean over %d, want 5 and 5", key, len(c.folds), c.mean.Folds)
			}
			for _, r := range append(c.folds, *c.mean) {
				if r.D != w.d[i] {
					t.Errorf("%s fold %v: got d = %d, want %d (%v %% of the smallest rank %d)", key, foldText(r.Fold), r.D, w.d[i], pc, w.rank)
				}
			}
		}
		n := 0
		for key := range cells {
			if strings.HasPrefix(key, method+"@") {
				n++
			}
		}
		if n != len(percent) {
			t.Errorf("%s: got %d cells, want one per percentage, %d", method, n, len(percent))
		}
	}
	// Percentages that share a d share its numbers.
	a, b := cells["mddmp@10"].mean.Metrics, cells["mddmp@30"].mean.Metrics
	if a[HammingLoss] != b[HammingLoss] {
		t.Errorf("mddmp at 10 %% and 30 %% (both d = 1): Hamming loss %v and %v, want equal", a[HammingLoss], b[HammingLoss])
	}
	if len(res.Rows) != 6*(1+3*len(percent)) {
		t.Errorf("got %d rows, want %d: ori and 3 methods × %d percentages, each 5 folds and a mean", len(res.Rows), 6*(1+3*len(percent)), len(percent))
	}
	if !slices.ContainsFunc(res.Notes, func(n string) bool {
		return strings.Contains(n, "pca: the rank of XcᵀXc differs between the splits' training parts (17 to 18); the grid's percentages are of the smallest, 17")
	}) {
		t.Errorf("got notes %q, want one saying pca's rank differs between the splits and the smallest is used", res.Notes)
	}
	for i := 1; i < len(seen); i++ {
		if seen[i] < seen[i-1] || seen[i] > 1 {
			t.Fatalf("progress went from %v to %v", seen[i-1], seen[i])
		}
	}
}

// TestRunPercentRowsJSON: on a percent grid of the features every row says
// which percentage it answers, and metrics.json keeps it (and lda's
// d_per_variable) through a round trip; rows of a dims grid have none.
func TestRunPercentRowsJSON(t *testing.T) {
	data := runData(7, 60, 10, 3, nil)
	h, _ := Holdout(60, 0.25, 1)
	res, err := Run(context.Background(), data, []Split{h}, Spec{
		Methods: []MethodRun{{ID: "pca"}},
		Grid:    Grid{Percent: []float64{50, 20}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range res.Rows {
		if r.Method != "pca" {
			if r.Percent != nil {
				t.Errorf("%s row: got percent %v, want none", r.Method, *r.Percent)
			}
			continue
		}
		if r.Percent == nil {
			t.Fatalf("pca row d = %d: got no percent, want the requested one", r.D)
		}
		got = append(got, fmt.Sprintf("%v%%→%d", *r.Percent, r.D))
	}
	if w := []string{"20%→2", "20%→2", "50%→5", "50%→5"}; !slices.Equal(got, w) {
		t.Errorf("pca rows: got %v, want %v (a fold row and a mean row each)", got, w)
	}
	b, err := json.Marshal(res.Rows[len(res.Rows)-1])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"percent":50`) {
		t.Errorf("the mean row's JSON %s has no \"percent\":50", b)
	}
	row := Row{Method: "lda", D: 6, DPerVariable: 1, Percent: res.Rows[len(res.Rows)-1].Percent, Metrics: map[string]float64{HammingLoss: math.NaN()}}
	b, _ = json.Marshal(row)
	var back Row
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.DPerVariable != 1 || back.Percent == nil || *back.Percent != 50 || !strings.Contains(string(b), `"d_per_variable":1`) {
		t.Errorf("round trip of %s: got d_per_variable %d and percent %v, want 1 and 50", b, back.DPerVariable, back.Percent)
	}
}

// TestRunLDAMultiLabel: on multi-label data lda fits one direction per
// label, so its d per label is at most 1 and the columns used are q. It
// must be scored — with no grid (it was skipped as "d = 3 above its limit
// 1"), and on a grid at d = 1 per label, plotted at d = q.
func TestRunLDAMultiLabel(t *testing.T) {
	data := runData(8, 90, 6, 3, nil)
	folds, _ := KFold(90, 3, 1)
	for _, tc := range []struct {
		name string
		spec Spec
		skip string
	}{
		{"own d", Spec{Methods: []MethodRun{{ID: "lda"}}}, ""},
		{"own d = 1", Spec{Methods: []MethodRun{{ID: "lda", Params: analysis.Params{D: 1}}}}, ""},
		{"grid", Spec{Methods: []MethodRun{{ID: "lda"}}, Grid: Grid{Dims: []int{1, 2, 4}}}, "d = 2 is above its limit 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Run(context.Background(), data, folds, tc.spec, nil)
			if err != nil {
				t.Fatal(err)
			}
			var rows []Row
			for _, r := range res.Rows {
				if r.Method == "lda" {
					rows = append(rows, r)
				}
			}
			if len(rows) != 4 {
				t.Fatalf("got %d lda rows (notes %q), want 3 folds and a mean", len(rows), res.Notes)
			}
			for _, r := range rows {
				if r.D != 3 || r.DPerVariable != 1 || r.Metrics[HammingLoss] <= 0 {
					t.Errorf("lda fold %v: got d = %d, d_per_variable = %d, Hamming loss %v; want 3 (one column per label), 1 and a loss",
						foldText(r.Fold), r.D, r.DPerVariable, r.Metrics[HammingLoss])
				}
			}
			if tc.skip != "" && !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, tc.skip) }) {
				t.Errorf("got notes %q, want one saying %q", res.Notes, tc.skip)
			}
			if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, "d_per_variable") }) {
				t.Errorf("got notes %q, want one on d per class variable", res.Notes)
			}
		})
	}
}

func foldText(f *int) string {
	if f == nil {
		return "mean"
	}
	return fmt.Sprint(*f)
}

// TestGridMaxDim: the largest d a grid asks, which a fit computes
// directions up to (analysis.Params.MaxDim); a percentage of a rank not
// fixed before the fit needs every direction.
func TestGridMaxDim(t *testing.T) {
	for _, tc := range []struct {
		name           string
		g              Grid
		features, rank int
		want           int
	}{
		{"dims", Grid{Dims: []int{5, 2, 30, 7}}, 100, 0, 30},
		{"percent of features", Grid{Percent: []float64{10, 25}}, 80, 0, 20},
		{"percent of a fixed rank", Grid{Percent: []float64{50, 10}, Of: "rank"}, 80, 12, 6},
		{"percent of the rank", Grid{Percent: []float64{50}, Of: "rank"}, 80, 0, analysis.MaxDimAll},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.g.maxDim(tc.features, tc.rank); got != tc.want {
				t.Errorf("got %d, want %d", got, tc.want)
			}
		})
	}
}

// TestRunFitsToGridTop: with an explicit grid each method is fitted once
// with MaxDim the grid's largest d (and neither d nor thr), so that it
// computes no direction beyond it; without a grid, with the parameters as
// given.
func TestRunFitsToGridTop(t *testing.T) {
	data := runData(3, 80, 12, 3, nil)
	folds, _ := KFold(80, 2, 1)
	for _, tc := range []struct {
		name string
		grid Grid
		p    analysis.Params
		want analysis.Params
	}{
		{"dims", Grid{Dims: []int{1, 4, 2}}, analysis.Params{Thr: 0.9}, analysis.Params{MaxDim: 4}},
		// Two folds: the rank (12) is fixed over them before, so 50 % is 6.
		{"percent of the rank", Grid{Percent: []float64{50}, Of: "rank"}, analysis.Params{D: 3}, analysis.Params{MaxDim: 6}},
		{"no grid", Grid{}, analysis.Params{D: 3}, analysis.Params{D: 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := newRunner(data, folds, Spec{Methods: []MethodRun{{ID: "pca", Params: tc.p}}, Grid: tc.grid,
				Options: Options{Classifier: ClassifierRidge}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []analysis.Params
			r.fitFunc = func(ctx context.Context, id string, in analysis.Input, p analysis.Params, pr analysis.Progress) (*analysis.Model, error) {
				got = append(got, p)
				return analysis.Fit(ctx, id, in, p, pr)
			}
			if _, err := r.run(context.Background()); err != nil {
				t.Fatal(err)
			}
			if len(got) != 2 {
				t.Fatalf("got %d fits, want one per fold (2)", len(got))
			}
			for _, p := range got {
				if p != tc.want {
					t.Errorf("fitted with %+v, want %+v", p, tc.want)
				}
			}
		})
	}
}
