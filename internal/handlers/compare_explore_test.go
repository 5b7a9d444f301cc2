package handlers_test

import (
	"testing"

	"github.com/PuerkitoBio/goquery"

	"mldr/internal/jobs"
)

// TestCompareExploreSlots: the compare page holds, for the scatter script,
// one explorer root a job and one slot a projection, named by the method
// and the static figure behind it; jobs on one data set share a link
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
			roots := doc.Find(`[data-testid="compare-job"] [data-explore]`)
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
				job := sl.Closest(`[data-testid="compare-job"]`).Find(`[data-job]`).AttrOr("data-job", "")
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
}
