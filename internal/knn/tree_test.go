package knn

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"
)

// treeData is n×d rows of a kind that trees find hard to get exactly
// right: data's kinds, and
//   - "repeats": integers 0…4, every third row a copy of an earlier one,
//     column 0 constant (many equal distances, duplicates, a constant
//     column);
//   - "constant": Gaussian with every other column constant at 7;
//   - "clusters": a few tight clusters far apart, values rounded to 1/8.
func treeData(seed uint64, n, d int, kind string) *mat.Dense {
	switch kind {
	case "gaussian", "grid", "offset", "narrow":
		return data(seed, n, d, kind)
	}
	rng := rand.New(rand.NewPCG(seed, 11))
	x := mat.NewDense(n, d, nil)
	for i := range n {
		row := x.RawRowView(i)
		for j := range row {
			switch kind {
			case "repeats":
				row[j] = float64(rng.IntN(5))
				if j == 0 {
					row[j] = 3
				}
			case "constant":
				row[j] = rng.NormFloat64()
				if j%2 == 1 {
					row[j] = 7
				}
			case "clusters":
				row[j] = float64(1000*(i%4)) + math.Round(8*rng.NormFloat64())/8
			default:
				panic("treeData: unknown kind " + kind)
			}
		}
		if kind == "repeats" && i%3 == 2 {
			copy(row, x.RawRowView(rng.IntN(i)))
		}
	}
	return x
}

// searchFunc is Search or one of its paths.
type searchFunc func(ctx context.Context, ref, query *mat.Dense, k int, self bool, progress func(float64)) (*Neighbours, error)

// sameNeighbours fails t unless got has the neighbours wantIdx and, to
// the bit, the distances wantDist.
func sameNeighbours(t *testing.T, got *Neighbours, wantIdx [][]int32, wantDist [][]float64) {
	t.Helper()
	for i := range wantIdx {
		gi, gd := got.Row(i)
		same := slices.Equal(gi, wantIdx[i]) && slices.EqualFunc(gd, wantDist[i], func(a, b float64) bool {
			return math.Float64bits(a) == math.Float64bits(b)
		})
		if !same {
			t.Fatalf("query %d: got %v %v, want %v %v", i, gi, gd, wantIdx[i], wantDist[i])
		}
	}
}

// TestSearchTreeMatchesBruteForce: the tree's neighbours and distances
// equal, to the bit, those of every distance sorted by (Dist, index) and
// those of the blocked search, on data with duplicates, ties, constant
// columns and clusters, at d = 1…10 and 200, with and without self, for
// k = 1, 10 and k close to the number of reference rows.
func TestSearchTreeMatchesBruteForce(t *testing.T) {
	const r, q = 300, 70
	for _, kind := range []string{"gaussian", "grid", "offset", "narrow", "repeats", "constant", "clusters"} {
		for _, d := range []int{1, 2, 3, 5, 10, 200} {
			for _, self := range []bool{false, true} {
				for _, k := range []int{1, 10, r - 3} {
					name := fmt.Sprintf("%s/d=%d/self=%v/k=%d", kind, d, self, k)
					t.Run(name, func(t *testing.T) {
						ref := treeData(1, r, d, kind)
						query := treeData(2, q, d, kind)
						if self {
							query = ref
						}
						got, err := searchTree(context.Background(), ref, query, k, self, nil)
						if err != nil {
							t.Fatal(err)
						}
						wantIdx, wantDist := brute(ref, query, k, self)
						sameNeighbours(t, got, wantIdx, wantDist)
						for _, f := range []searchFunc{searchBrute, Search} {
							other, err := f(context.Background(), ref, query, k, self, nil)
							if err != nil {
								t.Fatal(err)
							}
							if !slices.Equal(got.Index, other.Index) || !slices.Equal(got.Dist, other.Dist) {
								t.Fatalf("got other neighbours than the blocked search's or Search's")
							}
						}
					})
				}
			}
		}
	}
}

// TestReferenceReused: a Reference's tree, built by its first search,
// answers the next searches (self, then other queries, from several
// goroutines at once) exactly as every distance sorted does.
func TestReferenceReused(t *testing.T) {
	ref := treeData(12, 3000, 3, "repeats")
	queries := []*mat.Dense{ref, treeData(13, 500, 3, "repeats"), treeData(14, 700, 3, "gaussian"), treeData(15, 50, 3, "grid")}
	r := NewReference(ref)
	if _, err := r.Search(context.Background(), ref, 10, true, nil); err != nil {
		t.Fatal(err)
	}
	if !r.built.Load() {
		t.Fatal("the first search built no tree; the test wants a shape Search takes the tree for")
	}
	type result struct {
		n   *Neighbours
		err error
	}
	res := make([]chan result, len(queries))
	for i, q := range queries {
		res[i] = make(chan result, 1)
		go func() {
			n, err := r.Search(context.Background(), q, 10, i == 0, nil)
			res[i] <- result{n, err}
		}()
	}
	for i, q := range queries {
		select {
		case got := <-res[i]:
			if got.err != nil {
				t.Fatal(got.err)
			}
			wantIdx, wantDist := brute(ref, q, 10, i == 0)
			sameNeighbours(t, got.n, wantIdx, wantDist)
		case <-time.After(30 * time.Second):
			t.Fatalf("search %d did not return within 30 s", i)
		}
	}
}

// TestUseTree: the way Search takes at telling shapes.
func TestUseTree(t *testing.T) {
	for _, tc := range []struct {
		name        string
		r, q, d, k  int
		built, want bool
	}{
		{"ML-kNN's fit on scene, d = 5", 2166, 2166, 5, 10, false, true},
		{"ML-kNN's prediction on scene, tree built", 2166, 241, 5, 10, true, true},
		{"two rows, one query: a leaf, below the blocked search's cost of a query", 2, 1, 1, 1, false, true},
		{"a few queries do not pay the build", 200000, 10, 2, 10, false, false},
		{"a few queries with the tree built", 200000, 10, 2, 10, true, true},
		{"d = 20 at 50 000 rows", 50000, 50000, 20, 10, false, false},
		{"d = 200", 1000000, 1000000, 200, 10, false, false},
		{"d = 25, beyond maxTreeDim", 1 << 30, 1 << 30, maxTreeDim + 1, 1, false, false},
		{"d = 0 (SearchSparse's estimate)", 10000, 10000, 0, 10, false, false},
		{"k near r", 2000, 2000, 5, 1990, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := useTree(tc.r, tc.q, tc.d, tc.k, tc.built); got != tc.want {
				t.Errorf("got useTree %v, want %v", got, tc.want)
			}
		})
	}
}

// TestSearchTreeSmall: a reference set of one leaf or less, and the
// largest k.
func TestSearchTreeSmall(t *testing.T) {
	for _, tc := range []struct{ r, d, k int }{{2, 1, 1}, {5, 3, 4}, {leafSize, 2, 7}, {leafSize + 1, 2, leafSize}, {2*leafSize + 1, 1, 2 * leafSize}} {
		for _, self := range []bool{false, true} {
			t.Run(fmt.Sprintf("R=%d/d=%d/k=%d/self=%v", tc.r, tc.d, tc.k, self), func(t *testing.T) {
				ref := treeData(3, tc.r, tc.d, "repeats")
				query := treeData(4, 9, tc.d, "repeats")
				if self {
					query = ref
				}
				got, err := searchTree(context.Background(), ref, query, tc.k, self, nil)
				if err != nil {
					t.Fatal(err)
				}
				wantIdx, wantDist := brute(ref, query, tc.k, self)
				sameNeighbours(t, got, wantIdx, wantDist)
			})
		}
	}
}

// TestSearchTreeRefusesAsBruteForce: the tree path refuses what the
// blocked search refuses, with the same error.
func TestSearchTreeRefusesAsBruteForce(t *testing.T) {
	ref := treeData(5, 40, 3, "gaussian")
	huge := mat.DenseCopyOf(ref)
	huge.Set(17, 1, 1e300)
	nan := mat.DenseCopyOf(ref)
	nan.Set(3, 0, math.NaN())
	for _, tc := range []struct {
		name       string
		ref, query *mat.Dense
		k          int
		self       bool
	}{
		{"other columns", ref, treeData(6, 5, 4, "gaussian"), 2, false},
		{"k = 0", ref, ref, 0, false},
		{"k too large", ref, ref, 40, true},
		{"a huge reference row", huge, ref, 2, false},
		{"a huge query row", ref, huge, 2, false},
		{"a NaN", nan, nan, 2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, want := searchBrute(context.Background(), tc.ref, tc.query, tc.k, tc.self, nil)
			_, got := searchTree(context.Background(), tc.ref, tc.query, tc.k, tc.self, nil)
			if want == nil || got == nil || got.Error() != want.Error() {
				t.Errorf("got error %v, want %v", got, want)
			}
		})
	}
}

// TestSearchTreeCanceled: a canceled context stops a large tree search
// promptly with the context's error, before it starts and while it runs,
// and no progress is reported after the cancellation.
func TestSearchTreeCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ref := treeData(7, 20, 2, "gaussian")
	if _, err := searchTree(ctx, ref, ref, 3, true, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled before: got %v, want context.Canceled", err)
	}

	// Seconds of work on this machine when not canceled (200 000 rows,
	// d = 8, each their own query), blocks of 256 queries of some 10 ms:
	// it must return within a few blocks, even under -race.
	big := treeData(8, 200000, 8, "gaussian")
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	type result struct {
		err     error
		elapsed time.Duration
		late    int
	}
	res := make(chan result, 1)
	go func() {
		var at time.Time
		late := 0
		_, err := searchTree(ctx, big, big, 10, true, func(f float64) {
			if at.IsZero() {
				at = time.Now()
				cancel()
			} else {
				late++
			}
		})
		res <- result{err, time.Since(at), late}
	}()
	select {
	case r := <-res:
		if !errors.Is(r.err, context.Canceled) {
			t.Errorf("canceled during: got %v, want context.Canceled", r.err)
		}
		if r.elapsed > time.Second {
			t.Errorf("returned %v after the cancellation, want within 1s", r.elapsed)
		}
		if r.late != 0 {
			t.Errorf("got %d progress reports after the cancellation, want 0", r.late)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the canceled search did not return within 30 s")
	}
}

// TestSearchTreeProgress: the progress rises to 1.
func TestSearchTreeProgress(t *testing.T) {
	ref := treeData(9, 3000, 3, "gaussian")
	var got []float64
	if _, err := searchTree(context.Background(), ref, ref, 5, true, func(f float64) { got = append(got, f) }); err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || got[len(got)-1] != 1 || !slices.IsSorted(got) {
		t.Errorf("got progress %v, want a rising sequence ending at 1", got)
	}
}

// fuzzValues are the values fuzzed rows are made of: zeros of both signs,
// subnormals, the extremes Search accepts and one it refuses (1e300),
// and small integers for ties.
var fuzzValues = [...]float64{0, math.Copysign(0, -1), 5e-324, -5e-324, 2.2250738585072014e-308, 1e-300,
	1e150, -1e150, 1e300, 0.5, 1, -1, 2, 3, 1e-10, 1 + 0x1p-52}

// FuzzSearchTree builds small reference and query rows from the fuzz
// bytes (d, k and self from the first bytes, then one byte a value: one
// of fuzzValues or a small integer; at most 400 rows) and compares the tree search with every
// distance sorted by (Dist, index), and its error with the blocked
// search's.
//
//	go test -run '^$' -fuzz FuzzSearchTree ./internal/knn/
func FuzzSearchTree(f *testing.F) {
	f.Add([]byte{2, 3, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25})
	f.Add([]byte{1, 5, 1, 16, 16, 16, 17, 17, 16, 16, 18, 16, 17, 1, 0, 2, 3})
	f.Add([]byte{3, 1, 0, 8, 0, 1, 9, 7, 6, 200, 201, 202, 0, 0, 0, 1, 1, 1})
	f.Add(slices.Repeat([]byte{4, 2, 1, 16, 17, 18, 16}, 30))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < 4 {
			return
		}
		d, k, self := 1+int(b[0])%6, 1+int(b[1])%12, b[2]%2 == 1
		vals := make([]float64, 0, len(b)-3)
		for _, v := range b[3:] {
			if int(v) < len(fuzzValues) {
				vals = append(vals, fuzzValues[v])
			} else {
				vals = append(vals, float64(int(v)%7-3))
			}
		}
		n := min(len(vals)/d, 400) // rows beyond 400 only slow the fuzzing
		nq := 0
		if !self {
			nq = max(1, n/4)
		}
		r := n - nq
		if r < 2 {
			return
		}
		ref := mat.NewDense(r, d, vals[:r*d])
		query := ref
		if !self {
			query = mat.NewDense(nq, d, vals[r*d:n*d])
		}
		k = min(k, r-1)
		got, err := searchTree(context.Background(), ref, query, k, self, nil)
		_, want := searchBrute(context.Background(), ref, query, k, self, nil)
		if err != nil || want != nil {
			if err == nil || want == nil || err.Error() != want.Error() {
				t.Fatalf("got error %v, want %v", err, want)
			}
			return
		}
		wantIdx, wantDist := brute(ref, query, k, self)
		sameNeighbours(t, got, wantIdx, wantDist)
	})
}
