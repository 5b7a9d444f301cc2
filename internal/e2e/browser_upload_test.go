package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// TestBrowserUploadProgress sends yeast (2.4 MB) through the upload form
// with the browser's uploads throttled to 600 kB/s: the form says how much
// has been sent while it goes, with its button disabled, and then opens
// the stored data set's page. A second upload is cancelled midway, which
// stores nothing and leaves the form ready to send again.
func TestBrowserUploadProgress(t *testing.T) {
	ctx := browser(t)
	a := start(t, t.TempDir())
	yeast := sharedFile(t, "yeast/yeast.csv")

	run(t, ctx, "open the home page", chromedp.Navigate(a.url+"/"), chromedp.WaitVisible(chromedp.CSS(`#file`)))
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatalf("enabling the network domain: %v", err)
	}
	if _, err := chromedp.Call(ctx, network.EmulateNetworkConditionsByRule, network.EmulateNetworkConditionsByRuleParams{
		MatchedNetworkConditions: []*network.Conditions{{DownloadThroughput: -1, UploadThroughput: 600e3}},
	}); err != nil {
		t.Fatalf("throttling uploads: %v", err)
	}

	// state is what the form shows: the progress bar's value and maximum,
	// the note shown and the one spoken (a live region), whether the button
	// is disabled.
	type state struct {
		Value, Max float64
		Note, Said string
		Disabled   bool
	}
	const read = `(() => {
		const box = document.querySelector('[data-testid="upload-progress"]');
		const bar = box && box.querySelector("progress");
		return {Value: bar ? bar.value : -1, Max: bar ? bar.max : -1,
			Note: box ? box.querySelector("[data-upload-note]").textContent : "", Said: box ? box.querySelector('[role="status"]').textContent : "",
			Disabled: document.querySelector('[data-testid="upload-submit"]').disabled};
	})()`
	// midway waits until the bar shows part of the file sent.
	midway := func(what string) state {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			s := eval[state](t, ctx, read)
			if s.Value > 0 && s.Value < s.Max {
				return s
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Fatalf("%s: the form never showed part of the file sent (%+v)", what, eval[state](t, ctx, read))
		return state{}
	}

	run(t, ctx, "send yeast",
		chromedp.SetUploadFiles(chromedp.CSS(`#file`), []string{yeast}),
		chromedp.Click(chromedp.CSS(`[data-testid="upload-submit"]`)))
	s := midway("sending yeast")
	if !strings.HasPrefix(s.Note, "Sending: ") || !strings.Contains(s.Note, " of 2.4 MB)") || !strings.HasPrefix(s.Said, "Sending") || !s.Disabled {
		t.Errorf("midway the form shows %+v, want \"Sending: n %% (… of 2.4 MB)\" and its button disabled", s)
	}
	if s.Max < 2.4e6 || s.Max > 2.5e6 {
		t.Errorf("the bar's maximum is %.0f bytes, want the form's size, 2.4–2.5 MB", s.Max)
	}
	shot(t, ctx, "upload-progress")
	run(t, ctx, "wait for yeast's page", chromedp.WaitVisible(chromedp.CSS(`[data-testid="summary"]`)))
	waitURL(t, ctx, "notice=uploaded")
	if got := text(t, ctx, `[data-testid="rows"]`); got != "2417" {
		t.Errorf("yeast rows: got %q, want 2417", got)
	}

	run(t, ctx, "send yeast again",
		chromedp.Navigate(a.url+"/"), chromedp.WaitVisible(chromedp.CSS(`#file`)),
		chromedp.SetUploadFiles(chromedp.CSS(`#file`), []string{yeast}),
		chromedp.Click(chromedp.CSS(`[data-testid="upload-submit"]`)))
	midway("sending yeast again")
	run(t, ctx, "cancel it", chromedp.Click(chromedp.CSS(`[data-upload-cancel]`)))
	s = eval[state](t, ctx, read)
	if s.Note != "Cancelled; nothing was stored." || s.Said != s.Note || s.Disabled || s.Value != 0 {
		t.Errorf("after cancelling the form shows %+v, want \"Cancelled; nothing was stored.\", the bar empty and the button enabled", s)
	}
	if !eval[bool](t, ctx, `location.pathname === "/"`) {
		t.Errorf("after cancelling the page is %s, want the home page", eval[string](t, ctx, `location.href`))
	}
	if n := countDatasets(t, a.url); n != 1 {
		t.Errorf("after the cancelled upload the server has %d data sets, want 1", n)
	}
}

// countDatasets asks the server how many data sets it has (GET
// /api/datasets, a JSON array).
func countDatasets(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url + "/api/datasets")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var list []json.RawMessage
	if err := json.Unmarshal(b, &list); err != nil {
		t.Fatalf("reading the data set list %.200s: %v", b, err)
	}
	return len(list)
}
