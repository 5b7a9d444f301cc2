package auth

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

const token = "0123456789abcdef-token"

// clock is a settable time.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestNewRefusesShortTokens(t *testing.T) {
	for _, tok := range []string{"", "short", strings.Repeat("x", MinTokenLength-1)} {
		if _, err := New(tok, time.Hour, nil); err != ErrShortToken {
			t.Errorf("New(%q): got %v, want ErrShortToken", tok, err)
		}
	}
	if _, err := New(strings.Repeat("x", MinTokenLength), time.Hour, nil); err != nil {
		t.Errorf("a token of %d characters: %v", MinTokenLength, err)
	}
}

func TestBearer(t *testing.T) {
	g, _ := New(token, time.Hour, nil)
	cases := []struct {
		header         string
		present, valid bool
	}{
		{"", false, false},
		{"Bearer " + token, true, true},
		{"bearer " + token, true, true},
		{"Bearer  " + token + " ", true, true},
		{"Bearer " + token + "x", true, false},
		{"Bearer " + token[:len(token)-1], true, false},
		{"Basic " + token, true, false},
		{token, true, false},
	}
	for _, c := range cases {
		r := httptest.NewRequest("GET", "/api/jobs", nil)
		if c.header != "" {
			r.Header.Set("Authorization", c.header)
		}
		if present, v := g.Bearer(r, "192.0.2.1"); present != c.present || v.OK != c.valid {
			t.Errorf("Authorization %q: got present %v valid %v, want %v %v", c.header, present, v.OK, c.present, c.valid)
		}
	}
}

// valid is ValidSession for a guard whose sessions are in memory, which
// never fails.
func valid(t *testing.T, g *Guard, r *http.Request) bool {
	t.Helper()
	ok, err := g.ValidSession(r)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// with is a request carrying the session cookie value v.
func with(v string) *http.Request {
	r := httptest.NewRequest("GET", "/", nil)
	r.AddCookie(&http.Cookie{Name: CookieName, Value: v})
	return r
}

func TestSessions(t *testing.T) {
	clk := &clock{t: time.Unix(1_800_000_000, 0)}
	g, _ := New(token, time.Hour, clk.now)
	other, _ := New(token, time.Hour, clk.now) // another server, or this one after a restart
	c, err := g.Session(true)
	if err != nil {
		t.Fatal(err)
	}
	if !c.HttpOnly || !c.Secure || c.SameSite != http.SameSiteStrictMode || c.Path != "/" || c.MaxAge != 3600 {
		t.Errorf("cookie attributes: got %+v, want HttpOnly, Secure, SameSite=Strict, Path=/, MaxAge=3600", c)
	}
	if !valid(t, g, with(c.Value)) {
		t.Fatal("a fresh session is not valid")
	}
	if valid(t, other, with(c.Value)) {
		t.Error("a session is valid on a guard that did not open it")
	}
	// Well-formed ids that were never issued, and malformed ones.
	forged := []string{"", "x", c.Value[:len(c.Value)-1], c.Value + "A", strings.Repeat("A", len(c.Value)),
		"AAAAAAAAAAA." + c.Value, c.Value[:len(c.Value)-2] + "AA"}
	for _, v := range forged {
		if valid(t, g, with(v)) {
			t.Errorf("the cookie %q passes", v)
		}
	}
	if valid(t, g, httptest.NewRequest("GET", "/", nil)) {
		t.Error("no cookie passes")
	}
	c2, _ := g.Session(true)
	if c2.Value == c.Value {
		t.Error("two sessions share an id")
	}
	clk.t = clk.t.Add(time.Hour - time.Second)
	if !valid(t, g, with(c.Value)) {
		t.Error("a session ends before its time")
	}
	clk.t = clk.t.Add(time.Second)
	if valid(t, g, with(c.Value)) {
		t.Error("an expired session passes")
	}
	if e := Expired(false); e.MaxAge >= 0 || e.Value != "" {
		t.Errorf("Expired: got %+v, want MaxAge < 0 and no value", e)
	}
}

// Ending a session refuses every copy of its cookie, and only that session.
func TestEndRevokesTheSession(t *testing.T) {
	g, _ := New(token, time.Hour, nil)
	mine, _ := g.Session(false)
	yours, _ := g.Session(false)
	copied := mine.Value
	g.End(with(mine.Value))
	if valid(t, g, with(copied)) {
		t.Error("a copy of the cookie passes after its session ended")
	}
	if !valid(t, g, with(yours.Value)) {
		t.Error("ending one session ended another")
	}
	g.End(with("not-a-session"))                 // no effect, no panic
	g.End(httptest.NewRequest("POST", "/", nil)) // no cookie
	if !valid(t, g, with(yours.Value)) {
		t.Error("ending unknown sessions ended a live one")
	}
}

// Live sessions are bounded: expired ones are forgotten first, then the
// oldest login ends.
func TestSessionsBounded(t *testing.T) {
	clk := &clock{t: time.Unix(1_800_000_000, 0)}
	g, _ := New(token, time.Hour, clk.now)
	first, _ := g.Session(false)
	for range maxSessions - 1 {
		clk.t = clk.t.Add(time.Millisecond)
		g.Session(false)
	}
	last, _ := g.Session(false)
	if n := len(g.sessions); n != maxSessions {
		t.Errorf("got %d sessions kept, want at most %d", n, maxSessions)
	}
	if valid(t, g, with(first.Value)) {
		t.Error("the oldest session survived a full table")
	}
	if !valid(t, g, with(last.Value)) {
		t.Error("the newest session is not valid")
	}
	clk.t = clk.t.Add(2 * time.Hour)
	g.Session(false)
	if n := len(g.sessions); n != 1 {
		t.Errorf("got %d sessions after every other expired, want 1", n)
	}
}

func TestThrottle(t *testing.T) {
	clk := &clock{t: time.Unix(1_800_000_000, 0)}
	g, _ := New(token, time.Hour, clk.now)
	const mallory, alice = "10.0.0.66", "10.0.0.7"
	for i := range failBurst {
		if v := g.CheckToken("wrong", mallory); v.OK || v.RetryAfter != 0 {
			t.Fatalf("wrong token %d: got %+v, want refused and checked", i+1, v)
		}
	}
	// Guessing goes on at one attempt per failEvery at most.
	for i := range 20 {
		v := g.CheckToken("wrong", mallory)
		if v.OK || v.RetryAfter <= 0 || v.RetryAfter > failEvery {
			t.Fatalf("attempt %d while throttled: got %+v, want RetryAfter in (0, %v]", i, v, failEvery)
		}
	}
	if v := g.CheckToken(token, alice); !v.OK {
		t.Errorf("one client's failures lock another out: %+v", v)
	}
	clk.t = clk.t.Add(failEvery)
	if v := g.CheckToken("wrong", mallory); v.RetryAfter != 0 {
		t.Errorf("after %v: got %+v, want one more attempt checked", failEvery, v)
	}
	if v := g.CheckToken(token, mallory); v.OK || v.RetryAfter != failEvery {
		t.Errorf("right after that attempt: got %+v, want RetryAfter %v", v, failEvery)
	}
	clk.t = clk.t.Add(failWindow)
	if v := g.CheckToken("wrong", mallory); v.RetryAfter != 0 {
		t.Errorf("once the window has passed: got %+v, want the attempt checked", v)
	}
	g.CheckToken(token, mallory)
	if len(g.due) != 0 {
		t.Errorf("got %d clients remembered after the right token, want 0", len(g.due))
	}
}

// A client that sent too many wrong tokens gets in with the right one as
// soon as its next attempt is due, at most failEvery later, and its count
// starts again from zero.
func TestRightTokenAfterThrottle(t *testing.T) {
	clk := &clock{t: time.Unix(1_800_000_000, 0)}
	g, _ := New(token, time.Hour, clk.now)
	const bob = "10.0.0.8"
	for range failBurst {
		g.CheckToken("typo-typo-typo-typo", bob)
	}
	v := g.CheckToken(token, bob)
	if v.OK || v.RetryAfter <= 0 {
		t.Fatalf("the right token at once: got %+v, want throttled (its check would tell a guesser)", v)
	}
	clk.t = clk.t.Add(v.RetryAfter)
	if v := g.CheckToken(token, bob); !v.OK {
		t.Fatalf("the right token after RetryAfter: got %+v, want OK", v)
	}
	for i := range failBurst {
		if v := g.CheckToken("typo-typo-typo-typo", bob); v.RetryAfter != 0 {
			t.Fatalf("wrong token %d after the right one: got %+v, want a fresh count", i+1, v)
		}
	}
}

func TestThrottleMemoryBounded(t *testing.T) {
	clk := &clock{t: time.Unix(1_800_000_000, 0)}
	g, _ := New(token, time.Hour, clk.now)
	for i := range maxClients + 50 {
		g.CheckToken("wrong", "client-"+string(rune('a'+i%26))+strings.Repeat("x", i/26))
	}
	if n := len(g.due); n > maxClients {
		t.Errorf("got %d clients remembered, want at most %d", n, maxClients)
	}
}
