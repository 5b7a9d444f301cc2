package main

import (
	"flag"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
)

// config is everything the server is started with.
type config struct {
	addr        string
	dataDir     string
	maxUpload   int64
	logFormat   string
	healthcheck bool
	workers     int64
	maxQueued   int64
	maxCells    int64
}

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
	var maxUpload string
	fs := flag.NewFlagSet("webapp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.addr, "addr", env("MLDR_ADDR", "127.0.0.1:8080"), "address to listen on, HOST:PORT (env MLDR_ADDR)")
	fs.StringVar(&c.dataDir, "data-dir", env("MLDR_DATA_DIR", "uploads"), "directory for data sets, jobs and results (env MLDR_DATA_DIR)")
	fs.StringVar(&maxUpload, "max-upload", env("MLDR_MAX_UPLOAD", "1GiB"), "largest data file accepted: bytes or with a unit, e.g. 500MB, 2GiB (env MLDR_MAX_UPLOAD)")
	fs.StringVar(&c.logFormat, "log-format", env("MLDR_LOG_FORMAT", "text"), "log format: text or json (env MLDR_LOG_FORMAT)")
	fs.BoolVar(&c.healthcheck, "healthcheck", false, "ask the server at -addr for /healthz and exit 0 if it is healthy")
	var workers, maxQueued, maxCells string
	fs.StringVar(&workers, "workers", env("MLDR_WORKERS", strconv.Itoa(runtime.NumCPU())), "jobs run at once (env MLDR_WORKERS)")
	fs.StringVar(&maxQueued, "max-queued", env("MLDR_MAX_QUEUED", "100"), "jobs waiting at most; beyond, submissions get 429 (env MLDR_MAX_QUEUED)")
	fs.StringVar(&maxCells, "max-cells", env("MLDR_MAX_CELLS", "300000000"), "rows × features a job may read; beyond, 413 (env MLDR_MAX_CELLS)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected argument %q (flags start with -; see -help)", fs.Arg(0))
	}
	n, err := parseBytes(maxUpload)
	if err != nil {
		return c, fmt.Errorf("-max-upload: %w", err)
	}
	c.maxUpload = n
	for _, f := range []struct {
		name, v string
		dst     *int64
	}{{"-workers", workers, &c.workers}, {"-max-queued", maxQueued, &c.maxQueued}, {"-max-cells", maxCells, &c.maxCells}} {
		v, err := strconv.ParseInt(f.v, 10, 64)
		if err != nil || v < 1 {
			return c, fmt.Errorf("%s must be a positive whole number, not %q", f.name, f.v)
		}
		*f.dst = v
	}
	if c.logFormat != "text" && c.logFormat != "json" {
		return c, fmt.Errorf("-log-format must be text or json, not %q", c.logFormat)
	}
	return c, nil
}

// parseBytes reads "1048576", "500MB", "1GiB", "2g" (k, m, g alone mean the
// binary units).
func parseBytes(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	units := []struct {
		suffix string
		mult   int64
	}{
		{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40},
		{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"tb", 1e12},
		{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"t", 1 << 40}, {"b", 1},
	}
	mult := int64(1)
	for _, u := range units {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v <= 0 || v*float64(mult) > 1<<62 {
		return 0, fmt.Errorf("%q is not a positive size such as 1048576, 500MB or 1GiB", s)
	}
	return int64(v * float64(mult)), nil
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
