package e2e

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserComparePick is a researcher choosing jobs to compare among
// many: the picker's filters by text (a method, a job's id), by data set
// and by method show only the jobs that match and hide a data set's
// group left empty, the count says how many are shown, and a ticked job
// stays in sight whatever the filters.
func TestBrowserComparePick(t *testing.T) {
	ctx := browser(t)
	a := start(t, t.TempDir(), "-workers", "1")
	one, code := a.upload("clusters.csv", clusteredCSV(90))
	if code != http.StatusCreated {
		t.Fatalf("uploading clusters.csv: got %d, want 201", code)
	}
	two, code := a.upload("others.csv", clusteredCSV(60))
	if code != http.StatusCreated {
		t.Fatalf("uploading others.csv: got %d, want 201", code)
	}
	var ids []string // pca and mddmp on clusters, cplst on others
	for _, j := range []struct{ ds, method string }{{one.ID, "pca"}, {one.ID, "mddmp"}, {two.ID, "cplst"}} {
		id := jtSubmit(ctx, t, a, map[string]any{"dataset": j.ds, "methods": []string{j.method}, "params": map[string]any{"d": 2}})
		if got := jtPoll(ctx, t, a, id, "the job finished", func(j jtJob) bool { return jtTerminal(j.Status) }); got.Status != "succeeded" {
			t.Fatalf("the %s job %s: %s", j.method, got.Status, got.Error)
		}
		ids = append(ids, id)
	}

	run(t, ctx, "open the compare page", chromedp.EmulateViewport(1024, 900), chromedp.Navigate(a.url+"/compare"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="pick-q"]`)))

	// shown is the ids of the jobs the picker shows, and the data sets of
	// the groups it shows.
	shown := func() (jobs, groups string) {
		got := eval[[]string](t, ctx, `[[...document.querySelectorAll('[data-pick-job]')].filter((e) => !e.hidden && !e.closest("[hidden]")).map((e) => e.querySelector("input").value).join(","),
			[...document.querySelectorAll('[data-pick-group]')].filter((e) => !e.hidden).map((e) => e.getAttribute("data-pick-group")).join(",")]`)
		return got[0], got[1]
	}
	set := func(testid, value string) {
		t.Helper()
		eval[bool](t, ctx, `(() => { const e = document.querySelector('[data-testid="`+testid+`"]'); e.value = `+strconv.Quote(value)+`; e.dispatchEvent(new Event(e.tagName === "SELECT" ? "change" : "input", {bubbles: true})); return true; })()`)
	}
	check := func(what, wantJobs, wantGroups, wantCount string) {
		t.Helper()
		jobs, groups := shown()
		if jobs != wantJobs || groups != wantGroups {
			t.Errorf("%s: jobs %q in groups %q shown, want %q in %q", what, jobs, groups, wantJobs, wantGroups)
		}
		if got := text(t, ctx, `[data-testid="pick-count"]`); got != wantCount {
			t.Errorf("%s: the count says %q, want %q", what, got, wantCount)
		}
	}
	all := strings.Join([]string{ids[2], ids[1], ids[0]}, ",") // newest first
	groupsAll := eval[string](t, ctx, `[...document.querySelectorAll('[data-pick-group]')].map((e) => e.getAttribute("data-pick-group")).join(",")`)
	if !strings.Contains(groupsAll, one.Name) || !strings.Contains(groupsAll, two.Name) {
		t.Fatalf("the picker's groups are %q, want one for %s and one for %s", groupsAll, one.Name, two.Name)
	}
	jobsAll, _ := shown()
	for _, id := range ids {
		if !strings.Contains(jobsAll, id) {
			t.Fatalf("the picker shows %q, want every job (%s)", jobsAll, all)
		}
	}
	check("no filter", jobsAll, groupsAll, "3 jobs")

	// By text: a method's name, then a job's id.
	run(t, ctx, "type a method's name", chromedp.SendKeys(chromedp.CSS(`[data-testid="pick-q"]`), "mddm"))
	check("text mddm", ids[1], one.Name, "1 of 3 jobs shown")
	set("pick-q", ids[2][:8])
	check("text "+ids[2][:8], ids[2], two.Name, "1 of 3 jobs shown")
	set("pick-q", "")
	check("text cleared", jobsAll, groupsAll, "3 jobs")

	// By data set, then by method.
	set("pick-dataset", two.Name)
	check("data set "+two.Name, ids[2], two.Name, "1 of 3 jobs shown")
	set("pick-dataset", one.Name)
	if jobs, _ := shown(); jobs != ids[1]+","+ids[0] && jobs != ids[0]+","+ids[1] {
		t.Errorf("data set %s: jobs %q shown, want %s and %s", one.Name, jobs, ids[0], ids[1])
	}
	set("pick-dataset", "")
	set("pick-method", "pca")
	check("method pca", ids[0], one.Name, "1 of 3 jobs shown")

	// A ticked job stays shown, its group too, whatever the filters.
	set("pick-method", "")
	run(t, ctx, "tick the cplst job", chromedp.Click(chromedp.CSS(`input[name="jobs"][value="`+ids[2]+`"]`)))
	set("pick-method", "pca")
	jobs, groups := shown()
	if !strings.Contains(jobs, ids[0]) || !strings.Contains(jobs, ids[2]) || strings.Contains(jobs, ids[1]) || !strings.Contains(groups, two.Name) {
		t.Errorf("method pca with cplst's job ticked: jobs %q in groups %q, want pca's and the ticked cplst's", jobs, groups)
	}
	if got := text(t, ctx, `[data-testid="pick-count"]`); got != "2 of 3 jobs shown" {
		t.Errorf("method pca with a ticked job: the count says %q, want %q", got, "2 of 3 jobs shown")
	}
	run(t, ctx, "type text no job has", chromedp.SendKeys(chromedp.CSS(`[data-testid="pick-q"]`), "zzz"))
	if jobs, _ := shown(); jobs != ids[2] {
		t.Errorf("text zzz with cplst's job ticked: jobs %q shown, want only the ticked %s", jobs, ids[2])
	}
	shot(t, ctx, "compare-pick-filtered")

	// The ticked job is what Compare compares.
	set("pick-q", "")
	set("pick-method", "")
	run(t, ctx, "compare", chromedp.Click(chromedp.CSS(`[data-testid="compare-go"]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid="compare-views"]`)))
	if loc := eval[string](t, ctx, `location.search`); !strings.Contains(loc, "jobs="+ids[2]) {
		t.Errorf("the compare page opened %q, want the ticked job %s", loc, ids[2])
	}
}
