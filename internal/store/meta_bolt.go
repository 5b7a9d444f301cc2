package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"
)

// boltMeta is the embedded Meta: meta.db in the data directory, one
// bucket per record kind (datasets, jobs, selections) with JSON values,
// data sets as their JSON encoding and jobs and selections as given;
// selections are keyed "<job>/<name>". bbolt's file lock keeps a second
// process from opening the same directory. Its methods ignore their
// contexts: bbolt's transactions cannot be interrupted, and take
// microseconds.
type boltMeta struct {
	db *bolt.DB
}

var (
	bucketDatasets   = []byte("datasets")
	bucketJobs       = []byte("jobs")
	bucketSelections = []byte("selections")
)

// openBolt opens (or creates) the bbolt file at path; dir names the data
// directory in the error when another process holds the file.
func openBolt(path, dir string) (*boltMeta, error) {
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: 2 * time.Second})
	if errors.Is(err, bolt.ErrTimeout) {
		return nil, fmt.Errorf("the data directory %s is in use by another process (meta.db is locked)", dir)
	}
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		if _, err := tx.CreateBucketIfNotExists(bucketDatasets); err != nil {
			return err
		}
		_, err := tx.CreateBucketIfNotExists(bucketJobs)
		return err
	})
	if err != nil {
		db.Close()
		return nil, err
	}
	return &boltMeta{db: db}, nil
}

// ReadDatasetRecords reads the data set records of the embedded data
// directory dir without changing anything in it (meta.db opened read
// only), for a process that only reads its data sets (webapp run
// -data-dir). A server holding the directory keeps it locked: that is an
// error saying so.
func ReadDatasetRecords(dir string) ([]DatasetRecord, error) {
	path := filepath.Join(dir, "meta.db")
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("the data directory %s has no meta.db (is it the server's -data-dir?): %w", dir, err)
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: 2 * time.Second})
	if errors.Is(err, bolt.ErrTimeout) {
		return nil, fmt.Errorf("the data directory %s is in use by a running server (meta.db is locked); stop the server, or name the data files in the spec", dir)
	}
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	defer db.Close()
	m := &boltMeta{db: db}
	return m.Datasets(context.Background())
}

// Close closes meta.db.
func (m *boltMeta) Close() error { return m.db.Close() }

// Instance is "": the embedded store belongs to its directory.
func (m *boltMeta) Instance() string { return "" }

// Datasets decodes every record of the datasets bucket.
func (m *boltMeta) Datasets(context.Context) ([]DatasetRecord, error) {
	var out []DatasetRecord
	err := m.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketDatasets).ForEach(func(k, v []byte) error {
			var r DatasetRecord
			if err := json.Unmarshal(v, &r); err != nil {
				return fmt.Errorf("decoding data set %s: %w", k, err)
			}
			out = append(out, r)
			return nil
		})
	})
	return out, err
}

// Dataset decodes one record.
func (m *boltMeta) Dataset(_ context.Context, id string) (DatasetRecord, error) {
	var r DatasetRecord
	err := m.db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketDatasets).Get([]byte(id))
		if v == nil {
			return fmt.Errorf("data set %s: %w", id, ErrNotFound)
		}
		return json.Unmarshal(v, &r)
	})
	return r, err
}

// PutDataset stores rec's JSON encoding.
func (m *boltMeta) PutDataset(_ context.Context, rec DatasetRecord) error {
	return m.db.Update(func(tx *bolt.Tx) error {
		return putRecord(tx.Bucket(bucketDatasets), rec.ID, rec)
	})
}

// UpdateDataset compares the stored Gen and replaces the record in one
// transaction.
func (m *boltMeta) UpdateDataset(_ context.Context, id string, gen int, next DatasetRecord) error {
	return m.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketDatasets)
		var cur DatasetRecord
		v := b.Get([]byte(id))
		if v == nil {
			return fmt.Errorf("data set %s: %w", id, ErrNotFound)
		}
		if err := json.Unmarshal(v, &cur); err != nil {
			return err
		}
		if cur.Gen != gen {
			return fmt.Errorf("data set %s is at generation %d, not %d: %w", id, cur.Gen, gen, ErrConflict)
		}
		return putRecord(b, id, next)
	})
}

// DeleteDataset deletes the record.
func (m *boltMeta) DeleteDataset(_ context.Context, id string) error {
	return m.db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketDatasets).Delete([]byte(id))
	})
}

func putRecord(b *bolt.Bucket, id string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encoding record %s: %w", id, err)
	}
	if err := b.Put([]byte(id), data); err != nil {
		return fmt.Errorf("storing record %s: %w", id, err)
	}
	return nil
}

// SaveJob stores the record as given.
func (m *boltMeta) SaveJob(_ context.Context, id string, data []byte) error {
	return m.db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketJobs).Put([]byte(id), data)
	})
}

// Jobs copies every record of the jobs bucket.
func (m *boltMeta) Jobs(context.Context) (map[string][]byte, error) {
	out := map[string][]byte{}
	err := m.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketJobs).ForEach(func(k, v []byte) error {
			out[string(k)] = append([]byte(nil), v...)
			return nil
		})
	})
	return out, err
}

// DeleteJob deletes the job's selections and its record in one
// transaction.
func (m *boltMeta) DeleteJob(_ context.Context, id string) error {
	return m.db.Update(func(tx *bolt.Tx) error {
		if err := deleteSelections(tx, id); err != nil {
			return err
		}
		return tx.Bucket(bucketJobs).Delete([]byte(id))
	})
}

func selectionKey(job, name string) []byte { return []byte(job + "/" + name) }

// SaveSelection stores the selection, making its bucket at the first.
func (m *boltMeta) SaveSelection(_ context.Context, job, name string, data []byte) error {
	return m.db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(bucketSelections)
		if err != nil {
			return err
		}
		return b.Put(selectionKey(job, name), data)
	})
}

// Selections copies the job's selections, found by their key's prefix.
func (m *boltMeta) Selections(_ context.Context, job string) (map[string][]byte, error) {
	out := map[string][]byte{}
	prefix := []byte(job + "/")
	err := m.db.View(func(tx *bolt.Tx) error {
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
	return out, err
}

// DeleteSelection deletes one selection.
func (m *boltMeta) DeleteSelection(_ context.Context, job, name string) error {
	return m.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketSelections)
		if b == nil || b.Get(selectionKey(job, name)) == nil {
			return ErrNotFound
		}
		return b.Delete(selectionKey(job, name))
	})
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
