package handlers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"mldr/internal/store"
	"mldr/web/static"
)

// client names the sender of r: its address, or the one a trusted proxy
// forwarded (see auth.Proxies.Client).
func (h *handler) client(r *http.Request) string { return h.proxies.Client(r) }

// logRequests logs one line per request, with the client's address.
func (h *handler) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		start := time.Now()
		next.ServeHTTP(ww, r)
		h.log.Info("http", "method", r.Method, "path", r.URL.Path, "client", h.client(r), "status", ww.Status(),
			"bytes", ww.BytesWritten(), "duration", time.Since(start).Round(time.Microsecond),
			"request_id", middleware.GetReqID(r.Context()))
	})
}

// recoverPanics turns a panic into a 500 with a request id; the stack goes
// to the log, never to the client.
func (h *handler) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				h.log.Error("panic", "path", r.URL.Path, "request_id", middleware.GetReqID(r.Context()),
					"panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				h.fail(w, r, fmt.Errorf("panic: %v", v))
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// limitBody bounds a request body; reading past it fails with a
// *http.MaxBytesError, which fail answers with 413. Whatever the handler
// answers, what it left of the body is then read and discarded
// (drainBody), so that a client that sends its whole body before it reads
// the answer gets the answer, not a reset connection.
func (h *handler) limitBody(n int64) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Body == nil || r.Body == http.NoBody {
				next.ServeHTTP(w, r)
				return
			}
			body := &trackedBody{ReadCloser: r.Body}
			defer h.drainBody(w, r, body)
			if r.ContentLength > n {
				h.fail(w, r, &http.MaxBytesError{Limit: n})
				return
			}
			r.Body = http.MaxBytesReader(w, body, n)
			next.ServeHTTP(w, r)
		})
	}
}

// The most of a body drainBody reads after the answer, and for how long.
const (
	maxDrain  = 64 << 20
	drainTime = 30 * time.Second
)

// trackedBody is a request body that remembers how much was read of it
// and how its reading ended.
type trackedBody struct {
	io.ReadCloser
	n   int64
	err error // io.EOF once read to its end
}

func (b *trackedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n += int64(n)
	if err != nil {
		b.err = err
	}
	return n, err
}

// drainBody reads and discards what the handler left of r's body, once
// it has answered: at most maxDrain bytes, for at most drainTime. Without
// it the server closes the connection with the body unread, and the
// kernel answers the bytes still arriving with a reset, which a client
// still sending (a script that writes its whole request before reading)
// meets before the answer: it sees the connection dropped instead of the
// 413 (or any other answer). A body whose reading failed (the client
// left; an upload cut off for being too slow), a larger one, and one the
// client waits to send (Expect: 100-continue, none of it read) are left:
// the server closes the connection after the answer.
func (h *handler) drainBody(w http.ResponseWriter, r *http.Request, body *trackedBody) {
	left := r.ContentLength - body.n // r.ContentLength is -1 when unknown
	status := 0
	if ww, ok := w.(interface{ Status() int }); ok { // logRequests' writer
		status = ww.Status()
	}
	switch {
	case body.err != nil: // read to its end, or failed
		return
	case status == http.StatusRequestTimeout: // cut off for being too slow
		return
	case body.n == 0 && strings.EqualFold(r.Header.Get("Expect"), "100-continue"):
		return
	case r.ContentLength >= 0 && left > maxDrain:
		return
	}
	rc := http.NewResponseController(w)
	if err := rc.SetReadDeadline(time.Now().Add(drainTime)); err != nil {
		return
	}
	n, err := io.CopyN(io.Discard, body, maxDrain)
	if err == nil || !errors.Is(err, io.EOF) {
		h.log.Info("a request body was left unread", "path", r.URL.Path, "discarded", n, "err", err)
	}
	_ = rc.SetReadDeadline(time.Time{}) // the server sets its own before the next request
}

type ctxKey int

const datasetKey ctxKey = iota

// loadDataset fetches the data set named in the URL, answering 404 early.
func (h *handler) loadDataset(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := chi.URLParam(r, "id")
		if !store.ValidID(id) {
			h.fail(w, r, notFound("there is no data set with id %q", id))
			return
		}
		rec, err := h.store.Dataset(id)
		if err != nil {
			if isNotFound(err) {
				err = notFound("there is no data set with id %q", id)
			}
			h.fail(w, r, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), datasetKey, rec)))
	})
}

func datasetFrom(r *http.Request) store.DatasetRecord {
	return r.Context().Value(datasetKey).(store.DatasetRecord)
}

// staticFiles serves the embedded files, without directory listings.
func staticFiles() http.Handler {
	fsys := http.FileServerFS(static.FS)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "" || strings.HasSuffix(r.URL.Path, "/") {
			http.NotFound(w, r)
			return
		}
		if _, err := fs.Stat(static.FS, r.URL.Path); err != nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Cache-Control", "public, max-age=3600")
		fsys.ServeHTTP(w, r)
	})
}
