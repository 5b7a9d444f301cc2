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
// none. The features are index:value pairs. Feature index k is named
// "f<k>", as written in the file, whatever the base; label index j "l<j>".
//
// With a header (the Extreme Classification Repository's files) the file
// declares its counts, and indices must stay below them: labels 0…q−1,
// features 0…D−1, or 1…D when index D occurs and 0 never does. The q
// labels and D features are the declared ones, those no row uses
// included, so that a training and a test file of one data set have the
// same columns.
//
// Without one (LIBSVM's files), the labels are those that occur, in the
// order of their first appearance (label "l1999999" used once is one
// label, not two million), and the features run from 1 to the largest
// index, unless index 0 occurs: then from 0.
//
// Nothing is held per column that no row uses: names are a rule
// (NumberedNames), and the feature and label matrices are sparse
// (CSR), the labels held dense only when that is smaller
// (chooseSparseLabels); values that are zero are left out of the
// features, which are held sparse unless the file turns out dense
// (chooseSparse).

// MaxIndex is the largest feature or label index a libsvm file may use,
// 2 147 483 646, so that every column fits an int32 index.
const MaxIndex = 1<<31 - 2

// svmReader reads a libsvm file.
type svmReader struct {
	lineReader
	o        Options
	header   bool
	hN, hD   int // the header's counts
	hQ       int
	hLine    int // the header's line
	sp       *sparseRows
	labPtr   []int64         // row i's labels are labInd[labPtr[i]:labPtr[i+1]], ascending
	labInd   []int32         // label indices: the file's with a header, else renumbered
	labelOf  map[int32]int32 // without a header: the file's label index → its column
	labelNum []int32         // without a header: column → the file's label index
	maxFeat  int             // the largest feature index, -1 before any
	zeroLine int             // the first line with feature index 0, 0 if none
	topLine  int             // with a header: the first line with feature index D
	only     map[int]int
	onlyRows []float64 // LoadFeatures: rows × len(o.only)
	// Admission (Options.WithMemory): the input's size and where its rows
	// start, and the input position of the next check.
	size, dataStart, admitAt int64
	rowInd                   []int32
	rowVal                   []float64
	rowLab                   []int32
}

// svmIndex reads a non-negative decimal index; ok is false when s is not
// one or exceeds MaxIndex.
func svmIndex(s []byte) (int, bool) {
	if len(s) == 0 || len(s) > 10 {
		return 0, false
	}
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, n <= MaxIndex
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

// numberish reports whether s could be meant as a number or an index:
// not empty, and made of digits, signs, points and exponent letters,
// starting with a digit, a sign or a point. Detection judges a line by
// this shape, so that a file with a bad index (−1, 1e12, 2³¹) is still
// read as libsvm and its error given by the line and column.
func numberish(s []byte) bool {
	if len(s) == 0 {
		return false
	}
	if c := s[0]; !(c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.') {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E') {
			return false
		}
	}
	return true
}

// looksLikeSVM reports whether line, the first that is not blank, starts
// a libsvm file by its shape: an "N D q" header, or a row whose fields
// are an optional list of numbers separated by commas, then at least one
// field number:value (one colon, a value after it).
func looksLikeSVM(line []byte) bool {
	if _, _, _, ok := parseSVMHeader(line); ok && bytes.IndexByte(line, '\t') < 0 {
		return true // tabs would make it a tab-separated header of numbers
	}
	f := bytes.Fields(line)
	if len(f) == 0 {
		return false
	}
	if !isSpace(line[0]) && bytes.IndexByte(f[0], ':') < 0 {
		for l := range bytes.SplitSeq(f[0], []byte(",")) {
			if !numberish(l) {
				return false
			}
		}
		f = f[1:]
	}
	for _, tok := range f {
		idx, val, ok := bytes.Cut(tok, []byte(":"))
		if !ok || !numberish(idx) || len(val) == 0 || bytes.IndexByte(val, ':') >= 0 || bytes.IndexByte(val, ',') >= 0 {
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
	r := &svmReader{lineReader: lineReader{br: br}, o: o, sp: newSparseRows(), labPtr: []int64{0}, maxFeat: -1,
		labelOf: map[int32]int32{}}
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
	r.size = size
	for {
		if rows := len(r.labPtr) - 1; rows == sizeRows && size > 0 {
			if err := r.reserve(size, r.dataStart); err != nil {
				return nil, err
			}
		}
		if err := r.admit(); err != nil {
			return nil, err
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
				if d > MaxIndex+1 || q > MaxIndex+1 {
					return nil, &InputError{Line: r.line, Msg: fmt.Sprintf("the header declares %d features and %d labels; "+
						"a libsvm file may have at most %d of each", d, q, MaxIndex+1)}
				}
				r.header, r.hN, r.hD, r.hQ, r.hLine = true, n, d, q, r.line
				r.dataStart = r.pos
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
// bytes and entries a row of the first rows, as builder.sizeFrom does,
// once the admission (Options.WithMemory) has taken them.
func (r *svmReader) reserve(size, dataStart int64) error {
	rows := len(r.labPtr) - 1
	perRow := float64(r.pos-dataStart) / float64(rows)
	if perRow <= 0 {
		return nil
	}
	more := int(float64(size-r.pos)/perRow*1.02) + 16
	used, _ := r.bytes()
	if err := r.o.need(int64(float64(used)/float64(rows)*float64(rows+more)), int64(rows+more)); err != nil {
		return err
	}
	perEntry := float64(len(r.sp.val)) / float64(rows)
	r.sp.ind = slices.Grow(r.sp.ind, int(perEntry*float64(more)))
	r.sp.val = reserve(r.sp.val, int(perEntry*float64(more)))
	r.sp.ptr = slices.Grow(r.sp.ptr, more)
	r.labPtr = slices.Grow(r.labPtr, more)
	return nil
}

// bytes are the memory of what the reader has kept so far (used) and of
// the arrays that hold it (held).
func (r *svmReader) bytes() (used, held int64) {
	sp := r.sp
	used = 8*int64(len(sp.ptr)+len(sp.val)+len(r.labPtr)+len(r.onlyRows)) + 4*int64(len(sp.ind)+len(r.labInd)) + 48*int64(len(r.labelNum))
	held = 8*int64(cap(sp.ptr)+cap(sp.val)+cap(r.labPtr)+cap(r.onlyRows)) + 4*int64(cap(sp.ind)+cap(r.labInd)) + 48*int64(cap(r.labelNum))
	return used, held
}

// admit tells the admission, every admitEvery bytes of input, what the
// reading will hold at the end (as builder.admit).
func (r *svmReader) admit() error {
	if r.o.memory == nil || r.pos < r.admitAt {
		return nil
	}
	r.admitAt = r.pos + admitEvery
	used, held := r.bytes()
	rows := int64(len(r.labPtr) - 1)
	est := held
	if r.size > 0 && r.pos > r.dataStart {
		f := float64(r.size-r.dataStart) / float64(r.pos-r.dataStart)
		est = max(held, int64(float64(used)*f))
		rows = int64(float64(rows) * f)
	}
	return r.o.need(est, rows)
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
		case !iok && len(idxTok) > 0 && allDigits(idxTok):
			return errorf(r.line, fmt.Sprintf("#%d", pos), "feature index %s is too large: indices go up to %d", quote(idxTok), MaxIndex)
		case !iok:
			return errorf(r.line, fmt.Sprintf("#%d", pos), "%s is not a feature index (a whole number from 0 to %d, written with digits only)",
				quote(idxTok), MaxIndex)
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
			return errorf(r.line, name, "feature index %d is beyond the %d features the header (line %d) declares", idx, r.hD, r.headerLine())
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
	r.labInd = append(r.labInd, r.rowLab...) // sorted by labels
	r.labPtr = append(r.labPtr, int64(len(r.labInd)))
	return nil
}

// headerLine is the line of the header: the first that is not blank.
func (r *svmReader) headerLine() int { return r.hLine }

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

// labels reads the comma-separated label indices of a line into rowLab:
// the file's indices with a header, else each label's column, a new one
// for a label not seen before.
func (r *svmReader) labels(tok []byte) error {
	for item := range bytes.SplitSeq(tok, []byte(",")) {
		j, ok := svmIndex(item)
		switch {
		case !ok && len(item) == 0:
			return errorf(r.line, "labels", "an empty label index in %s; labels are written as indices separated by commas, e.g. 0,4,17", quote(tok))
		case !ok && allDigits(item):
			return errorf(r.line, "labels", "label index %s is too large: indices go up to %d", quote(item), MaxIndex)
		case !ok:
			return errorf(r.line, "labels", "%s is not a label index (a whole number from 0 to %d, written with digits only); "+
				"labels are written as indices separated by commas, e.g. 0,4,17", quote(item), MaxIndex)
		case r.header && j >= r.hQ:
			return errorf(r.line, "l"+strconv.Itoa(j), "label index %d is beyond the %d labels the header (line %d) declares (0 to %d)",
				j, r.hQ, r.headerLine(), r.hQ-1)
		}
		col := int32(j)
		if !r.header {
			c, seen := r.labelOf[col]
			if !seen {
				c = int32(len(r.labelNum))
				r.labelOf[col] = c
				r.labelNum = append(r.labelNum, col)
			}
			col = c
		}
		r.rowLab = append(r.rowLab, col)
	}
	// A label given twice, found in order: sorting costs k log k for the
	// k labels of a line, where a search at each would cost k².
	slices.Sort(r.rowLab)
	for k := 1; k < len(r.rowLab); k++ {
		if col := r.rowLab[k]; col == r.rowLab[k-1] {
			j := int(col)
			if !r.header {
				j = int(r.labelNum[col])
			}
			return errorf(r.line, "l"+strconv.Itoa(j), "label index %d appears twice on the line", j)
		}
	}
	return nil
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
		return nil, &InputError{Line: r.headerLine(), Msg: fmt.Sprintf("the header says %d rows but the file has %d; "+
			"the file may be cut short, or the header wrong", r.hN, rows)}
	}
	if r.only != nil {
		return &Dataset{Features: ListNames(r.o.only), X: mat.NewDense(rows, len(r.o.only), r.onlyRows), Y: &mat.Dense{}, Kind: MultiLabel}, nil
	}
	// The base: the first index, and the number of features.
	base, d := 1, r.maxFeat
	switch {
	case r.header && r.topLine > 0 && r.zeroLine > 0:
		return nil, &InputError{Line: max(r.topLine, r.zeroLine), Msg: fmt.Sprintf(
			"feature indices run from 0 (line %d) to %d (line %d), %d features where the header (line %d) declares %d",
			r.zeroLine, r.hD, r.topLine, r.hD+1, r.headerLine(), r.hD)}
	case r.header && r.topLine > 0:
		d = r.hD
	case r.header:
		base, d = 0, r.hD
	case r.zeroLine > 0:
		base, d = 0, r.maxFeat+1
	}
	q := len(r.labelNum)
	if r.header {
		q = r.hQ
	}
	switch {
	case d <= 0:
		return nil, &InputError{Msg: "no row of the file has a feature (index:value after the labels)"}
	case q == 0:
		return nil, &InputError{Column: "labels", Msg: "no row of the file has a label; a libsvm line starts with its label indices, e.g. 0,4,17"}
	}
	if base == 1 {
		for k := range r.sp.ind {
			r.sp.ind[k]--
		}
	}
	ds := &Dataset{Kind: MultiLabel, Features: NumberedNames("f", base, d)}
	if r.header {
		ds.Labels = NumberedNames("l", 0, q)
	} else {
		ds.Labels = NumberedAs("l", slices.Clip(r.labelNum))
	}
	ones := make([]float64, len(r.labInd))
	for k := range ones {
		ones[k] = 1
	}
	ds.YSparse = &sparse.CSR{R: rows, C: q, Ptr: slices.Clip(r.labPtr), Ind: slices.Clip(r.labInd), Val: ones}
	r.labPtr, r.labInd, r.labelOf = nil, nil, nil
	if w := constantLabels(ds); w != "" {
		ds.Warnings = append(ds.Warnings, w)
	}
	settleLabels(ds, r.o.labelStorage)
	m := &sparse.CSR{R: rows, C: d, Ptr: slices.Clip(r.sp.ptr), Ind: slices.Clip(r.sp.ind), Val: slices.Clip(r.sp.val)}
	r.sp = nil
	ds.Sparse = m
	count, first := sparseConstant(m)
	if w := constantFeatures(ds.Features, count, first); w != "" {
		ds.Warnings = append(ds.Warnings, w)
	}
	keepSparse := r.o.storage == StorageSparse || (r.o.storage == "" && chooseSparse(rows, d, int64(m.NNZ())))
	if !keepSparse {
		if err := r.o.need(8*int64(rows)*int64(d), int64(rows)); err != nil {
			return nil, err
		}
		ds.X, ds.Sparse = m.Dense(), nil
	}
	return ds, nil
}

// constantLabels is the warning of the multi-label ds's labels that hold
// one value in every row ("" when none does), counted from the labels
// that occur: a label no row has is constant, and costs nothing here.
func constantLabels(ds *Dataset) string {
	n, q := ds.LabelDims()
	counts := labelCounts(ds)
	count := q - len(counts)
	for _, c := range counts {
		if c == n {
			count++
		}
	}
	if count == 0 {
		return ""
	}
	var names []string
	for j := 0; j < q && len(names) < 10; j++ {
		if c := counts[int32(j)]; c == 0 || c == n {
			names = append(names, ds.Labels.At(j))
		}
	}
	return fmt.Sprintf("%d labels are constant (the same value in every row) and carry no information: %s.", count, quoteFirst(names, count))
}

// labelCounts counts the rows of each label that occurs in the
// multi-label ds.
func labelCounts(ds *Dataset) map[int32]int {
	counts := map[int32]int{}
	if ds.YSparse != nil {
		for _, j := range ds.YSparse.Ind {
			counts[j]++
		}
		return counts
	}
	n, _ := ds.LabelDims()
	var buf []int32
	for i := range n {
		buf = ds.LabelsOf(i, buf[:0])
		for _, j := range buf {
			counts[j]++
		}
	}
	return counts
}
