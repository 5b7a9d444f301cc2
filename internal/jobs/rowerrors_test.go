package jobs

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"

	"mldr/internal/analysis"
	"mldr/internal/evaluate"
	"mldr/internal/store"
)

// serviceOver is a service over the execEnv's store, whose runner knows
// the jobs saved in it (jobs e.run executed are saved as succeeded).
func (e *execEnv) serviceOver(jobs ...Job) *Service {
	e.t.Helper()
	for _, j := range jobs {
		data, err := json.Marshal(j)
		if err != nil {
			e.t.Fatal(err)
		}
		if err := e.store.SaveJob(j.ID, data); err != nil {
			e.t.Fatal(err)
		}
	}
	r, err := New(Config{Store: e.store, Execute: func(ctx context.Context, _ Job, _ Report) ([]string, error) { return nil, nil }})
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		r.Shutdown(ctx)
	})
	return NewService(r, e.store, Limits{})
}

func succeeded(j Job) Job {
	now := time.Now()
	j.Status, j.FinishedAt = Succeeded, &now
	return j
}

// TestExecuteRowErrors runs jobs of every kind of split on the demo data
// and reads their row_errors.bin back through the service: one record per
// mean row of metrics.json, naming the same cell; one value per row of
// projected.csv, in its order (each equal to the value evaluate.Run gives
// the data row that projected.csv's row and split name); on each fold the
// mean over the rows projected.csv says it tests equals the fold's metric,
// and the rows no fold tests are NaN.
func TestExecuteRowErrors(t *testing.T) {
	e := newExecEnv(t)
	test := e.addDemo(7)
	for _, tc := range []struct {
		name string
		req  Request
	}{
		{"holdout", Request{Dataset: e.ml.ID, Methods: []string{"pca", "mddmp", "cplst"}, Evaluate: &Evaluate{Classifier: "ridge", Dims: []int{2, 3}}}},
		{"k-fold", Request{Dataset: e.ml.ID, Method: "pca", Params: analysis.Params{D: 2}, Split: &Split{Kind: SplitKFold, Folds: 3}, Evaluate: &Evaluate{}}},
		{"test set", Request{Dataset: e.ml.ID, TestDataset: test.ID, Methods: []string{"pca", "plst"}, Params: analysis.Params{D: 2}, Evaluate: &Evaluate{Classifier: "ridge"}}},
		{"predefined folds", Request{Dataset: e.md.ID, Methods: []string{"sdem", "lda"}, Split: &Split{Kind: SplitPredefined}, Evaluate: &Evaluate{Classifier: "mlknn", Dims: []int{1, 2}}}},
		{"percent", Request{Dataset: e.ml.ID, Method: "mddmp", Split: &Split{Kind: SplitKFold, Folds: 2}, Evaluate: &Evaluate{Percent: []float64{30, 34, 100}, Of: "rank"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j, _, err := e.run(tc.req)
			if err != nil {
				t.Fatal(err)
			}
			j = succeeded(j)
			svc := e.serviceOver(j)
			got, err := svc.RowErrors(j.ID)
			if err != nil {
				t.Fatal(err)
			}
			dir := e.store.JobDir(j.ID)
			var mf MetricsFile
			if err := readJSON(filepath.Join(dir, FileMetrics), &mf); err != nil {
				t.Fatal(err)
			}
			var means []RowErrorsRecord
			for _, r := range mf.Rows {
				if r.Fold == nil {
					means = append(means, RowErrorsRecord{Method: r.Method, D: r.D, DPerVariable: r.DPerVariable, Percent: r.Percent})
				}
			}
			var cells []RowErrorsRecord
			for _, r := range got.Records {
				r.Hamming, r.Exact = nil, nil
				cells = append(cells, r)
			}
			if !reflect.DeepEqual(cells, means) {
				t.Fatalf("records: got %+v, want metrics.json's mean rows %+v", cells, means)
			}
			proj := readProjectedCSV(t, filepath.Join(dir, j.Request.MethodIDs()[0]))
			header, rows := proj[0], proj[1:]
			if got.Rows != len(rows) {
				t.Fatalf("got %d rows, want projected.csv's %d", got.Rows, len(rows))
			}
			// The data row of each row of projected.csv, and the rows each fold tests.
			p, err := e.exec.plan(j.Request)
			if err != nil {
				t.Fatal(err)
			}
			ntrain := p.train.Rows()
			dataRow := make([]int, len(rows))
			tests := map[int][]int{} // fold (1-based) → rows of projected.csv
			foldCol := slices.Index(header, "fold")
			for k, r := range rows {
				n, _ := strconv.Atoi(r[0])
				dataRow[k] = n - 1
				if r[1] == PartTest && p.test != nil {
					dataRow[k] += ntrain
				}
				switch {
				case foldCol >= 0 && r[foldCol] != "":
					f, _ := strconv.Atoi(r[foldCol])
					tests[f] = append(tests[f], k)
				case r[1] == PartTest:
					tests[1] = append(tests[1], k)
				}
			}
			spec := evaluationSpec(j.Request)
			spec.RowErrors = true
			want, err := evaluate.Run(context.Background(), p.data, p.splits, spec, nil)
			if err != nil {
				t.Fatal(err)
			}
			multiDim := p.data.MultiDim()
			cell := 0
			var folds []evaluate.Row
			for _, r := range mf.Rows {
				if r.Fold != nil {
					folds = append(folds, r)
					continue
				}
				rec, ref := got.Records[cell], want.RowErrors[cell]
				cell++
				name := fmt.Sprintf("%s d=%d", rec.Method, rec.D)
				for k, i := range dataRow {
					if !sameFloat32(rec.Hamming[k], ref.Hamming[i]) || !sameFloat32(rec.Exact[k], ref.Exact[i]) {
						t.Fatalf("%s: projected.csv's row %d (data row %d): got %v, %v, want %v, %v",
							name, k+1, i, rec.Hamming[k], rec.Exact[k], ref.Hamming[i], ref.Exact[i])
					}
				}
				tested := make([]bool, len(rows))
				for _, f := range folds {
					var sh, sx float64
					for _, k := range tests[*f.Fold] {
						sh, sx, tested[k] = sh+float64(rec.Hamming[k]), sx+float64(rec.Exact[k]), true
					}
					nt := float64(len(tests[*f.Fold]))
					wantH, wantX := f.Metrics[evaluate.HammingLoss], 1-f.Metrics[evaluate.SubsetAccuracy]
					if multiDim {
						wantH, wantX = 1-f.Metrics[evaluate.HammingScore], 1-f.Metrics[evaluate.ExactMatch]
					}
					if math.Abs(sh/nt-wantH) > 1e-6 || math.Abs(sx/nt-wantX) > 1e-6 {
						t.Errorf("%s fold %d: mean over its %v test rows %v and %v, want metrics.json's %v and %v", name, *f.Fold, nt, sh/nt, sx/nt, wantH, wantX)
					}
				}
				for k, ok := range tested {
					if isNaN := math.IsNaN(float64(rec.Hamming[k])) || math.IsNaN(float64(rec.Exact[k])); isNaN == ok {
						t.Fatalf("%s: projected.csv's row %d (%s): got %v, %v; want NaN exactly for the rows no fold tests", name, k+1, rows[k][1], rec.Hamming[k], rec.Exact[k])
					}
				}
				folds = folds[:0]
			}
			// One cell read alone is the same.
			one, err := svc.RowErrorsOf(j.ID, func(r RowErrorsRecord) bool { return r.Method == ori(got) })
			if err != nil {
				t.Fatal(err)
			}
			for k, r := range one.Records {
				if kept := r.Method == ori(got); kept != (r.Hamming != nil) || (kept && !slices.EqualFunc(r.Hamming, got.Records[k].Hamming, sameFloat32)) {
					t.Errorf("read with a filter, record %d (%s): got %d values, want them kept (the same) only for %s", k, r.Method, len(r.Hamming), ori(got))
				}
			}
		})
	}
}

// ori is the baseline's method name, as the first record gives it.
func ori(f *RowErrorsFile) string { return f.Records[0].Method }

func sameFloat32(a, b float32) bool { return a == b || (a != a && b != b) }

// TestRowErrorsRefusals: jobs without per-row errors answer 404 saying
// why, a job not succeeded 409, a damaged file an error wrapping
// store.ErrCorruptResult; a study writes none.
func TestRowErrorsRefusals(t *testing.T) {
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
	if _, err := os.Stat(filepath.Join(e.store.JobDir(study.ID), FileRowErrors)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a study wrote %s: %v", FileRowErrors, err)
	}
	evaluated := func() Job {
		j, _, err := e.run(Request{Dataset: e.ml.ID, Method: "pca", Params: analysis.Params{D: 2}, Evaluate: &Evaluate{Classifier: "ridge"}})
		if err != nil {
			t.Fatal(err)
		}
		return j
	}
	corrupt, old := evaluated(), evaluated()
	path := filepath.Join(e.store.JobDir(corrupt.ID), FileRowErrors)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-1] ^= 0xff
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	// Results from before checksums and before the file: neither there.
	for _, f := range []string{FileRowErrors, store.ChecksumsFile} {
		if err := os.Remove(filepath.Join(e.store.JobDir(old.ID), f)); err != nil {
			t.Fatal(err)
		}
	}
	failed := plain
	failed.ID, failed.Status, failed.Error = store.NewID(), Failed, "made to fail"
	svc := e.serviceOver(succeeded(plain), succeeded(study), succeeded(corrupt), succeeded(old), failed)
	for _, tc := range []struct {
		name   string
		id     string
		status int
		msg    string
	}{
		{"no evaluation", plain.ID, http.StatusNotFound, "this job ran no evaluation, so it has no per-row errors; run one with an evaluation"},
		{"study", study.ID, http.StatusNotFound, "a study over several data sets keeps no per-row errors; a job on one data set with an evaluation does"},
		{"older results", old.ID, http.StatusNotFound, fmt.Sprintf("the results of job %s were written before per-row errors were kept; run it again (POST /api/jobs/%s/rerun) to have them", old.ID, old.ID)},
		{"failed", failed.ID, http.StatusConflict, fmt.Sprintf("job %s has failed; its per-row errors are there once it has succeeded", failed.ID)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := svc.RowErrors(tc.id)
			status, _, ok := Status(err)
			if !ok || status != tc.status || err.Error() != tc.msg {
				t.Errorf("got %d %v, want %d %q", status, err, tc.status, tc.msg)
			}
		})
	}
	if _, err := svc.RowErrors(corrupt.ID); !errors.Is(err, store.ErrCorruptResult) {
		t.Errorf("a damaged file: got %v, want store.ErrCorruptResult", err)
	}
	if _, err := svc.RowErrors(store.NewID()); !errors.Is(err, ErrNotFound) {
		t.Errorf("an unknown job: got %v, want ErrNotFound", err)
	}
}

func TestReadRowErrors(t *testing.T) {
	header := `{"version":1,"rows":2,"records":[{"method":"ori","d":4},{"method":"pca","d":2,"percent":50}]}` + "\n"
	var body []byte
	for _, v := range []float32{0.25, float32(math.NaN()), 1, float32(math.NaN()), 0, 0.5, 0, 1} {
		body = binary.LittleEndian.AppendUint32(body, math.Float32bits(v))
	}
	f, err := ReadRowErrors(bytes.NewReader(append([]byte(header), body...)), nil)
	if err != nil {
		t.Fatal(err)
	}
	fifty := 50.0
	want := &RowErrorsFile{Rows: 2, Records: []RowErrorsRecord{
		{Method: "ori", D: 4, Hamming: []float32{0.25, float32(math.NaN())}, Exact: []float32{1, float32(math.NaN())}},
		{Method: "pca", D: 2, Percent: &fifty, Hamming: []float32{0, 0.5}, Exact: []float32{0, 1}},
	}}
	if len(f.Records) != 2 || f.Rows != 2 {
		t.Fatalf("got %+v, want %+v", f, want)
	}
	for k, r := range f.Records {
		w := want.Records[k]
		if r.Method != w.Method || r.D != w.D || !reflect.DeepEqual(r.Percent, w.Percent) ||
			!slices.EqualFunc(r.Hamming, w.Hamming, sameFloat32) || !slices.EqualFunc(r.Exact, w.Exact, sameFloat32) {
			t.Errorf("record %d: got %+v, want %+v", k, r, w)
		}
	}
	if r, ok := f.Find("pca", 2); !ok || r.Hamming[1] != 0.5 {
		t.Errorf("Find(pca, 2): got %+v, %v", r, ok)
	}
	if _, ok := f.Find("pca", 3); ok {
		t.Error("Find(pca, 3): got a record, want none")
	}
	only, err := ReadRowErrors(bytes.NewReader(append([]byte(header), body...)), func(r RowErrorsRecord) bool { return r.Method == "pca" })
	if err != nil || only.Records[0].Hamming != nil || !slices.Equal(only.Records[1].Exact, []float32{0, 1}) {
		t.Errorf("keeping pca only: got %+v, %v", only, err)
	}
	for name, b := range map[string][]byte{
		"short":          append([]byte(header), body[:31]...),
		"short, skipped": append([]byte(header), body[:15]...),
		"long":           append(append([]byte(header), body...), 0),
		"bad version":    []byte(`{"version":2,"rows":0,"records":[]}` + "\n"),
		"absurd rows":    []byte(`{"version":1,"rows":4000000000000,"records":[{"method":"ori","d":1}]}` + "\n"),
		"no header":      []byte(`{"version":1`),
	} {
		keep := func(RowErrorsRecord) bool { return name != "short, skipped" }
		if _, err := ReadRowErrors(bytes.NewReader(b), keep); err == nil {
			t.Errorf("%s: got no error", name)
		}
	}
}

// TestEstimateRowErrors: the memory estimate of a job on one data set with
// an evaluation counts its per-row errors and per-label counts (8 bytes
// per row and 12 per label, per cell: ori, and pca and cplst at d = 1, 2);
// a study keeps none.
func TestEstimateRowErrors(t *testing.T) {
	rec := mlRecord("ml", 1000, 10, 2)
	req := Request{Dataset: "ml", Methods: []string{"pca", "cplst"}, Evaluate: &Evaluate{Dims: []int{1, 2}}}
	req.Normalize()
	e, err := EstimateJob(req, rec, store.DatasetRecord{})
	if err != nil {
		t.Fatal(err)
	}
	sh := shapeOfJob(req, rec, store.DatasetRecord{})
	spec := sh.evalSpec(req)
	spec.RowErrors = false
	without, err := evaluate.EstimateMemory(sh.allShape(), sh.testPart, spec)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := e.Evaluation-without, int64((8*1000+12*2)*(1+2*2)); got != want {
		t.Errorf("the per-row errors add %d bytes to the evaluation's estimate, want %d", got, want)
	}
	if evalSpec(Request{Datasets: []string{"ml", "ml2"}, Evaluate: &Evaluate{}}).RowErrors {
		t.Error("a study's evaluation keeps per-row errors; want none")
	}
}
