package handlers

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"mldr/internal/store"
)

// Defaults of the minimum rate at which an upload's body must arrive:
// slower for a whole window and the request ends with 408, freeing its
// upload slot, so that a few slow clients cannot hold every slot until
// the server's read timeout.
const (
	DefaultMinUploadRate   = 10 << 10 // bytes a second
	DefaultMinUploadWindow = 20 * time.Second
)

// ticksPerWindow is how often in a window the rate is measured.
const ticksPerWindow = 5

// Ticker returns a channel that delivers a time every d, and a function
// that stops it; see Config.UploadTicker.
type Ticker func(d time.Duration) (<-chan time.Time, func())

func realTicker(d time.Duration) (<-chan time.Time, func()) {
	t := time.NewTicker(d)
	return t.C, t.Stop
}

// rateGuard watches a request body: when, over the last window of time in
// which the handler was waiting for the body, fewer than rate·window bytes
// arrived, it ends the body's reads with a 408 and interrupts the read in
// progress. Time the handler spends on other things (parsing what it has,
// storing the data set) does not count: no read is under way then. The
// first window is the grace period.
type rateGuard struct {
	body   io.ReadCloser
	rate   int64 // bytes a second
	window time.Duration
	// interrupt ends a read in progress (a read deadline in the past).
	interrupt func()

	total   atomic.Int64 // bytes read so far
	reads   atomic.Int64 // reads begun
	reading atomic.Int32 // reads under way
	tripped atomic.Bool

	// The watchdog's own state.
	lastReads int64
	samples   []int64 // total at each tick the handler was waiting, the last ticksPerWindow+1
}

// slowUpload is the refusal of an upload that came too slowly.
func (g *rateGuard) slowUpload() *httpError {
	secs := strconv.FormatFloat(g.window.Seconds(), 'f', -1, 64)
	return &httpError{status: http.StatusRequestTimeout, field: "file", msg: fmt.Sprintf(
		"the upload was slower than %s/s for %s s; try again on a faster connection", store.FormatBytes(g.rate), secs)}
}

func (g *rateGuard) Read(p []byte) (int, error) {
	if g.tripped.Load() {
		return 0, g.slowUpload()
	}
	g.reads.Add(1)
	g.reading.Add(1)
	n, err := g.body.Read(p)
	g.reading.Add(-1)
	g.total.Add(int64(n))
	if g.tripped.Load() {
		return n, g.slowUpload()
	}
	return n, err
}

func (g *rateGuard) Close() error { return g.body.Close() }

// tick measures at one tick of the watchdog and reports whether the body
// came too slowly (and then trips the guard).
func (g *rateGuard) tick() bool {
	reads := g.reads.Load()
	waiting := g.reading.Load() > 0 || reads != g.lastReads
	g.lastReads = reads
	if !waiting {
		return false
	}
	g.samples = append(g.samples, g.total.Load())
	if len(g.samples) > ticksPerWindow+1 {
		g.samples = append(g.samples[:0], g.samples[1:]...)
	}
	if len(g.samples) <= ticksPerWindow {
		return false
	}
	got := g.samples[ticksPerWindow] - g.samples[0]
	if float64(got) >= float64(g.rate)*g.window.Seconds() {
		return false
	}
	g.tripped.Store(true)
	g.interrupt()
	return true
}

// watch runs the watchdog until stop is closed or the guard trips.
func (g *rateGuard) watch(ticks <-chan time.Time, stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		case <-ticks:
			if g.tick() {
				return
			}
		}
	}
}

// slowWriter answers 408 in place of whatever the handler answers once
// its body was cut off for being too slow: the handler may have wrapped
// the read error into a refusal of its own.
type slowWriter struct {
	http.ResponseWriter
	g       *rateGuard
	h       *handler
	r       *http.Request
	decided bool
	swallow bool
}

func (w *slowWriter) decide() {
	if w.decided {
		return
	}
	w.decided = true
	if w.g.tripped.Load() {
		w.swallow = true
		for _, k := range []string{"Location", "Content-Disposition", "Content-Length", "Content-Type"} {
			w.ResponseWriter.Header().Del(k)
		}
		// Cutting the body off ended the request's context; the page
		// still renders.
		w.h.fail(w.ResponseWriter, w.r.WithContext(context.WithoutCancel(w.r.Context())), w.g.slowUpload())
	}
}

func (w *slowWriter) WriteHeader(code int) {
	if w.decide(); !w.swallow {
		w.ResponseWriter.WriteHeader(code)
	}
}

func (w *slowWriter) Write(b []byte) (int, error) {
	if w.decide(); w.swallow {
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection.
func (w *slowWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// minUploadRate applies the minimum rate to r's body while next runs.
func (h *handler) minUploadRate(w http.ResponseWriter, r *http.Request, next http.Handler) {
	if h.minRate <= 0 || r.Body == nil || r.Body == http.NoBody {
		next.ServeHTTP(w, r)
		return
	}
	rc := http.NewResponseController(w)
	g := &rateGuard{body: r.Body, rate: h.minRate, window: h.minWindow, samples: []int64{0},
		interrupt: func() {
			if err := rc.SetReadDeadline(time.Now()); err != nil {
				h.log.Warn("cannot interrupt a slow upload", "path", r.URL.Path, "err", err)
			}
		}}
	ticks, stopTicker := h.ticker(h.minWindow / ticksPerWindow)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { g.watch(ticks, stop) })
	defer func() {
		close(stop)
		wg.Wait()
		stopTicker()
	}()
	r.Body = g
	sw := &slowWriter{ResponseWriter: w, g: g, h: h, r: r}
	next.ServeHTTP(sw, r)
	sw.decide() // a handler that wrote nothing
	if g.tripped.Load() {
		h.log.Warn("a slow upload was cut off", "client", h.client(r), "path", r.URL.Path, "bytes", g.total.Load())
	}
}
