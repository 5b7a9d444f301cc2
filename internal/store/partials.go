package store

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"time"
)

// Partial statistics. In the shared mode an out-of-core job's
// per-shard work runs as queue jobs of its own, on any worker process:
// each writes the statistics of one method on one row shard to
// partials/<job>/a<attempt>-m<method>-s<shard>.part in the data
// directory, which every process shares, and the job that solves reads
// them. The files are written atomically (a reader finds none or the
// whole file; their form, analysis.Partial's, carries its own checksum),
// belong to one attempt of the job, so that a rescued run never reads an
// earlier run's, and are removed when the job ends (RemovePartials),
// when it is deleted (Store.RemoveJobResults) and by recovery when no job
// record names them.

// partialDir is where a job's partial statistics are.
func (f *Files) partialDir(job string) string { return f.path("partials", job) }

// partialPath is the file of one attempt, method and shard.
func (f *Files) partialPath(job string, attempt, method, shard int) string {
	return f.path("partials", job, fmt.Sprintf("a%d-m%d-s%d.part", attempt, method, shard))
}

// WritePartial writes the partial statistics of attempt attempt (from 1)
// of job, for its method number method (from 0, in the request's order)
// on row shard shard (from 0), through write, atomically; a file of the
// same name is replaced.
func (f *Files) WritePartial(job string, attempt, method, shard int, write func(io.Writer) error) error {
	if !ValidID(job) {
		return fmt.Errorf("job %q: %w", job, ErrNotFound)
	}
	if attempt < 0 || method < 0 || shard < 0 {
		return fmt.Errorf("partial statistics of job %s: attempt %d, method %d, shard %d out of range", job, attempt, method, shard)
	}
	if err := f.fs.MkdirAll(f.partialDir(job), 0o750); err != nil {
		return fmt.Errorf("making the directory of job %s's partial statistics: %w", job, err)
	}
	if err := writeFileAtomic(f.fs, f.partialPath(job, attempt, method, shard), write); err != nil {
		return fmt.Errorf("writing the partial statistics of job %s (method %d, shard %d): %w", job, method+1, shard+1, err)
	}
	return nil
}

// OpenPartial opens what WritePartial wrote; ErrNotFound when there is no
// such file.
func (f *Files) OpenPartial(job string, attempt, method, shard int) (io.ReadCloser, error) {
	if !ValidID(job) {
		return nil, fmt.Errorf("job %q: %w", job, ErrNotFound)
	}
	r, err := f.fs.Open(f.partialPath(job, attempt, method, shard))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("partial statistics of job %s (method %d, shard %d): %w", job, method+1, shard+1, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("opening the partial statistics of job %s (method %d, shard %d): %w", job, method+1, shard+1, err)
	}
	return r, nil
}

// RemovePartials removes every partial statistics file of job, of every
// attempt.
func (f *Files) RemovePartials(job string) error {
	if !ValidID(job) {
		return fmt.Errorf("job %q: %w", job, ErrNotFound)
	}
	if err := f.fs.RemoveAll(f.partialDir(job)); err != nil {
		return fmt.Errorf("removing the partial statistics of job %s: %w", job, err)
	}
	return nil
}

// recoverPartials removes the partial statistics of jobs that have no
// record (in the shared mode only once they are old enough, as another
// process may be about to record them).
func (s *Store) recoverPartials(jobs map[string][]byte, now time.Time) error {
	dirs, err := s.fs.ReadDir(s.path("partials"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading the partial statistics directory: %w", err)
	}
	for _, e := range dirs {
		if _, ok := jobs[e.Name()]; ok {
			continue
		}
		if s.shared() && !s.orphanOld(s.path("partials", e.Name()), now) {
			continue
		}
		s.log.Info("recovery: removing partial statistics of a job that no longer exists", "id", e.Name())
		if err := s.fs.RemoveAll(s.path("partials", e.Name())); err != nil {
			return fmt.Errorf("removing orphaned partial statistics: %w", err)
		}
	}
	return nil
}
