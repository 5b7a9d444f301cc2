package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"mldr/internal/analysis"
	"mldr/internal/comparison"
	"mldr/internal/demo"
	"mldr/internal/evaluate"
	"mldr/internal/store"
)

func TestValidateStudy(t *testing.T) {
	ds := testDatasets()
	ds["ml3"] = mlRecord("ml3", 60, 20, 3)
	eval := &Evaluate{Classifier: "ridge"}
	tests := []struct {
		name   string
		req    Request
		status int
		field  string
		says   string
	}{
		{"dataset and datasets", Request{Dataset: "ml", Datasets: []string{"ml", "ml2"}, Method: "pca", Evaluate: eval}, 400, "datasets", "not both"},
		{"one data set", Request{Datasets: []string{"ml"}, Method: "pca", Evaluate: eval}, 400, "datasets", "at least 2"},
		{"a data set twice", Request{Datasets: []string{"ml", "ml2", "ml"}, Method: "pca", Evaluate: eval}, 400, "datasets", "twice"},
		{"unknown data set", Request{Datasets: []string{"ml", "nope"}, Method: "pca", Evaluate: eval}, 422, "datasets[1]", "no data set"},
		{"no evaluation", Request{Datasets: []string{"ml", "ml2"}, Method: "pca"}, 400, "evaluate", "evaluation"},
		{"a test set", Request{Datasets: []string{"ml", "ml2"}, TestDataset: "ml2", Method: "pca", Evaluate: eval}, 400, "test_dataset", "test_dataset"},
		{"no baseline", Request{Datasets: []string{"ml", "ml2"}, Method: "pca", Evaluate: &Evaluate{Classifier: "ridge", K: 10, Lambda: 0.1, Baseline: new(false)}}, 400, "evaluate.baseline", "leave baseline out (to leave ori out of the ranks, give rank_baseline false)"},
		{"kinds mixed", Request{Datasets: []string{"ml", "md"}, Method: "pca", Evaluate: eval}, 422, "datasets[1]", "one kind"},
		// d = 4 fits ml (6 labels) but not ml3 (3 labels): the refusal names ml3.
		{"d above one data set's bound", Request{Datasets: []string{"ml", "ml3"}, Method: "mddmp", Params: analysis.Params{D: 4}, Evaluate: eval}, 422, "params.d", "on data set  (ml3)"},
		{"predefined folds missing on one", Request{Datasets: []string{"ml", "ml2"}, Method: "pca", Split: &Split{Kind: SplitPredefined}, Evaluate: eval}, 422, "split", "(ml)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := tc.req
			req.Normalize()
			err := req.Validate(ds, Limits{})
			var re *RequestError
			if !errors.As(err, &re) {
				t.Fatalf("got %v, want a RequestError", err)
			}
			if re.Status != tc.status || re.Field != tc.field || !strings.Contains(re.Msg, tc.says) {
				t.Errorf("got %d %s %q, want %d %s containing %q", re.Status, re.Field, re.Msg, tc.status, tc.field, tc.says)
			}
		})
	}
	ok := Request{Datasets: []string{"ml", "ml2", "ml3"}, Methods: []string{"pca", "mddmp"}, Params: analysis.Params{D: 2}, Evaluate: eval}
	ok.Normalize()
	if err := ok.Validate(ds, Limits{}); err != nil {
		t.Errorf("a valid study: %v", err)
	}
	if got := ok.DatasetIDs(); !slices.Equal(got, []string{"ml", "ml2", "ml3"}) {
		t.Errorf("DatasetIDs: got %v", got)
	}
}

// addDemo stores another multi-label demo set, of another seed.
func (e *execEnv) addDemo(seed uint64) store.DatasetRecord {
	e.t.Helper()
	set, err := demo.Make("multilabel", seed)
	if err != nil {
		e.t.Fatal(err)
	}
	rec, err := e.store.Import(context.Background(), store.Upload{Name: set.FileName, FileName: set.FileName, Source: bytes.NewReader(set.CSV)})
	if err != nil {
		e.t.Fatal(err)
	}
	return rec
}

func TestExecuteStudy(t *testing.T) {
	e := newExecEnv(t)
	other := e.addDemo(7)
	ids := []string{e.ml.ID, other.ID}
	j, notes, err := e.run(Request{Datasets: ids, Methods: []string{"pca", "mddmp"}, Params: analysis.Params{D: 3},
		Split: &Split{Kind: SplitKFold, Folds: 3}, Evaluate: &Evaluate{Classifier: "ridge"}})
	if err != nil {
		t.Fatal(err)
	}
	dir := e.store.JobDir(j.ID)
	for _, f := range StudyFiles {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "pca")); err == nil {
		t.Error("a study wrote a method directory; it fits no result models")
	}
	var mf MetricsFile
	b, err := os.ReadFile(filepath.Join(dir, FileMetrics))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &mf); err != nil {
		t.Fatal(err)
	}
	// 2 data sets × (ori, pca, mddmp) × (3 folds + the mean).
	if len(mf.Rows) != 2*3*4 {
		t.Errorf("got %d rows, want 24", len(mf.Rows))
	}
	for i, r := range mf.Rows {
		if r.Dataset != ids[i/12] {
			t.Fatalf("row %d: data set %q, want %q", i, r.Dataset, ids[i/12])
		}
	}
	if len(mf.Datasets) != 2 || mf.Datasets[1].ID != other.ID || mf.Datasets[1].Name != other.Name {
		t.Errorf("metrics.json datasets: %+v", mf.Datasets)
	}
	// The same request on one data set gives the study's rows of it.
	one, _, err := e.run(Request{Dataset: other.ID, Methods: []string{"pca", "mddmp"}, Params: analysis.Params{D: 3},
		Split: &Split{Kind: SplitKFold, Folds: 3}, Evaluate: &Evaluate{Classifier: "ridge"}})
	if err != nil {
		t.Fatal(err)
	}
	var single MetricsFile
	b, _ = os.ReadFile(filepath.Join(e.store.JobDir(one.ID), FileMetrics))
	json.Unmarshal(b, &single)
	for i, r := range single.Rows {
		s := mf.Rows[12+i]
		if r.Dataset != "" || r.Method != s.Method || r.D != s.D || r.Metrics["hamming_loss"] != s.Metrics["hamming_loss"] {
			t.Errorf("row %d: alone %+v, in the study %+v", i, r, s)
		}
	}
	_ = notes
	// comparison.json: one comparison per metric at each method's own d,
	// the baseline among the methods, the scores those of metrics.json.
	var c comparison.File
	b, _ = os.ReadFile(filepath.Join(dir, FileComparison))
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	var hl *comparison.Comparison
	for i := range c.Comparisons {
		if c.Comparisons[i].Metric == "hamming_loss" {
			hl = &c.Comparisons[i]
		}
	}
	if hl == nil || hl.D != nil || !slices.Equal(hl.Methods, []string{"ori", "pca", "mddmp"}) || !slices.Equal(hl.Datasets, ids) {
		t.Fatalf("hamming_loss comparison: %+v", hl)
	}
	for _, r := range mf.Rows {
		if r.Fold != nil {
			continue
		}
		i, j := slices.Index(ids, r.Dataset), slices.Index(hl.Methods, r.Method)
		if got := hl.Scores[i][j]; got == nil || *got != r.Metrics["hamming_loss"] {
			t.Errorf("score of %s on %s: got %v, want %v", r.Method, r.Dataset, got, r.Metrics["hamming_loss"])
		}
	}
	if len(hl.Pairs) != 3 || len(hl.PairedT) != 2 || hl.Friedman == nil {
		t.Errorf("pairs %d, paired t %d, friedman %v", len(hl.Pairs), len(hl.PairedT), hl.Friedman)
	}
}

// A study with the svm (LIBLINEAR's -s 3) compares seed 004's example precision
// and recall too, higher being better.
func TestExecuteStudySVM(t *testing.T) {
	e := newExecEnv(t)
	other := e.addDemo(7)
	j, _, err := e.run(Request{Datasets: []string{e.ml.ID, other.ID}, Methods: []string{"pca"}, Params: analysis.Params{D: 3},
		Split: &Split{Kind: SplitKFold, Folds: 3}, Evaluate: &Evaluate{Classifier: "svm"}})
	if err != nil {
		t.Fatal(err)
	}
	var c comparison.File
	b, _ := os.ReadFile(filepath.Join(e.store.JobDir(j.ID), FileComparison))
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{evaluate.ExamplePrecision, evaluate.ExampleRecall} {
		i := slices.IndexFunc(c.Comparisons, func(c comparison.Comparison) bool { return c.Metric == m })
		if i < 0 || c.Comparisons[i].Better != "higher" || c.Comparisons[i].Scores[1][1] == nil {
			t.Errorf("%s: no comparison of it, higher being better, with scores", m)
		}
	}
}

// A grid of dims makes one comparison per d, of the methods only.
func TestStudyInputGrid(t *testing.T) {
	fold := 1
	rows := []evaluate.Row{
		{Dataset: "a", Method: "ori", D: 9, Metrics: map[string]float64{"hamming_loss": 0.3}},
		{Dataset: "a", Method: "pca", D: 2, Fold: &fold, Metrics: map[string]float64{"hamming_loss": 0.21}},
		{Dataset: "a", Method: "pca", D: 2, Metrics: map[string]float64{"hamming_loss": 0.2}},
		{Dataset: "a", Method: "pca", D: 4, Metrics: map[string]float64{"hamming_loss": 0.1}},
		{Dataset: "b", Method: "pca", D: 2, Metrics: map[string]float64{"hamming_loss": 0.4}},
	}
	req := Request{Datasets: []string{"a", "b"}, Method: "pca", Evaluate: &Evaluate{Dims: []int{4, 2, 4}}}
	in := studyInput(req, []string{"A", "B"}, evaluationSpec(req), rows)
	if !slices.Equal(in.Methods, []string{"pca"}) || len(in.Groups) != 2 || *in.Groups[0].Choice.D != 2 || *in.Groups[1].Choice.D != 4 {
		t.Fatalf("got methods %v, %d groups", in.Methods, len(in.Groups))
	}
	g := in.Groups[0]
	if len(g.Results) != 2 || g.Results[0].Mean["hamming_loss"] != 0.2 || len(g.Results[0].Folds) != 1 || g.Results[1].Dataset != "b" {
		t.Errorf("d = 2: %+v", g.Results)
	}
	if len(in.Groups[1].Results) != 1 {
		t.Errorf("d = 4: %+v", in.Groups[1].Results)
	}
}

// Without a grid, one comparison of the baseline and the methods, each at
// its own d, which it names when every method but the baseline ran at one
// d on every data set (a study with params.d).
func TestStudyInputCommonD(t *testing.T) {
	hl := map[string]float64{"hamming_loss": 0.2}
	fold := 1
	for _, tc := range []struct {
		name string
		rows []evaluate.Row
		want int // 0: none
	}{
		{"one d", []evaluate.Row{{Dataset: "a", Method: "ori", D: 9, Metrics: hl}, {Dataset: "a", Method: "pca", D: 6, Metrics: hl},
			{Dataset: "b", Method: "pca", D: 6, Metrics: hl}, {Dataset: "b", Method: "mddmp", D: 6, Metrics: hl}, {Dataset: "b", Method: "mddmp", D: 5, Fold: &fold, Metrics: hl}}, 6},
		{"two", []evaluate.Row{{Dataset: "a", Method: "pca", D: 6, Metrics: hl}, {Dataset: "b", Method: "pca", D: 5, Metrics: hl}}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := Request{Datasets: []string{"a", "b"}, Methods: []string{"pca", "mddmp"}, Evaluate: &Evaluate{}}
			in := studyInput(req, []string{"A", "B"}, evaluationSpec(req), tc.rows)
			if len(in.Groups) != 1 || in.Groups[0].Choice.D != nil {
				t.Fatalf("got %d groups, want one at each method's own d", len(in.Groups))
			}
			got := in.Groups[0].Choice.CommonD
			if (got == nil) != (tc.want == 0) || got != nil && *got != tc.want {
				t.Errorf("CommonD: got %v, want %d (0: none)", got, tc.want)
			}
		})
	}
}

// A percent grid makes one comparison per percentage, whatever d each
// data set gave it; lda's rows answer a grid of dims by their d per
// variable.
func TestStudyInputPercentAndLDA(t *testing.T) {
	p10, p50 := 10.0, 50.0
	rows := []evaluate.Row{
		{Dataset: "a", Method: "pca", D: 2, Percent: &p10, Metrics: map[string]float64{"hamming_loss": 0.3}},
		{Dataset: "b", Method: "pca", D: 7, Percent: &p10, Metrics: map[string]float64{"hamming_loss": 0.2}},
		{Dataset: "a", Method: "pca", D: 9, Percent: &p50, Metrics: map[string]float64{"hamming_loss": 0.1}},
	}
	req := Request{Datasets: []string{"a", "b"}, Method: "pca", Evaluate: &Evaluate{Percent: []float64{50, 10}}}
	in := studyInput(req, []string{"A", "B"}, evaluationSpec(req), rows)
	if len(in.Groups) != 2 || *in.Groups[0].Choice.Percent != 10 || in.Groups[0].Choice.PercentOf != "features" || len(in.Groups[0].Results) != 2 || len(in.Groups[1].Results) != 1 {
		t.Errorf("percent grid: %+v", in.Groups)
	}
	lda := []evaluate.Row{{Dataset: "a", Method: "lda", D: 4, DPerVariable: 2, Metrics: map[string]float64{"hamming_score": 0.8}}}
	req = Request{Datasets: []string{"a", "b"}, Method: "lda", Evaluate: &Evaluate{Dims: []int{2, 4}}}
	in = studyInput(req, []string{"A", "B"}, evaluationSpec(req), lda)
	if len(in.Groups[0].Results) != 1 || len(in.Groups[1].Results) != 0 {
		t.Errorf("lda at d = 2 per variable: %+v", in.Groups)
	}
}

// A note every data set gives is said once, naming them.
func TestStudyNotes(t *testing.T) {
	got := studyNotes([]string{"edm", "enb", "jura"}, [][]string{{"lda: per variable", "a"}, {"lda: per variable"}, {"b", "lda: per variable"}})
	want := []string{"edm, enb, jura: lda: per variable", "edm: a", "jura: b"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// rank_baseline false leaves ori out of the ranks of the comparison at
// the methods' own d; only a study takes it.
func TestStudyRankBaseline(t *testing.T) {
	rows := []evaluate.Row{
		{Dataset: "a", Method: "ori", D: 9, Metrics: map[string]float64{"hamming_loss": 0.3}},
		{Dataset: "a", Method: "pca", D: 2, Metrics: map[string]float64{"hamming_loss": 0.2}},
	}
	for _, tc := range []struct {
		rank *bool
		want []string
	}{{nil, nil}, {new(true), nil}, {new(false), []string{"ori"}}} {
		req := Request{Datasets: []string{"a", "b"}, Method: "pca", Evaluate: &Evaluate{}, RankBaseline: tc.rank}
		in := studyInput(req, []string{"A", "B"}, evaluationSpec(req), rows)
		if !slices.Equal(in.Methods, []string{"ori", "pca"}) || !slices.Equal(in.Unranked, tc.want) {
			t.Errorf("rank_baseline %v: methods %v, unranked %v, want [ori pca], %v", show(tc.rank), in.Methods, in.Unranked, tc.want)
		}
	}
	ds := testDatasets()
	for _, tc := range []struct {
		name  string
		req   Request
		field string
	}{
		{"one data set", Request{Dataset: "ml", Method: "pca", Evaluate: &Evaluate{Classifier: "ridge"}, RankBaseline: new(false)}, "rank_baseline"},
		{"a study", Request{Datasets: []string{"ml", "ml2"}, Method: "pca", Params: analysis.Params{D: 2}, Evaluate: &Evaluate{Classifier: "ridge"}, RankBaseline: new(false)}, ""},
	} {
		req := tc.req
		req.Normalize()
		err := req.Validate(ds, Limits{})
		var re *RequestError
		switch {
		case tc.field == "" && err != nil:
			t.Errorf("%s: got %v, want it accepted", tc.name, err)
		case tc.field != "" && (!errors.As(err, &re) || re.Field != tc.field || re.Status != 400):
			t.Errorf("%s: got %v, want 400 on %s", tc.name, err, tc.field)
		}
	}
}

func show(b *bool) any {
	if b == nil {
		return nil
	}
	return *b
}
