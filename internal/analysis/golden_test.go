package analysis_test

import (
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/analysis"
	"mldr/internal/dataset"
)

// The reference values in testdata/ref were computed by
// testdata/ref/golden.py with numpy/scipy, independently of this package;
// testdata/ref/README.md says how to regenerate them and what each file
// holds. This test fits every method on the same shared data sets and
// compares eigenvalues, subspaces and single directions with them.

// goldenDatasetsDir holds the shared benchmark data sets (beside the
// repository).
const goldenDatasetsDir = "../../../shared/datasets"

// goldenRefDir holds the reference files.
var goldenRefDir = filepath.Join("testdata", "ref")

// goldenFile is one method's reference file.
type goldenFile struct {
	Method     string            `json:"method"`
	Generator  string            `json:"generator"`
	Software   map[string]string `json:"software"`
	Definition string            `json:"definition"`
	Params     map[string]any    `json:"params"`
	Cases      []goldenCase      `json:"cases"`
}

// goldenCase is the reference for one method on one data set.
type goldenCase struct {
	Dataset string `json:"dataset"`
	File    string `json:"file"` // relative to goldenDatasetsDir
	SHA256  string `json:"sha256"`
	N       int    `json:"n"`
	D       int    `json:"d"`
	Q       int    `json:"q"`
	Classes []int  `json:"classes"`
	goldenEigen
	// Embedding holds mds's leading embedding columns (each N long).
	Embedding [][]float64 `json:"embedding"`
	// Blocks holds lda's per-variable results.
	Blocks []goldenBlock `json:"blocks"`
}

// goldenEigen is a decomposition's leading part.
type goldenEigen struct {
	Eigenvalues []float64 `json:"eigenvalues"`
	// Directions are columns (each D long), best first; B-orthonormal
	// (WᵀBW = I) for generalized problems.
	Directions [][]float64 `json:"directions"`
	// RestZero says the eigenvalues after the stored ones are zero (the
	// method's rank is len(Eigenvalues)); otherwise NextEigenvalue, when
	// set, is the one after the stored ones.
	RestZero       bool     `json:"rest_zero"`
	NextEigenvalue *float64 `json:"next_eigenvalue"`
	// SignMargin is, per stored column, (largest − second largest |entry|)
	// / largest: how clearly the sign rule picks its entry.
	SignMargin []float64 `json:"sign_margin"`
}

// goldenBlock is one class variable's (or binary label's) LDA.
type goldenBlock struct {
	Variable int `json:"variable"`
	Classes  int `json:"classes"`
	goldenEigen
}

// goldenTol are the tolerances of one case.
type goldenTol struct {
	// eig bounds the relative error of each eigenvalue.
	eig float64
	// sub bounds 1 − (smallest cosine of the principal angles) between
	// the leading subspaces; 1 − cos θ ≈ θ²/2, so 1e-10 allows θ ≈ 1.4e-5.
	sub float64
	// vec bounds max |got − want| of unit-length columns, matched up to
	// sign, and |‖got‖/‖want‖ − 1| of the raw columns (their scale).
	vec float64
}

// goldenTight is the tolerance of every case. Perturbing the data at the
// rounding level (a row permutation, one-ulp changes of X) moves the
// references by at most 4e-13 in eigenvalues (relative) and 5e-12 in
// unit-length directions, and every column compared one by one has an
// eigenvalue gap of at least 9.7e-5·λ₁ (README.md), so these leave a
// margin of four orders of magnitude and none needed loosening.
var goldenTight = goldenTol{eig: 1e-8, sub: 1e-10, vec: 1e-8}

// goldenMinGap is the smallest eigenvalue gap, relative to |λ₁|, at which
// a single direction is compared on its own (below it only the subspace is
// well defined). An eigenvector moves by about ε‖A‖/gap under a
// perturbation ε‖A‖; with gap 1e-6·λ₁ and ε ≈ 1e-15 that is 1e-9 < vec.
const goldenMinGap = 1e-6

// goldenSignMargin is the smallest sign margin at which the sign rule
// (largest-magnitude entry positive) is checked, not just agreement up to
// sign.
const goldenSignMargin = 1e-6

// goldenSpec is one case of the test: a method on a data set, with its
// tolerances. The fit uses Params.D = the number of stored directions (mds:
// embedding columns), or the defaults for lda.
type goldenSpec struct {
	method, dataset string
	tol             goldenTol
}

// goldenCases lists every reference case with its tolerance.
var goldenCases = []goldenSpec{
	{"pca", "yeast", goldenTight},
	{"pca", "emotions", goldenTight},
	{"mddmp", "yeast", goldenTight},
	{"mddmp", "emotions", goldenTight},
	{"mddmf", "yeast", goldenTight},
	{"mddmf", "emotions", goldenTight},
	{"mlsi", "yeast", goldenTight},
	{"mlsi", "emotions", goldenTight},
	{"cca", "yeast", goldenTight},
	{"cca", "emotions", goldenTight},
	{"lda", "edm", goldenTight},
	{"lda", "song", goldenTight},
	{"lda", "yeast", goldenTight},
	{"lda", "emotions", goldenTight},
	{"lpp", "yeast", goldenTight},
	{"lpp", "emotions", goldenTight},
	{"mds", "yeast", goldenTight},
	{"mds", "emotions", goldenTight},
}

// goldenMethods are the reference files, by method.
var goldenMethods = []string{"pca", "mddmp", "mddmf", "mlsi", "cca", "lda", "lpp", "mds"}

func TestGolden(t *testing.T) {
	if _, err := os.Stat(goldenDatasetsDir); os.IsNotExist(err) {
		if os.Getenv("MLDR_REQUIRE_SHARED") == "1" {
			t.Fatalf("%s is missing (MLDR_REQUIRE_SHARED=1): clone ../shared beside the project", goldenDatasetsDir)
		}
		t.Skipf("%s is missing: the golden comparisons need the shared data sets", goldenDatasetsDir)
	}
	refs := make(map[string]goldenFile)
	for _, m := range goldenMethods {
		refs[m] = goldenReadRef(t, m)
	}
	// Every stored case has a row in goldenCases, so none is left out.
	for _, m := range goldenMethods {
		for _, c := range refs[m].Cases {
			if !slices.ContainsFunc(goldenCases, func(g goldenSpec) bool { return g.method == m && g.dataset == c.Dataset }) {
				t.Errorf("%s.json has a case for %s that goldenCases does not list", m, c.Dataset)
			}
		}
	}
	data := make(map[string]*dataset.Dataset)
	for _, tc := range goldenCases {
		t.Run(tc.method+"/"+tc.dataset, func(t *testing.T) {
			ref := refs[tc.method]
			i := slices.IndexFunc(ref.Cases, func(c goldenCase) bool { return c.Dataset == tc.dataset })
			if i < 0 {
				t.Fatalf("%s has no case for %s; regenerate with golden.py", goldenRefName(tc.method), tc.dataset)
			}
			c := ref.Cases[i]
			src := goldenSource(ref)
			ds, ok := data[c.File]
			if !ok {
				ds = goldenLoad(t, c)
				data[c.File] = ds
			}
			in := analysis.Input{X: ds.X, Y: ds.Y}
			if ds.Kind == dataset.MultiDim {
				for _, cats := range ds.Categories {
					in.Classes = append(in.Classes, len(cats))
				}
				if !slices.Equal(in.Classes, c.Classes) {
					t.Fatalf("%s: classes per variable %v, want %v (%s)", c.File, in.Classes, c.Classes, src)
				}
			}
			// MaxDim: the reference's eigenvalues are compared, and so
			// computed, beyond d.
			p := analysis.Params{MaxDim: len(c.Eigenvalues)}
			switch {
			case tc.method == "mds":
				p.D = len(c.Embedding)
			case tc.method != "lda":
				p.D = len(c.Directions)
			}
			if m, _ := analysis.Lookup(tc.method); slices.Contains(m.Takes, analysis.ParamNormalize) {
				// The references are scipy's eigh(A, B): B-orthonormal
				// directions, whose lengths are compared too.
				p.Normalize = analysis.NormalizeB
			}
			m, err := analysis.Fit(t.Context(), tc.method, in, p, nil)
			if err != nil {
				t.Fatalf("Fit(%s, %s, %+v): %v", tc.method, tc.dataset, p, err)
			}
			what := tc.method + " on " + tc.dataset
			switch tc.method {
			case "lda":
				goldenCheckBlocks(t, what, m, c, tc.tol, src)
			case "mds":
				goldenCheckEigenvalues(t, what, m.Eigenvalues, c.Eigenvalues, tc.tol.eig, src)
				if m.Projected == nil {
					t.Fatalf("%s: Projected is nil, want the N×%d embedding", what, len(c.Embedding))
				}
				e := c.goldenEigen
				e.Directions = c.Embedding
				goldenCheckColumns(t, what+", embedding", m.Projected, e, tc.tol, src)
			default:
				goldenCheckEigenvalues(t, what, m.Eigenvalues, c.Eigenvalues, tc.tol.eig, src)
				if m.Basis == nil {
					t.Fatalf("%s: Basis is nil", what)
				}
				goldenCheckColumns(t, what+", directions", m.Basis, c.goldenEigen, tc.tol, src)
			}
		})
	}
}

// goldenCheckBlocks compares lda's blocks: one per class variable, or one
// of a single direction per binary label. A block's own eigenvalues are in
// Block.Values; its directions are columns Start…Start+Dim−1 of Basis.
func goldenCheckBlocks(t *testing.T, what string, m *analysis.Model, c goldenCase, tol goldenTol, src string) {
	t.Helper()
	if len(m.Blocks) != len(c.Blocks) {
		t.Fatalf("%s: %d blocks, want %d (one per class variable or binary label; %s)", what, len(m.Blocks), len(c.Blocks), src)
	}
	if m.Basis == nil {
		t.Fatalf("%s: Basis is nil", what)
	}
	rows, cols := m.Basis.Dims()
	for j, b := range c.Blocks {
		got := m.Blocks[j]
		bw := fmt.Sprintf("%s, block %d", what, j)
		if got.Variable != b.Variable || got.Dim != len(b.Directions) {
			t.Errorf("%s: variable %d with %d directions, want variable %d with %d (classes − 1; %s)",
				bw, got.Variable, got.Dim, b.Variable, len(b.Directions), src)
			continue
		}
		if got.Start < 0 || got.Start+got.Dim > cols || got.Dim > len(got.Values) {
			t.Errorf("%s: columns %d…%d, but Basis has %d columns and the block %d eigenvalues",
				bw, got.Start, got.Start+got.Dim-1, cols, len(got.Values))
			continue
		}
		goldenCheckEigenvalues(t, bw, got.Values, b.Eigenvalues, tol.eig, src)
		goldenCheckColumns(t, bw+", directions", m.Basis.Slice(0, rows, got.Start, got.Start+got.Dim), b.goldenEigen, tol, src)
	}
}

// goldenCheckEigenvalues compares the leading len(want) eigenvalues.
func goldenCheckEigenvalues(t *testing.T, what string, got, want []float64, tol float64, src string) {
	t.Helper()
	if len(got) < len(want) {
		t.Errorf("%s: %d eigenvalues, want at least the %d of the reference (%s)", what, len(got), len(want), src)
		return
	}
	worst := 0.0
	for i, w := range want {
		e := math.Abs(got[i]-w) / math.Abs(w)
		if !(e <= tol) {
			t.Errorf("%s: eigenvalue %d = %.17g, want %.17g: relative error %.2g > %.0e (%s)", what, i+1, got[i], w, e, tol, src)
		}
		worst = max(worst, e)
	}
	t.Logf("%s: %d eigenvalues, largest relative error %.2g (tolerance %.0e)", what, len(want), worst, tol)
}

// goldenCheckColumns compares the leading columns of got with want's
// directions: the subspace they span (principal angles after QR, which
// B-orthonormal columns need), then every column whose eigenvalue is well
// separated on its own, up to sign, and its length, and the sign rule.
func goldenCheckColumns(t *testing.T, what string, got mat.Matrix, want goldenEigen, tol goldenTol, src string) {
	t.Helper()
	r, c := got.Dims()
	k := len(want.Directions)
	if c < k || r != len(want.Directions[0]) {
		t.Fatalf("%s: got %d×%d, want at least %d×%d (%s)", what, r, c, len(want.Directions[0]), k, src)
	}
	ref := mat.NewDense(r, k, nil)
	for j, col := range want.Directions {
		ref.SetCol(j, col)
	}
	g := mat.DenseCopyOf(got).Slice(0, r, 0, k).(*mat.Dense)

	// The subspace of the first s columns, for the largest s ≤ k with a
	// clear gap after it.
	s := k
	for s > 0 && goldenGap(want, s-1, false) < goldenMinGap {
		s--
	}
	if s < k {
		t.Logf("%s: the eigenvalues after column %d are too close to separate; comparing the first %d only", what, s, s)
	}
	if s > 0 {
		d := 1 - goldenMinCos(g.Slice(0, r, 0, s), ref.Slice(0, r, 0, s))
		if !(d <= tol.sub) {
			t.Errorf("%s: the span of the first %d columns differs: 1 − min cos(principal angle) = %.2g > %.0e (%s)",
				what, s, d, tol.sub, src)
		}
		t.Logf("%s: span of %d columns, 1 − min cos = %.2g (tolerance %.0e)", what, s, d, tol.sub)
	}
	worstVec, worstLen := 0.0, 0.0
	defer func() {
		t.Logf("%s: columns one by one, largest entry difference %.2g, largest length error %.2g (tolerance %.0e)",
			what, worstVec, worstLen, tol.vec)
	}()

	for j := range k {
		if gap := goldenGap(want, j, true); gap < goldenMinGap {
			t.Logf("%s: column %d not compared on its own: eigenvalue gap %.2g·|λ₁| < %.0e", what, j+1, gap, goldenMinGap)
			continue
		}
		gc, wc := mat.Col(nil, j, g), want.Directions[j]
		gn, wn := goldenNorm(gc), goldenNorm(wc)
		dot := 0.0
		for i := range gc {
			dot += gc[i] / gn * wc[i] / wn
		}
		sign := 1.0
		if dot < 0 {
			sign = -1
		}
		worst, at := 0.0, 0
		for i := range gc {
			if e := math.Abs(sign*gc[i]/gn - wc[i]/wn); e > worst {
				worst, at = e, i
			}
		}
		worstVec = max(worstVec, worst)
		if !(worst <= tol.vec) {
			t.Errorf("%s: column %d (unit length, up to sign): entry %d = %.17g, want %.17g: difference %.2g > %.0e (%s)",
				what, j+1, at+1, sign*gc[at]/gn, wc[at]/wn, worst, tol.vec, src)
			continue
		}
		e := math.Abs(gn/wn - 1)
		worstLen = max(worstLen, e)
		if !(e <= tol.vec) {
			t.Errorf("%s: column %d has length %.17g, want %.17g (the reference's normalization): relative error %.2g > %.0e (%s)",
				what, j+1, gn, wn, e, tol.vec, src)
		}
		if sign < 0 && j < len(want.SignMargin) && want.SignMargin[j] >= goldenSignMargin {
			t.Errorf("%s: column %d has the opposite sign: its largest-magnitude entry (%d) should be positive (%s)",
				what, j+1, goldenArgMaxAbs(wc)+1, src)
		}
	}
}

// goldenGap is the distance, relative to |λ₁|, from eigenvalue j to its
// neighbours: both of them when both is set, else only the next one (the
// gap that separates the first j+1 from the rest). A missing neighbour
// past the stored values is 0 when the rest are zero, else unknown (the
// gap counts as 0: not separated).
func goldenGap(e goldenEigen, j int, both bool) float64 {
	vals := e.Eigenvalues
	next := math.NaN()
	switch {
	case j+1 < len(vals):
		next = vals[j+1]
	case e.RestZero:
		next = 0
	case e.NextEigenvalue != nil:
		next = *e.NextEigenvalue
	}
	if math.IsNaN(next) {
		return 0
	}
	gap := vals[j] - next
	if both && j > 0 {
		gap = min(gap, vals[j-1]-vals[j])
	}
	return gap / math.Abs(vals[0])
}

// goldenMinCos is the smallest cosine of the principal angles between the
// column spans of a and b (same shape): the smallest singular value of
// Q_aᵀQ_b, with Q from QR.
func goldenMinCos(a, b mat.Matrix) float64 {
	qa, qb := goldenOrth(a), goldenOrth(b)
	var m mat.Dense
	m.Mul(qa.T(), qb)
	var svd mat.SVD
	if !svd.Factorize(&m, mat.SVDNone) {
		return math.NaN()
	}
	v := svd.Values(nil)
	return v[len(v)-1]
}

// goldenOrth is an orthonormal basis of a's columns: the first c columns
// of Q in a = QR.
func goldenOrth(a mat.Matrix) mat.Matrix {
	r, c := a.Dims()
	var qr mat.QR
	qr.Factorize(a)
	var q mat.Dense
	qr.QTo(&q)
	return q.Slice(0, r, 0, c)
}

// goldenNorm is the Euclidean length of v.
func goldenNorm(v []float64) float64 {
	return math.Sqrt(mat.Dot(mat.NewVecDense(len(v), v), mat.NewVecDense(len(v), v)))
}

// goldenArgMaxAbs is the index of v's entry of largest magnitude (the
// first on a tie).
func goldenArgMaxAbs(v []float64) int {
	at := 0
	for i, x := range v {
		if math.Abs(x) > math.Abs(v[at]) {
			at = i
		}
	}
	return at
}

// goldenSource says where a reference came from, for failure messages.
func goldenSource(f goldenFile) string {
	return fmt.Sprintf("reference: numpy %s / scipy %s eigh, script testdata/ref/golden.py, %s",
		f.Software["numpy"], f.Software["scipy"], goldenRefName(f.Method))
}

func goldenRefName(method string) string {
	if method == "mds" {
		return "testdata/ref/mds.json.gz"
	}
	return "testdata/ref/" + method + ".json"
}

// goldenReadRef reads one method's reference file.
func goldenReadRef(t *testing.T, method string) goldenFile {
	t.Helper()
	name := filepath.Join(goldenRefDir, filepath.Base(goldenRefName(method)))
	f, err := os.Open(name)
	if err != nil {
		t.Fatalf("%v (regenerate with /usr/bin/python3 internal/analysis/testdata/ref/golden.py)", err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(name, ".gz") {
		z, err := gzip.NewReader(f)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		defer z.Close()
		r = z
	}
	var g goldenFile
	if err := json.NewDecoder(r).Decode(&g); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if g.Method != method {
		t.Fatalf("%s holds method %q, want %q", name, g.Method, method)
	}
	return g
}

// goldenLoad reads a case's data file, after checking it is the file the
// reference was computed from.
func goldenLoad(t *testing.T, c goldenCase) *dataset.Dataset {
	t.Helper()
	path := filepath.Join(goldenDatasetsDir, filepath.FromSlash(c.File))
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(raw)
	if got := hex.EncodeToString(sum[:]); got != c.SHA256 {
		t.Fatalf("%s has sha256 %s, but the reference was computed from %s: regenerate with golden.py", path, got, c.SHA256)
	}
	ds, err := dataset.Load(strings.NewReader(string(raw)), dataset.Options{})
	if err != nil {
		t.Fatalf("loading %s: %v", path, err)
	}
	n, d := ds.X.Dims()
	if _, q := ds.Y.Dims(); n != c.N || d != c.D || q != c.Q {
		t.Fatalf("%s: %d×%d features, %d labels; the reference had %d×%d, %d", path, n, d, q, c.N, c.D, c.Q)
	}
	return ds
}
