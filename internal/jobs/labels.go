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
	"os"

	"mldr/internal/dataset"
	"mldr/internal/store"
)

// FileLabels is the result file that keeps the labels a job ran with, so
// that its plots are coloured by them even after the data set is
// relabelled. It is one line of JSON (runLabelsHeader), then the label
// values of every row of the training data set and then of the test data
// set, row by row, each an unsigned little-endian integer of Width bytes:
// 0 or 1 (multi-label), or the class's index (multi-dimensional). Results
// from before it existed lack it.
const FileLabels = "labels.bin"

// RunLabels are the labels a job ran with.
type RunLabels struct {
	Kind   dataset.Kind
	Labels []string
	// Categories names each class variable's classes (multi-dimensional).
	Categories [][]string
	// Gen is the training data set's generation (store.DatasetRecord.Gen)
	// when the job read it.
	Gen int
	// TrainRows and TestRows count the rows of the training and the test
	// data set (0 without one).
	TrainRows, TestRows int
	// values holds len(Labels) values per row, the training rows first.
	values []float64
}

// Row returns the labels of row i (0-based) of the test data set (test) or
// of the training data set; the slice must not be changed. It is nil for
// a row the job did not have.
func (l *RunLabels) Row(test bool, i int) []float64 {
	q, n := len(l.Labels), l.TrainRows
	if test {
		if i < 0 || i >= l.TestRows {
			return nil
		}
		i += l.TrainRows
	} else if i < 0 || i >= n {
		return nil
	}
	return l.values[i*q : (i+1)*q : (i+1)*q]
}

// runLabelsHeader is the first line of FileLabels.
type runLabelsHeader struct {
	Version    int          `json:"version"`
	Kind       dataset.Kind `json:"kind"`
	Labels     []string     `json:"labels"`
	Categories [][]string   `json:"categories,omitempty"`
	Gen        int          `json:"gen"`
	TrainRows  int          `json:"train_rows"`
	TestRows   int          `json:"test_rows"`
	Width      int          `json:"width"` // bytes per value: 1, 2 or 4
}

// writeRunLabels writes FileLabels for the plan's data into the staged
// results.
func writeRunLabels(staged *store.StagedResults, p *plan) error {
	h := runLabelsHeader{Version: 1, Kind: p.train.Kind, Labels: p.train.Labels, Categories: p.train.Categories,
		Gen: p.trainRec.Gen, TrainRows: p.train.Rows(), Width: 1}
	sets := []*dataset.Dataset{p.train}
	if p.test != nil {
		h.TestRows = p.test.Rows()
		sets = append(sets, p.test)
	}
	for _, ds := range sets {
		for _, c := range ds.Categories {
			switch {
			case len(c) > math.MaxUint16+1:
				h.Width = 4
			case len(c) > math.MaxUint8+1 && h.Width < 2:
				h.Width = 2
			}
		}
	}
	return staged.WriteFile(FileLabels, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<16)
		if err := json.NewEncoder(bw).Encode(h); err != nil { // ends with '\n'
			return err
		}
		var b [4]byte
		for _, ds := range sets {
			for _, v := range ds.Y.RawMatrix().Data {
				binary.LittleEndian.PutUint32(b[:], uint32(v))
				if _, err := bw.Write(b[:h.Width]); err != nil {
					return err
				}
			}
		}
		return bw.Flush()
	})
}

// errBadLabels says FileLabels does not hold what its header says.
var errBadLabels = errors.New("the labels file does not match its header")

// ReadRunLabels reads FileLabels.
func ReadRunLabels(r io.Reader) (*RunLabels, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	line, err := br.ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("reading the labels' header: %w", err)
	}
	var h runLabelsHeader
	if err := json.Unmarshal(line, &h); err != nil {
		return nil, fmt.Errorf("decoding the labels' header: %w", err)
	}
	q := len(h.Labels)
	if h.Version != 1 || (h.Width != 1 && h.Width != 2 && h.Width != 4) || h.TrainRows < 0 || h.TestRows < 0 ||
		(q > 0 && h.TrainRows+h.TestRows > math.MaxInt32/q) {
		return nil, errBadLabels
	}
	l := &RunLabels{Kind: h.Kind, Labels: h.Labels, Categories: h.Categories, Gen: h.Gen, TrainRows: h.TrainRows, TestRows: h.TestRows,
		values: make([]float64, (h.TrainRows+h.TestRows)*q)}
	var b [4]byte
	for i := range l.values {
		if _, err := io.ReadFull(br, b[:h.Width]); err != nil {
			return nil, errBadLabels
		}
		l.values[i] = float64(binary.LittleEndian.Uint32(b[:]))
	}
	if _, err := br.ReadByte(); err != io.EOF {
		return nil, errBadLabels
	}
	return l, nil
}

// RunLabels returns the labels a succeeded job ran with, checked against
// the job's checksums; nil (and no error) for results written before jobs
// kept them.
func (s *Service) RunLabels(id string) (*RunLabels, error) {
	path, err := s.resultFile(id, FileLabels)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the labels of job %s: %w", id, err)
	}
	defer f.Close()
	l, err := ReadRunLabels(f)
	if err != nil {
		return nil, fmt.Errorf("reading the labels of job %s: %w", id, err)
	}
	return l, nil
}
