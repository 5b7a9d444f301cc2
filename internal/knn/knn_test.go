package knn

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// brute is the reference: every distance, sorted by (distance, index).
func brute(ref, query *mat.Dense, k int, self bool) ([][]int32, [][]float64) {
	r, _ := ref.Dims()
	q, _ := query.Dims()
	idx := make([][]int32, q)
	dist := make([][]float64, q)
	for i := range q {
		type c struct {
			d float64
			j int
		}
		var all []c
		for j := range r {
			if self && i == j {
				continue
			}
			all = append(all, c{Dist(query.RawRowView(i), ref.RawRowView(j)), j})
		}
		slices.SortFunc(all, func(a, b c) int { return cmp.Or(cmp.Compare(a.d, b.d), cmp.Compare(a.j, b.j)) })
		for _, x := range all[:k] {
			idx[i] = append(idx[i], int32(x.j))
			dist[i] = append(dist[i], x.d)
		}
	}
	return idx, dist
}

func data(seed uint64, n, d int, kind string) *mat.Dense {
	rng := rand.New(rand.NewPCG(seed, 3))
	x := mat.NewDense(n, d, nil)
	for i := range n {
		for j := range d {
			switch kind {
			case "gaussian":
				x.Set(i, j, rng.NormFloat64())
			case "grid": // many exact ties
				x.Set(i, j, float64(rng.IntN(3)))
			case "offset": // binary on a large offset
				x.Set(i, j, 1e6+float64(rng.IntN(2)))
			case "narrow": // spread 1e-3 around 1e8
				x.Set(i, j, 1e8+1e-3*rng.NormFloat64())
			}
		}
	}
	if kind == "gaussian" && n > 10 { // duplicated rows
		x.SetRow(5, x.RawRowView(2))
		x.SetRow(9, x.RawRowView(2))
	}
	return x
}

func TestSearchMatchesBruteForce(t *testing.T) {
	for _, kind := range []string{"gaussian", "grid", "offset", "narrow"} {
		for _, tc := range []struct{ r, q, d, k, rows int }{{157, 40, 5, 1, 7}, {97, 97, 8, 10, 256}, {300, 64, 3, 7, 64}, {30, 11, 4, 29, 3}, {130, 50, 80, 10, 16}} {
			for _, self := range []bool{false, true} {
				name := fmt.Sprintf("%s/R=%d/Q=%d/D=%d/k=%d/rows=%d/self=%v", kind, tc.r, tc.q, tc.d, tc.k, tc.rows, self)
				t.Run(name, func(t *testing.T) {
					ref := data(1, tc.r, tc.d, kind)
					query := data(2, tc.q, tc.d, kind)
					if self {
						query = ref
					}
					got, err := searchRows(context.Background(), ref, query, tc.k, self, nil, tc.rows)
					if err != nil {
						t.Fatal(err)
					}
					wantIdx, wantDist := brute(ref, query, tc.k, self)
					qn, _ := query.Dims()
					for i := range qn {
						gi, gd := got.Row(i)
						if !slices.Equal(gi, wantIdx[i]) || !slices.Equal(gd, wantDist[i]) {
							t.Fatalf("query %d: got %v %v, want %v %v", i, gi, gd, wantIdx[i], wantDist[i])
						}
					}
				})
			}
		}
	}
}

func TestSearchDeterministicAcrossWorkers(t *testing.T) {
	ref := data(3, 700, 6, "grid")
	query := data(4, 300, 6, "grid")
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	one, err := Search(context.Background(), ref, query, 5, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GOMAXPROCS(8)
	many, _ := Search(context.Background(), ref, query, 5, false, nil)
	if !slices.Equal(one.Index, many.Index) || !slices.Equal(one.Dist, many.Dist) {
		t.Error("results differ between 1 and 8 workers")
	}
}

func TestSearchErrorsAndCancel(t *testing.T) {
	ref := data(5, 20, 3, "gaussian")
	for _, tc := range []struct {
		q    *mat.Dense
		k    int
		self bool
	}{{data(6, 5, 4, "gaussian"), 2, false}, {ref, 0, false}, {ref, 20, true}, {data(6, 5, 3, "gaussian"), 21, false}} {
		if _, err := Search(context.Background(), ref, tc.q, tc.k, tc.self, nil); err == nil {
			t.Errorf("k=%d self=%v: got no error", tc.k, tc.self)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Search(ctx, ref, ref, 3, true, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: got %v", err)
	}
	big := data(7, 3000, 5, "gaussian")
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	_, err := Search(ctx, big, big, 3, true, func(f float64) { cancel() })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("canceled during: got %v", err)
	}
}

func BenchmarkSearch(b *testing.B) {
	// ML-kNN's search at the evaluation's benchmark size: 20 000 training rows, 5 000 test
	// rows, d = 50.
	train := data(8, 20000, 50, "gaussian")
	test := data(9, 5000, 50, "gaussian")
	b.Run("self/N=20000/d=50", func(b *testing.B) {
		for range b.N {
			if _, err := Search(context.Background(), train, train, 10, true, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("test/N=20000/Q=5000/d=50", func(b *testing.B) {
		for range b.N {
			if _, err := Search(context.Background(), train, test, 10, false, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}
