package linsvm

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/sparse"
)

// TestRandIsGlibc: the numbers glibc 2.36's rand() gives a process that
// never calls srand (printed by a C program on this machine: the first five
// and the 100 001st).
func TestRandIsGlibc(t *testing.T) {
	g := NewRand()
	for i, want := range []uint32{1804289383, 846930886, 1681692777, 1714636915, 1957747793} {
		if got := g.Next(); got != want {
			t.Errorf("rand() number %d: got %d, want %d", i+1, got, want)
		}
	}
	for range 99995 {
		g.Next()
	}
	if got, want := g.Next(), uint32(1185112642); got != want {
		t.Errorf("rand() number 100001: got %d, want %d", got, want)
	}
}

// TestClassOrder: rows grouped by label in the order of the labels' first
// rows, ascending within a group; of −1 and +1, +1 first.
func TestClassOrder(t *testing.T) {
	for _, c := range []struct {
		labels  []int
		order   []int32
		classes []int
	}{
		{[]int{2, 0, 2, 1, 0}, []int32{0, 2, 1, 4, 3}, []int{2, 0, 1}},
		{[]int{-1, 1, -1, 1}, []int32{1, 3, 0, 2}, []int{1, -1}},
		{[]int{1, -1, -1}, []int32{0, 1, 2}, []int{1, -1}},
		{[]int{0, 1, 1}, []int32{0, 1, 2}, []int{0, 1}}, // only ±1 are swapped
		{[]int{-1, -1}, []int32{0, 1}, []int{-1}},
	} {
		order, classes := ClassOrder(c.labels)
		if !slices.Equal(order, c.order) || !slices.Equal(classes, c.classes) {
			t.Errorf("ClassOrder(%v): got %v, %v; want %v, %v", c.labels, order, classes, c.order, c.classes)
		}
	}
}

// TestTrainHandSolved: two rows x = −1 (label −1) and x = 1 (+1) with a
// large C: the hard-margin SVM with the bias regularised minimises
// ½(w² + b²) subject to y(wx + b) ≥ 1, so w = 1, b = 0 (both constraints
// tight, α = ½ each: w = Σαyx = ½ + ½, b = Σαy = 0).
func TestTrainHandSolved(t *testing.T) {
	x := NewRows(mat.NewDense(2, 1, []float64{-1, 1}))
	m, err := Train(context.Background(), x, Problem{Y: []float64{-1, 1}}, Params{C: 100, Eps: 1e-12, MaxIter: 100000}, NewRand())
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(m.W[0]-1) > 1e-9 || math.Abs(m.B) > 1e-9 || !m.Converged {
		t.Errorf("got w = %v, b = %v, converged %v; want w = 1, b = 0, converged", m.W[0], m.B, m.Converged)
	}
	// A cost below ½ bounds the dual: α = C for both, so w = 2C, b = 0.
	m, err = Train(context.Background(), x, Problem{Y: []float64{-1, 1}}, Params{C: 0.2, Eps: 1e-12, MaxIter: 100000}, NewRand())
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(m.W[0]-0.4) > 1e-12 || math.Abs(m.B) > 1e-12 {
		t.Errorf("C = 0.2: got w = %v, b = %v; want w = 0.4, b = 0", m.W[0], m.B)
	}
}

// randomProblem is a seeded problem of n rows and d features, about a
// third of the cells zero, labels from a noisy linear rule.
func randomProblem(n, d int, seed uint64) (*mat.Dense, []float64) {
	rng := rand.New(rand.NewPCG(seed, seed))
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := range n {
		s := rng.NormFloat64()
		for j := range d {
			if rng.IntN(3) > 0 {
				v := rng.NormFloat64()
				x.Set(i, j, v)
				s += v * float64(j%3-1)
			}
		}
		y[i] = 1
		if s < 0 {
			y[i] = -1
		}
	}
	return x, y
}

// TestTrainOptimal: on a random problem solved tightly, the weights meet
// the optimality conditions of the primal: w̃ = Σ α_i y_i x̃_i with α_i = C
// for the rows inside the margin (y f < 1), 0 for those outside (y f > 1)
// and in [0, C] for those on it. So w̃ − C Σ_{y f < 1} y_i x̃_i must be a
// combination of the rows on the margin, with coefficients in [0, C].
func TestTrainOptimal(t *testing.T) {
	xd, y := randomProblem(80, 5, 3)
	x := NewRows(xd)
	m, err := Train(context.Background(), x, Problem{Y: y}, Params{C: 0.5, Eps: 1e-10, MaxIter: 200000}, NewRand())
	if err != nil {
		t.Fatal(err)
	}
	if !m.Converged {
		t.Fatalf("no convergence in %d sweeps", m.Sweeps)
	}
	n, d := xd.Dims()
	r := make([]float64, d+1) // w̃ − C Σ_{y f < 1} y x̃
	copy(r, m.W)
	r[d] = m.B
	var margin []int
	for i := range n {
		f := y[i] * m.Decision(x, i)
		switch {
		case f < 1-1e-6:
			for j := range d {
				r[j] -= 0.5 * y[i] * xd.At(i, j)
			}
			r[d] -= 0.5 * y[i]
		case f <= 1+1e-6:
			margin = append(margin, i)
		}
	}
	if len(margin) == 0 || len(margin) > d+1 {
		t.Fatalf("%d rows on the margin; the check needs 1 to %d", len(margin), d+1)
	}
	a := mat.NewDense(d+1, len(margin), nil)
	for k, i := range margin {
		for j := range d {
			a.Set(j, k, y[i]*xd.At(i, j))
		}
		a.Set(d, k, y[i])
	}
	var coef, fit mat.VecDense
	if err := coef.SolveVec(a, mat.NewVecDense(d+1, r)); err != nil {
		t.Fatal(err)
	}
	fit.MulVec(a, &coef)
	for j := range d + 1 {
		if math.Abs(fit.AtVec(j)-r[j]) > 1e-6 {
			t.Errorf("component %d of w̃ − CΣy x̃ is not in the span of the margin rows: %v against %v", j, r[j], fit.AtVec(j))
		}
	}
	for k := range len(margin) {
		if c := coef.AtVec(k); c < -1e-6 || c > 0.5+1e-6 {
			t.Errorf("margin row %d: α = %v, outside [0, C]", margin[k], c)
		}
	}
}

// TestSparseRowsEqualDense: the same problem as CSR rows gives the same
// weights, to the last bit (the same sums in the same order: the zeros a
// dense row adds are exact).
func TestSparseRowsEqualDense(t *testing.T) {
	xd, y := randomProblem(120, 7, 5)
	dense, err := Train(context.Background(), NewRows(xd), Problem{Y: y}, Params{}, NewRand())
	if err != nil {
		t.Fatal(err)
	}
	sp, err := Train(context.Background(), NewRows(sparse.FromDense(xd)), Problem{Y: y}, Params{}, NewRand())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(dense.W, sp.W) || dense.B != sp.B || dense.Sweeps != sp.Sweeps {
		t.Errorf("sparse rows: w %v b %v (%d sweeps); dense rows: w %v b %v (%d sweeps)", sp.W, sp.B, sp.Sweeps, dense.W, dense.B, dense.Sweeps)
	}
}

// TestTrainRefuses: labels other than ±1, a wrong count, bad parameters.
func TestTrainRefuses(t *testing.T) {
	x := NewRows(mat.NewDense(2, 1, []float64{0, 1}))
	for _, c := range []struct {
		name string
		prob Problem
		p    Params
	}{
		{"label 0", Problem{Y: []float64{0, 1}}, Params{}},
		{"one label for two rows", Problem{Y: []float64{1}}, Params{}},
		{"an order of one row", Problem{Y: []float64{1, -1}, Order: []int32{0}}, Params{}},
		{"negative C", Problem{Y: []float64{1, -1}}, Params{C: -1}},
		{"NaN eps", Problem{Y: []float64{1, -1}}, Params{Eps: math.NaN()}},
	} {
		if _, err := Train(context.Background(), x, c.prob, c.p, NewRand()); err == nil {
			t.Errorf("%s: got no error", c.name)
		}
	}
}

// TestTrainCancel: a cancelled context stops a fit between sweeps, and
// TrainAll with it.
func TestTrainCancel(t *testing.T) {
	xd, y := randomProblem(200, 5, 9)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Train(ctx, NewRows(xd), Problem{Y: y}, Params{}, NewRand()); !errors.Is(err, context.Canceled) {
		t.Errorf("Train: got %v, want context.Canceled", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := TrainAll(ctx, NewRows(xd), [][]Problem{{{Y: y}}, {{Y: y}}}, Params{}, nil)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("TrainAll: got %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("TrainAll did not stop within 10 s of a cancelled context")
	}
}

// TestTrainAll: the groups fitted in parallel give what fitting them one by
// one gives (each group on a fresh generator, its problems in turn), and
// progress counts every problem once.
func TestTrainAll(t *testing.T) {
	xd, y1 := randomProblem(150, 6, 11)
	_, y2 := randomProblem(150, 6, 12)
	neg := make([]float64, len(y1))
	for i, v := range y1 {
		neg[i] = -v
	}
	x := NewRows(xd)
	groups := [][]Problem{{{Y: y1}}, {{Y: y2}, {Y: neg}}, {{Y: neg}}}
	var mu sync.Mutex
	var seen []int
	got, err := TrainAll(context.Background(), x, groups, Params{}, func(done, total int) {
		mu.Lock()
		defer mu.Unlock()
		if total != 4 {
			t.Errorf("progress total %d, want 4", total)
		}
		seen = append(seen, done)
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(seen, []int{1, 2, 3, 4}) {
		t.Errorf("progress reported %v, want 1, 2, 3, 4", seen)
	}
	for g, group := range groups {
		rng := NewRand()
		for k, prob := range group {
			want, err := Train(context.Background(), x, prob, Params{}, rng)
			if err != nil {
				t.Fatal(err)
			}
			if m := got[g][k]; !slices.Equal(m.W, want.W) || m.B != want.B {
				t.Errorf("group %d, problem %d: TrainAll's weights differ from one fit's", g, k)
			}
		}
	}
	// The second problem of group 1 continued group 1's generator: it is
	// not the fit of the same labels on a fresh one (group 2's).
	if slices.Equal(got[1][1].W, got[2][0].W) {
		t.Errorf("a group's second problem did not continue its generator")
	}
}

// TestLIBLINEARLive cross-checks the weights with liblinear-train itself
// when it is installed (Debian's liblinear-tools), on seeded problems,
// dense and sparse, one process per problem; skipped otherwise (the
// committed goldens of package evaluate hold LIBLINEAR's answers on real
// data).
func TestLIBLINEARLive(t *testing.T) {
	bin, err := exec.LookPath("liblinear-train")
	if err != nil {
		t.Skip("liblinear-train is not installed (apt-get install liblinear-tools)")
	}
	dir := t.TempDir()
	for seed := range uint64(3) {
		xd, y := randomProblem(100+50*int(seed), 4+int(seed), 20+seed)
		n, d := xd.Dims()
		xd.Set(0, d-1, 1) // LIBLINEAR counts the features up to the last it sees
		data, model := filepath.Join(dir, "train.txt"), filepath.Join(dir, "model.txt")
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "%+d", int(y[i]))
			for j := range d {
				if v := xd.At(i, j); v != 0 {
					fmt.Fprintf(&b, " %d:%s", j+1, strconv.FormatFloat(v, 'g', -1, 64))
				}
			}
			b.WriteString("\n")
		}
		if err := os.WriteFile(data, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(bin, "-s", "3", "-c", "1", "-B", "1", "-e", "0.0001", "-q", data, model).CombinedOutput(); err != nil {
			t.Fatalf("liblinear-train: %v: %s", err, out)
		}
		labels, want := readModel(t, model)
		yi := make([]int, n)
		for i, v := range y {
			yi[i] = int(v)
		}
		order, classes := ClassOrder(yi)
		if !slices.Equal(classes, labels) {
			t.Fatalf("seed %d: classes %v, LIBLINEAR's %v", seed, classes, labels)
		}
		m, err := Train(context.Background(), NewRows(sparse.FromDense(xd)), Problem{Y: y, Order: order}, Params{}, NewRand())
		if err != nil {
			t.Fatal(err)
		}
		got := append(slices.Clone(m.W), m.B)
		for j, v := range want {
			if math.Abs(got[j]-v) > 1e-12*max(1, math.Abs(v)) {
				t.Errorf("seed %d: weight %d is %v, LIBLINEAR's %v", seed, j, got[j], v)
			}
		}
	}
}

// readModel reads a binary LIBLINEAR model file: its labels and weights
// (the bias weight last).
func readModel(t *testing.T, path string) (labels []int, w []float64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	inW := false
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case inW:
			v, err := strconv.ParseFloat(line, 64)
			if err != nil {
				t.Fatalf("%s: weight %q: %v", path, line, err)
			}
			w = append(w, v)
		case line == "w":
			inW = true
		case strings.HasPrefix(line, "label "):
			for _, s := range strings.Fields(line)[1:] {
				l, _ := strconv.Atoi(s)
				labels = append(labels, l)
			}
		}
	}
	return labels, w
}
