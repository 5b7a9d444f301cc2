package linsvm

import (
	"context"
	"runtime"
	"sync"
)

// TrainAll fits every problem of groups on the same rows x, a group's
// problems one after the other on one generator started by NewRand (as
// one liblinear-train process fits the one-vs-rest SVMs of a multi-class
// problem), the groups at once on up to GOMAXPROCS goroutines: a result
// does not depend on which goroutine fits it or when. progress, when not
// nil, is called after each problem with the number done and the total,
// from one goroutine at a time. The first error (a cancelled ctx) stops
// the other fits and is returned.
func TrainAll(ctx context.Context, x *Rows, groups [][]Problem, p Params, progress func(done, total int)) ([][]*Model, error) {
	models := make([][]*Model, len(groups))
	total := 0
	for _, g := range groups {
		total += len(g)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan int)
	var mu sync.Mutex
	var first error
	done := 0
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if first == nil {
			first = err
			cancel()
		}
	}
	var wg sync.WaitGroup
	for range max(1, min(runtime.GOMAXPROCS(0), len(groups))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range next {
				rng := NewRand()
				ms := make([]*Model, len(groups[k]))
				for i, prob := range groups[k] {
					m, err := Train(ctx, x, prob, p, rng)
					if err != nil {
						fail(err)
						break
					}
					ms[i] = m
					mu.Lock()
					done++
					if progress != nil {
						progress(done, total)
					}
					mu.Unlock()
				}
				models[k] = ms
			}
		}()
	}
feed:
	for k := range groups {
		select {
		case next <- k:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if first != nil {
		return nil, first
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return models, nil
}
