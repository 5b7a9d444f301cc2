package handlers

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

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

// open lists what needs no token: the health check, the stylesheet and
// script, and the login form itself.
func open(path string) bool {
	return path == "/healthz" || path == "/login" || strings.HasPrefix(path, "/static/")
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
			if h.guard.Throttled(auth.Client(r)) {
				h.tooManyFailures(w, r)
				return
			}
			present, ok := h.guard.Bearer(r)
			if ok || (!present && h.guard.ValidSession(r)) {
				next.ServeHTTP(w, r)
				return
			}
			w.Header().Set("WWW-Authenticate", `Bearer realm="MLDR Explorer"`)
			h.fail(w, r, &httpError{status: http.StatusUnauthorized, msg: "this server needs its access token: send Authorization: Bearer TOKEN"})
			return
		}
		if h.guard.ValidSession(r) {
			next.ServeHTTP(w, r)
			return
		}
		http.Redirect(w, r, "/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
	})
}

func (h *handler) tooManyFailures(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Retry-After", "60")
	h.fail(w, r, &httpError{status: http.StatusTooManyRequests, msg: "too many wrong access tokens lately; wait a minute"})
}

// localPath keeps next only if it is a path on this server, so the login
// form cannot send anyone elsewhere.
func localPath(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") || strings.ContainsAny(next, "\r\n") {
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
	if h.guard == nil || h.guard.ValidSession(r) {
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
	if h.guard.Throttled(auth.Client(r)) {
		w.Header().Set("Retry-After", "60")
		h.render(w, r, http.StatusTooManyRequests, templates.LoginPage(h.loginView(next, "Too many wrong tokens lately: wait a minute, then try again.")))
		return
	}
	if !h.guard.CheckToken(r.PostForm.Get("token"), auth.Client(r)) {
		h.log.Warn("a wrong access token", "remote", r.RemoteAddr)
		h.render(w, r, http.StatusUnauthorized, templates.LoginPage(h.loginView(next, "That is not this server's access token.")))
		return
	}
	http.SetCookie(w, h.guard.Session(secureCookie(r)))
	http.Redirect(w, r, localPath(next), http.StatusSeeOther)
}

func (h *handler) logout(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, auth.Expired(secureCookie(r)))
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}

// DefaultMaxUploads is how many uploads run at once unless configured.
const DefaultMaxUploads = 4

// limitUploads lets at most cap(h.uploads) requests that read a data file
// run at once; the next get 429 with Retry-After at once rather than
// queueing with their bodies half read.
func (h *handler) limitUploads(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case h.uploads <- struct{}{}:
			defer func() { <-h.uploads }()
			next.ServeHTTP(w, r)
		default:
			w.Header().Set("Retry-After", "1")
			h.fail(w, r, &httpError{status: http.StatusTooManyRequests,
				msg: fmt.Sprintf("%d uploads are in progress, the most this server reads at once; try again in a moment", cap(h.uploads))})
		}
	})
}
