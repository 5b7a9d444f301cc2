package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// fetchJSON runs fetch(url) in the page and decodes its JSON answer into
// T, with the status.
func fetchJSON[T any](t *testing.T, ctx context.Context, url string) (T, int) {
	t.Helper()
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]any](`fetch(`+strconv.Quote(url)+`).then(async r => [r.status, await r.text()])`, chromedp.EvalAwaitPromise))
	var v T
	if err != nil || len(raw) != 2 {
		t.Fatalf("fetching %s: %v %v", url, raw, err)
	}
	if err := json.Unmarshal([]byte(raw[1].(string)), &v); err != nil {
		t.Fatalf("decoding %s: %v (%s)", url, err, raw[1])
	}
	return v, int(raw[0].(float64))
}

// typeInto empties the input sel and types keys into it.
func typeInto(sel, keys string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		return chromedp.Do(ctx,
			chromedp.Evaluate[chromedp.Void](`document.querySelector(`+strconv.Quote(sel)+`).value = ""`),
			chromedp.SendKeys(chromedp.CSS(sel), keys))
	})
}

// sorted returns a sorted copy of s.
func sorted(s []int) []int {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// TestBrowserExploreRows is a researcher asking about single rows and
// groups of rows on a job whose methods have different rows (mds embeds
// only the training rows of a holdout): the hover names a row's labels; a
// click opens the row's panel with its nearest rows in the projection and
// in the original features, a neighbour lights up in every view and Esc
// closes the panel; Enter opens the row nearest the centre; a search by
// labels selects the same rows as the server finds, in both views by row
// number, and a bad search shows the server's sentence by the input; the
// selection is saved under a name, loaded again to filter every view,
// downloaded and deleted; a view fills the window with the controls
// beside it and Esc leaves; the density layer follows the zoom.
func TestBrowserExploreRows(t *testing.T) {
	ctx := browser(t, softwareGL...)
	a := start(t, t.TempDir(), "-workers", "1")
	ds, code := a.upload("clusters.csv", clusteredCSV(600))
	if code != http.StatusCreated {
		t.Fatalf("uploading clusters.csv: got %d, want 201", code)
	}
	id := jtSubmit(ctx, t, a, map[string]any{
		"dataset": ds.ID, "methods": []string{"pca", "mds"}, "params": map[string]any{"d": 3},
		"split":    map[string]any{"kind": "holdout", "seed": 1},
		"evaluate": map[string]any{"classifier": "none"},
	})
	if j := jtPoll(ctx, t, a, id, "the job finished", func(j jtJob) bool { return jtTerminal(j.Status) }); j.Status != "succeeded" {
		t.Fatalf("the job %s: %s", j.Status, j.Error)
	}
	api := "/api/jobs/" + id
	run(t, ctx, "open the job", chromedp.Navigate(a.url+"/jobs/"+id), chromedp.WaitVisible(chromedp.CSS(`[data-testid="results"]`)))
	waitJS(t, ctx, "the interactive views are drawn", `!!(window.mldrExplore && (window.mldrExplore.ready || window.mldrExplore.error))`, 60*time.Second)
	if e := eval[*string](t, ctx, `window.mldrExplore.error || null`); e != nil {
		t.Fatalf("the explorer failed: %s", *e)
	}
	pcaRows := eval[int](t, ctx, `window.mldrExplore.views.pca.state.rows`)
	mdsRows := eval[int](t, ctx, `window.mldrExplore.views.mds.state.rows`)
	if pcaRows != 600 || mdsRows >= 600 || mdsRows < 400 {
		t.Fatalf("pca has %d rows and mds %d: want 600, and fewer (the training rows) for mds", pcaRows, mdsRows)
	}
	// mds's row numbers, to check the views are linked by number.
	mdsNumbers := eval[[]int](t, ctx, `Array.from({length: `+strconv.Itoa(mdsRows)+`}, (_, i) => window.mldrExplore.views.mds.number(i))`)
	inMDS := map[int]bool{}
	for _, n := range mdsNumbers {
		inMDS[n] = true
	}
	// want is the rows of numbers that mds has.
	mdsOf := func(rows []int) []int {
		var out []int
		for _, n := range rows {
			if inMDS[n] {
				out = append(out, n)
			}
		}
		return sorted(out)
	}

	box := eval[[]float64](t, ctx, `(() => { const e = document.querySelector('[data-testid="scatter-pca"]'); e.scrollIntoView({block: "center"}); const r = e.getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })()`)
	time.Sleep(300 * time.Millisecond)
	_ = box

	// Hover: the row's number and its labels, as the server has them.
	type rowAnswer struct {
		Row        int      `json:"row"`
		Part       string   `json:"part"`
		Fold       *int     `json:"fold"`
		Labels     []string `json:"labels"`
		Projection []struct {
			Row    int      `json:"row"`
			Labels []string `json:"labels"`
		} `json:"projection"`
		Original []struct {
			Row int `json:"row"`
		} `json:"original"`
	}
	// A test row (in pca, not in mds) in the middle of pca's rows.
	i := 550
	n := eval[int](t, ctx, `window.mldrExplore.views.pca.number(`+strconv.Itoa(i)+`)`)
	want, status := fetchJSON[rowAnswer](t, ctx, api+"/rows/"+strconv.Itoa(n)+"?method=pca&k=10")
	if status != http.StatusOK {
		t.Fatalf("GET rows/%d: got %d, want 200", n, status)
	}
	labelText := strings.Join(want.Labels, ", ")
	if labelText == "" {
		labelText = "no label"
	}
	at := eval[[]float64](t, ctx, `window.mldrExplore.views.pca.position(`+strconv.Itoa(i)+`)`)
	run(t, ctx, "hover a row", mouse(input.DispatchMouseEventTypeMouseMoved, at[0], at[1], false))
	waitJS(t, ctx, "the hover names a row", `window.mldrExplore.hoveredRow !== null`, 5*time.Second)
	hovered := eval[int](t, ctx, `window.mldrExplore.hoveredRow`)
	hw, _ := fetchJSON[rowAnswer](t, ctx, api+"/rows/"+strconv.Itoa(hovered)+"?method=pca&k=1")
	hl := strings.Join(hw.Labels, ", ")
	if hl == "" {
		hl = "no label"
	}
	if got, wantText := text(t, ctx, `[data-testid="explore-hover"]`), "Row "+strconv.Itoa(hovered)+": "+hl+" (PCA)"; got != wantText {
		t.Errorf("the hover text reads %q, want %q", got, wantText)
	}

	// Click the row: its panel.
	run(t, ctx, "click a row",
		mouse(input.DispatchMouseEventTypeMousePressed, at[0], at[1], false),
		mouse(input.DispatchMouseEventTypeMouseReleased, at[0], at[1], false))
	waitJS(t, ctx, "the row panel opens", `window.mldrExplore.rowOpen && !!window.mldrExplore.row`, 10*time.Second)
	clicked := eval[int](t, ctx, `window.mldrExplore.row.row`)
	if clicked != hovered {
		t.Errorf("the click opened row %d, want the hovered row %d", clicked, hovered)
	}
	want, _ = fetchJSON[rowAnswer](t, ctx, api+"/rows/"+strconv.Itoa(clicked)+"?method=pca&k=10")
	if got := text(t, ctx, `[data-testid="row-heading"]`); got != "Row "+strconv.Itoa(clicked) {
		t.Errorf("the row panel's heading is %q, want Row %d", got, clicked)
	}
	facts := text(t, ctx, `[data-testid="row-facts"]`)
	if !strings.HasPrefix(facts, "Row "+strconv.Itoa(clicked)+": "+want.Part+" row") || !strings.HasSuffix(facts, "labels: "+func() string {
		if len(want.Labels) == 0 {
			return "no label"
		}
		return strings.Join(want.Labels, ", ")
	}()+".") {
		t.Errorf("the row panel says %q, want the part %s and the labels %v", facts, want.Part, want.Labels)
	}
	projRows := eval[[]int](t, ctx, `[...document.querySelectorAll('[data-testid="row-projection"] tbody tr')].map(e => +e.dataset.row)`)
	origRows := eval[[]int](t, ctx, `[...document.querySelectorAll('[data-testid="row-original"] tbody tr')].map(e => +e.dataset.row)`)
	var wantProj, wantOrig []int
	for _, p := range want.Projection {
		wantProj = append(wantProj, p.Row)
	}
	for _, p := range want.Original {
		wantOrig = append(wantOrig, p.Row)
	}
	if len(projRows) != 10 || !slices.Equal(projRows, wantProj) {
		t.Errorf("the panel's nearest rows in the projection: got %v, want %v", projRows, wantProj)
	}
	if len(origRows) != 10 || !slices.Equal(origRows, wantOrig) {
		t.Errorf("the panel's nearest rows in the original features: got %v, want %v", origRows, wantOrig)
	}
	if sel := eval[[]int](t, ctx, `window.mldrExplore.selected`); !slices.Equal(sel, []int{clicked}) {
		t.Errorf("after the click the selection is %v, want the row %d", sel, clicked)
	}
	shot(t, ctx, "50-explore-row")

	// A neighbour lights up in every view (one mds has, by its number).
	nb := -1
	for _, r := range wantProj {
		if inMDS[r] {
			nb = r
			break
		}
	}
	if nb < 0 {
		t.Fatalf("none of row %d's nearest rows %v is a training row", clicked, wantProj)
	}
	run(t, ctx, "click a neighbour", chromedp.Click(chromedp.CSS(`[data-testid="row-projection"] button[data-row="`+strconv.Itoa(nb)+`"]`)))
	waitJS(t, ctx, "the neighbour is highlighted", `window.mldrExplore.highlighted === `+strconv.Itoa(nb), 5*time.Second)
	for _, m := range []string{"pca", "mds"} {
		if got := eval[*int](t, ctx, `window.mldrExplore.views.`+m+`.hoveredRow`); got == nil || *got != nb {
			t.Errorf("%s highlights row %v, want the neighbour %d", m, got, nb)
		}
	}
	shot(t, ctx, "51-explore-neighbour")

	// Esc (the focus on the neighbour's button, in the panel) closes it
	// and gives the focus back to the view.
	run(t, ctx, "Esc", chromedp.KeyEvent(kb.Escape))
	waitJS(t, ctx, "Esc closes the row panel", `!window.mldrExplore.rowOpen && document.querySelector('[data-testid="row-panel"]').hidden`, 5*time.Second)
	if f := eval[string](t, ctx, `document.activeElement.getAttribute("data-testid") || ""`); f != "scatter-pca" {
		t.Errorf("after Esc the focus is on %q, want pca's view", f)
	}

	// The keyboard: 0 resets, Enter opens the row nearest the centre, Esc
	// closes it.
	run(t, ctx, "move the mouse away", mouse(input.DispatchMouseEventTypeMouseMoved, 1, 1, false))
	waitJS(t, ctx, "no row is hovered", `window.mldrExplore.hoveredRow === null`, 5*time.Second)
	run(t, ctx, "focus pca", chromedp.Focus(chromedp.CSS(`[data-testid="scatter-pca"]`)), chromedp.KeyEvent("0"))
	waitJS(t, ctx, "0 resets the view", `window.mldrExplore.views.pca.camera.distance === 1`, 5*time.Second)
	centre := eval[int](t, ctx, `(() => { const v = window.mldrExplore.views.pca, r = document.querySelector('[data-testid="scatter-pca"]').getBoundingClientRect();
		let best = -1, bd = Infinity;
		for (let i = 0; i < v.state.rows; i++) { const [x, y] = v.position(i); const d = (x - r.left - r.width / 2) ** 2 + (y - r.top - r.height / 2) ** 2; if (d < bd) { bd = d; best = i; } }
		return v.number(best); })()`)
	run(t, ctx, "Enter", chromedp.KeyEvent(kb.Enter))
	waitJS(t, ctx, "Enter opens a row", `window.mldrExplore.rowOpen && !!window.mldrExplore.row`, 10*time.Second)
	if got := eval[int](t, ctx, `window.mldrExplore.row.row`); got != centre {
		t.Errorf("Enter opened row %d, want %d, the row nearest the centre", got, centre)
	}
	run(t, ctx, "Esc", chromedp.KeyEvent(kb.Escape))
	waitJS(t, ctx, "Esc closes the row panel", `!window.mldrExplore.rowOpen`, 5*time.Second)

	// Search by labels: the server's rows, selected in both views by number.
	type searchAnswer struct {
		Count int   `json:"count"`
		Rows  []int `json:"rows"`
	}
	q := "a and b but not c"
	found, status := fetchJSON[searchAnswer](t, ctx, api+"/search?method=pca&q="+strings.ReplaceAll(q, " ", "%20"))
	if status != http.StatusOK || found.Count == 0 {
		t.Fatalf("GET search?q=%s: %d, %d rows; want 200 and some rows", q, status, found.Count)
	}
	run(t, ctx, "search", chromedp.SendKeys(chromedp.CSS(`[data-testid="explore-search"]`), q+kb.Enter))
	waitJS(t, ctx, "the search selects rows", `!!window.mldrExplore.search && window.mldrExplore.search.q === `+strconv.Quote(q)+` && !!window.mldrExplore.selection`, 10*time.Second)
	if got := sorted(eval[[]int](t, ctx, `window.mldrExplore.selected`)); !slices.Equal(got, sorted(found.Rows)) {
		t.Errorf("the search selected %d rows, the server found %d", len(got), len(found.Rows))
	}
	if got := sorted(eval[[]int](t, ctx, `window.mldrExplore.views.pca.selectedRows`)); !slices.Equal(got, sorted(found.Rows)) {
		t.Errorf("pca shows %d rows selected, want the %d found", len(got), len(found.Rows))
	}
	if got, w := sorted(eval[[]int](t, ctx, `window.mldrExplore.views.mds.selectedRows`)), mdsOf(found.Rows); !slices.Equal(got, w) || len(w) == 0 {
		t.Errorf("mds shows %d rows selected, want the %d found that it has", len(got), len(w))
	}
	if got, w := text(t, ctx, `[data-testid="selection-count"]`), fmt.Sprintf("%d of 600 rows match “%s”.", found.Count, q); got != w {
		t.Errorf("the selection panel says %q, want %q", got, w)
	}
	if eval[int](t, ctx, `window.mldrExplore.selection.count`) != found.Count {
		t.Errorf("the selection's statistics count %v rows, want %d", eval[any](t, ctx, `window.mldrExplore.selection.count`), found.Count)
	}
	shot(t, ctx, "52-explore-search")

	// Row ranges.
	run(t, ctx, "search a range", typeInto(`[data-testid="explore-search"]`, "40-45"+kb.Enter))
	waitJS(t, ctx, "the range is selected", `window.mldrExplore.search.q === "40-45" && window.mldrExplore.selected.length === 6`, 10*time.Second)
	if got := sorted(eval[[]int](t, ctx, `window.mldrExplore.views.pca.selectedRows`)); !slices.Equal(got, []int{40, 41, 42, 43, 44, 45}) {
		t.Errorf("the range 40-45 selects %v in pca", got)
	}

	// A bad search: the server's sentence by the input.
	bad := "a and nosuch"
	type errAnswer struct {
		Error string `json:"error"`
		Field string `json:"field"`
	}
	srvErr, status := fetchJSON[errAnswer](t, ctx, api+"/search?method=pca&q="+strings.ReplaceAll(bad, " ", "%20"))
	if status != http.StatusBadRequest || srvErr.Field != "q" {
		t.Fatalf("GET search?q=%s: got %d %+v, want 400 on q", bad, status, srvErr)
	}
	run(t, ctx, "search badly", typeInto(`[data-testid="explore-search"]`, bad+kb.Enter))
	waitJS(t, ctx, "the error is shown", `!!window.mldrExplore.search.error`, 10*time.Second)
	if got, w := text(t, ctx, `[data-testid="explore-search-error"]`), "the search failed (400): "+srvErr.Error+"."; got != w {
		t.Errorf("by the search the page says %q, want %q", got, w)
	}
	if d := eval[string](t, ctx, `document.querySelector('[data-testid="explore-search"]').getAttribute("aria-describedby")`); !strings.Contains(d, "explore-search-error") {
		t.Errorf("the search input is described by %q, not by its error", d)
	}
	if v := eval[string](t, ctx, `document.querySelector('[data-testid="explore-search"]').getAttribute("aria-invalid") || ""`); v != "true" {
		t.Errorf("after a bad search the input's aria-invalid is %q, want true", v)
	}
	shot(t, ctx, "53-explore-search-error")

	// Save the label search's rows under a name.
	run(t, ctx, "search again", typeInto(`[data-testid="explore-search"]`, q+kb.Enter))
	waitJS(t, ctx, "the search selects rows", `window.mldrExplore.search.q === `+strconv.Quote(q)+` && window.mldrExplore.selected.length === `+strconv.Itoa(found.Count), 10*time.Second)
	if v := eval[string](t, ctx, `document.querySelector('[data-testid="explore-search-error"]').textContent`); v != "" {
		t.Errorf("after a good search the error still reads %q", v)
	}
	run(t, ctx, "a bad name", chromedp.SendKeys(chromedp.CSS(`[data-testid="save-name"]`), "a/b"), chromedp.Click(chromedp.CSS(`[data-testid="save-selection"]`)))
	waitJS(t, ctx, "the bad name is refused", `document.querySelector('[data-testid="save-error"]').textContent !== ""`, 10*time.Second)
	if got := text(t, ctx, `[data-testid="save-error"]`); !strings.HasPrefix(got, "saving the selection a/b failed (400): ") {
		t.Errorf("for the name a/b the page says %q, want the server's 400", got)
	}
	name := "a and b (not c)"
	run(t, ctx, "save", typeInto(`[data-testid="save-name"]`, name+kb.Enter))
	waitJS(t, ctx, "the selection is saved", `window.mldrExplore.saved.length === 1`, 10*time.Second)
	if got := eval[map[string]any](t, ctx, `window.mldrExplore.saved[0]`); got["name"] != name || got["rows"] != float64(found.Count) {
		t.Errorf("the saved selection: got %v, want %q with %d rows", got, name, found.Count)
	}
	if got, w := text(t, ctx, `[data-testid="saved-status"]`), fmt.Sprintf("Saved “%s”: %d rows.", name, found.Count); got != w {
		t.Errorf("after saving the page says %q, want %q", got, w)
	}
	type savedList struct {
		Selections []struct {
			Name string `json:"name"`
			Rows int    `json:"rows"`
		} `json:"selections"`
	}
	if l, status := fetchJSON[savedList](t, ctx, api+"/selections"); status != http.StatusOK || len(l.Selections) != 1 || l.Selections[0].Name != name {
		t.Errorf("GET selections: got %d %+v, want 200 and %q", status, l, name)
	}
	csv := eval[string](t, ctx, `document.querySelector('[data-testid="saved-csv"]').getAttribute("href")`)
	if w := api + "/selections/" + url.PathEscape(name) + ".csv"; csv != w {
		t.Errorf("the CSV link is %q, want %q", csv, w)
	}
	body, err := chromedp.Run(ctx, chromedp.Evaluate[[]any](`fetch(`+strconv.Quote(csv)+`).then(async r => [r.status, await r.text()])`, chromedp.EvalAwaitPromise))
	if err != nil || body[0] != 200.0 {
		t.Fatalf("downloading %s: %v %v, want 200", csv, body, err)
	}
	var csvRows []int
	for _, l := range strings.Split(strings.TrimSpace(body[1].(string)), "\n")[1:] {
		v, _ := strconv.Atoi(strings.TrimSpace(l))
		csvRows = append(csvRows, v)
	}
	if !slices.Equal(csvRows, sorted(found.Rows)) {
		t.Errorf("the CSV holds %d rows, want the %d saved", len(csvRows), found.Count)
	}
	shot(t, ctx, "54-explore-saved")

	// Clear, show only the selection, load the saved one: it filters both
	// views.
	run(t, ctx, "clear", chromedp.Click(chromedp.CSS(`[data-testid="explore-clear"]`)))
	waitJS(t, ctx, "cleared", `window.mldrExplore.selected.length === 0`, 5*time.Second)
	run(t, ctx, "show only the selection", chromedp.Click(chromedp.CSS(`[data-testid="explore-only"]`)))
	run(t, ctx, "load", chromedp.Focus(chromedp.CSS(`[data-testid="saved-load"]`)), chromedp.KeyEvent(kb.Enter))
	waitJS(t, ctx, "the saved selection is loaded", `window.mldrExplore.selected.length === `+strconv.Itoa(found.Count)+` && !!window.mldrExplore.selection`, 10*time.Second)
	if got := sorted(eval[[]int](t, ctx, `window.mldrExplore.selected`)); !slices.Equal(got, sorted(found.Rows)) {
		t.Errorf("loading selected %d rows, want the %d saved", len(got), found.Count)
	}
	waitJS(t, ctx, "the views are filtered", `window.mldrExplore.views.pca.filtered === `+strconv.Itoa(found.Count)+` && window.mldrExplore.views.mds.filtered === `+strconv.Itoa(len(mdsOf(found.Rows))), 5*time.Second)
	if got, w := text(t, ctx, `[data-testid="selection-count"]`), fmt.Sprintf("%d of 600 rows in the saved selection “%s”.", found.Count, name); got != w {
		t.Errorf("the selection panel says %q, want %q", got, w)
	}
	shot(t, ctx, "55-explore-saved-filter")
	run(t, ctx, "show every row", chromedp.Click(chromedp.CSS(`[data-testid="explore-only"]`)))
	waitJS(t, ctx, "unfiltered", `window.mldrExplore.views.pca.filtered === 600`, 5*time.Second)

	// Delete it.
	run(t, ctx, "delete", chromedp.Click(chromedp.CSS(`[data-testid="saved-delete"]`)))
	waitJS(t, ctx, "the selection is deleted", `window.mldrExplore.saved.length === 0 && !!document.querySelector('[data-testid="saved-none"]')`, 10*time.Second)
	if l, status := fetchJSON[savedList](t, ctx, api+"/selections"); status != http.StatusOK || len(l.Selections) != 0 {
		t.Errorf("GET selections after deleting: got %d %+v, want 200 and none", status, l)
	}

	// Full screen: pca fills the window beside the controls, which work.
	small := eval[[]float64](t, ctx, `window.mldrExplore.views.pca.size`)
	run(t, ctx, "full screen", chromedp.Click(chromedp.CSS(`[data-testid="fullscreen-pca"]`)))
	waitJS(t, ctx, "pca fills the window", `window.mldrExplore.fullscreen === "pca"`, 5*time.Second)
	waitJS(t, ctx, "pca's plot takes the window's size", `(() => { const e = document.querySelector('[data-testid="scatter-pca"]'), s = window.mldrExplore.views.pca.size;
		return Math.abs(s[0] - e.clientWidth) < 2 && Math.abs(s[1] - e.clientHeight) < 2 && e.clientHeight >= innerHeight - 4; })()`, 5*time.Second)
	geo := eval[map[string]float64](t, ctx, `(() => { const r = document.querySelector('[data-testid="scatter-pca"]').getBoundingClientRect(), c = document.querySelector('[data-testid="explore"]').getBoundingClientRect();
		return {left: r.left, top: r.top, right: r.right, bottom: r.bottom, sideLeft: c.left, w: innerWidth, h: innerHeight}; })()`)
	if geo["left"] != 0 || geo["top"] != 0 || math.Abs(geo["bottom"]-geo["h"]) > 2 || geo["right"] > geo["sideLeft"]+1 || geo["right"] < geo["w"]/2 {
		t.Errorf("full screen, pca's view is at %v: want it from the window's top left to its bottom, up to the controls' column", geo)
	}
	if f := eval[string](t, ctx, `document.activeElement.getAttribute("data-testid") || ""`); f != "scatter-pca" {
		t.Errorf("full screen, the focus is on %q, want pca's view", f)
	}
	if !eval[bool](t, ctx, `(() => { const s = document.querySelector('[data-testid="explore-colour"]'), r = s.getBoundingClientRect(); return document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2) === s; })()`) {
		t.Error("full screen, the colour control is covered")
	}
	run(t, ctx, "colour by label a, full screen",
		chromedp.SetValue(chromedp.CSS(`[data-testid="explore-colour"]`), "label:a"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid="explore-colour"]').dispatchEvent(new Event("change", {bubbles: true}))`))
	waitJS(t, ctx, "coloured by label a", `window.mldrExplore.controls.colour === "label:a" && window.mldrExplore.legend.text === "label a"`, 10*time.Second)
	shot(t, ctx, "56-explore-fullscreen")
	run(t, ctx, "Esc leaves full screen", chromedp.Focus(chromedp.CSS(`[data-testid="explore-search"]`)), chromedp.KeyEvent(kb.Escape))
	waitJS(t, ctx, "back on the page", `window.mldrExplore.fullscreen === null && !document.body.classList.contains("explore-fullscreen")`, 5*time.Second)
	waitJS(t, ctx, "pca's plot takes its size again", `(() => { const s = window.mldrExplore.views.pca.size; return s[0] === `+ftoa(small[0])+` && s[1] === `+ftoa(small[1])+`; })()`, 5*time.Second)

	// The density layer counts the rows in the window and follows the zoom.
	run(t, ctx, "density", chromedp.Click(chromedp.CSS(`[data-testid="explore-density"]`)))
	inView := `(() => { const v = window.mldrExplore.views.pca, r = document.querySelector('[data-testid="scatter-pca"]').getBoundingClientRect(); let k = 0;
		for (let i = 0; i < v.state.rows; i++) { const [x, y] = v.position(i); if (x >= r.left && y >= r.top && x <= r.left + v.size[0] && y <= r.top + v.size[1]) { k++; } } return k; })()`
	waitJS(t, ctx, "the density layer is drawn", `!!window.mldrExplore.views.pca.density && !!window.mldrExplore.views.mds.density`, 5*time.Second)
	d0 := eval[map[string]float64](t, ctx, `window.mldrExplore.views.pca.density`)
	if w := eval[float64](t, ctx, inView); d0["total"] != w || d0["bins"] < 10 || d0["max"] < 2 {
		t.Errorf("the density layer: %v, want all %v rows in view counted in 10 or more hexagons", d0, w)
	}
	shot(t, ctx, "57-explore-density")
	run(t, ctx, "zoom in", chromedp.Focus(chromedp.CSS(`[data-testid="scatter-pca"]`)), chromedp.KeyEvent("+"), chromedp.KeyEvent("+"), chromedp.KeyEvent("+"), chromedp.KeyEvent("+"), chromedp.KeyEvent(kb.ArrowLeft))
	waitJS(t, ctx, "zoomed", `window.mldrExplore.views.pca.camera.distance < 0.45`, 5*time.Second)
	// The layer is recounted after the camera settles; on a busy machine
	// that may take longer than a frame or two.
	waitJS(t, ctx, "the density layer follows the zoom", `(() => { const d = window.mldrExplore.views.pca.density; return !!d && d.total === `+inView+`; })()`, 10*time.Second)
	d1 := eval[map[string]float64](t, ctx, `window.mldrExplore.views.pca.density`)
	if w := eval[float64](t, ctx, inView); d1["total"] != w || d1["total"] >= d0["total"] || d1["total"] == 0 {
		t.Errorf("zoomed in, the density layer counts %v rows, want the %v in view (fewer than %v)", d1["total"], w, d0["total"])
	}
	gap := eval[float64](t, ctx, `(() => { const v = window.mldrExplore.views.pca; let m = 0;
		for (let i = 0; i < v.state.rows; i += 7) { const a = v.position(i), b = v.densityPosition(i); m = Math.max(m, Math.abs(a[0] - b[0]), Math.abs(a[1] - b[1])); } return m; })()`)
	if gap > 0.5 {
		t.Errorf("the density layer places rows up to %.2f px from where the scatter draws them, want under 0.5", gap)
	}
	shot(t, ctx, "58-explore-density-zoomed")
	run(t, ctx, "no density", chromedp.Click(chromedp.CSS(`[data-testid="explore-density"]`)))
	waitJS(t, ctx, "the layer is gone", `window.mldrExplore.views.pca.density === null && document.querySelector('[data-testid="scatter-pca"] .density-layer').hidden`, 5*time.Second)
}
