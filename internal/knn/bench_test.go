package knn

import (
	"context"
	"fmt"
	"testing"
)

// benchSearch times f finding the k = 10 nearest of each of n Gaussian
// rows of d columns among the others (self, as ML-kNN's fit does), and
// reports as "taken" whether f is the way Search takes for that shape.
func benchSearch(b *testing.B, f searchFunc, tree bool, n, d int) {
	x := data(10, n, d, "gaussian")
	taken := 0.0
	if useTree(n, n, d, 10, false) == tree {
		taken = 1
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := f(context.Background(), x, x, 10, true, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(taken, "taken")
}

// BenchmarkSearchPaths: ML-kNN's fit at N = 2 000 … 200 000 reference
// rows and d = 2 … 20, by the tree and by the blocked distance products
// ("taken": the one Search takes). The blocked search takes about 7 min
// at N = 200 000:
//
//	go test -run '^$' -bench SearchPaths -benchtime 1x -timeout 0 ./internal/knn/
func BenchmarkSearchPaths(b *testing.B) {
	for _, n := range []int{2000, 10000, 50000, 200000} {
		for _, d := range []int{2, 5, 10, 20} {
			b.Run(fmt.Sprintf("N=%d/d=%d/tree", n, d), func(b *testing.B) { benchSearch(b, searchTree, true, n, d) })
			b.Run(fmt.Sprintf("N=%d/d=%d/brute", n, d), func(b *testing.B) { benchSearch(b, searchBrute, false, n, d) })
		}
	}
}
