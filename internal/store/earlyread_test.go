package store

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"mldr/internal/dataset"
)

// openLog is the OS file system, counting the opens for reading of
// staged data files.
type openLog struct {
	OSFS
	mu      sync.Mutex
	sources int
}

func (o *openLog) Open(name string) (File, error) {
	if filepath.Base(name) == sourceFile {
		o.mu.Lock()
		o.sources++
		o.mu.Unlock()
	}
	return o.OSFS.Open(name)
}

func (o *openLog) count() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.sources
}

// stageLogged opens a store over an openLog and stages an upload in it;
// both are closed and discarded when t ends.
func stageLogged(t *testing.T) (*Store, *openLog, *Staged) {
	t.Helper()
	fsys := &openLog{}
	s, err := Open(Config{Dir: t.TempDir(), FS: fsys})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	st, err := s.Stage()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Discard)
	return s, fsys, st
}

const (
	arffXY = "@relation r\n@attribute a numeric\n@attribute b numeric\n@attribute x {0,1}\n@attribute y {0,1}\n@data\n" +
		"1,2,0,1\n3,4,1,1\n5,6,1,0\n"
	xmlXY = `<?xml version="1.0" encoding="utf-8"?><labels xmlns="http://mulan.sourceforge.net/labels">` +
		`<label name="x"></label><label name="y"></label></labels>`
)

// TestReadAsReceived checks that a data file read as it arrives gives what
// reading it from disk gives, and that it is read again from disk exactly
// when the options it was read with are not the upload's in the end.
func TestReadAsReceived(t *testing.T) {
	prefix := dataset.Options{LabelPrefix: "label:"}
	multiLabel := dataset.Options{LabelPrefix: "label:", Kind: dataset.MultiLabel}
	named := dataset.Options{Labels: []string{"b", "label:y"}}
	for _, tc := range []struct {
		name      string
		file      string
		readWith  *dataset.Options // ReadAsReceived's, or none
		xml       string           // a label file received after the data file
		opts      dataset.Options  // CreateDataset's
		rereads   int              // the opens of the file from disk
		wantLine  int              // a refusal on this line, or 0
		wantLabel []string
	}{
		{name: "options before the file", file: csvA, readWith: &prefix, opts: prefix, wantLabel: []string{"x", "y"}},
		{name: "no options given early", file: csvA, opts: prefix, rereads: 1, wantLabel: []string{"x", "y"}},
		{name: "options changed after the file", file: csvA, readWith: &prefix, opts: named, rereads: 1, wantLabel: []string{"b", "y"}},
		{name: "label file after the data file", file: arffXY, readWith: &dataset.Options{}, xml: xmlXY, rereads: 1, wantLabel: []string{"x", "y"}},
		{name: "refused file, same options", file: "a,label:y\n1,0\n2,zz\n", readWith: &multiLabel, opts: multiLabel, wantLine: 3},
		{name: "refused early, accepted with the final options", file: "a,b\n1,x\n2,y\n", readWith: &dataset.Options{},
			opts: dataset.Options{Labels: []string{"b"}}, rereads: 1, wantLabel: []string{"b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, fsys, st := stageLogged(t)
			if tc.readWith != nil {
				st.ReadAsReceived(*tc.readWith, int64(len(tc.file)))
			}
			if err := st.ReceiveSource(context.Background(), "f", strings.NewReader(tc.file), 0); err != nil {
				t.Fatal(err)
			}
			if tc.xml != "" {
				if err := st.ReceiveXML(context.Background(), strings.NewReader(tc.xml)); err != nil {
					t.Fatal(err)
				}
			}
			rec, err := s.CreateDataset(context.Background(), st, "", tc.opts)
			if got := fsys.count(); got != tc.rereads {
				t.Errorf("the file was read from disk %d times, want %d", got, tc.rereads)
			}
			if tc.wantLine != 0 {
				var ie *dataset.InputError
				if !errors.As(err, &ie) || ie.Line != tc.wantLine {
					t.Fatalf("got %v, want a refusal on line %d", err, tc.wantLine)
				}
				// The same refusal as reading the file from disk gives.
				_, want := dataset.Load(strings.NewReader(tc.file), tc.opts)
				if err.Error() != want.Error() {
					t.Errorf("got %q, reading from disk gives %q", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			det, err := s.Details(rec)
			if err != nil {
				t.Fatal(err)
			}
			if got := det.Labels.Strings(); !reflect.DeepEqual(got, tc.wantLabel) {
				t.Errorf("labels %v, want %v", got, tc.wantLabel)
			}
			// The stored data are those of reading the file with the
			// upload's options.
			got, err := s.LoadDataset(rec.ID)
			if err != nil {
				t.Fatal(err)
			}
			opts := tc.opts
			if tc.xml != "" {
				opts.LabelXML, _ = dataset.ParseLabelXML(strings.NewReader(tc.xml))
			}
			want, err := dataset.Load(strings.NewReader(tc.file), opts)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.X, want.X) || !reflect.DeepEqual(got.Y, want.Y) || !reflect.DeepEqual(got.Labels, want.Labels) {
				t.Errorf("stored %v %v %v, reading from disk gives %v %v %v", got.X, got.Y, got.Labels, want.X, want.Y, want.Labels)
			}
		})
	}
}

// failingReader gives n bytes of r, then err.
type failingReader struct {
	r   io.Reader
	n   int
	err error
}

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, f.err
	}
	if len(p) > f.n {
		p = p[:f.n]
	}
	k, err := f.r.Read(p)
	f.n -= k
	return k, err
}

// TestReadAsReceivedBrokenUpload checks that an upload that breaks off, or
// is too large, while its file is read as it arrives ends with the
// receiving's error, and that Discard then leaves nothing and does not
// wait for a reading that waits for more.
func TestReadAsReceivedBrokenUpload(t *testing.T) {
	big := "a,label:y\n" + strings.Repeat("1.5,0\n", 200000)
	for _, tc := range []struct {
		name  string
		src   io.Reader
		limit int64
		want  func(error) bool
	}{
		{"broken off", &failingReader{r: strings.NewReader(big), n: 500000, err: io.ErrUnexpectedEOF},
			0, func(err error) bool { return errors.Is(err, io.ErrUnexpectedEOF) }},
		{"too large", strings.NewReader(big), 100000,
			func(err error) bool { var tl *TooLargeError; return errors.As(err, &tl) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s := open(t, dir)
			defer s.Close()
			st, err := s.Stage()
			if err != nil {
				t.Fatal(err)
			}
			st.ReadAsReceived(dataset.Options{}, int64(len(big)))
			err = st.ReceiveSource(context.Background(), "f.csv", tc.src, tc.limit)
			if !tc.want(err) {
				t.Fatalf("got %v", err)
			}
			done := make(chan struct{})
			go func() { st.Discard(); close(done) }()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("Discard still waits after 30 s")
			}
			if es, _ := os.ReadDir(filepath.Join(dir, "tmp")); len(es) != 0 {
				t.Errorf("tmp holds %d entries", len(es))
			}
		})
	}
}

// TestReadAsReceivedPanic checks that a panic of the reading beside the
// receiving, which no handler would recover, ends neither the server nor
// the upload: the file is read again from disk.
func TestReadAsReceivedPanic(t *testing.T) {
	defer func(load func(io.Reader, dataset.Options, *dataset.BinaryStream) (*dataset.Dataset, error)) {
		loadEarly = load
	}(loadEarly)
	loadEarly = func(r io.Reader, _ dataset.Options, _ *dataset.BinaryStream) (*dataset.Dataset, error) {
		io.CopyN(io.Discard, r, 5)
		panic("a bug")
	}
	s, fsys, st := stageLogged(t)
	opts := dataset.Options{LabelPrefix: "label:"}
	st.ReadAsReceived(opts, int64(len(csvA)))
	if err := st.ReceiveSource(context.Background(), "a.csv", strings.NewReader(csvA), 0); err != nil {
		t.Fatal(err)
	}
	rec, err := s.CreateDataset(context.Background(), st, "", opts)
	if err != nil || rec.Summary.Rows != 3 {
		t.Fatalf("got %+v, %v; want the 3 rows read from disk", rec.Summary, err)
	}
	if fsys.count() != 1 {
		t.Errorf("the file was read from disk %d times, want 1", fsys.count())
	}
}
