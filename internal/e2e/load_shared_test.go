//go:build load

package e2e

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"mldr/internal/pgtest"
)

// TestLoadShared is TestLoad in the shared mode: two web processes and
// two worker processes (-workers 1 each, as many jobs at once as the
// embedded default on 2 cores) of the real binary on one throwaway
// PostgreSQL and one data directory, all on loopback. Upload i goes to
// web process i in turn, job i is submitted to one web process and its
// event stream followed on the other, and the readers alternate between
// them. Besides TestLoad's checks, both web processes must list every
// data set and every job.
//
//	MLDR_LOAD_REPORT=/tmp/load-shared.md go test -tags load -run TestLoadShared -v -count=1 ./internal/e2e/
func TestLoadShared(t *testing.T) {
	yeast, ctx, cancel := ldStart(t)
	defer cancel()

	dsn := pgtest.NewDB(t)
	dir := t.TempDir()
	bin := binary(t)
	webs := []*app{
		startWith(t, bin, nil, dir, "-database", dsn, "-role", "web"),
		startWith(t, bin, nil, dir, "-database", dsn, "-role", "web"),
	}
	workers := []*app{
		startWith(t, bin, nil, dir, "-database", dsn, "-role", "worker", "-workers", "1"),
		startWith(t, bin, nil, dir, "-database", dsn, "-role", "worker", "-workers", "1"),
	}
	urls := []string{webs[0].url, webs[1].url}

	rep := &ldReport{Started: time.Now().UTC(), Machine: ldReadMachine(ctx), MaxHWM: ldMaxHWM,
		Setup: "the shared mode: two web processes (-role web) and two worker processes (-role worker -workers 1) " +
			"of the real binary on loopback, on one throwaway PostgreSQL 15 cluster (initdb in a temporary directory) and one fresh data directory; " +
			"upload i goes to web process i in turn, job i is submitted to one web process and its event stream followed on the other, " +
			"and the readers alternate between them"}
	rep.Uploads.File, rep.Uploads.Bytes = "yeast/yeast.csv", len(yeast)
	mem := ldWatchServer(webs[0].cmd.Process.Pid, ldSampleEvery)
	client := ldClient()
	defer client.CloseIdleConnections()
	defer ldFinish(t, rep, mem, "the first web process")

	mem.phase("uploads")
	datasets := ldUploadAll(ctx, t, client, urls, yeast, &rep.Uploads)
	if len(datasets) == 0 {
		t.Fatal("no upload was accepted; no job can run")
	}
	mem.phase("jobs, with readers")
	board := ldRunJobs(ctx, t, client, urls, datasets, rep)
	for _, url := range urls {
		r, err := ldSend(ctx, client, "GET", url+"/api/jobs", "", nil, -1)
		var list []jtJob
		if err != nil || r.Status != http.StatusOK || json.Unmarshal(r.Body, &list) != nil {
			t.Fatalf("GET %s/api/jobs after the jobs: %v %d %.200s", url, err, r.Status, r.Body)
		}
		if len(list) != rep.Jobs.Accepted {
			t.Errorf("%s lists %d jobs, want the %d accepted", url, len(list), rep.Jobs.Accepted)
		}
	}
	mem.phase("reads at rest")
	readers := ldStartReaders(ctx, client, urls, board)
	ldSleep(ctx, ldRestReads)
	rep.RestReads = readers.stop(t, "at rest")
	rep.Memory = mem.stop()

	begin := time.Now()
	for _, a := range append(webs, workers...) {
		if err := a.stop(); err != nil {
			t.Errorf("stopping a process after the load: %v", err)
		}
	}
	rep.StopTime = time.Since(begin)
	jtTmpEmpty(t, webs[0], "after the load")
}
