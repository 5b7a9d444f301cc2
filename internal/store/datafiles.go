package store

import (
	"errors"
	"fmt"
	"os"

	"mldr/internal/dataset"
)

// Files is the data directory's files without its metadata: the stored
// data sets and the job results. A worker process, which may not open
// meta.db (the serving process holds its lock), reads data sets and writes
// results through it, given the data set records by the server. Store
// embeds it. Its methods are safe for concurrent use.
type Files struct {
	dir string
	fs  FS
}

// OpenFiles returns the files of the data directory dir, which a Store
// made, through fsys (nil: OSFS).
func OpenFiles(dir string, fsys FS) *Files {
	if fsys == nil {
		fsys = OSFS{}
	}
	return &Files{dir: dir, fs: fsys}
}

// LoadRecord reads the matrices of the data set rec describes. A file
// that is gone is reported wrapping os.ErrNotExist (a relabel may have
// replaced it since rec was read).
func (f *Files) LoadRecord(rec DatasetRecord) (*dataset.Dataset, error) {
	if !ValidID(rec.ID) {
		return nil, fmt.Errorf("data set %q: %w", rec.ID, ErrNotFound)
	}
	file, err := f.fs.Open(f.path("datasets", rec.ID, rec.DataFile))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("the stored data of data set %s are missing; delete it and upload the file again: %w", rec.ID, err)
		}
		return nil, fmt.Errorf("opening the stored data of data set %s: %w", rec.ID, err)
	}
	defer file.Close()
	st, err := file.Stat()
	if err != nil {
		return nil, fmt.Errorf("opening the stored data of data set %s: %w", rec.ID, err)
	}
	ds, err := dataset.ReadBinary(file, st.Size())
	if err != nil {
		return nil, fmt.Errorf("reading data set %s: %w", rec.ID, err)
	}
	return ds, nil
}

// LoadRecordFolds returns the predefined folds of the data set rec
// describes, or nil if it has none.
func (f *Files) LoadRecordFolds(rec DatasetRecord) ([]dataset.Fold, error) {
	if rec.Folds == 0 {
		return nil, nil
	}
	if !ValidID(rec.ID) {
		return nil, fmt.Errorf("data set %q: %w", rec.ID, ErrNotFound)
	}
	return readFolds(f.fs, f.path("datasets", rec.ID, foldsFile), rec.Summary.Rows)
}
