package linalg

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// The reference decompositions in testdata/eig/golden.json were computed by
// testdata/eig/gen.py with numpy's eigh, independently of this package;
// testdata/eig/README.md says how to regenerate them and what they hold.

// goldenEig is the reference file.
type goldenEig struct {
	Generator string            `json:"generator"`
	Software  map[string]string `json:"software"`
	Cases     []goldenEigCase   `json:"cases"`
}

// goldenEigCase is one matrix's reference.
type goldenEigCase struct {
	Name        string      `json:"name"`
	N           int         `json:"n"`
	Eigenvalues []float64   `json:"eigenvalues"` // descending
	VectorIndex []int       `json:"vector_index"`
	Vectors     [][]float64 `json:"vectors"` // one per index, length n
}

const goldenP = 10007

// goldenH is the symmetric integer hash of gen.py.
func goldenH(i, j, s int) int {
	return ((i+1)*(j+1)*7919 + (i+j+2)*104729 + s*15485863) % goldenP
}

// goldenG is the non-symmetric integer hash of gen.py.
func goldenG(r, c int) int {
	return ((r+1)*7919 + (c+1)*104729 + (r+1)*(c+1)*31) % goldenP
}

// goldenMatrix rebuilds the case's matrix as gen.py does.
func goldenMatrix(t *testing.T, name string) *mat.SymDense {
	t.Helper()
	hashed := func(n, s int) *mat.SymDense {
		a := mat.NewSymDense(n, nil)
		for i := range n {
			for j := i; j < n; j++ {
				a.SetSym(i, j, float64(goldenH(i, j, s))/goldenP-0.5)
			}
		}
		return a
	}
	unit := func(r, c int) *mat.Dense {
		x := mat.NewDense(r, c, nil)
		for i := range r {
			for j := range c {
				x.Set(i, j, float64(goldenG(i, j))/goldenP-0.5)
			}
		}
		return x
	}
	switch name {
	case "hash-150":
		return hashed(150, 1)
	case "hash-240":
		return hashed(240, 2)
	case "gram-120":
		a := mat.NewSymDense(120, nil)
		a.SymOuterK(1, unit(40, 120).T())
		return a
	case "identity-rank3-100":
		a := mat.NewSymDense(100, nil)
		a.SymOuterK(1, unit(3, 100).T())
		for i := range 100 {
			a.SetSym(i, i, a.At(i, i)+1)
		}
		return a
	case "graded-80":
		a := mat.NewSymDense(80, nil)
		for i := range 80 {
			for j := i; j < 80; j++ {
				a.SetSym(i, j, (float64(goldenH(i, j, 5))/goldenP-0.5)*math.Ldexp(1, -((i+j)/4)))
			}
		}
		return a
	case "wilkinson-21":
		a := mat.NewSymDense(21, nil)
		for i := range 21 {
			a.SetSym(i, i, math.Abs(10-float64(i)))
			if i < 20 {
				a.SetSym(i, i+1, 1)
			}
		}
		return a
	case "clustered-60":
		n := 60
		v := make([]float64, n)
		vv := 0.0
		for i := range v {
			v[i] = float64(goldenG(0, i))/goldenP - 0.5
			vv += v[i] * v[i]
		}
		q := mat.NewDense(n, n, nil)
		for i := range n {
			for j := range n {
				x := -2 * v[i] * v[j] / vv
				if i == j {
					x++
				}
				q.Set(i, j, x)
			}
		}
		var qd, a mat.Dense
		qd.Scale(1, q)
		for j := range n {
			lam := float64(1+j%3) + 1e-12*float64(j/3)
			for i := range n {
				qd.Set(i, j, qd.At(i, j)*lam)
			}
		}
		a.Mul(&qd, q.T())
		s := mat.NewSymDense(n, nil)
		for i := range n {
			for j := i; j < n; j++ {
				s.SetSym(i, j, (a.At(i, j)+a.At(j, i))/2)
			}
		}
		return s
	}
	t.Fatalf("no generator for golden case %q", name)
	return nil
}

func readGoldenEig(t *testing.T) goldenEig {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "eig", "golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var g goldenEig
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatalf("golden.json: %v", err)
	}
	if len(g.Cases) == 0 {
		t.Fatal("golden.json holds no cases")
	}
	return g
}

// goldenGap is the distance from want[j] to the nearest other eigenvalue.
func goldenGap(want []float64, j int) float64 {
	gap := math.Inf(1)
	for i, w := range want {
		if i != j {
			gap = math.Min(gap, math.Abs(w-want[j]))
		}
	}
	return gap
}

// goldenVectorError is max_i |got_i − s·want_i| with the sign s that aligns
// the two.
func goldenVectorError(got mat.Vector, want []float64) float64 {
	dot := 0.0
	for i, w := range want {
		dot += got.AtVec(i) * w
	}
	s := math.Copysign(1, dot)
	e := 0.0
	for i, w := range want {
		e = math.Max(e, math.Abs(got.AtVec(i)-s*w))
	}
	return e
}

func TestGoldenEig(t *testing.T) {
	g := readGoldenEig(t)
	for _, c := range g.Cases {
		t.Run(c.Name, func(t *testing.T) {
			a := goldenMatrix(t, c.Name)
			n := c.N
			if a.SymmetricDim() != n || len(c.Eigenvalues) != n {
				t.Fatalf("case holds n = %d and %d values, the generator gives %d", n, len(c.Eigenvalues), a.SymmetricDim())
			}
			norm := spectralNorm(c.Eigenvalues)
			// Both solvers are backward stable: values agree to O(nε‖A‖),
			// vectors to O(nε‖A‖/gap).
			valTol := 4 * float64(n) * eps * norm
			values, vectors, err := SymEig(context.Background(), a)
			if err != nil {
				t.Fatal(err)
			}
			if d := maxDiff(values, c.Eigenvalues); d > valTol {
				t.Errorf("SymEig values differ from numpy's by %.3g, want ≤ %.3g", d, valTol)
			} else {
				t.Logf("SymEig values: largest difference %.2g (tolerance %.2g)", d, valTol)
			}
			only, err := SymEigValues(context.Background(), a)
			if err != nil {
				t.Fatal(err)
			}
			if d := maxDiff(only, c.Eigenvalues); d > valTol {
				t.Errorf("SymEigValues differ from numpy's by %.3g, want ≤ %.3g", d, valTol)
			}
			for i, j := range c.VectorIndex {
				tol := 16 * float64(n) * eps * norm / goldenGap(c.Eigenvalues, j)
				if e := goldenVectorError(vectors.ColView(j), c.Vectors[i]); e > tol {
					t.Errorf("SymEig vector %d differs from numpy's by %.3g, want ≤ %.3g", j, e, tol)
				} else {
					t.Logf("SymEig vector %d: largest entry difference %.2g (tolerance %.2g)", j, e, tol)
				}
			}
			if c.Name == "identity-rank3-100" {
				// The other 97 vectors span the eigenspace of 1: orthogonal
				// to numpy's three leading vectors.
				worst := 0.0
				for j := 3; j < n; j++ {
					for _, w := range c.Vectors {
						worst = math.Max(worst, math.Abs(mat.Dot(vectors.ColView(j), mat.NewVecDense(n, w))))
					}
				}
				if tol := 16 * float64(n) * eps; worst > tol {
					t.Errorf("vectors of the multiple eigenvalue have components %.3g along numpy's leading ones, want ≤ %.3g", worst, tol)
				}
			}

			// SymEigTop: the direct method below n = 200, the iteration at
			// hash-240.
			// k covers the stored leading vectors (0, 1, …), at least 3.
			k := 0
			for k < len(c.VectorIndex) && c.VectorIndex[k] == k {
				k++
			}
			k = max(k, 3)
			top, topV, err := SymEigTop(context.Background(), a, k)
			if err != nil {
				t.Fatal(err)
			}
			if d, tol := maxDiff(top, c.Eigenvalues[:k]), valTol+TopTol*norm; d > tol {
				t.Errorf("SymEigTop values differ from numpy's by %.3g, want ≤ %.3g", d, tol)
			}
			for i, j := range c.VectorIndex {
				if j >= k {
					continue
				}
				tol := 16 * (float64(n)*eps + TopTol) * norm / goldenGap(c.Eigenvalues, j)
				if e := goldenVectorError(topV.ColView(j), c.Vectors[i]); e > tol {
					t.Errorf("SymEigTop vector %d differs from numpy's by %.3g, want ≤ %.3g", j, e, tol)
				}
			}
		})
	}
}
