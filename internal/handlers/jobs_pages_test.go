package handlers_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"mldr/internal/analysis"
	"mldr/internal/jobs"
)

// postForm posts a url-encoded form.
func (s *server) postForm(path string, form url.Values) (*http.Response, []byte) {
	s.t.Helper()
	return s.do("POST", path, "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
}

// analysisForm is the analysis form as a browser sends it with its
// defaults, for the methods given.
func analysisForm(methods ...string) url.Values {
	f := url.Values{
		"dim_mode": {"thr"}, "thr": {"0.99"}, "d": {""}, "beta": {"0.5"}, "gamma": {""}, "lambda": {"0.1"}, "ridge": {""},
		"label_kernel": {"linear"}, "k": {"10"}, "classifier": {"mlknn"}, "split": {"holdout"}, "test_fraction": {"0.25"},
		"folds": {"10"}, "seed": {"7"}, "grid_mode": {"dims"}, "grid": {"1, 2, 4"}, "grid_of": {"features"}, "eval_k": {"5"}, "eval_lambda": {"0.1"},
	}
	f["methods"] = methods
	return f
}

// startAnalysis submits the form and returns the new job's ID.
func (s *server) startAnalysis(dataset string, form url.Values) string {
	s.t.Helper()
	resp, body := s.postForm("/datasets/"+dataset+"/analyze", form)
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/jobs/") || !strings.HasSuffix(loc, "?notice=started") {
		s.t.Fatalf("submitting the analysis: %d %q\n%s", resp.StatusCode, loc, body)
	}
	return strings.TrimSuffix(strings.TrimPrefix(loc, "/jobs/"), "?notice=started")
}

func (s *server) page(path string) *goquery.Document {
	s.t.Helper()
	resp, body := s.do("GET", path, "", nil)
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		s.t.Fatalf("GET %s: %d %s\n%s", path, resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	return parseHTML(s.t, body)
}

// checkFigure checks a figure's structure: inline SVG with a text
// alternative, links to its PNG, SVG and PDF and to its PDF a column and a
// page of a paper wide, each named for the figure and the format, and
// returns its metadata.
func checkFigure(t *testing.T, s *server, fig *goquery.Selection, what string) map[string]any {
	t.Helper()
	if fig.Length() != 1 {
		t.Fatalf("%s: %d figures", what, fig.Length())
	}
	img := fig.Find(`.plot-svg[role="img"]`)
	if alt, _ := img.Attr("aria-label"); len(alt) < 20 {
		t.Errorf("%s: text alternative %q", what, alt)
	}
	if img.Find("svg").Length() != 1 {
		t.Errorf("%s: no inline SVG", what)
	}
	var meta map[string]any
	raw, _ := fig.Attr("data-meta")
	if err := json.Unmarshal([]byte(raw), &meta); err != nil {
		t.Errorf("%s: data-meta %q: %v", what, raw, err)
	}
	title := fig.Find(".plot-svg svg title").Text()
	for _, link := range []struct{ sel, ctype, magic, name, query string }{
		{"a[data-png]", "image/png", "\x89PNG", ", PNG", ""},
		{"a[data-svg]", "image/svg+xml", "<", ", SVG", ""},
		{"a[data-pdf]", "application/pdf", "%PDF-", ", PDF", ""},
		{"a[data-pdf-column]", "application/pdf", "%PDF-", ", PDF 3.3 in wide", "width=column"},
		{"a[data-pdf-page]", "application/pdf", "%PDF-", ", PDF 7 in wide", "width=page"},
	} {
		a := fig.Find(link.sel)
		href, _ := a.Attr("href")
		if label, _ := a.Attr("aria-label"); title == "" || !strings.HasPrefix(label, title+link.name) || !strings.Contains(label, a.Text()) {
			t.Errorf("%s: link %q is named %q, want the figure's title %q, %q and its text", what, a.Text(), label, title, link.name)
		}
		if link.query != "" && !strings.Contains(href, link.query) {
			t.Errorf("%s: %s has no %s", what, href, link.query)
		}
		resp, body := s.do("GET", href, "", nil)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != link.ctype || !bytes.HasPrefix(bytes.TrimSpace(body), []byte(link.magic)) {
			t.Errorf("%s: %s gave %d %s %.20q", what, href, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
	}
	return meta
}

func TestDatasetPageFigures(t *testing.T) {
	s := newJobServer(t, 1, 10, nil)
	id := s.demo("multilabel")
	doc := s.page("/datasets/" + id)
	checkFigure(t, s, doc.Find("figure#labels"), "label frequency")
	meta := checkFigure(t, s, doc.Find("figure#nmi"), "NMI heatmap")
	if meta["kind"] != "heatmap" {
		t.Errorf("NMI meta kind %v", meta["kind"])
	}
	table := doc.Find(`[data-testid="nmi-table"] table`)
	if n := table.Find("tbody tr").Length(); n != 6 {
		t.Errorf("NMI table has %d rows, want 6", n)
	}
	// The diagonal of an NMI matrix is 1 for a label that is not constant.
	if c := table.Find("tbody tr").First().Find("td").First().Text(); c != "1.00" {
		t.Errorf("NMI diagonal cell %q", c)
	}
	if doc.Find("figure#rank").Length() != 0 {
		t.Error("a data set of 6 labels shows the rank–frequency plot; want it only beyond the 50 the bars show")
	}
	if href, _ := doc.Find(`a[data-testid="new-analysis"]`).Attr("href"); href != "/datasets/"+id+"/analyze" {
		t.Errorf("New analysis link %q", href)
	}

	md := s.demo("multidim")
	doc = s.page("/datasets/" + md)
	if doc.Find("figure#nmi").Length() != 0 || doc.Find(`[data-testid="class-table"]`).Length() != 3 {
		t.Error("a multi-dimensional data set shows an NMI heatmap or lacks its class tables")
	}
	for _, name := range []string{"nmi", "rank"} {
		if resp, _ := s.do("GET", "/api/datasets/"+md+"/plots/"+name+".svg", "", nil); resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s plot of multi-dimensional data: %d, want 404", name, resp.StatusCode)
		}
	}
	for path, want := range map[string]int{"/plots/labels.gif": 404, "/plots/other.svg": 404, "/plots/labels.svg": 200, "/plots/rank.png": 200} {
		if resp, _ := s.do("GET", "/api/datasets/"+id+path, "", nil); resp.StatusCode != want {
			t.Errorf("%s: %d, want %d", path, resp.StatusCode, want)
		}
	}
}

// The server's limit on pairwise methods shows on the form, before anyone
// submits, and the API refuses such a job naming the flag.
func TestPairwiseLimit(t *testing.T) {
	s := newJobServerLimited(t, 1, 10, nil, jobs.Limits{MaxPairwiseRows: 10})
	ml := s.demo("multilabel")
	form := s.page("/datasets/" + ml + "/analyze").Find(`form[data-testid="analyze-form"]`)
	for _, id := range []string{"lpp", "kcplst"} {
		in := form.Find(`input[value=` + id + `]`)
		if _, dis := in.Attr("disabled"); !dis || !strings.Contains(in.Parent().Text(), "At most 10 rows") {
			t.Errorf("%s is offered beyond the limit: %q", id, in.Parent().Text())
		}
	}
	if _, dis := form.Find(`input[value=pca]`).Attr("disabled"); dis {
		t.Error("pca is disabled by the pairwise limit")
	}
	resp, body := s.do("POST", "/api/jobs", "application/json", strings.NewReader(`{"dataset":"`+ml+`","method":"lpp"}`))
	if code := resp.StatusCode; code != http.StatusUnprocessableEntity || !strings.Contains(string(body), "-max-pairwise-rows") {
		t.Errorf("lpp beyond the limit: %d %s", resp.StatusCode, body)
	}
}

func TestAnalyzePage(t *testing.T) {
	s := newJobServer(t, 1, 10, nil)
	ml := s.demo("multilabel")
	doc := s.page("/datasets/" + ml + "/analyze")
	everyInputLabelled(t, doc)
	form := doc.Find(`form[data-testid="analyze-form"]`)
	if form.Length() != 1 {
		t.Fatal("no analysis form")
	}
	checked := form.Find(`input[name=methods]:checked`).Map(func(_ int, s *goquery.Selection) string { return s.AttrOr("value", "") })
	if strings.Join(checked, ",") != "pca,mddmp" {
		t.Errorf("default methods %v", checked)
	}
	sdem := form.Find(`input[value=sdem]`)
	if _, dis := sdem.Attr("disabled"); !dis || !strings.Contains(sdem.Parent().Text(), "Needs multi-dimensional data") {
		t.Error("sdem is offered for multi-label data")
	}
	if takes := form.Find(`input[value=mddmf]`).AttrOr("data-takes", ""); !strings.Contains(takes, "beta") {
		t.Errorf("mddmf takes %q", takes)
	}
	for sel, want := range map[string]string{"#thr": "0.99", "#beta": "0.5", "#lambda": "0.1", "#k": "10"} {
		if v := form.Find(sel).AttrOr("value", ""); v != want {
			t.Errorf("%s defaults to %q, want %q", sel, v, want)
		}
	}
	if form.Find(`[data-param~="beta"] #beta`).Length() != 1 || form.Find(`[data-param~="gamma"] #gamma`).Length() != 1 {
		t.Error("parameters are not marked with the methods that take them")
	}
	if hint := form.Find("#d-hint").Text(); !strings.Contains(hint, "pca 24") {
		t.Errorf("the d limits say %q", hint)
	}
	if form.Find(`option[value="predefined"]`).Length() != 0 {
		t.Error("predefined folds offered for a data set without folds")
	}
	// Every method has a paper or a reason it is not offered.
	form.Find("label.method-choice").Each(func(_ int, l *goquery.Selection) {
		if l.Find(".paper").Length() == 0 && !l.HasClass("disabled") {
			t.Errorf("method %q shows no paper", l.Find("input").AttrOr("value", ""))
		}
	})

	md := s.demo("multidim")
	doc = s.page("/datasets/" + md + "/analyze")
	checked = doc.Find(`input[name=methods]:checked`).Map(func(_ int, s *goquery.Selection) string { return s.AttrOr("value", "") })
	if strings.Join(checked, ",") != "pca,sdem" {
		t.Errorf("default methods for multi-dimensional data %v", checked)
	}
	if _, dis := doc.Find(`input[value=mddmp]`).Attr("disabled"); !dis {
		t.Error("mddmp is offered for multi-dimensional data")
	}
}

func TestAnalyzeRefusals(t *testing.T) {
	s := newJobServer(t, 1, 10, nil)
	id := s.demo("multilabel")
	cases := []struct {
		name   string
		edit   func(url.Values)
		status int
		field  string // the input marked invalid
		says   string
	}{
		{"no method", func(f url.Values) { delete(f, "methods") }, 400, "", "method"},
		{"d not a number", func(f url.Values) { f.Set("dim_mode", "d"); f.Set("d", "abc") }, 400, "#d", "d must be a whole number"},
		{"d too large", func(f url.Values) { f.Set("dim_mode", "d"); f.Set("d", "500"); f.Set("grid", "") }, 422, "#d", "500"},
		{"thr out of range", func(f url.Values) { f.Set("thr", "1.5") }, 400, "#thr", "thr"},
		{"beta not a number", func(f url.Values) { f.Set("beta", "x"); f["methods"] = []string{"mddmf"} }, 400, "#beta", "beta"},
		{"bad grid", func(f url.Values) { f.Set("grid", "1, two") }, 400, "#grid", "two"},
		{"bad test share", func(f url.Values) { f.Set("test_fraction", "2") }, 400, "#test_fraction", "test_fraction must be in (0, 1)"},
		{"svm c not a number", func(f url.Values) { f.Set("classifier", "svm"); f.Set("eval_c", "big") }, 400, "#eval_c", "svm's c must be a number"},
		{"svm eps not positive", func(f url.Values) { f.Set("classifier", "svm"); f.Set("eval_eps", "0") }, 400, "#eval_eps", "svm's eps must be greater than 0"},
		{"unknown classifier", func(f url.Values) { f.Set("classifier", "svc") }, 400, "#classifier", "svm"},
		{"ps_a not a number", func(f url.Values) { f.Set("ps_a", "x") }, 400, "#ps_a", "propensity model's ps_a must be a number"},
		{"ps_b not positive", func(f url.Values) { f.Set("ps_b", "-1") }, 400, "#ps_b", "propensity model's ps_b must be greater than 0"},
		{"recall above 1", func(f url.Values) { f.Set("classifier", "knn"); f.Set("recall", "1.5") }, 400, "#recall", "must be in (0, 1]"},
		{"unknown baseline", func(f url.Values) { f.Set("baseline", "maybe") }, 400, "#baseline", "left out"},
	}
	before := s.snapshot()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := analysisForm("pca", "mddmp")
			c.edit(f)
			resp, body := s.postForm("/datasets/"+id+"/analyze", f)
			if resp.StatusCode != c.status {
				t.Fatalf("status %d, want %d\n%s", resp.StatusCode, c.status, body)
			}
			doc := parseHTML(t, body)
			msg := doc.Find(`#analyze-error`).Text()
			if msg == "" || !strings.Contains(msg, c.says) {
				t.Errorf("error %q does not say %q", msg, c.says)
			}
			if c.field != "" && doc.Find(c.field).AttrOr("aria-invalid", "") != "true" {
				t.Errorf("%s is not marked invalid (error %q)", c.field, msg)
			}
			// The form keeps what was typed.
			if v := doc.Find("#grid").AttrOr("value", ""); v != f.Get("grid") {
				t.Errorf("the grid field shows %q, want %q", v, f.Get("grid"))
			}
		})
	}
	if after := s.snapshot(); after != before {
		t.Errorf("refused analyses changed the store:\n%s\n---\n%s", before, after)
	}
	if list := s.page("/jobs"); list.Find(`[data-testid="job-row"]`).Length() != 0 {
		t.Error("a refused analysis made a job")
	}
}

// TestAnalyzeFormSVM: the form offers the linear SVM with its c and eps
// (labelled, described), sends them with the svm only, and the job's
// settings say what ran.
func TestAnalyzeFormSVM(t *testing.T) {
	s := newJobServer(t, 1, 10, nil)
	id := s.demo("multilabel")
	form := s.page("/datasets/" + id + "/analyze").Find(`form[data-testid="analyze-form"]`)
	if form.Find(`#classifier option[value="svm"]`).Length() != 1 {
		t.Error("the form does not offer the classifier svm")
	}
	wantInputs(t, form, "svm-hint", "eval_c", "1", "eval_eps", "0.0001")
	request := func(job string) jobs.Evaluate {
		t.Helper()
		_, body := s.do("GET", "/api/jobs/"+job, "", nil)
		var j struct {
			Request jobs.Request `json:"request"`
		}
		if err := json.Unmarshal(body, &j); err != nil || j.Request.Evaluate == nil {
			t.Fatalf("job %s: %v %s", job, err, body)
		}
		return *j.Request.Evaluate
	}
	f := analysisForm("pca")
	f.Set("classifier", "svm")
	f.Set("eval_c", "0.5")
	f.Set("eval_eps", "0.001")
	svm := s.startAnalysis(id, f)
	if e := request(svm); e.Classifier != "svm" || e.C != 0.5 || e.Eps != 0.001 {
		t.Errorf("svm job's evaluation %+v, want svm with c = 0.5, eps = 0.001", e)
	}
	f.Set("classifier", "mlknn") // c and eps stay in the form, and are not sent
	if e := request(s.startAnalysis(id, f)); e.Classifier != "mlknn" || e.C != 0 || e.Eps != 0 {
		t.Errorf("ML-kNN job's evaluation %+v, want no c or eps", e)
	}
	s.waitJob(svm, jobs.Succeeded)
	if got := s.page("/jobs/" + svm).Text(); !strings.Contains(got, "svm, LIBLINEAR -s 3 -B 1 (c = 0.5, eps = 0.001)") {
		t.Errorf("the job's page does not give the svm's settings")
	}
}

// TestAnalyzeFormKNN: the form offers the k-NN vote knn; submitted, it
// sends knn with the form's k and no c or eps, the job runs, and its page
// says what ran (k, without ML-kNN's s or ridge's λ).
func TestAnalyzeFormKNN(t *testing.T) {
	s := newJobServer(t, 1, 10, nil)
	id := s.demo("multilabel")
	form := s.page("/datasets/" + id + "/analyze").Find(`form[data-testid="analyze-form"]`)
	if form.Find(`#classifier option[value="knn"]`).Length() != 1 {
		t.Error("the form does not offer the classifier knn")
	}
	f := analysisForm("pca")
	f.Set("classifier", "knn")
	f.Set("eval_k", "7")
	job := s.startAnalysis(id, f)
	_, body := s.do("GET", "/api/jobs/"+job, "", nil)
	var j struct {
		Request jobs.Request `json:"request"`
	}
	if err := json.Unmarshal(body, &j); err != nil || j.Request.Evaluate == nil {
		t.Fatalf("job %s: %v %s", job, err, body)
	}
	if e := j.Request.Evaluate; e.Classifier != "knn" || e.K != 7 || e.C != 0 || e.Eps != 0 {
		t.Errorf("knn job's evaluation %+v, want knn with k = 7, no c or eps", e)
	}
	s.waitJob(job, jobs.Succeeded)
	if got := s.page("/jobs/" + job).Text(); !strings.Contains(got, "knn, the k-NN vote (k = 7)") {
		t.Errorf("the job's page does not give the k-NN vote's settings")
	}
}

// TestAnalyzeFormSeedDim: on multi-dimensional data the form proposes
// seed 003's d′ = ΣK_j − q with its reason, chosen by default; submitted,
// it sends neither d nor thr, and sdem and pca keep d′ (multi-label data
// are not offered it).
func TestAnalyzeFormSeedDim(t *testing.T) {
	s := newJobServer(t, 1, 10, nil)
	md := s.demo("multidim")
	rec, err := s.store.Dataset(md)
	if err != nil {
		t.Fatal(err)
	}
	want := rec.Summary.Classes - rec.Summary.LabelCount
	form := s.page("/datasets/" + md + "/analyze").Find(`form[data-testid="analyze-form"]`)
	seed := form.Find(`[data-testid="dim-seed"]`)
	if _, checked := seed.Attr("checked"); !checked || !strings.Contains(seed.Parent().Text(), fmt.Sprintf("= %d", want)) {
		t.Errorf("the seed 003 choice: checked %v, label %q; want checked, = %d", checked, seed.Parent().Text(), want)
	}
	if hint := form.Find("#seed-dim-hint").Text(); !strings.Contains(hint, "Seed 003 keeps ΣKj − q dimensions for every method") {
		t.Errorf("the reason %q", hint)
	}
	f := analysisForm("sdem", "pca")
	f.Set("dim_mode", "seed")
	f.Set("grid", "")
	job := s.startAnalysis(md, f)
	j := s.waitJob(job, jobs.Succeeded)
	if j.Request.Params.D != 0 || j.Request.Params.Thr != 0 {
		t.Errorf("the request gives d = %d, thr = %v; want neither", j.Request.Params.D, j.Request.Params.Thr)
	}
	for _, id := range []string{"sdem", "pca"} {
		if !slices.ContainsFunc(j.Notes, func(n string) bool { return strings.HasPrefix(n, fmt.Sprintf("%s: d = ΣK_j − q = %d", id, want)) }) {
			t.Errorf("%s: notes %q, want one saying it kept ΣK_j − q = %d", id, j.Notes, want)
		}
	}
	ml := s.demo("multilabel")
	if s.page("/datasets/"+ml+"/analyze").Find(`[data-testid="dim-seed"]`).Length() != 0 {
		t.Error("multi-label data are offered seed 003's d′")
	}
}

func TestJobPages(t *testing.T) {
	s := newJobServer(t, 1, 10, nil)
	id := s.demo("multilabel")
	jobID := s.startAnalysis(id, analysisForm("pca", "mddmp", "cplst"))
	s.waitJob(jobID, jobs.Succeeded)

	doc := s.page("/jobs/" + jobID + "?notice=started")
	if st := doc.Find(`[data-testid="job-status"] [data-status-text]`).Text(); st != "succeeded" {
		t.Errorf("status %q", st)
	}
	if doc.Find(`[data-testid="cancel"]`).Length() != 0 {
		t.Error("a finished job offers to cancel")
	}
	if s := doc.Find(".settings-list").Text(); !strings.Contains(s, "holdout, 25% test rows, seed 7") || !strings.Contains(s, "1 2 4") {
		t.Errorf("settings say %q", s)
	}
	res := doc.Find(`#results`)
	curves := checkFigure(t, s, res.Find(`[data-testid="curves"] figure`), "curves")
	if curves["kind"] != "curves" {
		t.Errorf("curves meta kind %v", curves["kind"])
	}
	table := res.Find(`[data-testid="metrics-table"]`)
	head := table.Find("thead th").Map(func(_ int, s *goquery.Selection) string { return s.Text() })
	if strings.Join(head, "|") != "d|PCA|MDDM (orthonormal directions)|CPLST|ori" {
		t.Errorf("metrics table columns %q", head)
	}
	if rows := table.Find("tbody tr").Map(func(_ int, s *goquery.Selection) string { return s.Find("th").Text() }); strings.Join(rows, ",") != "1,2,4" {
		t.Errorf("metrics table rows %v", rows)
	}
	if c := table.Find("tbody tr").First().Find("td").First().Text(); !strings.HasPrefix(c, "0.") {
		t.Errorf("first cell %q", c)
	}
	if v := res.Find(`#daxis option[selected]`).AttrOr("value", ""); v != "linear" || curves["xlog"] != nil {
		t.Errorf("d from 1 to 4 is on a %q axis (meta xlog %v), want linear", v, curves["xlog"])
	}
	logDoc := s.page("/jobs/" + jobID + "?daxis=log")
	var logMeta map[string]any
	json.Unmarshal([]byte(logDoc.Find(`[data-testid="curves"] figure`).AttrOr("data-meta", "")), &logMeta)
	if logMeta["xlog"] != true || logDoc.Find(`#daxis option[selected]`).AttrOr("value", "") != "log" {
		t.Errorf("?daxis=log gave meta xlog %v", logMeta["xlog"])
	}
	options := res.Find(`[data-testid="metric-select"] option`).Length()
	if options < 10 {
		t.Errorf("%d metrics offered", options)
	}
	for _, m := range []string{"pca", "mddmp", "cplst"} {
		card := res.Find(`[data-testid="method-` + m + `"]`)
		if h := card.Find("h3").Text(); !strings.Contains(h, map[string]string{"pca": "PCA", "mddmp": "MDDM", "cplst": "CPLST"}[m]) || !strings.Contains(h, "d = ") {
			t.Errorf("%s card heading %q", m, h)
		}
		spec := checkFigure(t, s, card.Find(`figure[id="spectrum-`+m+`"]`), m+" spectrum")
		if spec["kind"] != "spectrum" {
			t.Errorf("%s spectrum kind %v", m, spec["kind"])
		}
		proj := checkFigure(t, s, card.Find(`figure[id="projection-`+m+`"]`), m+" projection")
		if proj["kind"] != "scatter" {
			t.Errorf("%s projection kind %v", m, proj["kind"])
		}
		var files []string
		card.Find(`[data-testid="downloads-` + m + `"] a`).Each(func(_ int, a *goquery.Selection) {
			files = append(files, a.Text())
			href := a.AttrOr("href", "")
			resp, _ := s.do("GET", href, "", nil)
			if resp.StatusCode != 200 || !strings.Contains(resp.Header.Get("Content-Disposition"), m) {
				t.Errorf("%s: %d %q", href, resp.StatusCode, resp.Header.Get("Content-Disposition"))
			}
		})
		if len(files) != 6 {
			t.Errorf("%s downloads %v", m, files)
		}
	}
	everyInputLabelled(t, doc)

	// The controls work without a script: a GET with the choices.
	doc = s.page("/jobs/" + jobID + "?metric=ranking_loss&colour=label:sea&x=2&y=1&log=1")
	if v := doc.Find(`#metric option[selected]`).AttrOr("value", ""); v != "ranking_loss" {
		t.Errorf("metric shown %q", v)
	}
	if v := doc.Find(`#colour option[selected]`).AttrOr("value", ""); v != "label:sea" {
		t.Errorf("colour shown %q", v)
	}
	alt := doc.Find(`figure[id="projection-pca"] .plot-svg`).AttrOr("aria-label", "")
	if !strings.Contains(alt, "components 2 and 1") || !strings.Contains(alt, "label sea") {
		t.Errorf("projection alt %q", alt)
	}
	// The results fragment, for the script.
	resp, body := s.do("GET", "/jobs/"+jobID+"/results?colour=count", "", nil)
	if resp.StatusCode != 200 || bytes.Contains(body, []byte("<html")) || !bytes.Contains(body, []byte(`data-testid="metrics-table"`)) {
		t.Errorf("results fragment: %d %.200s", resp.StatusCode, body)
	}
	if resp, _ := s.do("GET", "/jobs/"+jobID+"?colour=label:nope", "", nil); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("an unknown colour label gave %d", resp.StatusCode)
	}
	// Plots alone.
	for path, want := range map[string]int{
		"/plots/curves.svg?metric=hamming_loss": 200, "/plots/spectrum.png?method=pca": 200, "/plots/projection.svg?method=cplst&colour=set": 200,
		"/plots/spectrum.svg": 400, "/plots/spectrum.svg?method=lda": 400, "/plots/pie.svg": 404, "/plots/curves.jpg": 404,
	} {
		if resp, _ := s.do("GET", "/api/jobs/"+jobID+path, "", nil); resp.StatusCode != want {
			t.Errorf("%s: %d, want %d", path, resp.StatusCode, want)
		}
	}

	// The jobs page and the home page list it; delete removes it.
	list := s.page("/jobs")
	if list.Find(`[data-testid="job-row"]`).Length() != 1 || list.Find(`input[name=jobs][value="`+jobID+`"]`).Length() != 1 {
		t.Error("the jobs page does not offer the finished job for comparison")
	}
	everyInputLabelled(t, list)
	if s.page("/").Find(`#recent-h`).Length() != 1 {
		t.Error("the home page lists no recent jobs")
	}
	resp, _ = s.postForm("/jobs/"+jobID+"/delete", nil)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/jobs?notice=deleted" {
		t.Fatalf("delete: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	list = s.page("/jobs?notice=deleted")
	if list.Find(`[data-testid="empty-state"]`).Length() != 1 || !strings.Contains(list.Find(`[data-testid="notice"]`).Text(), "deleted") {
		t.Error("after deleting the only job, the jobs page is not empty")
	}
	if resp, _ := s.do("GET", "/jobs/"+jobID, "", nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a deleted job's page: %d", resp.StatusCode)
	}
}

func TestJobPageWhileRunning(t *testing.T) {
	g := newGate()
	s := newJobServer(t, 1, 10, g)
	id := s.demo("multilabel")
	jobID := s.startAnalysis(id, analysisForm("pca"))
	s.waitJob(jobID, jobs.Running)
	// Running comes a moment before the gate's report of progress 0.1.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		_, b := s.do("GET", "/api/jobs/"+jobID, "", nil)
		if decode[jobs.Job](t, b).Progress == 0.1 || time.Now().After(deadline) {
			break
		}
	}
	doc := s.page("/jobs/" + jobID)
	panel := doc.Find(`[data-testid="job-status"]`)
	if panel.AttrOr("data-events", "") != "/api/jobs/"+jobID+"/events" || panel.AttrOr("data-started", "") == "" {
		t.Errorf("status panel attributes: events %q started %q", panel.AttrOr("data-events", ""), panel.AttrOr("data-started", ""))
	}
	if v, _ := strconv.ParseFloat(panel.Find("progress").AttrOr("value", ""), 64); v != 0.1 {
		t.Errorf("progress %v", v)
	}
	if !strings.Contains(panel.Text(), "waiting at the test's gate") {
		t.Errorf("the panel does not show the phase: %q", panel.Text())
	}
	if doc.Find(`#results`).Children().Length() != 0 {
		t.Error("a running job shows results")
	}
	if resp, _ := s.do("GET", "/jobs/"+jobID+"/results", "", nil); resp.StatusCode != http.StatusConflict {
		t.Errorf("results of a running job: %d", resp.StatusCode)
	}
	if resp, _ := s.do("GET", "/api/jobs/"+jobID+"/plots/curves.svg", "", nil); resp.StatusCode != http.StatusConflict {
		t.Errorf("plots of a running job: %d", resp.StatusCode)
	}
	list := s.page("/jobs")
	if list.Find(`button[form="cancel-`+jobID+`"]`).Length() != 1 || list.Find(`form#cancel-`+jobID).Length() != 1 {
		t.Error("the jobs page offers no cancel for a running job")
	}
	resp, _ := s.postForm("/jobs/"+jobID+"/cancel", nil)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/jobs/"+jobID+"?notice=canceled" {
		t.Fatalf("cancel: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	s.waitJob(jobID, jobs.Canceled)
	doc = s.page("/jobs/" + jobID + "?notice=canceled")
	if doc.Find(`[data-status-text]`).Text() != "canceled" || doc.Find(`[data-testid="cancel"]`).Length() != 0 {
		t.Error("a canceled job's page still offers to cancel")
	}
	// It can be run again, as a new job.
	if doc.Find(`form[action="/jobs/`+jobID+`/rerun"] [data-testid="rerun"]`).Length() != 1 {
		t.Fatal("a canceled job offers no rerun")
	}
	g.release()
	resp, _ = s.postForm("/jobs/"+jobID+"/rerun", nil)
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/jobs/") || strings.Contains(loc, jobID) {
		t.Fatalf("rerun: %d %q", resp.StatusCode, loc)
	}
	s.waitJob(strings.TrimSuffix(strings.TrimPrefix(loc, "/jobs/"), "?notice=started"), jobs.Succeeded)
}

func TestComparePage(t *testing.T) {
	s := newJobServer(t, 1, 10, nil)
	id := s.demo("multilabel")
	a := s.startAnalysis(id, analysisForm("pca", "mddmp"))
	f := analysisForm("mlsi")
	f.Set("grid", "1, 3")
	b := s.startAnalysis(id, f)
	s.waitJob(a, jobs.Succeeded)
	s.waitJob(b, jobs.Succeeded)

	empty := s.page("/compare")
	if n := empty.Find(`[data-testid="compare-pick"] input[name=jobs]`).Length(); n != 2 {
		t.Errorf("%d jobs offered", n)
	}
	everyInputLabelled(t, empty)
	doc := s.page("/compare?jobs=" + a + "&jobs=" + b + "&metric=hamming_loss")
	jobsShown := doc.Find(`[data-testid="compare-job"]`)
	if jobsShown.Length() != 2 {
		t.Fatalf("%d jobs compared", jobsShown.Length())
	}
	// The curves share their vertical axis.
	var ranges []string
	jobsShown.Each(func(i int, sec *goquery.Selection) {
		var m map[string]any
		if err := json.Unmarshal([]byte(sec.Find(`figure[id^="curves-"]`).AttrOr("data-meta", "")), &m); err != nil {
			t.Fatalf("curves meta: %v", err)
		}
		ranges = append(ranges, fmt.Sprint(m["ymin"], m["ymax"]))
	})
	if len(ranges) != 2 || ranges[0] != ranges[1] || ranges[0] == "<nil> <nil>" {
		t.Errorf("the curves do not share their vertical axis: %v", ranges)
	}
	if n := doc.Find(`figure[id^="projection-"]`).Length(); n != 3 {
		t.Errorf("%d projections, want 3", n)
	}
	if n := doc.Find(`figure[id^="spectrum-"]`).Length(); n != 3 {
		t.Errorf("%d spectra, want 3", n)
	}
	doc = s.page("/compare?jobs=nope")
	if !strings.Contains(doc.Find(".error").Text(), "nope") {
		t.Error("an unknown job is not reported")
	}
}

// TestEveryMethodsResultsPage runs every method on the demo data of its
// kind and reads its results page, its plots and its downloads: no method
// may break the page (mds has no projection matrix, label-space methods
// plot label codes, multi-dimensional data colour by class).
func TestEveryMethodsResultsPage(t *testing.T) {
	s := newJobServer(t, 2, 40, nil)
	ml, md := s.demo("multilabel"), s.demo("multidim")
	var mlMethods, mdMethods []string
	for _, m := range analysis.Methods() {
		if m.ID == "mds" {
			continue // it cannot be evaluated: below, on its own
		}
		if m.MultiLabel {
			mlMethods = append(mlMethods, m.ID)
		}
		if m.MultiDim {
			mdMethods = append(mdMethods, m.ID)
		}
	}
	for _, c := range []struct {
		dataset    string
		methods    []string
		colour     string
		colourText string // how the projections' text alternative says it
		classifier string
	}{
		{ml, mlMethods, "label:sea", "label sea", "ridge"}, {md, mdMethods, "class:colour", "class of colour", "mlknn"},
		{ml, []string{"mds"}, "set", "label set", "none"}, {md, []string{"mds"}, "set", "combination of classes", "none"},
	} {
		f := analysisForm(c.methods...)
		f.Set("classifier", c.classifier)
		f.Set("grid", "1, 2")
		id := s.startAnalysis(c.dataset, f)
		s.waitJob(id, jobs.Succeeded)
		doc := s.page("/jobs/" + id + "?colour=" + url.QueryEscape(c.colour))
		for _, m := range c.methods {
			card := doc.Find(`[data-testid="method-` + m + `"]`)
			plots := 2
			if m == "occa" { // its eigenvalues are not positive: a note instead of a spectrum
				plots = 1
				if note := card.Find(`[data-testid="no-figure"]`).Text(); !strings.Contains(note, "none of OCCA's eigenvalues is positive") {
					t.Errorf("occa's spectrum note %q", note)
				}
			}
			if card.Find("figure svg").Length() != plots {
				t.Errorf("%s: %d plots in its card, want %d", m, card.Find("figure svg").Length(), plots)
			}
			alt := card.Find(`figure[id="projection-`+m+`"] .plot-svg`).AttrOr("aria-label", "")
			if !strings.Contains(alt, "coloured by "+c.colourText) {
				t.Errorf("%s: projection %q is not coloured by %s", m, alt, c.colour)
			}
			card.Find(`[data-testid="downloads-` + m + `"] a`).Each(func(_ int, a *goquery.Selection) {
				if resp, _ := s.do("GET", a.AttrOr("href", ""), "", nil); resp.StatusCode != 200 {
					t.Errorf("%s: %s gave %d", m, a.AttrOr("href", ""), resp.StatusCode)
				}
			})
		}
		cols := len(c.methods) + 2 // d, the methods, ori
		if c.classifier == "none" {
			cols = 0
		}
		if n := len(doc.Find(`[data-testid="metrics-table"] thead th`).Nodes); n != cols {
			t.Errorf("metrics table has %d columns for %d methods (classifier %s)", n, len(c.methods), c.classifier)
		}
	}
}

// TestAnalyzeFormPropensity: the multi-label form offers the propensity
// model's A and B (labelled, described, at their defaults), sends them only
// when changed, and the job's settings say them; the multi-dimensional
// form has neither.
func TestAnalyzeFormPropensity(t *testing.T) {
	s := newJobServer(t, 1, 10, nil)
	id := s.demo("multilabel")
	form := s.page("/datasets/" + id + "/analyze").Find(`form[data-testid="analyze-form"]`)
	wantInputs(t, form, "ps-hint", "ps_a", "0.55", "ps_b", "1.5")
	evaluation := func(job string) jobs.Evaluate {
		t.Helper()
		_, body := s.do("GET", "/api/jobs/"+job, "", nil)
		j := decode[struct {
			Request jobs.Request `json:"request"`
		}](t, body)
		if j.Request.Evaluate == nil {
			t.Fatalf("job %s has no evaluation: %s", job, body)
		}
		return *j.Request.Evaluate
	}
	f := analysisForm("pca")
	f.Set("ps_a", "0.55")
	f.Set("ps_b", "1.5")
	if e := evaluation(s.startAnalysis(id, f)); e.PsA != 0 || e.PsB != 0 {
		t.Errorf("the defaults: got ps_a %v, ps_b %v sent, want neither", e.PsA, e.PsB)
	}
	f.Set("ps_a", "0.5")
	f.Set("ps_b", "0.4")
	job := s.startAnalysis(id, f)
	if e := evaluation(job); e.PsA != 0.5 || e.PsB != 0.4 {
		t.Errorf("got ps_a %v, ps_b %v, want 0.5 and 0.4", e.PsA, e.PsB)
	}
	s.waitJob(job, jobs.Succeeded)
	if got := s.page("/jobs/" + job).Text(); !strings.Contains(got, "A = 0.5, B = 0.4") {
		t.Error("the job's page does not give the propensity parameters")
	}
	if n := s.page("/datasets/" + s.demo("multidim") + "/analyze").Find("#ps_a, #ps_b, #recall").Length(); n != 0 {
		t.Errorf("the multi-dimensional form has %d propensity or recall fields, want none", n)
	}

	// The k-NN vote's recall: at its default, not sent; 1, sent and said
	// on the job's page; with another classifier, not sent.
	wantInputs(t, form, "recall-hint", "recall", "0.95")
	f = analysisForm("pca")
	f.Set("classifier", "knn")
	f.Set("recall", "0.95")
	if e := evaluation(s.startAnalysis(id, f)); e.Recall != 0 {
		t.Errorf("the default recall: got %v sent, want none", e.Recall)
	}
	f.Set("recall", "1")
	job = s.startAnalysis(id, f)
	if e := evaluation(job); e.Recall != 1 {
		t.Errorf("got recall %v, want 1", e.Recall)
	}
	s.waitJob(job, jobs.Succeeded)
	if got := s.page("/jobs/" + job).Text(); !strings.Contains(got, ", exact neighbours)") {
		t.Errorf("the job's page does not say its neighbours are exact: %q", got)
	}
	f.Set("classifier", "ridge")
	f.Set("recall", "0.5")
	if e := evaluation(s.startAnalysis(id, f)); e.Recall != 0 {
		t.Errorf("ridge: got recall %v sent, want none", e.Recall)
	}

	// The baseline: evaluated by default (not sent), left out on request,
	// the job's page and metrics then without ori.
	wantInputs(t, form, "baseline-hint")
	if got := form.Find("#baseline option[selected]").AttrOr("value", ""); got != "with" {
		t.Errorf("the baseline's default is %q, want with", got)
	}
	f.Set("baseline", "with")
	if e := evaluation(s.startAnalysis(id, f)); e.Baseline != nil {
		t.Errorf("the default baseline: got %v sent, want none", *e.Baseline)
	}
	f.Set("baseline", "without")
	job = s.startAnalysis(id, f)
	if e := evaluation(job); e.Baseline == nil || *e.Baseline {
		t.Errorf("got baseline %v, want false", e.Baseline)
	}
	s.waitJob(job, jobs.Succeeded)
	if got := s.page("/jobs/" + job).Text(); !strings.Contains(got, "left out: no row of ori") {
		t.Error("the job's page does not say the baseline was left out")
	}
	resp, body := s.do("GET", "/api/jobs/"+job+"/metrics.json", "", nil)
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"method": "pca"`) || strings.Contains(string(body), `"method": "ori"`) {
		t.Errorf("metrics.json: %d, want pca's rows and no ori's: %.300s", resp.StatusCode, body)
	}
}

// wantInputs checks that each input of form named in idValues (id, value,
// id, value, …) shows its value, has a label and is described by the hint.
func wantInputs(t *testing.T, form *goquery.Selection, hint string, idValues ...string) {
	t.Helper()
	for i := 0; i+1 < len(idValues); i += 2 {
		id, value := idValues[i], idValues[i+1]
		in := form.Find("#" + id)
		if in.AttrOr("value", "") != value || form.Find(`label[for="`+id+`"]`).Length() != 1 || in.AttrOr("aria-describedby", "") != hint {
			t.Errorf("#%s: value %q, want %q, with a label and the hint %s", id, in.AttrOr("value", ""), value, hint)
		}
	}
}
