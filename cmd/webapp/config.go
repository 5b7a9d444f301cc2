package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"mldr/internal/auth"
	"mldr/internal/jobs"
	"mldr/internal/pgmeta"
	"mldr/internal/sharedjobs"
	"mldr/internal/store"
	"mldr/internal/worker"
)

// minShardSize is the least -shard-size accepted.
const minShardSize = 1 << 20

// minJobMemory is the least -max-job-memory accepted.
const minJobMemory = 32 << 20

// minUploadMemory is the least -max-upload-memory accepted: a loading's
// fixed part (dataset's loadOverhead) and a small file.
const minUploadMemory = 16 << 20

// config is everything the server is started with.
type config struct {
	addr        string
	dataDir     string
	maxUpload   int64
	logFormat   string
	healthcheck bool
	// version asks for the software version, printed instead of serving.
	version     bool
	workers     int64
	maxQueued   int64
	maxCells    int64
	maxPairwise int64
	maxUploads  int64
	// maxJobMemory is the memory one job (its worker process) may use, in
	// bytes; 0: no limit.
	maxJobMemory int64
	// maxUploadMemory is the memory the readings of uploads (and
	// relabellings, transforms) may hold together, in bytes; 0: no limit.
	maxUploadMemory int64
	// token, if not empty, is the access token every request needs.
	token string
	// trustedProxies are the reverse proxies whose X-Forwarded-For is
	// believed.
	trustedProxies auth.Proxies
	// minUploadRate is the slowest an upload's body may arrive, in bytes
	// a second; -1 for no minimum.
	minUploadRate int64
	// shardSize is the stored size above which an uploaded data set is
	// written in row shards of about this many bytes.
	shardSize int64
	// Server timeouts.
	headerTimeout, readTimeout, writeTimeout, idleTimeout time.Duration
	// database is the PostgreSQL URL of the shared mode's metadata; ""
	// for the embedded store (bbolt in the data directory). databaseWhere
	// names it without its password, for the log.
	database, databaseWhere string
	// role is what this process does: roleAll, roleWeb or roleWorker.
	role string
	// rescueAfter is how long a job may run in the shared mode.
	rescueAfter time.Duration
	// lease is how long a process of the shared mode may go without
	// renewing its lease before its jobs are taken back and run by
	// another.
	lease time.Duration
}

// The roles of a process (-role).
const (
	roleAll    = "all"    // serve pages and the API, and run jobs
	roleWeb    = "web"    // serve pages and the API, queue jobs, run none
	roleWorker = "worker" // run jobs; only /healthz on -addr
)

// defaultRescueAfter is -rescue-after's default.
const defaultRescueAfter = time.Hour

// minLease is the least -lease accepted: a process renews its lease
// every fifth of it.
const minLease = time.Second

// Defaults of the server timeouts. Uploads of up to a gibibyte need
// minutes, so the body timeouts are long; the header timeout guards against
// slow clients holding connections.
const (
	defaultHeaderTimeout = 10 * time.Second
	defaultReadTimeout   = 30 * time.Minute
	defaultWriteTimeout  = 30 * time.Minute
	defaultIdleTimeout   = 2 * time.Minute
)

// parseConfig reads flags, falling back to the environment, then to the
// defaults.
func parseConfig(args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	env := func(key, def string) string {
		if v := getenv(key); v != "" {
			return v
		}
		return def
	}
	var c config
	var maxUpload, minUploadRate, shardSize string
	fs := flag.NewFlagSet("webapp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.addr, "addr", env("MLDR_ADDR", "127.0.0.1:8080"), "address to listen on, HOST:PORT (env MLDR_ADDR)")
	fs.StringVar(&c.dataDir, "data-dir", env("MLDR_DATA_DIR", "uploads"), "directory for data sets, jobs and results (env MLDR_DATA_DIR)")
	fs.StringVar(&maxUpload, "max-upload", env("MLDR_MAX_UPLOAD", "1GiB"), "largest data file accepted: bytes or with a unit, e.g. 500MB, 2GiB (env MLDR_MAX_UPLOAD)")
	fs.StringVar(&minUploadRate, "min-upload-rate", env("MLDR_MIN_UPLOAD_RATE", "10KiB"), "slowest an upload (or relabelling, transform) may send its body, per second, over 20 s; slower, and it ends with 408 and frees its slot; 0 for no minimum (env MLDR_MIN_UPLOAD_RATE)")
	fs.StringVar(&shardSize, "shard-size", env("MLDR_SHARD_SIZE", "256MiB"), "a data set whose stored form is larger is stored in row shards of at most about this size, bytes or with a unit, e.g. 64MiB, so that a job that does not fit in -max-job-memory can fit it one shard at a time (env MLDR_SHARD_SIZE)")
	fs.StringVar(&c.logFormat, "log-format", env("MLDR_LOG_FORMAT", "text"), "log format: text or json (env MLDR_LOG_FORMAT)")
	fs.BoolVar(&c.version, "version", false, "print the software version (the module version, or dev- and the VCS revision, +dirty for a modified tree) and exit")
	fs.BoolVar(&c.healthcheck, "healthcheck", false, "ask the server at -addr whether it is ready (/readyz: it answers, its database answers and its data directory takes new files) and exit 0 if it is, 1 if not; the container's health check")
	var workers, maxQueued, maxCells, maxPairwise, maxUploads, tokenFile, maxJobMemory, maxUploadMemory, trustedProxy string
	fs.StringVar(&workers, "workers", env("MLDR_WORKERS", strconv.Itoa(runtime.NumCPU())), "jobs run at once (env MLDR_WORKERS)")
	fs.StringVar(&maxQueued, "max-queued", env("MLDR_MAX_QUEUED", "100"), "jobs waiting at most; beyond, submissions get 429 (env MLDR_MAX_QUEUED)")
	fs.StringVar(&maxCells, "max-cells", env("MLDR_MAX_CELLS", strconv.Itoa(jobs.DefaultMaxCells)), "rows × features a job may read; beyond, 413 (env MLDR_MAX_CELLS)")
	fs.StringVar(&maxPairwise, "max-pairwise-rows", env("MLDR_MAX_PAIRWISE_ROWS", strconv.Itoa(jobs.DefaultMaxPairwiseRows)), "rows a method that compares every pair of rows may fit on; it lowers each method's own cap (lpp 20000, kcplst 8000), never raises it; beyond, 422 (env MLDR_MAX_PAIRWISE_ROWS)")
	fs.StringVar(&maxUploads, "max-uploads", env("MLDR_MAX_UPLOADS", "4"), "uploads (and relabellings, transforms) read at once; beyond, 429 (env MLDR_MAX_UPLOADS)")
	fs.StringVar(&maxJobMemory, "max-job-memory", getenv("MLDR_MAX_JOB_MEMORY"), "memory one job may use: bytes or with a unit, e.g. 4GiB; a job estimated above it is refused (413), and a job's worker process that holds more is stopped (default: half the machine's memory, or half the cgroup's limit; 0: no limit) (env MLDR_MAX_JOB_MEMORY)")
	fs.StringVar(&maxUploadMemory, "max-upload-memory", getenv("MLDR_MAX_UPLOAD_MEMORY"), "memory the uploads (and relabellings, transforms) being read may hold together: bytes or with a unit, e.g. 2GiB; each claims what the loader estimates from what it has read, and one that does not fit is refused, 413 when alone it would not, 429 when the others leave no room (default: a quarter of the machine's memory, or of the cgroup's limit; 0: no limit) (env MLDR_MAX_UPLOAD_MEMORY)")
	fs.StringVar(&c.token, "token", getenv("MLDR_TOKEN"), "access token every request needs, at least 16 characters; without one the server listens on loopback only (env MLDR_TOKEN; prefer the environment or -token-file: arguments are visible to other users)")
	fs.StringVar(&tokenFile, "token-file", getenv("MLDR_TOKEN_FILE"), "file whose first line is the access token (env MLDR_TOKEN_FILE)")
	fs.StringVar(&trustedProxy, "trusted-proxy", getenv("MLDR_TRUSTED_PROXY"), "reverse proxies, IP addresses or CIDR prefixes separated by commas, e.g. 127.0.0.1,10.0.0.0/8: a request from one of them is counted and logged as coming from the right-most address of X-Forwarded-For that is not itself a trusted proxy; from anyone else X-Forwarded-For is ignored (env MLDR_TRUSTED_PROXY)")
	fs.StringVar(&c.database, "database", getenv("MLDR_DATABASE"), "PostgreSQL URL, postgres://user@host:port/name, for the metadata (data sets, jobs, selections) and the job queue (River) instead of the embedded store in the data directory and the in-process queue; any number of processes (see -role) may share one database and one data directory (env MLDR_DATABASE; prefer the environment, PGPASSWORD or ~/.pgpass for the password: arguments are visible to other users)")
	fs.StringVar(&c.role, "role", env("MLDR_ROLE", roleAll), "what this process does: all (serve pages and run jobs), web (serve pages and the API and queue jobs, run none) or worker (run jobs, serve only /healthz on -addr); web and worker need -database (env MLDR_ROLE)")
	fs.DurationVar(&c.rescueAfter, "rescue-after", envDuration(getenv, "MLDR_RESCUE_AFTER", defaultRescueAfter), "with -database: how long a job may run; a longer one fails; give every process the same (env MLDR_RESCUE_AFTER)")
	fs.DurationVar(&c.lease, "lease", envDuration(getenv, "MLDR_LEASE", sharedjobs.DefaultLease), "with -database: how long a process may go without renewing its lease in the database (it renews it every fifth of this) before the jobs it runs are taken back and run by another worker; give every process the same (env MLDR_LEASE)")
	fs.DurationVar(&c.headerTimeout, "header-timeout", envDuration(getenv, "MLDR_HEADER_TIMEOUT", defaultHeaderTimeout), "time to read a request's headers (env MLDR_HEADER_TIMEOUT)")
	fs.DurationVar(&c.readTimeout, "read-timeout", envDuration(getenv, "MLDR_READ_TIMEOUT", defaultReadTimeout), "time to read a whole request, upload included (env MLDR_READ_TIMEOUT)")
	fs.DurationVar(&c.writeTimeout, "write-timeout", envDuration(getenv, "MLDR_WRITE_TIMEOUT", defaultWriteTimeout), "time to write an answer; event streams are exempt (env MLDR_WRITE_TIMEOUT)")
	fs.DurationVar(&c.idleTimeout, "idle-timeout", envDuration(getenv, "MLDR_IDLE_TIMEOUT", defaultIdleTimeout), "time an idle keep-alive connection stays open (env MLDR_IDLE_TIMEOUT)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"-rescue-after", c.rescueAfter}, {"-lease", c.lease}, {"-header-timeout", c.headerTimeout}, {"-read-timeout", c.readTimeout}, {"-write-timeout", c.writeTimeout}, {"-idle-timeout", c.idleTimeout}} {
		if d.v <= 0 {
			return c, fmt.Errorf("%s must be a positive duration such as 30s or 5m, not %v", d.name, d.v)
		}
	}
	if c.lease < minLease {
		return c, fmt.Errorf("-lease must be at least %s, not %v", minLease, c.lease)
	}
	if tokenFile != "" {
		if c.token != "" {
			return c, fmt.Errorf("give -token or -token-file, not both")
		}
		b, err := os.ReadFile(tokenFile)
		if err != nil {
			return c, fmt.Errorf("-token-file: %w", err)
		}
		c.token, _, _ = strings.Cut(string(b), "\n")
		c.token = strings.TrimSpace(c.token)
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected argument %q (flags start with -; see -help)", fs.Arg(0))
	}
	switch c.role {
	case roleAll:
	case roleWeb, roleWorker:
		if c.database == "" {
			return c, fmt.Errorf("-role %s needs -database: without a shared database one process serves the pages and runs the jobs (-role all, the default)", c.role)
		}
	default:
		return c, fmt.Errorf("-role must be all, web or worker, not %q", c.role)
	}
	if c.database != "" {
		where, err := pgmeta.Where(c.database)
		if err != nil {
			return c, fmt.Errorf("-database: %w", err)
		}
		c.databaseWhere = where
	}
	proxies, err := auth.ParseProxies(trustedProxy)
	if err != nil {
		return c, fmt.Errorf("-trusted-proxy: %w", err)
	}
	c.trustedProxies = proxies
	n, err := store.ParseBytes(maxUpload)
	if err != nil {
		return c, fmt.Errorf("-max-upload: %w", err)
	}
	c.maxUpload = n
	switch strings.TrimSpace(maxJobMemory) {
	case "":
		c.maxJobMemory = worker.DefaultMemoryLimit()
	case "0":
	default:
		if c.maxJobMemory, err = store.ParseBytes(maxJobMemory); err != nil {
			return c, fmt.Errorf("-max-job-memory: %w", err)
		}
		if c.maxJobMemory < minJobMemory {
			return c, fmt.Errorf("-max-job-memory must be at least %s (a worker process needs that much to start), not %s", store.FormatBytes(minJobMemory), store.FormatBytes(c.maxJobMemory))
		}
	}
	switch strings.TrimSpace(maxUploadMemory) {
	case "":
		c.maxUploadMemory = worker.DefaultMemoryLimit() / 2
	case "0":
	default:
		if c.maxUploadMemory, err = store.ParseBytes(maxUploadMemory); err != nil || c.maxUploadMemory < minUploadMemory {
			return c, fmt.Errorf("-max-upload-memory must be at least %s, such as 2GiB, or 0 for no limit, not %q", store.FormatBytes(minUploadMemory), maxUploadMemory)
		}
	}
	if c.shardSize, err = store.ParseBytes(shardSize); err != nil || c.shardSize < minShardSize {
		return c, fmt.Errorf("-shard-size must be at least %s, such as 256MiB, not %q", store.FormatBytes(minShardSize), shardSize)
	}
	if strings.TrimSpace(minUploadRate) == "0" {
		c.minUploadRate = -1
	} else if c.minUploadRate, err = store.ParseBytes(minUploadRate); err != nil {
		return c, fmt.Errorf("-min-upload-rate: %w (bytes a second, or 0 for no minimum)", err)
	}
	for _, f := range []struct {
		name, v string
		dst     *int64
	}{{"-workers", workers, &c.workers}, {"-max-queued", maxQueued, &c.maxQueued}, {"-max-cells", maxCells, &c.maxCells}, {"-max-pairwise-rows", maxPairwise, &c.maxPairwise}, {"-max-uploads", maxUploads, &c.maxUploads}} {
		v, err := strconv.ParseInt(f.v, 10, 64)
		if err != nil || v < 1 {
			return c, fmt.Errorf("%s must be a positive whole number, not %q", f.name, f.v)
		}
		*f.dst = v
	}
	if c.logFormat != "text" && c.logFormat != "json" {
		return c, fmt.Errorf("-log-format must be text or json, not %q", c.logFormat)
	}
	if c.token != "" && len(c.token) < auth.MinTokenLength {
		return c, auth.ErrShortToken
	}
	if c.token == "" && !c.healthcheck && !c.version && !loopback(c.addr) {
		return c, fmt.Errorf("-addr %s would let anyone who can reach this machine in: without an access token (-token, -token-file or MLDR_TOKEN) the server listens on loopback only, e.g. 127.0.0.1:8080", c.addr)
	}
	return c, nil
}

// loopback reports whether addr (HOST:PORT) listens on this machine only.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// envDuration reads a duration from the environment, or gives def.
func envDuration(getenv func(string) string, key string, def time.Duration) time.Duration {
	if v := getenv(key); v != "" {
		if d, err := time.ParseDuration(v); err == nil {
			return d
		}
		return -1 // refused below with the flag's name
	}
	return def
}

// version is the module version, or the VCS revision of a development build.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	switch {
	case rev == "":
		return "dev"
	case dirty:
		return "dev-" + rev + "+dirty"
	}
	return "dev-" + rev
}
