package main

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

// fakeClock advances by the next of its steps each time a run ends, so
// that run i takes steps[i].
type fakeClock struct {
	t     time.Time
	steps []time.Duration
	ran   int
}

func (c *fakeClock) now() time.Time { return c.t }

func (c *fakeClock) run() error {
	c.t = c.t.Add(c.steps[c.ran])
	c.ran++
	return nil
}

func TestTimeRuns(t *testing.T) {
	s := time.Second
	for _, tc := range []struct {
		name       string
		reps       int
		under      time.Duration
		steps      []time.Duration
		wantTimes  []time.Duration
		wantWarmup time.Duration
	}{
		{"cheap: the first run is a warm-up", 3, 2 * s, []time.Duration{s, s / 2, s / 2, s / 2}, []time.Duration{s / 2, s / 2, s / 2}, s},
		{"costly: the first run counts", 3, 2 * s, []time.Duration{5 * s, 4 * s, 4 * s}, []time.Duration{5 * s, 4 * s, 4 * s}, 0},
		{"exactly the limit counts", 1, 2 * s, []time.Duration{2 * s}, []time.Duration{2 * s}, 0},
		{"no warm-up asked", 2, 0, []time.Duration{s, s}, []time.Duration{s, s}, 0},
		{"only the first run can be a warm-up", 2, 2 * s, []time.Duration{s, s, s}, []time.Duration{s, s}, s},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &fakeClock{steps: tc.steps}
			settled := 0
			times, warmup, err := timeRuns(context.Background(), tc.reps, tc.under, c.now, func() { settled++ }, c.run)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(times, tc.wantTimes) || warmup != tc.wantWarmup {
				t.Errorf("got times %v and warm-up %v, want %v and %v", times, warmup, tc.wantTimes, tc.wantWarmup)
			}
			if c.ran != len(tc.steps) || settled != c.ran {
				t.Errorf("got %d runs and %d settles, want %d of each", c.ran, settled, len(tc.steps))
			}
		})
	}
}

func TestTimeRunsErrors(t *testing.T) {
	boom := errors.New("boom")
	if _, _, err := timeRuns(context.Background(), 2, 0, time.Now, func() {}, func() error { return boom }); !errors.Is(err, boom) {
		t.Errorf("a failing run: got %v, want %v", err, boom)
	}
	if _, _, err := timeRuns(context.Background(), 0, 0, time.Now, func() {}, func() error { return nil }); err == nil {
		t.Error("reps = 0: got nil, want an error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	runs := 0
	_, _, err := timeRuns(ctx, 3, 0, time.Now, func() {}, func() error { runs++; cancel(); return nil })
	if !errors.Is(err, context.Canceled) || runs != 1 {
		t.Errorf("canceled during the first run: got %v after %d runs, want context.Canceled after 1", err, runs)
	}
}
