package explore

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// benchLabels makes N rows over q labels with about perRow labels each:
// label j is on a row with probability proportional to 1/(j+1) (a few
// frequent labels, a long tail), as in multi-label benchmark data, so there
// are many distinct label sets.
func benchLabels(N, q int, perRow float64, rng *rand.Rand) *Labels {
	w := make([]float64, q)
	var sum float64
	for j := range w {
		w[j] = 1 / float64(j+1)
		sum += w[j]
	}
	for j := range w {
		w[j] = min(1, w[j]*perRow/sum)
	}
	l := &Labels{Names: make([]string, q), Start: make([]int32, 1, N+1), Index: make([]int32, 0, int(float64(N)*perRow*1.1))}
	for j := range l.Names {
		l.Names[j] = fmt.Sprintf("label%03d", j)
	}
	for range N {
		for j := range q {
			if rng.Float64() < w[j] {
				l.Index = append(l.Index, int32(j))
			}
		}
		l.Start = append(l.Start, int32(len(l.Index)))
	}
	return l
}

// benchEnrich times Enrich on N rows, q labels, about perRow labels a row
// and a selection of n distinct rows at random.
func benchEnrich(b *testing.B, N, q int, perRow float64, n int) {
	rng := rand.New(rand.NewPCG(1, 1))
	l := benchLabels(N, q, perRow, rng)
	rows := rng.Perm(N)[:n]
	b.ReportAllocs()
	b.ResetTimer()
	var s Selection
	for b.Loop() {
		s = Enrich(l, rows, 50)
	}
	b.ReportMetric(float64(len(l.Index))/float64(N), "labels/row")
	c := newSetCounter(l, hashIndices, len(rows))
	for _, r := range rows {
		c.add(r, l.row(r))
	}
	b.ReportMetric(float64(len(c.sets)), "sets")
	if s.Count != n || len(s.Labels) != q {
		b.Fatalf("count %d, %d labels; want %d, %d", s.Count, len(s.Labels), n, q)
	}
}

// BenchmarkEnrich is the selection endpoint's budget: N = 1e6
// rows, q = 100 labels, about 4 labels a row, a selection of 1e5 rows, well
// under 100 ms.
func BenchmarkEnrich(b *testing.B) {
	for _, c := range []struct {
		name    string
		N, q, n int
		perRow  float64
	}{
		{"N=1e6/q=100/n=1e5", 1000000, 100, 100000, 4},
		{"N=1e6/q=100/n=1e6", 1000000, 100, 1000000, 4},
		{"N=1e4/q=20/n=1e3", 10000, 20, 1000, 3},
	} {
		b.Run(c.name, func(b *testing.B) { benchEnrich(b, c.N, c.q, c.perRow, c.n) })
	}
}
