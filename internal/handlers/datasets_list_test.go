package handlers_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// TestDatasetListColumns: the list of data sets shows each one's rows,
// features, labels and storage, and tells equal names apart by their
// upload time and id, as the jobs list does.
func TestDatasetListColumns(t *testing.T) {
	s := newJobServer(t, 1, 0, nil)
	first, second := s.demo("multilabel"), s.demo("multilabel") // the same name
	multidim := s.demo("multidim")
	resp, body := s.upload("/api/datasets", part{name: "file", file: "wide.svm", body: wideSVM()})
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("POST /api/datasets: got %d %s, want 201", resp.StatusCode, body)
	}
	sparse := decode[struct{ ID string }](t, body).ID
	s.finished(`{"dataset":"` + first + `","method":"pca","params":{"d":2}}`)

	resp, body = s.do("GET", "/", "", nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /: got %d, want 200", resp.StatusCode)
	}
	doc := parseHTML(t, body)
	var heads []string
	doc.Find(`[data-testid="dataset-table"] thead th`).Each(func(_ int, th *goquery.Selection) { heads = append(heads, strings.TrimSpace(th.Text())) })
	if got, want := strings.Join(heads, "|"), "Compare|Name|Kind|Rows|Features|Labels|Storage|Uploaded"; got != want {
		t.Errorf("columns: got %q, want %q", got, want)
	}
	type row struct{ name, rows, features, labels, storage string }
	got := map[string]row{}
	doc.Find(`[data-testid="dataset-row"]`).Each(func(_ int, tr *goquery.Selection) {
		a := tr.Find(`[data-testid="dataset-name"]`)
		id := strings.TrimPrefix(a.AttrOr("href", ""), "/datasets/")
		got[id] = row{a.Text(), tr.Find(`[data-testid="dataset-rows"]`).Text(), tr.Find(`[data-testid="dataset-features"]`).Text(),
			tr.Find(`[data-testid="dataset-labels"]`).Text(), tr.Find(`[data-testid="dataset-storage"]`).Text()}
	})
	uploaded := func(id string) string {
		rec, err := s.store.Dataset(id)
		if err != nil {
			t.Fatal(err)
		}
		return rec.CreatedAt.UTC().Format("2006-01-02 15:04 UTC")
	}
	ml := "Demo: synthetic scenes (multi-label)"
	for id, want := range map[string]row{
		first:    {ml + " (uploaded " + uploaded(first) + ", id " + first[:6] + ")", "600", "24", "6", "dense"},
		second:   {ml + " (uploaded " + uploaded(second) + ", id " + second[:6] + ")", "600", "24", "6", "dense"},
		multidim: {"Demo: synthetic parts (multi-dimensional)", "400", "10", "3", "dense"},
		sparse:   {"wide", "300", "300", "3", "sparse"},
	} {
		if got[id] != want {
			t.Errorf("data set %s: got %+v, want %+v", id, got[id], want)
		}
	}

	// The jobs list names the data set as the list of data sets does.
	_, body = s.do("GET", "/jobs", "", nil)
	if name := got[first].name; !strings.Contains(parseHTML(t, body).Find("main").Text(), name) {
		t.Errorf("jobs list: no %q", name)
	}
}
