package store

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"mldr/internal/dataset"

	"mldr/internal/membudget"
)

const (
	sourceFile = "source"
	xmlFile    = "labels.xml"
	foldsFile  = "folds.csv"
	// maxXMLBytes bounds a Mulan label file.
	maxXMLBytes = 16 << 20
)

// DatasetRecord is the metadata of a stored data set.
type DatasetRecord struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	FileName  string    `json:"file_name"` // as the client named it; display only
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	Bytes     int64     `json:"bytes"`  // size of the uploaded file
	SHA256    string    `json:"sha256"` // of the uploaded file
	// Columns and LabelColumns are what records made before details files
	// existed held of the file's columns; today's records leave them
	// empty and the details file (DetailsFile) holds them.
	Columns      []string        `json:"columns,omitempty"`
	LabelColumns []string        `json:"label_columns,omitempty"`
	Options      dataset.Options `json:"options"` // how the file was read
	// Summary is bounded whatever the data set's width (see
	// dataset.Summary); the lists that grow with it are in DetailsFile.
	Summary  dataset.Summary `json:"summary"`
	DataFile string          `json:"data_file"`
	// DetailsFile names the file of the data set's details (its columns,
	// label names and label statistics; see Files.Details), beside its
	// data file.
	DetailsFile string `json:"details_file,omitempty"`
	// Folds is the number of predefined folds stored with the data set,
	// FoldsSHA256 the SHA-256 of their file as uploaded (empty for data
	// sets stored before it was kept).
	Folds       int    `json:"folds,omitempty"`
	FoldsSHA256 string `json:"folds_sha256,omitempty"`
	Gen         int    `json:"gen"` // bumped by every relabel
	// Shards, for a data set stored in row shards (shards.go), lists them
	// in order, and DataFile is then their directory; nil for a data set
	// stored in one file.
	Shards []ShardInfo `json:"shards,omitempty"`
}

// Upload is a whole data set on its way in, for Import.
type Upload struct {
	// Name is the display name; empty means FileName without its extension.
	Name     string
	FileName string
	Source   io.Reader
	// XML is an optional Mulan XML label file (with ARFF).
	XML     io.Reader
	Options dataset.Options
	// MaxBytes limits Source (≤ 0: no limit).
	MaxBytes int64
}

// Import stores an upload in one call: Stage, ReceiveSource, ReceiveXML and
// CreateDataset.
func (s *Store) Import(ctx context.Context, up Upload) (DatasetRecord, error) {
	st, err := s.Stage()
	if err != nil {
		return DatasetRecord{}, err
	}
	defer st.Discard()
	if err := st.ReceiveSource(ctx, up.FileName, up.Source, up.MaxBytes); err != nil {
		return DatasetRecord{}, err
	}
	if up.XML != nil {
		if err := st.ReceiveXML(ctx, up.XML); err != nil {
			return DatasetRecord{}, err
		}
	}
	return s.CreateDataset(ctx, st, up.Name, up.Options)
}

// Staged is an upload being received. Its files wait in a staging directory
// until CreateDataset moves them into place or Discard removes them; Open
// removes any that a crash left behind.
type Staged struct {
	fs       FS
	dir      string
	fileName string
	size     int64
	sha256   string
	received bool
	xml      []string
	folds    bool
	// foldsSHA256 is the folds file's SHA-256, hex-encoded.
	foldsSHA256 string

	readWith *dataset.Options // ReadAsReceived's options, for the next ReceiveSource
	sizeHint int64
	// claim is the upload's share of the store's memory budget, which
	// its readings grow (dataset.Options.WithMemory); released by
	// CreateDataset and Discard.
	claim  *membudget.Claim
	early  *earlyRead  // the data file read as it arrived, or nil
	stream *dataStream // the binary data file written by that reading, or nil
	synced chan error  // the data file's fsync, running beside the reading
}

// dataStream is the binary data file that the reading as the file arrives
// writes as it goes (dataset.BinaryStream), in a temporary file of the
// staging directory: CreateDataset makes it the data set's data file when
// the reading is the one used and the stream could hold its features.
type dataStream struct {
	f  File
	bs *dataset.BinaryStream
	wb *writeback
}

// startStream creates the temporary file of a dataStream in the staging
// directory; nil (the data file is then written after the reading, as
// without) when the file system's files cannot be written at an offset.
func (st *Staged) startStream() *dataStream {
	f, err := st.fs.CreateTemp(st.dir, ".tmp-data-*")
	if err != nil {
		return nil // the data file's writing will say what is wrong
	}
	sf, ok := f.(dataset.StreamFile)
	if !ok {
		f.Close()
		st.fs.Remove(f.Name())
		return nil
	}
	d := &dataStream{f: f, wb: newWriteback(f)}
	d.bs = dataset.NewBinaryStream(sf, d.wb.written)
	return d
}

// install completes the streamed file for ds and moves it to path, durable
// (installTemp); ok is false, with nothing written at path, when the
// stream cannot make ds's data file. The reading that wrote it has ended.
func (d *dataStream) install(fsys FS, ds *dataset.Dataset, path string) (ok bool, err error) {
	ok, err = d.bs.Finish(ds)
	d.wb.stop()
	if !ok {
		d.discard(fsys)
		return false, err
	}
	return true, installTemp(fsys, d.f, path)
}

// dropStream discards the streamed data file, if there is one.
func (st *Staged) dropStream() {
	if st.stream != nil {
		st.stream.discard(st.fs)
		st.stream = nil
	}
}

// discard closes and removes the streamed file. The reading that wrote it
// has ended.
func (d *dataStream) discard(fsys FS) {
	d.wb.stop()
	d.f.Close()
	fsys.Remove(d.f.Name())
}

// ReadAsReceived asks that ReceiveSource read the data file with opts as
// it arrives, beside the receiving, rather than CreateDataset from disk
// after it. CreateDataset uses that reading if its own options (and the
// label file of a ReceiveXML) turn out the same, and otherwise reads the
// file again: a client that sends the options before the file saves the
// time of the reading. sizeHint (≤ 0: unknown) is the most bytes the file
// can have, e.g. the request's length.
func (st *Staged) ReadAsReceived(opts dataset.Options, sizeHint int64) {
	st.readWith, st.sizeHint = &opts, sizeHint
}

// Stage starts receiving an upload.
func (s *Store) Stage() (*Staged, error) {
	dir, err := s.fs.MkdirTemp(s.StagingDir(), "upload-")
	if err != nil {
		return nil, fmt.Errorf("creating a staging directory: %w", err)
	}
	return &Staged{fs: s.fs, dir: dir, claim: s.memory.Claim("this file")}, nil
}

// Discard removes what was received; after CreateDataset it does nothing.
// It waits for the reading and the syncing that ReceiveSource started.
func (st *Staged) Discard() {
	if st.early != nil {
		<-st.early.done
		st.early.ds = nil
	}
	st.dropStream()
	st.waitSynced()
	st.claim.Release()
	st.fs.RemoveAll(st.dir)
}

// waitSynced waits for the data file's fsync and returns its error, once.
func (st *Staged) waitSynced() error {
	if st.synced == nil {
		return nil
	}
	err := <-st.synced
	st.synced = nil
	return err
}

// Received reports whether the data file has arrived.
func (st *Staged) Received() bool { return st.received }

// ReceiveSource copies the data file to disk, hashing it. At most limit
// bytes are accepted (≤ 0: no limit); beyond, a *TooLargeError. An empty
// part without a file name (a form whose file field was left empty) counts
// as no file.
func (st *Staged) ReceiveSource(ctx context.Context, fileName string, r io.Reader, limit int64) error {
	if st.received {
		return &dataset.InputError{Field: "file", Msg: "send one data file per upload"}
	}
	h := sha256.New()
	path := filepath.Join(st.dir, sourceFile)
	sinks := []io.Writer{h}
	var toReader *io.PipeWriter
	if st.readWith != nil {
		opts := *st.readWith
		if st.xml != nil {
			opts.LabelXML = st.xml
		}
		st.stream = st.startStream()
		var bs *dataset.BinaryStream
		if st.stream != nil {
			bs = st.stream.bs
		}
		st.early, toReader = startEarlyRead(opts.WithMemory(st.claim.Grow), st.sizeHint, bs)
		sinks = append(sinks, toReader)
	}
	size, f, err := receive(ctx, st.fs, path, r, limit, sinks...)
	if toReader != nil {
		toReader.CloseWithError(err) // nil: the end of the file
	}
	if err != nil {
		return err
	}
	if size == 0 && fileName == "" {
		f.Close()
		if st.early != nil {
			<-st.early.done
			st.early = nil
		}
		st.dropStream()
		if err := st.fs.Remove(path); err != nil {
			return fmt.Errorf("removing an empty file part: %w", err)
		}
		return nil
	}
	// The file is made durable while it is read; CreateDataset waits for
	// both before it moves the upload into place.
	st.synced = make(chan error, 1)
	go func() { st.synced <- syncClose(f) }()
	st.fileName, st.size, st.sha256, st.received = fileName, size, hex.EncodeToString(h.Sum(nil)), true
	return nil
}

// ReceiveXML copies and reads a Mulan XML label file.
func (st *Staged) ReceiveXML(ctx context.Context, r io.Reader) error {
	path := filepath.Join(st.dir, xmlFile)
	if _, err := spool(ctx, st.fs, path, r, maxXMLBytes); err != nil {
		var tl *TooLargeError
		if errors.As(err, &tl) {
			return &dataset.InputError{Field: "xml", Msg: "the label file is larger than " + FormatBytes(maxXMLBytes)}
		}
		return err
	}
	f, err := st.fs.Open(path)
	if err != nil {
		return fmt.Errorf("reading the label file: %w", err)
	}
	defer f.Close()
	st.xml, err = dataset.ParseLabelXML(f)
	return err
}

// ReceiveFolds copies a predefined folds file (see dataset.ParseFolds); it
// is checked against the data when CreateDataset reads them.
func (st *Staged) ReceiveFolds(ctx context.Context, r io.Reader) error {
	h := sha256.New()
	if _, err := spool(ctx, st.fs, filepath.Join(st.dir, foldsFile), io.TeeReader(r, h), maxXMLBytes); err != nil {
		var tl *TooLargeError
		if errors.As(err, &tl) {
			return &dataset.InputError{Field: "folds", Msg: "the folds file is larger than " + FormatBytes(maxXMLBytes)}
		}
		return err
	}
	st.folds, st.foldsSHA256 = true, hex.EncodeToString(h.Sum(nil))
	return nil
}

// CreateDataset reads and checks the received file with dataset.Load and,
// only if that succeeds, moves it into place and commits its record. On
// any error nothing is stored: a refused file gives the loader's
// *dataset.InputError. A label file received with ReceiveXML names the
// labels.
func (s *Store) CreateDataset(ctx context.Context, st *Staged, name string, opts dataset.Options) (DatasetRecord, error) {
	return s.createDataset(ctx, st, NewID(), name, opts)
}

// CreateDatasetAs is CreateDataset with the data set's id chosen by the
// caller, an id of NewID's form not yet stored: the command line's runs
// (webapp run) store the data files a spec names in a data directory of
// their own under the ids the spec gives them (experiment.json's), so that
// their results name the data sets as the experiment did.
func (s *Store) CreateDatasetAs(ctx context.Context, st *Staged, id, name string, opts dataset.Options) (DatasetRecord, error) {
	if !ValidID(id) {
		return DatasetRecord{}, fmt.Errorf("data set id %q: an id is 16 characters from a-z and 2-7", id)
	}
	if _, err := s.Dataset(id); err == nil {
		return DatasetRecord{}, fmt.Errorf("data set id %q is taken", id)
	}
	return s.createDataset(ctx, st, id, name, opts)
}

// SHA256 is the SHA-256 of the received data file's bytes, hex-encoded
// ("" before ReceiveSource): the record's SHA256 once it is stored.
func (st *Staged) SHA256() string { return st.sha256 }

func (s *Store) createDataset(ctx context.Context, st *Staged, id, name string, opts dataset.Options) (DatasetRecord, error) {
	if !st.received {
		return DatasetRecord{}, &dataset.InputError{Field: "file", Msg: "choose a CSV, ARFF or libsvm file to upload"}
	}
	if st.xml != nil {
		opts.LabelXML = st.xml
	}
	if err := opts.Validate(); err != nil {
		return DatasetRecord{}, err
	}
	if st.folds && opts.Missing == dataset.MissingDropRows {
		return DatasetRecord{}, &dataset.InputError{Field: "folds", Msg: "predefined folds number the rows of the file, " +
			"so they cannot be used with missing=drop-rows, which leaves rows out"}
	}
	// What the reading holds is given back once the data set is stored
	// (or refused): its matrices are then the caller's to drop.
	defer st.claim.Release()
	ds, early, err := st.read(opts.WithMemory(st.claim.Grow))
	if err != nil {
		return DatasetRecord{}, err
	}
	nfolds := 0
	if st.folds {
		folds, err := readFolds(s.fs, filepath.Join(st.dir, foldsFile), ds.Rows())
		if err != nil {
			return DatasetRecord{}, err
		}
		nfolds = len(folds)
	}
	now := s.now().UTC()
	rec := DatasetRecord{
		ID: id, Name: displayName(name, st.fileName), FileName: baseName(st.fileName),
		CreatedAt: now, UpdatedAt: now, Bytes: st.size, SHA256: st.sha256,
		Options: opts, Gen: 1, Folds: nfolds, FoldsSHA256: st.foldsSHA256,
	}
	ds.Name = rec.Name
	det := rec.fill(ds, "")
	if rec.DataFile, rec.Shards, err = st.storeData(s.fs, rec.Gen, ds, s.shardSize, early); err != nil {
		return DatasetRecord{}, fmt.Errorf("storing the data set: %w", err)
	}
	if err := writeDetails(s.fs, st.dir, rec.DetailsFile, det); err != nil {
		return DatasetRecord{}, fmt.Errorf("storing the data set: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return DatasetRecord{}, err
	}
	if err := st.waitSynced(); err != nil {
		return DatasetRecord{}, fmt.Errorf("storing the uploaded file: %w", err)
	}
	final := s.path("datasets", rec.ID)
	if err := s.fs.Rename(st.dir, final); err != nil {
		return DatasetRecord{}, fmt.Errorf("moving the data set into place: %w", err)
	}
	// From here the files are in place but no record names them: on any
	// error they go (and Open removes them, should that fail too).
	if err := syncDir(s.fs, s.path("datasets")); err != nil {
		s.fs.RemoveAll(final)
		return DatasetRecord{}, fmt.Errorf("moving the data set into place: %w", err)
	}
	if err := s.put(context.WithoutCancel(ctx), rec); err != nil {
		s.fs.RemoveAll(final)
		return DatasetRecord{}, err
	}
	return rec, nil
}

// read returns the data file read with opts: the reading made as it
// arrived (ReadAsReceived) if it used the same options (early is then
// true), or else a reading from disk now.
func (st *Staged) read(opts dataset.Options) (ds *dataset.Dataset, early bool, err error) {
	if st.early != nil {
		e := st.early
		st.early = nil
		if ds, err, ok := e.result(opts); ok {
			return ds, true, err
		}
	}
	ds, err = loadFile(st.fs, filepath.Join(st.dir, sourceFile), opts)
	return ds, false, err
}

// storeData writes ds, generation gen, as its data file in the staging
// directory (writeData): the file streamed by the reading as the upload
// arrived when that reading is ds (early) and the stream holds it, one
// file, not shards; otherwise written now.
func (st *Staged) storeData(fsys FS, gen int, ds *dataset.Dataset, shardSize int64, early bool) (string, []ShardInfo, error) {
	if d := st.stream; d != nil && early && len(shardRanges(ds, shardSize)) <= 1 {
		st.stream = nil
		name := dataName(gen, "", false)
		ok, err := d.install(fsys, ds, filepath.Join(st.dir, name))
		if ok || err != nil {
			return name, nil, err
		}
	}
	st.dropStream()
	return writeData(fsys, st.dir, gen, "", ds, shardSize)
}

func readFolds(fsys FS, path string, rows int) ([]dataset.Fold, error) {
	f, err := fsys.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading the folds: %w", err)
	}
	defer f.Close()
	return dataset.ParseFolds(f, rows)
}

// LoadFolds returns a data set's predefined folds, or nil if it has none.
func (s *Store) LoadFolds(id string) ([]dataset.Fold, error) {
	rec, err := s.Dataset(id)
	if err != nil {
		return nil, err
	}
	return s.LoadRecordFolds(rec)
}

// OpenSource opens the file as uploaded. It opens it with the os package,
// not the store's FS, since the caller serves the *os.File.
func (s *Store) OpenSource(id string) (*os.File, DatasetRecord, error) {
	rec, err := s.Dataset(id)
	if err != nil {
		return nil, rec, err
	}
	f, err := os.Open(s.path("datasets", id, sourceFile))
	if err != nil {
		return nil, rec, fmt.Errorf("opening the file of data set %s: %w", id, err)
	}
	return f, rec, nil
}

func loadFile(fsys FS, path string, opts dataset.Options) (*dataset.Dataset, error) {
	f, err := fsys.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading the stored file: %w", err)
	}
	defer f.Close()
	return dataset.Load(f, opts)
}

// fill sets what a record keeps of a loaded data set, the name of its
// details file with tag among them, and returns the details to write
// there.
func (r *DatasetRecord) fill(ds *dataset.Dataset, tag string) *dataset.Details {
	r.Columns, r.LabelColumns = nil, nil
	var det *dataset.Details
	r.Summary, det = dataset.Describe(ds)
	r.DataFile, r.Shards = dataName(r.Gen, "", false), nil
	r.DetailsFile = detailsName(r.Gen, tag)
	return det
}

// baseName is the last element of a client's file name, whatever its
// path separator; it is for display only and never touches the disk.
func baseName(file string) string {
	file = strings.ReplaceAll(file, `\`, "/")
	if i := strings.LastIndexByte(file, '/'); i >= 0 {
		file = file[i+1:]
	}
	return file
}

// maxNameRunes bounds a display name.
const maxNameRunes = 200

func displayName(name, file string) string {
	if name = strings.TrimSpace(name); name != "" {
		if r := []rune(name); len(r) > maxNameRunes {
			name = string(r[:maxNameRunes])
		}
		return name
	}
	base := baseName(file)
	if base = strings.TrimSuffix(base, filepath.Ext(base)); base != "" {
		return base
	}
	return "untitled"
}

// Datasets lists every stored data set, newest first.
func (s *Store) Datasets() ([]DatasetRecord, error) {
	out, err := s.meta.Datasets(context.Background())
	if err != nil {
		return nil, fmt.Errorf("listing data sets: %w", err)
	}
	slices.SortFunc(out, func(a, b DatasetRecord) int {
		return cmp.Or(b.CreatedAt.Compare(a.CreatedAt), strings.Compare(a.ID, b.ID))
	})
	return out, nil
}

// Dataset returns one record, or ErrNotFound.
func (s *Store) Dataset(id string) (DatasetRecord, error) {
	if !ValidID(id) {
		return DatasetRecord{}, fmt.Errorf("data set %q: %w", id, ErrNotFound)
	}
	return s.meta.Dataset(context.Background(), id)
}

// LoadDataset reads a stored data set's matrices.
func (s *Store) LoadDataset(id string) (*dataset.Dataset, error) {
	for attempt := 0; ; attempt++ {
		rec, err := s.Dataset(id)
		if err != nil {
			return nil, err
		}
		ds, err := s.LoadRecord(rec)
		if errors.Is(err, os.ErrNotExist) && attempt == 0 {
			continue // a relabel replaced the file between the two reads
		}
		return ds, err
	}
}

// Relabel reads a stored data set's file again with other label columns
// (and kind, "" to decide from the values). The new data replace the old
// only if the file reads cleanly with them; otherwise the loader's error is
// returned and nothing changes.
func (s *Store) Relabel(ctx context.Context, id string, labels []string, kind dataset.Kind) (DatasetRecord, error) {
	// Two relabels at once would both write data-<gen+1>.bin; the one that
	// lost the commit would then remove the file the other's record names.
	// In shared mode the other may be another process: there the name has
	// a random part.
	s.relabel.Lock()
	defer s.relabel.Unlock()
	rec, err := s.Dataset(id)
	if err != nil {
		return rec, err
	}
	opts := rec.Options
	opts.Labels, opts.LabelCount, opts.LabelXML, opts.Kind = labels, 0, nil, kind
	if len(labels) == 0 {
		return rec, &dataset.InputError{Field: "labels", Msg: "choose at least one label column"}
	}
	claim := s.memory.Claim("reading this data set's file again")
	defer claim.Release()
	ds, err := loadFile(s.fs, s.path("datasets", id, sourceFile), opts.WithMemory(claim.Grow))
	if err != nil {
		return rec, err
	}
	if err := ctx.Err(); err != nil {
		return rec, err
	}
	next := rec
	next.Options, next.Gen, next.UpdatedAt = opts, rec.Gen+1, s.now().UTC()
	ds.Name = rec.Name
	tag := ""
	if s.shared() {
		tag = NewID()
	}
	det := next.fill(ds, tag)
	if next.DataFile, next.Shards, err = writeData(s.fs, s.path("datasets", id), next.Gen, tag, ds, s.shardSize); err != nil {
		return rec, fmt.Errorf("storing the relabelled data set: %w", err)
	}
	dataPath := s.path("datasets", id, next.DataFile)
	detailsPath := s.path("datasets", id, next.DetailsFile)
	if err := writeDetails(s.fs, s.path("datasets", id), next.DetailsFile, det); err != nil {
		s.fs.RemoveAll(dataPath)
		return rec, fmt.Errorf("storing the relabelled data set: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	err = s.meta.UpdateDataset(context.WithoutCancel(ctx), id, rec.Gen, next)
	if errors.Is(err, ErrConflict) {
		err = fmt.Errorf("data set %s changed while it was being relabelled: %w", id, ErrConflict)
	}
	if err != nil {
		s.fs.RemoveAll(dataPath)
		s.fs.RemoveAll(detailsPath)
		return rec, err
	}
	if err := s.fs.RemoveAll(s.path("datasets", id, rec.DataFile)); err != nil {
		s.log.Warn("removing a replaced data file", "id", id, "err", err)
	}
	if rec.DetailsFile != "" && rec.DetailsFile != next.DetailsFile {
		if err := s.fs.RemoveAll(s.path("datasets", id, rec.DetailsFile)); err != nil {
			s.log.Warn("removing a replaced details file", "id", id, "err", err)
		}
	}
	return next, nil
}

// DeleteDataset removes a data set: metadata first, then its files.
func (s *Store) DeleteDataset(id string) error {
	if _, err := s.Dataset(id); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.meta.DeleteDataset(context.Background(), id); err != nil {
		return fmt.Errorf("deleting data set %s: %w", id, err)
	}
	delete(s.problems, id)
	if err := s.fs.RemoveAll(s.path("datasets", id)); err != nil {
		// The metadata is gone; Open removes the files next time.
		s.log.Warn("removing data set files", "id", id, "err", err)
	}
	return nil
}

func (s *Store) put(ctx context.Context, rec DatasetRecord) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.meta.PutDataset(ctx, rec)
}
