package sparse

import (
	"context"
	"runtime"
	"sort"
	"sync"
)

// rounds is how many times a kernel stops between its parallel steps to
// check the context and report progress: often enough to stop within a
// few hundred milliseconds on the largest data the product takes.
const rounds = 16

// byCost runs work over the items 0…n−1 on every core, in rounds of about
// equal cost, each round split among the workers by cost. cum has n+1
// entries: cum[i] is the cost of the items before i (non-decreasing, from
// 0). Between rounds it checks ctx and calls progress (if not nil) from the
// calling goroutine with the items done; an error from either stops the
// work. Each item is done by exactly one worker, so work that writes only
// its items' outputs needs no locks and gives the same result however the
// items are split.
func byCost(ctx context.Context, cum []int64, work func(lo, hi int), progress func(done int) error) error {
	n := len(cum) - 1
	if n <= 0 {
		return ctx.Err()
	}
	total := cum[n]
	workers := max(1, runtime.GOMAXPROCS(0))
	// at is the first item whose cumulative cost reaches c.
	at := func(c int64) int {
		return sort.Search(n, func(i int) bool { return cum[i+1] > c })
	}
	nr := rounds
	if total < 1<<16 { // small: one round, no goroutines beyond the workers
		nr = 1
	}
	lo := 0
	for r := 1; r <= nr && lo < n; r++ {
		hi := n
		if r < nr {
			hi = max(lo, at(total*int64(r)/int64(nr)))
		}
		if hi > lo {
			base, span := cum[lo], cum[hi]-cum[lo]
			var wg sync.WaitGroup
			from := lo
			for w := 1; w <= workers && from < hi; w++ {
				to := hi
				if w < workers {
					to = min(hi, max(from, at(base+span*int64(w)/int64(workers))))
				}
				if to > from {
					f, t := from, to
					wg.Go(func() { work(f, t) })
				}
				from = to
			}
			wg.Wait()
		}
		lo = hi
		if err := ctx.Err(); err != nil {
			return err
		}
		if progress != nil {
			if err := progress(lo); err != nil {
				return err
			}
		}
	}
	return nil
}

// rowCosts is the cumulative cost of x's rows for a kernel that spends
// about one step per entry and one per row.
func rowCosts(x *CSR) []int64 {
	cum := make([]int64, x.R+1)
	for i := range x.R {
		cum[i+1] = x.Ptr[i+1] + int64(i+1)
	}
	return cum
}
