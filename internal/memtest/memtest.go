// Package memtest measures the peak heap of a piece of work, for the tests
// that hold the memory estimates (analysis, evaluate, jobs) to what a fit,
// an evaluation or a job really takes.
//
// Go has no allocation hook, so Peak uses two figures:
//
//   - peak: the largest value of /memory/classes/heap/objects:bytes (the
//     bytes of heap objects, live or not yet swept) above its value after a
//     full collection before the work, sampled continuously by a goroutine
//     and once more when the work returns (what it keeps is then part of
//     it), with the collector at GOGC = 1 so that garbage stays within about
//     1% of the live heap. Sampling can miss a peak shorter than its period,
//     so this is a lower bound of the true peak in the worst case; the big
//     matrices of a fit live for as long as it takes to fill them, which at
//     the tests' sizes is many periods.
//   - total: the bytes allocated during the work (/gc/heap/allocs:bytes),
//     which no peak can exceed: an upper bound, and usually 1.2–2 times the
//     peak since buffers are released as the work goes.
//
// On a busy machine (CI runs the packages' tests side by side on two
// cores) both failure modes of sampling happen: the sampler is not
// scheduled while a short fit runs, and the collector's background marking
// and sweeping starve, so the sampled heap holds garbage and comes close to
// everything the work allocated. PeakWithin measures again when a peak
// falls outside the band an estimate claims.
package memtest

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

const (
	heapObjects = "/memory/classes/heap/objects:bytes"
	heapAllocs  = "/gc/heap/allocs:bytes"
)

// Peak runs f and returns the peak heap above the start and the bytes
// allocated while it ran (see the package comment).
func Peak(f func()) (peak, total int64) {
	runtime.GC()
	old := debug.SetGCPercent(1)
	defer debug.SetGCPercent(old)
	s := []metrics.Sample{{Name: heapObjects}, {Name: heapAllocs}}
	metrics.Read(s)
	base, alloc0 := int64(s[0].Value.Uint64()), int64(s[1].Value.Uint64())
	var mu sync.Mutex
	high := int64(0)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		one := []metrics.Sample{{Name: heapObjects}}
		for {
			metrics.Read(one)
			v := int64(one[0].Value.Uint64()) - base
			mu.Lock()
			high = max(high, v)
			mu.Unlock()
			select {
			case <-done:
				return
			default:
				runtime.Gosched()
			}
		}
	})
	f()
	runtime.GC() // what the work keeps is live at the end
	metrics.Read(s)
	close(done)
	wg.Wait()
	return max(high, int64(s[0].Value.Uint64())-base), int64(s[1].Value.Uint64()) - alloc0
}

// PeakWithin is Peak for a check of the estimate est, which claims
// (est − floor) / slack ≤ peak ≤ est. A peak outside that band is measured
// again, up to three times in all, since one sample on a busy machine can
// miss the work's matrices altogether (est looks too pessimistic) or count
// garbage the collector had not yet freed (est looks too low). The first
// peak inside the band is kept, and when none is, the one nearest to it:
// a real error in est shows in all three.
func PeakWithin(est, slack, floor int64, f func()) (peak, total int64) {
	miss := func(p int64) int64 { // how far p is from the band
		switch {
		case p > est:
			return p - est
		case est > slack*p+floor:
			return est - (slack*p + floor)
		}
		return 0
	}
	for i := range 3 {
		p, t := Peak(f)
		if i == 0 || miss(p) < miss(peak) {
			peak, total = p, t
		}
		if miss(peak) == 0 {
			break
		}
	}
	return peak, total
}
