package jobs

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"mldr/internal/analysis"
	"mldr/internal/evaluate"
	"mldr/internal/store"
)

// TestExecuteLabelResults runs multi-label jobs with an evaluation and
// reads their label_results.csv back through the service: a line per
// label with the data set's names; rows the label's ones among the data's
// rows (the test data set's included), counted here from the labels;
// tested the ones among the rows a split tests; a cell per distinct
// (method, d) of metrics.json's mean rows, each with evaluate.Run's
// per-label counts; and the file's precision, recall and F1 columns those
// of its counts, empty where undefined.
func TestExecuteLabelResults(t *testing.T) {
	e := newExecEnv(t)
	test := e.addDemo(7)
	for _, tc := range []struct {
		name string
		req  Request
	}{
		{"k-fold", Request{Dataset: e.ml.ID, Methods: []string{"pca", "plst"}, Params: analysis.Params{D: 2}, Split: &Split{Kind: SplitKFold, Folds: 3}, Evaluate: &Evaluate{Classifier: "knn"}}},
		{"test set", Request{Dataset: e.ml.ID, TestDataset: test.ID, Methods: []string{"pca", "mddmp"}, Params: analysis.Params{D: 2}, Evaluate: &Evaluate{Classifier: "ridge"}}},
		{"percent", Request{Dataset: e.ml.ID, Method: "mddmp", Split: &Split{Kind: SplitKFold, Folds: 2}, Evaluate: &Evaluate{Percent: []float64{30, 34, 100}, Of: "rank"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j, _, err := e.run(tc.req)
			if err != nil {
				t.Fatal(err)
			}
			j = succeeded(j)
			got, err := e.serviceOver(j).LabelResults(j.ID)
			if err != nil {
				t.Fatal(err)
			}
			p, err := e.exec.plan(j.Request)
			if err != nil {
				t.Fatal(err)
			}
			names := p.train.Labels.Strings()
			n, q := p.data.LabelDims()
			if len(got.Labels) != q {
				t.Fatalf("%d labels, want %d", len(got.Labels), q)
			}
			tested := make([]bool, n)
			for _, sp := range p.splits {
				for _, i := range sp.Test {
					tested[i] = true
				}
			}
			for l, lr := range got.Labels {
				rows, had := 0, 0
				for i := range n {
					if p.data.Y.At(i, l) != 0 {
						rows++
						if tested[i] {
							had++
						}
					}
				}
				if lr.Name != names[l] || lr.Rows != rows || lr.Tested != had {
					t.Errorf("label %d: got %q, %d rows, %d tested; want %q, %d, %d", l, lr.Name, lr.Rows, lr.Tested, names[l], rows, had)
				}
			}
			var mf MetricsFile
			dir := e.store.JobDir(j.ID)
			if err := readJSON(filepath.Join(dir, FileMetrics), &mf); err != nil {
				t.Fatal(err)
			}
			var cells []LabelCell
			for _, r := range mf.Rows {
				if c := (LabelCell{Method: r.Method, D: r.D}); r.Fold == nil && !slices.Contains(cells, c) {
					cells = append(cells, c)
				}
			}
			if !slices.Equal(got.Cells, cells) {
				t.Fatalf("cells %v, want metrics.json's %v", got.Cells, cells)
			}
			spec := evaluationSpec(j.Request)
			spec.RowErrors = true
			want, err := evaluate.Run(context.Background(), p.data, p.splits, spec, nil)
			if err != nil {
				t.Fatal(err)
			}
			for c, cell := range got.Cells {
				i := slices.IndexFunc(want.RowErrors, func(e evaluate.RowErrors) bool { return e.Method == cell.Method && e.D == cell.D })
				w := want.RowErrors[i]
				for l, lr := range got.Labels {
					if g := lr.Counts[c]; g.TP != int(w.TP[l]) || g.FP != int(w.FP[l]) || g.FN != int(w.FN[l]) {
						t.Errorf("%s, label %d: counts %+v, want %d, %d, %d", cell.Key(), l, g, w.TP[l], w.FP[l], w.FN[l])
					}
				}
			}
			checkDerivedColumns(t, filepath.Join(dir, FileLabelResults), got)
		})
	}
}

// checkDerivedColumns reads the file as CSV and checks that each cell's
// precision, recall and F1 are its counts' (empty for a zero denominator).
func checkDerivedColumns(t *testing.T, path string, lr *LabelResultsFile) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != len(lr.Labels)+1 || len(recs[0]) != 3+6*len(lr.Cells) {
		t.Fatalf("%d lines of %d fields, want %d of %d", len(recs), len(recs[0]), len(lr.Labels)+1, 3+6*len(lr.Cells))
	}
	for c, cell := range lr.Cells {
		for k, f := range []string{"tp", "fp", "fn", "precision", "recall", "f1"} {
			if h := recs[0][3+6*c+k]; h != cell.Key()+"_"+f {
				t.Errorf("column %d: %q, want %q", 3+6*c+k, h, cell.Key()+"_"+f)
			}
		}
	}
	undefined := 0
	for l, rec := range recs[1:] {
		for c := range lr.Cells {
			n := lr.Labels[l].Counts[c]
			for k, want := range []struct{ num, den int }{{n.TP, n.TP + n.FP}, {n.TP, n.TP + n.FN}, {2 * n.TP, 2*n.TP + n.FP + n.FN}} {
				field := rec[3+6*c+3+k]
				if want.den == 0 {
					undefined++
					if field != "" {
						t.Errorf("label %d cell %d field %d: %q, want empty (0/0)", l, c, k, field)
					}
					continue
				}
				v, err := strconv.ParseFloat(field, 64)
				if err != nil || math.Abs(v-float64(want.num)/float64(want.den)) > 1e-15 {
					t.Errorf("label %d cell %d field %d: %q, want %d/%d", l, c, k, field, want.num, want.den)
				}
			}
		}
	}
	t.Logf("%d labels, %d undefined values", len(lr.Labels), undefined)
}

// TestLabelResultsRefusals: jobs without per-label results answer 404
// saying why, and write no file: a job without an evaluation, a study, a
// multi-dimensional data set; a job not succeeded 409.
func TestLabelResultsRefusals(t *testing.T) {
	e := newExecEnv(t)
	other := e.addDemo(7)
	plain, _, err := e.run(Request{Dataset: e.ml.ID, Method: "pca", Params: analysis.Params{D: 2}})
	if err != nil {
		t.Fatal(err)
	}
	study, _, err := e.run(Request{Datasets: []string{e.ml.ID, other.ID}, Method: "pca", Params: analysis.Params{D: 2},
		Split: &Split{Kind: SplitKFold, Folds: 2}, Evaluate: &Evaluate{Classifier: "ridge"}})
	if err != nil {
		t.Fatal(err)
	}
	md, _, err := e.run(Request{Dataset: e.md.ID, Method: "sdem", Params: analysis.Params{D: 2}, Evaluate: &Evaluate{Classifier: "ridge"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range []Job{plain, study, md} {
		if _, err := os.Stat(filepath.Join(e.store.JobDir(j.ID), FileLabelResults)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("job %v wrote %s: %v", j.Request.MethodIDs(), FileLabelResults, err)
		}
	}
	failed := plain
	failed.ID, failed.Status, failed.Error = store.NewID(), Failed, "made to fail" // an id of its own: a record of plain under another id
	svc := e.serviceOver(succeeded(plain), succeeded(study), succeeded(md), failed)
	for _, tc := range []struct {
		name   string
		id     string
		status int
		msg    string
	}{
		{"no evaluation", plain.ID, http.StatusNotFound, "this job ran no evaluation, so it has no per-label results; run one with an evaluation"},
		{"study", study.ID, http.StatusNotFound, "a study over several data sets keeps no per-label results; a job on one data set with an evaluation does"},
		{"multi-dimensional", md.ID, http.StatusNotFound, fmt.Sprintf("job %s has no per-label results: they are written for multi-label data (not multi-dimensional), "+
			"and results written before they existed have none (POST /api/jobs/%s/rerun)", md.ID, md.ID)},
		{"failed", failed.ID, http.StatusConflict, fmt.Sprintf("job %s has failed; its per-label results are there once it has succeeded", failed.ID)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := svc.LabelResults(tc.id)
			status, _, ok := Status(err)
			if !ok || status != tc.status || err.Error() != tc.msg {
				t.Errorf("got %d %v, want %d %q", status, err, tc.status, tc.msg)
			}
		})
	}
}

// TestReadLabelResults reads a file by hand and refuses damaged ones.
func TestReadLabelResults(t *testing.T) {
	good := "label,rows,tested,ori_d5_tp,ori_d5_fp,ori_d5_fn,ori_d5_precision,ori_d5_recall,ori_d5_f1,my_method_d12_tp,my_method_d12_fp,my_method_d12_fn,my_method_d12_precision,my_method_d12_recall,my_method_d12_f1\n" +
		"\"a,b\",4,3,2,1,1,0.6666666666666666,0.6666666666666666,0.6666666666666666,0,0,3,,0,0\n" +
		"c,0,0,0,0,0,,,,0,2,0,0,,0\n"
	f, err := ReadLabelResults(strings.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	wantCells := []LabelCell{{"ori", 5}, {"my_method", 12}}
	if !slices.Equal(f.Cells, wantCells) || len(f.Labels) != 2 {
		t.Fatalf("cells %v and %d labels, want %v and 2", f.Cells, len(f.Labels), wantCells)
	}
	a, c := f.Labels[0], f.Labels[1]
	if a.Name != "a,b" || a.Rows != 4 || a.Tested != 3 || a.Counts[0] != (LabelCounts{2, 1, 1}) || a.Counts[1] != (LabelCounts{0, 0, 3}) {
		t.Errorf("first label: %+v", a)
	}
	if c.Counts[1].Precision() != 0 || !math.IsNaN(c.Counts[1].Recall()) || c.Counts[1].F1() != 0 || !math.IsNaN(c.Counts[0].F1()) {
		t.Errorf("second label's ratios: %v %v %v %v", c.Counts[1].Precision(), c.Counts[1].Recall(), c.Counts[1].F1(), c.Counts[0].F1())
	}
	for _, bad := range []string{
		"",
		"name,rows,tested,ori_d5_tp,a,b,c,d,e\n",
		"label,rows,tested,ori_tp,a,b,c,d,e\n",
		"label,rows,tested,ori_dx_tp,a,b,c,d,e\n",
		"label,rows,tested,ori_d5_tp,a,b,c,d\n",
		"label,rows,tested,ori_d5_tp,a,b,c,d,e\nx,1,1,-1,0,0,,,\n",
		"label,rows,tested,ori_d5_tp,a,b,c,d,e\nx,1,one,1,0,0,,,\n",
		"label,rows,tested,ori_d5_tp,a,b,c,d,e\nx,1,1,1,0\n",
	} {
		if _, err := ReadLabelResults(strings.NewReader(bad)); !errors.Is(err, errBadLabelResults) {
			t.Errorf("%q: got %v, want errBadLabelResults", bad, err)
		}
	}
}
