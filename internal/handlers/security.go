package handlers

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"mldr/internal/auth"
	"mldr/web/templates"
)

// contentSecurityPolicy lets pages load only this server's files: no
// inline or foreign script. Inline styles stay allowed because the SVG
// plots gonum writes carry style attributes.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
	"connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// securityHeaders sets the headers every answer carries.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
		next.ServeHTTP(w, r)
	})
}

// crossOrigin refuses requests that change something and come from
// another site's page (CSRF): browsers mark them with Sec-Fetch-Site or
// an Origin that is not this host. Scripts and curl send neither and pass;
// GET, HEAD and OPTIONS never change anything here.
func (h *handler) crossOrigin(next http.Handler) http.Handler {
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.fail(w, r, &httpError{status: http.StatusForbidden,
			msg: "a request from another site's page may not change anything here (cross-site request refused)"})
	}))
	return cop.Handler(next)
}

// open lists what needs no token: the health and readiness checks, the
// stylesheet and script, and the login form itself.
func open(path string) bool {
	return path == "/healthz" || path == "/readyz" || path == "/login" || strings.HasPrefix(path, "/static/")
}

// requireAccess lets a guarded server's requests through only with the
// token: the API takes it as a bearer token (or a page's session cookie,
// for the pages' own requests); pages need the session cookie and send the
// browser to the login form without it.
func (h *handler) requireAccess(next http.Handler) http.Handler {
	if h.guard == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if open(r.URL.Path) {
			next.ServeHTTP(w, r)
			return
		}
		if strings.HasPrefix(r.URL.Path, "/api/") {
			present, v := h.guard.Bearer(r, h.client(r))
			switch {
			case v.RetryAfter > 0:
				h.tooManyFailures(w, r, v.RetryAfter)
				return
			case v.OK:
				next.ServeHTTP(w, r)
				return
			case !present && h.withSession(w, r, next):
				return
			}
			if present {
				h.log.Warn("a wrong access token", "client", h.client(r), "path", r.URL.Path)
			}
			w.Header().Set("WWW-Authenticate", `Bearer realm="MLDR Explorer"`)
			h.fail(w, r, &httpError{status: http.StatusUnauthorized, msg: "this server needs its access token: send Authorization: Bearer TOKEN"})
			return
		}
		if h.withSession(w, r, next) {
			return
		}
		http.Redirect(w, r, "/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
	})
}

// withSession passes r on to next when it carries a live session, and
// answers the error when its session could not be looked up (the shared
// mode's database is unreachable); it reports whether r was answered.
func (h *handler) withSession(w http.ResponseWriter, r *http.Request, next http.Handler) bool {
	ok, err := h.guard.ValidSession(r)
	switch {
	case err != nil:
		h.fail(w, r, err)
	case ok:
		next.ServeHTTP(w, r)
	}
	return err != nil || ok
}

// tooManyFailures answers a client that sent too many wrong tokens and
// whose next attempt is due after wait.
func (h *handler) tooManyFailures(w http.ResponseWriter, r *http.Request, wait time.Duration) {
	w.Header().Set("Retry-After", strconv.Itoa(retrySeconds(wait)))
	h.fail(w, r, &httpError{status: http.StatusTooManyRequests,
		msg: fmt.Sprintf("too many wrong access tokens lately; try again in %d seconds", retrySeconds(wait))})
}

// retrySeconds is wait in whole seconds, rounded up, at least 1.
func retrySeconds(wait time.Duration) int {
	return max(1, int((wait+time.Second-1)/time.Second))
}

// localPath keeps next only if it is a path on this server, so that the
// login form cannot send anyone elsewhere: it must parse as a URL with no
// scheme, host or user info, start with one "/" (not "//", which is
// another host, nor "/\", which browsers read as "//"), and hold no
// backslash and no control character (browsers drop tabs and newlines
// from URLs, so "/\t/evil.com" would become "//evil.com"). The same holds
// for its decoded path, so "/%09/evil.com" and "/%5Cevil.com" are refused
// too: a browser would not decode them, but a proxy or a later redirect
// might. Anything else gives "/".
func localPath(next string) string {
	bad := func(s string) bool {
		return strings.ContainsFunc(s, func(c rune) bool { return c < 0x20 || c == 0x7f || c == '\\' })
	}
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || bad(next) {
		return "/"
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" ||
		!strings.HasPrefix(u.Path, "/") || strings.HasPrefix(u.Path, "//") || bad(u.Path) {
		return "/"
	}
	return next
}

// secureCookie tells whether the browser will keep a Secure cookie: over
// HTTPS (directly or behind a proxy that says so), or on localhost, which
// browsers treat as a secure context.
func secureCookie(r *http.Request) bool {
	if r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https") {
		return true
	}
	host, _, err := net.SplitHostPort(r.Host)
	if err != nil {
		host = r.Host
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

func (h *handler) loginView(next, msg string) templates.LoginView {
	return templates.LoginView{Page: h.page("Log in", "login"), Next: localPath(next), Error: msg}
}

func (h *handler) pageLogin(w http.ResponseWriter, r *http.Request) {
	next := r.URL.Query().Get("next")
	in := h.guard == nil
	if !in {
		var err error
		if in, err = h.guard.ValidSession(r); err != nil {
			h.fail(w, r, err)
			return
		}
	}
	if in {
		http.Redirect(w, r, localPath(next), http.StatusSeeOther)
		return
	}
	h.render(w, r, http.StatusOK, templates.LoginPage(h.loginView(next, "")))
}

func (h *handler) submitLogin(w http.ResponseWriter, r *http.Request) {
	if h.guard == nil {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	if err := r.ParseForm(); err != nil {
		h.fail(w, r, unreadableForm(err))
		return
	}
	next := r.PostForm.Get("next")
	v := h.guard.CheckToken(r.PostForm.Get("token"), h.client(r))
	if v.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(retrySeconds(v.RetryAfter)))
		msg := fmt.Sprintf("Too many wrong tokens lately: wait %d seconds, then try again.", retrySeconds(v.RetryAfter))
		h.render(w, r, http.StatusTooManyRequests, templates.LoginPage(h.loginView(next, msg)))
		return
	}
	if !v.OK {
		h.log.Warn("a wrong access token", "client", h.client(r), "path", r.URL.Path)
		h.render(w, r, http.StatusUnauthorized, templates.LoginPage(h.loginView(next, "That is not this server's access token.")))
		return
	}
	c, err := h.guard.Session(secureCookie(r))
	if err != nil {
		h.fail(w, r, fmt.Errorf("opening a session: %w", err))
		return
	}
	http.SetCookie(w, c)
	http.Redirect(w, r, localPath(next), http.StatusSeeOther)
}

// logout ends the session on the server, so that a copy of its cookie is
// refused too, and makes the browser forget the cookie.
func (h *handler) logout(w http.ResponseWriter, r *http.Request) {
	if h.guard != nil {
		if err := h.guard.End(r); err != nil {
			h.log.Warn("logging out", "err", err)
		}
	}
	http.SetCookie(w, auth.Expired(secureCookie(r)))
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}

// DefaultMaxUploads is how many uploads run at once unless configured.
const DefaultMaxUploads = 4

// limitUploads lets at most cap(h.uploads) requests that read a data file
// run at once; the next get 429 with Retry-After at once rather than
// queueing with their bodies half read. A body that arrives slower than
// the minimum rate ends with 408 and frees its slot (see rateGuard).
func (h *handler) limitUploads(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case h.uploads <- struct{}{}:
			defer func() { <-h.uploads }()
			h.minUploadRate(w, r, next)
		default:
			w.Header().Set("Retry-After", "1")
			busy := fmt.Sprintf("%d uploads are", cap(h.uploads))
			if cap(h.uploads) == 1 {
				busy = "1 upload is"
			}
			h.fail(w, r, &httpError{status: http.StatusTooManyRequests,
				msg: busy + " in progress, the most this server reads at once; try again in a moment"})
		}
	})
}
