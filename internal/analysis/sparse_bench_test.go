package analysis

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/sparse"
)

// wideSparseInput is benchcmp's wide set: n×d at the given density
// (values uniform in (0, 1], as scipy.sparse.random), q labels with
// about 4 ones a row.
func wideSparseInput(n, d, q int, density float64) Input {
	rng := rand.New(rand.NewPCG(1, 1))
	per := int(density*float64(d) + 0.5)
	b := sparse.NewBuilder(d, n*per)
	cols := make([]int, 0, per)
	seen := make([]bool, d)
	for range n {
		cols = cols[:0]
		for len(cols) < per {
			if j := rng.IntN(d); !seen[j] {
				seen[j] = true
				cols = append(cols, j)
			}
		}
		slices.Sort(cols)
		for _, j := range cols {
			seen[j] = false
			b.Add(j, 1-rng.Float64())
		}
		b.EndRow()
	}
	y := mat.NewDense(n, q, nil)
	for i := range n {
		for range 4 {
			y.Set(i, rng.IntN(q), 1)
		}
	}
	return Input{Sparse: b.Build(), Y: y}
}

// BenchmarkSparseStats is the statistics part of pca, mddmp, cplst and
// mvmd on 20 000 × 5 000 sparse features at 2 %, q = 400 (benchcmp's wide
// benchmark; the eigen-solving part is measured apart).
func BenchmarkSparseStats(b *testing.B) {
	in := wideSparseInput(20000, 5000, 400, 0.02)
	labels := in.ones()
	for _, tc := range []struct {
		method string
		spec   statsSpec
	}{
		{"pca", statsSpec{gram: true}},
		{"mddmp", statsSpec{labels: labels}},
		{"cplst", statsSpec{gram: true, labels: labels, labelGram: true}},
		{"mvmd", statsSpec{gram: true, labels: labels}},
	} {
		b.Run(tc.method, func(b *testing.B) {
			for b.Loop() {
				if _, err := computeStatsSparse(context.Background(), in.Sparse, tc.spec, stage{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSparseFit is the whole fit at d = 20 on the same data of the
// methods whose eigenproblem is not D×D: mddmp (the top pairs of the
// 5 000 × 400 XcᵀY through its 400 × 400 Gram) and cplst (the 5 000 × 5 000
// XᵀX + λI factored by linalg.Cholesky, the 400 × 400 ZᵀĤZ).
//
//	go test -run '^$' -bench SparseFit -benchtime 3x ./internal/analysis/
func BenchmarkSparseFit(b *testing.B) {
	in := wideSparseInput(20000, 5000, 400, 0.02)
	for _, id := range []string{"mddmp", "cplst"} {
		b.Run(id, func(b *testing.B) {
			for b.Loop() {
				if _, err := Fit(context.Background(), id, in, Params{D: 20}, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
