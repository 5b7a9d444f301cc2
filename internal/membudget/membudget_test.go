package membudget

import (
	"errors"
	"strings"
	"sync"
	"testing"
)

// TestBudget checks the claims' arithmetic: growing, never shrinking,
// refusing alone and beside others, releasing, and no limit.
func TestBudget(t *testing.T) {
	b := New(1000)
	a, c := b.Claim("upload a"), b.Claim("upload c")
	steps := []struct {
		claim       *Claim
		total, rows int64
		busy, fails bool
		used        int64
	}{
		{a, 300, 0, false, false, 300},
		{a, 200, 0, false, false, 300}, // a claim never shrinks
		{c, 600, 10, false, false, 900},
		{a, 500, 0, true, true, 900},     // fits alone, not beside c
		{c, 1200, 100, false, true, 900}, // never fits
	}
	for i, s := range steps {
		err := s.claim.Grow(s.total, s.rows)
		var e *Error
		if s.fails != (err != nil) || (err != nil && (!errors.As(err, &e) || e.Busy != s.busy)) {
			t.Errorf("step %d: Grow(%d): got %v, want failing %v, busy %v", i, s.total, err, s.fails, s.busy)
		}
		if b.Used() != s.used {
			t.Errorf("step %d: Used: got %d, want %d", i, b.Used(), s.used)
		}
	}
	c.Release()
	c.Release()
	if b.Used() != 300 {
		t.Errorf("after releasing c: Used %d, want 300", b.Used())
	}
	if err := a.Grow(1000, 0); err != nil {
		t.Errorf("a alone up to the limit: got %v", err)
	}
	a.Release()
	if b.Used() != 0 {
		t.Errorf("after releasing every claim: Used %d, want 0", b.Used())
	}
	none := New(0).Claim("x")
	if err := none.Grow(1<<50, 0); err != nil {
		t.Errorf("no limit: got %v", err)
	}
	var nilBudget *Budget
	if err := nilBudget.Claim("x").Grow(1<<50, 0); err != nil || nilBudget.Limit() != 0 {
		t.Errorf("a nil budget: got %v", err)
	}
}

// TestBudgetConcurrent has goroutines claim and release at once; the
// budget never exceeds its limit and ends at zero.
func TestBudgetConcurrent(t *testing.T) {
	b := New(1 << 20)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 1000 {
				c := b.Claim("x")
				for k := int64(1); k <= 4; k++ {
					if c.Grow(k*int64(g+i%7+1)<<12, 0) != nil {
						break
					}
					if u := b.Used(); u > 1<<20 {
						t.Errorf("Used %d beyond the limit", u)
					}
				}
				c.Release()
			}
		})
	}
	wg.Wait()
	if b.Used() != 0 {
		t.Errorf("Used %d at the end, want 0", b.Used())
	}
}

// TestErrorSays checks the two refusals' sentences.
func TestErrorSays(t *testing.T) {
	tooLarge := (&Error{What: "this file", Need: 3 << 30, Limit: 1 << 30, Rows: 3000000}).Error()
	for _, want := range []string{"this file would need about 3.0 GiB", "more than the 1.0 GiB", "-max-upload-memory", "about 900 000 rows"} {
		if !strings.Contains(tooLarge, want) {
			t.Errorf("too large: %q lacks %q", tooLarge, want)
		}
	}
	busy := (&Error{What: "this file", Need: 300 << 20, Limit: 1 << 30, Others: 900 << 20, Busy: true}).Error()
	for _, want := range []string{"needs about 300.0 MiB", "hold 900.0 MiB of the 1.0 GiB", "try again"} {
		if !strings.Contains(busy, want) {
			t.Errorf("busy: %q lacks %q", busy, want)
		}
	}
	if got := Bytes(512); got != "512 B" {
		t.Errorf("Bytes(512): got %q", got)
	}
}
