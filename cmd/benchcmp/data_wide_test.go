package main

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/sparse"
)

// requireSciPy skips the test when debianPython cannot import scipy.
func requireSciPy(t *testing.T) {
	t.Helper()
	requirePython(t, "scipy.sparse.linalg", "python3-scipy")
}

// scipyRefScript is the scipy reference, from this package's directory.
var scipyRefScript = scipyScript(refScript)

// smallWide is a tiny version of the wide rows' data: d = wideD still
// fits under q and D.
var smallWide = dataSize{name: "wide", n: 400, d: 300, q: 30, density: 0.05}

func TestWideFeatures(t *testing.T) {
	const n, d, density = 2000, 500, 0.02
	m := wideFeatures(1, n, d, density, latent(1, n, d))
	if err := m.Check(); err != nil {
		t.Fatalf("Check: got %v, want nil", err)
	}
	if r, c := m.Dims(); r != n || c != d {
		t.Errorf("got %d×%d, want %d×%d", r, c, n, d)
	}
	if got := m.Density(); math.Abs(got-density) > 0.05*density {
		t.Errorf("density: got %.4f, want %.4f within 5%%", got, density)
	}
	for i := range n {
		ind, val := m.Row(i)
		if len(ind) == 0 {
			t.Fatalf("row %d is empty, want about %g entries", i+1, density*d)
		}
		for k := range val {
			if val[k] < 1 {
				t.Fatalf("row %d, column %d: got %v, want at least 1", i+1, ind[k]+1, val[k])
			}
		}
	}
	used := make([]bool, d)
	for _, j := range m.Ind {
		used[j] = true
	}
	if empty := d - countTrue(used); empty > d/10 {
		t.Errorf("%d of %d columns are never used, want at most a tenth", empty, d)
	}
	again := wideFeatures(1, n, d, density, latent(1, n, d))
	if !slices.Equal(m.Ptr, again.Ptr) || !slices.Equal(m.Ind, again.Ind) || !slices.Equal(m.Val, again.Val) {
		t.Error("two generations with the same seed differ")
	}
	other := wideFeatures(2, n, d, density, latent(2, n, d))
	if slices.Equal(m.Ind, other.Ind) {
		t.Error("seeds 1 and 2 give the same columns")
	}
}

// countTrue counts the true values of b.
func countTrue(b []bool) int {
	n := 0
	for _, v := range b {
		if v {
			n++
		}
	}
	return n
}

// TestWideFeaturesFollowLabels checks that the sparse features carry the
// latent structure the labels follow: ‖XcᵀY‖ with the labels of each row
// is well above ‖XcᵀY‖ with the label rows shuffled (1.8 times: the
// labels are noisy, and the features follow the factors through a
// softmax of topics).
func TestWideFeaturesFollowLabels(t *testing.T) {
	const n, d, q = 2000, 400, 20
	f := latent(1, n, d)
	x := wideFeatures(1, n, d, 0.05, f).Dense()
	y := multiLabels(1, n, d, q, f)
	shuffled := mat.NewDense(n, q, nil)
	for i, k := range rand.New(rand.NewPCG(1, 1)).Perm(n) {
		shuffled.SetRow(i, y.RawRowView(k))
	}
	norm := func(y *mat.Dense) float64 {
		var b mat.Dense
		b.Mul(x.T(), y)
		// Xc = X − 1μᵀ, so XcᵀY = XᵀY − μ·(1ᵀY).
		for j := range d {
			mu := mat.Sum(x.ColView(j)) / n
			for k := range q {
				b.Set(j, k, b.At(j, k)-mu*mat.Sum(y.ColView(k)))
			}
		}
		return mat.Norm(&b, 2)
	}
	if got, base := norm(y), norm(shuffled); got < 1.5*base {
		t.Errorf("‖XcᵀY‖₂: got %.4g with the labels, %.4g with them shuffled; want at least 1.5 times", got, base)
	}
}

// TestCSRFilesRoundTrip writes the wide rows' files, reads them back with
// loadCSR and with scipy (csr_matrix of the three arrays, made dense: the
// SHA-256 of its values), and checks that a second ensureData reuses them.
func TestCSRFilesRoundTrip(t *testing.T) {
	requireSciPy(t)
	const script = `import sys, hashlib
import numpy as np, scipy.sparse
p, i, d = (np.load(f) for f in sys.argv[1:4])
print(p.dtype.str, i.dtype.str, d.dtype.str)
m = scipy.sparse.csr_matrix((d, i, p), shape=(len(p) - 1, int(sys.argv[4])))
a = np.ascontiguousarray(m.toarray())
print(a.dtype.str, a.flags.c_contiguous, a.shape, hashlib.sha256(a.tobytes()).hexdigest())
`
	dir := t.TempDir()
	c := benchCase{work: "pca", size: smallWide, kind: kindWide}
	var log bytes.Buffer
	files, err := ensureData(t.Context(), dir, c, 7, &log)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(log.String(), "generating"); got != 3 {
		t.Errorf("first ensureData: got %d items generated, want 3 (the CSR arrays, the labels, the CSV):\n%s", got, log.String())
	}
	m, err := loadCSR(*files.CSR)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.CommandContext(t.Context(), debianPython, "-c", script,
		files.CSR.Indptr, files.CSR.Indices, files.CSR.Data, "300").CombinedOutput()
	if err != nil {
		t.Fatalf("scipy: %v\n%s", err, out)
	}
	want := "<i8 <i4 <f8\n<f8 True " + fingerprint(m.Dense()) + "\n"
	if string(out) != want {
		t.Errorf("scipy got %q, want %q (as loadCSR reads it)", out, want)
	}
	// numpy reads the CSV to the same values.
	y, err := loadNPY(files.Y)
	if err != nil {
		t.Fatal(err)
	}
	var xy mat.Dense
	xy.Augment(m.Dense(), y)
	const csvScript = `import sys, hashlib
import numpy as np
a = np.ascontiguousarray(np.loadtxt(sys.argv[1], delimiter=",", skiprows=1))
print(a.dtype.str, a.flags.c_contiguous, a.shape, hashlib.sha256(a.tobytes()).hexdigest())
`
	out, err = exec.CommandContext(t.Context(), debianPython, "-c", csvScript, files.CSV).CombinedOutput()
	if want := "<f8 True " + fingerprint(&xy) + "\n"; err != nil || string(out) != want {
		t.Errorf("np.loadtxt of the CSV: got %q, %v; want %q", out, err, want)
	}
	log.Reset()
	if _, err := ensureData(t.Context(), dir, c, 7, &log); err != nil {
		t.Fatal(err)
	}
	if log.Len() != 0 {
		t.Errorf("second ensureData: got %q, want the files reused", log.String())
	}
	// A truncated data file is not reused.
	if err := os.Truncate(files.CSR.Data, 100); err != nil {
		t.Fatal(err)
	}
	if ok, err := csrCached(*files.CSR, smallWide.n); ok || err != nil {
		t.Errorf("csrCached with a truncated data file: got %v, %v; want false, nil", ok, err)
	}
}

func TestVectorNPYErrors(t *testing.T) {
	dir := t.TempDir()
	ints := filepath.Join(dir, "ints.npy")
	if err := writeVectorNPY(ints, []int32{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	if got, err := readVectorNPY[int32](ints); err != nil || !slices.Equal(got, []int32{1, 2, 3}) {
		t.Errorf("int32 round trip: got %v, %v; want [1 2 3], nil", got, err)
	}
	matrix := filepath.Join(dir, "matrix.npy")
	if err := writeNPYFile(matrix, mat.NewDense(2, 2, []float64{1, 2, 3, 4})); err != nil {
		t.Fatal(err)
	}
	short := filepath.Join(dir, "short.npy")
	b, err := os.ReadFile(ints)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(short, b[:len(b)-2], 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		read func() error
		want string
	}{
		{"another dtype", func() error { _, err := readVectorNPY[int64](ints); return err }, "want a one-dimensional array of <i8"},
		{"two dimensions", func() error { _, err := readVectorNPY[float64](matrix); return err }, "want a one-dimensional array of <f8"},
		{"truncated", func() error { _, err := readVectorNPY[int32](short); return err }, "want 140 for 3 values"},
		{"missing", func() error { _, err := readVectorNPY[int32](filepath.Join(dir, "none.npy")); return err }, "no such file"},
	} {
		if err := tc.read(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
}

func TestLoadCSRRefusesMalformed(t *testing.T) {
	dir := t.TempDir()
	f := csrFiles{Indptr: filepath.Join(dir, "p.npy"), Indices: filepath.Join(dir, "i.npy"), Data: filepath.Join(dir, "d.npy"), Cols: 3}
	// Row 2 lists column 3 before column 2.
	good := &sparse.CSR{R: 2, C: 3, Ptr: []int64{0, 1, 3}, Ind: []int32{0, 2, 1}, Val: []float64{1, 2, 3}}
	if err := writeCSR(f, good); err != nil {
		t.Fatal(err)
	}
	if _, err := loadCSR(f); !errors.Is(err, sparse.ErrMalformed) || !strings.Contains(err.Error(), "row 2") {
		t.Errorf("got %v, want sparse.ErrMalformed naming row 2", err)
	}
}

// TestWideReferencesAgree runs every wide work on small sparse data in the
// Go child (in process), in the numpy reference (made dense) and in the
// scipy reference (sparse, eigsh and svds), and checks that their leading
// wideD eigenvalues agree: the three do the same algebra.
func TestWideReferencesAgree(t *testing.T) {
	requireSciPy(t)
	dir := t.TempDir()
	for _, c := range allCases(1) {
		if c.kind != kindWide {
			continue
		}
		c.size = smallWide
		t.Run(c.work, func(t *testing.T) {
			files, err := ensureData(t.Context(), dir, c, 3, &bytes.Buffer{})
			if err != nil {
				t.Fatal(err)
			}
			tk := task{Work: c.work, Y: files.Y, CSR: files.CSR, D: c.targetD(), Reps: 1, Top: c.top()}
			gores := goChildResult(t, tk)
			if len(gores.Eig) != wideD {
				t.Fatalf("Go: got %d eigenvalues, want %d", len(gores.Eig), wideD)
			}
			for _, ref := range []struct{ name, script string }{{"numpy", refScript}, {"scipy", scipyRefScript}} {
				o := runChild(t.Context(), debianPython, pythonArgs(ref.script, tk)...)
				if o.err != nil {
					t.Fatalf("%s: %v", ref.name, o.err)
				}
				if len(o.res.Times) != 1 {
					t.Errorf("%s: got %d timed runs, want 1", ref.name, len(o.res.Times))
				}
				rel, err := agreement(gores.Eig, o.res.Eig)
				if err != nil || rel > 1e-9 {
					t.Errorf("got Go %v and %s %v (relative difference %.2g, %v), want %d equal to 1e-9",
						gores.Eig, ref.name, o.res.Eig, rel, err, wideD)
				}
			}
		})
	}
}
