package handlers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"syscall"

	"github.com/a-h/templ"
	"github.com/go-chi/chi/v5/middleware"

	"mldr/internal/dataset"
	"mldr/internal/jobs"
	"mldr/internal/membudget"
	"mldr/internal/store"
	"mldr/internal/views"
	"mldr/web/templates"
)

// apiError is the JSON body of every 4xx/5xx answer under /api/.
type apiError struct {
	Error     string `json:"error"`
	Field     string `json:"field,omitempty"`
	Line      int    `json:"line,omitempty"`
	Column    string `json:"column,omitempty"`
	RequestID string `json:"request_id,omitempty"`
}

// httpError is an error the handlers raise with its status and sentence.
type httpError struct {
	status int
	msg    string
	field  string
}

func (e *httpError) Error() string { return e.msg }

var (
	errNoRoute = &httpError{status: http.StatusNotFound, msg: "there is no page or API at this address"}
	errMethod  = &httpError{status: http.StatusMethodNotAllowed, msg: "this address does not accept this method"}
)

func badRequest(field, format string, args ...any) error {
	return &httpError{status: http.StatusBadRequest, field: field, msg: fmt.Sprintf(format, args...)}
}

func notFound(format string, args ...any) error {
	return &httpError{status: http.StatusNotFound, msg: fmt.Sprintf(format, args...)}
}

// Unavailable is the sentence of every answer that the database could not
// be reached (503), and retryAfter the seconds its Retry-After gives.
const (
	Unavailable = "the database is unreachable; nothing was stored or changed, and the server reconnects by itself: try again in a few seconds"
	retryAfter  = "5"
)

// classify maps an error to its status and the body a user sees. Errors of
// no known kind are internal: the user sees a request id, the log the rest.
func classify(err error, requestID string) (int, apiError) {
	var (
		he *httpError
		ie *dataset.InputError
		tl *store.TooLargeError
		mb *http.MaxBytesError
		cr *store.CorruptResultError
		un *views.Undrawable
		bo *views.BadOption
		nf *views.NotFound
		me *membudget.Error
	)
	if errors.Is(err, store.ErrUnavailable) {
		return http.StatusServiceUnavailable, apiError{Error: Unavailable}
	}
	if status, field, ok := jobs.Status(err); ok {
		return status, apiError{Error: err.Error(), Field: field}
	}
	switch {
	case errors.As(err, &he):
		return he.status, apiError{Error: he.msg, Field: he.field}
	case errors.As(err, &un):
		return http.StatusUnprocessableEntity, apiError{Error: un.Msg}
	case errors.As(err, &bo):
		return http.StatusBadRequest, apiError{Error: bo.Msg, Field: bo.Field}
	case errors.As(err, &nf):
		return http.StatusNotFound, apiError{Error: nf.Msg}
	case errors.As(err, &ie):
		return http.StatusBadRequest, apiError{Error: ie.Error(), Field: ie.Field, Line: ie.Line, Column: dataset.Cut(ie.Column)}
	case errors.As(err, &tl):
		return http.StatusRequestEntityTooLarge, apiError{Error: tl.Error(), Field: "file"}
	case errors.As(err, &me) && me.Busy:
		return http.StatusTooManyRequests, apiError{Error: me.Error(), Field: "file"}
	case errors.As(err, &me):
		return http.StatusRequestEntityTooLarge, apiError{Error: me.Error(), Field: "file"}
	case errors.As(err, &mb):
		return http.StatusRequestEntityTooLarge, apiError{Error: fmt.Sprintf("the request's body is larger than the %s this address accepts; send a smaller one", store.FormatBytes(mb.Limit))}
	case errors.Is(err, store.ErrNotFound):
		return http.StatusNotFound, apiError{Error: "not found"}
	case errors.Is(err, store.ErrConflict):
		return http.StatusConflict, apiError{Error: err.Error()}
	case errors.Is(err, dataset.ErrCorrupt):
		return http.StatusInternalServerError, apiError{Error: "the stored data of this data set are corrupt; delete it and upload the file again", RequestID: requestID}
	case errors.As(err, &cr):
		return http.StatusInternalServerError, apiError{Error: fmt.Sprintf("result file %s of job %s is corrupt; run the job again", cr.File, cr.Job), RequestID: requestID}
	case errors.Is(err, syscall.ENOSPC):
		return http.StatusInsufficientStorage, apiError{Error: "the disk of the data directory is full; nothing was stored", RequestID: requestID}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return 499, apiError{Error: "the request was canceled"}
	}
	return http.StatusInternalServerError, apiError{
		Error:     fmt.Sprintf("something went wrong on the server (request id %s); the details are in the server log", requestID),
		RequestID: requestID,
	}
}

// fail is the one error chokepoint: it logs, and answers JSON under /api/
// and an HTML page elsewhere. A database that cannot be reached is not
// logged here, request by request: the metadata store logs the outage
// once, when it begins and when it ends.
func (h *handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	rid := middleware.GetReqID(r.Context())
	status, body := classify(err, rid)
	if status == http.StatusTooManyRequests && w.Header().Get("Retry-After") == "" {
		w.Header().Set("Retry-After", "10") // a full job queue drains in seconds to minutes
	}
	if status == http.StatusServiceUnavailable && w.Header().Get("Retry-After") == "" {
		w.Header().Set("Retry-After", retryAfter)
	}
	switch {
	case errors.Is(err, store.ErrUnavailable):
		h.log.Debug("request refused: the database is unreachable", "method", r.Method, "path", r.URL.Path, "err", err)
	case status >= 500:
		h.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "request_id", rid, "err", err)
	default:
		h.log.Info("request refused", "method", r.Method, "path", r.URL.Path, "status", status, "err", err)
	}
	if answersJSON(r) {
		writeJSON(w, status, body)
		return
	}
	title := http.StatusText(status)
	if title == "" {
		title = "Error"
	}
	h.render(w, r, status, templates.ErrorPage(templates.ErrorView{
		Page: h.page(title, ""), Status: status, Message: views.Sentence(body.Error),
	}))
}

// answersJSON reports whether a refusal of r is JSON: always under /api/,
// elsewhere (a page's form, /login) when r's Accept names
// application/json and not text/html, as a script's request does; a
// browser's asks for HTML.
func answersJSON(r *http.Request) bool {
	if strings.HasPrefix(r.URL.Path, "/api/") {
		return true
	}
	accept := strings.Join(r.Header.Values("Accept"), ",")
	return strings.Contains(accept, "application/json") && !strings.Contains(accept, "text/html")
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v) // the status is sent; a failed write means the client left
}

// render writes a page completely or, if rendering fails, an error: the
// page is rendered to a buffer first so no partial page is ever sent.
func (h *handler) render(w http.ResponseWriter, r *http.Request, status int, c templ.Component) {
	var buf bytes.Buffer
	if err := c.Render(r.Context(), &buf); err != nil {
		h.log.Error("rendering a page", "path", r.URL.Path, "err", err)
		http.Error(w, "the page could not be rendered; the details are in the server log", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = buf.WriteTo(w) // the status is sent; a failed write means the client left
}

func (h *handler) page(title, nav string) templates.Page {
	return templates.Page{Title: title, Nav: nav, Version: h.version, Guarded: h.guard != nil}
}

// unreadableForm is the refusal of a form body that does not parse: 413
// when it is too large, else 400.
func unreadableForm(err error) error {
	var mb *http.MaxBytesError
	if errors.As(err, &mb) {
		return err
	}
	return badRequest("", "the form could not be read: %v", err)
}
