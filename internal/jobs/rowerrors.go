package jobs

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"net/http"
	"os"

	"mldr/internal/evaluate"
	"mldr/internal/store"
)

// FileRowErrors is the result file that keeps, for a job on one data set
// with an evaluation, where its classifier fails on each row: for every
// cell of metrics.json (a method, ori included, at one d and, on a percent
// grid, one percentage) each row's Hamming loss and exact-match failure,
// measured when the row was a test row (evaluate.RowErrors says how).
//
// Its rows are those of projected.csv, in its order: the training rows of
// a holdout or of a test set, the rows of k-fold or predefined folds
// ("all"), then the test rows. A row no split tests (a holdout's or a test
// set's training row) is NaN; a row predefined folds test twice has the
// value of the first fold that tests it.
//
// The file is one line of JSON, the header:
//
//	{"version":1,"rows":N,"records":[{"method":"ori","d":24},{"method":"pca","d":2},
//	 {"method":"lda","d":6,"d_per_variable":2},{"method":"mddmp","d":3,"percent":50},…]}
//
// then, for each record in the header's order, 2·N float32 little-endian:
// the N rows' Hamming losses (the fraction of the row's label decisions, or
// of its class variables, that are wrong; 0 to 1), then their exact-match
// failures (1: some decision is wrong, 0: none). Record k's values start
// at byte len(header line) + 8·N·k, so a reader may seek to the one it
// wants. The records are metrics.json's mean rows, in their order, with
// the same method, d, d_per_variable and percent. It costs 8 bytes per row
// and cell (10 000 rows and 50 cells: 4 MB). Studies and jobs without an
// evaluation do not write it, nor did jobs before it existed.
const FileRowErrors = "row_errors.bin"

// RowErrorsFile is FileRowErrors read back.
type RowErrorsFile struct {
	// Rows is the number of rows, projected.csv's.
	Rows    int
	Records []RowErrorsRecord
}

// RowErrorsRecord is one cell's per-row errors, in the order of
// projected.csv's rows. Hamming and Exact have Rows values each, or are
// nil when the reader was asked not to keep them.
type RowErrorsRecord struct {
	Method       string    `json:"method"`
	D            int       `json:"d"`
	DPerVariable int       `json:"d_per_variable,omitempty"`
	Percent      *float64  `json:"percent,omitempty"`
	Hamming      []float32 `json:"-"`
	Exact        []float32 `json:"-"`
}

// Find returns the first record of method at d (the columns the classifier
// used, as metrics.json's d), and whether there is one.
func (f *RowErrorsFile) Find(method string, d int) (RowErrorsRecord, bool) {
	for _, r := range f.Records {
		if r.Method == method && r.D == d {
			return r, true
		}
	}
	return RowErrorsRecord{}, false
}

// rowErrorsHeader is the first line of FileRowErrors.
type rowErrorsHeader struct {
	Version int               `json:"version"`
	Rows    int               `json:"rows"`
	Records []RowErrorsRecord `json:"records"`
}

// rowOrder is the data's rows in the order of projected.csv (writeProjected
// for every method but mds, which is never evaluated): the training rows,
// the rows of folds ("all"), then the test rows.
func (p *plan) rowOrder() []int {
	order := make([]int, 0, len(p.rowSplit))
	for _, want := range []string{PartTrain, PartAll, PartTest} {
		for i, s := range p.rowSplit {
			if s == want {
				order = append(order, i)
			}
		}
	}
	return order
}

// writeRowErrors writes FileRowErrors of an evaluation's per-row errors
// (indexed by the rows of p.data) into the staged results.
func writeRowErrors(staged *store.StagedResults, p *plan, errs []evaluate.RowErrors) error {
	order := p.rowOrder()
	h := rowErrorsHeader{Version: 1, Rows: len(order)}
	for _, e := range errs {
		h.Records = append(h.Records, RowErrorsRecord{Method: e.Method, D: e.D, DPerVariable: e.DPerVariable, Percent: e.Percent})
	}
	return staged.WriteFile(FileRowErrors, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<16)
		if err := json.NewEncoder(bw).Encode(h); err != nil { // ends with '\n'
			return err
		}
		var b [4]byte
		for _, e := range errs {
			for _, values := range [][]float32{e.Hamming, e.Exact} {
				for _, i := range order {
					binary.LittleEndian.PutUint32(b[:], math.Float32bits(values[i]))
					if _, err := bw.Write(b[:]); err != nil {
						return err
					}
				}
			}
		}
		return bw.Flush()
	})
}

// errBadRowErrors says FileRowErrors does not hold what its header says.
var errBadRowErrors = errors.New("the per-row errors file does not match its header")

// maxRowErrorsRows bounds the rows a header may claim, so that a damaged
// one cannot ask for an absurd allocation (values are read as they come).
const maxRowErrorsRows = 1 << 30

// ReadRowErrors reads FileRowErrors. With keep, only the records keep
// accepts have their values read (the others are listed with nil slices
// and skipped), so that one cell can be read without holding them all;
// keep nil keeps every record.
func ReadRowErrors(r io.Reader, keep func(RowErrorsRecord) bool) (*RowErrorsFile, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	line, err := br.ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("reading the per-row errors' header: %w", err)
	}
	var h rowErrorsHeader
	if err := json.Unmarshal(line, &h); err != nil {
		return nil, fmt.Errorf("decoding the per-row errors' header: %w", err)
	}
	if h.Version != 1 || h.Rows < 0 || h.Rows > maxRowErrorsRows {
		return nil, errBadRowErrors
	}
	f := &RowErrorsFile{Rows: h.Rows, Records: h.Records}
	for k := range f.Records {
		rec := &f.Records[k]
		if keep != nil && !keep(*rec) {
			if _, err := br.Discard(8 * h.Rows); err != nil {
				return nil, errBadRowErrors
			}
			continue
		}
		if rec.Hamming, err = readFloat32s(br, h.Rows); err != nil {
			return nil, err
		}
		if rec.Exact, err = readFloat32s(br, h.Rows); err != nil {
			return nil, err
		}
	}
	if _, err := br.ReadByte(); err != io.EOF {
		return nil, errBadRowErrors
	}
	return f, nil
}

// readFloat32s reads n float32 little-endian, growing the slice as the
// values come.
func readFloat32s(br *bufio.Reader, n int) ([]float32, error) {
	v := make([]float32, 0, min(n, 1<<16))
	var b [4]byte
	for range n {
		if _, err := io.ReadFull(br, b[:]); err != nil {
			return nil, errBadRowErrors
		}
		v = append(v, math.Float32frombits(binary.LittleEndian.Uint32(b[:])))
	}
	return v, nil
}

// evaluatedJob checks that job id is a succeeded job on one data set with
// an evaluation, whose results (what) its evaluation wrote: otherwise a
// *RequestError, 409 for a job not succeeded, 404 saying why for a study
// and a job without an evaluation; ErrNotFound for an unknown job.
func (s *Service) evaluatedJob(id, what string) error {
	j, err := s.Get(id)
	if err != nil {
		return err
	}
	switch req := j.Request; {
	case j.Status != Succeeded:
		return &RequestError{Status: http.StatusConflict, Msg: fmt.Sprintf("job %s has %s; its %s are there once it has succeeded", id, j.Status, what)}
	case req.Study():
		return &RequestError{Status: http.StatusNotFound, Msg: fmt.Sprintf("a study over several data sets keeps no %s; a job on one data set with an evaluation does", what)}
	case req.Evaluate == nil || req.Evaluate.Classifier == evaluate.ClassifierNone:
		return &RequestError{Status: http.StatusNotFound, Msg: fmt.Sprintf("this job ran no evaluation, so it has no %s; run one with an evaluation", what)}
	}
	return nil
}

// RowErrors returns a succeeded job's per-row errors (FileRowErrors), every
// record with its values, checked against the job's checksums first (a
// file that fails the check gives an error wrapping store.ErrCorruptResult).
//
// A job that has none answers a *RequestError with 404 saying why: a
// study, a job without an evaluation, or one whose results were written
// before the file existed. A job not yet succeeded is a *RequestError with
// 409; an unknown one ErrNotFound.
func (s *Service) RowErrors(id string) (*RowErrorsFile, error) { return s.RowErrorsOf(id, nil) }

// RowErrorsOf is RowErrors with only the records keep accepts carrying
// values (see ReadRowErrors): what a page that shows one cell reads.
func (s *Service) RowErrorsOf(id string, keep func(RowErrorsRecord) bool) (*RowErrorsFile, error) {
	if err := s.evaluatedJob(id, "per-row errors"); err != nil {
		return nil, err
	}
	path, err := s.resultFile(id, FileRowErrors)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &RequestError{Status: http.StatusNotFound, Msg: fmt.Sprintf(
			"the results of job %s were written before per-row errors were kept; run it again (POST /api/jobs/%s/rerun) to have them", id, id)}
	}
	if err != nil {
		return nil, fmt.Errorf("reading the per-row errors of job %s: %w", id, err)
	}
	defer f.Close()
	re, err := ReadRowErrors(f, keep)
	if err != nil {
		return nil, fmt.Errorf("reading the per-row errors of job %s: %w", id, err)
	}
	return re, nil
}
