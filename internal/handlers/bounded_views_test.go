package handlers_test

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"image/png"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// manyLabelsCSV is a multi-label data set of n rows, 2 features and q
// labels L00001 … (seeded): label j is in a row with probability 0.03,
// except every 97th label, which is in 60% of the rows. It returns the
// CSV and the labels by count, most frequent first (ties: earlier first).
func manyLabelsCSV(n, q int) (string, []string) {
	rng := rand.New(rand.NewPCG(12, 12))
	var b strings.Builder
	b.WriteString("f1,f2")
	names := make([]string, q)
	for j := range q {
		names[j] = fmt.Sprintf("L%05d", j+1)
		b.WriteString(",label:" + names[j])
	}
	b.WriteByte('\n')
	count := make([]int, q)
	for i := range n {
		fmt.Fprintf(&b, "%d,%d", i, (i*7)%11)
		for j := range q {
			p := 0.03
			if j%97 == 0 {
				p = 0.6
			}
			v := 0
			if rng.Float64() < p {
				v, count[j] = 1, count[j]+1
			}
			b.WriteString([]string{",0", ",1"}[v])
		}
		b.WriteByte('\n')
	}
	order := make([]int, q)
	for j := range order {
		order[j] = j
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(count[b], count[a]) })
	byCount := make([]string, q)
	for i, j := range order {
		byCount[i] = names[j]
	}
	return b.String(), byCount
}

// uploadCSV stores a CSV through the API and returns its id.
func (s *server) uploadCSV(name, body string) string {
	s.t.Helper()
	resp, b := s.upload("/api/datasets", part{name: "file", file: name, body: body})
	if resp.StatusCode != http.StatusCreated {
		s.t.Fatalf("upload %s: got %d %.300s, want 201", name, resp.StatusCode, b)
	}
	return decode[apiDataset](s.t, b).ID
}

// nmiAnswer is the body of nmi.json.
type nmiAnswer struct {
	Labels   []string    `json:"labels"`
	Matrix   [][]float64 `json:"matrix"`
	Constant []bool      `json:"constant"`
	Offset   int         `json:"offset"`
	Limit    int         `json:"limit"`
	Total    int         `json:"total"`
	Next     string      `json:"next"`
}

// A data set with 5 000 labels: every view answers, small, showing the 50
// most frequent labels or those chosen with ?labels=, and says so.
func TestBoundedViewsManyLabels(t *testing.T) {
	const q = 5000
	s := newServer(t, t.TempDir(), 64<<20)
	csv, byCount := manyLabelsCSV(60, q)
	id := s.uploadCSV("wide-labels.csv", csv)
	top := byCount[:50]
	rare := byCount[q-1]
	page := "/datasets/" + id

	t.Run("page", func(t *testing.T) {
		resp, body := s.do("GET", page, "", nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: got %d, want 200", page, resp.StatusCode)
		}
		if len(body) > 2<<20 {
			t.Errorf("page: got %d bytes, want at most 2 MiB", len(body))
		}
		doc := parseHTML(t, body)
		want := "5 000 labels: the heatmap, the frequency plot and the table show the 50 most frequent; choose others below."
		if got := strings.TrimSpace(doc.Find(`[data-testid="label-choice-notice"]`).Text()); got != want {
			t.Errorf("notice: got %q, want %q", got, want)
		}
		var rows []string
		doc.Find(`[data-testid="label-table"] tbody th`).Each(func(_ int, r *goquery.Selection) {
			rows = append(rows, strings.Fields(r.Text())[0])
		})
		if !sameSet(rows, top) {
			t.Errorf("label table: got %d rows %v, want the 50 most frequent %v", len(rows), rows, top)
		}
		if n := doc.Find(`[data-testid="label-choice-list"] option`).Length(); n != 1000 {
			t.Errorf("choice list: got %d options, want 1000", n)
		}
		if n := doc.Find(`[data-testid="nmi-table"] tbody tr`).Length(); n != 50 {
			t.Errorf("NMI table: got %d rows, want 50", n)
		}
		meta := checkFigure(t, s, doc.Find("figure#nmi"), "NMI heatmap")
		if got := len(meta["rows"].([]any)); got != 50 {
			t.Errorf("heatmap: got %d rows, want 50", got)
		}
		checkFigure(t, s, doc.Find("figure#labels"), "label frequency")
		// Every label at once: rows against rank on log axes, one point
		// a label that some row holds (with 60 rows at 3 %, some 84 % of
		// them), most frequent first: the every-97th labels' 60 % of 60.
		rank := checkFigure(t, s, doc.Find("figure#rank"), "rank and frequency")
		series := rank["series"].([]any)[0].(map[string]any)
		ys := series["y"].([]any)
		if len(ys) < q/2 || len(ys) > q || ys[0].(float64) < 30 || !slices.IsSortedFunc(ys, func(a, b any) int { return cmp.Compare(b.(float64), a.(float64)) }) ||
			rank["xlog"] != true || rank["ylog"] != true {
			t.Errorf("rank figure: %d points from %v (want most of %d, descending from about 36), xlog %v, ylog %v", len(ys), ys[0], q, rank["xlog"], rank["ylog"])
		}
	})

	t.Run("plots", func(t *testing.T) {
		for _, c := range []struct {
			file  string
			ctype string
			most  int
		}{
			{"nmi.svg", "image/svg+xml", 1 << 20},
			{"nmi.png", "image/png", 2 << 20},
			{"labels.svg", "image/svg+xml", 1 << 20},
			{"labels.png", "image/png", 2 << 20},
		} {
			resp, body := s.do("GET", "/api/datasets/"+id+"/plots/"+c.file, "", nil)
			if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != c.ctype {
				t.Fatalf("%s: got %d %s, want 200 %s", c.file, resp.StatusCode, resp.Header.Get("Content-Type"), c.ctype)
			}
			if len(body) > c.most {
				t.Errorf("%s: got %d bytes, want at most %d", c.file, len(body), c.most)
			}
			if c.ctype == "image/png" {
				cfg, err := png.DecodeConfig(bytes.NewReader(body))
				if err != nil || cfg.Width > 4000 || cfg.Height > 4000 {
					t.Errorf("%s: got %dx%d (%v), want at most 4000 px a side", c.file, cfg.Width, cfg.Height, err)
				}
				continue
			}
			if !strings.Contains(string(body), top[0]) || strings.Contains(string(body), rare) {
				t.Errorf("%s: want the most frequent label %s and not the rarest %s", c.file, top[0], rare)
			}
		}
	})

	t.Run("chosen labels", func(t *testing.T) {
		chosen := url.Values{"labels": {rare + ", " + byCount[100], top[3]}}
		resp, body := s.do("GET", "/api/datasets/"+id+"/plots/nmi.svg?"+chosen.Encode(), "", nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("nmi.svg with labels: got %d %.200s, want 200", resp.StatusCode, body)
		}
		for _, l := range []string{rare, byCount[100], top[3]} {
			if !strings.Contains(string(body), l) {
				t.Errorf("nmi.svg with labels: %s missing", l)
			}
		}
		if strings.Contains(string(body), top[0]) {
			t.Errorf("nmi.svg with labels: got %s, which was not chosen", top[0])
		}
		resp, body = s.do("GET", page+"?"+chosen.Encode(), "", nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("page with labels: got %d, want 200", resp.StatusCode)
		}
		doc := parseHTML(t, body)
		want := "5 000 labels: the heatmap, the frequency plot and the table show the 3 you chose; choose others below."
		if got := strings.TrimSpace(doc.Find(`[data-testid="label-choice-notice"]`).Text()); got != want {
			t.Errorf("notice: got %q, want %q", got, want)
		}
		if n := doc.Find(`[data-testid="label-table"] tbody tr`).Length(); n != 3 {
			t.Errorf("label table: got %d rows, want 3", n)
		}
		// The figures' links carry the choice, so that they show it too.
		href, _ := doc.Find("figure#nmi a[data-svg]").Attr("href")
		if u, err := url.Parse(href); err != nil || len(u.Query()["labels"]) != 3 {
			t.Errorf("heatmap link %q: want the 3 chosen labels in labels=", href)
		}
		// Chosen labels beyond the list are in the text field, to send again.
		if v, _ := doc.Find(`[data-testid="label-choice-names"]`).Attr("value"); !strings.Contains(v, rare) {
			t.Errorf("text field: got %q, want it to hold %s", v, rare)
		}
	})

	t.Run("refused choices", func(t *testing.T) {
		many := strings.Join(byCount[:51], ",")
		for _, c := range []struct {
			path, want string
		}{
			{"/api/datasets/" + id + "/plots/nmi.svg?labels=nope", `"nope" is not one of the 5 000 labels of this data set; GET /api/datasets/` + id + " lists them"},
			{"/api/datasets/" + id + "/plots/labels.png?labels=" + top[0] + ",nope", `"nope" is not one of the 5 000 labels`},
			{"/api/datasets/" + id + "/plots/nmi.png?labels=" + many, "51 labels chosen; these views show at most 50 at a time"},
			{"/api/datasets/" + id + "/nmi.json?labels=nope", `"nope" is not one of the 5 000 labels`},
			{"/api/datasets/" + id + "/nmi.json?limit=21", "limit must be a whole number from 1 to 20"},
			{"/api/datasets/" + id + "/nmi.json?offset=5001", "offset must be a whole number from 0 to 5000"},
		} {
			resp, body := s.do("GET", c.path, "", nil)
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(decode[apiErr](t, body).Error, c.want) {
				t.Errorf("GET %s: got %d %.300s, want 400 with %q", c.path, resp.StatusCode, body, c.want)
			}
		}
		resp, body := s.do("GET", page+"?labels=nope", "", nil)
		if resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("page with an unknown label: got %d, want 400", resp.StatusCode)
		}
		doc := parseHTML(t, body)
		if got := doc.Find(`#label-choice-error`).Text(); !strings.Contains(got, `"nope" is not one of the 5 000 labels`) {
			t.Errorf("page with an unknown label: error %q", got)
		}
		if doc.Find("figure#nmi").Length() != 1 {
			t.Error("page with an unknown label: want the default heatmap still shown")
		}
	})

	t.Run("nmi.json", func(t *testing.T) {
		resp, body := s.do("GET", "/api/datasets/"+id+"/nmi.json", "", nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("nmi.json: got %d %.200s, want 200", resp.StatusCode, body)
		}
		if len(body) > 3<<20 {
			t.Errorf("nmi.json: got %d bytes, want at most 3 MiB", len(body))
		}
		a := decode[nmiAnswer](t, body)
		if a.Total != q || len(a.Labels) != q || a.Limit != 20 || len(a.Matrix) != 20 || len(a.Matrix[0]) != q || a.Next == "" {
			t.Fatalf("nmi.json: got total %d, %d labels, limit %d, %d rows of %d, next %q; want 5000, 5000, 20, 20 rows of 5000 and a next page",
				a.Total, len(a.Labels), a.Limit, len(a.Matrix), len(a.Matrix[0]), a.Next)
		}
		resp, body = s.do("GET", a.Next, "", nil)
		b := decode[nmiAnswer](t, body)
		if resp.StatusCode != http.StatusOK || b.Offset != 20 || len(b.Matrix) != 20 {
			t.Fatalf("next page %s: got %d, offset %d, %d rows; want 200, 20, 20", a.Next, resp.StatusCode, b.Offset, len(b.Matrix))
		}
		// Rows of two pages agree where the matrix is symmetric.
		for i := range 20 {
			for j := range 20 {
				if a.Matrix[i][20+j] != b.Matrix[j][i] {
					t.Fatalf("NMI(%d,%d) = %v but NMI(%d,%d) = %v", i, 20+j, a.Matrix[i][20+j], 20+j, i, b.Matrix[j][i])
				}
			}
		}
		resp, body = s.do("GET", "/api/datasets/"+id+"/nmi.json?offset=4990&limit=20", "", nil)
		if c := decode[nmiAnswer](t, body); resp.StatusCode != http.StatusOK || len(c.Matrix) != 10 || c.Next != "" {
			t.Errorf("last page: got %d, %d rows, next %q; want 200, 10 rows, none", resp.StatusCode, len(c.Matrix), c.Next)
		}
		chosen := url.Values{"labels": {top[0], top[1], rare}}
		resp, body = s.do("GET", "/api/datasets/"+id+"/nmi.json?"+chosen.Encode(), "", nil)
		c := decode[nmiAnswer](t, body)
		if resp.StatusCode != http.StatusOK || !slices.Equal(c.Labels, chosen["labels"]) || len(c.Matrix) != 3 || len(c.Matrix[0]) != 3 || c.Matrix[0][0] != 1 {
			t.Errorf("nmi.json with labels: got %d %v %v, want 200 and the 3×3 matrix of %v", resp.StatusCode, c.Labels, c.Matrix, chosen["labels"])
		}
	})

	t.Run("api", func(t *testing.T) {
		resp, body := s.do("GET", "/api/datasets/"+id, "", nil)
		if resp.StatusCode != http.StatusOK || len(body) > 2<<20 {
			t.Fatalf("GET /api/datasets/%s: got %d and %d bytes, want 200 and at most 2 MiB", id, resp.StatusCode, len(body))
		}
		if d := decode[apiDataset](t, body); len(d.Labels) != q {
			t.Errorf("labels: got %d, want %d (under the list cap)", len(d.Labels), q)
		}
	})
}

// sameSet reports whether a and b hold the same strings.
func sameSet(a, b []string) bool {
	return len(a) == len(b) && slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}

// A data set with 200 000 features: its page and its API object name the
// first columns and count the rest; relabelling works by name.
func TestBoundedViewsManyFeatures(t *testing.T) {
	const d = 200_000
	var b strings.Builder
	for j := range d {
		fmt.Fprintf(&b, "f%d,", j+1)
	}
	b.WriteString("label:a,label:b,label:c\n")
	for i := range 3 {
		b.WriteString(strings.Repeat(fmt.Sprintf("%d,", i), d))
		fmt.Fprintf(&b, "%d,%d,1\n", i%2, (i+1)%2)
	}
	s := newServer(t, t.TempDir(), 64<<20)
	id := s.uploadCSV("wide-features.csv", b.String())
	page := "/datasets/" + id

	resp, body := s.do("GET", page, "", nil)
	if resp.StatusCode != http.StatusOK || len(body) > 512<<10 {
		t.Fatalf("GET %s: got %d and %d bytes, want 200 and at most 512 KiB", page, resp.StatusCode, len(body))
	}
	doc := parseHTML(t, body)
	want := "200 003 columns in the file, too many to tick here: f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15, f16, f17, f18, f19, f20 and 199 983 more."
	if got := strings.TrimSpace(doc.Find(`[data-testid="column-summary"]`).Text()); got != want {
		t.Errorf("column summary: got %q, want %q", got, want)
	}
	if got := doc.Find(`[data-testid="relabel-names"]`).Text(); got != "label:a\nlabel:b\nlabel:c" {
		t.Errorf("relabel text field: got %q, want the three label columns", got)
	}
	if n := doc.Find(`[data-testid="relabel-form"] input[type=checkbox]`).Length(); n != 0 {
		t.Errorf("relabel form: got %d check boxes, want none", n)
	}

	resp, body = s.do("GET", "/api/datasets/"+id, "", nil)
	if resp.StatusCode != http.StatusOK || len(body) > 1<<20 {
		t.Fatalf("GET /api/datasets/%s: got %d and %d bytes, want 200 and at most 1 MiB", id, resp.StatusCode, len(body))
	}
	var a struct {
		Features  int            `json:"features"`
		Columns   []string       `json:"columns"`
		Truncated map[string]int `json:"truncated"`
	}
	if err := json.Unmarshal(body, &a); err != nil {
		t.Fatal(err)
	}
	if a.Features != d || len(a.Columns) != 10_000 || a.Truncated["columns"] != d+3 || a.Columns[0] != "f1" {
		t.Errorf("API: got %d features, %d columns from %q, truncated %v; want %d, 10 000 from f1, columns %d",
			a.Features, len(a.Columns), a.Columns[0], a.Truncated, d, d+3)
	}
	resp, _ = s.do("GET", "/api/datasets", "", nil)
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /api/datasets: got %d, want 200", resp.StatusCode)
	}

	form := url.Values{"label_names": {"label:a\r\nlabel:b\n\n"}, "kind": {""}}
	resp, _ = s.do("POST", page+"/labels", "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("relabel by name: got %d, want 303", resp.StatusCode)
	}
	if got := s.page(page).Find(`[data-testid="labels"]`).Text(); got != "2" {
		t.Errorf("after relabelling: got %s labels, want 2", got)
	}
}

// A multi-dimensional data set with 80 class variables, one of them with
// 300 classes: the page shows the first 50 variables and each one's 50
// most frequent classes, and says so.
func TestBoundedViewsManyClasses(t *testing.T) {
	const vars, n = 80, 600
	var b strings.Builder
	b.WriteString("x")
	for j := range vars {
		fmt.Fprintf(&b, ",label:v%d", j+1)
	}
	b.WriteByte('\n')
	for i := range n {
		fmt.Fprintf(&b, "%d,%d", i, i%300) // v1: 300 classes of 2 rows
		for j := 1; j < vars; j++ {
			fmt.Fprintf(&b, ",%d", (i+j)%3)
		}
		b.WriteByte('\n')
	}
	s := newServer(t, t.TempDir(), 64<<20)
	id := s.uploadCSV("many-classes.csv", b.String())
	resp, body := s.do("GET", "/datasets/"+id, "", nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("page: got %d, want 200", resp.StatusCode)
	}
	doc := parseHTML(t, body)
	want := "80 class variables: the class tables show the first 50; choose others below."
	if got := strings.TrimSpace(doc.Find(`[data-testid="label-choice-notice"]`).Text()); got != want {
		t.Errorf("notice: got %q, want %q", got, want)
	}
	tables := doc.Find(`[data-testid="class-table"]`)
	if tables.Length() != 50 {
		t.Errorf("class tables: got %d, want 50", tables.Length())
	}
	first := tables.First()
	if n := first.Find("tbody tr").Length(); n != 50 {
		t.Errorf("v1's table: got %d classes, want 50", n)
	}
	if got := strings.TrimSpace(first.Find(`[data-testid="class-table-more"]`).Text()); got != "the 50 most frequent shown; 250 more with 500 rows" {
		t.Errorf("v1's table: got %q", got)
	}
	resp, body = s.do("GET", "/datasets/"+id+"?labels=v80,v2", "", nil)
	if tables := parseHTML(t, body).Find(`[data-testid="class-table"] caption`); resp.StatusCode != http.StatusOK || tables.Length() != 2 || !strings.HasPrefix(strings.TrimSpace(tables.First().Text()), "v80") {
		t.Errorf("page with labels=v80,v2: got %d and %d tables, want 200 and v80, v2", resp.StatusCode, tables.Length())
	}
}

// A job on 1 500 labels: its page offers the first 1 000 labels to colour
// the projection, and colours by any label named in the address.
func TestBoundedJobColourOptions(t *testing.T) {
	s := newJobServer(t, 1, 10, nil)
	csv, _ := manyLabelsCSV(40, 1500)
	id := s.uploadCSV("labels-1500.csv", csv)
	resp, job := s.submit(`{"dataset":"` + id + `","method":"pca","params":{"d":2}}`)
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("submit: got %d %v, want 202", resp.StatusCode, job)
	}
	jid := job["id"].(string)
	s.waitJob(jid, "succeeded")
	doc := s.page("/jobs/" + jid)
	if n := doc.Find(`[data-testid="colour-select"] option`).Length(); n != 1002 {
		t.Errorf("colour options: got %d, want 1 002 (count, set and the first 1 000 labels)", n)
	}
	last := "L01500"
	resp, _ = s.do("GET", "/api/jobs/"+jid+"/plots/projection.svg?colour=label:"+last, "", nil)
	if resp.StatusCode != http.StatusOK {
		t.Errorf("projection coloured by %s (not listed): got %d, want 200", last, resp.StatusCode)
	}
}
