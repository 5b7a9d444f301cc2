package analysis

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// Benchmarks at N = 100 000, D = 1 000, q = 100 (benchLarge, and its
// multi-dimensional twin) and N = 5 000 (benchSmall), on seeded synthetic
// data:
//
//	go test -run '^$' -bench . -benchtime 1x ./internal/analysis/
//
// Each reports ns/op, B/op (everything allocated) and peak-heap-B: the
// largest live heap seen during the fit, above what was live before it
// (sampled every 2 ms, so it can miss short spikes).

type benchSize struct {
	n, d, q  int
	multidim bool
}

func (s benchSize) String() string {
	if s.multidim {
		return fmt.Sprintf("N=%d/D=%d/ΣK=%d", s.n, s.d, s.q)
	}
	return fmt.Sprintf("N=%d/D=%d/q=%d", s.n, s.d, s.q)
}

var (
	benchLarge   = benchSize{n: 100_000, d: 1_000, q: 100}
	benchLargeMD = benchSize{n: 100_000, d: 1_000, q: 100, multidim: true}
	benchSmall   = benchSize{n: 5_000, d: 1_000, q: 100}

	benchData   = map[benchSize]Input{}
	benchDataMu sync.Mutex
)

// benchInput makes (once per size) features with some structure and sparse
// labels: about 4 of q per row, each label a noisy threshold of a random
// projection. Multi-dimensional: 10 class variables of 10 classes.
func benchInput(s benchSize) Input {
	benchDataMu.Lock()
	defer benchDataMu.Unlock()
	if in, ok := benchData[s]; ok {
		return in
	}
	rng := rand.New(rand.NewPCG(uint64(s.n), uint64(s.d)))
	x := mat.NewDense(s.n, s.d, nil)
	raw := x.RawMatrix().Data
	for i := range raw {
		raw[i] = rng.NormFloat64()
	}
	var in Input
	if s.multidim {
		vars := 10
		y := mat.NewDense(s.n, vars, nil)
		for i := range s.n {
			for v := range vars {
				c := int(x.At(i, v)*2+rng.NormFloat64()+5) % 10
				y.Set(i, v, float64(max(c, 0)))
			}
		}
		in = Input{X: x, Y: y, Classes: []int{10, 10, 10, 10, 10, 10, 10, 10, 10, 10}}
	} else {
		y := mat.NewDense(s.n, s.q, nil)
		for i := range s.n {
			for range 4 {
				l := (int(x.At(i, 0)*10+50) + rng.IntN(40)) % s.q
				y.Set(i, max(l, 0), 1)
			}
		}
		in = Input{X: x, Y: y}
	}
	benchData[s] = in
	return in
}

func benchFit(b *testing.B, id string, s benchSize, p Params) {
	in := benchInput(s)
	benchPeak(b, func() error {
		_, err := Fit(context.Background(), id, in, p, nil)
		return err
	})
}

func BenchmarkFit(b *testing.B) {
	for _, c := range []struct {
		id   string
		size benchSize
		p    Params
	}{
		{"mddmp", benchLarge, Params{D: 50}},
		{"sdem", benchLargeMD, Params{D: 50}},
		{"pca", benchLarge, Params{D: 50}},
		{"mvmd", benchLarge, Params{D: 50}},
		{"cplst", benchLarge, Params{D: 50}},
		{"kcplst", benchSmall, Params{D: 50}},
		{"lpp", benchSmall, Params{D: 50}},
	} {
		b.Run(c.id+"/"+c.size.String(), func(b *testing.B) { benchFit(b, c.id, c.size, c.p) })
	}
}
