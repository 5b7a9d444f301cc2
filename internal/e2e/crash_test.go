package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestCrashLosesNothing kills the server with SIGKILL at random moments of
// an upload (while receiving, reading or committing it) and restarts it:
// every data set that was acknowledged is still there and readable, none is
// half present, and no staging file is left.
func TestCrashLosesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills the server many times")
	}
	dir := t.TempDir()
	yeast := mustRead(t, sharedFile(t, "yeast/yeast.csv"))
	// About 24 MB: yeast's rows ten times over, so an upload takes long
	// enough to be killed in every phase.
	header, rows, _ := bytes.Cut(yeast, []byte("\n"))
	big := append(append(bytes.Clone(header), '\n'), bytes.Repeat(rows, 10)...)

	a := start(t, dir)
	acked := map[string]bool{}
	if d, code := a.upload("yeast.csv", yeast); code != http.StatusCreated {
		t.Fatalf("yeast: got %d", code)
	} else {
		acked[d.ID] = true
	}
	rng := rand.New(rand.NewPCG(7, 7))
	const rounds = 8
	for round := range rounds {
		delay := time.Duration(rng.IntN(600)) * time.Millisecond
		result := make(chan string, 1)
		go func() {
			resp, err := http.DefaultClient.Do(uploadRequest(context.Background(), a.url, "big.csv", bytes.NewReader(big)))
			if err != nil {
				result <- ""
				return
			}
			defer resp.Body.Close()
			var d datasetInfo
			if resp.StatusCode != http.StatusCreated || json.NewDecoder(resp.Body).Decode(&d) != nil {
				result <- ""
				return
			}
			result <- d.ID
		}()
		time.Sleep(delay)
		a.kill()
		if id := <-result; id != "" {
			acked[id] = true
		}
		a = start(t, dir)
		list := a.datasets()
		var ids []string
		for _, d := range list {
			ids = append(ids, d.ID)
			// Committed but not acknowledged (killed between commit and
			// answer) is fine; from now on it must stay.
			acked[d.ID] = true
			resp, err := http.Get(a.url + "/api/datasets/" + d.ID + "/data.csv")
			if err != nil {
				t.Fatal(err)
			}
			n, _ := io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || n == 0 || (d.Rows != 2417 && d.Rows != 24170) {
				t.Errorf("round %d: data set %s (%d rows) is not readable: status %d, %d bytes", round, d.ID, d.Rows, resp.StatusCode, n)
			}
		}
		for id := range acked {
			if !slices.Contains(ids, id) {
				t.Errorf("round %d (killed after %v): acknowledged data set %s was lost", round, delay, id)
			}
		}
		if left := dirNames(t, filepath.Join(dir, "tmp")); len(left) > 0 {
			t.Errorf("round %d: staging files left after restart: %v", round, left)
		}
		onDisk := dirNames(t, filepath.Join(dir, "datasets"))
		slices.Sort(onDisk)
		slices.Sort(ids)
		if !slices.Equal(onDisk, ids) {
			t.Errorf("round %d: data set directories %v, want exactly the listed %v", round, onDisk, ids)
		}
	}
	t.Logf("%d SIGKILLs during uploads; %d data sets acknowledged or committed, all present after every restart", rounds, len(acked))
	if err := a.stop(); err != nil {
		t.Errorf("graceful stop: %v\n%s", err, a.logs)
	}
}
