// Package auth guards a shared deployment with one access token: API
// clients send it as a bearer token, people type it once into a login form
// and then carry a session cookie. Without a token there is no guard, and
// the server listens on loopback only (see cmd/webapp).
//
// Sessions are kept by the server: the cookie holds a random session id,
// the guard the ids of the live sessions and their expiry. Logging out
// deletes the id, so a copy of the cookie is refused from then on. The
// price is that sessions end when the server restarts (everyone logs in
// again); a stateless signed cookie would survive a restart, but then a
// revocation list held in memory would be forgotten at the restart and a
// revoked cookie would work again until it expired.
//
// In the shared mode (several web processes on one PostgreSQL database)
// the sessions live in the database instead (NewShared with a Sessions),
// so that a session opened by one process is valid on every other and a
// logout on one ends it on all; they then also survive a restart.
package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
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

// Wrong tokens: a client may send failBurst wrong tokens at once, then one
// every failWindow/failBurst (so at most about failBurst a failWindow in
// the long run). A client that has used its attempts gets 429 without its
// token being checked until its next attempt is due; the right token then
// passes and clears the client's count. Per client, so that nobody can
// lock the others out; behind a proxy every client is the proxy unless it
// is trusted (see Proxies).
const (
	failBurst  = 10
	failWindow = time.Minute
	failEvery  = failWindow / failBurst
	maxClients = 10000 // clients with recent failures remembered at most
)

// maxSessions is the most live sessions kept; beyond, logging in ends the
// session closest to its expiry. Each costs about 100 bytes.
const maxSessions = 10000

// sessionIDBytes is the size of a session id: 256 random bits.
const sessionIDBytes = 32

// ErrShortToken refuses a token shorter than MinTokenLength.
var ErrShortToken = errors.New("the access token must be at least 16 characters (e.g. openssl rand -hex 16)")

// Sessions keeps login sessions outside the process, by the SHA-256 of
// their ids: the shared mode's database (pgmeta.Meta).
type Sessions interface {
	PutSession(ctx context.Context, key [sha256.Size]byte, exp time.Time) error
	Session(ctx context.Context, key [sha256.Size]byte) (exp time.Time, ok bool, err error)
	DeleteSession(ctx context.Context, key [sha256.Size]byte) error
}

// Guard checks the access token and keeps the sessions it opened. It is
// safe for concurrent use.
type Guard struct {
	token [sha256.Size]byte // the token's digest
	ttl   time.Duration
	now   func() time.Time

	mu sync.Mutex
	// due is, per client with recent wrong tokens, the time at which its
	// count of wrong tokens is back to zero (a GCRA "theoretical arrival
	// time"): each wrong token moves it failEvery later.
	due map[string]time.Time
	// sessions maps the digest of each live session id to its expiry,
	// when shared is nil.
	sessions map[[sha256.Size]byte]time.Time
	// shared keeps the sessions instead, for every process (NewShared).
	shared Sessions
}

// New returns a guard for token, whose sessions last ttl and are kept in
// this process. now may be nil (time.Now).
func New(token string, ttl time.Duration, now func() time.Time) (*Guard, error) {
	return NewShared(token, ttl, now, nil)
}

// NewShared is New with the sessions kept in shared (nil: in this
// process). A session then answers whichever process checks it, and a
// failure to reach shared refuses the session (the user logs in again)
// rather than letting anyone in.
func NewShared(token string, ttl time.Duration, now func() time.Time, shared Sessions) (*Guard, error) {
	if len(token) < MinTokenLength {
		return nil, ErrShortToken
	}
	if now == nil {
		now = time.Now
	}
	return &Guard{token: sha256.Sum256([]byte(token)), ttl: ttl, now: now,
		due: map[string]time.Time{}, sessions: map[[sha256.Size]byte]time.Time{}, shared: shared}, nil
}

// Verdict is what a presented token earned.
type Verdict struct {
	// OK is true for the right token.
	OK bool
	// RetryAfter, when not zero, says the token was not checked at all:
	// client has used up its wrong attempts for now and may try again
	// after this long.
	RetryAfter time.Duration
}

// CheckToken checks s, sent by client (see Proxies.Client), against the
// token in constant time, unless client has used up its attempts: then s
// is not looked at and the verdict says when to retry. A wrong token
// counts against client; the right one clears its count.
//
// A throttled client's token is not checked, right or wrong: if the right
// one passed while wrong ones got 429, each 429 would tell a guesser "wrong"
// at full speed and the throttle would stop nothing. So a client that
// sent too many wrong tokens waits at most failWindow/failBurst (6 s)
// for its next attempt, and the right token then passes.
func (g *Guard) CheckToken(s, client string) Verdict {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.now()
	due := g.due[client]
	if due.After(now) {
		if wait := due.Sub(now) - (failWindow - failEvery); wait > 0 {
			return Verdict{RetryAfter: wait}
		}
	}
	// Compare digests, so the time taken says nothing of the length.
	d := sha256.Sum256([]byte(s))
	if subtle.ConstantTimeCompare(d[:], g.token[:]) == 1 {
		delete(g.due, client)
		return Verdict{OK: true}
	}
	if _, known := g.due[client]; !known && len(g.due) >= maxClients {
		g.pruneClients(now)
	}
	g.due[client] = later(due, now).Add(failEvery)
	return Verdict{}
}

// pruneClients forgets the clients whose count is back to zero; if every
// one still counts, it forgets one of them, so that memory stays bounded
// (an attacker with that many addresses gains one client's attempts).
// g.mu is held.
func (g *Guard) pruneClients(now time.Time) {
	for c, due := range g.due {
		if !due.After(now) {
			delete(g.due, c)
		}
	}
	if len(g.due) >= maxClients {
		for c := range g.due {
			delete(g.due, c)
			break
		}
	}
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// Bearer reports whether r carries "Authorization: Bearer <token>", and
// the verdict on it (see CheckToken) for client. A request without the
// header is not an attempt.
func (g *Guard) Bearer(r *http.Request, client string) (present bool, v Verdict) {
	h := r.Header.Get("Authorization")
	scheme, tok, found := strings.Cut(h, " ")
	if !found || !strings.EqualFold(scheme, "Bearer") {
		return h != "", Verdict{}
	}
	return true, g.CheckToken(strings.TrimSpace(tok), client)
}

// Session opens a session and returns its cookie. secure marks it Secure
// (HTTPS, or a browser on localhost, which counts as a secure context).
// It fails only if the system's random source does.
func (g *Guard) Session(secure bool) (*http.Cookie, error) {
	var id [sessionIDBytes]byte
	if _, err := rand.Read(id[:]); err != nil {
		return nil, err
	}
	v := base64.RawURLEncoding.EncodeToString(id[:])
	now := g.now()
	exp := now.Add(g.ttl)
	if g.shared != nil {
		if err := g.shared.PutSession(context.Background(), sha256.Sum256([]byte(v)), exp); err != nil {
			return nil, err
		}
		return sessionCookie(v, exp, g.ttl, secure), nil
	}
	g.mu.Lock()
	if len(g.sessions) >= maxSessions {
		g.pruneSessions(now)
	}
	g.sessions[sha256.Sum256([]byte(v))] = exp
	g.mu.Unlock()
	return sessionCookie(v, exp, g.ttl, secure), nil
}

// sessionCookie is the cookie of session id v.
func sessionCookie(v string, exp time.Time, ttl time.Duration, secure bool) *http.Cookie {
	return &http.Cookie{Name: CookieName, Value: v, Path: "/", Expires: exp, MaxAge: int(ttl.Seconds()),
		HttpOnly: true, Secure: secure, SameSite: http.SameSiteStrictMode}
}

// pruneSessions forgets the expired sessions; if none has, it ends the one
// closest to its expiry (the oldest login), so that memory stays bounded.
// Only holders of the token open sessions. g.mu is held.
func (g *Guard) pruneSessions(now time.Time) {
	var first [sha256.Size]byte
	var firstExp time.Time
	for k, exp := range g.sessions {
		if !exp.After(now) {
			delete(g.sessions, k)
		} else if firstExp.IsZero() || exp.Before(firstExp) {
			first, firstExp = k, exp
		}
	}
	if len(g.sessions) >= maxSessions {
		delete(g.sessions, first)
	}
}

// Expired returns a cookie that makes the browser forget its session.
func Expired(secure bool) *http.Cookie {
	return &http.Cookie{Name: CookieName, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, Secure: secure, SameSite: http.SameSiteStrictMode}
}

// ValidSession reports whether r carries the cookie of a live session of
// this guard: opened, not ended by End, not expired. Its error is the
// shared store's, when the session could not be looked up there (the
// answer is then neither yes nor no).
func (g *Guard) ValidSession(r *http.Request) (bool, error) {
	k, ok := sessionKey(r)
	if !ok {
		return false, nil
	}
	if g.shared != nil {
		exp, ok, err := g.shared.Session(r.Context(), k)
		if err != nil {
			return false, fmt.Errorf("looking up the session: %w", err)
		}
		return ok && g.now().Before(exp), nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	exp, ok := g.sessions[k]
	if ok && !g.now().Before(exp) {
		delete(g.sessions, k)
		return false, nil
	}
	return ok, nil
}

// End ends the session whose cookie r carries, if any: every copy of the
// cookie is refused from then on. Its error is the shared store's, when
// it could not be reached (the session then stays until it expires).
func (g *Guard) End(r *http.Request) error {
	k, ok := sessionKey(r)
	if !ok {
		return nil
	}
	if g.shared != nil {
		if err := g.shared.DeleteSession(context.WithoutCancel(r.Context()), k); err != nil {
			return fmt.Errorf("ending the session: %w", err)
		}
		return nil
	}
	g.mu.Lock()
	delete(g.sessions, k)
	g.mu.Unlock()
	return nil
}

// sessionKey is the digest of r's session id, the key of g.sessions. The
// map holds digests, not ids, so that its lookups' timing says nothing of
// a live id.
func sessionKey(r *http.Request) ([sha256.Size]byte, bool) {
	c, err := r.Cookie(CookieName)
	if err != nil {
		return [sha256.Size]byte{}, false
	}
	id, err := base64.RawURLEncoding.DecodeString(c.Value)
	if err != nil || len(id) != sessionIDBytes {
		return [sha256.Size]byte{}, false
	}
	return sha256.Sum256([]byte(c.Value)), true
}
