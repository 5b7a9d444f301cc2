package evaluate

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/analysis"
	"mldr/internal/preprocess"
)

// withoutTimes is res with the wall times zeroed, for comparing runs.
func withoutTimes(res *Result) *Result {
	out := *res
	out.Rows = append([]Row(nil), res.Rows...)
	for i := range out.Rows {
		out.Rows[i].FitSeconds, out.Rows[i].EvalSeconds = 0, 0
	}
	return &out
}

// leakData is runData with one extreme value, 1e6 in feature 0 of row 0,
// and a feature (the last) constant except on row 0: a scaler that saw row
// 0 while it was a test row would not give the training rows mean 0 and
// standard deviation 1, nor a constant last column.
func leakData() analysis.Input {
	data := runData(3, 60, 4, 2, nil)
	n, d := data.X.Dims()
	for i := range n {
		data.X.Set(i, d-1, 5)
	}
	data.X.Set(0, 0, 1e6)
	data.X.Set(0, d-1, -40)
	data.FeatureNames = []string{"a", "b", "c", "flat"}
	return data
}

// TestRunPreprocessNoLeak: each fold's scaler is fitted on its training
// rows only. The method's fit records the rows it is given: for
// standardize, every column has mean 0 and population standard deviation 1
// on them (the constant column 0), whichever fold holds the extreme row;
// for minmax, minimum 0 and maximum 1.
func TestRunPreprocessNoLeak(t *testing.T) {
	data := leakData()
	folds, _ := KFold(60, 3, 1)
	for _, kind := range []string{preprocess.Standardize, preprocess.MinMax} {
		t.Run(kind, func(t *testing.T) {
			var seen []*mat.Dense
			r, err := newRunner(data, folds, Spec{Methods: []MethodRun{{ID: "pca"}}, Grid: Grid{Dims: []int{2}},
				Options: Options{Preprocess: kind}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			r.fitFunc = func(ctx context.Context, id string, in analysis.Input, p analysis.Params, pr analysis.Progress) (*analysis.Model, error) {
				seen = append(seen, mat.DenseCopyOf(in.X))
				return analysis.Fit(ctx, id, in, p, pr)
			}
			res, err := r.run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if len(seen) != 3 {
				t.Fatalf("got %d fits, want one per fold (3)", len(seen))
			}
			for f, x := range seen {
				n, d := x.Dims()
				for j := range d {
					col := mat.Col(nil, j, x)
					mean, sd, lo, hi := 0.0, 0.0, math.Inf(1), math.Inf(-1)
					for _, v := range col {
						mean += v / float64(n)
						lo, hi = min(lo, v), max(hi, v)
					}
					for _, v := range col {
						sd += (v - mean) * (v - mean) / float64(n)
					}
					sd = math.Sqrt(sd)
					wantSD, wantLo, wantHi := 1.0, 0.0, 1.0
					if j == d-1 && !containsRow(folds[f].Train, 0) { // flat on this training part
						wantSD, wantHi = 0, 0
					}
					switch kind {
					case preprocess.Standardize:
						if math.Abs(mean) > 1e-9 || math.Abs(sd-wantSD) > 1e-9 {
							t.Errorf("fold %d column %d of the fitted rows: got mean %v, sd %v, want 0 and %v", f+1, j, mean, sd, wantSD)
						}
					case preprocess.MinMax:
						if math.Abs(lo-wantLo) > 1e-12 || math.Abs(hi-wantHi) > 1e-12 {
							t.Errorf("fold %d column %d of the fitted rows: got range [%v, %v], want [%v, %v]", f+1, j, lo, hi, wantLo, wantHi)
						}
					}
				}
			}
			want := kind + ": 1 feature is constant on the training rows and is set to 0 (flat)"
			if len(res.Notes) != 1 || res.Notes[0] != want {
				t.Errorf("got notes %q, want [%q]", res.Notes, want)
			}
		})
	}
}

func containsRow(rows []int, i int) bool {
	for _, r := range rows {
		if r == i {
			return true
		}
	}
	return false
}

// TestRunScaledSplit: the test rows are scaled with the training rows'
// statistics, the extreme test value included (by hand: column 0 is 1, 2,
// 3 on the training rows, mean 2, population sd √(2/3); the test row's
// 1002 becomes 1000/√(2/3)).
func TestRunScaledSplit(t *testing.T) {
	data := analysis.Input{
		X: mat.NewDense(4, 2, []float64{1, 7, 2, 7, 3, 7, 1002, 9}),
		Y: mat.NewDense(4, 1, []float64{0, 1, 0, 1}),
	}
	r, err := newRunner(data, []Split{TrainTest(3, 1)}, Spec{Options: Options{Preprocess: preprocess.Standardize}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	train, test, err := r.scaled(r.splits[0])
	if err != nil {
		t.Fatal(err)
	}
	sd := math.Sqrt(2.0 / 3)
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"train row 1", train.X.At(0, 0), -1 / sd},
		{"train row 3", train.X.At(2, 0), 1 / sd},
		{"test row", test.X.At(0, 0), 1000 / sd},
		{"test row, constant column", test.X.At(0, 1), 0},
	} {
		if math.Abs(c.got-c.want) > 1e-9 {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
	if data.X.At(3, 0) != 1002 {
		t.Errorf("the data were changed: got %v, want 1002", data.X.At(3, 0))
	}
}

// TestRunPreprocessBaseline: the baseline ori is evaluated on the scaled
// features too. One feature carries the labels on a scale of 1 and
// another is noise on a scale of 1000: without scaling the noise decides
// ML-kNN's neighbours, with it the signal counts again.
func TestRunPreprocessBaseline(t *testing.T) {
	data := runData(4, 200, 2, 1, nil)
	for i := range 200 {
		data.X.Set(i, 1, 1000*data.X.At(i, 1))
	}
	h, _ := Holdout(200, 0.3, 2)
	loss := map[string]float64{}
	for _, kind := range []string{"", preprocess.None, preprocess.Standardize, preprocess.MinMax} {
		res, err := Run(context.Background(), data, []Split{h}, Spec{Options: Options{Preprocess: kind}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		loss[kind] = res.Rows[0].Metrics[HammingLoss]
	}
	if loss[""] != loss[preprocess.None] {
		t.Errorf("\"\" and none: got Hamming loss %v and %v, want the same", loss[""], loss[preprocess.None])
	}
	for _, kind := range []string{preprocess.Standardize, preprocess.MinMax} {
		if !(loss[kind] < loss[preprocess.None]-0.05) {
			t.Errorf("ori with %s: got Hamming loss %v, want well below %v (none)", kind, loss[kind], loss[preprocess.None])
		}
	}
}

func TestRunPreprocessRefused(t *testing.T) {
	data := runData(1, 20, 3, 2, nil)
	h, _ := Holdout(20, 0.2, 1)
	_, err := Run(context.Background(), data, []Split{h}, Spec{Options: Options{Preprocess: "zscore"}}, nil)
	if err == nil || !strings.Contains(err.Error(), `preprocess must be none, standardize or minmax, not "zscore"`) {
		t.Errorf("got %v, want a refusal listing the three kinds", err)
	}
}

// TestRunTimes: every row carries its fit and evaluation times, ≥ 0; ori
// has no fit; means are the folds' means.
func TestRunTimes(t *testing.T) {
	data := runData(1, 90, 6, 2, nil)
	folds, _ := KFold(90, 3, 4)
	res, err := Run(context.Background(), data, folds, Spec{
		Methods: []MethodRun{{ID: "pca"}, {ID: "plst"}, {ID: "lda"}},
		Grid:    Grid{Dims: []int{1, 2}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	fits := map[string]float64{}
	for i, r := range res.Rows {
		if r.FitSeconds < 0 || r.EvalSeconds < 0 || math.IsNaN(r.FitSeconds) || math.IsNaN(r.EvalSeconds) {
			t.Errorf("row %d (%s d=%d): got fit %v s, eval %v s, want both ≥ 0", i, r.Method, r.D, r.FitSeconds, r.EvalSeconds)
		}
		if r.Method == Ori && r.FitSeconds != 0 {
			t.Errorf("ori: got fit %v s, want 0", r.FitSeconds)
		}
		if r.Method != Ori {
			fits[r.Method] += r.FitSeconds
		}
		if r.Fold == nil && r.Method != Ori && r.EvalSeconds == 0 {
			t.Errorf("%s d=%d: got an evaluation time of 0, want one measured", r.Method, r.D)
		}
		if r.Fold == nil {
			fit, eval := 0.0, 0.0
			for _, f := range res.Rows[i-r.Folds : i] {
				fit += f.FitSeconds / float64(r.Folds)
				eval += f.EvalSeconds / float64(r.Folds)
			}
			if math.Abs(fit-r.FitSeconds) > 1e-12 || math.Abs(eval-r.EvalSeconds) > 1e-12 {
				t.Errorf("%s d=%d mean row: got fit %v, eval %v, want the folds' means %v, %v", r.Method, r.D, r.FitSeconds, r.EvalSeconds, fit, eval)
			}
		}
	}
	for _, m := range []string{"pca", "plst", "lda"} {
		if fits[m] <= 0 {
			t.Errorf("%s: got no fit time, want one measured", m)
		}
	}
}

// fakeClock is a clock that moves only when told.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

// TestRunSlowFit: a fit that takes 5 s (on a clock the test moves) shows
// as 5 s of fit on every row of that method and nowhere else, and is not
// counted as evaluation time (the clock stands still otherwise).
func TestRunSlowFit(t *testing.T) {
	data := runData(1, 60, 5, 2, nil)
	folds, _ := KFold(60, 2, 1)
	clock := &fakeClock{t: time.Unix(0, 0)}
	r, err := newRunner(data, folds, Spec{Methods: []MethodRun{{ID: "pca"}, {ID: "mddmp"}}, Grid: Grid{Dims: []int{1, 2}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.now = clock.now
	r.fitFunc = func(ctx context.Context, id string, in analysis.Input, p analysis.Params, pr analysis.Progress) (*analysis.Model, error) {
		if id == "pca" {
			clock.advance(5 * time.Second)
		}
		return analysis.Fit(ctx, id, in, p, pr)
	}
	res, err := r.run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range res.Rows {
		want := 0.0
		if row.Method == "pca" {
			want = 5
		}
		if row.FitSeconds != want || row.EvalSeconds != 0 {
			t.Errorf("%s d=%d fold %v: got fit %v s, eval %v s, want %v s and 0 s", row.Method, row.D, row.Fold, row.FitSeconds, row.EvalSeconds, want)
		}
	}
}

// TestRowTimesJSON: the times survive metrics.json both ways, present
// even when 0 (ori's fit).
func TestRowTimesJSON(t *testing.T) {
	f := 2
	for _, row := range []Row{
		{Method: Ori, D: 3, Fold: &f, Metrics: map[string]float64{HammingLoss: 0.25}, EvalSeconds: 0.125},
		{Method: "pca", D: 2, Metrics: map[string]float64{Coverage: math.NaN()}, Folds: 3, FitSeconds: 1.5, EvalSeconds: 0.25},
	} {
		b, err := json.Marshal(row)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), fmt.Sprintf(`"fit_seconds":%v,"eval_seconds":%v`, row.FitSeconds, row.EvalSeconds)) {
			t.Errorf("got %s, want fit_seconds %v and eval_seconds %v", b, row.FitSeconds, row.EvalSeconds)
		}
		var back Row
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if back.FitSeconds != row.FitSeconds || back.EvalSeconds != row.EvalSeconds {
			t.Errorf("read back: got fit %v, eval %v, want %v, %v", back.FitSeconds, back.EvalSeconds, row.FitSeconds, row.EvalSeconds)
		}
	}
}
