package explore

import (
	"errors"
	"testing"
)

func TestCache(t *testing.T) {
	one := testView() // 5 rows
	size := one.Bytes()
	c := NewCache(2 * size)
	builds := 0
	get := func(key string) *View {
		v, err := c.Get(key, func() (*View, error) { builds++; return testView(), nil })
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	a := get("a")
	if get("a") != a || builds != 1 {
		t.Errorf("a second get built again: %d builds", builds)
	}
	get("b")
	get("a") // a is now the most recent: c evicts b
	get("c")
	if builds != 3 {
		t.Fatalf("%d builds, want 3", builds)
	}
	if get("a") != a || builds != 3 {
		t.Errorf("a was evicted instead of b")
	}
	get("b")
	if builds != 4 {
		t.Errorf("b was kept: %d builds, want 4", builds)
	}
	if _, err := c.Get("x", func() (*View, error) { return nil, errors.New("no") }); err == nil {
		t.Error("a failed build: no error")
	}
	if none := NewCache(0); none != nil {
		if _, err := none.Get("a", func() (*View, error) { return testView(), nil }); err != nil || len(none.views) != 0 {
			t.Error("a cache of 0 bytes keeps views")
		}
	}
}
