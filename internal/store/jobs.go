package store

import (
	"fmt"
	"os"
	"path/filepath"

	bolt "go.etcd.io/bbolt"
)

// Jobs are kept as opaque JSON records (the job runner owns their schema)
// in their own bucket, and their result files under jobs/<id>/. A job's
// results are written to a staging directory, made durable and renamed
// into place (CommitJobResults) before the runner records the job as
// succeeded, so a result directory is only ever served once complete; Open
// removes result directories that no job record names.

var bucketJobs = []byte("jobs")

// SaveJob writes a job record in one transaction (fsync on commit).
func (s *Store) SaveJob(id string, data []byte) error {
	if !ValidID(id) {
		return fmt.Errorf("job %q: %w", id, ErrNotFound)
	}
	err := s.db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketJobs).Put([]byte(id), data)
	})
	if err != nil {
		return fmt.Errorf("storing job %s: %w", id, err)
	}
	return nil
}

// LoadJobs returns every job record by id.
func (s *Store) LoadJobs() (map[string][]byte, error) {
	out := map[string][]byte{}
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketJobs).ForEach(func(k, v []byte) error {
			out[string(k)] = append([]byte(nil), v...)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("reading jobs: %w", err)
	}
	return out, nil
}

// DeleteJob removes a job's record, then its result files.
func (s *Store) DeleteJob(id string) error {
	if !ValidID(id) {
		return fmt.Errorf("job %q: %w", id, ErrNotFound)
	}
	err := s.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketJobs).Delete([]byte(id)) })
	if err != nil {
		return fmt.Errorf("deleting job %s: %w", id, err)
	}
	return s.RemoveJobResults(id)
}

// JobDir is where a job's committed results are.
func (s *Store) JobDir(id string) string { return s.path("jobs", id) }

// StageJobResults makes a staging directory for a job's results.
func (s *Store) StageJobResults(id string) (string, error) {
	dir, err := os.MkdirTemp(s.path("tmp"), "results-"+id+"-")
	if err != nil {
		return "", fmt.Errorf("creating a staging directory for job %s: %w", id, err)
	}
	return dir, nil
}

// CommitJobResults makes the staged files durable and moves them into place
// as the job's results, replacing any earlier ones.
func (s *Store) CommitJobResults(id, staged string) error {
	entries, err := os.ReadDir(staged)
	if err != nil {
		return fmt.Errorf("reading the results of job %s: %w", id, err)
	}
	if err := syncTree(staged, entries); err != nil {
		return err
	}
	if err := s.RemoveJobResults(id); err != nil {
		return err
	}
	if err := os.Rename(staged, s.JobDir(id)); err != nil {
		return fmt.Errorf("moving the results of job %s into place: %w", id, err)
	}
	return syncDir(s.path("jobs"))
}

// syncTree fsyncs the files of a directory tree (one level of
// subdirectories, as results use) and the directories themselves.
func syncTree(dir string, entries []os.DirEntry) error {
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if e.IsDir() {
			sub, err := os.ReadDir(p)
			if err != nil {
				return fmt.Errorf("reading %s: %w", p, err)
			}
			if err := syncTree(p, sub); err != nil {
				return err
			}
			continue
		}
		f, err := os.Open(p)
		if err != nil {
			return fmt.Errorf("opening %s: %w", p, err)
		}
		err = f.Sync()
		f.Close()
		if err != nil {
			return fmt.Errorf("syncing %s: %w", p, err)
		}
	}
	return syncDir(dir)
}

// RemoveJobResults removes a job's result files, if any.
func (s *Store) RemoveJobResults(id string) error {
	if !ValidID(id) {
		return fmt.Errorf("job %q: %w", id, ErrNotFound)
	}
	if err := os.RemoveAll(s.JobDir(id)); err != nil {
		return fmt.Errorf("removing the results of job %s: %w", id, err)
	}
	return nil
}
