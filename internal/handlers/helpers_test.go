package handlers_test

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"mldr/internal/handlers"
	"mldr/internal/store"
)

// server is a real HTTP server over a real store in a temporary directory.
type server struct {
	t     testing.TB
	dir   string
	store *store.Store
	http  *httptest.Server
	max   int64
}

func newServer(t testing.TB, dir string, maxUpload int64) *server {
	t.Helper()
	st, err := store.Open(store.Config{Dir: dir})
	if err != nil {
		t.Fatalf("opening the store: %v", err)
	}
	s := &server{t: t, dir: dir, store: st, max: maxUpload}
	s.http = httptest.NewServer(handlers.New(handlers.Config{Store: st, MaxUpload: maxUpload, Version: "test"}))
	t.Cleanup(s.close)
	return s
}

// close stops the server and closes the store; safe to call twice.
func (s *server) close() {
	if s.http == nil {
		return
	}
	s.http.Close()
	if err := s.store.Close(); err != nil {
		s.t.Errorf("closing the store: %v", err)
	}
	s.http = nil
}

// part is one part of a multipart upload.
type part struct {
	name, file, body string
}

func multipartBody(t testing.TB, parts ...part) (io.Reader, string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, p := range parts {
		var w io.Writer
		var err error
		if p.file != "" || p.name == "file" || p.name == "xml" {
			w, err = mw.CreateFormFile(p.name, p.file)
		} else {
			w, err = mw.CreateFormField(p.name)
		}
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, p.body)
	}
	mw.Close()
	return &buf, mw.FormDataContentType()
}

// send makes a request with headers (a nil body for none).
func (s *server) send(method, path string, headers map[string]string, body io.Reader) (*http.Response, []byte) {
	s.t.Helper()
	req, err := http.NewRequest(method, s.http.URL+path, body)
	if err != nil {
		s.t.Fatal(err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		s.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

func (s *server) do(method, path, contentType string, body io.Reader) (*http.Response, []byte) {
	s.t.Helper()
	var headers map[string]string
	if contentType != "" {
		headers = map[string]string{"Content-Type": contentType}
	}
	return s.send(method, path, headers, body)
}

func (s *server) upload(path string, parts ...part) (*http.Response, []byte) {
	s.t.Helper()
	body, ct := multipartBody(s.t, parts...)
	return s.do("POST", path, ct, body)
}

// apiDataset holds the API fields the tests look at.
type apiDataset struct {
	ID                string   `json:"id"`
	Name              string   `json:"name"`
	Rows              int      `json:"rows"`
	Features          int      `json:"features"`
	Labels            []string `json:"labels"`
	LabelCount        int      `json:"label_count"`
	Kind              string   `json:"kind"`
	LabelCardinality  *float64 `json:"label_cardinality"`
	LabelDensity      *float64 `json:"label_density"`
	DistinctLabelsets int      `json:"distinct_labelsets"`
	Warnings          []string `json:"warnings"`
	Columns           []string `json:"columns"`
	LabelColumns      []string `json:"label_columns"`
	SHA256            string   `json:"sha256"`
}

type apiErr struct {
	Error  string `json:"error"`
	Field  string `json:"field"`
	Line   int    `json:"line"`
	Column string `json:"column"`
}

func decode[T any](t testing.TB, b []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("decoding %q: %v", b, err)
	}
	return v
}

// snapshot is the list of data sets as the API shows it, plus every file
// under the data directory except the metadata file (whose bytes bbolt
// may rewrite without changing its records).
func (s *server) snapshot() string {
	s.t.Helper()
	_, list := s.do("GET", "/api/datasets", "", nil)
	var files []string
	filepath.Walk(s.dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && filepath.Base(p) != "meta.db" {
			rel, _ := filepath.Rel(s.dir, p)
			files = append(files, rel)
		}
		return nil
	})
	sort.Strings(files)
	return string(list) + "\n" + strings.Join(files, "\n")
}

func sharedDataset(t *testing.T, rel string) []byte {
	t.Helper()
	p := filepath.Join("..", "..", "..", "shared", "datasets", rel)
	b, err := os.ReadFile(p)
	if os.IsNotExist(err) {
		if os.Getenv("MLDR_REQUIRE_SHARED") == "1" {
			t.Fatalf("%s is missing (MLDR_REQUIRE_SHARED=1): clone ../shared beside the project", p)
		}
		t.Skipf("%s not present", p)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}

const smallCSV = "a,b,label:x,label:y\n1,2,0,1\n3,4,1,1\n5,6,1,0\n"
