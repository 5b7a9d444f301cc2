package jobs

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"net/http"
	"os"
	"strconv"
	"strings"

	"mldr/internal/analysis"
	"mldr/internal/evaluate"
	"mldr/internal/store"
)

// FileLabelResults is the result file of a job on one multi-label data set
// with an evaluation that gives each label's results: a CSV with a header
// line and a line a label, in the data set's label order,
//
//	label,rows,tested,ori_d5000_tp,ori_d5000_fp,ori_d5000_fn,ori_d5000_precision,ori_d5000_recall,ori_d5000_f1,pca_d100_tp,…
//
// where rows is the number of the data's rows that have the label (the
// training data set's and a test data set's together), tested the number
// of those scored as test rows (each row once, by the first split that
// tests it: with k-fold splits every row), and for each cell of
// metrics.json (a method at one d; the cells of a percent grid that give
// the same d share one) the classifier's decisions on the tested rows: tp
// (has the label, predicted), fp (predicted, does not have it), fn (has
// it, not predicted), then precision tp/(tp + fp), recall tp/(tp + fn) and
// F1 2tp/(2tp + fp + fn), each empty where its denominator is 0 (metrics'
// macro_f1 counts such a label's F1 as 1). The counts pool every split's
// test rows; the metrics of metrics.json are per split, then averaged.
const FileLabelResults = "label_results.csv"

// LabelResultsFile is FileLabelResults read back.
type LabelResultsFile struct {
	// Cells are the methods at their d, in the file's column order.
	Cells []LabelCell
	// Labels are the labels, in the data set's order.
	Labels []LabelResult
}

// LabelCell is one method at one d of a job's per-label results.
type LabelCell struct {
	Method string
	D      int
}

// Key is the cell's column prefix: "pca_d100".
func (c LabelCell) Key() string { return c.Method + "_d" + strconv.Itoa(c.D) }

// LabelResult is one label's line: its name, its rows, its tested rows and
// each cell's counts, in the order of the file's cells.
type LabelResult struct {
	Name   string
	Rows   int
	Tested int
	Counts []LabelCounts
}

// LabelCounts are a label's decisions in one cell.
type LabelCounts struct {
	TP, FP, FN int
}

// Precision is TP/(TP + FP), NaN when nothing was predicted.
func (c LabelCounts) Precision() float64 { return ratio(c.TP, c.TP+c.FP) }

// Recall is TP/(TP + FN), NaN when no tested row has the label.
func (c LabelCounts) Recall() float64 { return ratio(c.TP, c.TP+c.FN) }

// F1 is 2TP/(2TP + FP + FN), NaN when the label was neither had nor
// predicted.
func (c LabelCounts) F1() float64 { return ratio(2*c.TP, 2*c.TP+c.FP+c.FN) }

func ratio(a, b int) float64 {
	if b == 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}

// labelResultFields are the columns each cell has, after its key and "_".
var labelResultFields = []string{"tp", "fp", "fn", "precision", "recall", "f1"}

// writeLabelResults writes FileLabelResults of an evaluation's per-label
// counts (evaluate.RowErrors.TP, FP, FN) into the staged results; nothing
// on multi-dimensional data, which has none.
func writeLabelResults(staged *store.StagedResults, p *plan, errs []evaluate.RowErrors) error {
	var cells []evaluate.RowErrors
	seen := map[LabelCell]bool{}
	for _, e := range errs {
		c := LabelCell{Method: e.Method, D: e.D}
		if e.TP == nil || seen[c] {
			continue
		}
		seen[c] = true
		cells = append(cells, e)
	}
	if len(cells) == 0 {
		return nil
	}
	names := p.train.Labels.Strings()
	rows := labelRows(p.data)
	return staged.WriteFile(FileLabelResults, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<16)
		cw := csv.NewWriter(bw)
		head := []string{"label", "rows", "tested"}
		for _, e := range cells {
			key := LabelCell{Method: e.Method, D: e.D}.Key()
			for _, f := range labelResultFields {
				head = append(head, key+"_"+f)
			}
		}
		if err := cw.Write(head); err != nil {
			return err
		}
		line := make([]string, len(head))
		for l, name := range names {
			c0 := cells[0]
			line[0], line[1], line[2] = name, strconv.Itoa(rows[l]), strconv.Itoa(int(c0.TP[l]+c0.FN[l]))
			for i, e := range cells {
				c := LabelCounts{TP: int(e.TP[l]), FP: int(e.FP[l]), FN: int(e.FN[l])}
				f := line[3+len(labelResultFields)*i : 3+len(labelResultFields)*(i+1)]
				f[0], f[1], f[2] = strconv.Itoa(c.TP), strconv.Itoa(c.FP), strconv.Itoa(c.FN)
				f[3], f[4], f[5] = fraction(c.Precision()), fraction(c.Recall()), fraction(c.F1())
			}
			if err := cw.Write(line); err != nil {
				return err
			}
		}
		cw.Flush()
		if err := cw.Error(); err != nil {
			return err
		}
		return bw.Flush()
	})
}

// fraction formats a value in [0, 1] to machine precision, empty for NaN.
func fraction(v float64) string {
	if v != v {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// labelRows counts, for each label, the rows of in that have it.
func labelRows(in analysis.Input) []int {
	_, q := in.LabelDims()
	rows := make([]int, q)
	if in.Labels != nil {
		for _, l := range in.Labels.Ind {
			rows[l]++
		}
		return rows
	}
	n, _ := in.Y.Dims()
	for i := range n {
		for l, v := range in.Y.RawRowView(i) {
			if v != 0 {
				rows[l]++
			}
		}
	}
	return rows
}

// errBadLabelResults says FileLabelResults does not hold what its header
// says.
var errBadLabelResults = errors.New("the per-label results file is damaged")

// ReadLabelResults reads FileLabelResults.
func ReadLabelResults(r io.Reader) (*LabelResultsFile, error) {
	cr := csv.NewReader(bufio.NewReaderSize(r, 1<<16))
	cr.ReuseRecord = true
	head, err := cr.Read()
	if err != nil || len(head) < 3+len(labelResultFields) || (len(head)-3)%len(labelResultFields) != 0 ||
		head[0] != "label" || head[1] != "rows" || head[2] != "tested" {
		return nil, errBadLabelResults
	}
	f := &LabelResultsFile{}
	for i := 3; i < len(head); i += len(labelResultFields) {
		key, ok := strings.CutSuffix(head[i], "_tp")
		at := strings.LastIndex(key, "_d")
		if !ok || at < 1 {
			return nil, errBadLabelResults
		}
		d, err := strconv.Atoi(key[at+2:])
		if err != nil {
			return nil, errBadLabelResults
		}
		f.Cells = append(f.Cells, LabelCell{Method: key[:at], D: d})
	}
	ints := func(rec []string, at ...int) ([]int, error) {
		out := make([]int, len(at))
		for i, a := range at {
			v, err := strconv.Atoi(rec[a])
			if err != nil || v < 0 {
				return nil, errBadLabelResults
			}
			out[i] = v
		}
		return out, nil
	}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return f, nil
		}
		if err != nil {
			return nil, errBadLabelResults
		}
		v, err := ints(rec, 1, 2)
		if err != nil {
			return nil, err
		}
		l := LabelResult{Name: rec[0], Rows: v[0], Tested: v[1], Counts: make([]LabelCounts, len(f.Cells))}
		for c := range f.Cells {
			at := 3 + c*len(labelResultFields)
			v, err := ints(rec, at, at+1, at+2)
			if err != nil {
				return nil, err
			}
			l.Counts[c] = LabelCounts{TP: v[0], FP: v[1], FN: v[2]}
		}
		f.Labels = append(f.Labels, l)
	}
}

// noLabelResults is the 404 of an evaluated job that wrote no
// FileLabelResults.
func noLabelResults(id string) error {
	return &RequestError{Status: http.StatusNotFound, Msg: fmt.Sprintf(
		"job %s has no per-label results: they are written for multi-label data (not multi-dimensional), "+
			"and results written before they existed have none (POST /api/jobs/%s/rerun)", id, id)}
}

// LabelResults returns a succeeded job's per-label results
// (FileLabelResults), checked against the job's checksums first (a file
// that fails the check gives an error wrapping store.ErrCorruptResult).
//
// A job that has none answers a *RequestError with 404 saying why: a
// study, a job without an evaluation, a multi-dimensional data set, or
// results written before the file existed. A job not yet succeeded is a
// *RequestError with 409; an unknown one ErrNotFound.
func (s *Service) LabelResults(id string) (*LabelResultsFile, error) {
	if err := s.evaluatedJob(id, "per-label results"); err != nil {
		return nil, err
	}
	path, err := s.resultFile(id, FileLabelResults)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, noLabelResults(id)
	}
	if err != nil {
		return nil, fmt.Errorf("reading the per-label results of job %s: %w", id, err)
	}
	defer f.Close()
	lr, err := ReadLabelResults(f)
	if err != nil {
		return nil, fmt.Errorf("reading the per-label results of job %s: %w", id, err)
	}
	return lr, nil
}
