// Package handlers is the HTTP face of the product: the JSON API under /api/
// and the HTML pages. Handlers are thin: they parse the request, call the
// store, and render; every failure goes through one chokepoint (fail).
package handlers

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"mldr/internal/auth"
	"mldr/internal/dataset"
	"mldr/internal/explore"
	"mldr/internal/membudget"
	"mldr/internal/store"
	"mldr/internal/views"
)

// DatasetStore is what the handlers need of the storage.
type DatasetStore interface {
	Stage() (*store.Staged, error)
	CreateDataset(ctx context.Context, st *store.Staged, name string, opts dataset.Options) (store.DatasetRecord, error)
	Import(ctx context.Context, up store.Upload) (store.DatasetRecord, error)
	Datasets() ([]store.DatasetRecord, error)
	Dataset(id string) (store.DatasetRecord, error)
	LoadDataset(id string) (*dataset.Dataset, error)
	// Details reads a data set's details: its columns, label names and
	// label statistics (store.Files.Details).
	Details(rec store.DatasetRecord) (*dataset.Details, error)
	OpenSource(id string) (*os.File, store.DatasetRecord, error)
	Relabel(ctx context.Context, id string, labels []string, kind dataset.Kind) (store.DatasetRecord, error)
	DeleteDataset(id string) error
	Problem(id string) string
	// CheckWritable checks that the data directory takes new files
	// (readiness, /readyz).
	CheckWritable() error
}

// Config holds the handlers' dependencies and settings.
type Config struct {
	Store DatasetStore
	// Memory is the budget of memory that the readings of uploaded rows
	// share (the rows of a transform; the store reads uploads and
	// relabellings under the same one); nil: none.
	Memory *membudget.Budget
	// Jobs runs reductions; nil serves data sets only.
	Jobs   JobService
	Logger *slog.Logger
	// MaxUpload is the largest data file accepted, in bytes.
	MaxUpload int64
	// Version is the software version shown on pages and in manifests.
	Version string
	// Guard, if not nil, requires the access token on every request but
	// the health check, the static files and the login form.
	Guard *auth.Guard
	// MaxUploads is how many requests that read a data file (uploads,
	// relabelling, transform) run at once; 0 means DefaultMaxUploads.
	MaxUploads int
	// TrustedProxies are the reverse proxies whose X-Forwarded-For names
	// the client for the limit of wrong tokens and the logs; none, and
	// X-Forwarded-For is ignored.
	TrustedProxies auth.Proxies
	// MinUploadRate is the slowest an upload's body (and a relabelling's
	// or a transform's) may arrive, in bytes a second, measured over
	// MinUploadWindow of the time the server waits for it; slower, and
	// the request ends with 408. 0 means DefaultMinUploadRate and
	// DefaultMinUploadWindow; a negative rate, no minimum.
	MinUploadRate   int64
	MinUploadWindow time.Duration
	// ExploreCacheBytes bounds the views of jobs' rows the explorer keeps
	// between requests; 0 means DefaultExploreCacheBytes, negative none.
	ExploreCacheBytes int64
	// UploadTicker, if not nil, replaces time.NewTicker for the upload
	// rate's measurements (tests).
	UploadTicker Ticker
	// Database, if not nil, asks whether the metadata's database answers
	// (the shared mode): an error wrapping store.ErrUnavailable when it
	// does not. /readyz asks it, and an upload before it reads its body.
	Database func(ctx context.Context) error
}

// handler carries the dependencies of every route.
type handler struct {
	store     DatasetStore
	jobs      JobService
	log       *slog.Logger
	maxUpload int64
	version   string
	guard     *auth.Guard
	proxies   auth.Proxies
	uploads   chan struct{} // a slot per upload in progress
	minRate   int64         // bytes a second an upload's body must keep up; 0: none
	minWindow time.Duration
	ticker    Ticker
	views     *explore.Cache // the explorer's recent views of jobs' rows
	build     *views.Builder // the pages' and figures' views
	memory    *membudget.Budget
	database  func(ctx context.Context) error
}

// DefaultExploreCacheBytes bounds the explorer's cache of views: about
// the rows of three jobs of a million rows with four labels each.
const DefaultExploreCacheBytes = 128 << 20

// New returns the whole route table.
func New(cfg Config) http.Handler {
	if cfg.MaxUploads <= 0 {
		cfg.MaxUploads = DefaultMaxUploads
	}
	switch {
	case cfg.MinUploadRate == 0:
		cfg.MinUploadRate = DefaultMinUploadRate
	case cfg.MinUploadRate < 0:
		cfg.MinUploadRate = 0
	}
	if cfg.MinUploadWindow <= 0 {
		cfg.MinUploadWindow = DefaultMinUploadWindow
	}
	if cfg.UploadTicker == nil {
		cfg.UploadTicker = realTicker
	}
	switch {
	case cfg.ExploreCacheBytes == 0:
		cfg.ExploreCacheBytes = DefaultExploreCacheBytes
	case cfg.ExploreCacheBytes < 0:
		cfg.ExploreCacheBytes = 0
	}
	h := &handler{store: cfg.Store, jobs: cfg.Jobs, log: cfg.Logger, maxUpload: cfg.MaxUpload, version: cfg.Version,
		guard: cfg.Guard, proxies: cfg.TrustedProxies, uploads: make(chan struct{}, cfg.MaxUploads),
		minRate: cfg.MinUploadRate, minWindow: cfg.MinUploadWindow, ticker: cfg.UploadTicker, views: explore.NewCache(cfg.ExploreCacheBytes),
		build: views.New(cfg.Store, cfg.Jobs), memory: cfg.Memory, database: cfg.Database}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	r := chi.NewRouter()
	r.Use(middleware.RequestID, h.logRequests, h.recoverPanics, securityHeaders, h.crossOrigin, h.requireAccess, middleware.GetHead)
	r.NotFound(func(w http.ResponseWriter, r *http.Request) { h.fail(w, r, errNoRoute) })
	r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) { h.fail(w, r, errMethod) })

	r.Get("/healthz", h.healthz)
	r.Get("/readyz", Readiness(cfg.Database, cfg.Store.CheckWritable, h.log))
	r.Handle("/static/*", http.StripPrefix("/static/", staticFiles()))
	r.Get("/login", h.pageLogin)
	r.With(h.limitBody(formLimit)).Post("/login", h.submitLogin)
	r.With(h.limitBody(formLimit)).Post("/logout", h.logout)

	r.Route("/api", func(r chi.Router) {
		if h.jobs != nil {
			r.Route("/jobs", func(r chi.Router) {
				r.Get("/", h.apiListJobs)
				r.With(h.limitBody(maxJobBody)).Post("/", h.apiSubmitJob)
				r.Route("/{id}", func(r chi.Router) {
					r.Get("/", h.apiGetJob)
					r.Delete("/", h.apiDeleteJob)
					r.Get("/events", h.apiJobEvents)
					r.With(h.limitBody(formLimit)).Post("/cancel", h.apiCancelJob)
					r.With(h.limitBody(formLimit)).Post("/rerun", h.apiRerunJob)
					r.With(h.limitBody(h.uploadLimit()), h.limitUploads).Post("/transform", h.apiTransform)
					r.Get("/plots/{file}", h.apiJobPlot)
					r.Get("/explore", h.apiExplore)
					r.Get("/points", h.apiPoints)
					r.Get("/values", h.apiValues)
					r.With(h.limitBody(maxSelectionBody)).Post("/selection", h.apiSelection)
					r.Get("/rows/{row}", h.apiRow)
					r.Get("/search", h.apiSearch)
					r.Get("/selections", h.apiSelections)
					r.With(h.limitBody(maxSelectionBody)).Post("/selections", h.apiSaveSelection)
					r.Get("/selections/{name}", h.apiSelectionFile)
					r.Delete("/selections/{name}", h.apiSelectionFile)
					r.Get("/{file}", h.apiJobResult)
				})
			})
		}
		r.Route("/datasets", func(r chi.Router) {
			r.Get("/", h.apiListDatasets)
			r.With(h.limitBody(h.uploadLimit()), h.limitUploads).Post("/", h.apiCreateDataset)
			r.With(h.limitBody(formLimit)).Post("/demo", h.apiCreateDemo)
			r.Route("/{id}", func(r chi.Router) {
				r.Use(h.loadDataset)
				r.Get("/", h.apiGetDataset)
				r.Delete("/", h.apiDeleteDataset)
				r.Get("/labels", h.apiLabels)
				r.With(h.limitBody(formLimit), h.limitUploads).Put("/labels", h.apiRelabel)
				r.Get("/nmi.json", h.apiNMI)
				r.Get("/plots/{file}", h.apiDatasetPlot)
				r.Get("/data.csv", h.downloadData)
				r.Get("/source", h.downloadSource)
			})
		})
	})

	r.Get("/", h.pageHome)
	r.Route("/datasets", func(r chi.Router) {
		// The list of data sets is the home page: /datasets, the address
		// the upload form posts to, takes a reader there.
		r.Get("/", http.RedirectHandler("/", http.StatusSeeOther).ServeHTTP)
		r.With(h.limitBody(h.uploadLimit()), h.limitUploads).Post("/", h.pageUpload)
		r.With(h.limitBody(formLimit)).Post("/demo", h.pageDemo)
		r.Route("/{id}", func(r chi.Router) {
			r.Use(h.loadDataset)
			r.Get("/", h.pageDataset)
			if h.jobs != nil {
				r.Get("/analyze", h.pageAnalyze)
				r.With(h.limitBody(formLimit)).Post("/analyze", h.pageSubmitAnalysis)
			}
			r.With(h.limitBody(formLimit), h.limitUploads).Post("/labels", h.pageRelabel)
			r.With(h.limitBody(formLimit)).Post("/delete", h.pageDelete)
		})
	})
	if h.jobs != nil {
		r.Get("/compare", h.pageCompare)
		r.Get("/study", h.pageStudy)
		r.With(h.limitBody(formLimit)).Post("/study", h.pageSubmitStudy)
		r.Route("/jobs", func(r chi.Router) {
			r.Get("/", h.pageJobs)
			r.Route("/{id}", func(r chi.Router) {
				r.Get("/", h.pageJob)
				r.Get("/results", h.pageJobResults)
				r.Get("/labels", h.pageJobLabels)
				r.With(h.limitBody(formLimit)).Post("/cancel", h.pageCancelJob)
				r.With(h.limitBody(formLimit)).Post("/delete", h.pageDeleteJob)
				r.With(h.limitBody(formLimit)).Post("/rerun", h.pageRerunJob)
			})
		})
	}
	return r
}

// formLimit bounds the body of requests that carry only small fields.
const formLimit = 1 << 20

// uploadLimit bounds an upload's body: the data file, a label file and the
// form fields.
func (h *handler) uploadLimit() int64 { return h.maxUpload + 16<<20 + formLimit }

// healthz is liveness: the process answers. It asks nothing of the
// database or the disk (see Readiness).
func (h *handler) healthz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	io.WriteString(w, `{"status":"ok"}`+"\n")
}

// readyTimeout bounds the checks of /readyz.
const readyTimeout = 3 * time.Second

// Readiness is the handler of GET /readyz: whether the process can serve
// now. It answers 200 {"status":"ready"} when database (nil: there is
// none, the embedded mode) answers and writable finds that the data
// directory takes new files, and otherwise 503 with Retry-After and
// {"status":"unavailable","error":…}, the sentence saying which; the
// details of an unwritable directory go to log (nil discards), not to
// the answer, which anyone may ask for. Health checks (the container's,
// -healthcheck) ask it; /healthz is the liveness of the process alone.
func Readiness(database func(ctx context.Context) error, writable func() error, log *slog.Logger) http.HandlerFunc {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
		defer cancel()
		var msg string
		if database != nil {
			if err := database(ctx); err != nil {
				msg = Unavailable
				if !errors.Is(err, store.ErrUnavailable) {
					msg = "the database does not answer as it should; the details are in the server log"
					log.Warn("readiness: the database", "err", err)
				}
			}
		}
		if err := writable(); msg == "" && err != nil {
			msg = "the data directory does not take new files; the details are in the server log"
			log.Warn("readiness: the data directory", "err", err)
		}
		if msg != "" {
			w.Header().Set("Retry-After", retryAfter)
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "error": msg})
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
	}
}
