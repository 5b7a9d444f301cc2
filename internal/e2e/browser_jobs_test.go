package e2e

import (
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// waitJS polls a JavaScript condition until it is true (bounded).
func waitJS(t *testing.T, ctx context.Context, what, cond string, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if eval[bool](t, ctx, cond) {
			return
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatalf("%s: %s did not become true within %v", what, cond, limit)
}

// hover moves the real mouse over a data point of a figure (data
// coordinates, mapped through the figure's metadata as the page's script
// does) and returns the tooltip's text.
func hover(t *testing.T, ctx context.Context, fig string, x, y float64) string {
	t.Helper()
	// Scroll first and let the page settle: a scroll moves content under
	// the old pointer position, and the browser's own mouse event for that
	// must come before ours.
	eval[bool](t, ctx, `(() => { document.querySelector(`+strconv.Quote(fig)+`).scrollIntoView({block: "center"}); return true; })()`)
	time.Sleep(300 * time.Millisecond)
	js := `(() => {
		const f = document.querySelector(` + strconv.Quote(fig) + `);
		const m = JSON.parse(f.dataset.meta), r = f.querySelector("svg").getBoundingClientRect(), s = r.width / m.w;
		const fx = m.xlog ? Math.log(` + ftoa(x) + ` / m.xmin) / Math.log(m.xmax / m.xmin) : (` + ftoa(x) + ` - m.xmin) / (m.xmax - m.xmin);
		const fy = m.ylog ? Math.log(` + ftoa(y) + ` / m.ymin) / Math.log(m.ymax / m.ymin) : (` + ftoa(y) + ` - m.ymin) / (m.ymax - m.ymin);
		const px = m.x0 + (m.x1 - m.x0) * fx, py = m.y1 - (m.y1 - m.y0) * fy;
		return [r.left + px * s, r.top + py * s];
	})()`
	at := eval[[]float64](t, ctx, js)
	run(t, ctx, "move the mouse over "+fig, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Call(ctx, input.DispatchMouseEvent, input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMouseMoved, X: at[0], Y: at[1]})
		return err
	}))
	read := `(() => { const t = document.querySelector(` + strconv.Quote(fig+" .tooltip") + `); return t.hidden ? null : t.textContent; })()`
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if tip := eval[*string](t, ctx, read); tip != nil {
			return *tip
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatalf("no tooltip on %s at (%v, %v)", fig, x, y)
	return ""
}

func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// TestBrowserAnalysis is the researcher's first session: upload emotions,
// look at its labels, compare pca, mddmp and cplst with ML-kNN, follow the
// job live until the results appear without a reload, read the plots and
// the table, recolour the projection, download a projection matrix. The
// browser has no WebGL: this is the page of the static figures (with
// WebGL the interactive scatter takes their place; TestBrowserExplore).
func TestBrowserAnalysis(t *testing.T) {
	ctx := browser(t, chromedp.Flag("disable-webgl", true))
	a := start(t, t.TempDir(), "-workers", "1")
	emotions := sharedFile(t, "emotions/emotions.csv")

	run(t, ctx, "upload emotions through the form",
		chromedp.Navigate(a.url+"/"),
		chromedp.SetUploadFiles(chromedp.CSS(`#file`), []string{emotions}),
		chromedp.Click(chromedp.CSS(`[data-testid="upload-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="summary"]`)))
	for sel, want := range map[string]string{"rows": "593", "features": "72", "labels": "6"} {
		if got := text(t, ctx, `[data-testid="`+sel+`"]`); got != want {
			t.Errorf("emotions %s: %q, want %q", sel, got, want)
		}
	}
	// The data set's plots, and a heatmap cell under the mouse.
	if n := eval[int](t, ctx, `document.querySelectorAll('figure#labels svg, figure#nmi svg').length`); n != 2 {
		t.Errorf("%d of the label frequency and NMI plots shown", n)
	}
	tip := hover(t, ctx, "figure#nmi", 1, 5) // row 0, column 1
	if !strings.Contains(tip, "amazed-suprised × happy-pleased") || !strings.Contains(tip, "NMI") {
		t.Errorf("NMI tooltip %q", tip)
	}
	shot(t, ctx, "10-dataset")
	datasetURL := eval[string](t, ctx, `location.pathname`)

	// A job that keeps the only worker busy, so that the analysis waits in
	// the queue and the page must follow it live.
	blocker := jtSubmit(ctx, t, a, map[string]any{
		"dataset": strings.TrimPrefix(datasetURL, "/datasets/"), "methods": []string{"pca", "mvmd", "mlsi", "cca", "mddmp", "lpp"},
		"split":    map[string]any{"kind": "kfold", "folds": 10, "seed": 1},
		"evaluate": map[string]any{"classifier": "mlknn", "percent": []float64{10, 20, 30, 40, 50, 60, 70, 80, 90, 100}, "of": "rank"},
	})

	run(t, ctx, "open the analysis form",
		chromedp.Click(chromedp.CSS(`[data-testid="new-analysis"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="analyze-form"]`)))
	visible := func(sel string) bool {
		return eval[bool](t, ctx, `!document.querySelector(`+strconv.Quote(sel)+`).closest("[data-param]").hidden`)
	}
	if visible("#lambda") || visible("#beta") || !visible("#thr") || visible("#d") {
		t.Error("with pca and mddmp ticked, the form should show thr only among d, thr, β and λ")
	}
	run(t, ctx, "tick cplst", chromedp.Click(chromedp.CSS(`[data-testid="pick-cplst"]`)))
	if !visible("#lambda") || visible("#beta") {
		t.Error("ticking cplst does not show λ (or shows β)")
	}
	run(t, ctx, "choose a 5-fold split", chromedp.SetValue(chromedp.CSS(`#split`), "kfold"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector("#split").dispatchEvent(new Event("change", {bubbles: true}))`),
		chromedp.SetValue(chromedp.CSS(`#folds`), "5"))
	if eval[bool](t, ctx, `document.querySelector("#test_fraction").closest("[data-split]").hidden === false`) {
		t.Error("the test share is shown for a k-fold split")
	}
	// The svm's c and eps show with the svm only.
	classifier := func(c string) []chromedp.Action[chromedp.Void] {
		return []chromedp.Action[chromedp.Void]{chromedp.SetValue(chromedp.CSS(`#classifier`), c),
			chromedp.Evaluate[chromedp.Void](`document.querySelector("#classifier").dispatchEvent(new Event("change", {bubbles: true}))`)}
	}
	svmShown := func() bool {
		return eval[bool](t, ctx, `!document.querySelector("#eval_c").closest("[data-classifier]").hidden`)
	}
	if svmShown() {
		t.Error("the svm's c and eps show with ML-kNN")
	}
	run(t, ctx, "choose the linear SVM", classifier("svm")...)
	if !svmShown() {
		t.Error("choosing the linear SVM does not show its c and eps")
	}
	run(t, ctx, "choose ML-kNN again", classifier("mlknn")...)
	shot(t, ctx, "11-analyze")
	run(t, ctx, "start the analysis", chromedp.Click(chromedp.CSS(`[data-testid="analyze-submit"]`)))
	waitURL(t, ctx, "notice=started")
	if got := text(t, ctx, `[data-status-text]`); got != "queued" {
		t.Fatalf("the new job is %q, want queued behind the other", got)
	}
	// Record what the status panel shows; a reload would lose the record.
	eval[bool](t, ctx, `(() => {
		window.seen = [];
		setInterval(() => {
			const s = document.querySelector("[data-status-text]").textContent + " " + document.querySelector("[data-progress]").value;
			if (window.seen[window.seen.length - 1] !== s) window.seen.push(s);
		}, 5);
		return true;
	})()`)
	shot(t, ctx, "12-job-queued")
	jtDo(ctx, t, "POST", a.url+"/api/jobs/"+blocker+"/cancel", "", nil)

	waitJS(t, ctx, "the results appear", `!!document.querySelector('[data-testid="metrics-table"]')`, 90*time.Second)
	seen := eval[[]string](t, ctx, `window.seen`)
	running := false
	for _, s := range seen {
		if f := strings.Fields(s); f[0] == "running" {
			running = true
		}
	}
	if !running || seen[len(seen)-1] != "succeeded 1" {
		t.Errorf("the status panel showed %v; want running with progress, then succeeded 1", seen)
	}
	if e := text(t, ctx, `[data-elapsed]`); !strings.HasSuffix(e, "s") {
		t.Errorf("elapsed time %q", e)
	}
	if eval[int](t, ctx, `document.querySelectorAll('[data-testid="cancel"]').length`) != 0 {
		t.Error("a finished job still offers to cancel")
	}
	for _, m := range []string{"pca", "mddmp", "cplst"} {
		for _, kind := range []string{"spectrum", "projection"} {
			if eval[int](t, ctx, `document.querySelectorAll('figure#`+kind+`-`+m+` svg').length`) != 1 {
				t.Errorf("no %s plot of %s", kind, m)
			}
		}
	}
	if eval[int](t, ctx, `document.querySelectorAll('[data-testid="curves"] figure svg').length`) != 1 {
		t.Error("no metric curves")
	}
	head := eval[[]string](t, ctx, `[...document.querySelectorAll('[data-testid="metrics-table"] thead th')].map(th => th.textContent)`)
	if strings.Join(head, "|") != "d|PCA|MDDM (orthonormal directions)|CPLST|ori" {
		t.Errorf("metrics table columns %q", head)
	}
	// pca's d run to 72, the label-space methods' to 6: d on a log axis.
	if !eval[bool](t, ctx, `JSON.parse(document.querySelector('[data-testid="curves"] figure').dataset.meta).xlog === true`) {
		t.Error("the curves of d from 1 to 72 are not on a log axis")
	}
	tip = hover(t, ctx, `[data-testid="curves"] figure`, 1, eval[float64](t, ctx,
		`JSON.parse(document.querySelector('[data-testid="curves"] figure').dataset.meta).series.find(s => s.name === "CPLST").y[0]`))
	if !strings.HasPrefix(tip, "CPLST, d = 1: ") {
		t.Errorf("curves tooltip %q", tip)
	}
	shot(t, ctx, "13-job-results")

	// Recolour the projections by keyboard: the next choice after "number
	// of labels" is "label set".
	run(t, ctx, "colour by label set", chromedp.Focus(chromedp.CSS(`#colour`)), chromedp.KeyEvent(kb.ArrowDown))
	waitJS(t, ctx, "the projections are recoloured", `document.querySelector('figure#projection-pca .plot-svg').getAttribute("aria-label").includes("coloured by label set")`, 30*time.Second)
	if !eval[bool](t, ctx, `location.search.includes("colour=set") && Array.isArray(window.seen)`) {
		t.Error("recolouring did not keep the address in step, or reloaded the page")
	}
	if id := eval[string](t, ctx, `document.activeElement.id`); id != "colour" {
		t.Errorf("after recolouring the focus is on %q, want the colour select", id)
	}
	run(t, ctx, "colour by the label happy-pleased",
		chromedp.SetValue(chromedp.CSS(`#colour`), "label:happy-pleased"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector("#colour").dispatchEvent(new Event("change", {bubbles: true}))`))
	waitJS(t, ctx, "coloured by a label", `document.querySelector('figure#projection-mddmp .plot-svg').getAttribute("aria-label").includes("label happy-pleased")`, 30*time.Second)
	legend := eval[[]string](t, ctx, `JSON.parse(document.querySelector('figure#projection-mddmp').dataset.meta).cols`)
	if strings.Join(legend, "|") != "without happy-pleased|with happy-pleased" {
		t.Errorf("projection groups %q", legend)
	}
	pt := eval[[]float64](t, ctx, `(() => { const p = JSON.parse(document.querySelector('figure#projection-mddmp').dataset.meta).points[0]; return [p.x, p.y]; })()`)
	if tip := hover(t, ctx, "figure#projection-mddmp", pt[0], pt[1]); !strings.Contains(tip, "row ") || !strings.Contains(tip, "happy-pleased") {
		t.Errorf("projection tooltip %q", tip)
	}
	shot(t, ctx, "14-job-recoloured")

	// Download pca's projection matrix as a browser does.
	dir, files := download(t, ctx, "projection.csv",
		chromedp.Click(chromedp.CSS(`[data-testid="method-pca"] details summary`)),
		chromedp.Click(chromedp.CSS(`[data-testid="downloads-pca"] a[href*="projection.csv"]`)))
	if len(files) != 1 || !strings.HasPrefix(files[0], "emotions_pca_") || !strings.HasSuffix(files[0], "projection.csv") {
		t.Fatalf("downloaded %v", files)
	}
	f, err := os.Open(filepath.Join(dir, files[0]))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("reading %s: %v", files[0], err)
	}
	d := eval[int](t, ctx, `+document.querySelector('[data-testid="method-pca"] h3').textContent.match(/d = (\d+)/)[1]`)
	if len(rows) != 1+72 || len(rows[0]) != 1+d {
		t.Errorf("%s is %d×%d, want a header and 72 features × (name + d = %d)", files[0], len(rows), len(rows[0]), d)
	}

	// The jobs page lists both; compare shows the finished one.
	run(t, ctx, "open the jobs page", chromedp.Navigate(a.url+"/jobs"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="job-table"]`)))
	if n := eval[int](t, ctx, `document.querySelectorAll('[data-testid="job-row"]').length`); n != 2 {
		t.Errorf("%d jobs listed, want 2", n)
	}
	shot(t, ctx, "15-jobs")
	run(t, ctx, "compare the finished job",
		chromedp.Click(chromedp.CSS(`[data-testid="compare-form"] input[name=jobs]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="compare-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="compare-bar"]`)))
	if n := eval[int](t, ctx, `document.querySelectorAll('main figure svg').length`); n != 7 {
		t.Errorf("compare shows %d plots, want 7 (curves, 3 spectra, 3 projections)", n)
	}
	shot(t, ctx, "16-compare")
}

func ptr[T any](v T) *T { return &v }

// download lets the browser save files to a new directory, does the
// actions (which click a download link) and waits for the download to
// complete, as a browser does it; it returns the directory and the names
// of the files in it.
func download(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	progress := chromedp.Events(ctx, cdpbrowser.DownloadProgress)
	run(t, ctx, "allow downloads", chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Call(ctx, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
			Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllow, DownloadPath: dir, EventsEnabled: ptr(true)})
		return err
	}))
	run(t, ctx, "download "+what, actions...)
	for ev, err := range progress {
		if err != nil {
			t.Fatalf("download %s: %v", what, err)
		}
		if ev.State == cdpbrowser.DownloadProgressStateCompleted {
			break
		}
		if ev.State == cdpbrowser.DownloadProgressStateCanceled {
			t.Fatalf("the download of %s was canceled", what)
		}
	}
	return dir, dirNames(t, dir)
}

// TestBrowserDropUpload drops a file on the upload form, as a user drags
// one from their desktop, and uploads it.
func TestBrowserDropUpload(t *testing.T) {
	ctx := browser(t)
	a := start(t, t.TempDir())
	run(t, ctx, "open the home page", chromedp.Navigate(a.url+"/"), chromedp.WaitVisible(chromedp.CSS(`[data-dropzone]`)))
	if eval[bool](t, ctx, `document.querySelector("[data-dropzone] .js-only").hidden`) {
		t.Error("the drop hint stays hidden with JavaScript on")
	}
	eval[bool](t, ctx, `(() => {
		const dt = new DataTransfer();
		dt.items.add(new File(["a,b,label:x,label:y\n1,2,0,1\n3,4,1,1\n5,6,1,0\n"], "dropped.csv", {type: "text/csv"}));
		const zone = document.querySelector("[data-dropzone]");
		zone.dispatchEvent(new DragEvent("dragover", {dataTransfer: dt, bubbles: true, cancelable: true}));
		zone.dispatchEvent(new DragEvent("drop", {dataTransfer: dt, bubbles: true, cancelable: true}));
		return true;
	})()`)
	if got := text(t, ctx, `[data-file-name]`); got != "Chosen: dropped.csv" {
		t.Errorf("after the drop the form says %q", got)
	}
	run(t, ctx, "upload the dropped file",
		chromedp.Click(chromedp.CSS(`[data-testid="upload-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="summary"]`)))
	if r, l := text(t, ctx, `[data-testid="rows"]`), text(t, ctx, `[data-testid="labels"]`); r != "3" || l != "2" {
		t.Errorf("the dropped file gave %s rows and %s labels, want 3 and 2", r, l)
	}
}

// TestBrowserLogin is a shared server: the browser is sent to the login
// form, a wrong token is refused beside the field, the right one leads
// back to the page asked for, the session cookie is out of the script's
// reach, and logging out ends it.
func TestBrowserLogin(t *testing.T) {
	ctx := browser(t)
	const token = "a-lab-token-0123456789"
	a := start(t, t.TempDir(), "-token", token)
	run(t, ctx, "open the jobs page", chromedp.Navigate(a.url+"/jobs"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="login-form"]`)))
	shot(t, ctx, "20-login")
	if next := eval[string](t, ctx, `document.querySelector('input[name=next]').value`); next != "/jobs" {
		t.Errorf("the login form returns to %q, want /jobs", next)
	}
	run(t, ctx, "a wrong token",
		chromedp.SendKeys(chromedp.CSS(`#token`), "not-the-token"),
		chromedp.Click(chromedp.CSS(`[data-testid="login-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#login-error`)))
	if got := text(t, ctx, `#login-error`); !strings.Contains(got, "not this server's access token") {
		t.Errorf("wrong token: %q", got)
	}
	if eval[string](t, ctx, `document.querySelector('#token').getAttribute('aria-invalid')`) != "true" {
		t.Error("the token field is not marked invalid")
	}
	run(t, ctx, "the right token",
		chromedp.SendKeys(chromedp.CSS(`#token`), token),
		chromedp.Click(chromedp.CSS(`[data-testid="login-submit"]`)))
	waitURL(t, ctx, "/jobs")
	if h := text(t, ctx, `h1`); h != "Jobs" {
		t.Errorf("after logging in the page is %q", h)
	}
	if c := eval[string](t, ctx, `document.cookie`); c != "" {
		t.Errorf("the script can read cookies %q; the session must be HttpOnly", c)
	}
	shot(t, ctx, "21-logged-in")
	run(t, ctx, "log out", chromedp.Click(chromedp.CSS(`[data-testid="logout"]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid="login-form"]`)))
	run(t, ctx, "the jobs page again", chromedp.Navigate(a.url+"/jobs"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="login-form"]`)))
}
