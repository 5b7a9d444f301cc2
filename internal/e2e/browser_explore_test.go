package e2e

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// softwareGL gives headless Chromium WebGL without a GPU: SwiftShader
// through ANGLE, which Chromium otherwise refuses as a fallback.
var softwareGL = []chromedp.ExecAllocatorOption{
	chromedp.Flag("disable-gpu", false),
	chromedp.Flag("use-angle", "swiftshader"),
	chromedp.Flag("enable-unsafe-swiftshader", true),
	chromedp.Flag("ignore-gpu-blocklist", true),
}

// clusteredCSV is a multi-label data set of n rows in three clusters of
// the features: the first cluster's rows mostly have label a, the
// second's b, the third's c; d is noise. Seeded.
func clusteredCSV(n int) []byte {
	r := rand.New(rand.NewPCG(14, 1))
	var b strings.Builder
	b.WriteString("f1,f2,f3,f4,f5,f6,label:a,label:b,label:c,label:d\n")
	centres := [3][6]float64{{4, 0, 0, 1, 0, 0}, {0, 4, 0, 0, 1, 0}, {0, 0, 4, 0, 0, 1}}
	for i := range n {
		k := i % 3
		for j := range 6 {
			fmt.Fprintf(&b, "%.4f,", centres[k][j]+r.NormFloat64())
		}
		for l := range 3 {
			p := 0.1
			if l == k {
				p = 0.9
			}
			if r.Float64() < p {
				b.WriteString("1,")
			} else {
				b.WriteString("0,")
			}
		}
		if r.Float64() < 0.3 {
			b.WriteString("1\n")
		} else {
			b.WriteString("0\n")
		}
	}
	return []byte(b.String())
}

// mouse sends one mouse event at (x, y) with the given buttons held.
func mouse(typ input.DispatchMouseEventType, x, y float64, shift bool) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		p := input.DispatchMouseEventParams{Type: typ, X: x, Y: y, Button: input.MouseButtonNone}
		if typ == input.DispatchMouseEventTypeMousePressed || typ == input.DispatchMouseEventTypeMouseReleased {
			p.Button = input.MouseButtonLeft
			p.ClickCount = 1
		}
		if typ == input.DispatchMouseEventTypeMouseMoved && shift {
			p.Button = input.MouseButtonLeft
			p.Buttons = 1
		}
		if shift {
			p.Modifiers = 8 // Shift
		}
		_, err := chromedp.Call(ctx, input.DispatchMouseEvent, p)
		return err
	})
}

// drag presses the left button at the first point, moves through the
// others and releases at the last (with Shift held: a lasso).
func drag(t *testing.T, ctx context.Context, what string, shift bool, pts [][2]float64) {
	t.Helper()
	acts := []chromedp.Action[chromedp.Void]{mouse(input.DispatchMouseEventTypeMouseMoved, pts[0][0], pts[0][1], false), mouse(input.DispatchMouseEventTypeMousePressed, pts[0][0], pts[0][1], shift)}
	for _, p := range pts[1:] {
		acts = append(acts, mouse(input.DispatchMouseEventTypeMouseMoved, p[0], p[1], shift), chromedp.Sleep(20*time.Millisecond))
	}
	last := pts[len(pts)-1]
	acts = append(acts, mouse(input.DispatchMouseEventTypeMouseReleased, last[0], last[1], shift))
	run(t, ctx, what, acts...)
}

// lassoLeftHalf scrolls the element sel into view and draws a Shift-lasso
// around its left half.
func lassoLeftHalf(t *testing.T, ctx context.Context, what, sel string) {
	t.Helper()
	eval[bool](t, ctx, `(() => { document.querySelector('`+sel+`').scrollIntoView({block: "center"}); return true; })()`)
	time.Sleep(300 * time.Millisecond)
	box := eval[[]float64](t, ctx, `(() => { const r = document.querySelector('`+sel+`').getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })()`)
	cx, cy := box[0]+box[2]/2, box[1]+box[3]/2
	var pts [][2]float64
	for k := 0; k <= 24; k++ {
		a := math.Pi/2 + math.Pi*float64(k)/24
		pts = append(pts, [2]float64{cx + 0.05*box[2] + 0.5*box[2]*math.Cos(a), cy - 0.48*box[3]*math.Sin(a)})
	}
	drag(t, ctx, what, true, pts)
}

type camera struct {
	Target   []float64 `json:"target"`
	Distance float64   `json:"distance"`
}

// TestBrowserExplore is a researcher exploring a job's projections: every
// row drawn in WebGL for pca and mddmp, zoomed and panned with the mouse
// and the keyboard, a lasso on pca that highlights the same rows in mddmp
// and shows the labels they are enriched in, a hover seen in both, the
// colours by a label and by the classifier's per-row error; then the same
// page without WebGL keeps its static figures and says why.
func TestBrowserExplore(t *testing.T) {
	ctx := browser(t, softwareGL...)
	a := start(t, t.TempDir(), "-workers", "1")
	ds, code := a.upload("clusters.csv", clusteredCSV(600))
	if code != http.StatusCreated {
		t.Fatalf("uploading clusters.csv: got %d, want 201", code)
	}
	id := jtSubmit(ctx, t, a, map[string]any{
		"dataset": ds.ID, "methods": []string{"pca", "mddmp"}, "params": map[string]any{"d": 3},
		"split":    map[string]any{"kind": "kfold", "folds": 3, "seed": 1},
		"evaluate": map[string]any{"classifier": "mlknn", "dims": []int{2}},
	})
	if j := jtPoll(ctx, t, a, id, "the job finished", func(j jtJob) bool { return jtTerminal(j.Status) }); j.Status != "succeeded" {
		t.Fatalf("the job %s: %s", j.Status, j.Error)
	}

	run(t, ctx, "open the job", chromedp.Navigate(a.url+"/jobs/"+id), chromedp.WaitVisible(chromedp.CSS(`[data-testid="results"]`)))
	waitJS(t, ctx, "the interactive views are drawn", `!!(window.mldrExplore && (window.mldrExplore.ready || window.mldrExplore.error))`, 60*time.Second)
	if e := eval[*string](t, ctx, `window.mldrExplore.error || null`); e != nil {
		t.Fatalf("the explorer failed: %s", *e)
	}
	for _, m := range []string{"pca", "mddmp"} {
		st := eval[map[string]any](t, ctx, `(() => { const s = window.mldrExplore.views.`+m+`.state; return {rows: s.rows, shown: s.shown, drawn: s.drawn, x: s.x, y: s.y, bytes: s.bytes}; })()`)
		if st["rows"] != 600.0 || st["shown"] != 600.0 || st["drawn"] != true || st["x"] != 1.0 || st["y"] != 2.0 || st["bytes"] != 600*8.0 {
			t.Errorf("%s's view: got %v, want 600 rows all shown and drawn, components 1 and 2, 4800 bytes", m, st)
		}
		if eval[bool](t, ctx, `!document.querySelector('figure#projection-`+m+` .plot-svg').hidden`) {
			t.Errorf("%s's static figure is still shown beside the interactive one", m)
		}
	}
	label := eval[string](t, ctx, `document.querySelector('[data-testid="scatter-pca"]').getAttribute("aria-label")`)
	if !strings.Contains(label, "600 of 600 rows") || !strings.Contains(label, "component 1 against component 2") || !strings.Contains(label, "coloured by number of labels") {
		t.Errorf("pca's view is described as %q", label)
	}
	shot(t, ctx, "40-explore")

	pcaCam := func() camera { return eval[camera](t, ctx, `window.mldrExplore.views.pca.camera`) }
	box := eval[[]float64](t, ctx, `(() => { const e = document.querySelector('[data-testid="scatter-pca"]'); e.scrollIntoView({block: "center"}); const r = e.getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })()`)
	time.Sleep(300 * time.Millisecond)
	box = eval[[]float64](t, ctx, `(() => { const r = document.querySelector('[data-testid="scatter-pca"]').getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })()`)
	cx, cy := box[0]+box[2]/2, box[1]+box[3]/2

	// Zoom with the wheel, pan by dragging.
	before := pcaCam()
	run(t, ctx, "zoom in with the wheel", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Call(ctx, input.DispatchMouseEvent, input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMouseWheel, X: cx, Y: cy, DeltaX: 0.001, DeltaY: -300}) // deltaX is required, and 0 would be left out
		return err
	}))
	waitJS(t, ctx, "the wheel zooms", `window.mldrExplore.views.pca.camera.distance < `+ftoa(before.Distance*0.99), 5*time.Second)
	zoomed := pcaCam()
	drag(t, ctx, "pan by dragging", false, [][2]float64{{cx, cy}, {cx + 20, cy + 10}, {cx + 60, cy + 30}})
	waitJS(t, ctx, "the drag pans", `(() => { const c = window.mldrExplore.views.pca.camera; return c.target[0] !== `+ftoa(zoomed.Target[0])+`; })()`, 5*time.Second)
	shot(t, ctx, "41-explore-zoomed")

	// The keyboard: focus, + zooms, an arrow pans, 0 resets.
	run(t, ctx, "focus pca's view", chromedp.Focus(chromedp.CSS(`[data-testid="scatter-pca"]`)))
	if f := eval[string](t, ctx, `document.activeElement.getAttribute("data-testid") || ""`); f != "scatter-pca" {
		t.Fatalf("the focus is on %q, want pca's view", f)
	}
	if o := eval[string](t, ctx, `getComputedStyle(document.activeElement).outlineStyle`); o == "none" {
		t.Error("the focused view shows no focus ring")
	}
	run(t, ctx, "reset with 0", chromedp.KeyEvent("0"))
	waitJS(t, ctx, "0 resets the view", `window.mldrExplore.views.pca.camera.distance === 1`, 5*time.Second)
	run(t, ctx, "zoom in with +", chromedp.KeyEvent("+"))
	waitJS(t, ctx, "+ zooms in", `Math.abs(window.mldrExplore.views.pca.camera.distance - 0.8) < 1e-6`, 5*time.Second)
	run(t, ctx, "pan right with an arrow", chromedp.KeyEvent(kb.ArrowRight))
	waitJS(t, ctx, "the arrow pans", `Math.abs(window.mldrExplore.views.pca.camera.target[0] - 0.08) < 1e-6`, 5*time.Second)
	run(t, ctx, "zoom out with -", chromedp.KeyEvent("-"))
	waitJS(t, ctx, "- zooms out", `Math.abs(window.mldrExplore.views.pca.camera.distance - 1) < 1e-6`, 5*time.Second)
	run(t, ctx, "reset with 0", chromedp.KeyEvent("0"))
	waitJS(t, ctx, "0 resets the view", `window.mldrExplore.views.pca.camera.distance === 1 && window.mldrExplore.views.pca.camera.target[0] === 0`, 5*time.Second)
	if c := eval[camera](t, ctx, `window.mldrExplore.views.mddmp.camera`); c.Distance != 1 {
		t.Errorf("mddmp's camera moved with pca's: %+v", c)
	}

	// A lasso around the left half of pca's view (Shift and drag).
	var lasso [][2]float64
	for k := 0; k <= 24; k++ {
		a := math.Pi/2 + math.Pi*float64(k)/24
		lasso = append(lasso, [2]float64{cx + 0.05*box[2] + 0.5*box[2]*math.Cos(a), cy - 0.48*box[3]*math.Sin(a)})
	}
	drag(t, ctx, "lasso the left half of pca", true, lasso)
	waitJS(t, ctx, "the lasso selects rows", `window.mldrExplore.selected.length > 0`, 10*time.Second)
	pcaSel := eval[[]int](t, ctx, `window.mldrExplore.views.pca.selected.sort((a, b) => a - b)`)
	mddmpSel := eval[[]int](t, ctx, `window.mldrExplore.views.mddmp.selected.sort((a, b) => a - b)`)
	if len(pcaSel) == 0 || len(pcaSel) >= 600 {
		t.Fatalf("the lasso selected %d of 600 rows in pca, want some", len(pcaSel))
	}
	if !slices.Equal(pcaSel, mddmpSel) {
		t.Errorf("mddmp highlights %d rows, pca selected %d: want the same rows", len(mddmpSel), len(pcaSel))
	}
	waitJS(t, ctx, "the selection panel shows the enrichment", `!!window.mldrExplore.selection && !!document.querySelector('[data-testid="selection-labels"]')`, 10*time.Second)
	if got := text(t, ctx, `[data-testid="selection-count"]`); got != strconv.Itoa(len(pcaSel))+" of 600 rows selected in PCA." {
		t.Errorf("the selection panel says %q, want %d of 600 rows selected in PCA.", got, len(pcaSel))
	}
	labels := eval[[]string](t, ctx, `[...document.querySelectorAll('[data-testid="selection-labels"] tbody th')].map(e => e.textContent)`)
	ps := eval[[]float64](t, ctx, `[...document.querySelectorAll('[data-testid="selection-labels"] tbody td[data-p]')].map(e => +e.dataset.p)`)
	if s := slices.Clone(labels); len(s) != 4 || func() bool { slices.Sort(s); return !slices.Equal(s, []string{"a", "b", "c", "d"}) }() {
		t.Errorf("the selection panel lists the labels %q, want a, b, c and d", labels)
	}
	if len(ps) != 4 || !slices.IsSorted(ps) || ps[0] < 0 || ps[3] > 1 {
		t.Errorf("the selection panel's p-values %v, want 4 in [0, 1] in increasing order", ps)
	}
	if live := eval[string](t, ctx, `document.querySelector('[data-testid="selection-panel"]').getAttribute("aria-live")`); live != "polite" {
		t.Errorf("the selection panel's aria-live is %q, want polite", live)
	}
	if rows := eval[[]int](t, ctx, `window.mldrExplore.selected`); len(rows) != len(pcaSel) {
		t.Errorf("the page's selected rows: %d, want %d", len(rows), len(pcaSel))
	}
	shot(t, ctx, "42-explore-lasso")

	// Hover over a selected row in pca: mddmp highlights the same row.
	i := pcaSel[len(pcaSel)/2]
	at := eval[[]float64](t, ctx, `window.mldrExplore.views.pca.position(`+strconv.Itoa(i)+`)`)
	run(t, ctx, "hover a row", mouse(input.DispatchMouseEventTypeMouseMoved, at[0], at[1], false))
	waitJS(t, ctx, "the hover is linked", `window.mldrExplore.views.mddmp.hovered !== null && window.mldrExplore.views.mddmp.hovered === window.mldrExplore.views.pca.hovered`, 5*time.Second)

	// Colour by a label, then by the classifier's error on each row.
	colour := func(key string) {
		t.Helper()
		run(t, ctx, "colour by "+key,
			chromedp.SetValue(chromedp.CSS(`[data-testid="explore-colour"]`), key),
			chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid="explore-colour"]').dispatchEvent(new Event("change", {bubbles: true}))`))
		waitJS(t, ctx, "coloured by "+key, `window.mldrExplore.controls.colour === `+strconv.Quote(key)+` && !!window.mldrExplore.legend && location.hash.includes(`+strconv.Quote(strings.ReplaceAll(key, ":", "%3A"))+`)`, 10*time.Second)
	}
	colour("label:a")
	waitJS(t, ctx, "the legend names the label", `[...document.querySelectorAll('[data-testid="legend-entry"]')].map(e => e.dataset.name).join("|") === "without a|with a"`, 5*time.Second)
	counts := eval[[]int](t, ctx, `window.mldrExplore.legend.entries.map(e => e.count)`)
	if len(counts) != 2 || counts[0]+counts[1] != 600 || counts[1] < 150 {
		t.Errorf("the legend of label a counts %v, want two groups of 600 rows in all, a third or so with a", counts)
	}
	shot(t, ctx, "43-explore-label")
	errKey := eval[string](t, ctx, `(() => { const o = [...document.querySelectorAll('[data-testid="explore-colour"] option')].find(o => o.value.startsWith("error:hamming:pca:")); return o ? o.value : ""; })()`)
	if errKey == "" {
		t.Fatal("the colour choices offer no per-row Hamming loss of pca")
	}
	colour(errKey)
	legend := eval[map[string]any](t, ctx, `window.mldrExplore.legend`)
	// The rows' own range, read here from the values the page coloured by.
	lim, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`fetch("/api/jobs/`+id+`/values?of=`+errKey+`").then(r => r.arrayBuffer()).then(b => {
		const v = [...new Float32Array(b)].filter(x => !Number.isNaN(x));
		return [Math.min(...v), Math.max(...v), v.length];
	})`, chromedp.EvalAwaitPromise))
	if err != nil || len(lim) != 3 {
		t.Fatalf("reading the values of %s: %v %v", errKey, lim, err)
	}
	if legend["type"] != "continuous" || legend["min"] != lim[0] || legend["max"] != lim[1] || legend["none"] != 600-lim[2] || lim[1] <= 0 {
		t.Errorf("the legend of %s: %v, want continuous from %v to %v (above 0), %v rows without a value", errKey, legend, lim[0], lim[1], 600-lim[2])
	}
	if got, want := text(t, ctx, `[data-testid="legend-max"]`), strconv.FormatFloat(lim[1], 'g', 3, 64); got != want {
		t.Errorf("the legend's maximum reads %q, want %q", got, want)
	}
	shot(t, ctx, "44-explore-error")

	// Clear the selection from the keyboard.
	run(t, ctx, "clear the selection", chromedp.Focus(chromedp.CSS(`[data-testid="explore-clear"]`)), chromedp.KeyEvent(kb.Enter))
	waitJS(t, ctx, "the selection is cleared", `window.mldrExplore.selected.length === 0 && window.mldrExplore.views.pca.selected.length === 0 && window.mldrExplore.views.mddmp.selected.length === 0`, 5*time.Second)
	if got := text(t, ctx, `[data-testid="selection-count"]`); got != "Nothing selected." {
		t.Errorf("after clearing, the selection panel says %q", got)
	}
	shot(t, ctx, "45-explore-cleared")

	// Without WebGL the static figures stay, with a notice.
	nogl := browser(t, chromedp.Flag("disable-webgl", true))
	run(t, nogl, "open the job without WebGL", chromedp.Navigate(a.url+"/jobs/"+id), chromedp.WaitVisible(chromedp.CSS(`figure#projection-pca svg`)))
	waitJS(t, nogl, "the notice", `!!document.querySelector('[data-testid="explore-status"]')`, 10*time.Second)
	if got := text(t, nogl, `[data-testid="explore-status"]`); got != "Interactive view unavailable: this browser has no WebGL" {
		t.Errorf("without WebGL the page says %q", got)
	}
	if n := eval[int](t, nogl, `document.querySelectorAll('.scatter-view').length`); n != 0 {
		t.Errorf("without WebGL %d interactive views were made", n)
	}
	shot(t, nogl, "46-explore-no-webgl")
}

// TestBrowserExploreTiming measures (and reports, asserting nothing but
// that it works) the explorer on a large job: the time from navigating to
// a job page of MLDR_EXPLORE_ROWS rows (default 200 000; 10 features, 5
// labels, pca) to the first drawn frame of the interactive view, the
// frame times while panning, and the bytes of the points, in headless
// Chromium with software GL. Run it on purpose:
//
//	MLDR_MEASURE_EXPLORE=1 go test ./internal/e2e/ -run TestBrowserExploreTiming -v
func TestBrowserExploreTiming(t *testing.T) {
	if os.Getenv("MLDR_MEASURE_EXPLORE") != "1" {
		t.Skip("a measurement: set MLDR_MEASURE_EXPLORE=1 to run it")
	}
	n := 200000
	if v, err := strconv.Atoi(os.Getenv("MLDR_EXPLORE_ROWS")); err == nil && v > 0 {
		n = v
	}
	r := rand.New(rand.NewPCG(14, 2))
	var b strings.Builder
	b.WriteString("f1,f2,f3,f4,f5,f6,f7,f8,f9,f10,label:l1,label:l2,label:l3,label:l4,label:l5\n")
	for i := range n {
		k := i % 5
		for j := range 10 {
			c := 0.0
			if j == 2*k {
				c = 3
			}
			fmt.Fprintf(&b, "%.3f,", c+r.NormFloat64())
		}
		for l := range 5 {
			v := 0
			if l == k || r.Float64() < 0.1 {
				v = 1
			}
			if l < 4 {
				fmt.Fprintf(&b, "%d,", v)
			} else {
				fmt.Fprintf(&b, "%d\n", v)
			}
		}
	}
	ctx := browser(t, softwareGL...)
	a := start(t, t.TempDir(), "-workers", "1")
	ds, code := a.upload("large.csv", []byte(b.String()))
	if code != http.StatusCreated {
		t.Fatalf("uploading %d rows: got %d, want 201", n, code)
	}
	id := jtSubmit(ctx, t, a, map[string]any{"dataset": ds.ID, "methods": []string{"pca"}, "params": map[string]any{"d": 2}, "evaluate": map[string]any{"classifier": "none"}})
	if j := jtPoll(ctx, t, a, id, "the job finished", func(j jtJob) bool { return jtTerminal(j.Status) }); j.Status != "succeeded" {
		t.Fatalf("the job %s: %s", j.Status, j.Error)
	}
	run(t, ctx, "open the job", chromedp.Navigate(a.url+"/jobs/"+id))
	waitJS(t, ctx, "the view is drawn", `!!(window.mldrExplore && window.mldrExplore.views.pca && window.mldrExplore.views.pca.state.firstFrameAt !== null) || !!(window.mldrExplore && window.mldrExplore.error)`, 2*time.Minute)
	if e := eval[*string](t, ctx, `window.mldrExplore.error || null`); e != nil {
		t.Fatalf("the explorer failed: %s", *e)
	}
	first := eval[float64](t, ctx, `window.mldrExplore.views.pca.state.firstFrameAt`)
	load := eval[float64](t, ctx, `performance.getEntriesByType("navigation")[0].domContentLoadedEventEnd`)
	bytes := eval[float64](t, ctx, `window.mldrExplore.views.pca.state.bytes`)
	shot(t, ctx, "47-explore-large")

	box := eval[[]float64](t, ctx, `(() => { const e = document.querySelector('[data-testid="scatter-pca"]'); e.scrollIntoView({block: "center"}); const r = e.getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })()`)
	time.Sleep(500 * time.Millisecond)
	box = eval[[]float64](t, ctx, `(() => { const r = document.querySelector('[data-testid="scatter-pca"]').getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })()`)
	eval[bool](t, ctx, `(() => { window.mldrExplore.views.pca.state.frames.length = 0; return true; })()`)
	var path [][2]float64
	for k := 0; k <= 100; k++ {
		f := float64(k) / 100
		path = append(path, [2]float64{box[0] + box[2]*(0.3+0.4*f), box[1] + box[3]*(0.5+0.2*math.Sin(6*f))})
	}
	start := time.Now()
	drag(t, ctx, "pan for about two seconds", false, path)
	took := time.Since(start)
	frames := eval[[]float64](t, ctx, `window.mldrExplore.views.pca.state.frames`)
	slices.Sort(frames)
	q := func(p float64) float64 {
		if len(frames) == 0 {
			return math.NaN()
		}
		return frames[min(len(frames)-1, int(p*float64(len(frames))))]
	}
	// The same, panned by the page itself each animation frame for two
	// seconds: the drawing alone, without the round trips of the events.
	raf, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`new Promise(done => {
		const v = window.mldrExplore.views.pca, st = v.state, t0 = performance.now();
		st.frames.length = 0;
		const step = () => {
			const t = performance.now() - t0;
			if (t > 2000) { done([...st.frames].sort((a, b) => a - b)); return; }
			document.querySelector('[data-testid="scatter-pca"]').dispatchEvent(new KeyboardEvent("keydown", {key: t % 400 < 200 ? "ArrowLeft" : "ArrowRight"}));
			requestAnimationFrame(step);
		};
		requestAnimationFrame(step);
	})`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("panning from the page: %v", err)
	}
	rq := func(p float64) float64 {
		if len(raf) == 0 {
			return math.NaN()
		}
		return raf[min(len(raf)-1, int(p*float64(len(raf))))]
	}
	t.Logf("panning from the page for 2 s: %d frames, frame interval median %.1f ms, p90 %.1f ms, max %.1f ms", len(raf), rq(0.5), rq(0.9), rq(1))
	t.Logf("%d rows: page loaded (DOMContentLoaded) at %.0f ms, first interactive frame at %.0f ms after navigation; points %.0f bytes (%.1f MiB)", n, load, first, bytes, bytes/(1<<20))
	t.Logf("panning %v: %d frames drawn, frame interval median %.1f ms, p90 %.1f ms, max %.1f ms", took.Round(time.Millisecond), len(frames), q(0.5), q(0.9), q(1))
}
