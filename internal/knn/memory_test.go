package knn

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"mldr/internal/sparse"
)

// TestEstimateMemoryTree: on shapes where Search takes the tree, every
// byte the search allocates (runtime.MemStats.TotalAlloc, so the peak too)
// is within EstimateMemory, and the estimate is within 4 times it.
func TestEstimateMemoryTree(t *testing.T) {
	testEstimateMemory(t, true, []searchShape{
		{2166, 2166, 5, 10, true},
		{2166, 241, 3, 10, false},
		{20000, 20000, 2, 10, true},
		{20000, 3000, 6, 30, false},
		{500, 500, 2, 3, true},
	})
}

// TestEstimateMemoryTreeBelowBrute: wherever Search takes the tree, its
// estimate is below the blocked search's for the same shape (so admission
// never asks more of the tree), and EstimateMemory is the estimate of the
// way Search takes.
func TestEstimateMemoryTreeBelowBrute(t *testing.T) {
	trees := 0
	for _, r := range []int{2, 10, 33, 100, 2166, 10000, 200000, 1000000} {
		for _, q := range []int{1, 241, r} {
			for d := 1; d <= maxTreeDim+1; d++ {
				for _, k := range []int{1, 10, 50} {
					if k >= r {
						continue
					}
					self := q == r
					tree, brute := estimateTree(r, q, d, k), estimateBrute(r, q, d, k, self)
					want := brute
					if useTree(r, q, d, k, false) {
						trees++
						want = tree
						if tree > brute {
							t.Errorf("R=%d Q=%d d=%d k=%d: tree estimate %d, above the blocked search's %d", r, q, d, k, tree, brute)
						}
					}
					if got := EstimateMemory(r, q, d, k, self); got != want {
						t.Errorf("R=%d Q=%d d=%d k=%d: got EstimateMemory %d, want %d", r, q, d, k, got, want)
					}
				}
			}
		}
	}
	if trees == 0 {
		t.Error("no shape took the tree")
	}
}

// TestEstimateMemoryBrute: the same on shapes where Search takes the
// blocked search, whose estimate counts a shortlist of every reference
// row per worker (the worst case, when distances tie).
func TestEstimateMemoryBrute(t *testing.T) {
	testEstimateMemory(t, false, []searchShape{
		{2166, 2166, 294, 10, true},
		{2166, 241, 294, 10, false},
		{5000, 700, 30, 10, false},
		{301, 301, 50, 3, true},
	})
}

// searchShape is a search of the k nearest of q query rows among r
// reference rows of d columns (self: the queries are the reference rows).
type searchShape struct {
	r, q, d, k int
	self       bool
}

// testEstimateMemory checks, for each shape (on which Search must take
// the tree, or not), that the bytes Search allocates are within
// EstimateMemory and the estimate within 4 times them.
func testEstimateMemory(t *testing.T, tree bool, shapes []searchShape) {
	for _, tc := range shapes {
		t.Run(fmt.Sprintf("R=%d/Q=%d/d=%d/k=%d/self=%v", tc.r, tc.q, tc.d, tc.k, tc.self), func(t *testing.T) {
			if useTree(tc.r, tc.q, tc.d, tc.k, false) != tree {
				t.Fatalf("got useTree %v for this shape, want %v", !tree, tree)
			}
			ref := data(1, tc.r, tc.d, "gaussian")
			query := ref
			if !tc.self {
				query = data(2, tc.q, tc.d, "gaussian")
			}
			est := EstimateMemory(tc.r, tc.q, tc.d, tc.k, tc.self)
			allocWithin(t, est, func() error {
				_, err := Search(context.Background(), ref, query, tc.k, tc.self, nil)
				return err
			})
		})
	}
}

// TestEstimateMemorySparse: the bytes SearchSparse allocates are within
// EstimateMemory with no feature columns plus the reference rows'
// transpose (12 bytes an entry, 8 a column, as the sparse estimates of
// internal/evaluate add), which is within 4 times them.
func TestEstimateMemorySparse(t *testing.T) {
	for _, tc := range []searchShape{{3000, 3000, 500, 10, true}, {3000, 400, 500, 10, false}} {
		t.Run(fmt.Sprintf("R=%d/Q=%d/d=%d/k=%d/self=%v", tc.r, tc.q, tc.d, tc.k, tc.self), func(t *testing.T) {
			ref := sparse.FromDense(sparseData(1, tc.r, tc.d, 0.05, false))
			query := ref
			if !tc.self {
				query = sparse.FromDense(sparseData(2, tc.q, tc.d, 0.05, false))
			}
			est := EstimateMemory(tc.r, tc.q, 0, tc.k, tc.self) + int64(12*ref.NNZ()+8*tc.d+8)
			allocWithin(t, est, func() error {
				_, err := SearchSparse(context.Background(), ref, query, tc.k, tc.self, nil)
				return err
			})
		})
	}
}

// allocWithin fails t unless the bytes search allocates
// (runtime.MemStats.TotalAlloc, so the peak too) are within est, and est
// within 4 times them.
func allocWithin(t *testing.T, est int64, search func() error) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if err := search(); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	got := int64(after.TotalAlloc - before.TotalAlloc)
	if got > est {
		t.Errorf("allocated %d bytes, above the estimate %d", got, est)
	}
	if est > 4*got {
		t.Errorf("estimate %d bytes, more than 4 × the %d allocated", est, got)
	}
	t.Logf("estimate %d, allocated %d", est, got)
}
