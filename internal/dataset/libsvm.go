package dataset

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/sparse"
)

// The libsvm / extreme-classification (XMC) text format, multi-label:
//
//	[N D q]                      optional header: rows, features, labels
//	l1,l2,… i:v i:v …            one row a line
//
// The labels are the comma-separated indices before the first space or
// tab; a line that starts with a space or tab, or with a feature, has
// none. The features are index:value pairs. Label j is named "l<j>" and
// there are q of them (the header's q, else the largest index plus one).
// Feature index k is named "f<k>", as written in the file, whatever the
// base:
//
//   - with a header (the XMC repository's files), indices run from 0 to
//     D−1, unless index D occurs and 0 never does: then from 1 to D;
//   - without one (LIBSVM's files), from 1 to the largest index, unless
//     index 0 occurs: then from 0.
//
// Values that are zero are left out of the matrix, which is held sparse
// unless the file turns out dense (chooseSparse).

// MaxLabelCells bounds N·q, the cells of the label matrix Y of a libsvm
// file, which the file does not write out: 268 435 456 (2 GiB of Y).
const MaxLabelCells = 1 << 28

// svmReader reads a libsvm file.
type svmReader struct {
	lineReader
	o        Options
	header   bool
	hN, hD   int // the header's counts
	hQ       int
	sp       *sparseRows
	labPtr   []int   // row i's labels are labInd[labPtr[i]:labPtr[i+1]]
	labInd   []int32 // label indices
	maxFeat  int     // the largest feature index, -1 before any
	maxLab   int     // the largest label index, -1 before any
	zeroLine int     // the first line with feature index 0, 0 if none
	topLine  int     // with a header: the first line with feature index D
	only     map[int]int
	onlyRows []float64 // LoadFeatures: rows × len(o.only)
	rowInd   []int32
	rowVal   []float64
	rowLab   []int32
}

// svmIndex reads a non-negative decimal index; ok is false when s is not
// one or exceeds MaxColumns.
func svmIndex(s []byte) (int, bool) {
	if len(s) == 0 || len(s) > 8 {
		return 0, false
	}
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, n < MaxColumns
}

// isSpace reports whether c separates the fields of a libsvm line.
func isSpace(c byte) bool { return c == ' ' || c == '\t' }

// parseSVMHeader reads "N D q"; ok is false when line is not three
// whole numbers.
func parseSVMHeader(line []byte) (n, d, q int, ok bool) {
	f := bytes.Fields(line)
	if len(f) != 3 {
		return 0, 0, 0, false
	}
	var v [3]int
	for i, s := range f {
		x, err := strconv.Atoi(string(s))
		if err != nil || x < 0 || s[0] == '+' {
			return 0, 0, 0, false
		}
		v[i] = x
	}
	return v[0], v[1], v[2], true
}

// looksLikeSVM reports whether line, the first that is not blank, starts
// a libsvm file: an "N D q" header, or a row with at least one index:value
// pair and only such pairs after the labels.
func looksLikeSVM(line []byte) bool {
	if _, _, _, ok := parseSVMHeader(line); ok && bytes.IndexByte(line, '\t') < 0 {
		return true // tabs would make it a tab-separated header of numbers
	}
	f := bytes.Fields(line)
	if len(f) == 0 {
		return false
	}
	if !isSpace(line[0]) && bytes.IndexByte(f[0], ':') < 0 {
		for _, l := range bytes.Split(f[0], []byte(",")) {
			if _, ok := svmIndex(l); !ok {
				return false
			}
		}
		f = f[1:]
	}
	for _, tok := range f {
		idx, val, ok := bytes.Cut(tok, []byte(":"))
		if _, iok := svmIndex(idx); !ok || !iok {
			return false
		}
		if _, _, _, err := parseNumber(val); err != nil && err != errGoSpelling { // a value in Go's syntax is refused by the reader, by name
			return false
		}
	}
	return len(f) > 0
}

// checkSVMOptions refuses the options a libsvm file cannot honour.
func checkSVMOptions(o Options) error {
	switch {
	case len(o.Labels) > 0 || o.LabelCount != 0 || len(o.LabelXML) > 0:
		field := "labels"
		if o.LabelCount != 0 {
			field = "label_count"
		} else if len(o.LabelXML) > 0 {
			field = "xml"
		}
		return optionError(field, "the labels of a libsvm file are the indices before the first space of each line; "+
			"it takes no labels, label_count or xml")
	case o.Kind == MultiDim:
		return optionError("kind", "a libsvm file holds multi-label data: choose kind=multilabel or let it be decided")
	case len(o.Drop) > 0:
		return optionError("drop", "columns cannot be left out of a libsvm file")
	}
	return nil
}

// loadSVM reads a libsvm file of size bytes (-1: unknown).
func loadSVM(br *bufio.Reader, o Options, size int64) (*Dataset, error) {
	if o.only == nil {
		if err := checkSVMOptions(o); err != nil {
			return nil, err
		}
	}
	r := &svmReader{lineReader: lineReader{br: br}, o: o, sp: newSparseRows(), labPtr: []int{0}, maxFeat: -1, maxLab: -1}
	if o.only != nil {
		r.only = make(map[int]int, len(o.only))
		var missing []string
		for k, name := range o.only {
			if idx, ok := svmFeatureIndex(name); ok {
				r.only[idx] = k
			} else {
				missing = append(missing, name)
			}
		}
		if len(missing) > 0 {
			return nil, &InputError{Field: "file", Msg: fmt.Sprintf("the file lacks %d of the model's feature columns: %s "+
				"(a libsvm file's features are named f and their index)", len(missing), quoteList(missing, 5))}
		}
	}
	first := true
	var dataStart int64
	for {
		if rows := len(r.labPtr) - 1; rows == sizeRows && size > 0 {
			r.reserve(size, dataStart)
		}
		line, err := r.readLine()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if first {
			first = false
			if n, d, q, ok := parseSVMHeader(line); ok {
				if d >= MaxColumns || q >= MaxColumns {
					return nil, manyColumnsError(r.line, d+q)
				}
				if q > 0 && n > MaxLabelCells/q {
					return nil, r.tooManyLabelCells(n, q)
				}
				r.header, r.hN, r.hD, r.hQ = true, n, d, q
				dataStart = r.pos
				continue
			}
		}
		if err := r.row(line); err != nil {
			return nil, err
		}
	}
	return r.finish()
}

// reserve reserves the entries of the whole input once, from the mean
// bytes and entries a row of the first rows, as builder.sizeFrom does.
func (r *svmReader) reserve(size, dataStart int64) {
	rows := len(r.labPtr) - 1
	perRow := float64(r.pos-dataStart) / float64(rows)
	if perRow <= 0 {
		return
	}
	more := int(float64(size-r.pos)/perRow*1.02) + 16
	perEntry := float64(len(r.sp.val)) / float64(rows)
	r.sp.ind = slices.Grow(r.sp.ind, int(perEntry*float64(more)))
	r.sp.val = reserve(r.sp.val, int(perEntry*float64(more)))
	r.sp.ptr = slices.Grow(r.sp.ptr, more)
	r.labPtr = slices.Grow(r.labPtr, more)
}

// svmFeatureIndex reads the index k of a feature named "f<k>".
func svmFeatureIndex(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, "f")
	if !ok || (len(rest) > 1 && rest[0] == '0') {
		return 0, false
	}
	return svmIndex([]byte(rest))
}

// row reads one data line.
func (r *svmReader) row(line []byte) error {
	if len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	r.rowInd, r.rowVal, r.rowLab = r.rowInd[:0], r.rowVal[:0], r.rowLab[:0]
	pos := 0 // the field's 1-based position on the line
	i := 0
	if len(line) > 0 && !isSpace(line[0]) {
		end := 0
		for end < len(line) && !isSpace(line[end]) {
			end++
		}
		if bytes.IndexByte(line[:end], ':') < 0 {
			pos = 1
			if err := r.labels(line[:end]); err != nil {
				return err
			}
			i = end
		}
	}
	sorted := true
	for {
		for i < len(line) && isSpace(line[i]) {
			i++
		}
		if i == len(line) {
			break
		}
		start := i
		for i < len(line) && !isSpace(line[i]) {
			i++
		}
		pos++
		tok := line[start:i]
		idxTok, valTok, ok := bytes.Cut(tok, []byte(":"))
		idx, iok := svmIndex(idxTok)
		switch {
		case !ok:
			return errorf(r.line, fmt.Sprintf("#%d", pos), "%s is not an index:value pair; after the labels, a libsvm line holds "+
				"features written index:value, separated by spaces", quote(tok))
		case !iok && len(idxTok) > 0 && len(idxTok) <= 8 && allDigits(idxTok):
			return errorf(r.line, fmt.Sprintf("#%d", pos), "feature index %s is too large: at most %d features", quote(idxTok), MaxColumns)
		case !iok:
			return errorf(r.line, fmt.Sprintf("#%d", pos), "%s is not a feature index (a whole number from 0)", quote(idxTok))
		}
		name := "f" + strconv.Itoa(idx)
		v, vok, _, err := parseNumber(valTok)
		switch {
		case err == errInfinite:
			return errorf(r.line, name, "%s is infinite or out of range; feature values must be finite numbers", quote(valTok))
		case err == errGoSpelling:
			return errorf(r.line, name, "%s", goSpellingMsg(valTok))
		case !vok:
			return errorf(r.line, name, "%s is not a number; feature values must be numbers (a libsvm file has no missing values)", quote(valTok))
		}
		if r.header && idx > r.hD {
			return errorf(r.line, name, "feature index %d is beyond the %d features the header (line 1) declares", idx, r.hD)
		}
		if n := len(r.rowInd); n > 0 && int32(idx) <= r.rowInd[n-1] {
			sorted = false
		}
		r.rowInd = append(r.rowInd, int32(idx))
		r.rowVal = append(r.rowVal, v)
		if idx == 0 && r.zeroLine == 0 {
			r.zeroLine = r.line
		}
		if r.header && idx == r.hD && r.topLine == 0 {
			r.topLine = r.line
		}
		r.maxFeat = max(r.maxFeat, idx)
	}
	if !sorted {
		if err := r.sortRow(); err != nil {
			return err
		}
	}
	if r.only != nil {
		row := make([]float64, len(r.o.only))
		for k, idx := range r.rowInd {
			if c, ok := r.only[int(idx)]; ok {
				row[c] = r.rowVal[k]
			}
		}
		r.onlyRows = append(r.onlyRows, row...)
	} else {
		for k, v := range r.rowVal {
			if !storedZero(v) {
				r.sp.ind = append(r.sp.ind, r.rowInd[k])
				r.sp.val = append(r.sp.val, v)
			}
		}
	}
	r.sp.ptr = append(r.sp.ptr, int64(len(r.sp.val)))
	r.labInd = append(r.labInd, r.rowLab...)
	r.labPtr = append(r.labPtr, len(r.labInd))
	if r.header && r.hQ > 0 && (len(r.labPtr)-1) > MaxLabelCells/r.hQ {
		return r.tooManyLabelCells(len(r.labPtr)-1, r.hQ)
	}
	return nil
}

func allDigits(s []byte) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// sortRow puts the row's features in ascending order, refusing an index
// given twice.
func (r *svmReader) sortRow() error {
	perm := make([]int, len(r.rowInd))
	for k := range perm {
		perm[k] = k
	}
	slices.SortStableFunc(perm, func(a, b int) int { return int(r.rowInd[a]) - int(r.rowInd[b]) })
	ind := make([]int32, len(perm))
	val := make([]float64, len(perm))
	for k, p := range perm {
		ind[k], val[k] = r.rowInd[p], r.rowVal[p]
		if k > 0 && ind[k] == ind[k-1] {
			return errorf(r.line, "f"+strconv.Itoa(int(ind[k])), "feature index %d appears twice on the line", ind[k])
		}
	}
	r.rowInd, r.rowVal = ind, val
	return nil
}

// labels reads the comma-separated label indices of a line.
func (r *svmReader) labels(tok []byte) error {
	for item := range bytes.SplitSeq(tok, []byte(",")) {
		j, ok := svmIndex(item)
		switch {
		case !ok && len(item) == 0:
			return errorf(r.line, "labels", "an empty label index in %s; labels are written as indices separated by commas, e.g. 0,4,17", quote(tok))
		case !ok:
			return errorf(r.line, "labels", "%s is not a label index (a whole number from 0, below %d); labels are written as indices "+
				"separated by commas, e.g. 0,4,17", quote(item), MaxColumns)
		case r.header && j >= r.hQ:
			return errorf(r.line, "l"+strconv.Itoa(j), "label index %d is beyond the %d labels the header (line 1) declares", j, r.hQ)
		case slices.Contains(r.rowLab, int32(j)):
			return errorf(r.line, "l"+strconv.Itoa(j), "label index %d appears twice on the line", j)
		}
		r.rowLab = append(r.rowLab, int32(j))
		r.maxLab = max(r.maxLab, j)
	}
	return nil
}

func (r *svmReader) tooManyLabelCells(rows, q int) error {
	return &InputError{Line: r.line, Column: "labels", Msg: fmt.Sprintf("%d rows × %d labels make a label matrix of more than %d cells, "+
		"more than the loader takes", rows, q, MaxLabelCells)}
}

// finish decides the base and the counts, and builds the data set.
func (r *svmReader) finish() (*Dataset, error) {
	rows := len(r.labPtr) - 1
	switch {
	case rows == 0:
		return nil, &InputError{Line: max(r.line, 1), Msg: "the file has no data rows"}
	case rows < 2 && r.only == nil:
		return nil, &InputError{Msg: "the file has only 1 data row; at least 2 are needed"}
	case r.header && rows != r.hN:
		return nil, &InputError{Line: 1, Msg: fmt.Sprintf("the header says %d rows but the file has %d; "+
			"the file may be cut short, or the header wrong", r.hN, rows)}
	}
	if r.only != nil {
		return &Dataset{Features: r.o.only, X: mat.NewDense(rows, len(r.o.only), r.onlyRows), Y: &mat.Dense{}, Kind: MultiLabel}, nil
	}
	// The base: the first index, and the number of features.
	base, d := 1, r.maxFeat
	switch {
	case r.header && r.topLine > 0 && r.zeroLine > 0:
		return nil, &InputError{Line: max(r.topLine, r.zeroLine), Msg: fmt.Sprintf(
			"feature indices run from 0 (line %d) to %d (line %d), %d features where the header (line 1) declares %d",
			r.zeroLine, r.hD, r.topLine, r.hD+1, r.hD)}
	case r.header && r.topLine > 0:
		d = r.hD
	case r.header:
		base, d = 0, r.hD
	case r.zeroLine > 0:
		base, d = 0, r.maxFeat+1
	}
	q := r.maxLab + 1
	if r.header {
		q = r.hQ
	}
	switch {
	case d <= 0:
		return nil, &InputError{Msg: "no row of the file has a feature (index:value after the labels)"}
	case q == 0:
		return nil, &InputError{Column: "labels", Msg: "no row of the file has a label; a libsvm line starts with its label indices, e.g. 0,4,17"}
	case rows > MaxLabelCells/q:
		return nil, r.tooManyLabelCells(rows, q)
	}
	if base == 1 {
		for k := range r.sp.ind {
			r.sp.ind[k]--
		}
	}
	ds := &Dataset{Kind: MultiLabel}
	for j := range d {
		ds.Features = append(ds.Features, "f"+strconv.Itoa(j+base))
	}
	for j := range q {
		ds.Labels = append(ds.Labels, "l"+strconv.Itoa(j))
	}
	ds.Columns = append(slices.Clip(ds.Features), ds.Labels...)
	ds.LabelColumns = ds.Labels
	y := make([]float64, rows*q)
	for i := range rows {
		for _, j := range r.labInd[r.labPtr[i]:r.labPtr[i+1]] {
			y[i*q+int(j)] = 1
		}
	}
	ds.Y = mat.NewDense(rows, q, y)
	m := &sparse.CSR{R: rows, C: d, Ptr: slices.Clip(r.sp.ptr), Ind: slices.Clip(r.sp.ind), Val: slices.Clip(r.sp.val)}
	r.sp = nil
	ds.Sparse = m
	var constant []string
	for j := range q {
		n := 0
		for i := range rows {
			n += int(y[i*q+j])
		}
		if n == 0 || n == rows {
			constant = append(constant, ds.Labels[j])
		}
	}
	if len(constant) > 0 {
		ds.Warnings = append(ds.Warnings, fmt.Sprintf("%d labels are constant (the same value in every row) and carry no information: %s.",
			len(constant), quoteList(constant, 10)))
	}
	if w := constantFeatures(ds.Features, sparseConstant(m)); w != "" {
		ds.Warnings = append(ds.Warnings, w)
	}
	keepSparse := r.o.storage == StorageSparse || (r.o.storage == "" && chooseSparse(rows, d, int64(m.NNZ())))
	if !keepSparse {
		ds.X, ds.Sparse = m.Dense(), nil
	}
	return ds, nil
}
