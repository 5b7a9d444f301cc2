package handlers_test

import (
	"encoding/csv"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"mldr/internal/jobs"
)

// labelsCSV is 300 rows of 8 features and 120 labels t000…t119 whose
// frequencies differ (label j on about (j mod 7 + 1)/20 of the rows,
// decided by the features so that a classifier finds some of them).
func labelsCSV() string {
	var b strings.Builder
	for f := range 8 {
		fmt.Fprintf(&b, "f%d,", f)
	}
	for j := range 120 {
		if j > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "label:t%03d", j)
	}
	b.WriteByte('\n')
	for i := range 300 {
		x := make([]int, 8)
		for f := range x {
			x[f] = (i*(2*f+3) + f*f) % 20
			fmt.Fprintf(&b, "%d,", x[f])
		}
		for j := range 120 {
			if j > 0 {
				b.WriteByte(',')
			}
			on := 0
			if (x[j%8]+j)%20 < j%7+1 {
				on = 1
			}
			fmt.Fprintf(&b, "%d", on)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// labelRows are the rows of a per-label results page's table: each
// label's name and cells' text.
func labelRows(doc *goquery.Document) [][]string {
	var rows [][]string
	doc.Find(`[data-testid="label-results-row"]`).Each(func(_ int, tr *goquery.Selection) {
		var row []string
		tr.Children().Each(func(_ int, c *goquery.Selection) {
			t := c.Clone()
			t.Find(".sr-only").Remove()
			row = append(row, strings.TrimSpace(t.Text()))
		})
		rows = append(rows, row)
	})
	return rows
}

// TestLabelResultsPage runs a 3-fold k-NN evaluation on 120 labels and
// reads its per-label results page: linked from the job page, 50 labels a
// page sorted by their rows, search by name, sort by name or by a method's
// recall (undefined values last), the values those of label_results.csv,
// every control labelled, and refusals that say what is allowed.
func TestLabelResultsPage(t *testing.T) {
	s := newJobServer(t, 1, 0, nil)
	resp, body := s.upload("/api/datasets", part{name: "file", file: "tags.csv", body: labelsCSV()})
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("upload: %d %s", resp.StatusCode, body)
	}
	ds := decode[apiDataset](t, body).ID
	resp, body = s.do("POST", "/api/jobs", "application/json", strings.NewReader(`{"dataset":"`+ds+`","methods":["pca","plst"],"params":{"d":3},`+
		`"split":{"kind":"kfold","folds":3,"seed":1},"evaluate":{"classifier":"knn","k":5}}`))
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("job: %d %s", resp.StatusCode, body)
	}
	id := decode[map[string]any](t, body)["id"].(string)
	s.waitJob(id, jobs.Succeeded)

	job := s.page("/jobs/" + id)
	link := job.Find(`[data-testid="label-results-link"]`)
	if href, _ := link.Attr("href"); href != "/jobs/"+id+"/labels" || !strings.Contains(link.Parent().Text(), "each of the 120 labels") {
		t.Fatalf("the job page's link: %q, %q", href, link.Parent().Text())
	}

	// The file, for the values.
	resp, body = s.do("GET", "/api/jobs/"+id+"/label_results.csv", "", nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(resp.Header.Get("Content-Disposition"), "tags_label_results.csv") {
		t.Fatalf("label_results.csv: %d %s", resp.StatusCode, resp.Header.Get("Content-Disposition"))
	}
	recs, err := csv.NewReader(strings.NewReader(string(body))).ReadAll()
	if err != nil || len(recs) != 121 {
		t.Fatalf("label_results.csv: %d lines, %v", len(recs), err)
	}
	byName := map[string][]string{}
	for _, r := range recs[1:] {
		byName[r[0]] = r
	}
	col := func(name string) int {
		for i, h := range recs[0] {
			if h == name {
				return i
			}
		}
		t.Fatalf("label_results.csv has no column %s: %v", name, recs[0])
		return -1
	}

	doc := s.page("/jobs/" + id + "/labels")
	everyInputLabelled(t, doc)
	rows := labelRows(doc)
	if len(rows) != 50 || strings.TrimSpace(doc.Find(`[data-testid="label-results-count"]`).Text()) != "Labels 1–50 of 120." {
		t.Fatalf("first page: %d rows, %q", len(rows), doc.Find(`[data-testid="label-results-count"]`).Text())
	}
	heads := doc.Find(`[data-testid="label-results-table"] thead th`).Map(func(_ int, s *goquery.Selection) string { return s.Text() })
	if want := []string{"Label", "Rows", "Tested", "F1 of each method", "orid = 8", "PCAd = 3", "PLSTd = 3"}; strings.Join(heads, "|") != strings.Join(want, "|") {
		t.Errorf("columns %q, want %q", heads, want)
	}
	if span, _ := doc.Find(`[data-testid="label-results-metric-head"]`).Attr("colspan"); span != "3" {
		t.Errorf("the metric's heading spans %q columns, want the 3 methods'", span)
	}
	prevRows := 1 << 30
	for _, r := range rows {
		n, _ := strconv.Atoi(r[1])
		if n > prevRows {
			t.Errorf("rows not descending: %v after %d", r, prevRows)
		}
		prevRows = n
		f := byName[r[0]]
		if r[1] != f[col("rows")] || r[2] != f[col("tested")] || r[2] != r[1] {
			t.Errorf("%s: rows %s, tested %s; the file's %s, %s (k-fold tests every row)", r[0], r[1], r[2], f[col("rows")], f[col("tested")])
		}
		for c, key := range []string{"ori_d8", "pca_d3", "plst_d3"} {
			want := "—"
			if v := f[col(key+"_f1")]; v != "" {
				x, _ := strconv.ParseFloat(v, 64)
				want = strconv.FormatFloat(x, 'f', 3, 64)
			}
			if r[3+c] != want {
				t.Errorf("%s, %s: %q, want the file's %q", r[0], key, r[3+c], want)
			}
		}
	}
	next, _ := doc.Find(`[data-testid="label-results-next"]`).Attr("href")
	if doc.Find(`[data-testid="label-results-prev"]`).Length() != 0 || !strings.Contains(next, "page=2") {
		t.Errorf("first page's pager: next %q", next)
	}
	last := s.page("/jobs/" + id + "/labels?page=3")
	if n := len(labelRows(last)); n != 20 || last.Find(`[data-testid="label-results-next"]`).Length() != 0 || last.Find(`[data-testid="label-results-prev"]`).Length() != 1 {
		t.Errorf("last page: %d rows and its pager", n)
	}

	found := s.page("/jobs/" + id + "/labels?q=T00")
	if rows := labelRows(found); len(rows) != 10 || !strings.Contains(found.Find(`[data-testid="label-results-count"]`).Text(), "of the 10 whose names hold “T00”") {
		t.Errorf("search T00: %d rows, %q", len(rows), found.Find(`[data-testid="label-results-count"]`).Text())
	}
	none := s.page("/jobs/" + id + "/labels?q=zzz")
	if none.Find(`[data-testid="label-results-table"]`).Length() != 0 || !strings.Contains(none.Find(`[data-testid="label-results-count"]`).Text(), "No label's name holds “zzz”") {
		t.Errorf("a search that finds nothing: %q", none.Find(`[data-testid="label-results-count"]`).Text())
	}
	if rows := labelRows(s.page("/jobs/" + id + "/labels?sort=name")); rows[0][0] != "t000" || rows[49][0] != "t049" {
		t.Errorf("sorted by name: %s … %s", rows[0][0], rows[49][0])
	}
	// By PCA's recall, ascending: defined values ascending, then "—".
	var all [][]string
	for p := 1; p <= 3; p++ {
		all = append(all, labelRows(s.page(fmt.Sprintf("/jobs/%s/labels?sort=pca_d3&order=asc&metric=recall&page=%d", id, p)))...)
	}
	prev, undefined := -1.0, false
	for _, r := range all {
		if r[4] == "—" {
			undefined = true
			continue
		}
		x, _ := strconv.ParseFloat(r[4], 64)
		if undefined || x < prev {
			t.Errorf("by PCA's recall, ascending: %v after %v (undefined seen: %v)", r, prev, undefined)
		}
		prev = x
	}
	if len(all) != 120 {
		t.Errorf("three pages hold %d labels, want 120", len(all))
	}

	for _, tc := range []struct{ query, msg string }{
		{"page=4", "Page 4 is beyond the last, 3 (120 labels, 50 a page)"},
		{"page=0", `Page must be a whole number from 1 to 2147483647, not "0"`},
		{"sort=f1", `Sort must be one of rows, name, ori_d8, pca_d3, plst_d3, not "f1"`},
		{"metric=auc", `Metric must be one of f1, precision, recall, not "auc"`},
		{"order=up", `Order must be asc or desc, not "up"`},
	} {
		resp, body := s.do("GET", "/jobs/"+id+"/labels?"+tc.query, "", nil)
		if got := parseHTML(t, body).Find(".error").Text(); resp.StatusCode != http.StatusBadRequest || got != tc.msg {
			t.Errorf("%s: %d %q, want 400 saying %q", tc.query, resp.StatusCode, got, tc.msg)
		}
	}

	md := s.demo("multidim")
	resp, body = s.do("POST", "/api/jobs", "application/json", strings.NewReader(`{"dataset":"`+md+`","method":"sdem","params":{"d":2},"evaluate":{"classifier":"ridge"}}`))
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("job: %d %s", resp.StatusCode, body)
	}
	mdID := decode[map[string]any](t, body)["id"].(string)
	s.waitJob(mdID, jobs.Succeeded)
	if s.page("/jobs/"+mdID).Find(`[data-testid="label-results-link"]`).Length() != 0 {
		t.Error("a multi-dimensional job's page links per-label results")
	}
	for _, path := range []string{"/jobs/" + mdID + "/labels", "/api/jobs/" + mdID + "/label_results.csv"} {
		resp, body = s.do("GET", path, "", nil)
		if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(body), "no per-label results") {
			t.Errorf("%s: %d %s, want 404 saying there are none", path, resp.StatusCode, body)
		}
	}
}
