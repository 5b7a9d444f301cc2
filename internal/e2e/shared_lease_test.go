package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"mldr/internal/pgtest"
)

// riverStates are the states of the River entries of job id, in the order
// they were made.
func riverStates(ctx context.Context, t *testing.T, dsn, id string) string {
	t.Helper()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var s string
	if err := conn.QueryRow(ctx, `SELECT coalesce(string_agg(state::text, ',' ORDER BY id), '')
		FROM river_job WHERE kind = 'mldr_job' AND args->>'id' = $1`, id).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

// runningOn waits until one of workers runs job id, and returns it.
func runningOn(ctx context.Context, t *testing.T, id string, workers ...*app) *app {
	t.Helper()
	for {
		for _, w := range workers {
			if slices.Contains(w.workerHealth(ctx, t).Running, id) {
				return w
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no worker process ran job %s in time", id)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// resultDir is what identifies a job's result directory on disk: its
// inode and modification time, which a replacement would change.
func resultDir(t *testing.T, dir, id string) string {
	t.Helper()
	st, err := os.Stat(filepath.Join(dir, "jobs", id))
	if err != nil {
		t.Fatal(err)
	}
	sys, _ := st.Sys().(*syscall.Stat_t)
	if sys == nil {
		t.Fatal("no inode to compare on this system")
	}
	return fmt.Sprintf("inode %d, modified %v", sys.Ino, st.ModTime())
}

// A worker process frozen (SIGSTOP) mid-job past its lease (-lease 4s)
// loses the job to the other worker, which runs it under attempt 2 and
// records it succeeded; when the frozen one is thawed (SIGCONT), its run,
// whose worker child finished meanwhile, ends without writing anything:
// the record, the result directory and metrics.json stay the other's,
// its sealed results are discarded, and the job's first River entry
// stays discarded (River's completion of it changes nothing) beside the
// second, completed. The job succeeded exactly once.
func TestSharedFrozenWorkerLosesItsJob(t *testing.T) {
	dsn := pgtest.NewDB(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	bin := withHooks.binary(t)
	env := []string{"MLDR_TEST_JOB_DELAY=2s"} // so that the freeze finds the job running
	lease := []string{"-database", dsn, "-lease", "4s"}
	web := startWith(t, bin, env, dir, append(lease, "-role", "web")...)
	workers := []*app{
		startWith(t, bin, env, dir, append(lease, "-role", "worker", "-workers", "1")...),
		startWith(t, bin, env, dir, append(lease, "-role", "worker", "-workers", "1")...),
	}
	ds, code := web.upload("shared.csv", sharedCSV(150))
	if code != 201 {
		t.Fatalf("upload: got status %d, want 201", code)
	}
	id := jtSubmit(ctx, t, web, sharedRequests(ds.ID)[0])
	frozen := runningOn(ctx, t, id, workers...)
	if err := frozen.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { frozen.cmd.Process.Signal(syscall.SIGCONT) })
	froze := time.Now()
	j := jtPoll(ctx, t, web, id, "success on the other worker", func(j jtJob) bool { return j.Status == "succeeded" })
	took := time.Since(froze)
	if j.Attempts != 2 {
		t.Errorf("the job: got %d attempts, want 2 (the frozen worker's, then the other's)", j.Attempts)
	}
	record := jtGet(ctx, t, web.url+"/api/jobs/"+id)
	metrics := jtGet(ctx, t, web.url+"/api/jobs/"+id+"/metrics.json")
	jtWantStatus(t, "metrics.json", metrics, 200)
	onDisk := resultDir(t, dir, id)

	if err := frozen.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	thawed := time.Now()
	for !strings.Contains(frozen.logText(), "a run whose job was taken back by another process ended") || len(frozen.workerHealth(ctx, t).Running) > 0 {
		if time.Since(thawed) > 30*time.Second {
			t.Fatalf("the thawed worker did not end its run within 30 s:\n%s", frozen.logText())
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("SIGSTOP → job succeeded on the other worker in %v (-lease 4s); the thawed worker ended its run %v after SIGCONT",
		took.Round(10*time.Millisecond), time.Since(thawed).Round(10*time.Millisecond))
	if again := jtGet(ctx, t, web.url+"/api/jobs/"+id); !bytes.Equal(again.Body, record.Body) {
		t.Errorf("the record after the thaw:\ngot  %s\nwant %s", again.Body, record.Body)
	}
	if again := jtGet(ctx, t, web.url+"/api/jobs/"+id+"/metrics.json"); !bytes.Equal(again.Body, metrics.Body) {
		t.Errorf("metrics.json changed after the thaw")
	}
	if got := resultDir(t, dir, id); got != onDisk {
		t.Errorf("the result directory after the thaw: got %s, want %s, not replaced", got, onDisk)
	}
	// River completes the second entry shortly after its run recorded the
	// job.
	for got := riverStates(ctx, t, dsn, id); got != "discarded,completed"; got = riverStates(ctx, t, dsn, id) {
		if time.Since(thawed) > 30*time.Second {
			t.Fatalf("the job's River entries: got %s, want discarded,completed", got)
		}
		time.Sleep(50 * time.Millisecond)
	}
	sealed, _ := filepath.Glob(filepath.Join(dir, "tmp", "*", "sealed-*"))
	if len(sealed) > 0 {
		t.Errorf("sealed results left in staging: %v", sealed)
	}
	if list := jtListJobs(ctx, t, web); len(list) != 1 || list[0].Status != "succeeded" {
		t.Errorf("jobs listed: got %+v, want the one job, succeeded", list)
	}
	for _, p := range append([]*app{web}, workers...) {
		if err := p.stop(); err != nil {
			t.Errorf("stopping a process: %v\n%s", err, p.logText())
		}
	}
}
