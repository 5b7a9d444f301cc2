package e2e

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// overflowJS lists the elements drawn outside their card on the page:
// for every .card, each visible descendant whose bounding box leaves the
// card's by more than a pixel (one inside a scrolling or clipping box
// below the card is that box's business, and the box is checked), and
// the page itself when it scrolls sideways.
const overflowJS = `(() => {
	const out = [];
	if (document.documentElement.scrollWidth > window.innerWidth + 1) {
		out.push("the page is " + document.documentElement.scrollWidth + " px wide in a " + window.innerWidth + " px window");
	}
	const name = (e) => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + (e.getAttribute("data-testid") ? "[" + e.getAttribute("data-testid") + "]" : "") + (e.className && typeof e.className === "string" ? "." + e.className.trim().split(/\s+/).join(".") : "");
	for (const card of document.querySelectorAll(".card")) {
		const c = card.getBoundingClientRect();
		if (c.width === 0) { continue; }
		for (const e of card.querySelectorAll("*")) {
			const r = e.getBoundingClientRect();
			if (r.width === 0 || r.height === 0 || e.closest("[hidden]")) { continue; }
			let clipped = false;
			for (let p = e.parentElement; p && p !== card; p = p.parentElement) {
				const s = getComputedStyle(p);
				if (s.overflowX !== "visible" || s.overflowY !== "visible") { clipped = true; break; }
			}
			if (clipped || getComputedStyle(e).position === "fixed") { continue; }
			if (r.left < c.left - 1 || r.right > c.right + 1 || r.top < c.top - 1 || r.bottom > c.bottom + 1) {
				out.push(name(e) + " [" + Math.round(r.left) + ", " + Math.round(r.right) + "] in " + name(card) + " [" + Math.round(c.left) + ", " + Math.round(c.right) + "]");
			}
		}
	}
	return out.slice(0, 10);
})()`

// TestBrowserCompareLayout is a researcher comparing three and then six
// jobs on one data set in a window 1024 and 1400 px wide: the page has
// one control bar (one set of axes, colour, mouse mode, density, search,
// selection and saved selections) over a grid of views, each card named
// by its method and job with its figure's links; nothing is drawn
// outside its card and the page does not scroll sideways; a lasso in the
// first job's view lights up the same rows in the last job's.
func TestBrowserCompareLayout(t *testing.T) {
	ctx := browser(t, softwareGL...)
	a := start(t, t.TempDir(), "-workers", "1")
	ds, code := a.upload("clusters.csv", clusteredCSV(300))
	if code != http.StatusCreated {
		t.Fatalf("uploading clusters.csv: got %d, want 201", code)
	}
	var ids []string
	for _, m := range []string{"pca", "mddmp", "cplst", "mlsi", "cca", "plst"} {
		id := jtSubmit(ctx, t, a, map[string]any{"dataset": ds.ID, "methods": []string{m}, "params": map[string]any{"d": 2}})
		if j := jtPoll(ctx, t, a, id, "the job finished", func(j jtJob) bool { return jtTerminal(j.Status) }); j.Status != "succeeded" {
			t.Fatalf("the %s job %s: %s", m, j.Status, j.Error)
		}
		ids = append(ids, id)
	}
	methods := []string{"pca", "mddmp", "cplst", "mlsi", "cca", "plst"}
	for _, n := range []int{3, 6} {
		for _, width := range []int64{1024, 1400} {
			t.Run(fmt.Sprintf("%d jobs at %d px", n, width), func(t *testing.T) {
				run(t, ctx, "open the compare page",
					chromedp.EmulateViewport(width, 1000),
					chromedp.Navigate(a.url+"/compare?jobs="+strings.Join(ids[:n], ",")),
					chromedp.WaitVisible(chromedp.CSS(`[data-testid="compare-bar"]`)))
				waitJS(t, ctx, "the interactive views are drawn", `!!(window.mldrExplore && (window.mldrExplore.ready || window.mldrExplore.error))`, 60*time.Second)
				if e := eval[*string](t, ctx, `window.mldrExplore.error || null`); e != nil {
					t.Fatalf("the explorer failed: %s", *e)
				}
				for _, c := range []string{"compare-bar", "explore-x", "explore-y", "explore-colour", "explore-mode", "explore-density", "explore-search", "selection-panel", "saved-panel"} {
					if got := eval[int](t, ctx, `document.querySelectorAll('[data-testid="`+c+`"]').length`); got != 1 {
						t.Errorf("%d elements %s, want 1", got, c)
					}
				}
				if got := eval[int](t, ctx, `document.querySelectorAll('[data-testid="compare-bar"] [data-testid="explore-colour"]').length`); got != 1 {
					t.Error("the colour chooser is not in the control bar")
				}
				cards := eval[[]string](t, ctx, `[...document.querySelectorAll('[data-testid="compare-view"]')].map(c => c.querySelector("h3").textContent + "|" + !!c.querySelector(".scatter-view") + "|" + !!c.querySelector("a[data-png]"))`)
				if len(cards) != n {
					t.Fatalf("got %d view cards, want %d", len(cards), n)
				}
				for i, c := range cards {
					want := eval[string](t, ctx, `window.mldrExplore.jobs["`+ids[i]+`"].views.`+methods[i]+`.state.name`) + " job " + ids[i][:8]
					if !strings.HasPrefix(c, want) || !strings.HasSuffix(c, "|true|true") {
						t.Errorf("view card %d: %q, want it headed %q with a scatter and its figure's links", i, c, want)
					}
				}
				if bad := eval[[]string](t, ctx, overflowJS); len(bad) > 0 {
					t.Errorf("drawn outside their cards:\n%s", strings.Join(bad, "\n"))
				}
				shot(t, ctx, fmt.Sprintf("compare-%d-jobs-%d", n, width))

				// Linked: a lasso in the first job's view.
				first, last := ids[0], ids[n-1]
				sel := `[data-scatter-job="` + first + `"] .scatter-view`
				lassoLeftHalf(t, ctx, "lasso the left half of the first view", sel)
				lastView := `window.mldrExplore.jobs["` + last + `"].views.` + methods[n-1]
				waitJS(t, ctx, "the last job highlights the rows", lastView+`.selectedRows.length > 0`, 10*time.Second)
				got := eval[[]int](t, ctx, lastView+`.selectedRows.sort((a, b) => a - b)`)
				want := eval[[]int](t, ctx, `window.mldrExplore.jobs["`+first+`"].views.`+methods[0]+`.selectedRows.sort((a, b) => a - b)`)
				if len(want) == 0 || !slices.Equal(got, want) {
					t.Errorf("the last job's view highlights %d rows, the first's lasso selected %d: want the same row numbers", len(got), len(want))
				}
				waitJS(t, ctx, "the bar's panel shows the statistics", `!!document.querySelector('[data-testid="compare-bar"] [data-testid="selection-labels"]')`, 10*time.Second)
			})
		}
	}
}
