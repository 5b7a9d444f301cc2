package store

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Jobs are kept as opaque JSON records (the job runner owns their schema)
// in the metadata store (Meta), and their result files under jobs/<id>/. A
// job's results are written to a staging directory (StageJobResults,
// StagedResults.WriteFile), made durable and renamed into place with their
// checksums (CommitJobResults) before the runner records the job as
// succeeded, so a result directory is only ever served once complete; Open
// removes result directories that no job record names. Readers check a
// file against its checksum first (VerifyJobResult).

// SaveJob writes a job record in one transaction (durable on commit).
func (s *Store) SaveJob(id string, data []byte) error {
	if !ValidID(id) {
		return fmt.Errorf("job %q: %w", id, ErrNotFound)
	}
	if err := s.meta.SaveJob(context.Background(), id, data); err != nil {
		return fmt.Errorf("storing job %s: %w", id, err)
	}
	return nil
}

// LoadJobs returns every job record by id.
func (s *Store) LoadJobs() (map[string][]byte, error) {
	out, err := s.meta.Jobs(context.Background())
	if err != nil {
		return nil, fmt.Errorf("reading jobs: %w", err)
	}
	return out, nil
}

// DeleteJob removes a job's record and its selections, then its result
// files.
func (s *Store) DeleteJob(id string) error {
	if !ValidID(id) {
		return fmt.Errorf("job %q: %w", id, ErrNotFound)
	}
	if err := s.meta.DeleteJob(context.Background(), id); err != nil {
		return fmt.Errorf("deleting job %s: %w", id, err)
	}
	return s.RemoveJobResults(id)
}

// JobDir is where a job's committed results are.
func (f *Files) JobDir(id string) string { return f.path("jobs", id) }

// StagedResults are a job's result files on their way in: written to a
// staging directory under tmp/, each hashed as it is written and kept
// open; CommitJobResults makes them all durable in one pass and moves them
// into place with their checksums; Discard removes them. Not safe for
// concurrent use.
type StagedResults struct {
	fs    FS
	job   string
	dir   string
	subs  map[string]bool    // subdirectories made, relative to dir
	sums  map[string]FileSum // by path relative to dir, with slashes
	files []File             // written, not yet synced; closed by commit or Discard
}

// StageJobResults makes a staging directory for a job's results.
func (f *Files) StageJobResults(id string) (*StagedResults, error) {
	if !ValidID(id) {
		return nil, fmt.Errorf("job %q: %w", id, ErrNotFound)
	}
	dir, err := f.fs.MkdirTemp(f.StagingDir(), "results-"+id+"-")
	if err != nil {
		return nil, fmt.Errorf("storing the results of job %s: creating a staging directory: %w", id, err)
	}
	return &StagedResults{fs: f.fs, job: id, dir: dir, subs: map[string]bool{}, sums: map[string]FileSum{}}, nil
}

// WriteFile writes the result file rel (a path relative to the result
// directory, with slashes, such as "pca/projected.bin") with write,
// through a buffer. The file is not synced here: CommitJobResults syncs
// every staged file at once. The file must not exist yet, and
// ChecksumsFile is reserved. On error the file is removed.
func (r *StagedResults) WriteFile(rel string, write func(io.Writer) error) (err error) {
	clean := path.Clean(rel)
	if rel == "" || clean != rel || path.IsAbs(rel) || strings.HasPrefix(rel, "../") || rel == ".." || rel == ChecksumsFile {
		return fmt.Errorf("storing the results of job %s: %q is not a result file name", r.job, rel)
	}
	if _, dup := r.sums[rel]; dup {
		return fmt.Errorf("storing the results of job %s: %s written twice", r.job, rel)
	}
	if sub := path.Dir(rel); sub != "." && !r.subs[sub] {
		if err := r.fs.MkdirAll(filepath.Join(r.dir, filepath.FromSlash(sub)), 0o750); err != nil {
			return fmt.Errorf("storing the results of job %s: creating %s: %w", r.job, sub, err)
		}
		for d := sub; d != "."; d = path.Dir(d) {
			r.subs[d] = true
		}
	}
	f, sum, err := writeSummed(r.fs, filepath.Join(r.dir, filepath.FromSlash(rel)), write)
	if err != nil {
		return fmt.Errorf("storing the results of job %s: writing %s: %w", r.job, rel, err)
	}
	r.files = append(r.files, f)
	r.sums[rel] = sum
	return nil
}

// Discard removes the staged files; after CommitJobResults it does
// nothing.
func (r *StagedResults) Discard() {
	r.closeFiles()
	r.fs.RemoveAll(r.dir)
}

// closeFiles closes the files not yet closed and returns the first error.
func (r *StagedResults) closeFiles() error {
	var first error
	for _, f := range r.files {
		if err := f.Close(); err != nil && first == nil {
			first = fmt.Errorf("closing %s: %w", r.relOf(f), err)
		}
	}
	r.files = nil
	return first
}

// relOf is a staged file's path in the result directory, with slashes.
func (r *StagedResults) relOf(f File) string {
	rel, err := filepath.Rel(r.dir, f.Name())
	if err != nil {
		return f.Name()
	}
	return filepath.ToSlash(rel)
}

// writeSummed creates a new file and writes it through a buffer, and
// returns it, still open and not synced, with its size and SHA-256. On
// error the file is closed and removed.
func writeSummed(fsys FS, name string, write func(io.Writer) error) (_ File, sum FileSum, err error) {
	f, err := fsys.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o640)
	if err != nil {
		return nil, sum, fmt.Errorf("creating it: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			fsys.Remove(name)
		}
	}()
	h := sha256.New()
	cw := &countWriter{w: io.MultiWriter(f, h)}
	bw := bufio.NewWriterSize(cw, 64<<10)
	if err := write(bw); err != nil {
		return nil, sum, err
	}
	if err := bw.Flush(); err != nil {
		return nil, sum, err
	}
	return f, FileSum{Size: cw.n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// CommitJobResults writes the staged results' checksums (ChecksumsFile),
// makes the staging directory durable and moves it into place as the
// job's results, replacing any earlier ones. On error nothing of the new
// results is left under jobs/ (the staged files are the caller's to
// Discard).
//
// What is synced when: no file is synced as it is written; here every
// staged file, ChecksumsFile among them, and every directory of the
// staging tree are synced at once (concurrently, so the file system can
// commit them together), and only when all have succeeded is the tree
// renamed to jobs/<id> and jobs/ synced. The rename is the commit: before
// it the results are under tmp/, which Open removes; after it they are
// complete and durable. The caller records the job as succeeded only
// after this returns.
func (f *Files) CommitJobResults(r *StagedResults) error {
	if err := f.commitJobResults(r); err != nil {
		return fmt.Errorf("storing the results of job %s: %w", r.job, err)
	}
	return nil
}

// CommitJobResults is Files.CommitJobResults; the store also forgets what
// it had verified of the job's earlier results.
func (s *Store) CommitJobResults(r *StagedResults) error {
	s.results.Lock()
	defer s.results.Unlock()
	s.verified.forget(s.JobDir(r.job))
	return s.Files.CommitJobResults(r)
}

func (f *Files) commitJobResults(r *StagedResults) error {
	if err := r.seal(f.fs); err != nil {
		return err
	}
	if err := f.RemoveJobResults(r.job); err != nil {
		return err
	}
	return f.moveIntoPlace(r.dir, r.job)
}

// seal writes the staged results' checksums (ChecksumsFile), syncs every
// staged file and directory, and closes the files.
func (r *StagedResults) seal(fsys FS) error {
	sums := Checksums{Algorithm: "sha256", Files: r.sums}
	sumsFile, _, err := writeSummed(fsys, filepath.Join(r.dir, ChecksumsFile), encodeChecksums(sums))
	if err != nil {
		return fmt.Errorf("writing %s: %w", ChecksumsFile, err)
	}
	r.files = append(r.files, sumsFile)
	dirs := []string{r.dir}
	for d := range r.subs {
		dirs = append(dirs, filepath.Join(r.dir, filepath.FromSlash(d)))
	}
	slices.Sort(dirs)
	if err := r.syncAll(dirs); err != nil {
		return err
	}
	return r.closeFiles()
}

// moveIntoPlace renames the sealed result directory dir to jobs/<id>,
// where nothing is, and makes the rename durable.
func (f *Files) moveIntoPlace(dir, id string) error {
	final := f.JobDir(id)
	if err := f.fs.Rename(dir, final); err != nil {
		return fmt.Errorf("moving them into place: %w", err)
	}
	if err := syncDir(f.fs, f.path("jobs")); err != nil {
		// Not durable: take them back, or a job recorded as failed would
		// have results.
		f.fs.RemoveAll(final)
		return fmt.Errorf("moving them into place: %w", err)
	}
	return nil
}

// Sealed results (the shared mode). There a worker process does not move
// a job's results into place itself: SealJobResults makes them durable
// with their checksums, as CommitJobResults does, and leaves them in the
// staging directory under a name that says the job and the attempt. The
// process that runs the job then moves them into place
// (InstallJobResults) within the transaction that records the job as
// succeeded, once it has checked, under the record's lock, that the
// attempt is still the job's; otherwise it removes them
// (DiscardJobResults). So a run whose job another process has taken
// over never touches jobs/<id>, whenever its worker finishes.

// sealedDir is where attempt attempt of job id leaves its sealed results.
func (f *Files) sealedDir(id string, attempt int) string {
	return filepath.Join(f.StagingDir(), fmt.Sprintf("sealed-%s-a%d", id, attempt))
}

// SealJobResults makes the staged results durable with their checksums,
// as CommitJobResults does, and leaves them in the staging directory for
// InstallJobResults, as attempt attempt's (from 1) of their job, replacing
// what an earlier run of that attempt left there. On error the staged
// files are the caller's to Discard.
func (f *Files) SealJobResults(r *StagedResults, attempt int) error {
	if err := r.seal(f.fs); err != nil {
		return fmt.Errorf("storing the results of job %s: %w", r.job, err)
	}
	dst := f.sealedDir(r.job, attempt)
	if err := f.fs.RemoveAll(dst); err != nil {
		return fmt.Errorf("storing the results of job %s: %w", r.job, err)
	}
	if err := f.fs.Rename(r.dir, dst); err != nil {
		return fmt.Errorf("storing the results of job %s: sealing them: %w", r.job, err)
	}
	return nil
}

// InstallJobResults moves the results attempt attempt of job id sealed
// (SealJobResults) into place as the job's results, replacing any earlier
// ones; an error wraps ErrNotFound when there are none. The caller records
// the job as succeeded only after this returns.
func (f *Files) InstallJobResults(id string, attempt int) error {
	if !ValidID(id) {
		return fmt.Errorf("job %q: %w", id, ErrNotFound)
	}
	src := f.sealedDir(id, attempt)
	if _, err := f.fs.Stat(src); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("storing the results of job %s: its run (attempt %d) left none: %w", id, attempt, ErrNotFound)
	}
	if err := f.RemoveJobResults(id); err != nil {
		return err
	}
	if err := f.moveIntoPlace(src, id); err != nil {
		return fmt.Errorf("storing the results of job %s: %w", id, err)
	}
	return nil
}

// InstallJobResults is Files.InstallJobResults; the store also forgets
// what it had verified of the job's earlier results.
func (s *Store) InstallJobResults(id string, attempt int) error {
	s.results.Lock()
	defer s.results.Unlock()
	if ValidID(id) {
		s.verified.forget(s.JobDir(id))
	}
	return s.Files.InstallJobResults(id, attempt)
}

// DiscardJobResults removes the results attempt attempt of job id sealed,
// if any.
func (f *Files) DiscardJobResults(id string, attempt int) error {
	if !ValidID(id) {
		return fmt.Errorf("job %q: %w", id, ErrNotFound)
	}
	if err := f.fs.RemoveAll(f.sealedDir(id, attempt)); err != nil {
		return fmt.Errorf("removing the unused results of job %s: %w", id, err)
	}
	return nil
}

// maxSyncs bounds the fsyncs a commit has in flight at once.
const maxSyncs = 16

// syncAll syncs every staged file and the directories dirs, at most
// maxSyncs at a time, and returns the first error in the order of the
// files, then of the directories.
func (r *StagedResults) syncAll(dirs []string) error {
	errs := make([]error, len(r.files)+len(dirs))
	sem := make(chan struct{}, maxSyncs)
	var wg sync.WaitGroup
	for i, file := range r.files {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			if err := file.Sync(); err != nil {
				errs[i] = fmt.Errorf("syncing %s: %w", r.relOf(file), err)
			}
		})
	}
	for k, d := range dirs {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			errs[len(r.files)+k] = syncDir(r.fs, d)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// RemoveJobResults removes a job's result files, if any.
func (f *Files) RemoveJobResults(id string) error {
	if !ValidID(id) {
		return fmt.Errorf("job %q: %w", id, ErrNotFound)
	}
	if err := f.fs.RemoveAll(f.JobDir(id)); err != nil {
		return fmt.Errorf("removing the results of job %s: %w", id, err)
	}
	return nil
}

// RemoveJobResults is Files.RemoveJobResults, and also removes the job's
// partial statistics (RemovePartials); the store forgets what it had
// verified of the results.
func (s *Store) RemoveJobResults(id string) error {
	s.results.Lock()
	defer s.results.Unlock()
	if ValidID(id) {
		s.verified.forget(s.JobDir(id))
	}
	if err := s.Files.RemoveJobResults(id); err != nil {
		return err
	}
	return s.RemovePartials(id)
}
