package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserStudy is a researcher comparing methods over several data
// sets: tick yeast, emotions and scene on the data sets page, start a
// study, watch it finish, read the table and the critical-difference
// diagram, and download comparison.tex for a paper.
func TestBrowserStudy(t *testing.T) {
	ctx := browser(t)
	a := start(t, t.TempDir(), "-workers", "1")
	var ids []string
	for _, rel := range []string{"yeast/yeast-train.csv", "emotions/emotions-train.csv", "scene/scene-train.csv"} {
		p := sharedFile(t, rel)
		ds, code := a.upload(filepath.Base(p), mustRead(t, p))
		if code != 201 {
			t.Fatalf("uploading %s: got %d, want 201", rel, code)
		}
		ids = append(ids, ds.ID)
	}
	run(t, ctx, "tick the three data sets and start a study",
		chromedp.Navigate(a.url+"/"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="study-start"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="study-pick-`+ids[0]+`"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="study-pick-`+ids[1]+`"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="study-pick-`+ids[2]+`"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="study-start"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="analyze-form"]`)))
	if h := text(t, ctx, "h1"); h != "Compare methods on 3 data sets" {
		t.Errorf("the study form's heading: %q", h)
	}
	if got := text(t, ctx, `[data-testid="study-datasets"]`); !strings.Contains(got, "yeast-train") || !strings.Contains(got, "scene-train") {
		t.Errorf("the study form names %q", got)
	}
	run(t, ctx, "choose pca, mddmp and cplst at d = 5 with ridge",
		chromedp.Click(chromedp.CSS(`[data-testid="pick-cplst"]`)),
		chromedp.Click(chromedp.CSS(`input[name="dim_mode"][value="d"]`)),
		chromedp.SetValue(chromedp.CSS(`#d`), "5"),
		chromedp.SetValue(chromedp.CSS(`#classifier`), "ridge"))
	shot(t, ctx, "30-study-form")
	run(t, ctx, "start the study", chromedp.Click(chromedp.CSS(`[data-testid="analyze-submit"]`)))
	waitURL(t, ctx, "/jobs/")
	if h := text(t, ctx, "h1"); !strings.HasPrefix(h, "Study ") || !strings.HasSuffix(h, "over 3 data sets") {
		t.Errorf("the study's heading: %q", h)
	}
	waitJS(t, ctx, "the study's results appear", `!!document.querySelector('[data-testid="study-table"]')`, 90*time.Second)

	// The table: one row per data set, the best of each in bold, the
	// average ranks last.
	rows := eval[[]string](t, ctx, `[...document.querySelectorAll('[data-testid="study-table"] tbody tr')].map(r => r.querySelector("th").textContent)`)
	slices.Sort(rows) // in the order of the data sets page
	if strings.Join(rows, ",") != "emotions-train,scene-train,yeast-train" {
		t.Errorf("table rows %q", rows)
	}
	if cols := eval[[]string](t, ctx, `[...document.querySelectorAll('[data-testid="study-table"] thead th')].map(c => c.textContent)`); strings.Join(cols, ",") != "data set,ori,PCA,MDDM (orthonormal directions),CPLST" {
		t.Errorf("table columns %q", cols)
	}
	if n := eval[int](t, ctx, `[...document.querySelectorAll('[data-testid="study-table"] tbody tr')].filter(r => r.querySelector("strong")).length`); n != 3 {
		t.Errorf("%d of 3 data sets have their best in bold", n)
	}
	if got := text(t, ctx, `[data-testid="study-table"] tfoot th`); got != "average rank" {
		t.Errorf("last row %q", got)
	}
	if got := text(t, ctx, `[data-testid="study-summary"]`); !strings.Contains(got, "Friedman χ²F") || !strings.Contains(got, "N = 3 data sets and k = 4 methods") {
		t.Errorf("summary %q", got)
	}
	// The critical-difference diagram: every method at its average rank.
	cd := eval[[]string](t, ctx, `JSON.parse(document.querySelector('figure#cd').dataset.meta).cols`)
	if len(cd) != 4 {
		t.Errorf("the CD diagram shows %q", cd)
	}
	alt := eval[string](t, ctx, `document.querySelector('figure#cd .plot-svg').getAttribute("aria-label")`)
	if !strings.Contains(alt, "average ranks over 3 data sets") || !strings.Contains(alt, "Nemenyi CD") {
		t.Errorf("the CD diagram's text alternative: %q", alt)
	}
	at := eval[[]float64](t, ctx, `(() => { const m = JSON.parse(document.querySelector('figure#cd').dataset.meta); return [m.values[0][0], (m.ymin + m.ymax) / 2]; })()`)
	if tip := hover(t, ctx, "figure#cd", at[0], at[1]); !strings.Contains(tip, cd[0]+": average rank") {
		t.Errorf("CD diagram tooltip %q, want %s's average rank", tip, cd[0])
	}
	if tip := hover(t, ctx, "figure#ranks", 0, 2); !strings.Contains(tip, ", ori: rank ") {
		t.Errorf("rank heatmap tooltip %q, want the first data set's rank of ori", tip)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('[data-testid="study-pairs"] tbody tr').length`); n != 6 {
		t.Errorf("%d pairs, want 6", n)
	}
	shot(t, ctx, "31-study-results")

	// Another data set's curves, in place.
	run(t, ctx, "show scene's table",
		chromedp.SetValue(chromedp.CSS(`#dataset`), ids[2]),
		chromedp.Evaluate[chromedp.Void](`document.querySelector("#dataset").dispatchEvent(new Event("change", {bubbles: true}))`))
	waitJS(t, ctx, "scene's curves", `location.search.includes("dataset=`+ids[2]+`") && !document.querySelector("#results").hasAttribute("aria-busy") && document.querySelector("#dataset").value === "`+ids[2]+`"`, 30*time.Second)

	// comparison.tex, downloaded as a browser does.
	dir, files := download(t, ctx, "comparison.tex",
		chromedp.Click(chromedp.CSS(`[data-testid="study-downloads"] a[href$="comparison.tex"]`)))
	if len(files) != 1 || !strings.HasPrefix(files[0], "study-") || !strings.HasSuffix(files[0], "_comparison.tex") {
		t.Fatalf("downloaded %v", files)
	}
	tex, err := os.ReadFile(filepath.Join(dir, files[0]))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`\begin{tabular}`, `\toprule`, `\textbf{`, `\underline{`, "emotions-train", "Hamming loss $\\downarrow$", `$\pm$`} {
		if !strings.Contains(string(tex), want) {
			t.Errorf("%s has no %q", files[0], want)
		}
	}
}
