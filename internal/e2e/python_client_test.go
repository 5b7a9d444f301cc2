package e2e

import (
	"context"
	"crypto/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestPythonClient runs clients/python/test_mldr.py against the real
// binary, started with an access token: uploads of emotions as CSV and as
// ARFF with its XML label file, a job and a study, their results read
// through the client and checked against the files downloaded without it
// and loaded with numpy, transform against (x − means)·P, and refusals
// carrying the server's sentence. The script runs twice: with numpy, and
// with MLDR_CLIENT_NO_NUMPY=1, the client's pure-Python path. It needs
// Debian's /usr/bin/python3 with python3-numpy and ../shared's emotions;
// without them it is skipped, unless MLDR_REQUIRE_SHARED=1 (CI).
func TestPythonClient(t *testing.T) {
	var emotions string
	for _, f := range []string{"emotions-train.csv", "emotions-test.csv", "emotions-test.arff", "emotions.xml"} {
		emotions = filepath.Dir(sharedFile(t, "emotions/"+f))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if !jtHasNumpy(ctx) {
		if os.Getenv("MLDR_REQUIRE_SHARED") == "1" {
			t.Fatal("/usr/bin/python3 with numpy is missing (MLDR_REQUIRE_SHARED=1); scripts/test installs Debian's python3-numpy")
		}
		t.Skip("/usr/bin/python3 with numpy is not available")
	}
	script, err := filepath.Abs(filepath.Join("..", "..", "clients", "python", "test_mldr.py"))
	if err != nil {
		t.Fatal(err)
	}
	token := rand.Text()
	a := startWith(t, binary(t), []string{"MLDR_TOKEN=" + token}, t.TempDir(), "-workers", "1")

	ran := regexp.MustCompile(`(?m)^Ran (\d+) tests? in `)
	for _, c := range []struct{ name, noNumpy string }{{"numpy", "0"}, {"pure", "1"}} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.CommandContext(ctx, "/usr/bin/python3", script, "-v")
			cmd.Env = append(os.Environ(),
				"MLDR_TEST_URL="+a.url, "MLDR_TEST_TOKEN="+token, "MLDR_TEST_EMOTIONS="+emotions,
				"MLDR_CLIENT_NO_NUMPY="+c.noNumpy, "MLDR_TOKEN=",
				"NO_PROXY=127.0.0.1", "no_proxy=127.0.0.1", "PYTHONDONTWRITEBYTECODE=1")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("test_mldr.py: %v\n%s\nserver log:\n%s", err, out, a.logText())
			}
			text := string(out)
			m := ran.FindStringSubmatch(text)
			if m == nil || !strings.Contains(text, "\nOK") || strings.Contains(text, "skipped") {
				t.Fatalf("test_mldr.py: got no clean run (every test run, none skipped):\n%s", out)
			}
			t.Logf("test_mldr.py (MLDR_CLIENT_NO_NUMPY=%s): %s tests passed", c.noNumpy, m[1])
		})
	}
}
