package analysis

import (
	"context"
	"fmt"
	"testing"

	"mldr/internal/sparse"
)

// TestEstimateShardMemory measures ShardStats' peak live heap (memtest.Peak)
// against EstimateShardMemory, on dense and sparse shards: the estimate
// must bound the peak, and be at most estimateSlack times it plus
// estimateFloor; and size must be the Partial's Size.
func TestEstimateShardMemory(t *testing.T) {
	cases := []memCase{
		{id: "pca", n: 3000, d: 300, q: 8},
		{id: "mddmp", p: Params{LabelKernel: KernelQuadratic}, n: 2000, d: 200, q: 12},
		{id: "cca", n: 2000, d: 250, q: 20},
		{id: "lda", n: 1500, d: 200, q: 3},
		{id: "plst", n: 3000, d: 100, q: 30},
		{id: "sdem", n: 1000, d: 150, q: 4},
		{id: "cplst", n: 400, d: 60, q: 6},
	}
	for _, c := range cases {
		for _, form := range []string{"dense", "sparse"} {
			t.Run(fmt.Sprintf("%s%s/%d×%d/%s", c.id, c.p.LabelKernel, c.n, c.d, form), func(t *testing.T) {
				m, _ := Lookup(c.id)
				in, s := memInput(m, c, 21)
				if form == "sparse" {
					in.Sparse, in.X = sparse.FromDense(in.X), nil
					s.NNZ = int64(in.Sparse.NNZ())
				}
				est, size, err := EstimateShardMemory(c.id, c.p, s)
				if err != nil {
					t.Fatalf("EstimateShardMemory: %v", err)
				}
				var part *Partial
				var fitErr error
				peak, total := measurePeakFor(est, func() { part, fitErr = ShardStats(context.Background(), c.id, c.p, in, nil) })
				if fitErr != nil {
					t.Fatalf("ShardStats: %v", fitErr)
				}
				if size != part.Size() {
					t.Errorf("estimated size %d bytes, want the Partial's %d", size, part.Size())
				}
				if peak > est {
					t.Errorf("measured peak %d bytes, above the estimate %d (total allocated %d)", peak, est, total)
				}
				if est > estimateSlack*peak+estimateFloor {
					t.Errorf("estimate %d bytes, more than %d × the measured peak %d + %d", est, estimateSlack, peak, estimateFloor)
				}
				t.Logf("estimate %d, peak %d, total %d, partial %d bytes", est, peak, total, size)
			})
		}
	}
}
