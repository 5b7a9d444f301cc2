package main

import (
	"io"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestSklearnMLkNNArgs(t *testing.T) {
	got := sklearnMLkNNArgs("s.py", task{Work: workMLkNN, X: "x.npy", Y: "y.npy", Reps: 3, WarmupUnder: 5, TrainRows: 8000})
	want := []string{"s.py", "mlknn", "--x", "x.npy", "--y", "y.npy", "--train-rows", "8000", "--k", "10", "--s", "1", "--reps", "3", "--warmup-under", "5"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := mlknnTrainRows(10_000); got != 8000 {
		t.Errorf("mlknnTrainRows(10 000): got %d, want 8000", got)
	}
}

// TestMLkNNReferenceAgrees runs the ML-kNN rows' work on small data in the
// Go child (in process: evaluate.MLkNN) and in the numpy + scikit-learn
// script: the generated data of the rows, and integer features of 3
// columns whose distances tie all the time (many duplicate rows). Every
// metric of the test rows agrees to 1e-12: the same neighbours, ties to the
// lower index, and the same counting.
func TestMLkNNReferenceAgrees(t *testing.T) {
	requireSklearn(t)
	dir := t.TempDir()
	c := benchCase{work: workMLkNN, size: dataSize{name: workMLkNN, n: 1500, d: mlknnFeatures, q: mlknnLabels}, kind: kindMLkNN}
	gen, err := ensureData(t.Context(), dir, c, 1, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 3))
	const n, q = 800, 8
	x, y := mat.NewDense(n, 3, nil), mat.NewDense(n, q, nil)
	for i := range n {
		s := 0.0
		for j := range 3 {
			v := float64(rng.IntN(4))
			x.Set(i, j, v)
			s += v
		}
		for l := range q {
			if s+rng.NormFloat64() > float64(l) {
				y.Set(i, l, 1)
			}
		}
	}
	ties := dataFiles{X: filepath.Join(dir, "ties-x.npy"), Y: filepath.Join(dir, "ties-y.npy")}
	for path, m := range map[string]*mat.Dense{ties.X: x, ties.Y: y} {
		if err := writeNPYFile(path, m); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name  string
		files dataFiles
		n     int
	}{{"generated", gen, c.size.n}, {"ties", ties, n}} {
		t.Run(tc.name, func(t *testing.T) {
			tk := task{Work: workMLkNN, X: tc.files.X, Y: tc.files.Y, Reps: 1, TrainRows: mlknnTrainRows(tc.n)}
			gores := goChildResult(t, tk)
			ref := runChild(t.Context(), debianPython, sklearnMLkNNArgs(sklearnRefScript, tk)...)
			if ref.err != nil {
				t.Fatal(ref.err)
			}
			if len(gores.Times) != 1 || len(ref.res.Times) != 1 || len(gores.Metrics) < 12 {
				t.Errorf("got %d and %d timed runs and %d metrics, want 1, 1 and every metric", len(gores.Times), len(ref.res.Times), len(gores.Metrics))
			}
			r := row{kind: kindMLkNN, goSide: outcome{res: gores}, np: ref}
			a := mlknnAgreement(r)
			if a == nil || a.missing != "" || a.worst > 1e-12 {
				t.Errorf("got agreement %+v, want every metric on both sides, equal to 1e-12", a)
			}
			if p := metricsProblems(row{kind: kindMLkNN, goSide: r.goSide, np: ref, agree: a}, header{metricsTol: 1e-9}); len(p) != 0 {
				t.Errorf("problems: got %q, want none", p)
			}
		})
	}
}
