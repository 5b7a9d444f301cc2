package handlers_test

import (
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"mldr/internal/jobs"
	"mldr/internal/views"
)

// TestCompareExploreSlots: the compare page holds, for the scatter script,
// one control bar with one explorer root a job, and a grid of views, one
// slot a projection, each in a card named by its method and job, the slot
// naming the method, the job and the static figure behind it (whose
// download links are in the card); jobs on one data set share a link
// group, jobs on different ones each have their own and the page carries
// the note (shown by the script) that selections link only within a job.
func TestCompareExploreSlots(t *testing.T) {
	s := newJobServer(t, 1, 10, nil)
	ml := s.demo("multilabel")
	md := s.demo("multidim")
	a := s.startAnalysis(ml, analysisForm("pca", "mddmp"))
	b := s.startAnalysis(ml, analysisForm("pca"))
	c := s.startAnalysis(md, analysisForm("pca"))
	for _, id := range []string{a, b, c} {
		s.waitJob(id, jobs.Succeeded)
	}
	const note = "The jobs use different data sets, so a selection is linked only within each job."
	tests := []struct {
		name      string
		ids       []string
		links     []string
		slots     int
		wantNote  bool
		scatterJS bool
	}{
		{"same data set", []string{a, b}, []string{"compare", "compare"}, 3, false, true},
		{"different data sets", []string{a, c}, []string{a, c}, 3, true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc := s.page("/compare?jobs=" + tc.ids[0] + "," + tc.ids[1])
			if n := doc.Find(`[data-testid="compare-bar"]`).Length(); n != 1 {
				t.Fatalf("got %d control bars, want 1", n)
			}
			if n := doc.Find(`[data-explore]`).Length(); n != len(tc.ids) {
				t.Errorf("got %d explorer roots on the page, want %d, all in the bar", n, len(tc.ids))
			}
			roots := doc.Find(`[data-testid="compare-bar"] [data-explore]`)
			if roots.Length() != len(tc.ids) {
				t.Fatalf("got %d explorer roots, want %d", roots.Length(), len(tc.ids))
			}
			roots.Each(func(i int, r *goquery.Selection) {
				if got, want := r.AttrOr("data-explore", ""), "/api/jobs/"+tc.ids[i]; got != want {
					t.Errorf("root %d: data-explore %q, want %q", i, got, want)
				}
				if got := r.AttrOr("data-job", ""); got != tc.ids[i] {
					t.Errorf("root %d: data-job %q, want %q", i, got, tc.ids[i])
				}
				if got := r.AttrOr("data-link", ""); got != tc.links[i] {
					t.Errorf("root %d: data-link %q, want %q", i, got, tc.links[i])
				}
			})
			slots := doc.Find(`[data-scatter]`)
			if slots.Length() != tc.slots {
				t.Errorf("got %d scatter slots, want %d", slots.Length(), tc.slots)
			}
			slots.Each(func(_ int, sl *goquery.Selection) {
				fig := sl.AttrOr("data-figure", "")
				card := sl.Closest(`[data-testid="compare-view"]`)
				job, method := sl.AttrOr("data-scatter-job", ""), sl.AttrOr("data-scatter", "")
				if card.AttrOr("data-view-job", "") != job || card.AttrOr("data-view-method", "") != method {
					t.Errorf("slot %s of job %s is in the card of %s of job %s", method, job, card.AttrOr("data-view-method", ""), card.AttrOr("data-view-job", ""))
				}
				if h, want := card.Find("h3").Text(), views.MethodName(method)+" job "+job[:8]; !strings.HasPrefix(h, want) {
					t.Errorf("slot %s: the card's heading %q, want it to start %q", method, h, want)
				}
				if card.Find("figure a[data-png]").Length() != 1 || card.Find("figure a[data-svg]").Length() != 1 {
					t.Errorf("slot %s of job %s: its card lacks its figure's PNG and SVG links", method, job)
				}
				if want := "projection-" + job + "-" + sl.AttrOr("data-scatter", ""); fig != want {
					t.Errorf("slot %q: data-figure %q, want %q", sl.AttrOr("data-scatter", ""), fig, want)
				}
				if doc.Find("figure#"+fig).Length() != 1 {
					t.Errorf("slot %q: no figure #%s", sl.AttrOr("data-scatter", ""), fig)
				}
			})
			n := doc.Find(`[data-testid="compare-link-note"]`)
			if got := n.Length() == 1; got != tc.wantNote {
				t.Errorf("the note is there: got %v, want %v", got, tc.wantNote)
			}
			if tc.wantNote && n.Text() != note {
				t.Errorf("the note says %q, want %q", n.Text(), note)
			}
			if got := doc.Find(`script[src="/static/scatter.js"]`).Length() == 1; got != tc.scatterJS {
				t.Errorf("the scatter script is there: got %v, want %v", got, tc.scatterJS)
			}
		})
	}
	// The picker groups the finished jobs by data set, each job carrying
	// what the filter reads, and offers the data sets and methods.
	doc := s.page("/compare")
	groups := doc.Find(`[data-testid="compare-pick"] [data-testid="pick-group"]`)
	if groups.Length() != 2 {
		t.Fatalf("the picker has %d groups, want 2 (one a data set)", groups.Length())
	}
	count := 0
	groups.Each(func(_ int, g *goquery.Selection) {
		name := g.AttrOr("data-pick-group", "")
		if !strings.HasPrefix(strings.TrimSpace(g.Find("legend").Text()), name) {
			t.Errorf("group %q: legend %q", name, g.Find("legend").Text())
		}
		g.Find("[data-pick-job]").Each(func(_ int, j *goquery.Selection) {
			count++
			if j.AttrOr("data-dataset", "") != name || j.AttrOr("data-methods", "") == "" || j.AttrOr("data-created", "") == "" {
				t.Errorf("group %q: a job with data-dataset %q, data-methods %q, data-created %q", name, j.AttrOr("data-dataset", ""), j.AttrOr("data-methods", ""), j.AttrOr("data-created", ""))
			}
		})
	})
	if count != 3 {
		t.Errorf("the picker lists %d jobs, want 3", count)
	}
	for _, f := range []string{"pick-q", "pick-dataset", "pick-method", "pick-since"} {
		id := doc.Find(`[data-testid="`+f+`"]`).AttrOr("id", "")
		if id == "" || doc.Find(`label[for="`+id+`"]`).Length() != 1 {
			t.Errorf("the filter's %s has no label", f)
		}
	}
	if got := doc.Find(`[data-testid="pick-method"] option`).Length(); got != 3 {
		t.Errorf("the method filter offers %d choices, want 3 (any, mddmp, pca)", got)
	}
}
