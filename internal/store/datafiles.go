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
	dir  string
	tmp  string // the staging directory; "" means <dir>/tmp
	fs   FS
	data *dataFiles // data files verified, and data sets kept between loads
	// details keeps the data sets' details read lately (Details).
	details *detailsCache
}

// OpenFiles returns the files of the data directory dir, which a Store
// made, through fsys (nil: OSFS).
func OpenFiles(dir string, fsys FS) *Files {
	if fsys == nil {
		fsys = OSFS{}
	}
	return &Files{dir: dir, fs: fsys, data: newDataFiles(), details: newDetailsCache()}
}

// OpenFilesStaging is OpenFiles with staging in the directory staging,
// which is the serving process's StagingDir (a worker process stages its
// results there, so that in shared mode its work counts as its server's).
func OpenFilesStaging(dir, staging string, fsys FS) *Files {
	f := OpenFiles(dir, fsys)
	f.tmp = staging
	return f
}

// StagingDir is where uploads and results wait before they are moved
// into place: tmp/ under the data directory, or in shared mode this
// process's own directory under it, tmp/<host>-<pid>-<random>.
func (f *Files) StagingDir() string {
	if f.tmp != "" {
		return f.tmp
	}
	return f.path("tmp")
}

// CheckWritable checks that the data directory takes new files: it
// creates, writes and removes a small file in the staging directory.
// Readiness checks (/readyz) ask it.
func (f *Files) CheckWritable() error {
	file, err := f.fs.CreateTemp(f.StagingDir(), "ready-")
	if err != nil {
		return fmt.Errorf("the data directory is not writable: %w", err)
	}
	_, werr := file.Write([]byte("ok\n"))
	err = errors.Join(werr, file.Close(), f.fs.Remove(file.Name()))
	if err != nil {
		return fmt.Errorf("the data directory is not writable: %w", err)
	}
	return nil
}

// LoadRecord reads the matrices of the data set rec describes. A file
// that is gone is reported wrapping os.ErrNotExist (a relabel may have
// replaced it since rec was read).
//
// The file's checksum is verified at its first load in this process and
// again whenever the file is not the same (its path, size, modification
// and change times or inode differ); a file verified before is read
// without it. A data set stored in row shards (rec.Shards) is read shard
// by shard into one data set, the same as if it were one file. With CacheData, a data set kept from an earlier load of the
// same file is returned without reading it: its matrices are shared, and
// callers must not change them.
func (f *Files) LoadRecord(rec DatasetRecord) (*dataset.Dataset, error) {
	if !ValidID(rec.ID) {
		return nil, fmt.Errorf("data set %q: %w", rec.ID, ErrNotFound)
	}
	if len(rec.Shards) > 0 {
		return f.loadSharded(rec) // shards.go
	}
	p := f.path("datasets", rec.ID, rec.DataFile)
	file, err := f.fs.Open(p)
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
	id := identityOf(st)
	if ds := f.data.cached(p, id); ds != nil {
		return ds, nil
	}
	verified := f.data.verified(p, id)
	if f.data.mapsFor(p, st.Size()) {
		if ds, mapped, err := f.loadMapped(rec, p, id, file, st.Size(), verified); mapped {
			return ds, err
		}
	}
	read := dataset.ReadBinary
	if verified {
		read = dataset.ReadBinaryVerified
	}
	ds, err := read(file, st.Size())
	if err != nil {
		return nil, fmt.Errorf("reading data set %s: %w", rec.ID, err)
	}
	f.data.loaded(p, id, ds, nil)
	return ds, nil
}

// loadMapped maps the data file at p, open as file, and views the data
// set in it (dataset.ViewBinary: the checksum and the values checked in
// one pass, or the values only when verified). mapped is false when the
// file could not be mapped: then it is to be read. A file read by a copy (an
// old layout) or refused is unmapped at once; nothing refers to it.
func (f *Files) loadMapped(rec DatasetRecord, p string, id fileIdentity, file File, size int64, verified bool) (ds *dataset.Dataset, mapped bool, err error) {
	b, err := mapFile(file, size)
	if err != nil {
		return nil, false, nil
	}
	f.data.addMapped(int64(len(b)))
	check := dataset.CheckAll
	if verified {
		check = dataset.CheckValues
	}
	ds, inPlace, err := dataset.ViewBinary(b, check)
	if !inPlace {
		_ = unmapFile(b) // fails only for memory that is not a mapping
		f.data.addMapped(-int64(len(b)))
		b = nil
	}
	if err != nil {
		return nil, true, fmt.Errorf("reading data set %s: %w", rec.ID, err)
	}
	f.data.loaded(p, id, ds, b)
	return ds, true, nil
}

// CacheData makes the files keep the data sets they load, at most
// maxBytes of matrices (0: none, the default), for the data files KeepData
// allows, so that the next load of the same file reads nothing. A worker
// process, whose jobs often read the data set the last one read, sets it.
func (f *Files) CacheData(maxBytes int64) { f.data.setBudget(maxBytes) }

// MapData makes the files map the data files whose data sets CacheData
// will keep, instead of reading them (Linux; elsewhere, and for a file
// that cannot be mapped, they are read): the matrices are then the
// mapping's memory, private and copy-on-write, so that a stray write never
// reaches the file. A mapping is unmapped only by KeepData, the one point
// at which the caller says no data set is in use. onMapped (nil: none)
// hears the bytes mapped whenever they change: a worker lowers its
// garbage collector's limit by them, since the mappings count in its
// memory as its heap does.
func (f *Files) MapData(onMapped func(bytes int64)) { f.data.setMap(onMapped) }

// KeepData says which data sets the cache of CacheData may hold from now
// on: the data files of recs (none: nil). The others are dropped at once.
// A worker calls it as each job starts with the job's data sets, so that
// what it keeps is what the job holds anyway, and with none for a job
// that reads data sets one after the other (a study), which should hold
// one at a time.
//
// With MapData, KeepData is where mappings are unmapped: those of the data
// sets it drops and those dropped since the last call (see MapData). So
// the caller must no longer use any data set these files returned before
// (a worker calls it between jobs; the next load of a data set still kept
// returns it again); KeepData(nil) unmaps every mapping.
func (f *Files) KeepData(recs []DatasetRecord) {
	keep := make(map[string]bool, len(recs))
	for _, rec := range recs {
		if ValidID(rec.ID) {
			keep[f.path("datasets", rec.ID, rec.DataFile)] = true
		}
	}
	f.data.keep(keep)
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
