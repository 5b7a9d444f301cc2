package jobs

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"mldr/internal/analysis"
	"mldr/internal/demo"
	"mldr/internal/evaluate"
	"mldr/internal/store"
)

type execEnv struct {
	t     *testing.T
	store *store.Store
	exec  *Executor
	ml    store.DatasetRecord
	md    store.DatasetRecord
}

func newExecEnv(t *testing.T) *execEnv {
	t.Helper()
	st, err := store.Open(store.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e := &execEnv{t: t, store: st, exec: NewExecutor(st, "test")}
	for _, kind := range []string{"multilabel", "multidim"} {
		set, _ := demo.Make(kind, demo.Seed)
		up := store.Upload{FileName: set.FileName, Source: bytes.NewReader(set.CSV)}
		var folds strings.Builder
		if kind == "multidim" { // three predefined folds over the 400 rows
			folds.WriteString("fold,split,row\n")
			for f := range 3 {
				for r := 1; r <= 400; r++ {
					part := "train"
					if r%3 == f {
						part = "test"
					}
					fmt.Fprintf(&folds, "%d,%s,%d\n", f+1, part, r)
				}
			}
		}
		st2, _ := st.Stage()
		if err := st2.ReceiveSource(context.Background(), up.FileName, up.Source, 0); err != nil {
			t.Fatal(err)
		}
		if folds.Len() > 0 {
			if err := st2.ReceiveFolds(context.Background(), strings.NewReader(folds.String())); err != nil {
				t.Fatal(err)
			}
		}
		rec, err := st.CreateDataset(context.Background(), st2, kind, up.Options)
		if err != nil {
			t.Fatal(err)
		}
		if kind == "multilabel" {
			e.ml = rec
		} else {
			e.md = rec
		}
	}
	return e
}

// run executes a normalized, validated request as job id.
func (e *execEnv) run(req Request) (Job, []string, error) {
	e.t.Helper()
	req.Normalize()
	if err := req.Validate(e.store, Limits{}); err != nil {
		e.t.Fatalf("invalid request: %v", err)
	}
	j := Job{ID: store.NewID(), Request: req, CreatedAt: time.Now()}
	var seen []float64
	notes, err := e.exec.Execute(context.Background(), j, func(p float64, _, _ string) { seen = append(seen, p) })
	for i := 1; i < len(seen); i++ {
		if seen[i] < seen[i-1] {
			e.t.Errorf("progress went back: %v", seen)
			break
		}
	}
	return j, notes, err
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// readProjectedCSV reads the projected.csv that the first download of a
// method's projected rows derives from FileProjectedRows in dir (the
// method's result directory), as text.
func projectedCSVText(t *testing.T, dir string) []byte {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, FileProjectedRows))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	pf, err := openProjected(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := writeProjectedCSV(&b, pf); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// readProjectedCSV is projectedCSVText's records.
func readProjectedCSV(t *testing.T, dir string) [][]string {
	t.Helper()
	rows, err := csv.NewReader(bytes.NewReader(projectedCSVText(t, dir))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func TestExecuteMethodsAndEvaluation(t *testing.T) {
	e := newExecEnv(t)
	j, _, err := e.run(Request{Dataset: e.ml.ID, Methods: []string{"pca", "mddmp", "cplst"}, Params: analysis.Params{D: 3},
		Evaluate: &Evaluate{Classifier: "ridge", Dims: []int{2, 3}}})
	if err != nil {
		t.Fatal(err)
	}
	dir := e.store.JobDir(j.ID)
	for _, m := range []string{"pca", "mddmp", "cplst"} {
		for _, f := range MethodFiles {
			if f == FileProjected { // derived at its first download
				f = FileProjectedRows
			}
			if _, err := os.Stat(filepath.Join(dir, m, f)); err != nil {
				t.Errorf("%s/%s: %v", m, f, err)
			}
		}
	}
	// Projection rows: the features for pca, the labels for cplst.
	if rows := readCSV(t, filepath.Join(dir, "pca", FileProjectionCSV)); len(rows) != 1+24 || strings.Join(rows[0], ",") != "name,c1,c2,c3" {
		t.Errorf("pca projection.csv: %d rows, header %v", len(rows), rows[0])
	}
	if rows := readCSV(t, filepath.Join(dir, "cplst", FileProjectionCSV)); len(rows) != 1+6 || rows[1][0] != "beach" {
		t.Errorf("cplst projection.csv: %d rows, first %v", len(rows), rows[1])
	}
	// projected.csv: the 480 training rows, then the 120 test rows.
	rows := readProjectedCSV(t, filepath.Join(dir, "mddmp"))
	if len(rows) != 601 || rows[1][1] != "train" || rows[600][1] != "test" || rows[481][1] != "test" {
		t.Errorf("projected.csv: %d rows, splits %v %v %v", len(rows), rows[1][1], rows[481][1], rows[600][1])
	}
	m, err := ReadManifest(filepath.Join(dir, "mddmp"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Dataset.SHA256 != e.ml.SHA256 || m.D != 3 || m.Seed != 1 || m.Version != "test" || len(m.Projection) != 24 || len(m.Means) != 24 {
		t.Errorf("manifest: %+v", m)
	}
	var metrics MetricsFile
	b, _ := os.ReadFile(filepath.Join(dir, FileMetrics))
	if err := json.Unmarshal(b, &metrics); err != nil {
		t.Fatal(err)
	}
	var methods []string
	for _, r := range metrics.Rows {
		if r.Fold == nil {
			methods = append(methods, fmt.Sprintf("%s/%d", r.Method, r.D))
		}
	}
	want := []string{"ori/24", "pca/2", "pca/3", "mddmp/2", "mddmp/3", "cplst/2", "cplst/3"}
	if !slices.Equal(methods, want) {
		t.Errorf("metrics cells: got %v, want %v", methods, want)
	}
	if entries, _ := os.ReadDir(filepath.Join(e.store.Dir(), "tmp")); len(entries) != 0 {
		t.Errorf("staging left behind: %d entries", len(entries))
	}
}

// A second job with the same data, method and parameters but a smaller d
// reuses the decomposition; the result equals a fresh fit's. A larger d
// than the cached fit computed (it computes only the leading pairs) is
// fitted again, not cut from too few directions.
func TestExecuteReusesDecomposition(t *testing.T) {
	e := newExecEnv(t)
	if _, notes, err := e.run(Request{Dataset: e.ml.ID, Method: "mvmd", Params: analysis.Params{D: 4, Beta: analysis.Float(0.3)}}); err != nil || len(notes) != 0 {
		t.Fatalf("first: %v %v", notes, err)
	}
	j, notes, err := e.run(Request{Dataset: e.ml.ID, Method: "mvmd", Params: analysis.Params{D: 2, Beta: analysis.Float(0.3)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "reused the decomposition") {
		t.Errorf("got notes %q, want the reuse noted", notes)
	}
	cached := readCSV(t, filepath.Join(e.store.JobDir(j.ID), "mvmd", FileProjectionCSV))
	fresh := NewExecutor(e.store, "test")
	e.exec = fresh
	j2, notes, _ := e.run(Request{Dataset: e.ml.ID, Method: "mvmd", Params: analysis.Params{D: 2, Beta: analysis.Float(0.3)}})
	again := readCSV(t, filepath.Join(e.store.JobDir(j2.ID), "mvmd", FileProjectionCSV))
	// The fresh fit computes 2 pairs, the cached one 4: the same to
	// rounding, not bit for bit.
	if len(notes) != 0 || !sameNumbers(cached, again, 1e-9) {
		t.Error("the cut decomposition differs from a fresh fit")
	}
	// More than the cached fit (d = 2) computed: fitted again.
	j3, notes, err := e.run(Request{Dataset: e.ml.ID, Method: "mvmd", Params: analysis.Params{D: 3, Beta: analysis.Float(0.3)}})
	if err != nil || len(notes) != 0 {
		t.Errorf("d = 3 after a fit of d = 2: got notes %q, error %v; want a new fit, no note", notes, err)
	}
	var eig EigenFile
	b, _ := os.ReadFile(filepath.Join(e.store.JobDir(j3.ID), "mvmd", FileEigenvalues))
	if err := json.Unmarshal(b, &eig); err != nil || eig.D != 3 || len(eig.Eigenvalues) != 3 || eig.Order <= 3 || eig.Total <= 0 {
		t.Errorf("eigenvalues.json: got d = %d, %d eigenvalues of order %d, total %v (%v); want d = 3 and only the 3 leading of more",
			eig.D, len(eig.Eigenvalues), eig.Order, eig.Total, err)
	}
	// Other parameters: no reuse.
	if _, notes, _ := e.run(Request{Dataset: e.ml.ID, Method: "mvmd", Params: analysis.Params{D: 2, Beta: analysis.Float(0.5)}}); len(notes) != 0 {
		t.Errorf("another beta reused: %q", notes)
	}
}

func TestExecuteSplitKinds(t *testing.T) {
	e := newExecEnv(t)
	// k-fold: the result model uses every row.
	j, _, err := e.run(Request{Dataset: e.ml.ID, Method: "pca", Params: analysis.Params{D: 2}, Split: &Split{Kind: SplitKFold, Folds: 3}, Evaluate: &Evaluate{}})
	if err != nil {
		t.Fatal(err)
	}
	rows := readProjectedCSV(t, filepath.Join(e.store.JobDir(j.ID), "pca"))
	if len(rows) != 601 || rows[1][1] != "all" {
		t.Errorf("kfold projected.csv: %d rows, split %q", len(rows), rows[1][1])
	}
	var metrics MetricsFile
	b, _ := os.ReadFile(filepath.Join(e.store.JobDir(j.ID), FileMetrics))
	json.Unmarshal(b, &metrics)
	if len(metrics.Rows) != 2*(3+1) {
		t.Errorf("kfold metrics: got %d rows, want 8", len(metrics.Rows))
	}
	// Multi-label data: the classifier records the propensity parameters
	// the propensity-scored metrics used, the defaults when none was given.
	if o := metrics.Classifier; o.PsA != 0.55 || o.PsB != 1.5 {
		t.Errorf("kfold metrics: classifier %+v, want ps_a 0.55 and ps_b 1.5", o)
	}
	// Predefined folds of multi-dimensional data.
	j, _, err = e.run(Request{Dataset: e.md.ID, Methods: []string{"sdem", "lda"}, Split: &Split{Kind: SplitPredefined}, Evaluate: &Evaluate{Classifier: "mlknn", Dims: []int{1, 2}}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(filepath.Join(e.store.JobDir(j.ID), FileMetrics))
	metrics = MetricsFile{}
	json.Unmarshal(b, &metrics)
	if len(metrics.Rows) != 5*(3+1) || metrics.Rows[3].Metrics["hamming_score"] == 0 {
		t.Errorf("predefined folds: %d rows", len(metrics.Rows))
	}
	// The svm (LIBLINEAR's -s 3): metrics.json records its c and eps.
	j, _, err = e.run(Request{Dataset: e.md.ID, Methods: []string{"sdem"}, Split: &Split{Kind: SplitPredefined}, Evaluate: &Evaluate{Classifier: "svm"}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(filepath.Join(e.store.JobDir(j.ID), FileMetrics))
	metrics = MetricsFile{}
	json.Unmarshal(b, &metrics)
	if o := metrics.Classifier; o.Classifier != "svm" || o.C != 1 || o.Eps != 1e-4 || o.PsA != 0 || o.PsB != 0 || len(metrics.Rows) != 2*(3+1) {
		t.Errorf("svm: classifier %+v, %d rows", o, len(metrics.Rows))
	}
	// mds: no projection, embedding of every row.
	j, _, err = e.run(Request{Dataset: e.ml.ID, Method: "mds", Params: analysis.Params{D: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(e.store.JobDir(j.ID), "mds", FileProjectionNPY)); !os.IsNotExist(err) {
		t.Error("mds has a projection file")
	}
	if rows := readProjectedCSV(t, filepath.Join(e.store.JobDir(j.ID), "mds")); len(rows) != 601 {
		t.Errorf("mds projected.csv: %d rows", len(rows))
	}
}

func TestExecuteCancelLeavesNothing(t *testing.T) {
	e := newExecEnv(t)
	req := Request{Dataset: e.ml.ID, Methods: []string{"pca", "mddmp"}, Evaluate: &Evaluate{}}
	req.Normalize()
	ctx, cancel := context.WithCancel(context.Background())
	j := Job{ID: store.NewID(), Request: req}
	_, err := e.exec.Execute(ctx, j, func(p float64, _, _ string) {
		if p > 0.3 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if _, err := os.Stat(e.store.JobDir(j.ID)); !os.IsNotExist(err) {
		t.Error("a canceled job has results")
	}
	if entries, _ := os.ReadDir(filepath.Join(e.store.Dir(), "tmp")); len(entries) != 0 {
		t.Errorf("staging left behind: %d entries", len(entries))
	}
}

func TestManifestTransform(t *testing.T) {
	e := newExecEnv(t)
	j, _, err := e.run(Request{Dataset: e.ml.ID, Method: "pca", Params: analysis.Params{D: 2}})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := ReadManifest(filepath.Join(e.store.JobDir(j.ID), "pca"))
	ds, _ := e.store.LoadDataset(e.ml.ID)
	z, err := m.Transform(ds.X)
	if err != nil {
		t.Fatal(err)
	}
	rows := readProjectedCSV(t, filepath.Join(e.store.JobDir(j.ID), "pca"))
	for i := range 5 {
		if got := fmt.Sprint(z.At(i, 0)); got != rows[i+1][2] {
			t.Errorf("row %d: Transform %s, projected.csv %s", i, got, rows[i+1][2])
		}
	}
	j, _, _ = e.run(Request{Dataset: e.ml.ID, Method: "plst", Params: analysis.Params{D: 2}})
	m, _ = ReadManifest(filepath.Join(e.store.JobDir(j.ID), "plst"))
	if _, err := m.Transform(ds.X); !errors.Is(err, ErrNoProjection) {
		t.Errorf("plst Transform: got %v, want ErrNoProjection", err)
	}
}

// A job with a test data set records its split as test_dataset (not
// none), and metrics.json says the metrics come from that set.
func TestExecuteTestSetSplit(t *testing.T) {
	e := newExecEnv(t)
	test := e.addDemo(7)
	j, _, err := e.run(Request{Dataset: e.ml.ID, TestDataset: test.ID, Method: "pca", Params: analysis.Params{D: 2}, Evaluate: &Evaluate{Classifier: "ridge"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := j.Request.Split.Kind; got != SplitTestSet {
		t.Errorf("split kind: got %q, want %q", got, SplitTestSet)
	}
	var mf MetricsFile
	b, _ := os.ReadFile(filepath.Join(e.store.JobDir(j.ID), FileMetrics))
	if err := json.Unmarshal(b, &mf); err != nil {
		t.Fatal(err)
	}
	if mf.Split.Kind != SplitTestSet || mf.TestDataset == nil || mf.TestDataset.ID != test.ID || !strings.Contains(mf.EvaluatedOn, "test data set "+test.Name) {
		t.Errorf("metrics.json: split %q, test set %+v, evaluated on %q", mf.Split.Kind, mf.TestDataset, mf.EvaluatedOn)
	}
	// The evaluation's training part is the result model's: it is not
	// fitted twice.
	if !slices.Contains(mf.Notes, "pca: evaluated with the result model fitted on the same training rows, not fitted a second time") {
		t.Errorf("metrics.json notes %q: none says pca's result model was evaluated", mf.Notes)
	}
	// A request stored before the split had its name ("none") reads as one.
	old := Request{Dataset: e.ml.ID, TestDataset: test.ID, Method: "pca", Split: &Split{Kind: SplitNone}, Evaluate: &Evaluate{}}
	old.Normalize()
	if err := old.Validate(e.store, Limits{}); err != nil || old.Split.Kind != SplitTestSet {
		t.Errorf("an old request: split %q, %v", old.Split.Kind, err)
	}
	lone := Request{Dataset: e.ml.ID, Method: "pca", Split: &Split{Kind: SplitTestSet}}
	lone.Normalize()
	var re *RequestError
	if err := lone.Validate(e.store, Limits{}); !errors.As(err, &re) || re.Field != "split.kind" {
		t.Errorf("split test_dataset without a test set: got %v, want a refusal of split.kind", err)
	}
}

// With folds, projected.csv says in which fold each row is tested.
func TestExecuteProjectedFolds(t *testing.T) {
	e := newExecEnv(t)
	j, _, err := e.run(Request{Dataset: e.ml.ID, Method: "pca", Params: analysis.Params{D: 2}, Split: &Split{Kind: SplitKFold, Folds: 4}, Evaluate: &Evaluate{Classifier: "ridge"}})
	if err != nil {
		t.Fatal(err)
	}
	rows := readProjectedCSV(t, filepath.Join(e.store.JobDir(j.ID), "pca"))
	if got := strings.Join(rows[0], ","); got != "row,split,fold,c1,c2" {
		t.Fatalf("header: got %s", got)
	}
	splits, _ := evaluate.KFold(600, 4, DefaultSeed)
	count := map[string]int{}
	for _, r := range rows[1:] {
		count[r[2]]++
		row, _ := strconv.Atoi(r[0])
		if f, _ := strconv.Atoi(r[2]); !slices.Contains(splits[f-1].Test, row-1) {
			t.Fatalf("row %s: fold %s, but that fold does not test it", r[0], r[2])
		}
	}
	for f := range 4 {
		if got, want := count[strconv.Itoa(f+1)], len(splits[f].Test); got != want {
			t.Errorf("fold %d: %d rows, want %d", f+1, got, want)
		}
	}
	// The reader of the pages still finds the components, in the binary
	// file and in the CSV that results written before it hold.
	p, err := e.serviceOver(succeeded(j)).Projected(j.ID, "pca", 1)
	if err != nil || len(p.Coords) != 600 || p.Coords[0][0] != mustFloat(t, rows[1][4]) || p.Fold[0] != mustInt(t, rows[1][2]) {
		t.Errorf("Projected: %v", err)
	}
	p, err = readProjected(bytes.NewReader(projectedCSVText(t, filepath.Join(e.store.JobDir(j.ID), "pca"))), []int{1})
	if err != nil || len(p.Coords) != 600 || p.Coords[0][0] != mustFloat(t, rows[1][4]) || p.Fold[0] != mustInt(t, rows[1][2]) {
		t.Errorf("readProjected: %v", err)
	}
}

func mustInt(t *testing.T, s string) int {
	t.Helper()
	if s == "" {
		return 0
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func mustFloat(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// sameNumbers reports whether two CSV tables have the same shape and text
// cells, and numbers within tol of each other.
func sameNumbers(a, b [][]string, tol float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for j := range a[i] {
			x, errX := strconv.ParseFloat(a[i][j], 64)
			y, errY := strconv.ParseFloat(b[i][j], 64)
			if (errX != nil || errY != nil) && a[i][j] != b[i][j] || errX == nil && errY == nil && math.Abs(x-y) > tol {
				return false
			}
		}
	}
	return true
}
