package e2e

import (
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserExploreMillions opens the job page of a pca job on 1.5
// million rows (the scale of AmazonCat-13K's rows, on a small file of 6
// features) in headless Chromium with software WebGL: the interactive
// view loads and draws every row within two minutes, and the page stays
// responsive after it: a burst of keyboard pans is handled, and a script
// run afterwards answers within a second (a frozen tab would not).
func TestBrowserExploreMillions(t *testing.T) {
	if testing.Short() {
		t.Skip("uploads and projects 1.5 million rows")
	}
	const n = 1_500_000
	ctx := browser(t, softwareGL...)
	a := start(t, t.TempDir(), "-workers", "1")
	ds, code := a.upload("millions.csv", clusteredCSV(n))
	if code != http.StatusCreated {
		t.Fatalf("uploading: got %d, want 201", code)
	}
	id := jtSubmit(ctx, t, a, map[string]any{"dataset": ds.ID, "method": "pca", "params": map[string]any{"d": 2}})
	if j := jtPoll(ctx, t, a, id, "the job finished", func(j jtJob) bool { return jtTerminal(j.Status) }); j.Status != "succeeded" {
		t.Fatalf("the job %s: %s", j.Status, j.Error)
	}
	start := time.Now()
	run(t, ctx, "open the job", chromedp.Navigate(a.url+"/jobs/"+id), chromedp.WaitVisible(chromedp.CSS(`[data-testid="results"]`)))
	waitJS(t, ctx, "the interactive view is drawn", `!!(window.mldrExplore && (window.mldrExplore.ready || window.mldrExplore.error))`, 2*time.Minute)
	ready := time.Since(start)
	shot(t, ctx, "explore-millions")
	if e := eval[*string](t, ctx, `window.mldrExplore.error || null`); e != nil {
		t.Fatalf("the explorer failed: %s", *e)
	}
	st := eval[map[string]any](t, ctx, `(() => { const s = window.mldrExplore.views.pca.state; return {rows: s.rows, shown: s.shown, drawn: s.drawn}; })()`)
	if st["rows"] != float64(n) || st["shown"] != float64(n) || st["drawn"] != true {
		t.Errorf("pca's view: %v, want %d rows shown and drawn", st, n)
	}
	pans := eval[float64](t, ctx, `(() => { const t = performance.now(); const e = document.querySelector('[data-testid="scatter-pca"]'); for (let i = 0; i < 20; i++) e.dispatchEvent(new KeyboardEvent("keydown", {key: i % 2 ? "ArrowLeft" : "ArrowUp"})); return performance.now() - t; })()`)
	probe := time.Now()
	eval[float64](t, ctx, `1`)
	if wait := time.Since(probe); wait > time.Second {
		t.Errorf("a script after the pans waited %v for the page, want under a second", wait)
	}
	t.Logf("%d rows: page and view ready in %v, 20 keyboard pans handled in %.0f ms", n, ready, pans)
}
