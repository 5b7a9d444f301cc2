package e2e

import (
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// axesOverlapJS lists the axes' texts that leave their view or overlap
// another text of the same axes, for every view on the page.
const axesOverlapJS = `(() => {
	const out = [];
	for (const svg of document.querySelectorAll('[data-testid="scatter-axes"]')) {
		const v = svg.closest(".scatter-view").getBoundingClientRect();
		const boxes = [...svg.querySelectorAll("text")].map((t) => ({ s: t.textContent, r: t.getBoundingClientRect() }));
		for (const b of boxes) {
			if (b.r.left < v.left - 0.5 || b.r.right > v.right + 0.5 || b.r.top < v.top - 0.5 || b.r.bottom > v.bottom + 0.5) { out.push(b.s + " leaves its view"); }
		}
		for (let i = 0; i < boxes.length; i++) {
			for (let j = i + 1; j < boxes.length; j++) {
				const a = boxes[i].r, b = boxes[j].r;
				if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) { out.push(boxes[i].s + " overlaps " + boxes[j].s); }
			}
		}
	}
	return out.slice(0, 10);
})()`

// axisState is what a view's axes show (views.<id>.axes).
type axisState struct {
	Component int       `json:"component"`
	Domain    []float64 `json:"domain"`
	Values    []float64 `json:"values"`
	Step      float64   `json:"step"`
	Labels    []string  `json:"labels"`
}

type axesState struct {
	X axisState `json:"x"`
	Y axisState `json:"y"`
}

// figureRange is the range of a static projection's axes, from its
// data-meta.
type figureRange struct {
	XMin float64 `json:"xmin"`
	XMax float64 `json:"xmax"`
	YMin float64 `json:"ymin"`
	YMax float64 `json:"ymax"`
}

// checkAxis says what is wrong with an axis whose view starts where the
// static figure's axis [lo, hi] does: its window must be that range, its
// ticks span it to within a step, and at least min of them carry a label.
func checkAxis(name string, a axisState, lo, hi float64, min int) []string {
	var bad []string
	if len(a.Domain) != 2 || len(a.Values) == 0 || !(a.Step > 0) {
		return []string{fmt.Sprintf("%s: no ticks (%+v)", name, a)}
	}
	tol := 1e-3 * (hi - lo)
	if math.Abs(a.Domain[0]-lo) > tol || math.Abs(a.Domain[1]-hi) > tol {
		bad = append(bad, fmt.Sprintf("%s: the view shows [%g, %g], the static figure [%g, %g]", name, a.Domain[0], a.Domain[1], lo, hi))
	}
	first, last := a.Values[0], a.Values[len(a.Values)-1]
	if first < lo-tol || first-lo > a.Step || last > hi+tol || hi-last > a.Step {
		bad = append(bad, fmt.Sprintf("%s: ticks from %g to %g by %g, want them to span the static figure's [%g, %g] within a step", name, first, last, a.Step, lo, hi))
	}
	if len(a.Labels) < min {
		bad = append(bad, fmt.Sprintf("%s: %d tick labels %q, want at least %d", name, len(a.Labels), a.Labels, min))
	}
	return bad
}

// TestBrowserExploreAxes is a researcher reading values off the
// interactive scatters: each view has ticks and values along two edges
// and the components' names as the static figure has them, starting on
// the static figure's range; zooming with the keyboard changes the ticks,
// 0 brings them back, and the lasso still selects through the axes. On
// the compare page, three jobs at 1024 px, every small view has its axes
// with values that neither overlap nor leave the view.
func TestBrowserExploreAxes(t *testing.T) {
	ctx := browser(t, softwareGL...)
	a := start(t, t.TempDir(), "-workers", "1")
	ds, code := a.upload("clusters.csv", clusteredCSV(300))
	if code != http.StatusCreated {
		t.Fatalf("uploading clusters.csv: got %d, want 201", code)
	}
	var ids []string
	for _, ms := range [][]string{{"pca", "mddmp"}, {"cplst"}, {"cca"}} {
		id := jtSubmit(ctx, t, a, map[string]any{"dataset": ds.ID, "methods": ms, "params": map[string]any{"d": 2}})
		if j := jtPoll(ctx, t, a, id, "the job finished", func(j jtJob) bool { return jtTerminal(j.Status) }); j.Status != "succeeded" {
			t.Fatalf("the %v job %s: %s", ms, j.Status, j.Error)
		}
		ids = append(ids, id)
	}

	run(t, ctx, "open the job", chromedp.EmulateViewport(1400, 1000), chromedp.Navigate(a.url+"/jobs/"+ids[0]), chromedp.WaitVisible(chromedp.CSS(`[data-testid="results"]`)))
	waitJS(t, ctx, "the interactive views are drawn", `!!(window.mldrExplore && (window.mldrExplore.ready || window.mldrExplore.error))`, 60*time.Second)
	if e := eval[*string](t, ctx, `window.mldrExplore.error || null`); e != nil {
		t.Fatalf("the explorer failed: %s", *e)
	}
	waitJS(t, ctx, "the axes are drawn", `!!(window.mldrExplore.views.pca.axes && window.mldrExplore.views.mddmp.axes)`, 10*time.Second)
	for _, m := range []string{"pca", "mddmp"} {
		fig := eval[figureRange](t, ctx, `JSON.parse(document.querySelector('figure#projection-`+m+`').getAttribute("data-meta"))`)
		ax := eval[axesState](t, ctx, `window.mldrExplore.views.`+m+`.axes`)
		bad := append(checkAxis(m+"'s x axis", ax.X, fig.XMin, fig.XMax, 3), checkAxis(m+"'s y axis", ax.Y, fig.YMin, fig.YMax, 3)...)
		for _, b := range bad {
			t.Error(b)
		}
		sel := `[data-testid="scatter-` + m + `"] [data-testid="scatter-axes"]`
		if got := eval[int](t, ctx, `document.querySelectorAll('`+sel+` text[data-axis="x"]').length`); got != len(ax.X.Labels) || got == 0 {
			t.Errorf("%s: %d x tick labels drawn, the state says %d", m, got, len(ax.X.Labels))
		}
		names := eval[[]string](t, ctx, `[...document.querySelectorAll('`+sel+` .axis-name')].map((e) => e.textContent)`)
		if len(names) != 2 || !strings.Contains(names[0], "component 1") || !strings.Contains(names[1], "component 2") {
			t.Errorf("%s's axes are named %q, want component 1 and component 2 as the static figure", m, names)
		}
	}
	if bad := eval[[]string](t, ctx, axesOverlapJS); len(bad) > 0 {
		t.Errorf("the axes' texts on the job page:\n%s", strings.Join(bad, "\n"))
	}
	shot(t, ctx, "45-explore-axes")

	// Zoom in with the keyboard: the window shrinks and the ticks change;
	// 0 brings back the static figure's range.
	before := eval[axesState](t, ctx, `window.mldrExplore.views.pca.axes`)
	run(t, ctx, "focus pca's view", chromedp.Focus(chromedp.CSS(`[data-testid="scatter-pca"]`)))
	for range 4 {
		run(t, ctx, "zoom in with +", chromedp.KeyEvent("+"))
	}
	waitJS(t, ctx, "the axes follow the zoom", `(() => { const a = window.mldrExplore.views.pca.axes; return a.x.domain[1] - a.x.domain[0] < 0.5 * `+ftoa(before.X.Domain[1]-before.X.Domain[0])+`; })()`, 5*time.Second)
	zoomed := eval[axesState](t, ctx, `window.mldrExplore.views.pca.axes`)
	if zoomed.X.Step >= before.X.Step || fmt.Sprint(zoomed.X.Values) == fmt.Sprint(before.X.Values) || fmt.Sprint(zoomed.Y.Values) == fmt.Sprint(before.Y.Values) {
		t.Errorf("zoomed in, the ticks are x %v (step %g), y %v; before x %v (step %g), y %v: want finer ticks", zoomed.X.Values, zoomed.X.Step, zoomed.Y.Values, before.X.Values, before.X.Step, before.Y.Values)
	}
	if len(zoomed.X.Labels) < 3 || len(zoomed.Y.Labels) < 3 {
		t.Errorf("zoomed in, the labels are x %q and y %q: want at least 3 of each", zoomed.X.Labels, zoomed.Y.Labels)
	}
	run(t, ctx, "pan right with an arrow", chromedp.KeyEvent(kb.ArrowRight))
	waitJS(t, ctx, "the axes follow the pan", `window.mldrExplore.views.pca.axes.x.domain[0] > `+ftoa(zoomed.X.Domain[0]), 5*time.Second)
	shot(t, ctx, "46-explore-axes-zoomed")
	run(t, ctx, "reset with 0", chromedp.KeyEvent("0"))
	waitJS(t, ctx, "the axes follow the reset", `(() => { const d = window.mldrExplore.views.pca.axes.x.domain; return Math.abs(d[0] - `+ftoa(before.X.Domain[0])+`) < 1e-6 * Math.abs(d[1] - d[0]); })()`, 5*time.Second)

	// The lasso through the axes' layer.
	eval[bool](t, ctx, `(() => { document.querySelector('[data-testid="scatter-pca"]').scrollIntoView({block: "center"}); return true; })()`)
	time.Sleep(300 * time.Millisecond)
	box := eval[[]float64](t, ctx, `(() => { const r = document.querySelector('[data-testid="scatter-pca"]').getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })()`)
	cx, cy := box[0]+box[2]/2, box[1]+box[3]/2
	var lasso [][2]float64
	for k := 0; k <= 24; k++ {
		a := math.Pi/2 + math.Pi*float64(k)/24
		lasso = append(lasso, [2]float64{cx + 0.05*box[2] + 0.5*box[2]*math.Cos(a), cy - 0.48*box[3]*math.Sin(a)})
	}
	drag(t, ctx, "lasso the left half of pca", true, lasso)
	waitJS(t, ctx, "the lasso selects rows through the axes", `window.mldrExplore.selected.length > 0`, 10*time.Second)

	// The compare page's smaller views.
	run(t, ctx, "open the compare page",
		chromedp.EmulateViewport(1024, 1000),
		chromedp.Navigate(a.url+"/compare?jobs="+strings.Join(ids, ",")),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="compare-bar"]`)))
	waitJS(t, ctx, "the interactive views are drawn", `!!(window.mldrExplore && (window.mldrExplore.ready || window.mldrExplore.error))`, 60*time.Second)
	if e := eval[*string](t, ctx, `window.mldrExplore.error || null`); e != nil {
		t.Fatalf("the explorer failed: %s", *e)
	}
	for i, m := range []string{"pca", "cplst", "cca"} {
		v := `window.mldrExplore.jobs["` + ids[i] + `"].views.` + m
		waitJS(t, ctx, m+"'s axes are drawn", `!!`+v+`.axes`, 10*time.Second)
		ax := eval[axesState](t, ctx, v+`.axes`)
		size := eval[[]float64](t, ctx, v+`.size`)
		if len(ax.X.Labels) < 2 || len(ax.Y.Labels) < 2 {
			t.Errorf("%s's view (%v px) on the compare page: x labels %q, y labels %q, want at least 2 of each", m, size, ax.X.Labels, ax.Y.Labels)
		}
		if len(ax.X.Values) > 10 || len(ax.Y.Values) > 10 {
			t.Errorf("%s's view (%v px): %d and %d ticks, want at most 10 an axis", m, size, len(ax.X.Values), len(ax.Y.Values))
		}
	}
	if bad := eval[[]string](t, ctx, axesOverlapJS); len(bad) > 0 {
		t.Errorf("the axes' texts on the compare page:\n%s", strings.Join(bad, "\n"))
	}
	shot(t, ctx, "compare-axes-3-jobs-1024")
}
