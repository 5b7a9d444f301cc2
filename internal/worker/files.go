package worker

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"

	"mldr/internal/dataset"
	"mldr/internal/jobs"
	"mldr/internal/store"
)

// Executor returns the Run of a worker process: a jobs.Executor that
// reads data sets and writes results through the data directory's files,
// with the records the server sent for each job. Its decomposition cache
// lives as long as the worker and keeps at most a sixteenth of the
// worker's memory limit (0: no limit) between jobs.
//
// The files keep the data sets the last job read (DataCacheBudget), so
// that the next job on them reads nothing: as each job starts, those it
// does not read are dropped, so a job holds no more than its own data, as
// admission counts them. A study, which reads its data sets one after the
// other, keeps none. The data sets it keeps are mapped from their files
// (store.Files.MapData), and mappings are unmapped only as the next job
// starts (store.Files.KeepData), when the last job has ended and nothing
// refers to them.
func Executor(files *store.Files, version string, memoryLimit int64) Run {
	return executor(files, version, memoryLimit, false)
}

// SealingExecutor is Executor for the worker processes of the shared
// mode: a job's results are sealed in the staging directory
// (store.Files.SealJobResults, as the job's attempt) instead of being
// moved into place, for the server to install once it has checked that
// the attempt is still the job's (store.Store.InstallJobResults), and a
// run leaves the results of earlier runs where they are.
func SealingExecutor(files *store.Files, version string, memoryLimit int64) Run {
	return executor(files, version, memoryLimit, true)
}

func executor(files *store.Files, version string, memoryLimit int64, seal bool) Run {
	rs := &recordStore{Files: files, seal: seal}
	files.CacheData(DataCacheBudget(memoryLimit))
	if memoryLimit > 0 {
		// The data sets the cache keeps are mapped, not in the heap: the
		// garbage collector's limit leaves room for them.
		files.MapData(func(mapped int64) { debug.SetMemoryLimit(gcLimit(memoryLimit, mapped)) })
	} else {
		files.MapData(nil)
	}
	x := jobs.NewExecutorCache(rs, version, jobs.CacheBudget(memoryLimit)).WithMemoryLimit(memoryLimit)
	return func(ctx context.Context, job jobs.Job, recs map[string]store.DatasetRecord, report jobs.Report) ([]string, error) {
		rs.set(recs, job.Attempts)
		var keep []store.DatasetRecord
		if !job.Request.Study() {
			for _, rec := range recs {
				keep = append(keep, rec)
			}
		}
		files.KeepData(keep)
		return x.Execute(ctx, job, report)
	}
}

// gcLimit is the garbage collector's soft limit in a worker whose memory
// limit is limit (> 0) while mapped bytes of data files are mapped: ⅞ of
// the limit, less the mappings (they count in the resident memory the
// pool watches, as the heap does), and at least an eighth of the limit.
func gcLimit(limit, mapped int64) int64 {
	return max(limit-limit/8-mapped, limit/8)
}

// DataCacheBudget is the most a worker whose memory limit is limit (0:
// none) keeps of the data sets its last job read: a quarter of the
// limit, or 1 GiB without one.
func DataCacheBudget(limit int64) int64 {
	if limit <= 0 {
		return 1 << 30
	}
	return limit / 4
}

// recordStore is the jobs.Store of a worker: the files, and the records of
// the running job's data sets.
type recordStore struct {
	*store.Files
	seal    bool // results are sealed for the server (SealingExecutor)
	mu      sync.Mutex
	recs    map[string]store.DatasetRecord
	attempt int // the running job's
}

func (r *recordStore) set(recs map[string]store.DatasetRecord, attempt int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.recs, r.attempt = recs, attempt
}

// CommitJobResults moves the results into place, or seals them for the
// server (SealingExecutor).
func (r *recordStore) CommitJobResults(staged *store.StagedResults) error {
	if !r.seal {
		return r.Files.CommitJobResults(staged)
	}
	r.mu.Lock()
	attempt := r.attempt
	r.mu.Unlock()
	return r.Files.SealJobResults(staged, attempt)
}

// RemoveJobResults removes a job's results before it runs again, unless
// they are sealed: then the server's install replaces them, and a run
// that has lost its job must not remove the results of the run that won.
func (r *recordStore) RemoveJobResults(id string) error {
	if r.seal {
		return nil
	}
	return r.Files.RemoveJobResults(id)
}

// Dataset returns a record the server sent with the job.
func (r *recordStore) Dataset(id string) (store.DatasetRecord, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rec, ok := r.recs[id]
	if !ok {
		return rec, fmt.Errorf("data set %s: %w", id, store.ErrNotFound)
	}
	return rec, nil
}

// LoadDataset reads a data set the job uses.
func (r *recordStore) LoadDataset(id string) (*dataset.Dataset, error) {
	rec, err := r.Dataset(id)
	if err != nil {
		return nil, err
	}
	return r.LoadRecord(rec)
}

// LoadFolds reads the predefined folds of a data set the job uses.
func (r *recordStore) LoadFolds(id string) ([]dataset.Fold, error) {
	rec, err := r.Dataset(id)
	if err != nil {
		return nil, err
	}
	return r.LoadRecordFolds(rec)
}
