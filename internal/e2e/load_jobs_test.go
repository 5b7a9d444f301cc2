//go:build load

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"testing"
	"time"
)

// ldJob is how one job went.
type ldJob struct {
	id        string
	refused   int           // 429 answers to its submission
	submit    time.Duration // the accepted submission
	failure   string        // the submission failed
	streamErr string        // its event stream broke
	events    []jtJob       // its event stream
	final     jtJob         // as GET /api/jobs/{id} showed it at the end
}

// ldRunJobs releases ldJobs submissions at once, one job per data set in
// turn, follows each accepted job's events until it ends, and meanwhile
// runs ldReaders readers. With several servers (urls: web processes of
// the shared mode) job i is submitted to server i and followed on the
// next one. It returns what the readers knew at the end.
func ldRunJobs(ctx context.Context, t *testing.T, c *http.Client, urls []string, datasets []string, rep *ldReport) *ldBoard {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, ldJobWindow)
	defer cancel()
	board := &ldBoard{datasets: datasets, status: map[string]string{}}
	readers := ldStartReaders(ctx, c, urls, board)

	results := make([]ldJob, ldJobs)
	gate := make(chan struct{})
	var wg sync.WaitGroup
	for i := range ldJobs {
		wg.Go(func() {
			<-gate
			rng := rand.New(rand.NewPCG(3, uint64(i)))
			results[i] = ldJobOne(ctx, c, urls[i%len(urls)], urls[(i+1)%len(urls)], ldJobRequest(datasets[i%len(datasets)], i), board, rng)
		})
	}
	begin := time.Now()
	close(gate)
	ldWait(t, &wg, "the jobs", ldJobWindow+time.Minute)
	rep.Jobs.Wall = time.Since(begin)
	rep.Reads = readers.stop(t, "while the jobs ran")

	s := &rep.Jobs
	s.Submitted = ldJobs
	for i, j := range results {
		s.Refused += j.refused
		if j.failure != "" {
			t.Errorf("job %d: %s", i+1, j.failure)
			s.Failures++
			continue
		}
		s.Accepted++
		s.Submit = append(s.Submit, j.submit)
		if j.streamErr != "" {
			t.Errorf("job %s: its event stream: %s", j.id, j.streamErr)
		}
		jtCheckEvents(t, j.id, j.events)
		f := j.final
		if f.Status != "succeeded" {
			t.Errorf("job %s: got status %s (error %q), want succeeded", j.id, f.Status, f.Error)
			continue
		}
		s.Succeeded++
		if f.StartedAt != nil && f.FinishedAt != nil {
			s.Wait = append(s.Wait, f.StartedAt.Sub(f.CreatedAt))
			s.Run = append(s.Run, f.FinishedAt.Sub(*f.StartedAt))
			t.Logf("job %2d %s: started at +%5.1f s, ran %5.1f s", i+1, j.id, f.StartedAt.Sub(begin).Seconds(), f.FinishedAt.Sub(*f.StartedAt).Seconds())
		}
	}
	return board
}

// ldJobOne submits one job to url, trying again after each 429 (at most
// ldMaxAttempts tries), then follows its events on follow (the same
// server, or another web process of the shared mode) until it ends. It
// does not touch t.
func ldJobOne(ctx context.Context, c *http.Client, url, follow string, req map[string]any, b *ldBoard, rng *rand.Rand) ldJob {
	var j ldJob
	body, err := json.Marshal(req)
	if err != nil {
		j.failure = err.Error()
		return j
	}
	for tries := 1; ; tries++ {
		sctx, cancel := context.WithTimeout(ctx, ldReadTimeout)
		t0 := time.Now()
		r, err := ldSend(sctx, c, "POST", url+"/api/jobs", "application/json", bytes.NewReader(body), int64(len(body)))
		took := time.Since(t0)
		cancel()
		if err != nil {
			j.failure = fmt.Sprintf("POST /api/jobs, try %d: %v", tries, err)
			return j
		}
		if r.Status == http.StatusTooManyRequests {
			j.refused++
			if tries == ldMaxAttempts {
				j.failure = fmt.Sprintf("POST /api/jobs answered 429 %d times in a row", tries)
				return j
			}
			if !ldSleep(ctx, ldRetryWait(r.Header, tries, rng)) {
				j.failure = fmt.Sprintf("out of time after %d submissions answered 429", tries)
				return j
			}
			continue
		}
		var got struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		}
		if r.Status != http.StatusAccepted || json.Unmarshal(r.Body, &got) != nil || got.ID == "" {
			j.failure = fmt.Sprintf("POST /api/jobs: got status %d, want 202 or 429: %.300s", r.Status, r.Body)
			return j
		}
		j.id, j.submit = got.ID, took
		break
	}
	b.set(j.id, "queued")

	j.events, err = jtFollow(ctx, follow, j.id, func(e jtJob) { b.set(j.id, e.Status) })
	if err != nil {
		j.streamErr = err.Error()
	}
	// The job as recorded (and, if its stream broke, until it ends).
	for {
		gctx, cancel := context.WithTimeout(ctx, ldReadTimeout)
		r, err := ldSend(gctx, c, "GET", follow+"/api/jobs/"+j.id, "", nil, -1)
		cancel()
		if err == nil && r.Status == http.StatusOK && json.Unmarshal(r.Body, &j.final) == nil && jtTerminal(j.final.Status) {
			b.set(j.id, j.final.Status)
			return j
		}
		if !ldSleep(ctx, 250*time.Millisecond) {
			j.final.Status = "unfinished when the time was up (last seen " + j.final.Status + ")"
			return j
		}
	}
}
