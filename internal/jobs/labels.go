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
// relabelled. It is one line of JSON (runLabelsHeader), then the labels of
// every row of the training data set and then of the test data set, row by
// row. Version 2 (multi-label data) holds each row's labels as a uvarint
// count followed by the uvarint gaps between the indices of the labels the
// row has (the first index itself, then each index minus the previous one),
// so that the file grows with the labels present, not with q. Version 1
// (multi-dimensional data, and multi-label results written before version
// 2) holds every value, each an unsigned little-endian integer of Width
// bytes: 0 or 1 (multi-label), or the class's index (multi-dimensional).
// Results from before the file existed lack it.
const FileLabels = "labels.bin"

// RunLabels are the labels a job ran with. They are held compactly: 4 bytes
// for each label a row has (multi-label) or for each class variable of a
// row (multi-dimensional), and 8 bytes a row, never a value per row and
// label.
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
	// codes holds the rows' labels, the training rows first: row i is
	// codes[start[i]:start[i+1]], the indices of its labels in ascending
	// order (multi-label) or its len(Labels) class indices
	// (multi-dimensional).
	codes []int32
	start []int
}

// row returns the codes of row i (0-based) of the test data set (test) or
// of the training data set, nil for a row the job did not have.
func (l *RunLabels) row(test bool, i int) []int32 {
	if test {
		if i < 0 || i >= l.TestRows {
			return nil
		}
		i += l.TrainRows
	} else if i < 0 || i >= l.TrainRows {
		return nil
	}
	a, b := l.start[i], l.start[i+1]
	return l.codes[a:b:b]
}

// Ones returns the indices (0-based, ascending) of the labels that row i
// (0-based) of the test data set (test) or of the training data set has,
// for multi-label data; the slice must not be changed. It is nil for a row
// the job did not have, and empty (not nil) for a row without labels.
// Calling it on multi-dimensional labels is a programmer's mistake and
// panics: use Classes.
func (l *RunLabels) Ones(test bool, i int) []int32 {
	if l.Kind == dataset.MultiDim {
		panic("jobs: RunLabels.Ones called on multi-dimensional labels")
	}
	return l.row(test, i)
}

// Classes returns the class index of each class variable of row i
// (0-based) of the test data set (test) or of the training data set, for
// multi-dimensional data; the slice must not be changed. It is nil for a
// row the job did not have. Calling it on multi-label data is a
// programmer's mistake and panics: use Ones.
func (l *RunLabels) Classes(test bool, i int) []int32 {
	if l.Kind != dataset.MultiDim {
		panic("jobs: RunLabels.Classes called on multi-label data")
	}
	return l.row(test, i)
}

// Bytes is about the memory l's labels hold.
func (l *RunLabels) Bytes() int64 { return 4*int64(cap(l.codes)) + 8*int64(cap(l.start)) }

// appendDataset appends the rows of ds's labels Y (q = len(l.Labels)
// columns) to l.
func (l *RunLabels) appendDataset(ds *dataset.Dataset) {
	n, _ := ds.LabelDims()
	q := len(l.Labels)
	for i := range n {
		if l.Kind == dataset.MultiDim {
			for _, v := range ds.Y.RawRowView(i)[:q] {
				l.codes = append(l.codes, int32(v))
			}
		} else {
			l.codes = ds.LabelsOf(i, l.codes)
		}
		l.start = append(l.start, len(l.codes))
	}
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
	// Width is the bytes per value of version 1: 1, 2 or 4 (0 in
	// version 2).
	Width int `json:"width,omitempty"`
	// Ones counts the labels present in all the rows (version 2).
	Ones int64 `json:"ones,omitempty"`
}

// writeRunLabels writes FileLabels for the plan's data into the staged
// results.
func writeRunLabels(staged *store.StagedResults, p *plan) error {
	return staged.WriteFile(FileLabels, func(w io.Writer) error {
		return encodeRunLabels(w, p.train, p.test, p.trainRec.Gen)
	})
}

// encodeRunLabels writes FileLabels for train and test (nil: none), their
// rows counted by Y: version 2 for multi-label data, version 1 for multi-dimensional data.
func encodeRunLabels(w io.Writer, train, test *dataset.Dataset, gen int) error {
	rows := func(ds *dataset.Dataset) int { n, _ := ds.LabelDims(); return n }
	sets := []*dataset.Dataset{train}
	testRows := 0
	if test != nil {
		testRows = rows(test)
		sets = append(sets, test)
	}
	h := newRunLabelsHeader(train, rows(train), testRows, gen, sets...)
	if h.Version == 2 {
		for _, ds := range sets {
			h.Ones += ds.LabelOnes()
		}
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	if err := json.NewEncoder(bw).Encode(h); err != nil { // ends with '\n'
		return err
	}
	for _, ds := range sets {
		if _, err := writeLabelRows(bw, ds, h); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// newRunLabelsHeader is the header of FileLabels for trainRows rows of
// train's labels and testRows of a test set's, sets being the data sets
// whose categories set the width of version 1; Ones is left to count.
func newRunLabelsHeader(train *dataset.Dataset, trainRows, testRows, gen int, sets ...*dataset.Dataset) runLabelsHeader {
	h := runLabelsHeader{Version: 1, Kind: train.Kind, Labels: train.Labels.Strings(), Categories: train.Categories,
		Gen: gen, TrainRows: trainRows, TestRows: testRows, Width: 1}
	multiLabel := train.Kind != dataset.MultiDim
	if multiLabel {
		h.Version, h.Width = 2, 0
	}
	for _, ds := range sets {
		for _, c := range ds.Categories {
			switch {
			case multiLabel:
			case len(c) > math.MaxUint16+1:
				h.Width = 4
			case len(c) > math.MaxUint8+1 && h.Width < 2:
				h.Width = 2
			}
		}
	}
	return h
}

// writeLabelRows writes the rows of ds's labels as FileLabels' body holds
// them under header h, and returns the labels present (the ones of a
// multi-label ds).
func writeLabelRows(w io.Writer, ds *dataset.Dataset, h runLabelsHeader) (int64, error) {
	q := len(h.Labels)
	var b [binary.MaxVarintLen64]byte
	var ones int64
	n, _ := ds.LabelDims()
	var idx []int32
	for i := range n {
		if h.Version == 1 {
			for _, v := range ds.Y.RawRowView(i)[:q] {
				binary.LittleEndian.PutUint32(b[:], uint32(v))
				if _, err := w.Write(b[:h.Width]); err != nil {
					return ones, err
				}
			}
			continue
		}
		idx = ds.LabelsOf(i, idx[:0])
		ones += int64(len(idx))
		if _, err := w.Write(binary.AppendUvarint(b[:0], uint64(len(idx)))); err != nil {
			return ones, err
		}
		prev := 0
		for _, j := range idx {
			if _, err := w.Write(binary.AppendUvarint(b[:0], uint64(int(j)-prev))); err != nil {
				return ones, err
			}
			prev = int(j)
		}
	}
	return ones, nil
}

// errBadLabels says FileLabels does not hold what its header says.
var errBadLabels = errors.New("the labels file does not match its header")

// ReadRunLabels reads FileLabels, of either version.
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
	rows := h.TrainRows + h.TestRows
	multiDim := h.Kind == dataset.MultiDim
	switch {
	case h.TrainRows < 0 || h.TestRows < 0 || h.TrainRows > math.MaxInt32 || h.TestRows > math.MaxInt32:
		return nil, errBadLabels
	case h.Version == 1 && (h.Width == 1 || h.Width == 2 || h.Width == 4) && (q == 0 || rows <= math.MaxInt32/q):
	case h.Version == 2 && !multiDim && h.Width == 0 && h.Ones >= 0 && h.Ones <= int64(rows)*int64(q) && h.Ones <= math.MaxInt32:
	default:
		return nil, errBadLabels
	}
	l := &RunLabels{Kind: h.Kind, Labels: h.Labels, Categories: h.Categories, Gen: h.Gen, TrainRows: h.TrainRows, TestRows: h.TestRows,
		start: make([]int, 1, min(rows, 1<<20)+1)}
	if h.Version == 2 {
		err = l.readSparse(br, int(h.Ones))
	} else {
		err = l.readDense(br, h.Width, multiDim)
	}
	if err != nil {
		return nil, err
	}
	if _, err := br.ReadByte(); err != io.EOF {
		return nil, errBadLabels
	}
	return l, nil
}

// readDense reads version 1's values, Width bytes each: 0/1 (multi-label;
// anything else is an error) or class indices (multi-dimensional, each
// below its variable's number of classes when the header names them).
func (l *RunLabels) readDense(br *bufio.Reader, width int, multiDim bool) error {
	q, rows := len(l.Labels), l.TrainRows+l.TestRows
	if multiDim {
		l.codes = make([]int32, 0, rows*q)
	}
	var b [4]byte
	for range rows {
		for j := range q {
			if _, err := io.ReadFull(br, b[:width]); err != nil {
				return errBadLabels
			}
			v := binary.LittleEndian.Uint32(b[:])
			switch {
			case multiDim && (v > math.MaxInt32 || (len(l.Categories) == q && int(v) >= len(l.Categories[j]))):
				return errBadLabels
			case multiDim:
				l.codes = append(l.codes, int32(v))
			case v == 1:
				l.codes = append(l.codes, int32(j))
			case v != 0:
				return errBadLabels
			}
		}
		l.start = append(l.start, len(l.codes))
	}
	return nil
}

// readSparse reads version 2's rows: a count, then the gaps between
// ascending label indices, ones of them in all.
func (l *RunLabels) readSparse(br *bufio.Reader, ones int) error {
	q, rows := uint64(len(l.Labels)), l.TrainRows+l.TestRows
	l.codes = make([]int32, 0, ones)
	for range rows {
		count, err := binary.ReadUvarint(br)
		if err != nil || count > q || count > uint64(ones-len(l.codes)) {
			return errBadLabels
		}
		at := uint64(0)
		for k := range count {
			gap, err := binary.ReadUvarint(br)
			if err != nil || (k > 0 && gap == 0) || gap >= q-at {
				return errBadLabels
			}
			at += gap
			l.codes = append(l.codes, int32(at))
		}
		l.start = append(l.start, len(l.codes))
	}
	if len(l.codes) != ones {
		return errBadLabels
	}
	return nil
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
