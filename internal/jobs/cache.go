package jobs

import (
	"container/list"
	"sync"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/analysis"
)

// fitCache keeps the most recent decompositions by fit key, so that a job
// asking for another d (or thr) of the same method, parameters, data and
// training rows only cuts a stored decomposition (analysis.Model.Choose)
// instead of fitting again. It lives as long as the process (a worker),
// and holds at most max models and maxBytes of their matrices, so that
// what it keeps between jobs stays a small part of a worker's memory.
type fitCache struct {
	mu       sync.Mutex
	max      int
	maxBytes int64
	bytes    int64
	order    *list.List // of *cacheEntry, most recent first
	items    map[string]*list.Element
}

type cacheEntry struct {
	key   string
	model *analysis.Model
	bytes int64
	job   string // the job that fitted it
}

// CacheBudget is the most a worker whose memory limit is limit (0: none)
// keeps of fitted decompositions between jobs: a sixteenth of the limit,
// at most DefaultCacheBytes. Admission counts it in every job's peak.
func CacheBudget(limit int64) int64 {
	if limit <= 0 {
		return DefaultCacheBytes
	}
	return min(DefaultCacheBytes, limit/16)
}

func newFitCache(max int, maxBytes int64) *fitCache {
	return &fitCache{max: max, maxBytes: maxBytes, order: list.New(), items: map[string]*list.Element{}}
}

// cachedBytes is what a cached model's numbers take.
func cachedBytes(m *analysis.Model) int64 {
	n := len(m.Means) + len(m.Eigenvalues)
	for _, d := range []*mat.Dense{m.Basis, m.Projected} {
		if d != nil {
			r, c := d.Dims()
			n += r * c
		}
	}
	for _, b := range m.Blocks {
		n += len(b.Values)
	}
	return 8 * int64(n)
}

func (c *fitCache) get(key string) (*analysis.Model, string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[key]
	if !ok {
		return nil, "", false
	}
	c.order.MoveToFront(el)
	e := el.Value.(*cacheEntry)
	return e.model, e.job, true
}

func (c *fitCache) put(key string, m *analysis.Model, job string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	size := cachedBytes(m)
	if el, ok := c.items[key]; ok {
		c.order.MoveToFront(el)
		e := el.Value.(*cacheEntry)
		c.bytes += size - e.bytes
		e.model, e.bytes = m, size
	} else {
		c.items[key] = c.order.PushFront(&cacheEntry{key: key, model: m, bytes: size, job: job})
		c.bytes += size
	}
	for c.order.Len() > c.max || c.bytes > c.maxBytes && c.order.Len() > 0 {
		last := c.order.Back()
		e := last.Value.(*cacheEntry)
		c.order.Remove(last)
		delete(c.items, e.key)
		c.bytes -= e.bytes
	}
}
