package handlers

import (
	"context"
	"fmt"
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
// *http.MaxBytesError, which fail answers with 413.
func (h *handler) limitBody(n int64) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.ContentLength > n {
				h.fail(w, r, &http.MaxBytesError{Limit: n})
				return
			}
			r.Body = http.MaxBytesReader(w, r.Body, n)
			next.ServeHTTP(w, r)
		})
	}
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
