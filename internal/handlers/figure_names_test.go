package handlers_test

import (
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"mldr/internal/jobs"
)

// TestJobPageFiguresNamed: on a job's page every figure's download links
// stand in its caption beside its title, above the plot (so that, with
// the static projection behind the interactive scatter, the links still
// say which figure they download), and a label-space method (cplst) says
// that its scatter shows label codes; a feature-space one (pca) does not.
func TestJobPageFiguresNamed(t *testing.T) {
	s := newJobServer(t, 1, 10, nil)
	ml := s.demo("multilabel")
	id := s.startAnalysis(ml, analysisForm("pca", "cplst"))
	s.waitJob(id, jobs.Succeeded)
	doc := s.page("/jobs/" + id)
	figs := doc.Find("figure[data-figure]")
	if figs.Length() < 4 {
		t.Fatalf("got %d figures, want at least 4 (2 spectra, 2 projections)", figs.Length())
	}
	figs.Each(func(_ int, f *goquery.Selection) {
		cap := f.Children().First()
		if !cap.Is("figcaption") {
			t.Errorf("figure %s: its first child is <%s>, want the caption", f.AttrOr("id", ""), goquery.NodeName(cap))
		}
		title := strings.TrimSpace(cap.Find(`[data-testid="figure-title"]`).Text())
		if title == "" {
			t.Errorf("figure %s: its caption has no title", f.AttrOr("id", ""))
		}
		if cap.Find("a[data-png]").Length() != 1 || cap.Find("a[data-svg]").Length() != 1 {
			t.Errorf("figure %s: the caption lacks its PNG and SVG links", f.AttrOr("id", ""))
		}
		if l := cap.Find("a[data-png]").AttrOr("aria-label", ""); l != title+", PNG" {
			t.Errorf("figure %s: the PNG link is named %q, want %q", f.AttrOr("id", ""), l, title+", PNG")
		}
	})
	note := doc.Find(`[data-testid="space-note-cplst"]`)
	if note.Length() != 1 || !strings.Contains(note.Text(), "label codes") || !strings.Contains(note.Text(), "distinct label sets") {
		t.Errorf("cplst's note: %q, want one saying its scatter shows label codes of the distinct label sets", note.Text())
	}
	if n := doc.Find(`[data-testid="space-note-pca"]`).Length(); n != 0 {
		t.Errorf("pca has %d label-space notes, want none", n)
	}
}
