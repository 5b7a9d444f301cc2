// Package auth guards a shared deployment with one access token: API
// clients send it as a bearer token, people type it once into a login form
// and then carry a signed session cookie. Without a token there is no
// guard, and the server listens on loopback only (see cmd/webapp).
//
// The session cookie holds its expiry and an HMAC-SHA256 of it under a key
// derived from the token, so sessions survive restarts, need no storage,
// and all end when the token changes.
package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// CookieName is the session cookie's name.
const CookieName = "mldr_session"

// MinTokenLength is the shortest token accepted: 16 characters, e.g. the
// output of `openssl rand -hex 16` is 32.
const MinTokenLength = 16

// Failed attempts: at most failBurst wrong tokens from one client in
// failWindow, then that client gets 429 until the window has passed. Per
// client, so that nobody can lock the others out; behind a proxy every
// client is the proxy.
const (
	failBurst  = 10
	failWindow = time.Minute
	maxClients = 10000 // clients with recent failures remembered at most
)

// ErrShortToken refuses a token shorter than MinTokenLength.
var ErrShortToken = errors.New("the access token must be at least 16 characters (e.g. openssl rand -hex 16)")

// Guard checks the access token and the session cookies it signs. It is
// safe for concurrent use.
type Guard struct {
	token []byte
	key   []byte
	ttl   time.Duration
	now   func() time.Time

	mu       sync.Mutex
	failures map[string][]time.Time // client → its wrong tokens within failWindow
}

// New returns a guard for token, whose sessions last ttl. now may be nil
// (time.Now).
func New(token string, ttl time.Duration, now func() time.Time) (*Guard, error) {
	if len(token) < MinTokenLength {
		return nil, ErrShortToken
	}
	if now == nil {
		now = time.Now
	}
	mac := hmac.New(sha256.New, []byte(token))
	mac.Write([]byte("mldr-explorer session key v1"))
	return &Guard{token: []byte(token), key: mac.Sum(nil), ttl: ttl, now: now, failures: map[string][]time.Time{}}, nil
}

// CheckToken reports whether s is the token, in constant time. A wrong
// token counts towards client's limit of failed attempts.
func (g *Guard) CheckToken(s, client string) bool {
	// Compare digests, so the time taken says nothing of the length.
	a, b := sha256.Sum256([]byte(s)), sha256.Sum256(g.token)
	if subtle.ConstantTimeCompare(a[:], b[:]) == 1 {
		return true
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.failures) >= maxClients {
		for c := range g.failures {
			if len(g.recent(c)) == 0 {
				delete(g.failures, c)
			}
		}
	}
	g.failures[client] = append(g.recent(client), g.now())
	return false
}

// Throttled reports whether too many wrong tokens came from client lately;
// the caller should answer 429 without checking another.
func (g *Guard) Throttled(client string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	r := g.recent(client)
	if len(r) == 0 {
		delete(g.failures, client)
	} else {
		g.failures[client] = r
	}
	return len(r) >= failBurst
}

// recent is client's failures within the window; g.mu is held.
func (g *Guard) recent(client string) []time.Time {
	f := g.failures[client]
	cut := g.now().Add(-failWindow)
	i := 0
	for i < len(f) && f[i].Before(cut) {
		i++
	}
	return f[i:]
}

// Client names the sender of r for the limit of failed attempts: its IP
// address.
func Client(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// Bearer reports whether r carries "Authorization: Bearer <token>". A
// request without the header is not a failed attempt.
func (g *Guard) Bearer(r *http.Request) (present, ok bool) {
	h := r.Header.Get("Authorization")
	scheme, tok, found := strings.Cut(h, " ")
	if !found || !strings.EqualFold(scheme, "Bearer") {
		return h != "", false
	}
	return true, g.CheckToken(strings.TrimSpace(tok), Client(r))
}

// Session returns a new session cookie. secure marks it Secure (HTTPS, or
// a browser on localhost, which counts as a secure context).
func (g *Guard) Session(secure bool) *http.Cookie {
	exp := g.now().Add(g.ttl)
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(exp.Unix()))
	v := base64.RawURLEncoding.EncodeToString(b[:]) + "." + base64.RawURLEncoding.EncodeToString(g.sign(b[:]))
	return &http.Cookie{Name: CookieName, Value: v, Path: "/", Expires: exp, MaxAge: int(g.ttl.Seconds()),
		HttpOnly: true, Secure: secure, SameSite: http.SameSiteStrictMode}
}

// Expired returns a cookie that ends the session.
func Expired(secure bool) *http.Cookie {
	return &http.Cookie{Name: CookieName, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, Secure: secure, SameSite: http.SameSiteStrictMode}
}

// ValidSession reports whether r carries a session cookie this guard
// signed and that has not expired.
func (g *Guard) ValidSession(r *http.Request) bool {
	c, err := r.Cookie(CookieName)
	if err != nil {
		return false
	}
	enc, sig, ok := strings.Cut(c.Value, ".")
	if !ok {
		return false
	}
	b, err1 := base64.RawURLEncoding.DecodeString(enc)
	s, err2 := base64.RawURLEncoding.DecodeString(sig)
	if err1 != nil || err2 != nil || len(b) != 8 || !hmac.Equal(s, g.sign(b)) {
		return false
	}
	return g.now().Unix() < int64(binary.BigEndian.Uint64(b))
}

func (g *Guard) sign(b []byte) []byte {
	mac := hmac.New(sha256.New, g.key)
	mac.Write(b)
	return mac.Sum(nil)
}
