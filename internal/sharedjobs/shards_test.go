package sharedjobs

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"mldr/internal/jobs"
)

// shardLog records what the executors of several processes were given.
type shardLog struct {
	mu    sync.Mutex
	tasks map[string][]jobs.ShardTask // by process
	main  []string                    // what each run of a job saw: "<process> after <n> tasks"
}

func (l *shardLog) executor(process string, block <-chan struct{}) jobs.Work {
	return func(ctx context.Context, j jobs.Job, report jobs.Report) ([]string, error) {
		if j.Task != nil {
			if block != nil {
				select {
				case <-block:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			l.mu.Lock()
			l.tasks[process] = append(l.tasks[process], *j.Task)
			l.mu.Unlock()
			return nil, nil
		}
		l.mu.Lock()
		n := 0
		for _, ts := range l.tasks {
			n += len(ts)
		}
		l.main = append(l.main, fmt.Sprintf("%s after %d tasks", process, n))
		l.mu.Unlock()
		report(0.9, "writing pca", "")
		return []string{"solved"}, nil
	}
}

// six shard tasks: two methods, three shards, of the attempt given.
func sixTasks(j jobs.Job, attempt int) ([]jobs.ShardTask, error) {
	var out []jobs.ShardTask
	for k := range 2 {
		for s := range 3 {
			out = append(out, jobs.ShardTask{Attempt: attempt, Method: k, Shard: s})
		}
	}
	return out, nil
}

// An out-of-core job's shard tasks run on the worker processes, all of
// them before the job solves; each task carries the attempt it serves;
// the partial statistics are removed once the job has ended.
func TestShardTasksRunBeforeTheJob(t *testing.T) {
	e := newEnv(t)
	web := e.queue(t, nil, nil)
	log := &shardLog{tasks: map[string][]jobs.ShardTask{}}
	for _, p := range []string{"w1", "w2"} {
		e.queue(t, log.executor(p, nil), func(c *Config) { c.ShardTasks = sixTasks; c.Workers = 1 })
	}
	if _, err := web.Submit(id(1), req("d")); err != nil {
		t.Fatal(err)
	}
	j := waitJob(t, web, id(1), "ended", func(j jobs.Job) bool { return j.Status.Terminal() })
	if j.Status != jobs.Succeeded || fmt.Sprint(j.Notes) != "[solved]" {
		t.Fatalf("the job: got %s %q %v, want succeeded with the solve's note", j.Status, j.Error, j.Notes)
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	if len(log.main) != 1 || !slices.Contains([]string{"w1 after 6 tasks", "w2 after 6 tasks"}, log.main[0]) {
		t.Errorf("the job's runs: got %v, want one, after the 6 tasks", log.main)
	}
	var all []jobs.ShardTask
	for _, ts := range log.tasks {
		all = append(all, ts...)
	}
	slices.SortFunc(all, func(a, b jobs.ShardTask) int { return (a.Method*10 + a.Shard) - (b.Method*10 + b.Shard) })
	want, _ := sixTasks(j, 1)
	if fmt.Sprint(all) != fmt.Sprint(want) {
		t.Errorf("the shard tasks run: got %v, want each of %v once", all, want)
	}
	if got := e.res.partialsRemoved(); !slices.Contains(got, id(1)) {
		t.Errorf("partial statistics removed for %v, want job %s's", got, id(1))
	}
	var phases []string
	for _, p := range j.Phases {
		phases = append(phases, p.Name)
	}
	if want := []string{jobs.PhaseStart, jobs.PhaseFit, jobs.PhaseWrite}; fmt.Sprint(phases) != fmt.Sprint(want) {
		t.Errorf("phases: got %v, want %v (the shard tasks count in fit)", phases, want)
	}
}

// A job canceled while its shard tasks wait cancels them, and never
// solves.
func TestShardTasksCanceledWithTheJob(t *testing.T) {
	e := newEnv(t)
	web := e.queue(t, nil, nil)
	log := &shardLog{tasks: map[string][]jobs.ShardTask{}}
	block := make(chan struct{}) // never closed: the tasks wait for their context
	e.queue(t, log.executor("w1", block), func(c *Config) { c.ShardTasks = sixTasks; c.Workers = 1 })
	if _, err := web.Submit(id(1), req("d")); err != nil {
		t.Fatal(err)
	}
	waitJob(t, web, id(1), "waiting for its shard tasks", func(j jobs.Job) bool { return j.Status == jobs.Running && j.Phase == "fitting the shards' statistics" })
	if _, err := web.Cancel(id(1)); err != nil {
		t.Fatal(err)
	}
	j := waitJob(t, web, id(1), "canceled", func(j jobs.Job) bool { return j.Status.Terminal() })
	if j.Status != jobs.Canceled {
		t.Errorf("the job: got %s, want canceled", j.Status)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		var open int
		if err := e.meta.Pool().QueryRow(context.Background(), `SELECT count(*) FROM river_job WHERE kind = $1
			AND state NOT IN ('cancelled', 'completed', 'discarded')`, ShardKind).Scan(&open); err != nil {
			t.Fatal(err)
		}
		if open == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d shard tasks still open 30 s after the job was canceled, want none", open)
		}
		time.Sleep(20 * time.Millisecond)
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	if len(log.main) != 0 {
		t.Errorf("a canceled job solved: %v", log.main)
	}
}

// A shard task whose job no longer runs the attempt it serves does
// nothing.
func TestStaleShardTaskDoesNothing(t *testing.T) {
	e := newEnv(t)
	log := &shardLog{tasks: map[string][]jobs.ShardTask{}}
	q := e.queue(t, log.executor("w1", nil), func(c *Config) { c.Workers = 1 })
	if _, err := q.Submit(id(1), req("d")); err != nil {
		t.Fatal(err)
	}
	waitJob(t, q, id(1), "ended", func(j jobs.Job) bool { return j.Status.Terminal() })
	for _, a := range []shardArgs{{ID: id(1), Attempt: 1}, {ID: id(2), Attempt: 1}} {
		if err := q.runShard(context.Background(), a); err != nil {
			t.Errorf("runShard(%+v): got %v, want nil", a, err)
		}
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	if len(log.tasks) != 0 {
		t.Errorf("stale tasks ran: %v", log.tasks)
	}
}
