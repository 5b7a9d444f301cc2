package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"
)

// build is a binary of the webapp built once per test run.
type build struct {
	tags string
	once sync.Once
	path string
	err  error
}

var (
	release = &build{}
	// withHooks is a test build whose workers can be made to misbehave
	// (cmd/webapp/testhooks_on.go).
	withHooks = &build{tags: "testhooks"}
)

func (b *build) binary(t *testing.T) string {
	t.Helper()
	b.once.Do(func() {
		dir, err := os.MkdirTemp("", "mldr-e2e-bin-")
		if err != nil {
			b.err = err
			return
		}
		b.path = filepath.Join(dir, "webapp")
		out, err := exec.Command("go", "build", "-tags", b.tags, "-o", b.path, "mldr/cmd/webapp").CombinedOutput()
		if err != nil {
			b.err = fmt.Errorf("go build -tags %q: %v\n%s", b.tags, err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// binary builds the webapp once per test run.
func binary(t *testing.T) string { return release.binary(t) }

// app is one running webapp process.
type app struct {
	t      *testing.T
	cmd    *exec.Cmd
	url    string
	dir    string
	logs   *bytes.Buffer // written as the process runs: read it with logText
	logsMu *sync.Mutex
	done   chan error
}

// logText is what the process has logged so far.
func (a *app) logText() string {
	a.logsMu.Lock()
	defer a.logsMu.Unlock()
	return a.logs.String()
}

var listening = regexp.MustCompile(`url=http://([^ ]+)/`)

// start runs the binary on a free loopback port over dataDir and waits
// until /healthz answers.
func start(t *testing.T, dataDir string, args ...string) *app {
	t.Helper()
	return startWith(t, binary(t), nil, dataDir, args...)
}

// startWith runs bin with env added to the environment, as start does.
func startWith(t *testing.T, bin string, env []string, dataDir string, args ...string) *app {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"-addr", "127.0.0.1:0", "-data-dir", dataDir}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	a := &app{t: t, cmd: cmd, dir: dataDir, logs: &bytes.Buffer{}, logsMu: &sync.Mutex{}, done: make(chan error, 1)}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			a.logsMu.Lock()
			a.logs.WriteString(sc.Text() + "\n")
			a.logsMu.Unlock()
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case addr <- m[1]:
				default:
				}
			}
		}
	}()
	go func() { a.done <- cmd.Wait() }()
	select {
	case x := <-addr:
		a.url = "http://" + x
	case err := <-a.done:
		t.Fatalf("the server exited before listening: %v\n%s", err, a.logs)
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("the server did not start within 30 s\n%s", a.logs)
	}
	t.Cleanup(func() { a.kill() })
	if resp, err := http.Get(a.url + "/healthz"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("healthz: %v %v", err, resp)
	}
	return a
}

// kill stops the process with SIGKILL, as a crash would.
func (a *app) kill() {
	if a.cmd.ProcessState != nil {
		return
	}
	a.cmd.Process.Kill()
	select {
	case <-a.done:
	case <-time.After(10 * time.Second):
		a.t.Errorf("the server did not die within 10 s of SIGKILL")
	}
}

// stop asks for a graceful shutdown with SIGTERM and waits for it.
func (a *app) stop() error {
	a.cmd.Process.Signal(os.Interrupt)
	select {
	case err := <-a.done:
		return err
	case <-time.After(20 * time.Second):
		return fmt.Errorf("no exit within 20 s of SIGINT")
	}
}

type datasetInfo struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Rows     int    `json:"rows"`
	Features int    `json:"features"`
	SHA256   string `json:"sha256"`
}

func (a *app) datasets() []datasetInfo {
	a.t.Helper()
	resp, err := http.Get(a.url + "/api/datasets")
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out []datasetInfo
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		a.t.Fatal(err)
	}
	return out
}

// uploadRequest builds a multipart upload request whose file comes from r.
func uploadRequest(ctx context.Context, url, name string, r io.Reader) *http.Request {
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		w, err := mw.CreateFormFile("file", name)
		if err == nil {
			_, err = io.Copy(w, r)
		}
		if err == nil {
			err = mw.Close()
		}
		pw.CloseWithError(err)
	}()
	req, _ := http.NewRequestWithContext(ctx, "POST", url+"/api/datasets", pr)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return req
}

func (a *app) upload(name string, body []byte) (datasetInfo, int) {
	a.t.Helper()
	resp, err := http.DefaultClient.Do(uploadRequest(context.Background(), a.url, name, bytes.NewReader(body)))
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	var d datasetInfo
	json.NewDecoder(resp.Body).Decode(&d)
	return d, resp.StatusCode
}

func sharedFile(t *testing.T, rel string) string {
	t.Helper()
	p, _ := filepath.Abs(filepath.Join("..", "..", "..", "shared", "datasets", rel))
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("MLDR_REQUIRE_SHARED") == "1" {
			t.Fatalf("%s is missing (MLDR_REQUIRE_SHARED=1): clone ../shared beside the project", p)
		}
		t.Skipf("%s not present", p)
	}
	return p
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// dirNames lists the entries of a directory.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}
