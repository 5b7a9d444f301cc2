// Command webapp serves MLDR Explorer: the pages and the JSON API for
// supervised dimensionality reduction of multi-label and multi-dimensional
// data.
//
//	go run ./cmd/webapp [-addr 127.0.0.1:8080] [-data-dir ./uploads] [-max-upload 1GiB]
//
// Every flag may also come from the environment: MLDR_ADDR, MLDR_DATA_DIR,
// MLDR_MAX_UPLOAD, MLDR_LOG_FORMAT, MLDR_DATABASE (-database, the
// PostgreSQL URL of the shared mode's metadata and job queue), MLDR_ROLE
// (-role all, web or worker: what this process does in the shared mode),
// MLDR_RESCUE_AFTER, MLDR_LEASE. A flag wins over the environment.
//
//	webapp run [flags] SPEC.json
//
// runs a job or a study without a server (package runcli; webapp run
// -help says how), and
//
//	webapp -version
//
// prints the software version.
//
//	webapp -healthcheck [-addr …]
//
// asks a running server's /readyz and exits 0 if it is ready: the
// container's health check (the image has no curl).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"mldr/internal/auth"
	"mldr/internal/handlers"
	"mldr/internal/jobs"
	"mldr/internal/linalg"
	"mldr/internal/membudget"
	"mldr/internal/pgmeta"
	"mldr/internal/runcli"
	"mldr/internal/sharedjobs"
	"mldr/internal/store"
	"mldr/internal/worker"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	e := env{getenv: os.Getenv, stdout: os.Stdout, stderr: os.Stderr, version: version()}
	if worker.IsWorker(os.Getenv) {
		if err := runWorker(ctx, os.Args[1:], e); err != nil {
			fmt.Fprintln(os.Stderr, "webapp worker:", err)
			os.Exit(1)
		}
		return
	}
	// "webapp run SPEC.json" runs a job without a server; the first
	// argument decides, before the server's flags are parsed.
	if len(os.Args) > 1 && os.Args[1] == "run" {
		if err := runcli.Run(ctx, os.Args[2:], runEnv(e, terminal(os.Stdout))); err != nil {
			fmt.Fprintln(os.Stderr, "webapp run:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(ctx, os.Args[1:], e, nil); err != nil {
		fmt.Fprintln(os.Stderr, "webapp:", err)
		os.Exit(1)
	}
}

// env is what main gives the commands: the environment, the standard
// output and error, and the software version (written into results and
// the start-up log).
type env struct {
	getenv         func(string) string
	stdout, stderr io.Writer
	version        string
}

// runEnv is what webapp run is given: e, with whether its standard output
// is a terminal (progress bars) and the default job memory limit, the
// server's.
func runEnv(e env, isTerminal bool) runcli.Env {
	return runcli.Env{Stdout: e.stdout, Terminal: isTerminal, Getenv: e.getenv, Version: e.version,
		DefaultMemory: worker.DefaultMemoryLimit()}
}

// terminal reports whether f is a terminal (a character device).
func terminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// runWorker is the main of a worker process, which the server starts
// (worker.Pool) with the data directory as its one flag: it runs the jobs
// the server sends, reading the data sets and writing the results
// through the data directory's files.
func runWorker(ctx context.Context, args []string, e env) error {
	fs := flag.NewFlagSet("webapp worker", flag.ContinueOnError)
	dir := fs.String("data-dir", "", "the server's data directory")
	staging := fs.String("staging-dir", "", "the server's staging directory (default: tmp/ in the data directory)")
	seal := fs.Bool("seal-results", false, "seal a job's results in the staging directory for the server to install, instead of moving them into place (the shared mode)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" {
		return errors.New("no -data-dir: a worker is started by the server, not by hand")
	}
	files := store.OpenFiles(*dir, nil)
	if *staging != "" {
		files = store.OpenFilesStaging(*dir, *staging, nil)
	}
	limit, err := worker.MemoryLimit(e.getenv)
	if err != nil {
		return err
	}
	run := worker.Executor(files, e.version, limit)
	if *seal {
		run = worker.SealingExecutor(files, e.version, limit)
	}
	return worker.Main(ctx, e.getenv, testHooks(run, e.getenv))
}

// Shutdown: requests in flight get shutdownTimeout, running jobs
// jobDrainTimeout; a session cookie lasts sessionTTL.
const (
	shutdownTimeout = 15 * time.Second
	jobDrainTimeout = 10 * time.Second
	sessionTTL      = 7 * 24 * time.Hour
)

// run starts the server and blocks until ctx is done, then shuts down
// gracefully. ready, if not nil, receives the listening address. With
// -version it prints e's version on e's standard output instead.
func run(ctx context.Context, args []string, e env, ready func(addr string)) error {
	cfg, err := parseConfig(args, e.getenv, e.stderr)
	if err != nil {
		return err
	}
	if cfg.version {
		_, err := fmt.Fprintln(e.stdout, e.version)
		return err
	}
	if cfg.healthcheck {
		return checkHealth(ctx, cfg.addr)
	}
	log := newLogger(e.stderr, cfg.logFormat)
	// The readings of uploads, relabellings and transforms share one
	// budget of the server's memory (-max-upload-memory).
	memory := membudget.New(cfg.maxUploadMemory)
	st, meta, metadata, err := openStore(ctx, cfg, log, memory)
	if err != nil {
		return err
	}
	defer func() {
		if err := st.Close(); err != nil {
			log.Error("closing the store", "err", err)
		}
	}()
	var guard *auth.Guard
	access := "loopback only, no access token (set MLDR_TOKEN or -token-file to share the server)"
	if cfg.token != "" {
		if meta != nil { // the sessions of the login form are every web process's
			guard, err = auth.NewShared(cfg.token, sessionTTL, nil, meta)
		} else {
			guard, err = auth.New(cfg.token, sessionTTL, nil)
		}
		if err != nil {
			return err
		}
		access = "access token required (bearer for the API, login form for the pages)"
	}
	var execute jobs.Work // nil: this process runs no jobs
	if cfg.role != roleWeb {
		pool, err := startWorkers(cfg, st, log)
		if err != nil {
			return err
		}
		defer pool.Close() // after the queue's shutdown below has stopped the jobs
		execute = pool.Execute
	}
	queue, shutdown, running, err := startQueue(ctx, cfg, st, meta, execute, log)
	if err != nil {
		return err
	}
	defer func() {
		// Running jobs get a moment to finish; the rest are queued again
		// (embedded: for the next start; shared: for any worker).
		dctx, cancel := context.WithTimeout(context.Background(), jobDrainTimeout)
		defer cancel()
		if err := shutdown(dctx); err != nil {
			log.Info("jobs still running were stopped; they are queued again")
		}
	}()
	var database func(context.Context) error // nil: the embedded store, always there
	if meta != nil {
		database = meta.Ping
	}
	var handler http.Handler
	if cfg.role == roleWorker {
		handler = workerHealth(running, handlers.Readiness(database, st.CheckWritable, log))
	} else {
		svc := jobs.NewService(queue, st, jobs.Limits{MaxCells: cfg.maxCells, MaxPairwiseRows: int(cfg.maxPairwise), MaxJobMemory: cfg.maxJobMemory})
		handler = handlers.New(handlers.Config{Store: st, Memory: memory, Jobs: svc, Logger: log, MaxUpload: cfg.maxUpload, Version: e.version,
			Guard: guard, MaxUploads: int(cfg.maxUploads), TrustedProxies: cfg.trustedProxies,
			MinUploadRate: cfg.minUploadRate, Database: database})
	}
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", cfg.addr, err)
	}
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: cfg.headerTimeout,
		ReadTimeout:       cfg.readTimeout,
		WriteTimeout:      cfg.writeTimeout,
		IdleTimeout:       cfg.idleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	dir, _ := filepath.Abs(cfg.dataDir)
	// The start line says what this process does: a web process runs no
	// jobs, and a worker serves no pages (its url is its /healthz).
	attrs := []any{"url", "http://" + ln.Addr().String() + "/", "data_dir", dir}
	if cfg.role != roleWorker {
		attrs = append(attrs, "max_upload", store.FormatBytes(cfg.maxUpload), "max_upload_memory", jobMemory(cfg.maxUploadMemory))
	}
	if cfg.role != roleWeb {
		attrs = append(attrs, "workers", cfg.workers, "max_job_memory", jobMemory(cfg.maxJobMemory))
	}
	attrs = append(attrs, "metadata", metadata, "role", cfg.role)
	if cfg.role != roleWorker {
		attrs = append(attrs, "access", access)
	}
	attrs = append(attrs, "linear_algebra", linalg.Backend, "version", e.version)
	log.Info("MLDR Explorer is running", attrs...)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	if ready != nil {
		ready(ln.Addr().String())
	}
	select {
	case err := <-errc:
		return fmt.Errorf("serving: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down: finishing requests in flight", "timeout", shutdownTimeout)
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutting down: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	log.Info("stopped")
	return nil
}

// openStore opens the data directory with its metadata store: the
// embedded one (bbolt, meta.db in the directory), or with -database the
// PostgreSQL database, migrated (the product's migrations, then the job
// queue's, under one advisory lock). It returns the store, the database's
// metadata (nil when embedded) and what the start log says of the
// metadata.
func openStore(ctx context.Context, cfg config, log *slog.Logger, memory *membudget.Budget) (*store.Store, *pgmeta.Meta, string, error) {
	if cfg.database == "" {
		st, err := store.Open(store.Config{Dir: cfg.dataDir, Logger: log, ShardSize: cfg.shardSize, Memory: memory})
		return st, nil, "embedded (bbolt, meta.db in the data directory)", err
	}
	meta, err := pgmeta.Open(ctx, pgmeta.Config{URL: cfg.database, Logger: log, Migrate: sharedjobs.Migrate})
	if err != nil {
		return nil, nil, "", err
	}
	st, err := store.Open(store.Config{Dir: cfg.dataDir, Logger: log, Meta: meta, ShardSize: cfg.shardSize, Memory: memory})
	if err != nil {
		return nil, nil, "", err // Open closed meta
	}
	return st, meta, "PostgreSQL at " + meta.Where(), nil
}

// startQueue starts the job queue: the embedded runner, or with a
// database the shared queue (which runs jobs when execute is not nil, and
// listens for other processes' changes when this process serves pages).
// It returns the queue, its shutdown, and the jobs this process runs (for
// a worker's /healthz).
func startQueue(ctx context.Context, cfg config, st *store.Store, meta *pgmeta.Meta, execute jobs.Work, log *slog.Logger) (jobs.Queue, func(context.Context) error, func() []string, error) {
	if meta == nil {
		runner, err := jobs.New(jobs.Config{Store: st, Execute: execute, Workers: int(cfg.workers), MaxQueue: int(cfg.maxQueued), Logger: log})
		if err != nil {
			return nil, nil, nil, fmt.Errorf("starting the job runner: %w", err)
		}
		return runner, runner.Shutdown, nil, nil
	}
	scfg := sharedjobs.Config{Meta: meta, Results: st, Execute: execute, Workers: int(cfg.workers),
		MaxQueue: int(cfg.maxQueued), RescueAfter: cfg.rescueAfter, Lease: cfg.lease, Listen: cfg.role != roleWorker, Logger: log}
	if execute != nil {
		// An out-of-core job's statistics are formed by shard tasks on
		// every worker process, under the limit its workers have.
		scfg.ShardTasks = func(job jobs.Job, attempt int) ([]jobs.ShardTask, error) {
			return jobs.ShardTasks(st, cfg.maxJobMemory, job, attempt)
		}
	}
	q, err := sharedjobs.New(ctx, scfg)
	if err != nil {
		return nil, nil, nil, err
	}
	return q, q.Shutdown, q.Running, nil
}

// workerHealth is all a worker process serves: GET /healthz, 200 with
// its role and the jobs it runs, and GET /readyz, ready.
func workerHealth(running func() []string, ready http.HandlerFunc) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /readyz", ready)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		json.NewEncoder(w).Encode(struct {
			Status  string   `json:"status"`
			Role    string   `json:"role"`
			Running []string `json:"running"`
		}{"ok", roleWorker, running()})
	})
	return mux
}

// startWorkers starts the worker processes that run the jobs: this same
// binary, in worker mode, on the data directory.
func startWorkers(cfg config, st *store.Store, log *slog.Logger) (*worker.Pool, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("starting the job workers: finding this program: %w", err)
	}
	dir, err := filepath.Abs(cfg.dataDir)
	if err != nil {
		return nil, fmt.Errorf("starting the job workers: %w", err)
	}
	staging, err := filepath.Abs(st.StagingDir())
	if err != nil {
		return nil, fmt.Errorf("starting the job workers: %w", err)
	}
	args := []string{"-data-dir", dir, "-staging-dir", staging}
	if cfg.database != "" {
		// The shared mode's queue installs a run's results once it has
		// checked that the run still holds its job (sharedjobs).
		args = append(args, "-seal-results")
	}
	pool, err := worker.NewPool(worker.Config{
		Command:     func() *exec.Cmd { return exec.Command(self, args...) },
		Workers:     int(cfg.workers),
		MemoryLimit: cfg.maxJobMemory,
		Datasets:    st,
		Logger:      log,
	})
	if err != nil {
		return nil, fmt.Errorf("starting the job workers: %w", err)
	}
	return pool, nil
}

// jobMemory says the job memory limit for the log.
func jobMemory(n int64) string {
	if n == 0 {
		return "no limit"
	}
	return store.FormatBytes(n)
}

func newLogger(w io.Writer, format string) *slog.Logger {
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, nil))
	}
	return slog.New(slog.NewTextHandler(w, nil))
}

// checkHealth asks a running server's /readyz (whether it can serve: its
// database answers and its data directory takes new files, not only that
// the process answers, which is /healthz); the container's HEALTHCHECK
// uses it, as the image has no shell or curl.
func checkHealth(ctx context.Context, addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("bad address %q: %w", addr, err)
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+net.JoinHostPort(host, port)+"/readyz", nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("health check: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var why struct {
			Error string `json:"error"`
		}
		json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&why)
		return fmt.Errorf("health check: status %d: %s", resp.StatusCode, why.Error)
	}
	return nil
}
