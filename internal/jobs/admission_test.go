package jobs

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"mldr/internal/analysis"
	"mldr/internal/evaluate"
	"mldr/internal/store"
)

// fakeEstimators make the figures of the messages known: pca, cplst and
// lda hold a D×D matrix, lpp an N×N one, mddmp with the quadratic kernel
// the N × q(q+1)/2 kernel columns, every other method N×D; the evaluation
// holds testRows × N distances and the largest fit on a training part.
func fakeEstimators() estimators {
	fit := func(id string, p analysis.Params, s analysis.Shape) (int64, error) {
		n, d, q := int64(s.N), int64(s.D), int64(s.Q)
		switch {
		case id == "pca" || id == "cplst" || id == "lda":
			return 8 * d * d, nil
		case id == "lpp":
			return 8 * n * n, nil
		case id == "mddmp" && p.LabelKernel == analysis.KernelQuadratic:
			return 8 * n * q * (q + 1) / 2, nil
		}
		return 8 * n * d, nil
	}
	eval := func(s analysis.Shape, testRows int, spec evaluate.Spec) (int64, error) {
		train, most := s, int64(0)
		train.N -= testRows
		for _, m := range spec.Methods {
			b, _ := fit(m.ID, m.Params, train)
			most = max(most, b)
		}
		return 8*int64(testRows)*int64(s.N) + most, nil
	}
	return estimators{fit: fit, eval: eval}
}

const gib = 1 << 30

// The parts of an estimate, each by the rule its doc comment states.
func TestEstimateParts(t *testing.T) {
	rec := mlRecord("wide", 6, 60000, 3)
	req := Request{Dataset: "wide", Method: "pca"}
	req.Normalize()
	e, err := estimateShape(req, shapeOfJob(req, rec, store.DatasetRecord{}), fakeEstimators())
	if err != nil {
		t.Fatal(err)
	}
	const n, d, q = 6, 60000, 3
	data := int64(8*(d+q)*n + 2*nameBytes*(d+q) + 24*n + 8*n) // X and Y, names, the rows' parts and numbers and the fit rows
	// pca keeps at most N−1 = 5 directions of D: Basis D×5, projected rows N×5, means and eigenvalues.
	model := int64(8 * (d*5 + n*5 + 2*(d+q)))
	write := int64(8*d*5 + 2*jsonBytesPerNumber*5 + 8*n*5 + 8*n + 2*(jsonBytesPerNumber+nameBytes)*(d+q+5))
	if e.Overhead != JobOverhead || e.Data != data {
		t.Errorf("got overhead %d, data %d; want %d, %d", e.Overhead, e.Data, JobOverhead, data)
	}
	want := MethodEstimate{ID: "pca", Fit: 8 * d * d, Model: model, Write: write}
	if len(e.Methods) != 1 || e.Methods[0] != want {
		t.Fatalf("got methods %+v, want [%+v]", e.Methods, want)
	}
	if peak := JobOverhead + data + 8*d*d; e.Peak != peak || e.Evaluation != 0 || e.Kept != model {
		t.Errorf("got peak %d, evaluation %d, kept %d; want %d, 0, %d", e.Peak, e.Evaluation, e.Kept, peak, model)
	}

	// A holdout with an evaluation: the fit rows' copy, the split's rows,
	// the evaluation on 20 % of the rows, with the model kept.
	rec = mlRecord("ml", 1000, 10, 2)
	req = Request{Dataset: "ml", Methods: []string{"mddmp", "pca"}, Evaluate: &Evaluate{}}
	req.Normalize()
	e, err = estimateShape(req, shapeOfJob(req, rec, store.DatasetRecord{}), fakeEstimators())
	if err != nil {
		t.Fatal(err)
	}
	data = 8*12*1000 + 8*12*800 + 2*nameBytes*12 + 24*1000 + 8*1000*2
	// The fake evaluation: 200 test rows × 1000 rows, and mddmp's fit on
	// 800 rows × 10 features.
	if eval := int64(8*200*1000 + 8*800*10); e.Data != data || e.Evaluation != eval {
		t.Errorf("got data %d, evaluation %d; want %d, %d", e.Data, e.Evaluation, data, eval)
	}
	if len(e.Methods) != 2 || e.Methods[0].Kept != 0 || e.Methods[1].Kept != e.Methods[0].Model || e.Kept != e.Methods[0].Model+e.Methods[1].Model {
		t.Errorf("got methods %+v, kept %d: each method's model is kept after it", e.Methods, e.Kept)
	}
}

func TestAdmission(t *testing.T) {
	ds := fakeDatasets{
		"wide":   mlRecord("wide", 6, 60000, 3),
		"labels": mlRecord("labels", 600, 100, 5000),
		"tall":   mlRecord("tall", 100000, 50, 5),
		"big":    mlRecord("big", 1000000, 100, 5),
	}
	tests := []struct {
		name  string
		req   Request
		limit int64
		field string // "": accepted
		msg   string
	}{
		{"D×D fits", Request{Dataset: "wide", Method: "pca"}, 32 * gib, "", ""},
		{"D×D", Request{Dataset: "wide", Method: "pca"}, 12 * gib, "method",
			"pca would need about 27.1 GiB here (a 60 000 × 60 000 matrix of the features), more than the 12 GiB a job may use (the -max-job-memory limit). " +
				"Fewer features (at most about 39 000) or another method (mddmp, mddmf, mvmd…) would fit."},
		{"D×D evaluated", Request{Dataset: "wide", Method: "pca", Evaluate: &Evaluate{}}, 12 * gib, "method",
			"pca would need about 27.1 GiB here (a 60 000 × 60 000 matrix of the features), more than the 12 GiB a job may use (the -max-job-memory limit). " +
				"Fewer features (at most about 39 000) or another method (mddmp, mddmf, mvmd…) would fit."},
		{"D×D among methods", Request{Dataset: "wide", Methods: []string{"mddmp", "cplst"}}, 12 * gib, "methods",
			"cplst would need about 27.2 GiB here (a 60 000 × 60 000 matrix of the features), more than the 12 GiB a job may use (the -max-job-memory limit). " +
				"Fewer features (at most about 39 000) or another method (mddmf, mvmd, mlsi…) would fit."},
		{"quadratic kernel", Request{Dataset: "labels", Method: "mddmp", Params: analysis.Params{LabelKernel: analysis.KernelQuadratic}}, 4 * gib, "params.label_kernel",
			"mddmp with label_kernel=quadratic would need about 56.2 GiB here (the 12 502 500 columns of the quadratic label kernel for 600 rows), " +
				"more than the 4 GiB a job may use (the -max-job-memory limit). The linear label kernel, fewer labels (at most about 200), another method (pca, mddmf, mvmd…) or a sample of at most about 39 rows would fit."},
		{"N×N", Request{Dataset: "tall", Method: "lpp"}, 4 * gib, "method",
			"lpp would need about 74.9 GiB here (a 100 000 × 100 000 matrix of the rows), more than the 4 GiB a job may use (the -max-job-memory limit). " +
				"Another method (pca, mddmp, mddmf…) or a sample of at most about 22 000 rows would fit."},
		{"evaluation", Request{Dataset: "big", Method: "mddmp", Evaluate: &Evaluate{Classifier: evaluate.ClassifierRidge}}, 4 * gib, "evaluate",
			"the evaluation with ridge on 200 000 test rows would need about 1.5 TiB here, more than the 4 GiB a job may use (the -max-job-memory limit). " +
				"Fewer test rows (at most about 190), no evaluation or a sample of at most about 49 000 rows would fit."},
		{"the data", Request{Dataset: "big", Method: "mddmp"}, 512 << 20, "dataset",
			"the data as loaded would need about 927.6 MiB here (1 000 000 rows × 100 features and 5 labels, with the copies the split makes), " +
				"more than the 512 MiB a job may use (the -max-job-memory limit). A sample of at most about 260 000 rows would fit."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := tc.req
			req.Normalize()
			rec, _ := ds.Dataset(req.Dataset)
			f, err := admit(req, rec, store.DatasetRecord{}, tc.limit, fakeEstimators(), true)
			switch {
			case err != nil:
				t.Fatal(err)
			case tc.field == "" && f != nil:
				t.Fatalf("got refused: %s, want accepted", f.message())
			case tc.field == "":
				return
			case f == nil:
				t.Fatalf("got accepted, want refused at %s", tc.field)
			}
			if f.field != tc.field || f.message() != tc.msg {
				t.Errorf("got %s: %q\nwant %s: %q", f.field, f.message(), tc.field, tc.msg)
			}
		})
	}
}

// Every suggestion a refusal makes fits, checked against the estimate.
func TestAdmissionSuggestionsFit(t *testing.T) {
	est := fakeEstimators()
	rec := mlRecord("wide", 6, 60000, 3)
	req := Request{Dataset: "wide", Method: "pca"}
	req.Normalize()
	sh := shapeOfJob(req, rec, store.DatasetRecord{})
	peak := func(sh jobShape) int64 {
		e, err := estimateShape(req, sh, est)
		if err != nil {
			t.Fatal(err)
		}
		return e.Peak
	}
	// 8·D² ≤ 12 GiB − 64 MiB − the data: D ≤ 40 016, said as 40 000; it
	// fits and one more does not.
	d := largest(1, sh.d-1, func(d int) bool { return peak(sh.withFeatures(d)) <= 12*gib })
	if d != 40016 || roundDown(d) != 40000 || peak(sh.withFeatures(d+1)) <= 12*gib {
		t.Errorf("got the largest d %d (%d), peak %d at d+1; want 40 016 (40 000), d+1 beyond 12 GiB", d, roundDown(d), peak(sh.withFeatures(d+1)))
	}
	for _, c := range []struct{ n, want int }{{5, 5}, {99, 99}, {123, 120}, {38417, 38000}, {1000000, 1000000}} {
		if got := roundDown(c.n); got != c.want {
			t.Errorf("roundDown(%d): got %d, want %d", c.n, got, c.want)
		}
	}
}

// Validate refuses with 413 what would not fit, with the real estimates;
// without a limit (0) it refuses nothing for memory.
func TestValidateMemory(t *testing.T) {
	ds := testDatasets()
	ds["wide"] = mlRecord("wide", 6, 60000, 3)
	ds["pairs"] = mlRecord("pairs", 3000, 4, 3)
	tests := []struct {
		name   string
		req    Request
		limit  int64
		status int
		prefix string
	}{
		{"no limit", Request{Dataset: "wide", Method: "pca"}, 0, 0, ""},
		{"small data", Request{Dataset: "ml", Methods: []string{"pca", "mddmp", "cplst"}, Evaluate: &Evaluate{}}, 1 * gib, 0, ""},
		// 6 × 60 000: the N×N path, no D×D matrix (a 1.2 MB file must not ask
		// for a 60 000 × 60 000 matrix).
		{"wide", Request{Dataset: "wide", Methods: []string{"pca", "cplst", "lda", "mlsi"}}, 1 * gib, 0, ""},
		{"N×N", Request{Dataset: "pairs", Method: "kcplst"}, 128 << 20, http.StatusRequestEntityTooLarge, "kcplst would need about "},
		// kmddm's exact dual holds the N×N kernel and its eigenvectors;
		// 200 Nyström landmarks hold N×200.
		{"kernel N×N", Request{Dataset: "pairs", Method: "kmddm"}, 128 << 20, http.StatusRequestEntityTooLarge, "kmddm would need about "},
		{"kernel landmarks", Request{Dataset: "pairs", Methods: []string{"kpca", "kmddm"}, Params: analysis.Params{Landmarks: 200}}, 128 << 20, 0, ""},
		// Predefined folds: the estimate takes the largest test part a fold
		// can have (it once took every row, which the evaluation's estimate
		// refused: a 500).
		{"predefined folds", Request{Dataset: "md", Method: "pca", Split: &Split{Kind: SplitPredefined}, Evaluate: &Evaluate{}}, 1 * gib, 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := tc.req
			req.Normalize()
			err := req.Validate(ds, Limits{MaxJobMemory: tc.limit})
			if tc.status == 0 {
				if err != nil {
					t.Fatalf("got %v, want accepted", err)
				}
				return
			}
			re, ok := err.(*RequestError)
			if !ok {
				t.Fatalf("got %v, want a *RequestError", err)
			}
			if re.Status != tc.status || re.Field != "method" || !strings.HasPrefix(re.Msg, tc.prefix) ||
				!strings.Contains(re.Msg, "more than the "+store.FormatBytes(tc.limit)+" a job may use (the -max-job-memory limit).") {
				t.Errorf("got %d %s %q, want %d method %q… the %s limit", re.Status, re.Field, re.Msg, tc.status, tc.prefix, store.FormatBytes(tc.limit))
			}
		})
	}
}

// The form's reason for a method that does not fit.
func TestMethodMemory(t *testing.T) {
	rec := mlRecord("pairs", 3000, 4, 3)
	for _, c := range []struct {
		limit  int64
		method string
		fits   bool
	}{{0, "kcplst", true}, {1 << 50, "kcplst", true}, {128 << 20, "kcplst", false}, {128 << 20, "pca", true}} {
		why, fits := Limits{MaxJobMemory: c.limit}.MethodMemory(rec, c.method)
		if fits != c.fits || (why == "") != fits {
			t.Errorf("%s under %d: got %v %q, want fits %v with a reason when not", c.method, c.limit, fits, why, c.fits)
		}
		if !fits && (!strings.HasPrefix(why, "Needs about ") || !strings.HasSuffix(why, "; a job may use at most 128 MiB.")) {
			t.Errorf("got %q, want Needs about … a job may use at most 128 MiB.", why)
		}
	}
}

// What a job's shape takes from its request and records.
func TestShapeOfJob(t *testing.T) {
	train := mlRecord("ml", 1000, 10, 4)
	train.Summary.DistinctLabelsets = 9
	train.Folds = 5
	test := mlRecord("test", 300, 10, 4)
	unknown := mlRecord("unknown", 1000, 10, 4) // no count of label sets: one per row
	eval := &Evaluate{}
	tests := []struct {
		name                                     string
		req                                      Request
		train                                    store.DatasetRecord
		fit, testPart, splits, all, sets, fitSet int
	}{
		{"no split", Request{Method: "pca"}, train, 1000, 0, 0, 1000, 9, 9},
		{"holdout", Request{Method: "pca", Evaluate: eval}, train, 800, 200, 1, 1000, 9, 9},
		{"holdout without evaluation", Request{Method: "pca", Split: &Split{Kind: SplitHoldout}}, train, 800, 0, 1, 1000, 9, 9},
		{"kfold", Request{Method: "pca", Evaluate: eval, Split: &Split{Kind: SplitKFold, Folds: 3}}, train, 1000, 334, 3, 1000, 9, 9},
		{"predefined", Request{Method: "pca", Evaluate: eval, Split: &Split{Kind: SplitPredefined}}, train, 1000, 999, 5, 1000, 9, 9},
		{"test set", Request{Method: "pca", Evaluate: eval, TestDataset: "test"}, train, 1000, 300, 1, 1300, 309, 9},
		{"unknown label sets", Request{Method: "pca", Evaluate: eval}, unknown, 800, 200, 1, 1000, 1000, 800},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := tc.req
			req.Normalize()
			sh := shapeOfJob(req, tc.train, test)
			got := []int{sh.fit, sh.testPart, sh.splits, sh.all(), sh.sets, sh.fitSets}
			want := []int{tc.fit, tc.testPart, tc.splits, tc.all, tc.sets, tc.fitSet}
			if !slices.Equal(got, want) {
				t.Errorf("got fit, test part, splits, rows, label sets, fit label sets %v, want %v", got, want)
			}
		})
	}
}

// TestDescribeNamesWhatTheMethodHolds: a refusal names a matrix the
// method forms: never one of the labels for a method that never reads
// them (pca on 13 330 labels was blamed on "a 13 330 × 13 330 matrix of
// the labels"), and with fewer rows than features the factorisation of
// the rows.
func TestDescribeNamesWhatTheMethodHolds(t *testing.T) {
	wide, tall := analysis.Shape{N: 1186, D: 203882, Q: 13330}, analysis.Shape{N: 20000, D: 500, Q: 13330}
	tests := []struct {
		id   string
		s    analysis.Shape
		fit  int64
		want string
	}{
		{"pca", wide, 8 * 1186 * 203882 * 2, "the factorisation of its 1 186 rows of 203 882 features"},
		{"pca", tall, 8 * 13330 * 13330 * 3 / 2, ""},
		{"plst", tall, 8 * 13330 * 13330 * 3 / 2, "a 13 330 × 13 330 matrix of the labels"},
		{"plst", wide, 8 * 13330 * 13330 * 3 / 2, "a 13 330 × 13 330 matrix of the labels"},
		{"kpca", analysis.Shape{N: 20000, D: 50, Q: 5}, 8 * 20000 * 1000 * 2, "the kernel of its 20 000 rows with 1 000 landmarks"},
		{"kmddm", analysis.Shape{N: 2000, D: 50, Q: 5}, 8 * 2000 * 2000 * 3, "a 2 000 × 2 000 matrix of the rows"},
	}
	for _, tc := range tests {
		if got := describe(tc.id, analysis.Params{}, tc.s, tc.fit); got != tc.want {
			t.Errorf("describe(%s, %d bytes) = %q, want %q", tc.id, tc.fit, got, tc.want)
		}
	}
}

// TestEstimateReusedFits: with a holdout (one split training on the fit
// rows) the evaluation's estimate leaves out the fits it takes from the
// result models, which the job holds anyway; with k folds, a grid of
// percentages or a d beyond the directions a model holds, it counts them.
func TestEstimateReusedFits(t *testing.T) {
	rec := mlRecord("ml", 2000, 300, 5)
	for _, tc := range []struct {
		name   string
		split  *Split
		eval   Evaluate
		reused bool
	}{
		{"holdout, own d", &Split{Kind: SplitHoldout}, Evaluate{}, true},
		{"holdout, grid of dims", &Split{Kind: SplitHoldout}, Evaluate{Dims: []int{2, 5}}, true},
		{"holdout, percentages", &Split{Kind: SplitHoldout}, Evaluate{Percent: []float64{1}}, false},
		{"k folds", &Split{Kind: SplitKFold, Folds: 3}, Evaluate{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := Request{Dataset: "ml", Method: "pca", Params: analysis.Params{D: 5}, Split: tc.split, Evaluate: &tc.eval}
			req.Normalize()
			e, err := EstimateJob(req, rec, store.DatasetRecord{})
			if err != nil {
				t.Fatal(err)
			}
			sh := shapeOfJob(req, rec, store.DatasetRecord{})
			full, err := evaluate.EstimateMemory(sh.allShape(), sh.testPart, evalSpec(req))
			if err != nil {
				t.Fatal(err)
			}
			if got := e.Evaluation < full; got != tc.reused {
				t.Errorf("evaluation estimate %d bytes, %d with the fit counted: reuse %v, want %v", e.Evaluation, full, got, tc.reused)
			}
		})
	}
}
