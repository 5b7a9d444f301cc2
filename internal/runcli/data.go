package runcli

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"mldr/internal/dataset"
	"mldr/internal/jobs"
	"mldr/internal/store"
)

// runStore is the jobs.Store of a run: the records of the data sets the
// request reads and the files each lives in (the run's own data directory
// for the files the spec names, -data-dir for the ids it holds), and the
// run's own data directory for the results.
type runStore struct {
	results *store.Store
	// ids are the store's ids of the request's data sets, by the name the
	// request gives them (store.NameID of it for a file of the spec).
	ids   map[string]string
	recs  map[string]store.DatasetRecord // by id
	files map[string]*store.Files        // by id
}

// request is req naming its data sets by their ids in the store.
func (r *runStore) request(req jobs.Request) jobs.Request {
	id := func(name string) string {
		if v, ok := r.ids[name]; ok {
			return v
		}
		return name
	}
	req.Dataset, req.TestDataset = id(req.Dataset), id(req.TestDataset)
	req.Datasets = slices.Clone(req.Datasets)
	for i, n := range req.Datasets {
		req.Datasets[i] = id(n)
	}
	return req
}

var _ jobs.Store = (*runStore)(nil)

// Dataset returns the record of a data set the run reads.
func (r *runStore) Dataset(id string) (store.DatasetRecord, error) {
	rec, ok := r.recs[id]
	if !ok {
		return rec, fmt.Errorf("data set %s: %w", id, store.ErrNotFound)
	}
	return rec, nil
}

// LoadDataset reads a data set the run reads, from its files.
func (r *runStore) LoadDataset(id string) (*dataset.Dataset, error) {
	rec, err := r.Dataset(id)
	if err != nil {
		return nil, err
	}
	return r.files[id].LoadRecord(rec)
}

// LoadFolds reads the predefined folds of a data set the run reads.
func (r *runStore) LoadFolds(id string) ([]dataset.Fold, error) {
	rec, err := r.Dataset(id)
	if err != nil {
		return nil, err
	}
	return r.files[id].LoadRecordFolds(rec)
}

// StageJobResults stages results in the run's own data directory.
func (r *runStore) StageJobResults(id string) (*store.StagedResults, error) {
	return r.results.StageJobResults(id)
}

// CommitJobResults moves results into place in the run's own data
// directory.
func (r *runStore) CommitJobResults(staged *store.StagedResults) error {
	return r.results.CommitJobResults(staged)
}

// RemoveJobResults removes results from the run's own data directory.
func (r *runStore) RemoveJobResults(id string) error { return r.results.RemoveJobResults(id) }

// JobDir is a job's result directory in the run's own data directory.
func (r *runStore) JobDir(id string) string { return r.results.JobDir(id) }

// PublicError is err with the run's data directory's paths made relative.
func (r *runStore) PublicError(err error) error { return r.results.PublicError(err) }

// gather finds every data set the request reads: a file the spec names is
// read into the run's own data directory (scratch) as an upload is, an id
// of -data-dir (records, read by files) is used where it is. A data set
// whose spec entry gives a SHA-256 must have it.
func gather(ctx context.Context, spec *Spec, scratch *store.Store, dataDir string, show *progress) (*runStore, error) {
	rs := &runStore{results: scratch, ids: map[string]string{}, recs: map[string]store.DatasetRecord{}, files: map[string]*store.Files{}}
	var (
		dirRecs  map[string]store.DatasetRecord
		dirFiles *store.Files
	)
	if dataDir != "" {
		recs, err := store.ReadDatasetRecords(dataDir)
		if err != nil {
			return nil, fmt.Errorf("-data-dir: %w", err)
		}
		dirRecs = map[string]store.DatasetRecord{}
		for _, r := range recs {
			dirRecs[r.ID] = r
		}
		dirFiles = store.OpenFiles(dataDir, nil)
	}
	for _, id := range spec.Request.DatasetIDs() {
		if _, done := rs.ids[id]; done {
			continue // named twice: Validate says so
		}
		d, named := spec.Data[id]
		rec, inDir := dirRecs[id]
		switch {
		case named && d.File != "":
			show.step("read "+label(id, d), d.File)
			rec, err := importFile(ctx, scratch, id, d)
			if err != nil {
				return nil, err
			}
			rs.ids[id] = rec.ID
			rs.recs[rec.ID], rs.files[rec.ID] = rec, &scratch.Files
		case inDir:
			if named {
				if err := checkSum(id, d, "the data set "+id+" of "+dataDir, d.SHA256, rec.SHA256); err != nil {
					return nil, err
				}
				if err := checkSum(id, d, "the folds file of the data set "+id+" of "+dataDir, d.FoldsSHA256, rec.FoldsSHA256); err != nil {
					return nil, err
				}
				if d.Folds > 0 && rec.Folds == 0 {
					return nil, foldsMissing(id, d)
				}
			}
			rs.ids[id] = id
			rs.recs[id], rs.files[id] = rec, dirFiles
		case named:
			return nil, fmt.Errorf("data set %s names no file: give one with --data %s=FILE (or \"file\" in the spec's data), or -data-dir with the data set", label(id, d), cmp.Or(d.Name, id))
		case dataDir != "":
			return nil, fmt.Errorf("the request names data set %q, which is neither in the spec's data (%s) nor in -data-dir %s", id, listOr(spec.names()), dataDir)
		default:
			return nil, fmt.Errorf("the request names data set %q, which is not in the spec's data (%s); name its file there or with --data %s=FILE, or give -data-dir", id, listOr(spec.names()), id)
		}
	}
	return rs, nil
}

// importFile reads a data set's files into the run's own data directory,
// through the store as an upload is read (the same staging, hashing,
// loader and checks), under the id the spec's name for it stands for
// (store.NameID: the name itself in experiment.json, whose names are the
// server's ids).
func importFile(ctx context.Context, scratch *store.Store, id string, d Data) (store.DatasetRecord, error) {
	fail := func(what string, err error) (store.DatasetRecord, error) {
		return store.DatasetRecord{}, fmt.Errorf("data set %s: %s: %w", label(id, d), what, err)
	}
	if d.Folds > 0 && d.FoldsFile == "" {
		return store.DatasetRecord{}, foldsMissing(id, d)
	}
	f, err := os.Open(d.File)
	if err != nil {
		return fail("reading the data file", err)
	}
	defer f.Close()
	st, err := scratch.Stage()
	if err != nil {
		return fail("staging "+d.File, err)
	}
	defer st.Discard()
	if err := st.ReceiveSource(ctx, filepath.Base(d.File), f, 0); err != nil {
		return fail("reading "+d.File, err)
	}
	if err := checkSum(id, d, "the file "+d.File, d.SHA256, st.SHA256()); err != nil {
		return store.DatasetRecord{}, err
	}
	for _, part := range []struct {
		path    string
		receive func(context.Context, *os.File) error
	}{
		{d.XML, func(ctx context.Context, f *os.File) error { return st.ReceiveXML(ctx, f) }},
		{d.FoldsFile, func(ctx context.Context, f *os.File) error { return st.ReceiveFolds(ctx, f) }},
	} {
		if part.path == "" {
			continue
		}
		pf, err := os.Open(part.path)
		if err != nil {
			return fail("reading "+part.path, err)
		}
		err = part.receive(ctx, pf)
		pf.Close()
		if err != nil {
			return fail("reading "+part.path, err)
		}
	}
	rec, err := scratch.CreateDatasetAs(ctx, st, store.NameID(id), cmp.Or(d.Name, id), d.Options)
	if err != nil {
		return fail("reading "+d.File, err)
	}
	if err := checkSum(id, d, "the folds file "+d.FoldsFile, d.FoldsSHA256, rec.FoldsSHA256); err != nil {
		return store.DatasetRecord{}, err
	}
	return rec, nil
}

// checkSum refuses a file of data set id whose SHA-256 (actual) is not
// the one the spec's entry expects (none expected, or none known: any).
func checkSum(id string, d Data, what, expected, actual string) error {
	if expected == "" || actual == "" || strings.EqualFold(expected, actual) {
		return nil
	}
	return fmt.Errorf("data set %s: %s has SHA-256 %s, but the spec expects %s: it is not the data the experiment ran on", label(id, d), what, actual, expected)
}

// foldsMissing is the refusal of a data set that carried predefined folds
// given without its folds file.
func foldsMissing(id string, d Data) error {
	return fmt.Errorf("data set %s carried %d predefined folds: give its folds file with --folds %s=FILE (or \"folds_file\" in the spec's data)", label(id, d), d.Folds, cmp.Or(d.Name, id))
}

// label names a data set in a sentence: its display name and the spec's
// name for it.
func label(id string, d Data) string {
	if d.Name != "" && d.Name != id {
		return fmt.Sprintf("%s (%s)", d.Name, id)
	}
	return id
}

// listOr lists names for a sentence, or says there are none.
func listOr(names []string) string {
	if len(names) == 0 {
		return "it names none"
	}
	return "it names " + strings.Join(names, ", ")
}
