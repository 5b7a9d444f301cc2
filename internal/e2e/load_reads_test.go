//go:build load

package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"
)

// ldBoard is what the readers know of the load: the data sets, and the
// jobs with the status their event streams last showed.
type ldBoard struct {
	datasets []string

	mu     sync.Mutex
	jobs   []string
	status map[string]string
}

func (b *ldBoard) set(id, status string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.status[id]; !ok {
		b.jobs = append(b.jobs, id)
	}
	b.status[id] = status
}

// pick returns a random job whose status satisfies want, if there is one.
func (b *ldBoard) pick(rng *rand.Rand, want func(status string) bool) (string, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var ids []string
	for _, id := range b.jobs {
		if want(b.status[id]) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return "", false
	}
	return ids[rng.IntN(len(ids))], true
}

// ldRoute is a kind of read: its name in the report and how to make its
// path from what is known (false: none can be made yet).
type ldRoute struct {
	kind string
	path func(b *ldBoard, rng *rand.Rand) (string, bool)
}

// ldRoutes are the reads the readers go round: the pages a person opens
// while jobs run and the API reads a script makes.
func ldRoutes() []ldRoute {
	fixed := func(p string) func(*ldBoard, *rand.Rand) (string, bool) {
		return func(*ldBoard, *rand.Rand) (string, bool) { return p, true }
	}
	dataset := func(prefix, suffix string) func(*ldBoard, *rand.Rand) (string, bool) {
		return func(b *ldBoard, rng *rand.Rand) (string, bool) {
			return prefix + b.datasets[rng.IntN(len(b.datasets))] + suffix, true
		}
	}
	job := func(prefix, suffix string, want func(string) bool) func(*ldBoard, *rand.Rand) (string, bool) {
		return func(b *ldBoard, rng *rand.Rand) (string, bool) {
			id, ok := b.pick(rng, want)
			return prefix + id + suffix, ok
		}
	}
	anyStatus := func(string) bool { return true }
	unfinished := func(s string) bool { return !jtTerminal(s) }
	succeeded := func(s string) bool { return s == "succeeded" }
	return []ldRoute{
		{"GET /healthz (control: no work, no lock)", fixed("/healthz")},
		{"page /", fixed("/")},
		{"page /datasets/{id}", dataset("/datasets/", "")},
		{"page /jobs", fixed("/jobs")},
		{"page /jobs/{id}, queued or running", job("/jobs/", "", unfinished)},
		{"page /jobs/{id}, succeeded (results)", job("/jobs/", "", succeeded)},
		{"GET /api/datasets", fixed("/api/datasets")},
		{"GET /api/datasets/{id}", dataset("/api/datasets/", "")},
		{"GET /api/jobs", fixed("/api/jobs")},
		{"GET /api/jobs/{id}", job("/api/jobs/", "", anyStatus)},
		{"GET /api/jobs/{id}/plots/curves.svg", job("/api/jobs/", "/plots/curves.svg", succeeded)},
	}
}

// ldReads collects the readers' latencies and failures per kind of read.
type ldReads struct {
	mu     sync.Mutex
	took   map[string][]time.Duration
	failed map[string]int
	errors []string // the first few
}

func (r *ldReads) add(kind string, d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.took[kind] = append(r.took[kind], d)
}

func (r *ldReads) fail(kind, msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed[kind]++
	if len(r.errors) < 10 {
		r.errors = append(r.errors, msg)
	}
}

// summary returns the statistics of each kind of read, in the order of
// ldRoutes.
func (r *ldReads) summary() []ldRouteStats {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []ldRouteStats
	for _, rt := range ldRoutes() {
		out = append(out, ldRouteStats{Kind: rt.kind, Failures: r.failed[rt.kind], Took: slices.Clone(r.took[rt.kind])})
	}
	return out
}

// ldRead is reader k: it goes round the routes, from the k-th, with
// ldReadPause between reads, until ctx ends. A read cut short by the end
// of ctx is not counted. It does not touch t.
func ldRead(ctx context.Context, c *http.Client, url string, b *ldBoard, reads *ldReads, k int) {
	rng := rand.New(rand.NewPCG(2, uint64(k)))
	routes := ldRoutes()
	for i := k; ctx.Err() == nil; i++ {
		rt := routes[i%len(routes)]
		p, ok := rt.path(b, rng)
		if !ok {
			continue
		}
		rctx, cancel := context.WithTimeout(ctx, ldReadTimeout)
		t0 := time.Now()
		r, err := ldSend(rctx, c, "GET", url+p, "", nil, -1)
		took := time.Since(t0)
		cancel()
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			reads.fail(rt.kind, fmt.Sprintf("GET %s: %v", p, err))
		case r.Status != http.StatusOK:
			reads.fail(rt.kind, fmt.Sprintf("GET %s: got status %d, want 200: %.200s", p, r.Status, r.Body))
		default:
			reads.add(rt.kind, took)
		}
		ldSleep(ctx, ldReadPause)
	}
}

// ldReaderPool is ldReaders readers at work.
type ldReaderPool struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	reads  *ldReads
}

// ldStartReaders starts ldReaders readers, reader k on server k of urls
// in turn, which read until stop or the end of ctx.
func ldStartReaders(ctx context.Context, c *http.Client, urls []string, b *ldBoard) *ldReaderPool {
	ctx, cancel := context.WithCancel(ctx)
	p := &ldReaderPool{cancel: cancel, reads: &ldReads{took: map[string][]time.Duration{}, failed: map[string]int{}}}
	for k := range ldReaders {
		p.wg.Go(func() { ldRead(ctx, c, urls[k%len(urls)], b, p.reads, k) })
	}
	return p
}

// stop stops the readers and returns their statistics, failing the test
// for every read that failed (what names the phase).
func (p *ldReaderPool) stop(t *testing.T, what string) []ldRouteStats {
	t.Helper()
	p.cancel()
	ldWait(t, &p.wg, "the readers", ldReadTimeout+time.Minute)
	stats := p.reads.summary()
	for _, rs := range stats {
		if rs.Failures > 0 {
			t.Errorf("reads %s: %d of %q failed", what, rs.Failures, rs.Kind)
		}
	}
	for _, e := range p.reads.errors {
		t.Errorf("a read %s failed: %s", what, e)
	}
	return stats
}
