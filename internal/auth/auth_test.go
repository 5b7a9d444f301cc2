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
		if present, ok := g.Bearer(r); present != c.present || ok != c.valid {
			t.Errorf("Authorization %q: present %v valid %v, want %v %v", c.header, present, ok, c.present, c.valid)
		}
	}
}

func TestSessions(t *testing.T) {
	clk := &clock{t: time.Unix(1_800_000_000, 0)}
	g, _ := New(token, time.Hour, clk.now)
	other, _ := New(token+"-changed", time.Hour, clk.now)
	c := g.Session(true)
	if !c.HttpOnly || !c.Secure || c.SameSite != http.SameSiteStrictMode || c.Path != "/" || c.MaxAge != 3600 {
		t.Errorf("cookie attributes: %+v", c)
	}
	with := func(v string) *http.Request {
		r := httptest.NewRequest("GET", "/", nil)
		r.AddCookie(&http.Cookie{Name: CookieName, Value: v})
		return r
	}
	if !g.ValidSession(with(c.Value)) {
		t.Fatal("a fresh session is not valid")
	}
	if other.ValidSession(with(c.Value)) {
		t.Error("a session outlives a change of token")
	}
	enc, sig, _ := strings.Cut(c.Value, ".")
	tampered := []string{"", "x", enc, enc + ".", "." + sig, "AAAAAAAAAAA." + sig, enc + "." + sig[:len(sig)-2] + "AA", enc + "x." + sig}
	for _, v := range tampered {
		if g.ValidSession(with(v)) {
			t.Errorf("the cookie %q passes", v)
		}
	}
	if g.ValidSession(httptest.NewRequest("GET", "/", nil)) {
		t.Error("no cookie passes")
	}
	clk.t = clk.t.Add(time.Hour - time.Second)
	if !g.ValidSession(with(c.Value)) {
		t.Error("a session ends before its time")
	}
	clk.t = clk.t.Add(time.Second)
	if g.ValidSession(with(c.Value)) {
		t.Error("an expired session passes")
	}
	if e := Expired(false); e.MaxAge >= 0 || e.Value != "" {
		t.Errorf("Expired: %+v", e)
	}
}

func TestThrottle(t *testing.T) {
	clk := &clock{t: time.Unix(1_800_000_000, 0)}
	g, _ := New(token, time.Hour, clk.now)
	const mallory, alice = "10.0.0.66", "10.0.0.7"
	for i := range failBurst {
		if g.Throttled(mallory) {
			t.Fatalf("throttled after %d failures", i)
		}
		g.CheckToken("wrong", mallory)
		clk.t = clk.t.Add(time.Second)
	}
	if !g.Throttled(mallory) {
		t.Fatalf("not throttled after %d failures in %v", failBurst, failWindow)
	}
	if g.Throttled(alice) || !g.CheckToken(token, alice) {
		t.Error("one client's failures lock another out")
	}
	clk.t = clk.t.Add(failWindow)
	if g.Throttled(mallory) {
		t.Error("still throttled once the window has passed")
	}
	if len(g.failures) != 0 {
		t.Errorf("%d clients remembered after their window", len(g.failures))
	}
}

func TestClient(t *testing.T) {
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "192.0.2.1:4567"
	if c := Client(r); c != "192.0.2.1" {
		t.Errorf("Client = %q", c)
	}
	r.RemoteAddr = "[2001:db8::1]:80"
	if c := Client(r); c != "2001:db8::1" {
		t.Errorf("Client = %q", c)
	}
}
