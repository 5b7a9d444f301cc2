package handlers_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"mldr/internal/auth"
	"mldr/internal/handlers"
	"mldr/internal/jobs"
	"mldr/internal/store"
)

// errDown is what a metadata store says while its database cannot be
// reached.
var errDown = fmt.Errorf("PostgreSQL at db:5432/mldr: %w", store.ErrUnavailable)

// outage is a switch every fake below reads: the database is down while
// it is on.
type outage struct{ on atomic.Bool }

func (o *outage) err() error {
	if o.on.Load() {
		return errDown
	}
	return nil
}

// downStore is a real store whose metadata reads fail during an outage.
type downStore struct {
	*store.Store
	o *outage
}

func (d downStore) Datasets() ([]store.DatasetRecord, error) {
	if err := d.o.err(); err != nil {
		return nil, err
	}
	return d.Store.Datasets()
}

func (d downStore) Dataset(id string) (store.DatasetRecord, error) {
	if err := d.o.err(); err != nil {
		return store.DatasetRecord{}, err
	}
	return d.Store.Dataset(id)
}

// downQueue is a real runner whose record reads and writes fail during an
// outage.
type downQueue struct {
	*jobs.Runner
	o *outage
}

func (d downQueue) Submit(id string, req jobs.Request) (jobs.Job, error) {
	if err := d.o.err(); err != nil {
		return jobs.Job{}, err
	}
	return d.Runner.Submit(id, req)
}

func (d downQueue) Get(id string) (jobs.Job, error) {
	if err := d.o.err(); err != nil {
		return jobs.Job{}, err
	}
	return d.Runner.Get(id)
}

func (d downQueue) List() ([]jobs.Job, error) {
	if err := d.o.err(); err != nil {
		return nil, err
	}
	return d.Runner.List()
}

func (d downQueue) Using(id string) ([]jobs.Job, error) {
	if err := d.o.err(); err != nil {
		return nil, err
	}
	return d.Runner.Using(id)
}

// downSessions keeps login sessions in memory, and fails during an outage.
type downSessions struct {
	o  *outage
	mu sync.Mutex
	m  map[[sha256.Size]byte]time.Time
}

func (s *downSessions) PutSession(_ context.Context, key [sha256.Size]byte, exp time.Time) error {
	if err := s.o.err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[key] = exp
	return nil
}

func (s *downSessions) Session(_ context.Context, key [sha256.Size]byte) (time.Time, bool, error) {
	if err := s.o.err(); err != nil {
		return time.Time{}, false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	exp, ok := s.m[key]
	return exp, ok, nil
}

func (s *downSessions) DeleteSession(_ context.Context, key [sha256.Size]byte) error {
	if err := s.o.err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, key)
	return nil
}

// newDownServer is a server whose metadata (data set and job records,
// login sessions when guard is set) fail while o is on, as the shared
// mode's do while its database cannot be reached.
func newDownServer(t *testing.T, o *outage, guarded bool) *server {
	t.Helper()
	dir := t.TempDir()
	st, err := store.Open(store.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	runner, err := jobs.New(jobs.Config{Store: st, Execute: func(context.Context, jobs.Job, jobs.Report) ([]string, error) {
		return nil, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	ds := downStore{Store: st, o: o}
	svc := jobs.NewService(downQueue{Runner: runner, o: o}, ds, jobs.Limits{MaxCells: 1 << 30})
	cfg := handlers.Config{Store: ds, Jobs: svc, MaxUpload: 1 << 20, Version: "test",
		Database: func(context.Context) error { return o.err() }}
	if guarded {
		g, err := auth.NewShared("0123456789abcdef-token", time.Hour, nil, &downSessions{o: o, m: map[[sha256.Size]byte]time.Time{}})
		if err != nil {
			t.Fatal(err)
		}
		cfg.Guard = g
	}
	s := &server{t: t, dir: dir, store: st, max: 1 << 20}
	s.http = httptest.NewServer(handlers.New(cfg))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		runner.Shutdown(ctx)
		s.close()
	})
	return s
}

// wantUnavailable checks a 503 that says the database is unreachable,
// with Retry-After, as JSON or as a page.
func wantUnavailable(t *testing.T, what string, resp *http.Response, body []byte, asJSON bool) {
	t.Helper()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("%s: got %d (Retry-After %q) %.200s, want 503 with Retry-After", what, resp.StatusCode, resp.Header.Get("Retry-After"), body)
		return
	}
	if asJSON {
		var e struct {
			Error string `json:"error"`
		}
		if err := json.Unmarshal(body, &e); err != nil || e.Error != handlers.Unavailable {
			t.Errorf("%s: got %s, want JSON whose error is %q", what, body, handlers.Unavailable)
		}
		return
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") || !strings.Contains(string(body), "The database is unreachable; nothing was stored or changed") {
		t.Errorf("%s: got %s %.300s, want a page saying the database is unreachable", what, ct, body)
	}
}

// While the database cannot be reached, every read and write of the
// metadata answers 503 with Retry-After and the same sentence, as JSON
// under /api/ and as a page elsewhere, never an empty list or a 500; an
// upload and a job submission store nothing; /readyz is 503 and /healthz
// 200. Afterwards the same server answers as before, the job list an
// array even when empty.
func TestDatabaseUnreachable(t *testing.T) {
	o := &outage{}
	s := newDownServer(t, o, false)
	resp, body := s.upload("/api/datasets", part{name: "file", file: "a.csv", body: smallCSV})
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("upload before the outage: got %d %s", resp.StatusCode, body)
	}
	var ds apiDataset
	json.Unmarshal(body, &ds)
	resp, body = s.do("GET", "/api/jobs", "", nil)
	if resp.StatusCode != http.StatusOK || strings.TrimSpace(string(body)) != "[]" {
		t.Errorf("GET /api/jobs with no jobs: got %d %s, want 200 []", resp.StatusCode, body)
	}

	o.on.Store(true)
	for _, c := range []struct {
		path   string
		asJSON bool
	}{{"/api/jobs", true}, {"/api/datasets", true}, {"/api/datasets/" + ds.ID, true}, {"/jobs", false}, {"/", false}, {"/datasets/" + ds.ID, false}} {
		resp, body := s.do("GET", c.path, "", nil)
		wantUnavailable(t, "GET "+c.path, resp, body, c.asJSON)
	}
	resp, body = s.upload("/api/datasets", part{name: "file", file: "b.csv", body: smallCSV})
	wantUnavailable(t, "an upload", resp, body, true)
	resp, body = s.upload("/datasets", part{name: "file", file: "b.csv", body: smallCSV})
	wantUnavailable(t, "an upload by the form", resp, body, false)
	resp, body = s.do("POST", "/api/jobs", "application/json", strings.NewReader(`{"dataset":"`+ds.ID+`","method":"pca","params":{"d":1}}`))
	wantUnavailable(t, "a job submission", resp, body, true)
	resp, body = s.do("GET", "/readyz", "", nil)
	wantUnavailable(t, "GET /readyz", resp, body, true)
	if resp, body := s.do("GET", "/healthz", "", nil); resp.StatusCode != http.StatusOK {
		t.Errorf("GET /healthz during the outage: got %d %s, want 200", resp.StatusCode, body)
	}

	o.on.Store(false)
	resp, body = s.do("GET", "/readyz", "", nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"ready"`) {
		t.Errorf("GET /readyz after the outage: got %d %s, want 200 ready", resp.StatusCode, body)
	}
	resp, body = s.do("GET", "/api/jobs", "", nil)
	if resp.StatusCode != http.StatusOK || strings.TrimSpace(string(body)) != "[]" {
		t.Errorf("GET /api/jobs after the outage: got %d %s, want 200 [] (the refused submission stored nothing)", resp.StatusCode, body)
	}
	var list []apiDataset
	resp, body = s.do("GET", "/api/datasets", "", nil)
	if json.Unmarshal(body, &list); resp.StatusCode != http.StatusOK || len(list) != 1 || list[0].ID != ds.ID {
		t.Errorf("GET /api/datasets after the outage: got %d %s, want the one data set stored before it", resp.StatusCode, body)
	}
	if entries, err := os.ReadDir(filepath.Join(s.dir, "datasets")); err != nil || len(entries) != 1 {
		t.Errorf("datasets/ after the outage: got %d entries (%v), want the one stored before it", len(entries), err)
	}
}

// A guarded server whose login sessions are in the unreachable database
// answers a request with a session cookie 503, not a login form or a
// 401: whether the session is valid is unknown, not false.
func TestSessionsUnreachable(t *testing.T) {
	o := &outage{}
	s := newDownServer(t, o, true)
	resp, _ := s.do("POST", "/login", "application/x-www-form-urlencoded", strings.NewReader("token=0123456789abcdef-token&next=/jobs"))
	var cookie *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == auth.CookieName {
			cookie = c
		}
	}
	if resp.StatusCode != http.StatusSeeOther || cookie == nil {
		t.Fatalf("login: got %d with cookies %v, want 303 and a session cookie", resp.StatusCode, resp.Cookies())
	}
	headers := map[string]string{"Cookie": cookie.Name + "=" + cookie.Value}
	if resp, body := s.send("GET", "/jobs", headers, nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /jobs with the session: got %d %.200s, want 200", resp.StatusCode, body)
	}
	o.on.Store(true)
	resp, body := s.send("GET", "/jobs", headers, nil)
	wantUnavailable(t, "a page with a session cookie", resp, body, false)
	resp, body = s.send("GET", "/api/jobs", headers, nil)
	wantUnavailable(t, "the API with a session cookie", resp, body, true)
	resp, body = s.send("GET", "/login", headers, nil)
	wantUnavailable(t, "the login form with a session cookie", resp, body, false)
	if resp, body := s.do("GET", "/readyz", "", nil); resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("GET /readyz needs no token: got %d %s, want 503", resp.StatusCode, body)
	}
}

// Readiness says which check failed, with Retry-After, and keeps the
// details of an unwritable data directory for the log.
func TestReadiness(t *testing.T) {
	for _, c := range []struct {
		what     string
		database func(context.Context) error
		writable func() error
		status   int
		want     string
	}{
		{"embedded, writable", nil, func() error { return nil }, http.StatusOK, `"ready"`},
		{"database answers", func(context.Context) error { return nil }, func() error { return nil }, http.StatusOK, `"ready"`},
		{"database unreachable", func(context.Context) error { return errDown }, func() error { return nil }, http.StatusServiceUnavailable, handlers.Unavailable},
		{"database refuses", func(context.Context) error { return errors.New("password authentication failed") }, func() error { return nil },
			http.StatusServiceUnavailable, "the database does not answer as it should"},
		{"directory read-only", nil, func() error { return errors.New("open /srv/mldr/tmp/ready-1: read-only file system") },
			http.StatusServiceUnavailable, "the data directory does not take new files"},
	} {
		rec := httptest.NewRecorder()
		handlers.Readiness(c.database, c.writable, nil)(rec, httptest.NewRequest("GET", "/readyz", nil))
		body := rec.Body.String()
		if rec.Code != c.status || !strings.Contains(body, c.want) || (c.status != http.StatusOK) != (rec.Header().Get("Retry-After") != "") {
			t.Errorf("%s: got %d (Retry-After %q) %s, want %d saying %q", c.what, rec.Code, rec.Header().Get("Retry-After"), body, c.status, c.want)
		}
		if strings.Contains(body, "/srv/mldr") || strings.Contains(body, "password") {
			t.Errorf("%s: the answer shows details for the log: %s", c.what, body)
		}
	}
}
