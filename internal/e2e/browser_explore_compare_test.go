package e2e

import (
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
)

// TestBrowserExploreCompare is a researcher comparing jobs' projections
// interactively: two jobs on the same data set (pca, mddmp) have their
// views linked across the jobs, so a lasso in the first job's view lights
// up the same row numbers in the second's and the page's one selection
// panel (in the control bar) shows the enrichment, with a pair of bars a
// label, as it does for a lasso in the second job's view; two jobs on
// different data sets say that selections link only within each job, and
// a lasso in one does not reach the other.
func TestBrowserExploreCompare(t *testing.T) {
	ctx := browser(t, softwareGL...)
	a := start(t, t.TempDir(), "-workers", "1")
	ds1, code := a.upload("clusters.csv", clusteredCSV(300))
	if code != http.StatusCreated {
		t.Fatalf("uploading clusters.csv: got %d, want 201", code)
	}
	ds2, code := a.upload("other.csv", clusteredCSV(240))
	if code != http.StatusCreated {
		t.Fatalf("uploading other.csv: got %d, want 201", code)
	}
	submit := func(ds, method string, split map[string]any) string {
		body := map[string]any{"dataset": ds, "methods": []string{method}, "params": map[string]any{"d": 2}}
		if split != nil {
			body["split"] = split
		}
		id := jtSubmit(ctx, t, a, body)
		if j := jtPoll(ctx, t, a, id, "the job finished", func(j jtJob) bool { return jtTerminal(j.Status) }); j.Status != "succeeded" {
			t.Fatalf("the job %s: %s", j.Status, j.Error)
		}
		return id
	}
	// Job A has folds, so it can be coloured by them; job B cannot.
	jobA := submit(ds1.ID, "pca", map[string]any{"kind": "kfold", "folds": 3, "seed": 1})
	jobB, jobC := submit(ds1.ID, "mddmp", nil), submit(ds2.ID, "pca", nil)

	open := func(ids ...string) {
		t.Helper()
		run(t, ctx, "compare "+strings.Join(ids, ", "), chromedp.Navigate(a.url+"/compare?jobs="+strings.Join(ids, ",")), chromedp.WaitVisible(chromedp.CSS(`[data-testid="compare-bar"]`)))
		waitJS(t, ctx, "the interactive views are drawn", `!!(window.mldrExplore && (window.mldrExplore.ready || window.mldrExplore.error))`, 60*time.Second)
		if e := eval[*string](t, ctx, `window.mldrExplore.error || null`); e != nil {
			t.Fatalf("the explorer failed: %s", *e)
		}
	}
	view := func(job, method string) string { return `window.mldrExplore.jobs["` + job + `"].views.` + method }
	lasso := func(job, method string) {
		t.Helper()
		sel := `[data-scatter-job="` + job + `"] [data-testid="scatter-` + method + `"]`
		lassoLeftHalf(t, ctx, "lasso the left half of "+method, sel)
	}

	// Same data set: linked across the jobs.
	open(jobA, jobB)
	if !eval[bool](t, ctx, `window.mldrExplore.linked`) {
		t.Error("jobs on the same data set: window.mldrExplore.linked is false, want true")
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('[data-testid="compare-link-note"]').length`); n != 0 {
		t.Errorf("jobs on the same data set: %d notes that selections are not linked, want none", n)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('.scatter-view').length`); n != 2 {
		t.Errorf("got %d interactive views, want 2 (pca of one job, mddmp of the other)", n)
	}
	// One control bar; the colours it offers are those both jobs have:
	// not A's folds.
	if n := eval[int](t, ctx, `document.querySelectorAll('[data-testid="explore-colour"]').length`); n != 1 {
		t.Errorf("got %d colour choosers, want 1 (the control bar's)", n)
	}
	keys := eval[[]string](t, ctx, `[...document.querySelectorAll('[data-testid="compare-bar"] [data-job="`+jobA+`"] [data-testid="explore-colour"] option')].map(o => o.value)`)
	own, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`fetch("/api/jobs/`+jobA+`/explore").then(r => r.json()).then(m => m.colours.map(c => c.key))`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("reading job A's colours: %v", err)
	}
	if !slices.Contains(own, "fold") {
		t.Fatalf("job A's own colours %v lack fold", own)
	}
	if slices.Contains(keys, "fold") || len(keys) == 0 {
		t.Errorf("colour choices: %v; want those both jobs have (no fold)", keys)
	}
	if eval[bool](t, ctx, `!document.querySelector('figure#projection-`+jobA+`-pca .plot-svg').hidden`) {
		t.Error("job A's static projection is still shown beside the interactive one")
	}
	lasso(jobA, "pca")
	waitJS(t, ctx, "the lasso selects rows", `window.mldrExplore.jobs["`+jobA+`"].selected.length > 0`, 10*time.Second)
	waitJS(t, ctx, "job B highlights them", view(jobB, "mddmp")+`.selectedRows.length > 0`, 10*time.Second)
	rowsA := eval[[]int](t, ctx, view(jobA, "pca")+`.selectedRows.sort((a, b) => a - b)`)
	rowsB := eval[[]int](t, ctx, view(jobB, "mddmp")+`.selectedRows.sort((a, b) => a - b)`)
	if len(rowsA) == 0 || len(rowsA) >= 300 {
		t.Fatalf("the lasso selected %d of 300 rows in job A's pca, want some", len(rowsA))
	}
	if !slices.Equal(rowsA, rowsB) {
		t.Errorf("job B's mddmp highlights rows %v, job A's pca selected %v: want the same row numbers", rowsB, rowsA)
	}
	waitJS(t, ctx, "the page's panel shows the enrichment", `!!window.mldrExplore.jobs["`+jobA+`"].selection && !!document.querySelector('[data-job="`+jobA+`"] [data-testid="selection-labels"]')`, 10*time.Second)
	if n := eval[int](t, ctx, `document.querySelectorAll('[data-testid="selection-panel"]').length`); n != 1 {
		t.Errorf("jobs on one data set: %d selection panels, want 1", n)
	}
	// The bars: share of the selection and of all rows, as in the table.
	type bar struct {
		Label                          string
		InSel, Count, Overall, All     float64
		SelShare, AllShare, SelW, AllW float64
		Box                            float64
		Hidden                         string
	}
	bars := eval[[]bar](t, ctx, `(() => {
		const s = window.mldrExplore.jobs["`+jobA+`"].selection;
		return s.labels.map(l => {
			const tr = document.querySelector('[data-job="`+jobA+`"] [data-testid="selection-labels"] tr[data-label="' + l.label + '"]');
			const b = tr.querySelector('[data-testid="freq-bars"]');
			const sel = b.querySelector('[data-testid="bar-selection"]'), all = b.querySelector('[data-testid="bar-overall"]');
			return {label: l.label, inSel: l.in_selection, count: s.count, overall: l.overall, all: `+view(jobA, "pca")+`.state.rows,
				selShare: +sel.dataset.share, allShare: +all.dataset.share,
				selW: sel.getBoundingClientRect().width, allW: all.getBoundingClientRect().width,
				box: b.getBoundingClientRect().width, hidden: b.getAttribute("aria-hidden")};
		});
	})()`)
	if len(bars) != 4 {
		t.Fatalf("got bars for %d labels, want 4", len(bars))
	}
	for _, b := range bars {
		ws, wa := b.InSel/b.Count, b.Overall/b.All
		if math.Abs(b.SelShare-ws) > 1e-9 || math.Abs(b.AllShare-wa) > 1e-9 {
			t.Errorf("label %s's bars: got shares %v and %v, want %v (%v/%v) and %v (%v/%v)", b.Label, b.SelShare, b.AllShare, ws, b.InSel, b.Count, wa, b.Overall, b.All)
		}
		if math.Abs(b.SelW-ws*b.Box) > 1.5 || math.Abs(b.AllW-wa*b.Box) > 1.5 {
			t.Errorf("label %s's bars are drawn %v and %v px wide of %v, want %v and %v", b.Label, b.SelW, b.AllW, b.Box, ws*b.Box, wa*b.Box)
		}
		if b.Hidden != "true" {
			t.Errorf("label %s's bars: aria-hidden %q, want true (the numbers are in the table)", b.Label, b.Hidden)
		}
	}
	shot(t, ctx, "48-compare-linked")

	// A lasso in job B's view: job A's rows light up, and the one panel
	// gives the statistics of the selection made in job B.
	lasso(jobB, "mddmp")
	waitJS(t, ctx, "the panel follows job B's lasso", `(() => { const c = document.querySelector('[data-job="`+jobA+`"] [data-testid="selection-count"]'); return !!c && c.textContent.includes("of job `+jobB[:8]+`") && !!window.mldrExplore.jobs["`+jobA+`"].selection; })()`, 10*time.Second)
	if a, b := eval[[]int](t, ctx, view(jobA, "pca")+`.selectedRows.sort((a, b) => a - b)`), eval[[]int](t, ctx, view(jobB, "mddmp")+`.selectedRows.sort((a, b) => a - b)`); len(b) == 0 || !slices.Equal(a, b) {
		t.Errorf("after a lasso in job B, job A highlights %d rows, job B selected %d: want the same row numbers", len(a), len(b))
	}

	// A hover in job A's view lights the same row up in job B's.
	i := eval[int](t, ctx, view(jobA, "pca")+`.selected[0]`)
	at := eval[[]float64](t, ctx, view(jobA, "pca")+`.position(`+strconv.Itoa(i)+`)`)
	run(t, ctx, "hover a row", mouse(input.DispatchMouseEventTypeMouseMoved, at[0], at[1], false))
	waitJS(t, ctx, "the hover is linked across the jobs", view(jobB, "mddmp")+`.hoveredRow !== null && `+view(jobB, "mddmp")+`.hoveredRow === `+view(jobA, "pca")+`.hoveredRow`, 5*time.Second)

	// A colour chosen in the control bar colours every job's views.
	run(t, ctx, "colour by label a",
		chromedp.SetValue(chromedp.CSS(`[data-testid="explore-colour"]`), "label:a"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid="explore-colour"]').dispatchEvent(new Event("change", {bubbles: true}))`))
	waitJS(t, ctx, "job B is coloured by label a", `window.mldrExplore.jobs["`+jobB+`"].controls.colour === "label:a" && window.mldrExplore.jobs["`+jobB+`"].legend.text === window.mldrExplore.jobs["`+jobA+`"].legend.text`, 10*time.Second)

	// Different data sets: the note, and no highlighting across the jobs.
	open(jobA, jobC)
	if eval[bool](t, ctx, `window.mldrExplore.linked`) {
		t.Error("jobs on different data sets: window.mldrExplore.linked is true, want false")
	}
	const note = "The jobs use different data sets, so a selection is linked only within each job."
	if got := eval[string](t, ctx, `(() => { const n = document.querySelector('[data-testid="compare-link-note"]'); return n && !n.hidden && n.offsetParent ? n.textContent : ""; })()`); got != note {
		t.Errorf("jobs on different data sets: the visible note says %q, want %q", got, note)
	}
	lasso(jobA, "pca")
	waitJS(t, ctx, "the lasso selects rows", `window.mldrExplore.jobs["`+jobA+`"].selected.length > 0 && !!window.mldrExplore.jobs["`+jobA+`"].selection`, 10*time.Second)
	if n := eval[int](t, ctx, view(jobC, "pca")+`.selected.length + window.mldrExplore.jobs["`+jobC+`"].selected.length`); n != 0 {
		t.Errorf("job C (other data) highlights %d rows after a lasso in job A, want none", n)
	}
	// Each data set's first job has its own selection panel, named.
	if got := eval[string](t, ctx, `(() => { const h = document.querySelector('[data-job="`+jobC+`"] [data-testid="selection-panel"] h3'); return h ? h.textContent : ""; })()`); !strings.Contains(got, "job "+jobC[:8]) {
		t.Errorf("job C's selection panel is headed %q, want it to name job %s", got, jobC[:8])
	}
	// The bar's axes reach job C's view too.
	run(t, ctx, "vertical axis: component 1",
		chromedp.SetValue(chromedp.CSS(`[data-testid="explore-y"]`), "1"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid="explore-y"]').dispatchEvent(new Event("change", {bubbles: true}))`))
	waitJS(t, ctx, "job C draws component 1 against 1", view(jobC, "pca")+`.state.y === 1 && `+view(jobA, "pca")+`.state.y === 1`, 10*time.Second)
	shot(t, ctx, "49-compare-unlinked")

	// Without WebGL the static figures stay, each job saying why.
	nogl := browser(t, chromedp.Flag("disable-webgl", true))
	run(t, nogl, "compare without WebGL", chromedp.Navigate(a.url+"/compare?jobs="+jobA+","+jobC), chromedp.WaitVisible(chromedp.CSS(`figure#projection-`+jobA+`-pca svg`)))
	waitJS(t, nogl, "the notices", `document.querySelectorAll('[data-testid="explore-status"]').length === 2`, 10*time.Second)
	if got := eval[[]string](t, nogl, `[...document.querySelectorAll('[data-testid="explore-status"]')].map(e => e.textContent)`); got[0] != "Interactive view unavailable: this browser has no WebGL" || got[1] != got[0] {
		t.Errorf("without WebGL the jobs say %q", got)
	}
	if n := eval[int](t, nogl, `document.querySelectorAll('.scatter-view').length + document.querySelectorAll('.plot-svg[hidden]').length`); n != 0 {
		t.Errorf("without WebGL %d interactive views or hidden static figures, want none", n)
	}
}
