package handlers_test

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"mldr/internal/comparison"
	"mldr/internal/jobs"
)

// studyCSV is a small multi-label data set whose labels follow its
// features, made with seed.
func studyCSV(seed uint64) string {
	rng := rand.New(rand.NewPCG(seed, 1))
	var b strings.Builder
	b.WriteString("f1,f2,f3,f4,f5,label:a,label:b,label:c\n")
	for range 90 {
		var x [5]float64
		for j := range x {
			x[j] = rng.NormFloat64()
		}
		bit := func(v float64) int {
			if v+0.5*rng.NormFloat64() > 0 {
				return 1
			}
			return 0
		}
		fmt.Fprintf(&b, "%.4f,%.4f,%.4f,%.4f,%.4f,%d,%d,%d\n", x[0], x[1], x[2], x[3], x[4], bit(x[0]), bit(x[1]-x[2]), bit(x[3]))
	}
	return b.String()
}

// uploadStudySets uploads n small data sets and returns their ids.
func (s *server) uploadStudySets(n int) []string {
	s.t.Helper()
	var ids []string
	for i := range n {
		resp, body := s.upload("/api/datasets", part{name: "file", file: fmt.Sprintf("set%d.csv", i+1), body: studyCSV(uint64(i + 1))})
		if resp.StatusCode != http.StatusCreated {
			s.t.Fatalf("upload: got %d %s, want 201", resp.StatusCode, body)
		}
		ids = append(ids, decode[apiDataset](s.t, body).ID)
	}
	return ids
}

func TestStudyAPI(t *testing.T) {
	s := newJobServer(t, 1, 0, nil)
	ids := s.uploadStudySets(3)
	list := `"` + strings.Join(ids, `","`) + `"`
	resp, body := s.submit(`{"datasets":[` + list + `],"methods":["pca","mddmp"],"params":{"d":2},"split":{"kind":"kfold","folds":3},"evaluate":{"classifier":"ridge"}}`)
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("submit: got %d %v, want 202", resp.StatusCode, body)
	}
	id := body["id"].(string)
	s.waitJob(id, jobs.Succeeded)
	get := func(path string) (*http.Response, []byte) { return s.do("GET", "/api/jobs/"+id+path, "", nil) }

	resp, b := get("/comparison.json")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("comparison.json: got %d %s", resp.StatusCode, b)
	}
	c := decode[comparison.File](t, b)
	if len(c.Comparisons) == 0 || strings.Join(c.Comparisons[0].Methods, ",") != "ori,pca,mddmp" || len(c.Comparisons[0].Datasets) != 3 {
		t.Errorf("comparison.json: %+v", c.Comparisons)
	}
	for _, tc := range []struct {
		path, ctype string
		status      int
		says        string
	}{
		{"/comparison.csv", "text/csv; charset=utf-8", 200, "metric,d,percent,dataset"},
		{"/comparison.tex", "text/x-tex; charset=utf-8", 200, `\begin{tabular}{llrrrrr}` + "\n\\toprule\nData set & Method & Hamming loss $\\downarrow$ & Ranking loss $\\downarrow$ & One-error $\\downarrow$ & Coverage $\\downarrow$ & Average precision $\\uparrow$ \\\\\n"},
		{"/comparison.tex?metrics=micro_f1,hamming_loss", "text/x-tex; charset=utf-8", 200, "Data set & Method & Micro-F1 $\\uparrow$ & Hamming loss $\\downarrow$ \\\\"},
		{"/comparison.tex?metrics=micro_f1&metrics=hamming_loss&at=own", "text/x-tex; charset=utf-8", 200, "\\label{tab:mldr-"},
		{"/comparison-standalone.tex", "text/x-tex; charset=utf-8", 200, "\\documentclass{article}"},
		{"/comparison.md", "text/markdown; charset=utf-8", 200, "| Data set | Method | Hamming loss ↓ |"},
		{"/comparison.md?metrics=bogus", "application/json", 400, "its metrics are"},
		{"/comparison.md?metrics=micro_f1,micro_f1", "application/json", 400, "listed twice"},
		{"/comparison.tex?d=3", "application/json", 400, "no comparison at d="},
		{"/comparison.tex?at=cubic", "application/json", 400, "at must be"},
		{"/metrics.json", "application/json", 200, `"dataset"`},
		{"/experiment.json", "application/json", 200, `"datasets"`},
		{"/projection.csv", "application/json", 404, "a study has no result"},
		{"/plots/cd.svg?metric=hamming_loss", "image/svg+xml", 200, "<svg"},
		{"/plots/cd.png?metric=hamming_loss&alpha=0.10", "image/png", 200, "PNG"},
		{"/plots/ranks.svg", "image/svg+xml", 200, "<svg"},
		{"/plots/curves.svg?dataset=" + ids[1], "image/svg+xml", 200, "<svg"},
		{"/plots/cd.svg?metric=bogus", "application/json", 400, "its metrics are"},
		{"/plots/cd.svg?alpha=0.2", "application/json", 400, "alpha must be 0.05 or 0.10"},
		{"/plots/cd.svg?d=7", "application/json", 400, "no comparison at d="},
		{"/plots/cd.svg?at=cubic", "application/json", 400, "at must be"},
		{"/plots/curves.svg?dataset=nope", "application/json", 400, "did not run on data set"},
	} {
		resp, b := get(tc.path)
		if resp.StatusCode != tc.status || !strings.HasPrefix(resp.Header.Get("Content-Type"), tc.ctype) || !strings.Contains(string(b), tc.says) {
			t.Errorf("%s: got %d %s %.200q, want %d %s containing %q", tc.path, resp.StatusCode, resp.Header.Get("Content-Type"), b, tc.status, tc.ctype, tc.says)
		}
	}
	for _, f := range []string{"comparison.tex", "comparison-standalone.tex", "comparison.md"} {
		if resp, _ := get("/" + f); !strings.Contains(resp.Header.Get("Content-Disposition"), "study-"+id[:8]+"_"+f) {
			t.Errorf("download name of %s: %s", f, resp.Header.Get("Content-Disposition"))
		}
	}

	// The page: the table, the diagram, the pairs, each data set's curves.
	resp, b = s.do("GET", "/jobs/"+id+"?metric=hamming_loss&dataset="+ids[2], "", nil)
	page := string(b)
	for _, want := range []string{`data-testid="study"`, `data-testid="study-table"`, `data-testid="study-pairs"`, `data-testid="study-paired-t"`,
		"Friedman χ²F", "average rank", `id="cd"`, `id="ranks"`, `data-testid="curves"`, `value="` + ids[2] + `" selected`,
		`<p class="hint" data-testid="study-wilcoxon-caveat">With N = 3 data sets the smallest two-sided Wilcoxon p-value attainable is 0.25 (after Holm&#39;s adjustment over the 3 pairs, 0.75): no pair can differ significantly at the 0.05 level, whatever the scores.</p>`,
		`data-testid="study-rank-caveat">Friedman&#39;s and Nemenyi&#39;s tests rest on large-sample approximations`,
		`href="/api/jobs/` + id + `/comparison-standalone.tex"`, `href="/api/jobs/` + id + `/comparison.md"`} {
		if !strings.Contains(page, want) {
			t.Errorf("study page: no %q", want)
		}
	}
	if resp.StatusCode != http.StatusOK {
		t.Errorf("study page: got %d", resp.StatusCode)
	}
	if resp, _ := s.do("GET", "/jobs/"+id+"?alpha=1", "", nil); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("study page with alpha=1: got %d, want 400", resp.StatusCode)
	}

	// A job on one data set has no study plots.
	resp, body = s.submit(`{"dataset":"` + ids[0] + `","method":"pca","params":{"d":2},"evaluate":{"classifier":"ridge"}}`)
	one := body["id"].(string)
	s.waitJob(one, jobs.Succeeded)
	if resp, b := s.do("GET", "/api/jobs/"+one+"/plots/cd.svg", "", nil); resp.StatusCode != http.StatusNotFound || !strings.Contains(string(b), "study") {
		t.Errorf("cd.svg of a single job: got %d %s, want 404", resp.StatusCode, b)
	}
	for _, f := range []string{"comparison.json", "comparison.tex", "comparison.md"} {
		if resp, _ := s.do("GET", "/api/jobs/"+one+"/"+f, "", nil); resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s of a single job: got %d, want 404", f, resp.StatusCode)
		}
	}
}

func TestStudyPages(t *testing.T) {
	s := newJobServer(t, 1, 0, nil)
	ids := s.uploadStudySets(2)
	md := s.demo("multidim")
	// The data sets page offers the study.
	_, b := s.do("GET", "/", "", nil)
	if !strings.Contains(string(b), `data-testid="study-start"`) || !strings.Contains(string(b), `name="datasets" value="`+ids[0]+`"`) {
		t.Error("the data sets page has no study form")
	}
	for _, tc := range []struct {
		name, query string
		status      int
		says        string
	}{
		{"one data set", "datasets=" + ids[0], 400, "at least two data sets"},
		{"unknown", "datasets=" + ids[0] + "&datasets=nope", 404, "no data set"},
		{"kinds mixed", "datasets=" + ids[0] + "&datasets=" + md, 400, "one kind"},
		{"two", "datasets=" + ids[0] + "&datasets=" + ids[1], 200, `name="datasets" value="` + ids[1] + `"`},
	} {
		resp, b := s.do("GET", "/study?"+tc.query, "", nil)
		if resp.StatusCode != tc.status || !strings.Contains(string(b), tc.says) {
			t.Errorf("%s: got %d, want %d with %q", tc.name, resp.StatusCode, tc.status, tc.says)
		}
	}
	_, b = s.do("GET", "/study?datasets="+ids[0]+"&datasets="+ids[1], "", nil)
	if !strings.Contains(string(b), `<option value="rank" selected>rank it with the methods</option>`) {
		t.Error("the study form does not offer to rank the baseline, ranking it by default")
	}
	form := url.Values{"datasets": ids, "methods": {"pca", "mddmp"}, "dim_mode": {"d"}, "d": {"2"}, "classifier": {"ridge"}, "split": {"kfold"},
		"folds": {"3"}, "seed": {"1"}, "eval_k": {"10"}, "eval_lambda": {"0.1"}, "preprocess": {"none"}, "rank_baseline": {"show"}}
	resp, b := s.send("POST", "/study", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, strings.NewReader(form.Encode()))
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/jobs/") {
		t.Fatalf("POST /study: got %d %s", resp.StatusCode, b)
	}
	id := strings.TrimSuffix(strings.TrimPrefix(resp.Header.Get("Location"), "/jobs/"), "?notice=started")
	j := s.waitJob(id, jobs.Succeeded)
	if len(j.Request.Datasets) != 2 || j.Request.Split.Folds != 3 || j.Request.RanksBaseline() {
		t.Errorf("the study's request: %+v, want ori left out of the ranks", j.Request)
	}
	_, b = s.do("GET", "/api/jobs/"+id+"/comparison.json", "", nil)
	if c := decode[comparison.File](t, b).Comparisons[0]; !slices.Equal(c.Unranked, []string{"ori"}) || c.AverageRanks["ori"] != nil || c.AverageRanks["pca"] == nil {
		t.Errorf("comparison.json of a study that does not rank ori: unranked %v, average ranks %v", c.Unranked, c.AverageRanks)
	}
	resp, b = s.do("GET", "/jobs/"+id, "", nil)
	_, ranked, _ := strings.Cut(string(b), "average ranks over 2 data sets, best first: ")
	ranked, _, _ = strings.Cut(ranked, ". ")
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), "ori (no reduction) shown, but left out of the ranks") ||
		!strings.Contains(ranked, "PCA") || strings.Contains(ranked, "ori") {
		t.Errorf("the page of a study that does not rank ori: got %d and the CD diagram's ranks %q, want it to say so and rank pca and mddmp only", resp.StatusCode, ranked)
	}
	if resp, b := s.do("GET", "/api/jobs/"+id+"/plots/ranks.svg", "", nil); resp.StatusCode != http.StatusOK {
		t.Errorf("ranks.svg of a study that does not rank ori: got %d %.200s", resp.StatusCode, b)
	}
	form.Set("rank_baseline", "maybe")
	if resp, b := s.send("POST", "/study", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, strings.NewReader(form.Encode())); resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), "not &#34;maybe&#34;") {
		t.Errorf("POST /study with rank_baseline=maybe: got %d, want 400 naming it\n%.500s", resp.StatusCode, b)
	}
	form.Set("rank_baseline", "show")
	_, b = s.do("GET", "/jobs", "", nil)
	if !strings.Contains(string(b), "study over 2 data sets (set1, set2)") {
		t.Error("the jobs page does not name the study")
	}
	if _, b := s.do("GET", "/compare?jobs="+id, "", nil); !strings.Contains(string(b), "is a study over several data sets") {
		t.Error("the compare page takes a study without saying it compares on its own page")
	}
	// A refusal shows the form again with the error.
	form.Set("d", "9")
	resp, b = s.send("POST", "/study", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, strings.NewReader(form.Encode()))
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(string(b), "On data set set1") {
		t.Errorf("POST /study with d = 9: got %d, want 422 naming set1\n%s", resp.StatusCode, b)
	}
}
