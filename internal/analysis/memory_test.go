package analysis

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"mldr/internal/memtest"
)

// The estimate must be at least the measured peak (memtest.Peak; else it
// is not an upper bound), and at most estimateSlack times it plus
// estimateFloor, 2 MiB (else it is too pessimistic to admit jobs by).
const (
	estimateSlack = 8
	estimateFloor = memoryOverhead + 1<<20
)

// measurePeakFor measures f against the estimate est (memtest.PeakWithin
// with this package's band).
func measurePeakFor(est int64, f func()) (peak, total int64) {
	return memtest.PeakWithin(est, estimateSlack, estimateFloor, f)
}

// memCase is one fit of the estimate test.
type memCase struct {
	id      string
	p       Params
	n, d, q int
}

// memInput makes data of the case's shape that the method accepts, and
// its Shape with the label counts filled in.
func memInput(m Method, c memCase, seed uint64) (Input, Shape) {
	var in Input
	if m.MultiLabel && c.id != "lda" {
		in = tuMultiLabel(seed, c.n, c.d, c.q)
	} else {
		classes := make([]int, c.q)
		for j := range classes {
			classes[j] = 2 + j%3
		}
		in = tuMultiDim(seed, c.n, c.d, classes)
	}
	s := Shape{N: c.n, D: c.d, Q: c.q, Classes: in.Classes}
	if !in.MultiDim() {
		y := in.ones()
		s.LabelOnes = len(y.idx)
		sets := map[string]bool{}
		for i := range y.rows {
			idx, _ := y.row(i)
			sets[fmt.Sprint(idx)] = true
		}
		s.LabelSets = len(sets)
	}
	return in, s
}

// checkEstimate fits c and compares the estimate with the measured peak.
func checkEstimate(t *testing.T, c memCase, seed uint64) (est, peak, total int64, ok bool) {
	t.Helper()
	m, _ := Lookup(c.id)
	in, s := memInput(m, c, seed)
	est, err := EstimateMemory(c.id, c.p, s)
	if err != nil {
		t.Fatalf("EstimateMemory(%s, %+v): %v", c.id, s, err)
	}
	var fitErr error
	peak, total = measurePeakFor(est, func() { _, fitErr = Fit(context.Background(), c.id, in, c.p, nil) })
	if fitErr != nil {
		return est, peak, total, false
	}
	if peak > est {
		t.Errorf("%s %+v N=%d D=%d q=%d: measured peak %d bytes, above the estimate %d (total allocated %d)",
			c.id, c.p, c.n, c.d, c.q, peak, est, total)
	}
	if est > estimateSlack*peak+estimateFloor {
		t.Errorf("%s %+v N=%d D=%d q=%d: estimate %d bytes, more than %d × the measured peak %d + %d",
			c.id, c.p, c.n, c.d, c.q, est, estimateSlack, peak, estimateFloor)
	}
	return est, peak, total, true
}

// memCases is every method (and label kernel, and the β that change the
// path) on shapes with N > D (the D×D path) and N < D (the N×N path), some
// large enough that the matrices dominate the constant.
func memCases() []memCase {
	shapes := []struct{ n, d, q int }{{60, 20, 5}, {400, 160, 8}, {40, 400, 6}, {150, 600, 12}, {700, 90, 20}, {900, 450, 10}, {200, 3000, 8}}
	if RaceEnabled {
		// The estimates are of memory, not of concurrency: the race
		// detector's run keeps one shape of each path (D×D, N×N, N ≫ D),
		// the pass without it every shape.
		shapes = []struct{ n, d, q int }{{60, 20, 5}, {40, 400, 6}, {700, 90, 20}}
	}
	var cs []memCase
	for _, m := range Methods() {
		ps := []Params{{}}
		switch m.ID {
		case "mddmp":
			ps = append(ps, Params{LabelKernel: KernelQuadratic}, Params{LabelKernel: KernelRBF})
		case "mvmd":
			ps = append(ps, Params{Beta: Float(1)})
		case "mddmf":
			ps = append(ps, Params{Beta: Float(0)})
		case "lpp":
			ps = []Params{{K: 5}}
		case "kpca", "kmddm": // Nyström too, and a kernel without the scale rule's copy
			ps = append(ps, Params{Landmarks: 30}, Params{Kernel: KernelPoly, Landmarks: 40, LandmarkSampling: SamplingUniform})
		case "rembrandt", "leml", "mlcssp": // a sketch, a rank, a sample below q
			ps = append(ps, Params{D: 2})
		}
		for _, p := range ps {
			for _, sh := range shapes {
				cs = append(cs, memCase{id: m.ID, p: p, n: sh.n, d: sh.d, q: sh.q})
			}
		}
	}
	return cs
}

// TestEstimateMemory fits every method on a grid of shapes and checks
// measured peak ≤ estimate ≤ 8 × measured peak + 2 MiB (the estimate's own
// constant, 1 MiB, and 1 MiB); -v prints the
// table of ratios.
func TestEstimateMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("measures real fits")
	}
	for _, c := range memCases() {
		name := fmt.Sprintf("%s%s%s%s/N=%d,D=%d,q=%d", c.id, c.p.LabelKernel, betaName(c.p), landmarksName(c.p), c.n, c.d, c.q)
		t.Run(name, func(t *testing.T) {
			est, peak, total, ok := checkEstimate(t, c, 1)
			if !ok {
				t.Skip("the fit refused these data")
			}
			t.Logf("estimate %9d  peak %9d  total %9d  estimate/peak %.2f  estimate/total %.2f",
				est, peak, total, float64(est)/float64(peak), float64(est)/float64(total))
		})
	}
}

func landmarksName(p Params) string {
	if p.Landmarks == 0 {
		return ""
	}
	return fmt.Sprintf(",%s,landmarks=%d", p.Kernel, p.Landmarks)
}

func betaName(p Params) string {
	if p.Beta == nil {
		return ""
	}
	return fmt.Sprintf(",beta=%v", *p.Beta)
}

// FuzzEstimateMemory: for any method and any small shape the fit accepts,
// the measured peak is at most the estimate, and the estimate at most
// 8 × the peak + 2 MiB.
func FuzzEstimateMemory(f *testing.F) {
	f.Add(uint8(0), uint16(30), uint16(10), uint8(4), uint64(1))
	f.Add(uint8(1), uint16(12), uint16(80), uint8(6), uint64(2))
	f.Add(uint8(6), uint16(50), uint16(50), uint8(3), uint64(3))
	f.Add(uint8(18), uint16(90), uint16(200), uint8(9), uint64(4))
	ms := Methods()
	f.Fuzz(func(t *testing.T, method uint8, n, d uint16, q uint8, seed uint64) {
		m := ms[int(method)%len(ms)]
		c := memCase{id: m.ID, n: 8 + int(n)%250, d: 1 + int(d)%300, q: 2 + int(q)%14}
		rng := rand.New(rand.NewPCG(seed, 3))
		if m.ID == "mddmp" {
			c.p.LabelKernel = []string{"", KernelQuadratic, KernelRBF}[rng.IntN(3)]
		}
		if m.ID == "lpp" {
			c.p.K = 1 + rng.IntN(c.n-1)
		}
		checkEstimate(t, c, seed)
	})
}
