//go:build testhooks

package main

import (
	"context"
	"os"
	"slices"
	"strconv"
	"time"

	"mldr/internal/jobs"
	"mldr/internal/store"
	"mldr/internal/worker"
)

// testHooks makes a worker of a test build (go build -tags testhooks)
// misbehave on purpose, for the end-to-end tests of worker deaths
// (internal/e2e): a job whose methods include MLDR_TEST_GROW_METHOD holds
// ever more memory, past any estimate, and one that includes
// MLDR_TEST_HOLD_METHOD waits until it is canceled; MLDR_TEST_JOB_DELAY
// (a duration) makes every other job wait that long before it runs, so
// that a test can kill a process mid-job. Production builds have no such
// code (testhooks_off.go).
func testHooks(run worker.Run, getenv func(string) string) worker.Run {
	grow, hold := getenv("MLDR_TEST_GROW_METHOD"), getenv("MLDR_TEST_HOLD_METHOD")
	delay, _ := time.ParseDuration(getenv("MLDR_TEST_JOB_DELAY"))
	return func(ctx context.Context, job jobs.Job, recs map[string]store.DatasetRecord, report jobs.Report) ([]string, error) {
		ids := job.Request.MethodIDs()
		if delay > 0 && !slices.Contains(ids, hold) {
			report(0.01, "delayed", "pid "+strconv.Itoa(os.Getpid()))
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(delay):
			}
		}
		switch {
		case grow != "" && slices.Contains(ids, grow):
			report(0.1, "growing", "")
			var held [][]byte
			for ctx.Err() == nil {
				b := make([]byte, 16<<20)
				for i := range b {
					b[i] = 1
				}
				held = append(held, b)
			}
			return nil, ctx.Err()
		case hold != "" && slices.Contains(ids, hold):
			report(0.1, "holding", "pid "+strconv.Itoa(os.Getpid()))
			<-ctx.Done()
			return nil, ctx.Err()
		}
		return run(ctx, job, recs, report)
	}
}
