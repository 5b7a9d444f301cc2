package pgmeta

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"mldr/internal/auth"
	"mldr/internal/pgtest"
)

// Two web processes (two Metas on one database, each with its own guard)
// share the login sessions: a session opened on one is valid on the
// other, a logout on either ends it on both, an expired one passes
// nowhere and is forgotten at the next login; the table holds digests,
// never the cookie's value.
func TestSharedSessions(t *testing.T) {
	valid := func(t *testing.T, g *auth.Guard, r *http.Request) bool {
		t.Helper()
		ok, err := g.ValidSession(r)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	dsn := pgtest.NewDB(t)
	a, b := openT(t, dsn), openT(t, dsn)
	clk := time.Now()
	now := func() time.Time { return clk }
	const token = "0123456789abcdef-token"
	ga, err := auth.NewShared(token, time.Hour, now, a)
	if err != nil {
		t.Fatal(err)
	}
	gb, err := auth.NewShared(token, time.Hour, now, b)
	if err != nil {
		t.Fatal(err)
	}
	with := func(v string) *http.Request {
		r := httptest.NewRequest("GET", "/", nil)
		r.AddCookie(&http.Cookie{Name: auth.CookieName, Value: v})
		return r
	}
	mine, err := ga.Session(true)
	if err != nil {
		t.Fatal(err)
	}
	yours, err := gb.Session(true)
	if err != nil {
		t.Fatal(err)
	}
	if !valid(t, ga, with(mine.Value)) || !valid(t, gb, with(mine.Value)) {
		t.Fatal("a session opened on one process is not valid on both")
	}
	var stored int
	if err := a.pool.QueryRow(context.Background(), "SELECT count(*) FROM sessions WHERE key = $1", []byte(mine.Value)).Scan(&stored); err != nil || stored != 0 {
		t.Errorf("the cookie's value is stored as a key (%d rows, %v); want only its digest", stored, err)
	}
	if err := gb.End(with(mine.Value)); err != nil {
		t.Fatal(err)
	}
	if valid(t, ga, with(mine.Value)) {
		t.Error("a session ended on one process still passes on the other")
	}
	if !valid(t, ga, with(yours.Value)) {
		t.Error("ending one session ended another")
	}
	if valid(t, ga, with("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")) {
		t.Error("a session id never issued passes")
	}
	clk = clk.Add(time.Hour)
	if valid(t, gb, with(yours.Value)) {
		t.Error("an expired session passes")
	}
	// The expired session's row goes at the next login (the database's
	// clock, an hour behind this test's, has it expire now).
	if _, err := a.pool.Exec(context.Background(), "UPDATE sessions SET expires_at = now() - interval '1 second'"); err != nil {
		t.Fatal(err)
	}
	if _, err := ga.Session(false); err != nil {
		t.Fatal(err)
	}
	var left int
	if err := a.pool.QueryRow(context.Background(), "SELECT count(*) FROM sessions").Scan(&left); err != nil || left != 1 {
		t.Errorf("got %d sessions after a login (%v), want only the new one", left, err)
	}
	// A database that cannot be reached refuses the session, and says so
	// to whoever asks for it, opens or ends one.
	b.Close()
	if ok, err := gb.ValidSession(with(yours.Value)); ok || err == nil {
		t.Errorf("a session while its database is closed: got %v, %v; want an error", ok, err)
	}
	if _, err := gb.Session(false); err == nil {
		t.Error("a login succeeded without its database")
	}
	if err := gb.End(with(yours.Value)); err == nil {
		t.Error("a logout succeeded without its database")
	}
}
