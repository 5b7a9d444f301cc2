package store

import (
	"bytes"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// A job's named selections of rows (the explorer's) are kept as opaque
// JSON records, keyed "<job>/<name>", in their own bucket; deleting the
// job deletes them.

var bucketSelections = []byte("selections")

func selectionKey(job, name string) []byte { return []byte(job + "/" + name) }

// SaveSelection writes (or replaces) a job's selection name in one
// transaction.
func (s *Store) SaveSelection(job, name string, data []byte) error {
	if !ValidID(job) {
		return fmt.Errorf("job %q: %w", job, ErrNotFound)
	}
	err := s.db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(bucketSelections)
		if err != nil {
			return err
		}
		return b.Put(selectionKey(job, name), data)
	})
	if err != nil {
		return fmt.Errorf("storing selection %q of job %s: %w", name, job, err)
	}
	return nil
}

// Selections returns a job's selections by name.
func (s *Store) Selections(job string) (map[string][]byte, error) {
	out := map[string][]byte{}
	prefix := []byte(job + "/")
	err := s.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketSelections)
		if b == nil {
			return nil
		}
		c := b.Cursor()
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			out[string(k[len(prefix):])] = append([]byte(nil), v...)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading the selections of job %s: %w", job, err)
	}
	return out, nil
}

// DeleteSelection removes a job's selection name; ErrNotFound when there
// is none.
func (s *Store) DeleteSelection(job, name string) error {
	err := s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketSelections)
		if b == nil || b.Get(selectionKey(job, name)) == nil {
			return ErrNotFound
		}
		return b.Delete(selectionKey(job, name))
	})
	if err != nil {
		return fmt.Errorf("deleting selection %q of job %s: %w", name, job, err)
	}
	return nil
}

// deleteSelections removes every selection of a job, in tx.
func deleteSelections(tx *bolt.Tx, job string) error {
	b := tx.Bucket(bucketSelections)
	if b == nil {
		return nil
	}
	prefix := []byte(job + "/")
	var keys [][]byte
	c := b.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		keys = append(keys, append([]byte(nil), k...))
	}
	for _, k := range keys {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}
