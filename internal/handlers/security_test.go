package handlers_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"mldr/internal/auth"
	"mldr/internal/dataset"
	"mldr/internal/handlers"
	"mldr/internal/store"
)

const testToken = "correct-horse-battery-staple"

// newConfiguredServer is a real server over a real store with cfg (Store
// is filled in).
func newConfiguredServer(t *testing.T, cfg handlers.Config) *server {
	t.Helper()
	dir := t.TempDir()
	st, err := store.Open(store.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Store = st
	if cfg.MaxUpload == 0 {
		cfg.MaxUpload = 1 << 20
	}
	s := &server{t: t, dir: dir, store: st, max: cfg.MaxUpload}
	s.http = httptest.NewServer(handlers.New(cfg))
	t.Cleanup(s.close)
	return s
}

func TestSecurityHeaders(t *testing.T) {
	s := newServer(t, t.TempDir(), 1<<20)
	for _, path := range []string{"/", "/api/datasets", "/static/style.css", "/static/app.js", "/nope", "/api/nope", "/healthz"} {
		resp, _ := s.do("GET", path, "", nil)
		h := resp.Header
		csp := h.Get("Content-Security-Policy")
		for _, want := range []string{"script-src 'self'", "frame-ancestors 'none'", "default-src 'self'", "object-src 'none'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("%s: Content-Security-Policy %q lacks %s", path, csp, want)
			}
		}
		if strings.Contains(strings.SplitN(csp[strings.Index(csp, "script-src"):], ";", 2)[0], "unsafe") {
			t.Errorf("%s: scripts may run inline: %q", path, csp)
		}
		if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Referrer-Policy") == "" || h.Get("X-Frame-Options") != "DENY" {
			t.Errorf("%s: headers %v", path, h)
		}
	}
	// No page has an inline script or event handler for the policy to break
	// (the browser tests also watch for violations).
	for _, path := range []string{"/", "/login"} {
		_, body := s.do("GET", path, "", nil)
		doc := parseHTML(t, body)
		if n := doc.Find("script:not([src])").Length(); n != 0 {
			t.Errorf("%s has %d inline scripts", path, n)
		}
		if strings.Contains(string(body), " onclick=") || strings.Contains(string(body), " onload=") {
			t.Errorf("%s has inline event handlers", path)
		}
	}
}

// Requests that change something and come from another site's page are
// refused; the same from this site's pages, scripts and curl pass.
func TestCrossSiteRequestsRefused(t *testing.T) {
	s := newServer(t, t.TempDir(), 1<<20)
	before := s.snapshot()
	for _, c := range []struct {
		name    string
		headers map[string]string
	}{
		{"Sec-Fetch-Site cross-site", map[string]string{"Sec-Fetch-Site": "cross-site"}},
		{"Sec-Fetch-Site same-site", map[string]string{"Sec-Fetch-Site": "same-site"}},
		{"foreign Origin", map[string]string{"Origin": "http://evil.example"}},
	} {
		for _, path := range []string{"/api/datasets/demo?demo=multilabel", "/datasets/demo"} {
			resp, body := s.send("POST", path, c.headers, strings.NewReader("demo=multilabel"))
			if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(body), "another site") {
				t.Errorf("%s, POST %s: %d %.120s", c.name, path, resp.StatusCode, body)
			}
		}
	}
	if after := s.snapshot(); after != before {
		t.Errorf("refused cross-site requests changed the store")
	}
	for _, headers := range []map[string]string{
		nil, // curl, scripts
		{"Sec-Fetch-Site": "same-origin"},
		{"Sec-Fetch-Site": "none"}, // typed in the address bar
		{"Origin": s.http.URL},
	} {
		headers2 := map[string]string{"Content-Type": "application/x-www-form-urlencoded"}
		for k, v := range headers {
			headers2[k] = v
		}
		if resp, body := s.send("POST", "/api/datasets/demo?demo=multilabel", headers2, nil); resp.StatusCode != http.StatusCreated {
			t.Errorf("headers %v: %d %.120s", headers, resp.StatusCode, body)
		}
	}
	// Reading is never refused.
	if resp, _ := s.send("GET", "/api/datasets", map[string]string{"Sec-Fetch-Site": "cross-site"}, nil); resp.StatusCode != 200 {
		t.Errorf("a cross-site GET: %d", resp.StatusCode)
	}
}

func TestAccessToken(t *testing.T) {
	guard, err := auth.New(testToken, time.Hour, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := newConfiguredServer(t, handlers.Config{Guard: guard, Version: "test"})
	bearer := map[string]string{"Authorization": "Bearer " + testToken}

	// Open without the token: health, static files, the login form.
	for _, path := range []string{"/healthz", "/static/style.css", "/static/app.js", "/login"} {
		if resp, _ := s.send("GET", path, nil, nil); resp.StatusCode != 200 {
			t.Errorf("GET %s without a token: %d", path, resp.StatusCode)
		}
	}
	// The API wants the bearer token.
	for _, h := range []map[string]string{nil, {"Authorization": "Bearer wrong-token-but-long-enough"}, {"Authorization": "Basic " + testToken}} {
		resp, body := s.send("GET", "/api/datasets", h, nil)
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(resp.Header.Get("WWW-Authenticate"), "Bearer") ||
			!strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") || !strings.Contains(string(body), "access token") {
			t.Errorf("GET /api/datasets with %v: %d %s %s", h, resp.StatusCode, resp.Header, body)
		}
	}
	if resp, _ := s.send("GET", "/api/datasets", bearer, nil); resp.StatusCode != 200 {
		t.Errorf("with the token: %d", resp.StatusCode)
	}
	if resp, _ := s.send("POST", "/api/datasets/demo?demo=multilabel", bearer, nil); resp.StatusCode != 201 {
		t.Errorf("a demo with the token: %d", resp.StatusCode)
	}
	// Pages send the browser to the login form, and back after it.
	resp, _ := s.send("GET", "/jobs?x=1", nil, nil)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/login?next="+url.QueryEscape("/jobs?x=1") {
		t.Fatalf("a page without a session: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	form := func(tok, next string) io.Reader {
		return strings.NewReader(url.Values{"token": {tok}, "next": {next}}.Encode())
	}
	ctype := map[string]string{"Content-Type": "application/x-www-form-urlencoded"}
	resp, body := s.send("POST", "/login", ctype, form("nope", "/jobs"))
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(string(body), "not this server") || len(resp.Cookies()) != 0 {
		t.Errorf("a wrong token: %d %v", resp.StatusCode, resp.Cookies())
	}
	everyInputLabelled(t, parseHTML(t, body))
	resp, _ = s.send("POST", "/login", ctype, form(testToken, "/jobs?x=1"))
	cookies := resp.Cookies()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/jobs?x=1" || len(cookies) != 1 {
		t.Fatalf("logging in: %d %q %v", resp.StatusCode, resp.Header.Get("Location"), cookies)
	}
	c := cookies[0]
	if c.Name != auth.CookieName || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || !c.Secure {
		t.Errorf("session cookie %+v: want HttpOnly, SameSite=Strict and Secure (127.0.0.1 is a secure context)", c)
	}
	session := map[string]string{"Cookie": c.Name + "=" + c.Value}
	for _, path := range []string{"/", "/api/datasets"} {
		if resp, _ := s.send("GET", path, session, nil); resp.StatusCode != 200 {
			t.Errorf("GET %s with the session: %d", path, resp.StatusCode)
		}
	}
	_, body = s.send("GET", "/", session, nil)
	if parseHTML(t, body).Find(`[data-testid="logout"]`).Length() != 1 {
		t.Error("a guarded page offers no log out")
	}
	// A session cookie does not excuse a wrong bearer token.
	if resp, _ := s.send("GET", "/api/datasets", map[string]string{"Cookie": session["Cookie"], "Authorization": "Bearer wrong"}, nil); resp.StatusCode != 401 {
		t.Errorf("a wrong bearer with a session: %d", resp.StatusCode)
	}
	// Logging out ends the session in the browser (and on the server: see
	// TestLogoutRevokesSession).
	resp, _ = s.send("POST", "/logout", session, nil)
	if resp.StatusCode != http.StatusSeeOther || len(resp.Cookies()) != 1 || resp.Cookies()[0].MaxAge >= 0 {
		t.Errorf("logout: %d %v", resp.StatusCode, resp.Cookies())
	}
}

// clock is a settable time for the guard.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

var formType = map[string]string{"Content-Type": "application/x-www-form-urlencoded"}

func loginForm(tok, next string) io.Reader {
	return strings.NewReader(url.Values{"token": {tok}, "next": {next}}.Encode())
}

// Wrong tokens from one client get it 429; others go on. The right token
// gets in as soon as the client's next attempt is due (Retry-After), not a
// minute later, and clears its count.
func TestAccessTokenThrottle(t *testing.T) {
	clk := &clock{t: time.Unix(1_800_000_000, 0)}
	guard, _ := auth.New(testToken, time.Hour, clk.now)
	s := newConfiguredServer(t, handlers.Config{Guard: guard})
	wrong := map[string]string{"Authorization": "Bearer wrong-wrong-wrong"}
	right := map[string]string{"Authorization": "Bearer " + testToken}
	for i := range 10 {
		if resp, _ := s.send("GET", "/api/datasets", wrong, nil); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("wrong token %d: got %d, want 401", i+1, resp.StatusCode)
		}
	}
	for _, h := range []map[string]string{wrong, right} {
		resp, body := s.send("GET", "/api/datasets", h, nil)
		if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "6" ||
			decode[apiErr](t, body).Error != "too many wrong access tokens lately; try again in 6 seconds" {
			t.Errorf("%v after 10 wrong tokens: got %d, Retry-After %q, %s; want 429, 6 and the sentence", h, resp.StatusCode, resp.Header.Get("Retry-After"), body)
		}
	}
	resp, body := s.send("POST", "/login", formType, loginForm(testToken, "/"))
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "6" ||
		!strings.Contains(string(body), "Too many wrong tokens lately: wait 6 seconds, then try again.") {
		t.Errorf("the login form after 10 wrong tokens: got %d, Retry-After %q; want 429, 6 and the sentence", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	clk.add(6 * time.Second)
	if resp, body := s.send("GET", "/api/datasets", right, nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("the right token once its attempt is due: got %d %s, want 200", resp.StatusCode, body)
	}
	// Its count starts again: ten more wrong tokens are checked.
	for i := range 10 {
		if resp, _ := s.send("GET", "/api/datasets", wrong, nil); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("wrong token %d after the right one: got %d, want 401", i+1, resp.StatusCode)
		}
	}
	if resp, _ := s.send("GET", "/api/datasets", wrong, nil); resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("an 11th wrong token: got %d, want 429", resp.StatusCode)
	}
	// The login form too: the right token passes once due.
	clk.add(6 * time.Second)
	resp, _ = s.send("POST", "/login", formType, loginForm(testToken, "/jobs"))
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/jobs" || len(resp.Cookies()) != 1 {
		t.Errorf("logging in once due: got %d %q %v, want 303 to /jobs with a cookie", resp.StatusCode, resp.Header.Get("Location"), resp.Cookies())
	}
}

// The login form sends nobody to another site: next must be a path on
// this server, else the browser goes to /.
func TestLoginNext(t *testing.T) {
	guard, _ := auth.New(testToken, time.Hour, nil)
	s := newConfiguredServer(t, handlers.Config{Guard: guard})
	for _, c := range []struct{ next, want string }{
		{"/jobs/abc?x=1", "/jobs/abc?x=1"},
		{"/datasets/abc#top", "/datasets/abc#top"},
		{"/", "/"},
		{"", "/"},
		{"//evil.com", "/"},
		{"///evil.com", "/"},
		{"/\\evil.com", "/"},
		{"/\t/evil.com", "/"}, // Chromium drops the tab: //evil.com
		{"/\n/evil.com", "/"},
		{"\t//evil.com", "/"},
		{"/jobs\r\nSet-Cookie: x=1", "/"},
		{"\r\n", "/"},
		{"/%09/evil.com", "/"}, // decodes to a tab: refused as well
		{"/%5Cevil.com", "/"},  // decodes to a backslash
		{"/%2F/evil.com", "/"}, // decodes to //evil.com
		{"/x\x7f", "/"},
		{"https://evil.com", "/"},
		{"http:/evil.com", "/"},
		{"javascript:alert(1)", "/"},
		{"evil.com", "/"},
		{"//user@evil.com/", "/"},
		{"/jobs/%zz", "/"}, // not a URL
	} {
		// A round trip, not a client: a client refuses to parse some of
		// the Locations the old check let through.
		req, _ := http.NewRequest("POST", s.http.URL+"/login", loginForm(testToken, c.next))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != c.want {
			t.Errorf("next %q: got %d to %q, want 303 to %q", c.next, resp.StatusCode, resp.Header.Get("Location"), c.want)
		}
	}
}

// Logging out ends the session on the server: a copy of the cookie taken
// before is refused afterwards, by the pages and the API.
func TestLogoutRevokesSession(t *testing.T) {
	guard, _ := auth.New(testToken, time.Hour, nil)
	s := newConfiguredServer(t, handlers.Config{Guard: guard})
	login := func() map[string]string {
		resp, _ := s.send("POST", "/login", formType, loginForm(testToken, "/"))
		if len(resp.Cookies()) != 1 {
			t.Fatalf("logging in: got %d %v, want a cookie", resp.StatusCode, resp.Cookies())
		}
		return map[string]string{"Cookie": auth.CookieName + "=" + resp.Cookies()[0].Value}
	}
	session, other := login(), login()
	copied := map[string]string{"Cookie": session["Cookie"]}
	if resp, _ := s.send("GET", "/api/datasets", copied, nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("the copy before logout: got %d, want 200", resp.StatusCode)
	}
	resp, _ := s.send("POST", "/logout", session, nil)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/login" || len(resp.Cookies()) != 1 || resp.Cookies()[0].MaxAge >= 0 {
		t.Fatalf("logout: got %d %q %v, want 303 to /login and an expired cookie", resp.StatusCode, resp.Header.Get("Location"), resp.Cookies())
	}
	resp, _ = s.send("GET", "/", copied, nil)
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/login?next=") {
		t.Errorf("a page with the copied cookie after logout: got %d %q, want 303 to the login form", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp, body := s.send("GET", "/api/datasets", copied, nil)
	if resp.StatusCode != http.StatusUnauthorized || decode[apiErr](t, body).Error != "this server needs its access token: send Authorization: Bearer TOKEN" {
		t.Errorf("the API with the copied cookie after logout: got %d %s, want 401", resp.StatusCode, body)
	}
	if resp, _ := s.send("GET", "/", other, nil); resp.StatusCode != http.StatusOK {
		t.Errorf("another session after the logout: got %d, want 200", resp.StatusCode)
	}
}

// X-Forwarded-For names the client only when it comes from a trusted
// proxy: from anyone else it changes neither the throttled identity nor
// the logged address.
func TestTrustedProxy(t *testing.T) {
	wrong := func(xff string) map[string]string {
		h := map[string]string{"Authorization": "Bearer wrong-wrong-wrong"}
		if xff != "" {
			h["X-Forwarded-For"] = xff
		}
		return h
	}
	t.Run("untrusted peer", func(t *testing.T) {
		guard, _ := auth.New(testToken, time.Hour, nil)
		proxies, _ := auth.ParseProxies("10.0.0.1")
		var logs syncBuffer
		s := newConfiguredServer(t, handlers.Config{Guard: guard, TrustedProxies: proxies, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		for i := range 10 {
			s.send("GET", "/api/datasets", wrong(fmt.Sprintf("203.0.113.%d", i)), nil)
		}
		if resp, _ := s.send("GET", "/api/datasets", wrong("198.51.100.1"), nil); resp.StatusCode != http.StatusTooManyRequests {
			t.Errorf("a spoofed X-Forwarded-For from an untrusted peer: got %d, want 429 (the peer is throttled)", resp.StatusCode)
		}
		if l := logs.String(); strings.Contains(l, "203.0.113.") || !strings.Contains(l, "client=127.0.0.1") {
			t.Errorf("the logs name a forwarded address, or not the peer:\n%s", l)
		}
	})
	t.Run("trusted proxy", func(t *testing.T) {
		guard, _ := auth.New(testToken, time.Hour, nil)
		proxies, _ := auth.ParseProxies("127.0.0.1")
		var logs syncBuffer
		s := newConfiguredServer(t, handlers.Config{Guard: guard, TrustedProxies: proxies, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		for range 10 {
			s.send("GET", "/api/datasets", wrong("6.6.6.6, 203.0.113.9"), nil)
		}
		if resp, _ := s.send("GET", "/api/datasets", wrong("203.0.113.9"), nil); resp.StatusCode != http.StatusTooManyRequests {
			t.Errorf("the same forwarded client: got %d, want 429", resp.StatusCode)
		}
		if resp, _ := s.send("GET", "/api/datasets", wrong("203.0.113.10"), nil); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("another forwarded client: got %d, want 401", resp.StatusCode)
		}
		if resp, _ := s.send("GET", "/api/datasets", map[string]string{"Authorization": "Bearer " + testToken}, nil); resp.StatusCode != http.StatusOK {
			t.Errorf("the proxy itself with the right token: got %d, want 200", resp.StatusCode)
		}
		if l := logs.String(); !strings.Contains(l, "client=203.0.113.9") || strings.Contains(l, "6.6.6.6") {
			t.Errorf("the logs do not name the forwarded client 203.0.113.9 (or name the forged hop):\n%s", l)
		}
	})
}

// syncBuffer is a log sink safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// No more uploads run at once than allowed; the next get 429 at once.
func TestUploadLimit(t *testing.T) {
	s := newConfiguredServer(t, handlers.Config{MaxUploads: 1, Version: "test"})
	body, ctype := multipartBody(t, part{name: "file", file: "a.csv", body: smallCSV})
	all, err := io.ReadAll(body)
	if err != nil {
		t.Fatal(err)
	}
	// The first upload holds the only slot while its body trickles in. It
	// is written by hand on a connection of its own, so that its headers
	// surely reach the server (a client may buffer them with the body).
	var conn net.Conn
	start := func() {
		var err error
		if conn, err = net.Dial("tcp", strings.TrimPrefix(s.http.URL, "http://")); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(conn, "POST /api/datasets HTTP/1.1\r\nHost: test\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n", ctype, len(all))
		conn.Write(all[:10])
	}
	start()
	defer func() { conn.Close() }()
	deadline := time.Now().Add(10 * time.Second)
	var got *http.Response
	for time.Now().Before(deadline) {
		b, ct := multipartBody(t, part{name: "file", file: "b.csv", body: smallCSV})
		resp, respBody := s.send("POST", "/api/datasets", map[string]string{"Content-Type": ct}, b)
		if resp.StatusCode == http.StatusTooManyRequests {
			got = resp
			if !strings.Contains(string(respBody), "1 upload is in progress, the most this server reads at once") {
				t.Errorf("the 429 says %s", respBody)
			}
			break
		}
		// The second upload ran, so the first held no slot: its request
		// reached the server only after the second had taken the slot, and
		// was refused (an answer the server sends only after the rest of
		// the body, which never comes), or it has not reached the server
		// yet. Send the first again, and wait a little for it.
		conn.Close()
		start()
		time.Sleep(10 * time.Millisecond)
	}
	if got == nil || got.Header.Get("Retry-After") == "" {
		t.Fatalf("a second upload while one runs was not refused with 429 and Retry-After: %v", got)
	}
	conn.Write(all[10:])
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("the first upload: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Errorf("the first upload: %d", resp.StatusCode)
	}
	b, ct := multipartBody(t, part{name: "file", file: "c.csv", body: smallCSV})
	if resp, body := s.send("POST", "/api/datasets", map[string]string{"Content-Type": ct}, b); resp.StatusCode != http.StatusCreated {
		t.Errorf("an upload once the slot is free: %d %s", resp.StatusCode, body)
	}
}

// failingStore is a store whose listing panics and whose loading fails
// with an error that names internals.
type failingStore struct{ *store.Store }

func (failingStore) Datasets() ([]store.DatasetRecord, error) {
	panic("the listing exploded at /secret/path")
}

func (failingStore) LoadDataset(string) (*dataset.Dataset, error) {
	return nil, errors.New("open /secret/path/data-1.bin: input/output error")
}

// A panic or an unexpected error becomes a 500 with a request id; its
// details stay in the log; the server goes on.
func TestServerErrorsHideInternals(t *testing.T) {
	dir := t.TempDir()
	st, err := store.Open(store.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	var logs strings.Builder
	s := &server{t: t, dir: dir, store: st, max: 1 << 20}
	s.http = httptest.NewServer(handlers.New(handlers.Config{Store: failingStore{st}, MaxUpload: 1 << 20,
		Logger: slog.New(slog.NewTextHandler(&logs, nil))}))
	t.Cleanup(s.close)
	_, body := s.do("POST", "/api/datasets/demo?demo=multilabel", "", nil)
	id := decode[apiDataset](t, body).ID
	for _, path := range []string{"/", "/api/datasets", "/api/datasets/" + id + "/data.csv", "/api/datasets/" + id + "/nmi.json"} {
		resp, body := s.do("GET", path, "", nil)
		if resp.StatusCode != 500 || !strings.Contains(string(body), "request id") {
			t.Errorf("GET %s: %d %s", path, resp.StatusCode, body)
		}
		for _, leak := range []string{"/secret/path", "exploded", "goroutine", ".go:"} {
			if strings.Contains(string(body), leak) {
				t.Errorf("GET %s shows %q: %s", path, leak, body)
			}
		}
	}
	if !strings.Contains(logs.String(), "exploded") || !strings.Contains(logs.String(), "goroutine") {
		t.Error("the panic and its stack are not in the log")
	}
	if resp, _ := s.do("GET", "/api/datasets/"+id, "", nil); resp.StatusCode != 200 {
		t.Errorf("after the failures the server answers %d", resp.StatusCode)
	}
}

// Nothing from a URL reaches the file system unchecked.
func TestPathsFromURLs(t *testing.T) {
	s := newServer(t, t.TempDir(), 1<<20)
	for _, path := range []string{
		"/api/datasets/..%2f..%2fmeta.db", "/api/datasets/../../meta.db/source", "/datasets/%2e%2e/source",
		"/api/datasets/AAAAAAAAAAAAAAAA", "/api/datasets/aaaaaaaaaaaaaaa1/data.csv",
		"/static/../go.mod", "/static/", "/static/%2e%2e/embed.go", "/static/embed.go",
	} {
		resp, body := s.do("GET", path, "", nil)
		if resp.StatusCode != http.StatusNotFound && resp.StatusCode != http.StatusBadRequest {
			t.Errorf("GET %s: %d %.80s", path, resp.StatusCode, body)
		}
	}
}
