package pgmeta

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"mldr/internal/pgtest"
	"mldr/internal/store"
)

// Errors that mean the database could not be reached wrap
// store.ErrUnavailable; refusals by the database, and a caller that gave
// up, do not.
func TestClassify(t *testing.T) {
	for _, c := range []struct {
		what string
		err  error
		want bool
	}{
		{"a refused connection", &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}, true},
		{"a timeout", fmt.Errorf("reading: %w", context.DeadlineExceeded), true},
		{"a closed connection", pgconn.ErrConnClosed, true},
		{"a connection cut short", fmt.Errorf("receiving: %w", io.ErrUnexpectedEOF), true},
		{"the server shutting down", &pgconn.PgError{Code: "57P01"}, true},
		{"the server starting", &pgconn.PgError{Code: "57P03"}, true},
		{"a connection exception", &pgconn.PgError{Code: "08006"}, true},
		{"a unique violation", &pgconn.PgError{Code: "23505"}, false},
		{"a wrong password", &pgconn.PgError{Code: "28P01"}, false},
		{"a caller that gave up", fmt.Errorf("querying: %w", context.Canceled), false},
		{"another error", errors.New("decoding a record"), false},
	} {
		err := Classify(c.err)
		if got := errors.Is(err, store.ErrUnavailable); got != c.want {
			t.Errorf("%s: got unavailable %v, want %v", c.what, got, c.want)
		}
		if !errors.Is(err, c.err) || err.Error() != c.err.Error() {
			t.Errorf("%s: got %v, want the cause kept as it was", c.what, err)
		}
	}
	if Classify(nil) != nil {
		t.Error("Classify(nil): want nil")
	}
}

// syncBuffer is a log destination safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) count(sub string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Count(s.b.String(), sub)
}

// An outage, the server stopped and started again, then frozen and
// thawed: during each, operations fail with store.ErrUnavailable, at once
// once the watch has found the database lost; afterwards the same Meta
// works again without being reopened; and each outage is logged in two
// lines, one when it begins and one when it ends.
func TestOutage(t *testing.T) {
	c := pgtest.NewCluster(t)
	ctx := context.Background()
	dsn, err := c.CreateDB(ctx, "outage")
	if err != nil {
		t.Fatal(err)
	}
	var logs syncBuffer
	m, err := Open(ctx, Config{URL: dsn, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	rec := store.DatasetRecord{ID: "dsdsdsdsdsdsdsds", Name: "kept", CreatedAt: time.Now().UTC()}
	if err := m.PutDataset(ctx, rec); err != nil {
		t.Fatal(err)
	}
	// until polls op until ok says its error is the one wanted, for at
	// most 30 s, and returns that error.
	until := func(what string, ok func(error) bool) error {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			_, err := m.Datasets(ctx)
			if ok(err) {
				return err
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: still %v after 30 s", what, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	unavailable := func(err error) bool { return errors.Is(err, store.ErrUnavailable) }
	lost := func(what string) {
		t.Helper()
		until(what, unavailable)
		deadline := time.Now().Add(30 * time.Second)
		for m.Check() == nil {
			if time.Now().After(deadline) {
				t.Fatalf("%s: the watch did not find the database lost within 30 s", what)
			}
			time.Sleep(50 * time.Millisecond)
		}
		start := time.Now()
		err := until(what, func(error) bool { return true })
		if took := time.Since(start); !unavailable(err) || took > time.Second {
			t.Errorf("%s, once found lost: got %v after %v, want ErrUnavailable at once", what, err, took)
		}
		pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		if err := m.Ping(pctx); !unavailable(err) {
			t.Errorf("%s: Ping got %v, want ErrUnavailable", what, err)
		}
	}
	back := func(what string) {
		t.Helper()
		until(what, func(err error) bool { return err == nil })
		if got, err := m.Dataset(ctx, rec.ID); err != nil || got.Name != rec.Name {
			t.Errorf("%s: got %+v, %v; want the record kept", what, got, err)
		}
		if err := m.Ping(ctx); err != nil {
			t.Errorf("%s: Ping: %v", what, err)
		}
	}

	if err := c.StopServer(); err != nil {
		t.Fatal(err)
	}
	lost("the server stopped")
	if err := c.StartServer(); err != nil {
		t.Fatal(err)
	}
	back("the server started again")

	if err := c.Pause(); err != nil {
		t.Fatal(err)
	}
	lost("the server frozen")
	if err := c.Resume(); err != nil {
		t.Fatal(err)
	}
	back("the server thawed")

	// The watch logs the end of an outage when it next probes.
	deadline := time.Now().Add(10 * time.Second)
	for logs.count("the database is reachable again") < 2 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if lost, back := logs.count("the database is unreachable"), logs.count("the database is reachable again"); lost != 2 || back != 2 {
		t.Errorf("log: got %d lines saying the database is lost and %d saying it is back, want 2 and 2:\n%s", lost, back, logs.b.String())
	}
}
