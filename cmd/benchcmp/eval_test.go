package main

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/analysis"
	"mldr/internal/evaluate"
)

// requireSklearn skips the test when debianPython cannot import
// scikit-learn (and numpy and scipy, which it needs).
func requireSklearn(t *testing.T) {
	t.Helper()
	requirePython(t, "sklearn.neighbors, scipy.linalg", "python3-sklearn")
}

// sklearnRefScript is the numpy + scikit-learn reference, from this
// package's directory.
var sklearnRefScript = sklearnScript(refScript)

func TestFoldsOf(t *testing.T) {
	for _, tc := range []struct {
		name, csv string
		want      []int
		wantErr   string
	}{
		{"rows in any order", "row,split,fold,c1\n2,all,1,0.5\n1,all,2,0.1\n3,all,2,-1\n", []int{2, 1, 2}, ""},
		{"no fold column", "row,split,c1\n1,all,0.5\n", nil, "no row and fold columns"},
		{"a row beyond", "row,split,fold,c1\n1,all,1,0\n2,all,2,0\n4,all,1,0\n", nil, `line 4: row "4" is not one of 1…3`},
		{"a fold beyond k", "row,split,fold,c1\n1,all,3,0\n", nil, `row 1's fold "3" is not one of 1…2`},
		{"an empty fold", "row,split,fold,c1\n1,all,,0\n", nil, `row 1's fold "" is not one of 1…2`},
		{"a row twice", "row,split,fold,c1\n1,all,1,0\n1,all,2,0\n", nil, "line 3: row 1 appears twice"},
		{"a row missing", "row,split,fold,c1\n1,all,1,0\n3,all,2,0\n", nil, "row 2 has no fold"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := foldsOf(strings.NewReader(tc.csv), 3, 2)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %v, %v; want an error containing %q", got, err, tc.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("got %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

// f is a metric's value, for the rows of the tests.
func f(v float64) *float64 { return &v }

func TestCompareMetrics(t *testing.T) {
	product := []metricsRow{
		{Method: "ori", D: 6, Metrics: map[string]*float64{"hamming_loss": f(0.2), "coverage": f(1.5), "one_error": nil}},
		{Method: "pca", D: 1, Metrics: map[string]*float64{"hamming_loss": f(0.25), "coverage": f(2)}},
	}
	same := func() []metricsRow {
		var out []metricsRow
		for _, r := range product {
			m := map[string]*float64{}
			for k, v := range r.Metrics {
				if v != nil {
					m[k] = f(*v)
				} else {
					m[k] = nil
				}
			}
			out = append(out, metricsRow{Method: r.Method, D: r.D, Metrics: m})
		}
		return out
	}
	t.Run("equal", func(t *testing.T) {
		a := compareMetrics(product, same())
		if a.cells != 2 || a.hamming != 0 || a.worst != 0 || a.missing != "" {
			t.Errorf("got %+v, want 2 cells, no difference, nothing missing", a)
		}
	})
	t.Run("differences", func(t *testing.T) {
		ref := same()
		*ref[1].Metrics["hamming_loss"] = 0.25 + 1e-3
		*ref[0].Metrics["coverage"] = 1.5 - 0.1
		a := compareMetrics(product, ref)
		if math.Abs(a.hamming-1e-3) > 1e-15 || a.hammingAt != "pca, d = 1" {
			t.Errorf("Hamming loss: got %g at %q, want 1e-3 at pca, d = 1", a.hamming, a.hammingAt)
		}
		if math.Abs(a.worst-0.1) > 1e-15 || a.worstOf != "coverage" || a.worstWhat != "ori, d = 6" || a.missing != "" {
			t.Errorf("any metric: got %+v, want coverage 0.1 at ori, d = 6", a)
		}
	})
	for _, tc := range []struct {
		name, want string
		change     func([]metricsRow) []metricsRow
	}{
		{"a cell missing", "pca, d = 1: not in the reference", func(r []metricsRow) []metricsRow { return r[:1] }},
		{"an extra cell", "cca, d = 2: not in the product's metrics", func(r []metricsRow) []metricsRow {
			return append(r, metricsRow{Method: "cca", D: 2, Metrics: map[string]*float64{"hamming_loss": f(0)}})
		}},
		{"a metric missing", "ori, d = 6: coverage not in the reference", func(r []metricsRow) []metricsRow {
			delete(r[0].Metrics, "coverage")
			return r
		}},
		{"defined on one side", "ori, d = 6: one_error undefined on one side only", func(r []metricsRow) []metricsRow {
			r[0].Metrics["one_error"] = f(0.3)
			return r
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if a := compareMetrics(product, tc.change(same())); a.missing != tc.want {
				t.Errorf("got missing %q, want %q", a.missing, tc.want)
			}
		})
	}
	if a := compareMetrics(nil, nil); a.missing != "no cell to compare" {
		t.Errorf("no rows: got missing %q, want \"no cell to compare\"", a.missing)
	}
}

func TestEvalJobBodyAndArgs(t *testing.T) {
	b, err := evalJobBody("ds1", 7)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"dataset":"ds1","evaluate":{"classifier":"mlknn","dims":[1,2,3,4,5],"k":10,"s":1},"methods":["pca","mddmp","mddmf","cca","cplst"],` +
		`"split":{"folds":10,"kind":"kfold","seed":7}}`
	if string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
	got := sklearnEvalArgs("s.py", evalSet{name: "medical", file: "m.arff", xml: "m.xml"}, "f.txt", 3, 5)
	wantArgs := []string{"s.py", "eval", "--data", "m.arff", "--xml", "m.xml", "--folds", "f.txt", "--methods", "pca,mddmp,mddmf,cca,cplst",
		"--dims", "1,2,3,4,5", "--k", "10", "--s", "1", "--reps", "3", "--warmup-under", "5"}
	if !slices.Equal(got, wantArgs) {
		t.Errorf("got %q, want %q", got, wantArgs)
	}
	if got := sklearnEvalArgs("s.py", evalSet{name: "scene", file: "s.csv"}, "f.txt", 1, 0); slices.Contains(got, "--xml") {
		t.Errorf("a CSV file: got %q, want no --xml", got)
	}
}

func TestUploadFileWithXML(t *testing.T) {
	dir := t.TempDir()
	data, xml := filepath.Join(dir, "d.arff"), filepath.Join(dir, "d.xml")
	if err := os.WriteFile(data, []byte("@relation r\n@attribute f1 numeric\n@attribute a {0,1}\n@data\n{0 1,1 1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(xml, []byte(`<labels xmlns="http://mulan.sourceforge.net/labels"><label name="a"></label></labels>`), 0o644); err != nil {
		t.Fatal(err)
	}
	var parts []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mr, err := r.MultipartReader()
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		for {
			p, err := mr.NextPart()
			if err != nil {
				break
			}
			parts = append(parts, p.FormName()+":"+p.FileName())
		}
		w.WriteHeader(http.StatusCreated)
		fmt.Fprint(w, `{"id":"ds1","rows":1,"features":1,"label_count":1,"storage":"sparse"}`)
	}))
	defer srv.Close()
	up, _, err := uploadFile(t.Context(), srv.Client(), srv.URL, data, xml)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"xml:d.xml", "file:d.arff"}; !slices.Equal(parts, want) {
		t.Errorf("parts: got %q, want %q (the xml before the file)", parts, want)
	}
	if up.ID != "ds1" || up.text() != "1×1, q = 1, stored sparse" {
		t.Errorf("got %+v (%q), want ds1, \"1×1, q = 1, stored sparse\"", up, up.text())
	}
}

// sparseData returns n rows of d non-negative features, a share density of
// them non-zero, and q labels that depend on them: label j is on when the
// sum of its block of columns passes a noisy threshold. With counts the
// values are 1, 2 or 3, so that many rows share distances (ties in the
// neighbour search); otherwise 0.5 + Exp(1) with 6 digits. Rows without a
// feature repeat.
func sparseData(seed uint64, n, d, q int, density float64, counts bool) (x, y *mat.Dense) {
	rng := rand.New(rand.NewPCG(seed, 99))
	x, y = mat.NewDense(n, d, nil), mat.NewDense(n, q, nil)
	for i := range n {
		for j := range d {
			switch {
			case rng.Float64() >= density:
			case counts:
				x.Set(i, j, float64(1+rng.IntN(3)))
			default:
				x.Set(i, j, roundDigits(0.5+rng.ExpFloat64()))
			}
		}
		for l := range q {
			s := 0.0
			for j := l * d / q; j < (l+1)*d/q; j++ {
				s += x.At(i, j)
			}
			if s+rng.NormFloat64() > density*float64(d/q)*2 {
				y.Set(i, l, 1)
			}
		}
	}
	return x, y
}

// writeSparseARFF writes x and the 0/1 labels y as a sparse ARFF file (the
// labels last, declared {0,1}) and the Mulan XML file of the labels.
func writeSparseARFF(t *testing.T, path, xmlPath string, x, y mat.Matrix) {
	t.Helper()
	n, d := x.Dims()
	_, q := y.Dims()
	var b bytes.Buffer
	w := bufio.NewWriter(&b)
	fmt.Fprintln(w, "@relation counts")
	for j := range d {
		fmt.Fprintf(w, "@attribute f%d numeric\n", j+1)
	}
	var xml strings.Builder
	xml.WriteString(`<?xml version="1.0" encoding="utf-8"?>` + "\n" + `<labels xmlns="http://mulan.sourceforge.net/labels">` + "\n")
	for l := range q {
		fmt.Fprintf(w, "@attribute l%d {0,1}\n", l+1)
		fmt.Fprintf(&xml, "<label name=\"l%d\"></label>\n", l+1)
	}
	xml.WriteString("</labels>\n")
	fmt.Fprintln(w, "@data")
	for i := range n {
		var cells []string
		for j := range d {
			if v := x.At(i, j); v != 0 {
				cells = append(cells, fmt.Sprintf("%d %g", j, v))
			}
		}
		for l := range q {
			if y.At(i, l) != 0 {
				cells = append(cells, fmt.Sprintf("%d 1", d+l))
			}
		}
		fmt.Fprintf(w, "{%s}\n", strings.Join(cells, ","))
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(xmlPath, []byte(xml.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// smallEvalSets writes the evaluation tests' data sets into dir: "dense",
// generated features with 6 digits as CSV (a rank-20 signal, labels from
// the same factors); "sparse", sparseRows × sparseCols sparse features
// (sparseData) as a sparse ARFF file with its XML labels; and, with
// counts, "counts", the same shape of integer counts. It returns them with
// their matrices.
func smallEvalSets(t *testing.T, dir string, denseRows, sparseRows, sparseCols int, counts bool) ([]evalSet, []*mat.Dense, []*mat.Dense) {
	t.Helper()
	const d, q = 12, 6
	xd := roundedFeatures(1, denseRows, d)
	yd := multiLabels(1, denseRows, d, q, latent(1, denseRows, d))
	sets := []evalSet{{name: "dense", file: filepath.Join(dir, "dense.csv")}}
	if err := writeCSV(sets[0].file, xd, yd); err != nil {
		t.Fatal(err)
	}
	xs, ys := []*mat.Dense{xd}, []*mat.Dense{yd}
	names := []string{"sparse"}
	if counts {
		names = append(names, "counts")
	}
	for _, name := range names {
		x, y := sparseData(2, sparseRows, sparseCols, q, 0.05, name == "counts")
		s := evalSet{name: name, file: filepath.Join(dir, name+".arff"), xml: filepath.Join(dir, name+".xml")}
		writeSparseARFF(t, s.file, s.xml, x, y)
		sets, xs, ys = append(sets, s), append(xs, x), append(ys, y)
	}
	return sets, xs, ys
}

// TestEvalScriptMatchesEvaluate runs the numpy + scikit-learn script's
// evaluation on small data sets (dense features from a CSV file, sparse
// ones from a sparse ARFF file, both with duplicate rows) on 5 folds of
// evaluate.KFold, and internal/evaluate's Run in process on the same rows
// and splits: every metric of every cell agrees, the Hamming loss to
// 1e-12. On integer counts, whose distances tie all the time, ori's
// neighbours (distances exact on both sides) agree to the last bit; the
// reduced rows are not compared there: a test row that lies exactly
// midway between two training rows (x_q − x_a = x_b − x_q, common with
// counts) is an exact tie that each side's rounding breaks its own way
// (docs/BENCHMARKS.md). The whole job through the webapp is TestBenchEval.
func TestEvalScriptMatchesEvaluate(t *testing.T) {
	requireSklearn(t)
	dir := t.TempDir()
	sets, xs, ys := smallEvalSets(t, dir, 240, 200, 40, true)
	for i, set := range sets {
		t.Run(set.name, func(t *testing.T) {
			n, _ := xs[i].Dims()
			splits, err := evaluate.KFold(n, 5, 1) // 5 folds: the script's time is mostly per fold
			if err != nil {
				t.Fatal(err)
			}
			folds := make([]int, n)
			for f, sp := range splits {
				for _, r := range sp.Test {
					folds[r] = f + 1
				}
			}
			foldsPath := filepath.Join(dir, set.name+"-folds.txt")
			if err := writeFolds(foldsPath, folds); err != nil {
				t.Fatal(err)
			}
			ref := runChild(t.Context(), debianPython, sklearnEvalArgs(sklearnRefScript, set, foldsPath, 1, 0)...)
			if ref.err != nil {
				t.Fatal(ref.err)
			}
			if len(ref.res.Times) != 1 || ref.res.Load <= 0 || len(ref.res.Rows) != 1+len(evalMethods())*len(evalDims()) {
				t.Fatalf("the script: got times %v, load %v, %d rows; want 1 time, a load, %d rows",
					ref.res.Times, ref.res.Load, len(ref.res.Rows), 1+len(evalMethods())*len(evalDims()))
			}
			spec := evaluate.Spec{Grid: evaluate.Grid{Dims: evalDims()}, Options: evaluate.Options{Classifier: evaluate.ClassifierMLkNN, K: mlknnK, S: mlknnS}}
			for _, m := range evalMethods() {
				spec.Methods = append(spec.Methods, evaluate.MethodRun{ID: m})
			}
			res, err := evaluate.Run(t.Context(), analysis.Input{X: xs[i], Y: ys[i]}, splits, spec, nil)
			if err != nil {
				t.Fatal(err)
			}
			var means []metricsRow
			for _, r := range res.Rows {
				if r.Fold == nil {
					means = append(means, metricsRow{Method: r.Method, D: r.D, Metrics: jsonMetrics(r.Metrics)})
				}
			}
			a := compareMetrics(means, ref.res.Rows)
			if a.missing != "" || a.cells != len(means) {
				t.Fatalf("got %+v over %d cells, want every cell on both sides", a, len(means))
			}
			if set.name == "counts" {
				a = compareMetrics(means[:1], ref.res.Rows[:1])
				if means[0].Method != evaluate.Ori || a.worst > 1e-12 {
					t.Errorf("%s: got %+v, want every metric equal to 1e-12", means[0].Method, a)
				}
				return
			}
			if a.hamming > 1e-12 || a.worst > 1e-9 {
				t.Errorf("got %+v over %d cells, want the Hamming loss to 1e-12 and every metric to 1e-9", a, len(means))
			}
		})
	}
}

// TestBenchEval runs the evaluation rows on the small data sets with the
// real webapp: built from this tree, started, both data sets uploaded (the
// sparse one as an ARFF file with its XML, stored sparse), a timed job
// each (no warm-up), the script on the job's folds, the metrics compared.
// Skipped with -short (it builds the webapp).
func TestBenchEval(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the webapp")
	}
	requireSklearn(t)
	dir := t.TempDir()
	sets, _, _ := smallEvalSets(t, dir, 240, 300, 250, false)
	cfg := config{reps: 1, cacheDir: dir, python: debianPython, script: refScript, seed: 1, metricsTol: 1e-9}
	var log bytes.Buffer
	rows, err := benchEval(t.Context(), cfg, sets, "", &log)
	if err != nil {
		t.Fatalf("%v\nlog:\n%s", err, log.String())
	}
	if len(rows) != 2 {
		t.Fatalf("got %d rows, want 2", len(rows))
	}
	for i, r := range rows {
		if r.work != sets[i].name || r.kind != kindEval || r.goSide.err != nil || r.np.err != nil {
			t.Errorf("row %d: got %s, kind %d, errors %v and %v; want %s, eval, none", i, r.work, r.kind, r.goSide.err, r.np.err, sets[i].name)
			continue
		}
		if len(r.goSide.res.Times) != 1 || r.goSide.peakKiB <= 0 || len(r.np.res.Times) != 1 {
			t.Errorf("%s: got job times %v, peak %d KiB, script times %v; want 1 time, a peak, 1 time",
				r.work, r.goSide.res.Times, r.goSide.peakKiB, r.np.res.Times)
		}
		if math.IsNaN(phaseSeconds(r.phases, "evaluate")) {
			t.Errorf("%s: got phases %v, want an evaluate phase", r.work, r.phases)
		}
		if a := r.agree; a == nil || a.missing != "" || a.cells != 26 || a.hamming > 1e-12 || a.worst > 1e-9 {
			t.Errorf("%s: got agreement %+v, want 26 cells, the Hamming loss to 1e-12 and every metric to 1e-9", r.work, a)
		}
		if p := metricsProblems(r, header{metricsTol: cfg.metricsTol}); len(p) != 0 {
			t.Errorf("%s: got problems %q, want none", r.work, p)
		}
	}
	if want := "300×250, q = 6, stored sparse"; rows[1].size != want {
		t.Errorf("the sparse data set: got %q, want %q", rows[1].size, want)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "eval-webapp-*")); len(left) != 0 {
		t.Errorf("left behind: %v, want the webapp's directory removed", left)
	}
	var b strings.Builder
	if err := writeReport(&b, header{metricsTol: 1e-9, seed: 1}, rows); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "| sparse | 300×250, q = 6, stored sparse |") {
		t.Errorf("the report lacks the sparse data set's row:\n%s", b.String())
	}
}

// TestProbeSklearn checks the header's line of the numpy + scikit-learn
// side: its versions, or on one line why it does not run.
func TestProbeSklearn(t *testing.T) {
	fake := filepath.Join(t.TempDir(), "python")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho 'Traceback (most recent call last):' >&2\necho 'ModuleNotFoundError: No module named sklearn' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var h header
	probeSklearn(t.Context(), config{python: fake, script: refScript}, &h)
	if s := h.sklearnSkip; h.sklearn != "" || !strings.Contains(s, "exit status 1: ModuleNotFoundError: No module named sklearn (on Debian: apt-get install python3-sklearn)") ||
		strings.Contains(s, "\n") {
		t.Errorf("without scikit-learn: got %q and skip %q, want one line that names the error and the package", h.sklearn, s)
	}
	h = header{}
	probeSklearn(t.Context(), config{python: fake, script: filepath.Join(t.TempDir(), "numpy_ref.py")}, &h)
	if !strings.Contains(h.sklearnSkip, "sklearn_eval.py") {
		t.Errorf("without the script: got skip %q, want it named", h.sklearnSkip)
	}
	requireSklearn(t)
	h = header{sklearnSkip: "earlier"}
	probeSklearn(t.Context(), config{python: debianPython, script: refScript}, &h)
	if h.sklearnSkip != "" || !strings.Contains(h.sklearn, "scikit-learn ") || !strings.Contains(h.sklearn, "scipy ") {
		t.Errorf("with scikit-learn: got %q and skip %q, want the versions", h.sklearn, h.sklearnSkip)
	}
}
