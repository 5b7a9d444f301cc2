package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// debianPython is the interpreter with numpy (Debian's python3-numpy); the
// python3 on PATH may lack it.
const debianPython = "/usr/bin/python3"

// refScript is the numpy reference, from this package's directory.
const refScript = "../../scripts/bench/numpy_ref.py"

// requireNumPy skips the test when debianPython cannot import numpy.
func requireNumPy(t *testing.T) {
	t.Helper()
	requirePython(t, "numpy", "python3-numpy")
}

// requirePython skips the test when debianPython cannot import modules
// (comma-separated), saying which Debian package brings them.
func requirePython(t *testing.T, modules, pkg string) {
	t.Helper()
	if err := exec.CommandContext(t.Context(), debianPython, "-c", "import "+modules).Run(); err != nil {
		t.Skipf("%s cannot import %s (%v): apt-get install %s", debianPython, modules, err, pkg)
	}
}

// goChildResult runs the Go child for tk in process and returns what it
// printed.
func goChildResult(t *testing.T, tk task) childResult {
	t.Helper()
	raw, err := json.Marshal(tk)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := runGoChild(t.Context(), string(raw), &out); err != nil {
		t.Fatalf("Go child: %v", err)
	}
	var res childResult
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("Go child printed %q: %v", out.String(), err)
	}
	return res
}

// smallCases are tiny versions of the benchmark's data: labels, class
// variables and the eigen matrix.
func smallCases() []benchCase {
	s := dataSize{name: "small", n: 300, d: 30, q: 12}
	return []benchCase{
		{work: "mddmp", size: s},
		{work: "sdem", size: s, multiDim: true},
		{work: workEigen, size: dataSize{name: "eigen", d: 60}},
	}
}

// fingerprint is the shape and SHA-256 of the little-endian bytes of m.
func fingerprint(m *mat.Dense) string {
	r, c := m.Dims()
	h := sha256.New()
	var b [8]byte
	for i := range r {
		for j := range c {
			binary.LittleEndian.PutUint64(b[:], math.Float64bits(m.At(i, j)))
			h.Write(b[:])
		}
	}
	return fmt.Sprintf("(%d, %d) %x", r, c, h.Sum(nil))
}

// TestDataFilesRoundTrip writes the cache files of small cases, reads them
// back with loadNPY and with numpy's np.load (shape, dtype '<f8', C order,
// SHA-256 of the values), and checks that a second ensureData reuses them.
func TestDataFilesRoundTrip(t *testing.T) {
	requireNumPy(t)
	const script = `import sys, hashlib
import numpy as np
for path in sys.argv[1:]:
    a = np.load(path)
    print(a.dtype.str, a.flags.c_contiguous, a.shape, hashlib.sha256(a.tobytes()).hexdigest())
`
	dir := t.TempDir()
	for _, c := range smallCases() {
		t.Run(c.work, func(t *testing.T) {
			var log bytes.Buffer
			files, err := ensureData(t.Context(), dir, c, 7, &log)
			if err != nil {
				t.Fatal(err)
			}
			var paths []string
			for _, p := range []string{files.X, files.Y, files.A} {
				if p != "" && (c.work != "sdem" || p != files.X) { // sdem shares mddmp's features
					paths = append(paths, p)
				}
			}
			if got := strings.Count(log.String(), "generating"); got != len(paths) {
				t.Errorf("first ensureData: got %d files generated, want %d:\n%s", got, len(paths), log.String())
			}
			out, err := exec.CommandContext(t.Context(), debianPython, append([]string{"-c", script}, paths...)...).CombinedOutput()
			if err != nil {
				t.Fatalf("np.load: %v\n%s", err, out)
			}
			lines := strings.Split(strings.TrimSpace(string(out)), "\n")
			for i, p := range paths {
				m, err := loadNPY(p)
				if err != nil {
					t.Fatal(err)
				}
				want := "<f8 True " + fingerprint(m)
				if i >= len(lines) || lines[i] != want {
					t.Errorf("%s: numpy got %q, want %q (as loadNPY reads it)", filepath.Base(p), lines[min(i, len(lines)-1)], want)
				}
			}
			log.Reset()
			if _, err := ensureData(t.Context(), dir, c, 7, &log); err != nil {
				t.Fatal(err)
			}
			if log.Len() != 0 {
				t.Errorf("second ensureData: got %q, want the files reused", log.String())
			}
		})
	}
}

func TestCachedRefusesWrongSize(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.npy")
	if err := writeNPYFile(path, mat.NewDense(3, 2, []float64{1, 2, 3, 4, 5, 6})); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		path       string
		rows, cols int
		want       bool
	}{
		{"the shape written", path, 3, 2, true},
		{"another shape", path, 2, 2, false},
		{"missing", filepath.Join(dir, "none.npy"), 3, 2, false},
	} {
		got, err := cached(tc.path, tc.rows, tc.cols)
		if err != nil || got != tc.want {
			t.Errorf("%s: got %v, %v; want %v, nil", tc.name, got, err, tc.want)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".tmp-*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestGeneratedData checks the generated data have the shape the
// benchmark promises: about labelsPerRow ones per row, no constant label,
// every class of every variable present, and a symmetric positive
// semi-definite eigen matrix.
func TestGeneratedData(t *testing.T) {
	const n, d, q = 2000, 50, 100
	f := latent(1, n, d)
	y := multiLabels(1, n, d, q, f)
	ones := mat.Sum(y)
	if perRow := ones / n; perRow < 3.7 || perRow > 4.3 {
		t.Errorf("labels: got %.2f ones a row, want about %d", perRow, labelsPerRow)
	}
	for j := range q {
		if s := mat.Sum(y.ColView(j)); s == 0 || s == n {
			t.Errorf("label %d is constant (%v ones in %d rows)", j, s, n)
		}
	}
	cls := classLabels(1, n, d, f)
	for v := range classVars {
		var count [classCount]int
		for i := range n {
			count[int(cls.At(i, v))]++
		}
		for k, c := range count {
			if c < n/classCount/3 {
				t.Errorf("class variable %d: class %d has %d rows, want about %d", v, k, c, n/classCount)
			}
		}
	}
	a := psdMatrix(1, 80)
	var e mat.EigenSym
	if !e.Factorize(a, false) {
		t.Fatal("the eigen matrix does not decompose")
	}
	vals := e.Values(nil)
	if lo, hi := vals[0], vals[len(vals)-1]; lo < -1e-10*hi {
		t.Errorf("the eigen matrix has eigenvalue %g against a largest of %g, want it positive semi-definite", lo, hi)
	}
	if x1, x2 := features(1, 10, 5), features(1, 10, 5); !mat.Equal(x1, x2) {
		t.Error("features with the same seed differ")
	}
}

// TestNumPyReferenceAgrees runs every work on small data in the Go child
// (in process) and in the numpy reference script, and checks that their
// leading eigenvalues agree: the script's algebra is the Go methods'.
func TestNumPyReferenceAgrees(t *testing.T) {
	requireNumPy(t)
	dir := t.TempDir()
	size := dataSize{name: "small", n: 400, d: 30, q: 12}
	var cases []benchCase
	for _, c := range allCases(1) {
		if c.kind == kindEval || c.kind == kindMLkNN || c.kind == kindXC {
			continue // no eigenvalues: TestBenchEval, TestMLkNNReferenceAgrees; no numpy side: TestBenchXC
		}
		if c.work == workEigen {
			c.size = dataSize{name: "eigen", d: 60}
		} else {
			c.size = size
		}
		if !containsCase(cases, c) {
			cases = append(cases, c)
		}
	}
	for _, c := range cases {
		t.Run(c.work, func(t *testing.T) {
			files, err := ensureData(t.Context(), dir, c, 3, &bytes.Buffer{})
			if err != nil {
				t.Fatal(err)
			}
			tk := task{Work: c.work, X: files.X, Y: files.Y, A: files.A, Classes: files.Classes, D: benchD, Reps: 1, Top: agreeTop}
			if c.work == workEigen {
				tk.K, tk.Top = 10, 10
			}
			gores := goChildResult(t, tk)
			np := runChild(t.Context(), debianPython, pythonArgs(refScript, tk)...)
			if np.err != nil {
				t.Fatal(np.err)
			}
			if len(gores.Times) != 1 || len(np.res.Times) != 1 {
				t.Errorf("got %d and %d timed runs, want 1 each", len(gores.Times), len(np.res.Times))
			}
			if np.peakKiB <= 0 {
				t.Errorf("numpy's peak memory: got %d KiB, want it measured", np.peakKiB)
			}
			rel, err := agreement(gores.Eig, np.res.Eig)
			if err != nil || rel > 1e-9 || len(gores.Eig) != tk.Top {
				t.Errorf("got Go %v and numpy %v (relative difference %.2g, %v), want %d equal to 1e-9",
					gores.Eig, np.res.Eig, rel, err, tk.Top)
			}
		})
	}
}

// containsCase reports whether cs has a case of c's work.
func containsCase(cs []benchCase, c benchCase) bool {
	for _, o := range cs {
		if o.work == c.work {
			return true
		}
	}
	return false
}

func TestLoadNPYErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.npy")
	if err := os.WriteFile(bad, []byte("not npy"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{bad, filepath.Join(dir, "missing.npy")} {
		if _, err := loadNPY(p); err == nil {
			t.Errorf("loadNPY(%s): got nil, want an error", filepath.Base(p))
		}
	}
}
