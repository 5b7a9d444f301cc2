package analysis

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"
)

// benchShard is the size of the shard benchmarks: 160 MB of features.
var benchShard = benchSize{n: 40_000, d: 500, q: 100}

// BenchmarkShardFit fits the same data in memory and from 4 row shards
// (ShardStats of each, three merges, FitFromPartial, ProjectShard of
// each), d = 20:
//
//	go test -run '^$' -bench ShardFit -benchtime 3x ./internal/analysis/
//
// The shards are views of the one matrix, so the peak heap is that of the
// algebra, not of holding one shard at a time (which the job layer does).
func BenchmarkShardFit(b *testing.B) {
	in := benchInput(benchShard)
	for _, id := range []string{"pca", "mddmp", "cca", "cplst"} {
		p := Params{D: 20}
		b.Run(id+"/"+benchShard.String()+"/in-memory", func(b *testing.B) {
			benchPeak(b, func() error { _, err := Fit(context.Background(), id, in, p, nil); return err })
		})
		b.Run(id+"/"+benchShard.String()+"/4-shards", func(b *testing.B) {
			shards := benchShards(in, 4)
			benchPeak(b, func() error {
				var merged *Partial
				for _, s := range shards {
					part, err := ShardStats(context.Background(), id, p, s, nil)
					if err != nil {
						return err
					}
					if merged == nil {
						merged = part
					} else if err := merged.Merge(part); err != nil {
						return err
					}
				}
				m, err := FitFromPartial(context.Background(), id, p, merged, nil)
				if err != nil {
					return err
				}
				for _, s := range shards {
					if _, err := ProjectShard(context.Background(), m, s); err != nil {
						return err
					}
				}
				return nil
			})
		})
	}
}

// benchShards cuts in's rows into k views.
func benchShards(in Input, k int) []Input {
	n, d := in.X.Dims()
	_, q := in.Y.Dims()
	out := make([]Input, k)
	for i := range k {
		lo, hi := n*i/k, n*(i+1)/k
		out[i] = Input{X: in.X.Slice(lo, hi, 0, d).(*mat.Dense), Y: in.Y.Slice(lo, hi, 0, q).(*mat.Dense), Classes: in.Classes}
	}
	return out
}

// benchPeak runs f b.N times and reports the largest live heap above what
// was live before (sampled every 2 ms), as benchFit does.
func benchPeak(b *testing.B, f func() error) {
	b.ReportAllocs()
	b.ResetTimer()
	var peak uint64
	for range b.N {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		base := ms.HeapAlloc
		done := make(chan struct{})
		var top uint64
		var wg sync.WaitGroup
		wg.Go(func() {
			t := time.NewTicker(2 * time.Millisecond)
			defer t.Stop()
			for {
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				top = max(top, m.HeapAlloc)
				select {
				case <-done:
					return
				case <-t.C:
				}
			}
		})
		err := f()
		close(done)
		wg.Wait()
		if err != nil {
			b.Fatal(err)
		}
		if top > base {
			peak = max(peak, top-base)
		}
	}
	b.ReportMetric(float64(peak), "peak-heap-B")
}
