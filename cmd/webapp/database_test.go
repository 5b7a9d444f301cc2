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
// (without the password); a second server on the same database is refused
// with a sentence saying why.
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
	addrc := make(chan string, 1)
	errc := make(chan error, 1)
	go func() {
		errc <- run(ctx, []string{"-addr", "127.0.0.1:0", "-data-dir", t.TempDir(), "-database", dsn, "-workers", "1"}, func(string) string { return "" }, logs, func(a string) { addrc <- a })
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

	second := &lockedBuffer{}
	// Bounded, so that a second server that wrongly starts ends the test.
	ctx2, cancel2 := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel2()
	err = run(ctx2, []string{"-addr", "127.0.0.1:0", "-data-dir", t.TempDir(), "-database", dsn}, func(string) string { return "" }, second, nil)
	if err == nil || !strings.Contains(err.Error(), "another MLDR Explorer process is using the database at 127.0.0.1:"+u.Port()) {
		t.Errorf("a second server on the database: got %v, want an error saying another process uses it", err)
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
	for _, l := range []string{logs.String(), second.String(), errString(err)} {
		if strings.Contains(l, pw) {
			t.Errorf("the password appears in the logs or errors:\n%s", l)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
