package jobs

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"mldr/internal/analysis"
	"mldr/internal/evaluate"
	"mldr/internal/preprocess"
	"mldr/internal/store"
)

// oocCSV is a seeded data set of n rows and d features with q labels:
// dense features with means far from zero, or, with density < 1, mostly
// zeros (stored sparse); binary labels that depend on the features, or
// with multiDim, class variables of 3 categories.
func oocCSV(n, d, q int, density float64, multiDim bool) string {
	r := rand.New(rand.NewPCG(16, 3))
	var b strings.Builder
	for j := range d {
		fmt.Fprintf(&b, "f%d,", j)
	}
	for j := range q {
		if j > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "label:l%d", j)
	}
	b.WriteByte('\n')
	x := make([]float64, d)
	for range n {
		for j := range x {
			x[j] = 0
			if density >= 1 || r.Float64() < density {
				x[j] = r.NormFloat64()*float64(1+j%4) + 10*float64(j%3)
			}
			fmt.Fprintf(&b, "%.6g,", x[j])
		}
		for j := range q {
			if j > 0 {
				b.WriteByte(',')
			}
			v := x[j%d] + x[(j*7+1)%d] - 10*float64(j%3) + r.NormFloat64()
			switch {
			case multiDim:
				fmt.Fprintf(&b, "c%d", int(math.Floor(math.Abs(v)))%3)
			case v > 0:
				b.WriteString("1")
			default:
				b.WriteString("0")
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// oocEnv is a store with one data set in shards.
type oocEnv struct {
	store *store.Store
	rec   store.DatasetRecord
}

func newOOCEnv(t *testing.T, body string, shardSize int64, shards int) *oocEnv {
	t.Helper()
	st, err := store.Open(store.Config{Dir: t.TempDir(), ShardSize: shardSize})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	rec, err := st.Import(context.Background(), store.Upload{FileName: "ooc.csv", Source: strings.NewReader(body)})
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Shards) != shards {
		t.Fatalf("the data set is stored in %d shards, want %d", len(rec.Shards), shards)
	}
	return &oocEnv{store: st, rec: rec}
}

// limitBetween is a memory limit under which req's job does not fit in
// memory but does out of core.
func (e *oocEnv) limitBetween(t *testing.T, req Request) int64 {
	t.Helper()
	in, err := EstimateJob(req, e.rec, store.DatasetRecord{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := estimateOutOfCore(req, e.rec, realEstimators())
	if err != nil {
		t.Fatal(err)
	}
	// admit adds CacheBudget(limit) = limit/16 to each estimate.
	limit := in.Peak*16/15 - 64
	if out.Peak+CacheBudget(limit) > limit {
		t.Fatalf("no limit between the out-of-core estimate %d and the in-memory one %d", out.Peak, in.Peak)
	}
	return limit
}

// execute runs req (normalized, validated under limit) with x and returns
// the job and its notes.
func (e *oocEnv) execute(t *testing.T, x *Executor, req Request, limit int64) (Job, []string) {
	t.Helper()
	if err := req.Validate(e.store, Limits{MaxJobMemory: limit}); err != nil {
		t.Fatalf("refused under the limit %d: %v", limit, err)
	}
	job := Job{ID: store.NewID(), Request: req, CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	var messages []string
	last := 0.0
	notes, err := x.Execute(context.Background(), job, func(p float64, phase, msg string) {
		if p < last {
			t.Errorf("progress went back from %v to %v at %q", last, p, phase)
		}
		last = p
		messages = append(messages, phase+" "+msg)
	})
	if err != nil {
		t.Fatalf("executing %v: %v", req.MethodIDs(), err)
	}
	if x.memoryLimit > 0 {
		for s := range len(e.rec.Shards) {
			want := fmt.Sprintf("fitting %s shard %d of %d", req.MethodIDs()[0], s+1, len(e.rec.Shards))
			if !slices.Contains(messages, want) {
				t.Errorf("no progress %q among %q", want, messages)
				break
			}
		}
	}
	return job, notes
}

// An out-of-core job — its data set in row shards, its memory limit below
// what the job needs in memory — writes the same result files as the
// job in memory, with the same eigenvalues (1e-10 relative), projections
// and projected rows (1e-9), and the same labels, bit for bit.
func TestOutOfCoreEqualsInMemory(t *testing.T) {
	cases := []struct {
		name      string
		body      string
		shardSize int64
		shards    int
		methods   []string
		params    analysis.Params
	}{
		{"dense", oocCSV(12000, 40, 6, 1, false), 1200 << 10, 4, []string{"pca", "mddmp", "cplst", "plst", "cca", "mlsi"}, analysis.Params{D: 3}},
		{"sparse", oocCSV(12000, 300, 6, 0.03, false), 560 << 10, 4, []string{"pca", "mddmp", "mvmd"}, analysis.Params{D: 4}},
		{"multi-dimensional", oocCSV(12000, 40, 3, 1, true), 1200 << 10, 4, []string{"pca", "lda", "cca"}, analysis.Params{D: 2}},
		{"quadratic label kernel", oocCSV(12000, 40, 6, 1, false), 1200 << 10, 4, []string{"mddmp"}, analysis.Params{D: 3, LabelKernel: analysis.KernelQuadratic}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newOOCEnv(t, tc.body, tc.shardSize, tc.shards)
			req := Request{Dataset: e.rec.ID, Methods: tc.methods, Params: tc.params}
			req.Normalize()
			limit := e.limitBetween(t, req)
			if ooc, f, err := admitJob(req, e.rec, store.DatasetRecord{}, limit, realEstimators(), true); err != nil || !ooc {
				t.Fatalf("under %d bytes: got out of core %v, refusal %+v, %v; want out of core", limit, ooc, f, err)
			}
			inJob, inNotes := e.execute(t, NewExecutor(e.store, "test"), req, 0)
			outJob, outNotes := e.execute(t, NewExecutor(e.store, "test").WithMemoryLimit(limit), req, limit)
			note := fmt.Sprintf("fitted out of core, one of the data set's %d row shards at a time", tc.shards)
			if !slices.ContainsFunc(outNotes, func(s string) bool { return strings.HasPrefix(s, note) }) || slices.ContainsFunc(inNotes, func(s string) bool { return strings.HasPrefix(s, note) }) {
				t.Errorf("notes: got out of core %q, in memory %q; want %q in the first only", outNotes, inNotes, note)
			}
			inDir, outDir := e.store.JobDir(inJob.ID), e.store.JobDir(outJob.ID)
			if got, want := fileList(t, outDir), fileList(t, inDir); !slices.Equal(got, want) {
				t.Fatalf("got files %q, want %q", got, want)
			}
			same := func(rel string) {
				t.Helper()
				a, b := readFile(t, outDir, rel), readFile(t, inDir, rel)
				if !bytes.Equal(a, b) {
					t.Errorf("%s: got %d bytes, want the in-memory job's %d, the same", rel, len(a), len(b))
				}
			}
			same(FileLabels)
			for _, id := range tc.methods {
				var got, want EigenFile
				readJSONIn(t, outDir, id+"/"+FileEigenvalues, &got)
				readJSONIn(t, inDir, id+"/"+FileEigenvalues, &want)
				if got.D != want.D || len(got.Eigenvalues) != len(want.Eigenvalues) || got.Rank != want.Rank {
					t.Fatalf("%s: got d = %d, %d eigenvalues, rank %d; want %d, %d, %d", id, got.D, len(got.Eigenvalues), got.Rank, want.D, len(want.Eigenvalues), want.Rank)
				}
				scale := 0.0
				for _, v := range want.Eigenvalues {
					scale = max(scale, math.Abs(v))
				}
				for i, v := range want.Eigenvalues {
					if math.Abs(got.Eigenvalues[i]-v) > 1e-10*scale {
						t.Errorf("%s: eigenvalue %d: got %v, want %v (1e-10 of %v)", id, i+1, got.Eigenvalues[i], v, scale)
					}
				}
				var gm, wm Manifest
				readJSONIn(t, outDir, id+"/"+FileModel, &gm)
				readJSONIn(t, inDir, id+"/"+FileModel, &wm)
				if d := maxDiff(gm.Projection, wm.Projection); d > 1e-9 || len(gm.Projection) != len(wm.Projection) {
					t.Errorf("%s: the projections differ by %g", id, d)
				}
				if d := maxDiff([][]float64{gm.Means}, [][]float64{wm.Means}); d > 1e-9*(1+maxAbs(wm.Means)) {
					t.Errorf("%s: the means differ by %g", id, d)
				}
				compareProjected(t, id, readFile(t, outDir, id+"/"+FileProjectedRows), readFile(t, inDir, id+"/"+FileProjectedRows))
			}
		})
	}
}

func fileList(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() != store.ChecksumsFile {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func readFile(t *testing.T, dir, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func readJSONIn(t *testing.T, dir, rel string, v any) {
	t.Helper()
	if err := json.Unmarshal(readFile(t, dir, rel), v); err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
}

func maxAbs(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = max(m, math.Abs(x))
	}
	return m
}

func maxDiff(a, b [][]float64) float64 {
	d := 0.0
	if len(a) != len(b) {
		return math.Inf(1)
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return math.Inf(1)
		}
		for j := range a[i] {
			d = max(d, math.Abs(a[i][j]-b[i][j]))
		}
	}
	return d
}

// compareProjected requires two FileProjectedRows files to have the same
// header, rows and parts, and components within 1e-9 of the largest
// value of each.
func compareProjected(t *testing.T, id string, got, want []byte) {
	t.Helper()
	gl, gb, _ := bytes.Cut(got, []byte("\n"))
	wl, wb, _ := bytes.Cut(want, []byte("\n"))
	var h projectedHeader
	if err := json.Unmarshal(wl, &h); err != nil || !bytes.Equal(gl, wl) || len(gb) != len(wb) {
		t.Fatalf("%s: projected rows: got header %s and %d bytes, want %s and %d (%v)", id, gl, len(gb), wl, len(wb), err)
	}
	n := h.Rows
	book := 5 * n
	if !bytes.Equal(gb[:book], wb[:book]) {
		t.Errorf("%s: projected rows: the row numbers and parts differ", id)
	}
	for c := range h.D {
		col := func(b []byte) []float64 {
			v := make([]float64, n)
			for i := range v {
				v[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[book+8*(c*n+i):]))
			}
			return v
		}
		g, w := col(gb), col(wb)
		scale := maxAbs(w)
		for i := range w {
			if math.Abs(g[i]-w[i]) > 1e-9*scale {
				t.Errorf("%s: projected row %d, component %d: got %v, want %v (1e-9 of %v)", id, i+1, c+1, g[i], w[i], scale)
				break
			}
		}
	}
}

// A job that does not fit in memory on a data set in shards is refused
// with 413 when it cannot run out of core — a method that needs every row
// at once, an evaluation, a split, preprocessing, a test data set — with a
// message that names what blocks it and what to do; and when even out of
// core it would not fit. A data set in one file gets the in-memory
// refusal alone.
func TestOutOfCoreRefusals(t *testing.T) {
	e := newOOCEnv(t, oocCSV(12000, 40, 6, 1, false), 1200<<10, 4)
	base := Request{Dataset: e.rec.ID, Method: "pca", Params: analysis.Params{D: 3}}
	base.Normalize()
	limit := e.limitBetween(t, base)
	other, err := e.store.Import(context.Background(), store.Upload{FileName: "test.csv", Source: strings.NewReader(oocCSV(50, 40, 6, 1, false))})
	if err != nil {
		t.Fatal(err)
	}
	const shards = "The data set is stored in 4 row shards, but this job cannot be fitted out of core, one shard at a time: "
	cases := []struct {
		name  string
		req   Request
		limit int64
		field string // "": admitted
		msg   string // what the message says, after the in-memory refusal
	}{
		{"pca", base, limit, "", ""},
		{"lpp", Request{Dataset: e.rec.ID, Methods: []string{"pca", "lpp"}}, limit, "methods",
			shards + "lpp cannot be fitted from row shards: its neighbour graph compares every pair of rows. Fit it in memory (on a sample of the rows if they do not fit)."},
		{"mddmp rbf", Request{Dataset: e.rec.ID, Method: "mddmp", Params: analysis.Params{LabelKernel: analysis.KernelRBF}}, limit, "method",
			shards + "mddmp with the rbf label kernel cannot be fitted from row shards: its columns are the distinct label sets of all the rows, which a shard does not know; use the linear or quadratic kernel."},
		{"evaluation", Request{Dataset: e.rec.ID, Method: "pca", Evaluate: &Evaluate{Classifier: evaluate.ClassifierMLkNN}, Split: &Split{Kind: SplitKFold}}, limit, "",
			shards + "the evaluation with ML-kNN needs every row in memory; run the job without an evaluation (classifier none, no split)."},
		{"holdout", Request{Dataset: e.rec.ID, Method: "pca", Split: &Split{Kind: SplitHoldout}}, limit, "",
			shards + "the holdout split fits on some of the rows and tests on others in memory; choose no split."},
		{"preprocess", Request{Dataset: e.rec.ID, Method: "pca", Preprocess: preprocess.Standardize}, limit, "",
			shards + "preprocess=standardize is fitted on the rows in memory; choose preprocess none."},
		{"test data set", Request{Dataset: e.rec.ID, Method: "pca", TestDataset: other.ID}, limit, "",
			shards + "a test data set is evaluated on in memory; fit without a test data set."},
		{"not even out of core", base, 66 << 20, "dataset", "Choose fewer features or methods, a smaller d, or upload the data with a smaller -shard-size."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := tc.req
			req.Normalize()
			err := req.Validate(e.store, Limits{MaxJobMemory: tc.limit})
			if tc.msg == "" {
				if err != nil {
					t.Fatalf("got %v, want admitted", err)
				}
				return
			}
			var re *RequestError
			if !errors.As(err, &re) {
				t.Fatalf("got %v, want a *RequestError", err)
			}
			if re.Status != http.StatusRequestEntityTooLarge || !strings.HasSuffix(re.Msg, tc.msg) || (tc.field != "" && re.Field != tc.field) {
				t.Errorf("got %d %s: %q\nwant %d %s: …%q", re.Status, re.Field, re.Msg, http.StatusRequestEntityTooLarge, tc.field, tc.msg)
			}
			if tc.name == "not even out of core" && !strings.HasPrefix(re.Msg, "Even out of core, one of its 4 row shards at a time, this job would need about ") {
				t.Errorf("got %q, want it to start with what the job needs out of core", re.Msg)
			}
		})
	}
	// The same data set in one file: the in-memory refusal, nothing of shards.
	whole, err := e.store.Import(context.Background(), store.Upload{FileName: "whole.csv", Source: strings.NewReader(oocCSV(100, 40, 6, 1, false))})
	if err != nil {
		t.Fatal(err)
	}
	req := Request{Dataset: whole.ID, Method: "lpp"}
	req.Normalize()
	var re *RequestError
	if err := req.Validate(e.store, Limits{MaxJobMemory: 40 << 20}); !errors.As(err, &re) || re.Status != http.StatusRequestEntityTooLarge || strings.Contains(re.Msg, "shards") {
		t.Errorf("a data set in one file: got %v, want 413 without a word of shards", err)
	}
}

// On multi-dimensional data the refusal of an evaluation names the
// classifier as those data know it: the k-NN vote, not ML-kNN.
func TestOutOfCoreRefusalNamesTheClassifier(t *testing.T) {
	e := newOOCEnv(t, oocCSV(12000, 40, 3, 1, true), 1200<<10, 4)
	base := Request{Dataset: e.rec.ID, Method: "pca", Params: analysis.Params{D: 2}}
	base.Normalize()
	limit := e.limitBetween(t, base)
	req := Request{Dataset: e.rec.ID, Method: "pca", Params: analysis.Params{D: 2}, Evaluate: &Evaluate{Classifier: evaluate.ClassifierMLkNN}, Split: &Split{Kind: SplitKFold}}
	req.Normalize()
	err := req.Validate(e.store, Limits{MaxJobMemory: limit})
	var re *RequestError
	if !errors.As(err, &re) {
		t.Fatalf("got %v, want a *RequestError", err)
	}
	const want = "the evaluation with the k-NN vote needs every row in memory; run the job without an evaluation (classifier none, no split)."
	if re.Status != http.StatusRequestEntityTooLarge || !strings.HasSuffix(re.Msg, want) {
		t.Errorf("got %d: %q, want 413: …%q", re.Status, re.Msg, want)
	}
}
