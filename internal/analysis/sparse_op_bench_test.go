package analysis

import (
	"context"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"testing"
	"time"
)

// peakHeap runs f while sampling the bytes of live and not yet collected
// heap objects every millisecond, and returns the largest sample above the
// one taken (after a collection) before f.
func peakHeap(f func()) float64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	base := sample[0].Value.Uint64()
	peak := base
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		s := []metrics.Sample{{Name: sample[0].Name}}
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				metrics.Read(s)
				peak = max(peak, s[0].Value.Uint64())
			}
		}
	})
	f()
	close(done)
	wg.Wait()
	return float64(peak - base)
}

// BenchmarkWideSparse is benchcmp's wide benchmark: pca, mddmp, cplst and
// mvmd (β = 0.5) at d = 20 on 20 000 × 5 000 sparse features at 2 %,
// q = 400, each reporting its peak heap (MB, sampled every millisecond at
// GOGC = 10; what garbage is left included) next to the sparse features' own size; pca and mvmd
// by the route Fit chooses (matrix-free) and by the Gram route. scipy's
// figures on the same shape: testdata/wide_scipy.py.
func BenchmarkWideSparse(b *testing.B) {
	in := wideSparseInput(20000, 5000, 400, 0.02)
	// Collect often, so that the sampled heap is close to the live one
	// (at the default GOGC the 64 MB dense Y alone lets 60 MB of garbage
	// wait).
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	b.Logf("sparse features: %.1f MB; D·d: %.2f MB", float64(in.Sparse.Bytes())/1e6, 8*5000*20/1e6)
	for _, tc := range []struct {
		name, method string
		p            Params
		route        routeChoice
	}{
		{"pca", "pca", Params{D: 20}, routeAuto},
		{"pca-gram", "pca", Params{D: 20}, routeGram},
		{"mddmp", "mddmp", Params{D: 20}, routeAuto},
		{"cplst", "cplst", Params{D: 20}, routeAuto},
		{"mvmd", "mvmd", Params{D: 20, Beta: Float(0.5)}, routeAuto},
		{"mvmd-gram", "mvmd", Params{D: 20, Beta: Float(0.5)}, routeGram},
	} {
		b.Run(tc.name, func(b *testing.B) {
			in := in
			in.route = tc.route
			peak := 0.0
			for b.Loop() {
				peak = max(peak, peakHeap(func() {
					if _, err := Fit(context.Background(), tc.method, in, tc.p, nil); err != nil {
						b.Fatal(err)
					}
				}))
			}
			b.ReportMetric(peak/1e6, "peak-MB")
		})
	}
}
