package pgmeta

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"mldr/internal/store"
)

// Outages. An error that means the database could not be reached (the
// connection refused, broken or timed out, the server shutting down or
// not yet accepting connections) wraps store.ErrUnavailable (Classify),
// which the handlers answer with 503 and Retry-After. A watch, on a
// connection of its own, asks the database every probeEvery whether it
// answers, and at once when an operation met such an error. When it
// finds the database lost, the connections that are waiting for an
// answer are closed, so that their operations fail at once rather than
// when their timeouts end; while it is lost, every operation on the pool
// fails at once with store.ErrUnavailable instead of waiting on a server
// that may be frozen (Check); and the process logs one line when the
// database is lost and one when it is back, whatever the number of
// requests refused meanwhile. Connections are made again by the pool as they are needed:
// nothing has to be restarted.

// Timing of the watch.
const (
	// probeEvery is the pause between two probes while the database
	// answers, retryEvery while it does not.
	probeEvery = 2 * time.Second
	retryEvery = time.Second
	// probeTimeout bounds one probe (a connect, or a ping).
	probeTimeout = 5 * time.Second
)

// Classify returns err wrapping store.ErrUnavailable when it says that the
// database could not be reached, and any other error (or nil) as it is.
func Classify(err error) error {
	if err == nil || errors.Is(err, store.ErrUnavailable) || !unreachable(err) {
		return err
	}
	return &unavailableError{err: err}
}

// unavailableError is an error that wraps store.ErrUnavailable besides
// its cause, keeping the cause's message.
type unavailableError struct{ err error }

func (e *unavailableError) Error() string   { return e.err.Error() }
func (e *unavailableError) Unwrap() []error { return []error{store.ErrUnavailable, e.err} }

// unreachable reports whether err says that the database could not be
// reached, rather than that it refused the operation.
func unreachable(err error) bool {
	if errors.Is(err, context.Canceled) {
		return false // the caller gave up (pgconn reports it as a timeout too)
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		// Class 08: connection exception; 57P01–03: shutting down, crashed,
		// not yet accepting connections; 53300: too many connections.
		return strings.HasPrefix(pe.Code, "08") || pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03" || pe.Code == "53300"
	}
	var ce *pgconn.ConnectError
	var ne net.Error // a refused or broken connection; a timeout (context.DeadlineExceeded is one)
	return errors.As(err, &ce) || errors.As(err, &ne) || pgconn.Timeout(err) ||
		errors.Is(err, pgconn.ErrConnClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// health is what the watch knows of the database.
type health struct {
	down  atomic.Bool
	poke  chan struct{}   // an operation met an error that may mean an outage
	asks  chan chan error // Ping's requests for a probe now, and its answer
	mu    sync.Mutex
	since time.Time              // when it was lost (down) or came back (up)
	cause error                  // why it was lost
	busy  map[*pgx.Conn]struct{} // the connections waiting for an answer
}

// Check returns nil while the database answers, as the watch last found,
// and an error wrapping store.ErrUnavailable while it does not. The pool
// asks it before it hands out or makes a connection, so that operations
// fail at once during an outage.
func (m *Meta) Check() error {
	if !m.health.down.Load() {
		return nil
	}
	m.health.mu.Lock()
	defer m.health.mu.Unlock()
	return &unavailableError{err: fmt.Errorf("PostgreSQL at %s has not answered since %s: %w", m.where, m.health.since.Format(time.TimeOnly), m.health.cause)}
}

// Settled reports whether the database answers and has answered for at
// least d: false during an outage and for d after it.
func (m *Meta) Settled(d time.Duration) bool {
	if m.health.down.Load() {
		return false
	}
	m.health.mu.Lock()
	defer m.health.mu.Unlock()
	return m.health.since.IsZero() || time.Since(m.health.since) >= d
}

// Ping asks the database now whether it answers, within ctx, on the
// watch's own connection (so that a pool whose connections are all busy
// is not taken for a lost database); its error wraps store.ErrUnavailable
// when it does not. While the watch finds the database lost, it answers
// at once. Readiness checks ask it.
func (m *Meta) Ping(ctx context.Context) error {
	if err := m.Check(); err != nil {
		return err
	}
	reply := make(chan error, 1)
	var err error
	select {
	case m.health.asks <- reply:
		select {
		case err = <-reply:
		case <-ctx.Done():
			err = ctx.Err()
		}
	case <-m.watched:
		err = errors.New("the metadata store is closed")
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err != nil {
		return m.fail("asking whether the database answers", err)
	}
	return nil
}

// suspect has the watch probe at once when err may mean an outage.
func (m *Meta) suspect(err error) {
	if err == nil || !errors.Is(Classify(err), store.ErrUnavailable) || m.health.down.Load() {
		return
	}
	select {
	case m.health.poke <- struct{}{}:
	default:
	}
}

// observe records a probe's outcome, logging the changes only; when the
// database is lost, it closes the connections that wait for an answer.
func (m *Meta) observe(err error) {
	h := &m.health
	h.mu.Lock()
	defer h.mu.Unlock()
	if err != nil && !h.down.Load() {
		for c := range h.busy {
			// Their operations fail now (a closed connection), and the
			// pool drops them as they are released.
			c.PgConn().Conn().Close()
		}
		clear(h.busy)
	}
	switch {
	case err == nil && h.down.Load():
		m.log.Info("the database is reachable again", "database", m.where, "after", time.Since(h.since).Round(100*time.Millisecond).String())
		// The connections of before the outage may be dead (a restarted
		// server): new ones are made as they are needed.
		m.pool.Reset()
		h.down.Store(false)
		h.since, h.cause = time.Now(), nil
	case err != nil && !h.down.Load():
		m.log.Error("the database is unreachable; requests that need it answer 503 until it is back, and this process reconnects by itself",
			"database", m.where, "err", err)
		h.since, h.cause = time.Now(), err
		h.down.Store(true)
	}
}

// watch probes the database until ctx ends, on a connection of its own
// (so that a pool whose connections are all busy is not taken for a lost
// database) made with cfg.
func (m *Meta) watch(ctx context.Context, cfg *pgx.ConnConfig) {
	var conn *pgx.Conn
	defer func() {
		if conn != nil {
			conn.Close(context.Background())
		}
	}()
	t := time.NewTimer(probeEvery)
	defer t.Stop()
	for {
		var reply chan error
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-m.health.poke:
			t.Stop()
		case reply = <-m.health.asks:
			t.Stop()
		}
		err := probe(ctx, cfg, &conn)
		if ctx.Err() != nil {
			return
		}
		m.observe(err)
		if reply != nil {
			reply <- err
		}
		if m.health.down.Load() {
			t.Reset(retryEvery)
		} else {
			t.Reset(probeEvery)
		}
	}
}

// probe pings the database on *conn, connecting first if it is nil; a
// connection that failed is closed and *conn set to nil.
func probe(ctx context.Context, cfg *pgx.ConnConfig, conn **pgx.Conn) error {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	if *conn == nil {
		c, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			return err
		}
		*conn = c
	}
	if err := (*conn).Ping(ctx); err != nil {
		cctx, ccancel := context.WithTimeout(context.Background(), time.Second)
		(*conn).Close(cctx)
		ccancel()
		*conn = nil
		return err
	}
	return nil
}

// guardPool makes the pool fail at once while the watch finds the
// database lost (no ping of an idle connection, no new connection, no
// connection handed out), and report the errors of its operations to
// the watch.
func (m *Meta) guardPool(cfg *pgxpool.Config) {
	cfg.ConnConfig.Tracer = tracer{m}
	cfg.PingTimeout = probeTimeout
	cfg.BeforeConnect = func(context.Context, *pgx.ConnConfig) error { return m.Check() }
	cfg.ShouldPing = func(_ context.Context, p pgxpool.ShouldPingParams) bool {
		return !m.health.down.Load() && p.IdleDuration > time.Second // pgxpool's default
	}
	cfg.PrepareConn = func(context.Context, *pgx.Conn) (bool, error) {
		// A connection refused during an outage is dropped: one that was
		// handed out and refused again and again would look freshly used
		// to the pool, and be handed out unpinged once the database is
		// back, dead if the server restarted.
		err := m.Check()
		return err == nil, err
	}
}

// tracer keeps the set of the pool's connections that wait for an
// answer, and passes the errors of their operations to the watch
// (suspect).
type tracer struct{ m *Meta }

// begin marks c as waiting for an answer.
func (t tracer) begin(ctx context.Context, c *pgx.Conn) context.Context {
	h := &t.m.health
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.busy == nil {
		h.busy = map[*pgx.Conn]struct{}{}
	}
	h.busy[c] = struct{}{}
	return ctx
}

// end marks c as answered, and reports err.
func (t tracer) end(c *pgx.Conn, err error) {
	h := &t.m.health
	h.mu.Lock()
	delete(h.busy, c)
	h.mu.Unlock()
	t.m.suspect(err)
}

// TraceQueryStart marks the connection busy.
func (t tracer) TraceQueryStart(ctx context.Context, c *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	return t.begin(ctx, c)
}

// TraceQueryEnd reports a query's end.
func (t tracer) TraceQueryEnd(_ context.Context, c *pgx.Conn, d pgx.TraceQueryEndData) {
	t.end(c, d.Err)
}

// TraceBatchStart marks the connection busy.
func (t tracer) TraceBatchStart(ctx context.Context, c *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return t.begin(ctx, c)
}

// TraceBatchQuery reports a batched query's error.
func (t tracer) TraceBatchQuery(_ context.Context, _ *pgx.Conn, d pgx.TraceBatchQueryData) {
	t.m.suspect(d.Err)
}

// TraceBatchEnd reports a batch's end.
func (t tracer) TraceBatchEnd(_ context.Context, c *pgx.Conn, d pgx.TraceBatchEndData) {
	t.end(c, d.Err)
}

// TraceCopyFromStart marks the connection busy.
func (t tracer) TraceCopyFromStart(ctx context.Context, c *pgx.Conn, _ pgx.TraceCopyFromStartData) context.Context {
	return t.begin(ctx, c)
}

// TraceCopyFromEnd reports a copy's end.
func (t tracer) TraceCopyFromEnd(_ context.Context, c *pgx.Conn, d pgx.TraceCopyFromEndData) {
	t.end(c, d.Err)
}

// TraceConnectStart does nothing.
func (tracer) TraceConnectStart(ctx context.Context, _ pgx.TraceConnectStartData) context.Context {
	return ctx
}

// TraceConnectEnd reports a connect's error.
func (t tracer) TraceConnectEnd(_ context.Context, d pgx.TraceConnectEndData) { t.m.suspect(d.Err) }
