package e2e

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"mldr/internal/pgtest"
)

// TestSharedOutOfCoreAcrossWorkers runs, in the shared mode (one web and
// two worker processes of the real binary on one database and data
// directory), a job on a data set of 4 row shards that does not fit in a
// worker's -max-job-memory: its statistics are formed by shard tasks,
// one River job per method and shard, on both worker processes, and the
// job's results equal those of the same job in memory (the embedded
// mode, no limit, on a data directory of its own).
func TestSharedOutOfCoreAcrossWorkers(t *testing.T) {
	if testing.Short() {
		t.Skip("uploads and fits 170 MiB of data twice")
	}
	dsn := pgtest.NewDB(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dir := t.TempDir()
	bin := binary(t)
	flags := []string{"-database", dsn, "-max-job-memory", "160MiB", "-shard-size", "44MiB"}
	web := startWith(t, bin, nil, dir, append(flags, "-role", "web")...)
	for range 2 {
		startWith(t, bin, nil, dir, append(flags, "-role", "worker", "-workers", "1")...)
	}
	body := oocDataCSV(124000, 170, 10)
	d, status := web.upload("ooc.csv", body)
	if status != http.StatusCreated {
		t.Fatalf("upload: got %d, want 201", status)
	}
	req := map[string]any{"dataset": d.ID, "methods": []string{"pca", "mddmp"}, "params": map[string]any{"d": 5}}
	id := jtSubmit(ctx, t, web, req)
	j := jtPoll(ctx, t, web, id, "the out-of-core job ends", func(j jtJob) bool { return jtTerminal(j.Status) })
	if j.Status != "succeeded" {
		t.Fatalf("out-of-core job: got %s %q, want succeeded", j.Status, j.Error)
	}
	notes := strings.Join(j.Notes, "\n")
	for _, want := range []string{"fitted out of core, one of the data set's 4 row shards at a time",
		"8 of the 8 statistics passes (one per method and row shard) were formed by shard tasks"} {
		if !strings.Contains(notes, want) {
			t.Errorf("out-of-core job: got notes %q, want one saying %q", j.Notes, want)
		}
	}
	var done, workers int
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	err = conn.QueryRow(ctx, `SELECT count(*) FILTER (WHERE state = 'completed'),
		count(DISTINCT attempted_by[array_length(attempted_by, 1)]) FROM river_job WHERE kind = 'mldr_shard'`).Scan(&done, &workers)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d shard tasks completed on %d worker processes", done, workers)
	if done != 8 || workers != 2 {
		t.Errorf("shard tasks: got %d completed on %d worker processes, want 8 on both", done, workers)
	}
	got := oocJobResults(ctx, t, web, id)
	if names := dirNames(t, dir+"/partials"); len(names) != 0 {
		t.Errorf("partial statistics left after the job: %v", names)
	}

	b := start(t, t.TempDir(), "-workers", "1", "-max-job-memory", "0")
	d2, status := b.upload("ooc.csv", body)
	if status != http.StatusCreated {
		t.Fatalf("upload (embedded): got %d, want 201", status)
	}
	req["dataset"] = d2.ID
	id2 := jtSubmit(ctx, t, b, req)
	j = jtPoll(ctx, t, b, id2, "the in-memory job ends", func(j jtJob) bool { return jtTerminal(j.Status) })
	if j.Status != "succeeded" || strings.Contains(strings.Join(j.Notes, " "), "out of core") {
		t.Fatalf("in-memory job: got %s %q, notes %q; want succeeded in memory", j.Status, j.Error, j.Notes)
	}
	oocCompare(t, got, oocJobResults(ctx, t, b, id2), 124000)
}
