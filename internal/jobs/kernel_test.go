package jobs

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"mldr/internal/analysis"
	"mldr/internal/comparison"
)

// TestExecuteKernelMethods runs kpca and kmddm end to end on the demo
// data: a holdout with an evaluation, the exact dual and Nyström
// landmarks, with and without preprocessing. Their projection files hold
// the dual coefficients, one row per basis row named by its row in the
// data set; model.json holds the kernel and the basis rows; the manifest's
// Transform of the data set's rows gives projected.csv's numbers (the
// path of POST /api/jobs/{id}/transform).
func TestExecuteKernelMethods(t *testing.T) {
	e := newExecEnv(t)
	ds, err := e.store.LoadDataset(e.ml.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		params     analysis.Params
		preprocess string
		basis      int // rows of the projection
	}{
		{"exact", analysis.Params{D: 3}, "", 480},
		{"exact poly standardized", analysis.Params{D: 3, Kernel: analysis.KernelPoly, Degree: 2}, "standardize", 480},
		{"nystrom", analysis.Params{D: 3, Landmarks: 60}, "", 60},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j, _, err := e.run(Request{Dataset: e.ml.ID, Methods: []string{"kpca", "kmddm"}, Params: tc.params, Preprocess: tc.preprocess,
				Evaluate: &Evaluate{Classifier: "mlknn", Dims: []int{2, 3}}})
			if err != nil {
				t.Fatalf("executing: %v", err)
			}
			dir := e.store.JobDir(j.ID)
			var metrics MetricsFile
			readJSONFile(t, filepath.Join(dir, FileMetrics), &metrics)
			var cells []string
			for _, r := range metrics.Rows {
				if r.Fold == nil && r.Method != "ori" {
					cells = append(cells, fmt.Sprintf("%s/%d", r.Method, r.D))
					if hl, ok := r.Metrics["hamming_loss"]; !ok || hl < 0 || hl > 1 {
						t.Errorf("%s at d = %d: hamming loss %v", r.Method, r.D, hl)
					}
				}
			}
			if want := []string{"kpca/2", "kpca/3", "kmddm/2", "kmddm/3"}; !slices.Equal(cells, want) {
				t.Errorf("metrics cells: got %v, want %v", cells, want)
			}
			for _, id := range []string{"kpca", "kmddm"} {
				mdir := filepath.Join(dir, id)
				for _, f := range MethodFiles {
					if f == FileProjected {
						f = FileProjectedRows
					}
					if _, err := os.Stat(filepath.Join(mdir, f)); err != nil {
						t.Errorf("%s/%s: %v", id, f, err)
					}
				}
				m, err := ReadManifest(mdir)
				if err != nil {
					t.Fatal(err)
				}
				if m.Kernel == nil || len(m.Projection) != tc.basis || len(m.KernelRows) != tc.basis || len(m.KernelRowNumbers) != tc.basis ||
					len(m.Means) != tc.basis || len(m.KernelRows[0]) != len(m.Features) {
					t.Fatalf("%s manifest: kernel %v, %d coefficient rows, %d basis rows, %d row numbers, %d means; want %d of each",
						id, m.Kernel, len(m.Projection), len(m.KernelRows), len(m.KernelRowNumbers), len(m.Means), tc.basis)
				}
				if want := cmpOr(tc.params.Kernel, analysis.KernelRBF); m.Kernel.Kind != want || m.Params.Kernel != want {
					t.Errorf("%s: kernel %q (params %q), want %q", id, m.Kernel.Kind, m.Params.Kernel, want)
				}
				csvRows := readCSV(t, filepath.Join(mdir, FileProjectionCSV))
				if len(csvRows) != 1+tc.basis || csvRows[1][0] != fmt.Sprintf("row %d", m.KernelRowNumbers[0]) {
					t.Errorf("%s projection.csv: %d rows, first named %q; want %d, \"row %d\"", id, len(csvRows), csvRows[1][0], 1+tc.basis, m.KernelRowNumbers[0])
				}
				// The basis rows are training rows: the projected rows
				// file says which rows were fitted on.
				proj := readProjectedCSV(t, mdir)
				part := map[int]string{}
				for _, r := range proj[1:] {
					n, _ := strconv.Atoi(r[0])
					part[n] = r[1]
				}
				for _, r := range m.KernelRowNumbers {
					if part[r] != PartTrain {
						t.Fatalf("%s: basis row %d is in part %q, want %s", id, r, part[r], PartTrain)
					}
				}
				z, err := m.Transform(ds.X)
				if err != nil {
					t.Fatalf("%s: manifest Transform: %v", id, err)
				}
				for _, r := range proj[1:] {
					n, _ := strconv.Atoi(r[0])
					for c := range 3 {
						if got := fmt.Sprint(z.At(n-1, c)); got != r[2+c] {
							t.Fatalf("%s row %d, c%d: Transform %s, projected.csv %s", id, n, c+1, got, r[2+c])
						}
					}
				}
			}
		})
	}
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// TestKernelAdmissionSuggestsLandmarks: a kernel method whose exact dual
// does not fit is refused (413) with the Nyström landmarks that would
// fit, and a request with that many landmarks is accepted.
func TestKernelAdmissionSuggestsLandmarks(t *testing.T) {
	ds := testDatasets()
	ds["pairs"] = mlRecord("pairs", 3000, 4, 3)
	const limit = 128 << 20
	for _, id := range []string{"kpca", "kmddm"} {
		t.Run(id, func(t *testing.T) {
			req := Request{Dataset: "pairs", Method: id}
			req.Normalize()
			err := req.Validate(ds, Limits{MaxJobMemory: limit})
			re, ok := err.(*RequestError)
			if !ok || re.Status != http.StatusRequestEntityTooLarge || re.Field != "method" {
				t.Fatalf("got %v, want 413 on method", err)
			}
			const say = "Nyström landmarks (landmarks at most about "
			i := strings.Index(re.Msg, say)
			if i < 0 {
				t.Fatalf("got %q, want it to suggest landmarks", re.Msg)
			}
			digits := strings.Map(func(r rune) rune { // group's separators out
				if r >= '0' && r <= '9' {
					return r
				}
				return -1
			}, strings.SplitN(re.Msg[i+len(say):], ")", 2)[0])
			m, err := strconv.Atoi(digits)
			if err != nil || m < 1 {
				t.Fatalf("got %q: no number of landmarks", re.Msg)
			}
			req.Params.Landmarks = m
			if err := req.Validate(ds, Limits{MaxJobMemory: limit}); err != nil {
				t.Errorf("with the %d landmarks suggested: %v, want accepted", m, err)
			}
		})
	}
}

// TestExecuteKernelStudy: kpca and kmddm in a study over two data sets,
// with k folds (each fold's own kernel, landmarks and centring), compared
// with the baseline.
func TestExecuteKernelStudy(t *testing.T) {
	e := newExecEnv(t)
	other := e.addDemo(7)
	ids := []string{e.ml.ID, other.ID}
	j, _, err := e.run(Request{Datasets: ids, Methods: []string{"kpca", "kmddm"}, Params: analysis.Params{D: 3, Landmarks: 50},
		Split: &Split{Kind: SplitKFold, Folds: 3}, Evaluate: &Evaluate{Classifier: "ridge"}})
	if err != nil {
		t.Fatalf("executing the study: %v", err)
	}
	var mf MetricsFile
	readJSONFile(t, filepath.Join(e.store.JobDir(j.ID), FileMetrics), &mf)
	// 2 data sets × (ori, kpca, kmddm) × (3 folds + the mean).
	if len(mf.Rows) != 2*3*4 {
		t.Fatalf("got %d rows, want 24", len(mf.Rows))
	}
	var c comparison.File
	readJSONFile(t, filepath.Join(e.store.JobDir(j.ID), FileComparison), &c)
	i := slices.IndexFunc(c.Comparisons, func(x comparison.Comparison) bool { return x.Metric == "hamming_loss" })
	if i < 0 || !slices.Equal(c.Comparisons[i].Methods, []string{"ori", "kpca", "kmddm"}) {
		t.Fatalf("hamming_loss comparison: %+v", c.Comparisons)
	}
	for _, row := range c.Comparisons[i].Scores {
		for k, v := range row {
			if v == nil || *v < 0 || *v > 1 {
				t.Errorf("%s's hamming loss %v", c.Comparisons[i].Methods[k], v)
			}
		}
	}
}
