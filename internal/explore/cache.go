package explore

import (
	"slices"
	"sync"
)

// Cache keeps the views a server built most recently, so that the
// explorer's requests on a large job (a selection, a search, the values
// of a colour) do not read its files again: at most Bytes of them, the
// least recently used given up first. Safe for concurrent use.
type Cache struct {
	max   int64
	mu    sync.Mutex
	used  int64
	order []string // least recently used first
	views map[string]*View
}

// NewCache returns a cache of at most maxBytes of views (0: none kept).
func NewCache(maxBytes int64) *Cache {
	return &Cache{max: maxBytes, views: map[string]*View{}}
}

// Bytes is about what the view holds.
func (v *View) Bytes() int64 {
	return int64(len(v.Number))*4 + int64(len(v.Fold))*4 + int64(len(v.part)) + int64(len(v.at))*4 +
		int64(len(v.labels.Start)+len(v.labels.Index))*4
}

// Get returns the view under key, built by build when the cache does not
// have it. Two requests for a missing key may both build it.
func (c *Cache) Get(key string, build func() (*View, error)) (*View, error) {
	c.mu.Lock()
	if v, ok := c.views[key]; ok {
		c.touch(key)
		c.mu.Unlock()
		return v, nil
	}
	c.mu.Unlock()
	v, err := build()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.views[key]; ok || v.Bytes() > c.max {
		return v, nil
	}
	for c.used+v.Bytes() > c.max && len(c.order) > 0 {
		old := c.order[0]
		c.order = c.order[1:]
		c.used -= c.views[old].Bytes()
		delete(c.views, old)
	}
	c.views[key] = v
	c.order = append(c.order, key)
	c.used += v.Bytes()
	return v, nil
}

// touch makes key the most recently used.
func (c *Cache) touch(key string) {
	at := slices.Index(c.order, key)
	c.order = append(slices.Delete(c.order, at, at+1), key)
}
