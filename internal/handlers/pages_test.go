package handlers_test

import (
	"bytes"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

func parseHTML(t testing.TB, b []byte) *goquery.Document {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// everyInputLabelled checks that each visible form control has a <label>.
func everyInputLabelled(t *testing.T, doc *goquery.Document) {
	t.Helper()
	doc.Find("input, select, textarea").Each(func(_ int, s *goquery.Selection) {
		if typ, _ := s.Attr("type"); typ == "hidden" {
			return
		}
		if s.ParentsFiltered("label").Length() > 0 {
			return
		}
		id, _ := s.Attr("id")
		if id == "" || doc.Find(`label[for="`+id+`"]`).Length() == 0 {
			name, _ := s.Attr("name")
			t.Errorf("form control %q (id %q) has no label", name, id)
		}
	})
}

func TestHomePage(t *testing.T) {
	s := newServer(t, t.TempDir(), 1<<20)
	resp, body := s.do("GET", "/", "", nil)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("got %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	doc := parseHTML(t, body)
	if doc.Find(`[data-testid="empty-state"]`).Length() != 1 {
		t.Error("an empty home page shows no empty state")
	}
	if doc.Find(`[data-testid="demo-multilabel"]`).Length() != 1 || doc.Find(`[data-testid="demo-multidim"]`).Length() != 1 {
		t.Error("the demo buttons are missing")
	}
	if doc.Find(`form[enctype="multipart/form-data"] input[type=file][name=file]`).Length() != 1 {
		t.Error("the upload form has no file field")
	}
	everyInputLabelled(t, doc)
	if doc.Find(`a[aria-current="page"]`).Text() != "Data sets" {
		t.Error("the navigation does not mark the current page")
	}
}

// A refused upload on the page shows the same sentence as the API, beside
// the form, with the line and column, and keeps what the user typed.
func TestUploadPageShowsErrors(t *testing.T) {
	s := newServer(t, t.TempDir(), 1<<20)
	bad := "a,b,label:y\n1,2,0\n3,x7,1\n"
	_, apiBody := s.upload("/api/datasets", part{name: "file", file: "bad.csv", body: bad})
	want := decode[apiErr](t, apiBody).Error
	resp, body := s.upload("/datasets", part{name: "name", body: "my data"}, part{name: "file", file: "bad.csv", body: bad})
	if resp.StatusCode != 400 {
		t.Fatalf("got %d, want 400", resp.StatusCode)
	}
	doc := parseHTML(t, body)
	msg := doc.Find(`[data-testid="form-error"]`)
	if msg.Length() != 1 || !strings.Contains(msg.Text(), want[:1]) || !strings.Contains(strings.ToLower(msg.Text()), strings.ToLower(want)) {
		t.Errorf("got error text %q, want it to hold %q", msg.Text(), want)
	}
	if role, _ := msg.Attr("role"); role != "alert" {
		t.Errorf("got role %q, want alert", role)
	}
	if l := doc.Find(`[data-testid="error-line"]`).Text(); l != "3" {
		t.Errorf("got line %q, want 3", l)
	}
	if c := doc.Find(`[data-testid="error-column"]`).Text(); c != "b" {
		t.Errorf("got column %q, want b", c)
	}
	if v, _ := doc.Find("#name").Attr("value"); v != "my data" {
		t.Errorf("the name field lost its value: got %q", v)
	}
	if _, body = s.do("GET", "/api/datasets", "", nil); strings.TrimSpace(string(body)) != "[]" {
		t.Errorf("a refused upload was stored: %s", body)
	}
}

func TestUploadRelabelDeletePages(t *testing.T) {
	s := newServer(t, t.TempDir(), 1<<20)
	// /datasets, where the upload form posts, leads a reader to the list.
	if resp, _ := s.send("GET", "/datasets", nil, nil); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Errorf("GET /datasets: got %d Location %q, want 303 to /", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp, _ := s.upload("/datasets", part{name: "file", file: "tiny.csv", body: smallCSV})
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/datasets/") {
		t.Fatalf("upload: got %d Location %q, want 303 to the data set", resp.StatusCode, resp.Header.Get("Location"))
	}
	loc := resp.Header.Get("Location")
	page := strings.Split(loc, "?")[0]
	resp, body := s.do("GET", loc, "", nil)
	doc := parseHTML(t, body)
	if resp.StatusCode != 200 || doc.Find(`[data-testid="rows"]`).Text() != "3" || doc.Find(`[data-testid="features"]`).Text() != "2" {
		t.Errorf("data set page: got %d, rows %q features %q", resp.StatusCode, doc.Find(`[data-testid="rows"]`).Text(), doc.Find(`[data-testid="features"]`).Text())
	}
	if doc.Find(`[data-testid="notice"]`).Length() != 1 {
		t.Error("no confirmation after the upload")
	}
	if n := doc.Find(`[data-testid="relabel-form"] input[type=checkbox]:checked`).Length(); n != 2 {
		t.Errorf("got %d label columns ticked, want 2", n)
	}
	everyInputLabelled(t, doc)

	form := url.Values{"labels": {"a", "label:x", "label:y"}, "kind": {"multilabel"}}
	resp, body = s.do("POST", page+"/labels", "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
	if resp.StatusCode != 400 || !strings.Contains(parseHTML(t, body).Find("#relabel-error").Text(), "not a binary label") {
		t.Errorf("relabel with a non-binary label: got %d, want 400 with the reason", resp.StatusCode)
	}
	form = url.Values{"labels": {"label:x"}}
	resp, _ = s.do("POST", page+"/labels", "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("relabel: got %d, want 303", resp.StatusCode)
	}
	_, body = s.do("GET", page, "", nil)
	if got := parseHTML(t, body).Find(`[data-testid="features"]`).Text(); got != "3" {
		t.Errorf("after relabel got %s features, want 3", got)
	}
	form = url.Values{"labels": {}}
	resp, body = s.do("POST", page+"/labels", "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
	if resp.StatusCode != 400 || parseHTML(t, body).Find(`#relabel-error`).Length() != 1 {
		t.Errorf("relabel with no label: got %d, want 400 with the error beside the form", resp.StatusCode)
	}

	resp, _ = s.do("POST", page+"/delete", "application/x-www-form-urlencoded", nil)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/?notice=deleted" {
		t.Errorf("delete: got %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp, body = s.do("GET", page, "", nil)
	if resp.StatusCode != 404 || !strings.Contains(string(body), "no data set") {
		t.Errorf("deleted page: got %d, want a 404 page", resp.StatusCode)
	}
}

func TestDemoPage(t *testing.T) {
	s := newServer(t, t.TempDir(), 1<<20)
	resp, _ := s.do("POST", "/datasets/demo", "application/x-www-form-urlencoded", strings.NewReader("demo=multidim"))
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("got %d, want 303", resp.StatusCode)
	}
	_, body := s.do("GET", resp.Header.Get("Location"), "", nil)
	doc := parseHTML(t, body)
	if n := doc.Find(`[data-testid="class-table"]`).Length(); n != 3 {
		t.Errorf("got %d class tables, want 3", n)
	}
	_, body = s.do("GET", "/", "", nil)
	if n := parseHTML(t, body).Find(`[data-testid="dataset-row"]`).Length(); n != 1 {
		t.Errorf("got %d rows on the home page, want 1", n)
	}
}

func TestStaticFiles(t *testing.T) {
	s := newServer(t, t.TempDir(), 1<<20)
	for path, want := range map[string]int{"/static/style.css": 200, "/static/": 404, "/static/nope.js": 404, "/static/../go.mod": 404} {
		if resp, _ := s.do("GET", path, "", nil); resp.StatusCode != want {
			t.Errorf("GET %s: got %d, want %d", path, resp.StatusCode, want)
		}
	}
}
