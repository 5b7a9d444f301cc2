package dataset

import (
	"fmt"
	"runtime"
	"sync"
)

// minPartCells is the fewest cells inParts gives a goroutine: below about
// a megabyte of float64s, starting goroutines costs more than the pass.
const minPartCells = 1 << 17

// inParts splits the rows [0, n), of cols cells each, into up to
// GOMAXPROCS consecutive parts of at least minPartCells cells, calls f on
// each in its own goroutine (on the caller's alone when there is one
// part), and waits for them. The passes over a whole matrix that end a
// load (zeroVariance, nonZeros, Validate) are memory-bound, and a second
// core nearly doubles the bandwidth one goroutine gets.
func inParts(n, cols int, f func(lo, hi int)) {
	parts := 1
	if cells := n * cols; cells >= 2*minPartCells {
		parts = max(1, min(runtime.GOMAXPROCS(0), cells/minPartCells, n))
	}
	if parts == 1 {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	panics := make([]any, parts)
	for p := range parts {
		lo, hi := p*n/parts, (p+1)*n/parts
		wg.Go(func() {
			defer func() { panics[p] = recover() }()
			f(lo, hi)
		})
	}
	wg.Wait()
	repanic(panics)
}

// repanic panics, in the caller's goroutine, with the first of the
// values its helpers recovered, if any. A panic in a goroutine of its own
// would end the process; in the caller's, it reaches the recovery that
// guards the caller's work (a request's, an upload's reading, a job's).
func repanic(panics []any) {
	for _, v := range panics {
		if v != nil {
			panic(fmt.Sprintf("in a part of a pass over the data: %v", v))
		}
	}
}
