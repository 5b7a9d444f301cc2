package store

import (
	"context"
	"fmt"
)

// A job's named selections of rows (the explorer's) are kept as opaque
// JSON records in the metadata store (Meta); deleting the job deletes
// them.

// SaveSelection writes (or replaces) a job's selection name in one
// transaction.
func (s *Store) SaveSelection(job, name string, data []byte) error {
	if !ValidID(job) {
		return fmt.Errorf("job %q: %w", job, ErrNotFound)
	}
	if err := s.meta.SaveSelection(context.Background(), job, name, data); err != nil {
		return fmt.Errorf("storing selection %q of job %s: %w", name, job, err)
	}
	return nil
}

// Selections returns a job's selections by name.
func (s *Store) Selections(job string) (map[string][]byte, error) {
	out, err := s.meta.Selections(context.Background(), job)
	if err != nil {
		return nil, fmt.Errorf("reading the selections of job %s: %w", job, err)
	}
	return out, nil
}

// DeleteSelection removes a job's selection name; ErrNotFound when there
// is none.
func (s *Store) DeleteSelection(job, name string) error {
	if err := s.meta.DeleteSelection(context.Background(), job, name); err != nil {
		return fmt.Errorf("deleting selection %q of job %s: %w", name, job, err)
	}
	return nil
}
