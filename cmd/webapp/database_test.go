package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"mldr/internal/pgtest"
)

// -database and MLDR_DATABASE: the flag wins, a bad URL is refused at
// start without showing its password.
func TestDatabaseConfig(t *testing.T) {
	const pw = "s3cret-pw-123"
	for _, c := range []struct {
		what    string
		args    []string
		env     map[string]string
		want    string // the database's description; "" for none
		wantErr string
	}{
		{"none", nil, nil, "", ""},
		{"the flag", []string{"-database", "postgres://u:" + pw + "@db1:5433/m"}, nil, "db1:5433/m as u", ""},
		{"the environment", nil, map[string]string{"MLDR_DATABASE": "postgres://v@db2/n"}, "db2:5432/n as v", ""},
		{"the flag over the environment", []string{"-database", "postgres://u@db1/m"}, map[string]string{"MLDR_DATABASE": "postgres://v@db2/n"}, "db1:5432/m as u", ""},
		{"a bad port", []string{"-database", "postgres://u:" + pw + "@db1:port/m"}, nil, "", "-database: the database URL is not valid"},
		{"a bad scheme", []string{"-database", "mysql://u:" + pw + "@db1/m"}, nil, "", "-database: the database URL is not valid"},
		{"role web", []string{"-role", "web", "-database", "postgres://u@db1/m"}, nil, "db1:5432/m as u", ""},
		{"role worker from the environment", nil, map[string]string{"MLDR_ROLE": "worker", "MLDR_DATABASE": "postgres://u@db1/m"}, "db1:5432/m as u", ""},
		{"role web without a database", []string{"-role", "web"}, nil, "", "-role web needs -database: without a shared database one process serves the pages and runs the jobs (-role all, the default)"},
		{"role worker without a database", nil, map[string]string{"MLDR_ROLE": "worker"}, "", "-role worker needs -database"},
		{"an unknown role", []string{"-role", "both"}, nil, "", `-role must be all, web or worker, not "both"`},
		{"a bad rescue-after", []string{"-rescue-after", "0s", "-database", "postgres://u@db1/m"}, nil, "", "-rescue-after must be a positive duration"},
		{"a lease from the environment", nil, map[string]string{"MLDR_LEASE": "5s", "MLDR_DATABASE": "postgres://u@db1/m"}, "db1:5432/m as u", ""},
		{"a lease too short", []string{"-lease", "200ms", "-database", "postgres://u@db1/m"}, nil, "", "-lease must be at least 1s"},
		{"a bad lease", nil, map[string]string{"MLDR_LEASE": "soon"}, "", "-lease must be a positive duration"},
	} {
		cfg, err := parseConfig(c.args, func(k string) string { return c.env[k] }, io.Discard)
		switch {
		case c.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), c.wantErr) || strings.Contains(err.Error(), pw) {
				t.Errorf("%s: got %v, want an error saying %q without the password", c.what, err, c.wantErr)
			}
		case err != nil:
			t.Errorf("%s: %v", c.what, err)
		case cfg.databaseWhere != c.want:
			t.Errorf("%s: got database %q, want %q", c.what, cfg.databaseWhere, c.want)
		}
	}
}

// lockedBuffer is a log that a running server and the test share.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// With -database the server keeps its metadata in PostgreSQL and says so
// (without the password); a worker process on the same database and data
// directory starts beside it and serves only its health.
func TestRunWithDatabase(t *testing.T) {
	dsn := pgtest.NewDB(t)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	const pw = "s3cret-pw-123" // the test cluster trusts loopback: any password does
	u.User = url.UserPassword(u.User.Username(), pw)
	dsn = u.String()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logs := &lockedBuffer{}
	dir := t.TempDir()
	addrc := make(chan string, 1)
	errc := make(chan error, 1)
	go func() {
		errc <- run(ctx, []string{"-addr", "127.0.0.1:0", "-data-dir", dir, "-database", dsn, "-workers", "1"}, testEnv(logs), func(a string) { addrc <- a })
	}()
	var addr string
	select {
	case addr = <-addrc:
	case err := <-errc:
		t.Fatalf("run returned early: %v\n%s", err, logs)
	case <-time.After(30 * time.Second):
		t.Fatalf("the server did not start within 30 s\n%s", logs)
	}
	resp, err := http.Get("http://" + addr + "/api/datasets")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || strings.TrimSpace(string(body)) != "[]" {
		t.Errorf("GET /api/datasets: got %d %s, want 200 []", resp.StatusCode, body)
	}
	if want := "metadata=\"PostgreSQL at 127.0.0.1:" + u.Port() + "/" + strings.TrimPrefix(u.Path, "/") + " as postgres\""; !strings.Contains(logs.String(), want) {
		t.Errorf("the start log does not say %s:\n%s", want, logs)
	}

	// A second process on the database, a worker, starts (several
	// processes per database are the point) and answers only /healthz.
	second := &lockedBuffer{}
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	addr2c := make(chan string, 1)
	errc2 := make(chan error, 1)
	go func() {
		errc2 <- run(ctx2, []string{"-addr", "127.0.0.1:0", "-data-dir", dir, "-database", dsn, "-role", "worker", "-workers", "1"}, testEnv(second), func(a string) { addr2c <- a })
	}()
	var addr2 string
	select {
	case addr2 = <-addr2c:
	case err := <-errc2:
		t.Fatalf("a worker process on the same database: run returned early: %v\n%s", err, second)
	case <-time.After(30 * time.Second):
		t.Fatalf("the worker process did not start within 30 s\n%s", second)
	}
	for _, c := range []struct {
		path       string
		wantStatus int
		wantBody   string
	}{
		{"/healthz", http.StatusOK, `{"status":"ok","role":"worker","running":[]}`},
		{"/readyz", http.StatusOK, "{\n  \"status\": \"ready\"\n}"},
		{"/api/datasets", http.StatusNotFound, ""},
		{"/", http.StatusNotFound, ""},
	} {
		resp, err := http.Get("http://" + addr2 + c.path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.wantStatus || c.wantBody != "" && strings.TrimSpace(string(body)) != c.wantBody {
			t.Errorf("worker GET %s: got %d %s, want %d %s", c.path, resp.StatusCode, body, c.wantStatus, c.wantBody)
		}
	}
	if !strings.Contains(second.String(), "role=worker") {
		t.Errorf("the worker's start log does not say role=worker:\n%s", second)
	}
	cancel2()
	select {
	case err := <-errc2:
		if err != nil {
			t.Errorf("the worker's run after shutdown: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no worker shutdown within 30 s")
	}
	cancel()
	select {
	case err := <-errc:
		if err != nil {
			t.Errorf("run after shutdown: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no shutdown within 30 s")
	}
	for _, l := range []string{logs.String(), second.String()} {
		if strings.Contains(l, pw) {
			t.Errorf("the password appears in the logs or errors:\n%s", l)
		}
	}
}
