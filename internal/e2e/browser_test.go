package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

const chromiumPath = "/usr/bin/chromium"

// browser starts headless Chromium, or skips (fails when
// MLDR_REQUIRE_BROWSER=1) if it is not installed. extra options come
// after the defaults (softwareGL gives it WebGL).
func browser(t *testing.T, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("MLDR_REQUIRE_BROWSER") == "1" {
			t.Fatalf("%s is missing: install Debian's chromium package", chromiumPath)
		}
		t.Skipf("%s is missing: install Debian's chromium package to run browser tests", chromiumPath)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(1280, 1000),
		chromedp.UserDataDir(t.TempDir()),
	)
	opts = append(opts, extra...)
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, cancelB := chromedp.NewContext(actx)
	// The first call starts the browser, on a context without a timeout
	// (a timeout there would stop the browser); the steps then get one.
	if err := chromedp.Do(bctx); err != nil {
		cancelB()
		cancelA()
		t.Fatalf("starting chromium: %v", err)
	}
	// Every page records what its Content-Security-Policy blocked; shot
	// checks that nothing was.
	if _, err := chromedp.Call(bctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
		Source: `window.cspViolations = []; document.addEventListener("securitypolicyviolation", e => window.cspViolations.push(e.violatedDirective + " " + e.blockedURI));`,
	}); err != nil {
		t.Fatalf("watching for CSP violations: %v", err)
	}
	ctx, cancelC := context.WithTimeout(bctx, 2*time.Minute)
	t.Cleanup(func() { cancelC(); cancelB(); cancelA() })
	return ctx
}

// shot checks that the page broke none of its security policy, and keeps
// a full-page screenshot when MLDR_SCREENSHOTS names a directory.
func shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	if v := eval[[]string](t, ctx, `window.cspViolations || ["the violation recorder did not run"]`); len(v) > 0 {
		t.Errorf("%s: the Content-Security-Policy blocked %q", name, v)
	}
	dir := os.Getenv("MLDR_SCREENSHOTS")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Errorf("screenshot %s: %v", name, err)
		return
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Error(err)
	}
}

func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("reading %s: %v", sel, err)
	}
	return strings.TrimSpace(s)
}

func run(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("evaluating %s: %v", js, err)
	}
	return v
}

// waitURL waits until the page's address contains part and the page has
// loaded.
func waitURL(t *testing.T, ctx context.Context, part string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if eval[bool](t, ctx, `location.href.includes(`+strconv.Quote(part)+`) && document.readyState === "complete"`) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the page did not reach an address with %q", part)
}

// TestBrowserFirstVisit walks through what a new user does: the empty
// home page, a demo in one click, a broken upload and its explanation, a
// real upload, relabelling and deleting.
func TestBrowserFirstVisit(t *testing.T) {
	ctx := browser(t)
	a := start(t, t.TempDir())

	run(t, ctx, "open the home page", chromedp.Navigate(a.url+"/"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="empty-state"]`)))
	shot(t, ctx, "1-home-empty")
	if got := text(t, ctx, `[data-testid="empty-state"] h2`); got != "No data sets yet" {
		t.Errorf("empty state: got %q", got)
	}

	// Keyboard: the first Tab reaches the skip link.
	run(t, ctx, "tab to the skip link", chromedp.KeyEvent("\t"))
	active := eval[string](t, ctx, `document.activeElement.textContent`)
	if active != "Skip to content" {
		t.Errorf("first Tab focuses %q, want the skip link", active)
	}

	run(t, ctx, "add the multi-label demo",
		chromedp.Click(chromedp.CSS(`[data-testid="demo-multilabel"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="summary"]`)))
	shot(t, ctx, "2-demo")
	if got := text(t, ctx, `[data-testid="rows"]`); got != "600" {
		t.Errorf("demo rows: got %q, want 600", got)
	}
	if got := text(t, ctx, `[data-testid="kind"]`); got != "multi-label" {
		t.Errorf("demo kind: got %q", got)
	}

	broken := filepath.Join(t.TempDir(), "broken.csv")
	os.WriteFile(broken, []byte("a,b,label:y\n1,2,0\n3,4,1\n5,oops,1\n"), 0o644)
	run(t, ctx, "upload a broken file",
		chromedp.Navigate(a.url+"/"),
		chromedp.SetUploadFiles(chromedp.CSS(`#file`), []string{broken}),
		chromedp.Click(chromedp.CSS(`[data-testid="upload-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="form-error"]`)))
	shot(t, ctx, "3-upload-refused")
	if got := text(t, ctx, `[data-testid="form-error"]`); !strings.Contains(got, `"oops" is not a number`) {
		t.Errorf("error: got %q", got)
	}
	if l, c := text(t, ctx, `[data-testid="error-line"]`), text(t, ctx, `[data-testid="error-column"]`); l != "4" || c != "b" {
		t.Errorf("got line %q column %q, want 4 and b", l, c)
	}

	yeast := sharedFile(t, "yeast/yeast.csv")
	run(t, ctx, "upload yeast",
		chromedp.SetUploadFiles(chromedp.CSS(`#file`), []string{yeast}),
		chromedp.Click(chromedp.CSS(`[data-testid="upload-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="summary"]`)))
	shot(t, ctx, "4-yeast")
	for sel, want := range map[string]string{"rows": "2417", "features": "103", "labels": "14", "cardinality": "4.237", "distinct": "198"} {
		if got := text(t, ctx, `[data-testid="`+sel+`"]`); got != want {
			t.Errorf("yeast %s: got %q, want %q", sel, got, want)
		}
	}

	run(t, ctx, "make Class14 a feature",
		chromedp.Click(chromedp.CSS(`input[value="label:Class14"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="relabel-submit"]`)))
	waitURL(t, ctx, "notice=relabelled")
	if f, l := text(t, ctx, `[data-testid="features"]`), text(t, ctx, `[data-testid="labels"]`); f != "104" || l != "13" {
		t.Errorf("after relabel got %s features and %s labels, want 104 and 13", f, l)
	}

	run(t, ctx, "delete yeast",
		chromedp.Click(chromedp.CSS(`.danger summary`)),
		chromedp.Click(chromedp.CSS(`[data-testid="delete-confirm"]`)))
	waitURL(t, ctx, "notice=deleted")
	shot(t, ctx, "5-after-delete")
	rows := eval[int](t, ctx, `document.querySelectorAll('[data-testid="dataset-row"]').length`)
	if rows != 1 {
		t.Errorf("after delete got %d data sets, want 1 (the demo)", rows)
	}
}
