package handlers

import (
	"errors"
	"io"
	"net/http"
	"testing"
	"time"
)

// chunks is a body whose every Read delivers the next chunk's size of
// bytes (0 when they are used up).
type chunks struct{ sizes []int }

func (c *chunks) Read(p []byte) (int, error) {
	if len(c.sizes) == 0 {
		return 0, nil
	}
	n := min(c.sizes[0], len(p))
	c.sizes = c.sizes[1:]
	return n, nil
}

func (c *chunks) Close() error { return nil }

// The guard measures only while the handler waits for the body, gives a
// first window of grace, and trips when a window brought less than
// rate·window bytes.
func TestRateGuard(t *testing.T) {
	const rate, window = 1000, 10 * time.Second // 10 000 bytes a window, 2 000 a tick
	for _, c := range []struct {
		name   string
		perTik []int // bytes read before each tick; -1: no read at all in that tick
		trips  int   // the tick (1-based) at which it trips; 0: never
	}{
		{"fast enough", repeat(2000, 30), 0},
		{"a trickle", repeat(1, 30), ticksPerWindow},
		{"nothing at all once started", append([]int{1}, repeat(0, 30)...), ticksPerWindow},
		{"just too slow", repeat(1999, 30), ticksPerWindow},
		{"busy elsewhere, not reading", append(repeat(2000, 3), repeat(-1, 100)...), 0},
		{"fast, then stalls", append(repeat(5000, 10), repeat(0, 10)...), 14}, // ticks 10 to 14 bring 5000 < 10 000
	} {
		t.Run(c.name, func(t *testing.T) {
			body := &chunks{}
			interrupted := 0
			g := &rateGuard{body: body, rate: rate, window: window, samples: []int64{0}, interrupt: func() { interrupted++ }}
			buf := make([]byte, 1<<16)
			tripped := 0
			for i, n := range c.perTik {
				if n >= 0 {
					body.sizes = append(body.sizes, n)
					if _, err := g.Read(buf); err != nil {
						break
					}
				}
				if g.tick() {
					tripped = i + 1
					break
				}
			}
			if tripped != c.trips {
				t.Fatalf("got tripped at tick %d, want %d", tripped, c.trips)
			}
			if c.trips == 0 {
				return
			}
			if interrupted != 1 {
				t.Errorf("got %d interruptions of the read under way, want 1", interrupted)
			}
			_, err := g.Read(buf)
			var he *httpError
			if !errors.As(err, &he) || he.status != http.StatusRequestTimeout ||
				he.msg != "the upload was slower than 1000 B/s for 10 s; try again on a faster connection" {
				t.Errorf("a read after the guard tripped: got %v, want 408 and the sentence", err)
			}
		})
	}
}

func repeat(v, n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = v
	}
	return s
}

var _ io.ReadCloser = (*chunks)(nil)
