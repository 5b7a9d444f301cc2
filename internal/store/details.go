package store

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"mldr/internal/dataset"
)

// A data set's details (dataset.Details: the names of its columns and
// labels, each label's statistics) grow with its width, so they are not
// in its record, which every list of data sets reads: they are in a file
// of their own beside its data, details-<gen>.bin (details-<gen>-<tag>.bin
// after a relabel in the shared mode), written with the data and named by
// the record (DetailsFile). Only the views that show them read it.

// detailsName is the name of generation gen's details file.
func detailsName(gen int, tag string) string {
	name := "details-" + strconv.Itoa(gen)
	if tag != "" {
		name += "-" + tag
	}
	return name + ".bin"
}

// writeDetails writes det as the file name in dir, durable.
func writeDetails(fsys FS, dir, name string, det *dataset.Details) error {
	return writeFileAtomic(fsys, filepath.Join(dir, name), func(w io.Writer) error { return dataset.WriteDetails(w, det) })
}

// maxDetailsCached bounds the bytes of details a process keeps read.
const maxDetailsCached = 64 << 20

// detailsCache keeps the details read lately, by path and file identity,
// within maxDetailsCached bytes.
type detailsCache struct {
	mu      sync.Mutex
	order   *list.List // of *detailsEntry, most recently used first
	entries map[string]*list.Element
	bytes   int64
}

type detailsEntry struct {
	path  string
	id    fileIdentity
	det   *dataset.Details
	bytes int64
}

func newDetailsCache() *detailsCache {
	return &detailsCache{order: list.New(), entries: map[string]*list.Element{}}
}

func (c *detailsCache) get(p string, id fileIdentity) *dataset.Details {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[p]
	if !ok {
		return nil
	}
	e := el.Value.(*detailsEntry)
	if e.id != id {
		c.remove(el)
		return nil
	}
	c.order.MoveToFront(el)
	return e.det
}

func (c *detailsCache) put(p string, id fileIdentity, det *dataset.Details) {
	b := det.Bytes()
	if b > maxDetailsCached/2 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[p]; ok {
		c.remove(el)
	}
	c.entries[p] = c.order.PushFront(&detailsEntry{path: p, id: id, det: det, bytes: b})
	c.bytes += b
	for c.bytes > maxDetailsCached {
		c.remove(c.order.Back())
	}
}

func (c *detailsCache) remove(el *list.Element) {
	e := c.order.Remove(el).(*detailsEntry)
	delete(c.entries, e.path)
	c.bytes -= e.bytes
}

// Details returns the details of the data set rec describes: its columns,
// its label names and each label's statistics, read from its details
// file (and kept within a budget while the file is the same), or made
// from the record itself for one made before details files existed. A
// damaged file gives an error wrapping dataset.ErrCorrupt.
func (f *Files) Details(rec DatasetRecord) (*dataset.Details, error) {
	if !ValidID(rec.ID) {
		return nil, fmt.Errorf("data set %q: %w", rec.ID, ErrNotFound)
	}
	if rec.DetailsFile == "" {
		return dataset.LegacyDetails(rec.Summary, rec.Columns, rec.LabelColumns), nil
	}
	p := f.path("datasets", rec.ID, rec.DetailsFile)
	file, err := f.fs.Open(p)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("the stored details of data set %s are missing; delete it and upload the file again: %w", rec.ID, err)
		}
		return nil, fmt.Errorf("opening the details of data set %s: %w", rec.ID, err)
	}
	defer file.Close()
	st, err := file.Stat()
	if err != nil {
		return nil, fmt.Errorf("opening the details of data set %s: %w", rec.ID, err)
	}
	id := identityOf(st)
	if det := f.details.get(p, id); det != nil {
		return det, nil
	}
	det, err := dataset.ReadDetails(file, st.Size())
	if err != nil {
		return nil, fmt.Errorf("reading the details of data set %s: %w", rec.ID, err)
	}
	f.details.put(p, id, det)
	return det, nil
}

// DatasetDetails returns the details of data set id (see Files.Details).
func (s *Store) DatasetDetails(id string) (*dataset.Details, error) {
	rec, err := s.Dataset(id)
	if err != nil {
		return nil, err
	}
	return s.Details(rec)
}

// upgradeRecords moves the lists that records made before details files
// existed hold (every column's and label's name, each label's
// statistics) into a details file each, leaving the records small. A
// record another process changed meanwhile is left to it.
func (s *Store) upgradeRecords(ctx context.Context, recs []DatasetRecord) error {
	for _, rec := range recs {
		if rec.DetailsFile != "" || !rec.Summary.Legacy() {
			continue
		}
		det := dataset.LegacyDetails(rec.Summary, rec.Columns, rec.LabelColumns)
		next := rec
		next.DetailsFile = detailsName(rec.Gen, "")
		next.Columns, next.LabelColumns = nil, nil
		next.Summary = rec.Summary.Upgrade(det)
		dir := s.path("datasets", rec.ID)
		if _, err := s.fs.Stat(dir); err != nil {
			continue // its files are missing: recovery reports it as it is
		}
		if err := writeDetails(s.fs, dir, next.DetailsFile, det); err != nil {
			return fmt.Errorf("upgrading the record of data set %s: %w", rec.ID, err)
		}
		err := s.meta.UpdateDataset(ctx, rec.ID, rec.Gen, next)
		if errors.Is(err, ErrConflict) || errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return fmt.Errorf("upgrading the record of data set %s: %w", rec.ID, err)
		}
		s.log.Info("moved a data set's lists from its record to its details file", "id", rec.ID, "file", next.DetailsFile)
	}
	return nil
}
