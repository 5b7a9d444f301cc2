package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserNumberedColumns uploads through the form the libsvm files of
// a few dozen bytes that use or declare millions of columns, and looks at
// their pages: the counts, the label frequency plot of the most frequent
// labels, the note that a libsvm file's labels cannot be chosen again
// (no relabel form of its numbered columns), and, for the file whose CSV
// would be billions of cells, the note in place of that download.
func TestBrowserNumberedColumns(t *testing.T) {
	ctx := browser(t)
	a := start(t, t.TempDir())
	dir := t.TempDir()
	for _, f := range []struct {
		name, body                string
		features, labels, csvNote string
	}{
		{"used.svm", "0,1999999 1:0.5 2:1.0\n1 1:0.2 2:0.3\n", "2", "3", ""},
		{"declared.svm", "2 3 2000000\n0 1:1\n5 2:1\n", "3", "2000000", ""},
		{"wide.svm", "0 2147483646:1 2:1.0\n1 1:0.2 2:0.3\n", "2147483646", "2", "not offered as CSV"},
	} {
		path := filepath.Join(dir, f.name)
		if err := os.WriteFile(path, []byte(f.body), 0o644); err != nil {
			t.Fatal(err)
		}
		run(t, ctx, "upload "+f.name,
			chromedp.Navigate(a.url+"/"),
			chromedp.SetUploadFiles(chromedp.CSS(`#file`), []string{path}),
			chromedp.Click(chromedp.CSS(`[data-testid="upload-submit"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="summary"]`)))
		shot(t, ctx, "costs-"+strings.TrimSuffix(f.name, ".svm"))
		if got := text(t, ctx, `[data-testid="features"]`); strings.ReplaceAll(got, " ", "") != f.features {
			t.Errorf("%s: features %q, want %s", f.name, got, f.features)
		}
		if got := text(t, ctx, `[data-testid="labels"]`); strings.ReplaceAll(got, " ", "") != f.labels {
			t.Errorf("%s: labels %q, want %s", f.name, got, f.labels)
		}
		if got := text(t, ctx, `[data-testid="numbered-labels"]`); !strings.Contains(got, "cannot be chosen again") {
			t.Errorf("%s: the relabel section says %q, want that the labels cannot be chosen again", f.name, got)
		}
		forms := eval[int](t, ctx, `document.querySelectorAll('[data-testid="relabel-form"]').length`)
		if forms != 0 {
			t.Errorf("%s: got %d relabel forms, want none", f.name, forms)
		}
		refused := eval[int](t, ctx, `document.querySelectorAll('[data-testid="csv-refused"]').length`)
		if (refused > 0) != (f.csvNote != "") {
			t.Errorf("%s: CSV refused on the page %v, want %v", f.name, refused > 0, f.csvNote != "")
		}
		if f.csvNote != "" {
			if got := text(t, ctx, `[data-testid="csv-refused"]`); !strings.Contains(got, f.csvNote) || !strings.Contains(got, "/source") {
				t.Errorf("%s: the CSV note says %q", f.name, got)
			}
		}
	}
}
