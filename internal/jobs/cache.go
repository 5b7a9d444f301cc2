package jobs

import (
	"container/list"
	"sync"

	"mldr/internal/analysis"
)

// fitCache keeps the most recent decompositions by fit key, so that a job
// asking for another d (or thr) of the same method, parameters, data and
// training rows only cuts a stored decomposition (analysis.Model.Choose)
// instead of fitting again. It lives as long as the process.
type fitCache struct {
	mu    sync.Mutex
	max   int
	order *list.List // of *cacheEntry, most recent first
	items map[string]*list.Element
}

type cacheEntry struct {
	key   string
	model *analysis.Model
	job   string // the job that fitted it
}

func newFitCache(max int) *fitCache {
	return &fitCache{max: max, order: list.New(), items: map[string]*list.Element{}}
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
	if el, ok := c.items[key]; ok {
		c.order.MoveToFront(el)
		el.Value.(*cacheEntry).model = m
		return
	}
	c.items[key] = c.order.PushFront(&cacheEntry{key: key, model: m, job: job})
	for c.order.Len() > c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.items, last.Value.(*cacheEntry).key)
	}
}
