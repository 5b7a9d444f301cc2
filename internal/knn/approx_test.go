package knn

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// clustered returns n rows of d columns around 50 centres (a mixture of
// Gaussians, the shape an inverted file divides well and projections of
// real data often have), seeded.
func clustered(n, d int, seed uint64) *mat.Dense {
	rng := rand.New(rand.NewPCG(seed, 1))
	centres := make([][]float64, 50)
	for c := range centres {
		centres[c] = make([]float64, d)
		for j := range centres[c] {
			centres[c][j] = 3 * rng.NormFloat64()
		}
	}
	x := mat.NewDense(n, d, nil)
	for i := range n {
		c := centres[rng.IntN(len(centres))]
		for j := range d {
			x.Set(i, j, c[j]+rng.NormFloat64())
		}
	}
	return x
}

// TestSearchApprox checks the approximate search against the exact one on
// the same rows: every neighbour it returns is at its exact distance
// (Dist), nearest first with ties by index; a row whose k nearest it found
// all is the exact search's row to the bit; the recall over every row is
// near the target and near the report's, which was measured on a sample.
func TestSearchApprox(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name      string
		r, q, d   int
		k         int
		recall    float64
		minRecall float64 // over every query row
	}{
		{"d8 k10", 20000, 3000, 8, 10, 0.95, 0.93},
		{"d32 k5", 20000, 3000, 32, 5, 0.9, 0.87},
		{"d16 k1", 5000, 2500, 16, 1, 0.99, 0.97},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ref, query := clustered(tc.r, tc.d, 1), clustered(tc.q, tc.d, 2)
			got, rep, err := SearchApprox(ctx, ref, query, tc.k, ApproxOptions{Recall: tc.recall, Seed: 7}, nil)
			if err != nil {
				t.Fatal(err)
			}
			want, err := Search(ctx, ref, query, tc.k, false, nil)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Lists != int(math.Round(math.Sqrt(float64(tc.r)))) || rep.Probes < 1 || rep.Probes > rep.Lists {
				t.Fatalf("report %+v", rep)
			}
			if rep.Sample != min(tc.q, DefaultSample) {
				t.Fatalf("recall measured on %d rows, want %d", rep.Sample, min(tc.q, DefaultSample))
			}
			whole := 0
			found := 0
			for i := range tc.q {
				gi, gd := got.Row(i)
				wi, wd := want.Row(i)
				for s, j := range gi {
					if j < 0 || int(j) >= tc.r {
						t.Fatalf("row %d: neighbour %d out of range", i, j)
					}
					if d := Dist(query.RawRowView(i), ref.RawRowView(int(j))); d != gd[s] {
						t.Fatalf("row %d: neighbour %d at %v, its Dist is %v", i, j, gd[s], d)
					}
					if s > 0 && (gd[s] < gd[s-1] || gd[s] == gd[s-1] && j < gi[s-1]) {
						t.Fatalf("row %d: neighbours out of order: %v %v", i, gi, gd)
					}
				}
				n := 0
				for _, j := range wi {
					if slices.Contains(gi, j) {
						n++
					}
				}
				found += n
				if n == tc.k {
					whole++
					if !slices.Equal(gi, wi) || !slices.Equal(gd, wd) {
						t.Fatalf("row %d: all %d nearest found but not in the exact order: %v %v, want %v %v", i, tc.k, gi, gd, wi, wd)
					}
				}
			}
			all := float64(found) / float64(tc.q*tc.k)
			if all < tc.minRecall {
				t.Errorf("recall over every row %.4f, below %.2f (report %+v)", all, tc.minRecall, rep)
			}
			if math.Abs(all-rep.Recall) > 0.03 {
				t.Errorf("reported recall %.4f on %d rows, %.4f over every row", rep.Recall, rep.Sample, all)
			}
			if whole == tc.q && rep.Probes < rep.Lists {
				t.Logf("every row exact with %d of %d lists", rep.Probes, rep.Lists)
			}
			t.Logf("%+v; recall over every row %.4f", rep, all)
		})
	}
}

// TestSearchApproxDeterministic checks that the result depends on the
// seed only: the same on one core as on several.
func TestSearchApproxDeterministic(t *testing.T) {
	ctx := context.Background()
	ref, query := clustered(8000, 12, 3), clustered(1500, 12, 4)
	run := func(procs int) (*Neighbours, ApproxReport) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		nn, rep, err := SearchApprox(ctx, ref, query, 7, ApproxOptions{Seed: 11}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return nn, rep
	}
	a, ra := run(1)
	b, rb := run(4)
	if ra != rb || !slices.Equal(a.Index, b.Index) || !slices.Equal(a.Dist, b.Dist) {
		t.Fatalf("one core and four differ: %+v, %+v", ra, rb)
	}
}

// TestSearchApproxAllLists checks that a target of recall 1 on rows whose
// lists are all probed gives the exact search, and that rows whose probed
// lists hold fewer than k rows are searched exactly.
func TestSearchApproxAllLists(t *testing.T) {
	ctx := context.Background()
	// 30 rows: 5 lists of about 6, k = 20 needs several lists a row.
	ref, query := clustered(30, 3, 5), clustered(40, 3, 6)
	got, rep, err := SearchApprox(ctx, ref, query, 20, ApproxOptions{Recall: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Search(ctx, ref, query, 20, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Recall != 1 || !slices.Equal(got.Index, want.Index) || !slices.Equal(got.Dist, want.Dist) {
		t.Fatalf("recall target 1: report %+v, neighbours differ from the exact search", rep)
	}
}

// TestSearchApproxErrors checks the refusals.
func TestSearchApproxErrors(t *testing.T) {
	ref, query := clustered(100, 4, 1), clustered(10, 4, 2)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name string
		ctx  context.Context
		q    *mat.Dense
		k    int
		o    ApproxOptions
		want string
	}{
		{"k above rows", context.Background(), query, 101, ApproxOptions{}, "needs more than 100 reference rows"},
		{"columns", context.Background(), clustered(10, 5, 2), 3, ApproxOptions{}, "the queries have 5 columns"},
		{"recall", context.Background(), query, 3, ApproxOptions{Recall: 1.5}, "recall target must be in (0, 1]"},
		{"sample", context.Background(), query, 3, ApproxOptions{Sample: -1}, "at least 1 row"},
		{"cancelled", cancelled, query, 3, ApproxOptions{}, context.Canceled.Error()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := SearchApprox(tc.ctx, ref, tc.q, tc.k, tc.o, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
			if tc.ctx.Err() != nil && !errors.Is(err, context.Canceled) {
				t.Fatalf("error %v does not wrap the cancellation", err)
			}
		})
	}
}

// TestMerge checks the merge of a row's neighbours with new candidates.
func TestMerge(t *testing.T) {
	for _, tc := range []struct {
		name  string
		oldI  []int32
		oldD  []float64
		newI  []int32 // already global
		newD  []float64
		wantI []int32
		wantD []float64
	}{
		{"empty row", []int32{-1, -1, -1}, []float64{inf, inf, inf}, []int32{4, 2}, []float64{1, 3}, []int32{4, 2, -1}, []float64{1, 3, inf}},
		{"interleave", []int32{1, 3, 5}, []float64{1, 3, 5}, []int32{0, 2}, []float64{2, 4}, []int32{1, 0, 3}, []float64{1, 2, 3}},
		{"tie by index", []int32{7, 9, -1}, []float64{1, 2, inf}, []int32{3, 8}, []float64{1, 2}, []int32{3, 7, 8}, []float64{1, 1, 2}},
		{"all worse", []int32{1, 2}, []float64{1, 2}, []int32{5}, []float64{3}, []int32{1, 2}, []float64{1, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := len(tc.oldI)
			n := &Neighbours{Queries: 1, K: k, Index: slices.Clone(tc.oldI), Dist: slices.Clone(tc.oldD)}
			n.merge(0, tc.newI, tc.newD, func(j int32) int32 { return j })
			if !slices.Equal(n.Index, tc.wantI) || !slices.Equal(n.Dist, tc.wantD) {
				t.Fatalf("got %v %v, want %v %v", n.Index, n.Dist, tc.wantI, tc.wantD)
			}
		})
	}
}

var inf = math.Inf(1)
