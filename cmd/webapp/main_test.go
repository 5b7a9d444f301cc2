package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mldr/internal/pgtest"
	"mldr/internal/worker"
)

// TestMain lets the server that tests start in this process start this
// test binary as its workers: a worker runs runWorker, as main does. With
// envRunMain=1 the test binary is the command itself (main), for the
// tests of its exit status. The tests themselves get a throwaway
// PostgreSQL (pgtest).
func TestMain(m *testing.M) {
	if os.Getenv(envRunMain) == "1" {
		main()
		os.Exit(0)
	}
	if worker.IsWorker(os.Getenv) {
		if err := runWorker(context.Background(), os.Args[1:], env{getenv: os.Getenv, stdout: os.Stdout, stderr: os.Stderr, version: testVersion}); err != nil {
			fmt.Fprintln(os.Stderr, "webapp worker:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	pgtest.Main(m)
}

// envRunMain makes the test binary run main (TestMain).
const envRunMain = "MLDR_TEST_RUN_MAIN"

// testVersion is the software version the tests give the commands.
const testVersion = "test-version"

// testEnv is the env of a test's command: no environment, standard error
// to stderr, the version testVersion.
func testEnv(stderr io.Writer) env {
	return env{getenv: func(string) string { return "" }, stdout: io.Discard, stderr: stderr, version: testVersion}
}

func TestParseConfig(t *testing.T) {
	env := map[string]string{"MLDR_ADDR": "0.0.0.0:9000", "MLDR_MAX_UPLOAD": "10MB", "MLDR_TOKEN": "a-token-of-20-chars."}
	getenv := func(k string) string { return env[k] }
	c, err := parseConfig(nil, getenv, io.Discard)
	if err != nil || c.addr != "0.0.0.0:9000" || c.maxUpload != 10e6 || c.dataDir != "uploads" {
		t.Errorf("from the environment: got %+v, %v", c, err)
	}
	c, err = parseConfig([]string{"-addr", "127.0.0.1:1", "-data-dir", "/tmp/x", "-max-upload", "1KiB"}, getenv, io.Discard)
	if err != nil || c.addr != "127.0.0.1:1" || c.dataDir != "/tmp/x" || c.maxUpload != 1024 {
		t.Errorf("flags over the environment: got %+v, %v", c, err)
	}
	c, err = parseConfig(nil, func(string) string { return "" }, io.Discard)
	if err != nil || c.addr != "127.0.0.1:8080" || c.maxUpload != 1<<30 || c.maxPairwise != 20000 {
		t.Errorf("defaults: got %+v, %v; want 127.0.0.1:8080, 1 GiB and 20000 pairwise rows", c, err)
	}
	for _, args := range [][]string{{"-max-upload", "big"}, {"-log-format", "xml"}, {"stray"}, {"-nope"}, {"-max-uploads", "0"}, {"-max-pairwise-rows", "-1"},
		{"-read-timeout", "0s"}, {"-idle-timeout", "soon"}, {"-token", "short"}} {
		if _, err := parseConfig(args, getenv, io.Discard); err == nil {
			t.Errorf("parseConfig(%q): got no error", args)
		}
	}
}

// -trusted-proxy and -min-upload-rate, from flags and the environment.
func TestProxyAndUploadRateConfig(t *testing.T) {
	none := func(string) string { return "" }
	c, err := parseConfig(nil, none, io.Discard)
	if err != nil || len(c.trustedProxies) != 0 || c.minUploadRate != 10<<10 {
		t.Errorf("defaults: got proxies %v, rate %d, %v; want none and 10 KiB/s", c.trustedProxies, c.minUploadRate, err)
	}
	env := func(k string) string {
		return map[string]string{"MLDR_TRUSTED_PROXY": "10.0.0.1, 192.168.0.0/16", "MLDR_MIN_UPLOAD_RATE": "1MiB"}[k]
	}
	c, err = parseConfig(nil, env, io.Discard)
	if err != nil || fmt.Sprint(c.trustedProxies) != "[10.0.0.1/32 192.168.0.0/16]" || c.minUploadRate != 1<<20 {
		t.Errorf("from the environment: got proxies %v, rate %d, %v", c.trustedProxies, c.minUploadRate, err)
	}
	c, err = parseConfig([]string{"-trusted-proxy", "::1", "-min-upload-rate", "0"}, env, io.Discard)
	if err != nil || fmt.Sprint(c.trustedProxies) != "[::1/128]" || c.minUploadRate != -1 {
		t.Errorf("flags over the environment: got proxies %v, rate %d, %v; want [::1/128] and -1 (none)", c.trustedProxies, c.minUploadRate, err)
	}
	for _, args := range [][]string{{"-trusted-proxy", "proxy.example"}, {"-trusted-proxy", "10.0.0.0/40"}, {"-min-upload-rate", "slow"}, {"-min-upload-rate", "-5"}} {
		if _, err := parseConfig(args, none, io.Discard); err == nil {
			t.Errorf("parseConfig(%q): got no error", args)
		}
	}
}

// Without a token the server listens on this machine only; with one it may
// listen anywhere.
func TestAccessConfig(t *testing.T) {
	none := func(string) string { return "" }
	for addr, ok := range map[string]bool{
		"127.0.0.1:8080": true, "127.0.0.2:1": true, "[::1]:8080": true, "localhost:8080": true,
		"0.0.0.0:8080": false, ":8080": false, "[::]:8080": false, "192.168.1.10:8080": false, "example.org:80": false,
	} {
		_, err := parseConfig([]string{"-addr", addr}, none, io.Discard)
		if (err == nil) != ok {
			t.Errorf("-addr %s without a token: error %v, want ok = %v", addr, err, ok)
		}
		if _, err := parseConfig([]string{"-addr", addr, "-token", "0123456789abcdef"}, none, io.Discard); err != nil {
			t.Errorf("-addr %s with a token: %v", addr, err)
		}
	}
	file := filepath.Join(t.TempDir(), "token")
	os.WriteFile(file, []byte("  from-a-file-0123456789  \nsecond line\n"), 0o600)
	c, err := parseConfig([]string{"-token-file", file, "-addr", ":1"}, none, io.Discard)
	if err != nil || c.token != "from-a-file-0123456789" {
		t.Errorf("-token-file: got %q, %v", c.token, err)
	}
	if _, err := parseConfig([]string{"-token-file", file, "-token", "0123456789abcdef"}, none, io.Discard); err == nil {
		t.Error("-token and -token-file together: no error")
	}
	if _, err := parseConfig([]string{"-token-file", filepath.Join(t.TempDir(), "missing")}, none, io.Discard); err == nil {
		t.Error("a missing -token-file: no error")
	}
	c, err = parseConfig(nil, func(k string) string {
		return map[string]string{"MLDR_READ_TIMEOUT": "90s", "MLDR_MAX_UPLOADS": "7"}[k]
	}, io.Discard)
	if err != nil || c.readTimeout != 90*time.Second || c.maxUploads != 7 || c.headerTimeout != defaultHeaderTimeout {
		t.Errorf("limits from the environment: %+v, %v", c, err)
	}
}

// run serves until its context ends, then shuts down cleanly; the health
// check mode reports on it.
func TestRunServesAndShutsDown(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addrc := make(chan string, 1)
	errc := make(chan error, 1)
	go func() {
		errc <- run(ctx, []string{"-addr", "127.0.0.1:0", "-data-dir", t.TempDir()}, testEnv(io.Discard), func(a string) { addrc <- a })
	}()
	var addr string
	select {
	case addr = <-addrc:
	case err := <-errc:
		t.Fatalf("run returned early: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not start within 10 s")
	}
	resp, err := http.Get("http://" + addr + "/healthz")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("healthz: %v %v", err, resp)
	}
	resp.Body.Close()
	if err := run(ctx, []string{"-healthcheck", "-addr", addr}, testEnv(io.Discard), nil); err != nil {
		t.Errorf("-healthcheck against a running server: %v", err)
	}
	cancel()
	select {
	case err := <-errc:
		if err != nil {
			t.Errorf("run after shutdown: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no shutdown within 20 s")
	}
	if err := run(context.Background(), []string{"-healthcheck", "-addr", addr}, testEnv(io.Discard), nil); err == nil {
		t.Error("-healthcheck against a stopped server: got no error")
	}
}

// The data directory can be used by one server at a time.
func TestSecondServerOnSameDirectory(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := t.TempDir()
	started := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-addr", "127.0.0.1:0", "-data-dir", dir}, testEnv(io.Discard), func(a string) { started <- a })
	}()
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("the first server did not start")
	}
	err := run(context.Background(), []string{"-addr", "127.0.0.1:0", "-data-dir", dir}, testEnv(io.Discard), nil)
	if err == nil || !strings.Contains(err.Error(), "in use by another process") {
		t.Errorf("second server: got %v, want an error saying the directory is in use", err)
	}
	cancel()
	<-done
}
