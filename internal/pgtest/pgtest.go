// Package pgtest gives tests a real PostgreSQL: one throwaway cluster per
// test binary, started by Main from TestMain, and a fresh database per test
// from NewDB.
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
//
//	func TestX(t *testing.T) {
//		dsn := pgtest.NewDB(t) // skips (or fails) without PostgreSQL
//		...
//	}
//
// The cluster is Debian's PostgreSQL (package postgresql; the binaries in
// /usr/lib/postgresql/<version>/bin, the newest version found): initdb and
// pg_ctl in a fresh temporary directory, on a free loopback port with its
// unix socket in that directory, fsync off, trust authentication on
// loopback only. PostgreSQL refuses to run as root, so a test run as root
// runs it as the Debian postgres system user; otherwise as the current
// user. The cluster is stopped and its directory removed when the test
// binary ends; a cluster left behind by a test binary that was killed is
// removed by the next Main.
//
// Without PostgreSQL, NewDB skips the test with a message saying how to
// install it, unless MLDR_REQUIRE_POSTGRES=1 (as in CI), when it fails it.
package pgtest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// RequireEnv is the environment variable that turns a missing PostgreSQL
// from a skip into a failure when it is "1".
const RequireEnv = "MLDR_REQUIRE_POSTGRES"

// errNotInstalled says that no PostgreSQL was found.
var errNotInstalled = errors.New("PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb)")

// dirPrefix starts the name of every cluster's temporary directory.
const dirPrefix = "mldr-pgtest-"

// Cluster is a running throwaway PostgreSQL cluster.
type Cluster struct {
	dir  string // the temporary directory: data/, the socket, log, owner.pid
	bin  string // the directory of initdb, pg_ctl, postgres
	port int
	opts string              // the server's options (pg_ctl -o)
	cred *syscall.Credential // the user the server runs as; nil: this process's
	next atomic.Int64        // the number of the next database NewDB makes
}

// Dir returns the cluster's temporary directory.
func (c *Cluster) Dir() string { return c.dir }

// Port returns the loopback TCP port the cluster listens on.
func (c *Cluster) Port() int { return c.port }

// DSN returns the URL of database db on the cluster, as its superuser.
func (c *Cluster) DSN(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", c.port, db)
}

// binDir finds the newest installed PostgreSQL's bin directory.
func binDir() (string, error) {
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(found) == 0 {
		return "", errNotInstalled
	}
	version := func(p string) int {
		v, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(p))))
		return v
	}
	slices.SortFunc(found, func(a, b string) int { return cmp.Compare(version(a), version(b)) })
	return filepath.Dir(found[len(found)-1]), nil
}

// serverUser is the credential to run the server with: the postgres
// system user when this process is root, nil (this process's user)
// otherwise.
func serverUser() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("running as root, PostgreSQL needs the unprivileged postgres system user, which is missing (%v): apt-get install postgresql creates it", err)
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err := errors.Join(err1, err2); err != nil {
		return nil, fmt.Errorf("reading the postgres user's ids: %w", err)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// Start starts a new cluster in a fresh temporary directory. The caller
// stops it with Stop.
func Start() (_ *Cluster, err error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	cred, err := serverUser()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", dirPrefix)
	if err != nil {
		return nil, fmt.Errorf("starting PostgreSQL: %w", err)
	}
	c := &Cluster{dir: dir, bin: bin, cred: cred}
	defer func() {
		if err != nil {
			c.Stop()
		}
	}()
	if err := os.WriteFile(filepath.Join(dir, "owner.pid"), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		return nil, fmt.Errorf("starting PostgreSQL: %w", err)
	}
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			return nil, fmt.Errorf("starting PostgreSQL: giving %s to the postgres user: %w", dir, err)
		}
	}
	if err := c.command("initdb", "-D", c.data(), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"); err != nil {
		return nil, err
	}
	// The free port may be taken between the probe and the start: try a
	// few.
	for attempt := 0; ; attempt++ {
		if c.port, err = freePort(); err != nil {
			return nil, fmt.Errorf("starting PostgreSQL: finding a free port: %w", err)
		}
		c.opts = fmt.Sprintf("-p %d -c listen_addresses=127.0.0.1 -c unix_socket_directories=%s -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200", c.port, dir)
		err = c.StartServer()
		if err == nil || attempt == 2 {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%w\nserver log:\n%s", err, c.logTail())
	}
	return c, nil
}

func (c *Cluster) data() string { return filepath.Join(c.dir, "data") }

// StartServer starts the cluster's server on its port; Start does, and a
// test that stopped it (StopServer) starts it again so.
func (c *Cluster) StartServer() error {
	return c.command("pg_ctl", "-D", c.data(), "-l", filepath.Join(c.dir, "log"), "-w", "-t", "60", "-o", c.opts, "start")
}

// StopServer stops the server as an administrator would (a fast
// shutdown: its sessions end at once), keeping its data for StartServer.
func (c *Cluster) StopServer() error {
	return c.command("pg_ctl", "-D", c.data(), "-m", "fast", "-w", "-t", "60", "stop")
}

// Pause freezes the server with SIGSTOP, its postmaster first, then
// every process it started, as a machine that stopped answering would
// be: connections stay open and nothing answers on them, and new ones
// are accepted by the kernel but never greeted. Resume thaws it.
func (c *Cluster) Pause() error {
	pm, err := c.postmaster()
	if err != nil {
		return err
	}
	if err := syscall.Kill(pm, syscall.SIGSTOP); err != nil {
		return fmt.Errorf("pausing PostgreSQL: %w", err)
	}
	// The postmaster, stopped, starts no process any more.
	return c.signalChildren(pm, syscall.SIGSTOP)
}

// Resume thaws a server Pause froze.
func (c *Cluster) Resume() error {
	pm, err := c.postmaster()
	if err != nil {
		return err
	}
	if err := c.signalChildren(pm, syscall.SIGCONT); err != nil {
		return err
	}
	if err := syscall.Kill(pm, syscall.SIGCONT); err != nil {
		return fmt.Errorf("resuming PostgreSQL: %w", err)
	}
	return nil
}

// postmaster returns the pid of the server's postmaster, the first line
// of its postmaster.pid.
func (c *Cluster) postmaster() (int, error) {
	b, err := os.ReadFile(filepath.Join(c.data(), "postmaster.pid"))
	if err != nil {
		return 0, fmt.Errorf("finding PostgreSQL's postmaster: %w", err)
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("finding PostgreSQL's postmaster: postmaster.pid begins with %q", first)
	}
	return pid, nil
}

// signalChildren sends sig to every process whose parent is pid (Linux:
// /proc/<pid>/stat).
func (c *Cluster) signalChildren(pid int, sig syscall.Signal) error {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return fmt.Errorf("listing PostgreSQL's processes: %w", err)
	}
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // ended meanwhile
		}
		// pid (comm) state ppid …: comm may hold spaces and parentheses.
		i := strings.LastIndexByte(string(b), ')')
		fields := strings.Fields(string(b[i+1:]))
		if i < 0 || len(fields) < 2 || fields[1] != strconv.Itoa(pid) {
			continue
		}
		if err := syscall.Kill(child, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
			return fmt.Errorf("signalling PostgreSQL's process %d: %w", child, err)
		}
	}
	return nil
}

// command runs one of PostgreSQL's programs as the server's user.
func (c *Cluster) command(name string, args ...string) error {
	cmd := exec.Command(filepath.Join(c.bin, name), args...)
	cmd.Dir = c.dir
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	if c.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("PostgreSQL's %s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return nil
}

// logTail is the end of the server's log, for an error.
func (c *Cluster) logTail() string {
	b, _ := os.ReadFile(filepath.Join(c.dir, "log"))
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// Stop stops the server at once (its data are thrown away) and removes the
// cluster's directory.
func (c *Cluster) Stop() error {
	var err error
	if _, statErr := os.Stat(filepath.Join(c.data(), "postmaster.pid")); statErr == nil {
		err = c.command("pg_ctl", "-D", c.data(), "-m", "immediate", "-w", "stop")
	}
	if rmErr := os.RemoveAll(c.dir); rmErr != nil {
		err = errors.Join(err, fmt.Errorf("removing the cluster's directory: %w", rmErr))
	}
	return err
}

// CreateDB creates a database and returns its URL.
func (c *Cluster) CreateDB(ctx context.Context, name string) (string, error) {
	if err := c.admin(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		return "", fmt.Errorf("creating database %s: %w", name, err)
	}
	return c.DSN(name), nil
}

// DropDB drops a database, ending its sessions.
func (c *Cluster) DropDB(ctx context.Context, name string) error {
	if err := c.admin(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
		return fmt.Errorf("dropping database %s: %w", name, err)
	}
	return nil
}

// admin runs one statement on the cluster's postgres database.
func (c *Cluster) admin(ctx context.Context, sql string) error {
	conn, err := pgx.Connect(ctx, c.DSN("postgres"))
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, sql)
	return err
}

// freePort returns a loopback TCP port that was free a moment ago.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// removeAbandoned stops and removes the clusters of test binaries that
// are no longer running (killed before their Main could clean up).
func removeAbandoned() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), dirPrefix+"*"))
	for _, dir := range dirs {
		b, err := os.ReadFile(filepath.Join(dir, "owner.pid"))
		if err != nil {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || pid <= 0 || alive(pid) {
			continue
		}
		bin, err := binDir()
		if err != nil {
			return
		}
		cred, _ := serverUser()
		c := &Cluster{dir: dir, bin: bin, cred: cred}
		c.Stop()
	}
}

// alive reports whether process pid exists.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// shared is the cluster of this test binary, which Main starts; NewDB
// reads it. It is the package's one variable, set once before the tests
// run.
var shared struct {
	once    sync.Once
	cluster *Cluster
	err     error // why there is no cluster
}

// Main runs the tests of a package binary with a throwaway cluster, then
// stops and removes it, and exits with the tests' code. Call it from
// TestMain. If the cluster cannot be started, the tests still run and
// NewDB skips (or fails) with the reason.
func Main(m *testing.M) {
	removeAbandoned()
	shared.once.Do(func() { shared.cluster, shared.err = Start() })
	code := m.Run()
	if shared.cluster != nil {
		if err := shared.cluster.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "pgtest: stopping the throwaway PostgreSQL:", err)
			if code == 0 {
				code = 1
			}
		}
	}
	os.Exit(code)
}

// Available returns the cluster Main started, or skips t (fails it when
// MLDR_REQUIRE_POSTGRES=1) with the reason there is none.
func Available(t testing.TB) *Cluster {
	t.Helper()
	if shared.cluster != nil {
		return shared.cluster
	}
	reason := shared.err
	if reason == nil {
		reason = errors.New("pgtest.Main did not run: call it from the package's TestMain")
	}
	if os.Getenv(RequireEnv) == "1" {
		if errors.Is(reason, errNotInstalled) {
			t.Fatalf("%v: apt-get install postgresql, or set %s=0 to skip the tests that need it", reason, RequireEnv)
		}
		t.Fatalf("PostgreSQL is required (%s=1) but could not be started: %v", RequireEnv, reason)
	}
	if errors.Is(reason, errNotInstalled) {
		t.Skipf("skipping: %v; apt-get install postgresql to run this test (%s=1 makes this a failure)", reason, RequireEnv)
	}
	t.Skipf("skipping: PostgreSQL could not be started: %v (%s=1 makes this a failure)", reason, RequireEnv)
	return nil
}

// NewCluster starts a cluster of the test's own, stopped and removed when
// the test ends, for a test that stops, pauses or restarts its server
// (StopServer, Pause), which would disturb the other tests on the shared
// one; a cluster takes a second or two to make, so other tests use
// NewDB. Without PostgreSQL it skips t, or fails it when
// MLDR_REQUIRE_POSTGRES=1.
func NewCluster(t testing.TB) *Cluster {
	t.Helper()
	Available(t)
	c, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Resume() // a test that failed while the server was paused
		if err := c.Stop(); err != nil {
			t.Errorf("pgtest: %v", err)
		}
	})
	return c
}

// NewDB creates a fresh database on the cluster Main started and returns
// its URL; the database is dropped when the test ends. Without a cluster
// it skips t, or fails it when MLDR_REQUIRE_POSTGRES=1.
func NewDB(t testing.TB) string {
	t.Helper()
	c := Available(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	name := fmt.Sprintf("t_%d", c.next.Add(1))
	dsn, err := c.CreateDB(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := c.DropDB(ctx, name); err != nil {
			t.Errorf("pgtest: %v", err)
		}
	})
	return dsn
}
