package dataset

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"

	"gonum.org/v1/gonum/mat"
)

// attrType is what a column was declared to hold.
type attrType uint8

const (
	attrAuto    attrType = iota // CSV: numeric until text appears
	attrNumeric                 // ARFF numeric/real/integer, or nominal with numeric values
	attrNominal                 // ARFF nominal with text values
	attrText                    // ARFF string or date
)

type role uint8

const (
	roleFeature role = iota
	roleLabel
	roleDrop
)

// column is one input column and what the builder keeps of it.
type column struct {
	name     string
	line     int // line of its declaration (header line, or ARFF @attribute)
	typ      attrType
	declared []string // ARFF nominal values, in declared order
	role     role
	slot     int         // position in the raw feature row (features)
	text     *textColumn // labels always; features that hold text
	sum      float64     // running sum for mean imputation
	missing  int         // missing values, for mean imputation
}

// textColumn interns the text values of a column.
type textColumn struct {
	// bytes, if not nil, counts the memory of the values interned.
	bytes     *int64
	index     map[string]int32
	values    []string
	firstLine []int
	codes     []int32 // one per kept row (text features; labels use labelCodes)
	// numericRows counts the rows a CSV column held numbers before its first
	// text value, at firstTextLine.
	numericRows   int
	firstText     string
	firstTextLine int
}

func newTextColumn() *textColumn {
	return &textColumn{index: make(map[string]int32)}
}

// textValueBytes is about what a text column holds for a value beyond its
// text: the map entry, the string and the line of its first appearance.
const textValueBytes = 64

// newText is a text column of b's, its values counted in b.textBytes;
// feature says it is a feature's (its codes grow a row at a time).
func (b *builder) newText(feature bool) *textColumn {
	t := newTextColumn()
	t.bytes = &b.textBytes
	if feature {
		b.textCols = append(b.textCols, t)
	}
	return t
}

// intern returns tok's code, adding it if new. tok may alias a read buffer.
func (t *textColumn) intern(tok []byte, line int) int32 {
	if c, ok := t.index[unsafe.String(unsafe.SliceData(tok), len(tok))]; ok {
		return c
	}
	s := string(tok)
	if t.bytes != nil {
		*t.bytes += int64(len(s)) + textValueBytes
	}
	c := int32(len(t.values))
	t.index[s] = c
	t.values = append(t.values, s)
	t.firstLine = append(t.firstLine, line)
	return c
}

// builder turns parsed rows into a Dataset. Parsers call setColumns once,
// addRow for each data row, then finish.
type builder struct {
	opts       Options
	cols       []column
	width      int // raw feature row width
	nlab       int
	raw        []float64   // rows × width, row-major (dense mode)
	sp         *sparseRows // the rows in sparse mode (see storage.go), else nil
	decided    bool        // decideStorage ran
	nnz        int64       // dense mode: the cells of raw a sparse row would store
	bySlot     []*column   // feature columns by slot, for sparseImpute
	labelCodes []float64   // rows × nlab, row-major: intern codes, which labels() makes Y in place
	rows       int
	scratch    []float64
	warnings   []string

	// Sizing: after sizeRows rows, the matrix is reserved once for the rows
	// the rest of the input should hold (see startSizing).
	size, dataStart int64
	sized           bool

	// stream, when set (LoadStreaming), gets the dense rows as they are
	// committed; streamed is how many values of raw it has had, and
	// xIsRaw says X was made of the raw rows as they are (assemble).
	stream   *BinaryStream
	streamed int
	xIsRaw   bool

	// Admission (Options.WithMemory): the input position of the next
	// check, the bytes the text columns' values take, the text feature
	// columns, and a refusal met while sizing.
	admitAt    int64 // the input position of the next check
	admitUsed  int64 // the bytes kept that make the next check
	pos        int64 // the input position before the row being read
	textBytes  int64
	textCols   []*textColumn
	admitError error

	// Sparse rows (sparserows.go): each column's default, the columns
	// every row reads, a stamp per column of the row that gave it, and a
	// row's cells and values.
	defaults  [][]byte
	always    []int
	stamp     []int
	stampNow  int
	visit     []sparseCell
	rowValues []slotValue

	dropped       int // rows dropped for missing values
	textFeatures  int // CSV feature columns that met text (toText)
	firstDropLine int
	imputed       int
}

func newBuilder(o Options) *builder { return &builder{opts: o, stream: o.stream} }

// setColumns fixes the columns and their roles. relation is ARFF's @relation.
func (b *builder) setColumns(cols []column, relation string) error {
	names := make([]string, len(cols))
	seen := make(map[string]int, len(cols))
	for i, c := range cols {
		if len(c.name) > MaxCell {
			return longCellError(c.line, fmt.Sprintf("#%d", i+1), len(c.name))
		}
		if c.name == "" {
			return &InputError{Line: c.line, Column: fmt.Sprintf("#%d", i+1), Msg: fmt.Sprintf("column %d has no name; every column needs a unique name", i+1)}
		}
		if j, dup := seen[c.name]; dup {
			return &InputError{Line: c.line, Column: c.name, Msg: fmt.Sprintf("column names must be unique, but columns %d and %d are both named %s", j+1, i+1, quote(c.name))}
		}
		seen[c.name] = i
		names[i] = c.name
	}
	if len(cols) < 2 {
		return &InputError{Line: firstLine(cols), Msg: "the header has a single column: a data set needs feature and label columns " +
			"separated by commas, semicolons or tabs"}
	}
	if b.opts.only != nil {
		return b.setOnly(cols, names)
	}
	choice, err := chooseLabels(names, b.opts, relation)
	if err != nil {
		return err
	}
	if strings.HasPrefix(choice.how, "MEKA") {
		b.warnings = append(b.warnings, "Labels were taken from "+choice.how+"; check that these are the label columns.")
	}
	drop := make(map[string]bool, len(b.opts.Drop))
	for _, d := range b.opts.Drop {
		i, ok := seen[d]
		if !ok {
			return optionError("drop", "drop names column %s, which the file does not have%s", quote(d), suggest(d, names))
		}
		if choice.isLabel[i] {
			return optionError("drop", "column %s is a label and cannot be dropped", quote(d))
		}
		drop[d] = true
	}
	for i := range cols {
		c := &cols[i]
		switch {
		case choice.isLabel[i]:
			c.role = roleLabel
			c.text = b.newText(false)
			if c.typ == attrText {
				return &InputError{Line: c.line, Column: c.name, Msg: "a string or date attribute cannot be a label; labels must be nominal or numeric"}
			}
			b.nlab++
		case drop[c.name]:
			c.role = roleDrop
		default:
			c.role = roleFeature
			c.slot = b.width
			b.width++
			if c.typ == attrNominal || c.typ == attrText {
				if b.opts.nominal() == NominalReject {
					return textFeatureError(c.line, c.name, c.declared)
				}
				c.text = b.newText(true)
			}
		}
	}
	if b.width == 0 {
		return optionError("drop", "no feature column is left once %s are dropped", quoteList(b.opts.Drop, 5))
	}
	b.cols = cols
	b.scratch = make([]float64, b.width)
	return nil
}

// setOnly makes the named columns the features, in the file's order, and
// leaves every other column out (LoadFeatures).
func (b *builder) setOnly(cols []column, names []string) error {
	var missing []string
	for _, want := range b.opts.only {
		if !slices.Contains(names, want) {
			missing = append(missing, want)
		}
	}
	if len(missing) > 0 {
		return &InputError{Line: firstLine(cols), Field: "file", Msg: fmt.Sprintf("the file lacks %d of the model's feature columns: %s", len(missing), quoteList(missing, 5))}
	}
	for i := range cols {
		c := &cols[i]
		c.role = roleDrop
		if slices.Contains(b.opts.only, c.name) {
			c.role = roleFeature
			c.slot = b.width
			b.width++
			if c.typ == attrNominal || c.typ == attrText {
				return textFeatureError(c.line, c.name, c.declared)
			}
		}
	}
	b.cols = cols
	b.scratch = make([]float64, b.width)
	return nil
}

func firstLine(cols []column) int {
	if len(cols) == 0 {
		return 1
	}
	return cols[0].line
}

func textFeatureError(line int, name string, declared []string) *InputError {
	what := "a text attribute"
	if len(declared) > 0 {
		what = fmt.Sprintf("a nominal attribute with text values {%s}", strings.Join(cutAll(headOf(declared, 4)), ", "))
	}
	return &InputError{Line: line, Column: name, Msg: fmt.Sprintf(
		"%s cannot be a feature: features must be numeric. Leave the column out (drop=%s) or encode text columns (nominal=onehot)",
		what, Cut(name))}
}

// cutAll returns s with each string Cut for a message.
func cutAll(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[i] = Cut(v)
	}
	return out
}

func headOf(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(slices.Clip(s[:n]), "…")
}

// declared reports whether tok is one of an ARFF attribute's declared values.
func declared(values []string, tok []byte) bool {
	for _, v := range values {
		if v == string(tok) {
			return true
		}
	}
	return false
}

// missingToken reports whether a cell that is not a number means "missing".
func missingToken(tok []byte) bool {
	switch len(tok) {
	case 0:
		return true
	case 1:
		return tok[0] == '?'
	case 2, 3, 4:
		s := strings.ToLower(string(tok))
		return s == "na" || s == "n/a" || s == "nan" || s == "null"
	}
	return false
}

func describeMissing(tok []byte) string {
	if len(tok) == 0 {
		return "an empty cell"
	}
	return quote(tok)
}

// parseNumber parses a trimmed cell. ok is false when the cell is not a
// finite number; then missing tells whether it is a missing-value token,
// and err is errInfinite for an infinity ("inf", "-Infinity", 1e400),
// errGoSpelling for a number in Go's syntax (see goSpelling) and
// errNotNumber for the rest. A number is written in decimal (scanNumber).
func parseNumber(tok []byte) (v float64, ok, missing bool, err error) {
	if len(tok) == 0 {
		return 0, false, true, nil
	}
	if v, ok := parseDecimal(tok); ok {
		if math.IsInf(v, 0) {
			return v, false, false, errInfinite
		}
		return v, true, false, nil
	}
	switch {
	case missingToken(tok):
		return 0, false, true, nil
	case goSpelling(unsafe.String(unsafe.SliceData(tok), len(tok))) != "":
		return 0, false, false, errGoSpelling
	}
	// What strconv reads besides decimal numbers and Go's syntax: "inf" and
	// "infinity" in any case, with a sign ("nan" is missing above).
	if v, err := parseFloat(tok); err == nil && math.IsInf(v, 0) {
		return v, false, false, errInfinite
	}
	return 0, false, false, errNotNumber
}

var (
	errInfinite   = fmt.Errorf("infinite")
	errNotNumber  = fmt.Errorf("not a number")
	errGoSpelling = fmt.Errorf("a number in Go's syntax")
)

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// addRow adds one data row that started on line. fields alias the reader's
// buffer and are used only during the call.
func (b *builder) addRow(line int, fields [][]byte) error {
	if len(fields) != len(b.cols) {
		return errorf(line, "", "expected %d fields (as in the header), found %d", len(b.cols), len(fields))
	}
	for i, f := range fields {
		if len(f) > MaxCell {
			return longCellError(line, b.cols[i].name, len(f))
		}
	}
	rc := b.newRowCheck(line)
	for i := range b.cols {
		c := &b.cols[i]
		if c.role == roleDrop {
			continue
		}
		v, isNumber, err := rc.cell(c, trimSpace(fields[i]))
		if err != nil {
			return err
		}
		if isNumber {
			b.scratch[c.slot] = v
		}
	}
	if rc.dropRow {
		b.dropRow(line)
		return nil
	}
	// Commit the row.
	if b.sp != nil {
		b.sp.add(b.scratch)
	} else {
		b.raw = append(b.raw, b.scratch...)
		b.nnz += nnzOf(b.scratch)
	}
	for i := range b.cols {
		if c := &b.cols[i]; c.role != roleDrop {
			b.commitCell(line, c, trimSpace(fields[i]), b.scratch[c.slot])
		}
	}
	return b.endRow()
}

// rowCheck checks the cells of one row as addRow (and addSparseRow)
// reads them, under the missing-value policy.
type rowCheck struct {
	b       *builder
	line    int
	policy  MissingPolicy
	dropRow bool // a missing value under MissingDropRows
}

func (b *builder) newRowCheck(line int) *rowCheck {
	return &rowCheck{b: b, line: line, policy: b.opts.missing()}
}

// missing handles a missing value of column c (tok is how it was written).
func (rc *rowCheck) missing(c *column, tok []byte) error {
	switch {
	case rc.policy == MissingDropRows:
		rc.dropRow = true
		return nil
	case c.role == roleLabel && rc.policy == MissingMean:
		return errorf(rc.line, c.name, "missing label (%s); labels cannot be imputed: choose missing=drop-rows to leave such rows out", describeMissing(tok))
	case rc.policy == MissingMean:
		return nil
	}
	return errorf(rc.line, c.name, "missing value (%s); choose missing=drop-rows or missing=mean to accept missing values", describeMissing(tok))
}

// cell checks the trimmed cell tok of column c (not left out). For a
// numeric feature it returns its value (NaN when missing) and isNumber
// true; a text column's cell is checked only (commitCell interns it). A
// CSV column that meets text here may turn into a text column.
func (rc *rowCheck) cell(c *column, tok []byte) (v float64, isNumber bool, err error) {
	b, line := rc.b, rc.line
	if c.text != nil {
		if missingToken(tok) {
			return 0, false, rc.missing(c, tok)
		}
		if !utf8.Valid(tok) {
			return 0, false, errorf(line, c.name, "the value is not valid UTF-8 text; save the file as UTF-8")
		}
		if c.declared != nil && !declared(c.declared, tok) {
			return 0, false, errorf(line, c.name, "%s is not one of the declared values {%s}", quote(tok), strings.Join(cutAll(headOf(c.declared, 8)), ", "))
		}
		return 0, false, nil
	}
	v, ok, miss, err := parseNumber(tok)
	switch {
	case ok:
		if c.declared != nil && !declared(c.declared, tok) {
			return 0, false, errorf(line, c.name, "%s is not one of the declared values {%s}", quote(tok), strings.Join(cutAll(headOf(c.declared, 8)), ", "))
		}
		return v, true, nil
	case miss:
		return math.NaN(), true, rc.missing(c, tok)
	case err == errInfinite:
		return 0, false, errorf(line, c.name, "%s is infinite or out of range; feature values must be finite numbers", quote(tok))
	case c.typ == attrAuto && b.opts.nominal() != NominalReject:
		b.toText(c, tok, line)
		return 0, false, nil
	case c.typ == attrNumeric && len(c.declared) > 0:
		return 0, false, errorf(line, c.name, "%s is not one of the declared values {%s}", quote(tok), strings.Join(cutAll(headOf(c.declared, 8)), ", "))
	case err == errGoSpelling && b.rows == 0 && c.typ == attrAuto:
		// The first row: the column may be text, say codes like 2024_01.
		return 0, false, errorf(line, c.name, "%s; if the column is not numeric, leave it out with drop=%s, or encode it with nominal=onehot", goSpellingMsg(tok), Cut(c.name))
	case err == errGoSpelling:
		return 0, false, errorf(line, c.name, "%s", goSpellingMsg(tok))
	case b.rows > 0 && c.typ == attrAuto:
		// The rows above held numbers here: a stray value, not a text column.
		return 0, false, errorf(line, c.name, "%s is not a number; feature values must be numbers", quote(tok))
	}
	return 0, false, errorf(line, c.name, "%s is not a number; feature columns must be numeric (leave this column out with drop=%s, or encode text columns with nominal=onehot)", quote(tok), Cut(c.name))
}

// dropRow counts a row left out for a missing value.
func (b *builder) dropRow(line int) {
	if b.dropped == 0 {
		b.firstDropLine = line
	}
	b.dropped++
}

// commitCell keeps what the committed row's cell tok of column c adds
// beside the features' row: a label's code, a text feature's code, or, to
// impute means, a numeric feature's value v (NaN: missing).
func (b *builder) commitCell(line int, c *column, tok []byte, v float64) {
	switch {
	case c.role == roleLabel:
		b.labelCodes = append(b.labelCodes, float64(c.text.intern(tok, line)))
	case c.text != nil:
		code := int32(-1)
		if !missingToken(tok) {
			code = c.text.intern(tok, line)
		}
		c.text.codes = append(c.text.codes, code)
	case b.opts.missing() == MissingMean:
		if v == v {
			c.sum += v
		} else {
			c.missing++
			b.imputed++
		}
	}
}

// endRow ends a committed row: counts it, streams the rows, and tells
// the admission when what the rows keep has doubled.
func (b *builder) endRow() error {
	b.rows++
	b.streamRows(false)
	if b.opts.memory != nil && 8*int64(len(b.raw)+len(b.labelCodes)) >= b.admitUsed {
		// Rows that each hold far more than their bytes of input (a
		// sparse ARFF row over many declared columns): told now, not
		// at the next MiB of input.
		b.admitAt = 0
		return b.admit(b.pos)
	}
	return nil
}

// meanOf is the mean of column c's values over the rows that have one:
// c.sum, summed as the rows came, over the rows less c's missing values.
// The zeros sparse rows leave out are values too, and need not be added:
// a sum that starts at +0 is never -0, so adding +0 never changes it.
func (b *builder) meanOf(c *column) float64 {
	return c.sum / float64(b.rows-c.missing)
}

// sizeRows is how many rows the loader reads before estimating the rest.
const sizeRows = 256

// startSizing records the input's size in bytes (-1 if unknown) and where
// its data rows start.
func (b *builder) startSizing(size, dataStart int64) {
	b.size, b.dataStart, b.sized = size, dataStart, size <= 0
}

// sizeFrom, called before each row with the bytes consumed so far, reserves
// the whole matrix once, from the mean bytes per row of the first rows, so
// that it is allocated once instead of grown and copied again and again.
// At the same point it decides whether the rows are held sparse (at once
// when the storage is forced).
func (b *builder) sizeFrom(pos int64) {
	b.pos = pos
	if !b.decided && (b.opts.storage != "" || b.rows+b.dropped >= sizeRows) {
		b.decideStorage(b.estimateRows(pos))
	}
	if b.sized || b.rows+b.dropped < sizeRows {
		return
	}
	b.sized = true
	rows := b.estimateRows(pos)
	if rows == 0 {
		return
	}
	if err := b.admitRows(rows); err != nil {
		b.admitError = err
		return
	}
	if b.sp != nil {
		b.reserveSparse(rows)
	} else if more := rows*b.width - len(b.raw); more > 0 {
		b.raw = reserve(b.raw, more)
	}
	if more := rows*b.nlab - len(b.labelCodes); more > 0 {
		b.labelCodes = reserve(b.labelCodes, more)
	}
}

// admitEvery is how much of the input the loader reads between two
// checks of its memory with the admission (Options.WithMemory).
const admitEvery = 1 << 20

// bytes are the memory of what the builder has kept so far (used) and
// of the arrays that hold it (held, with their room to grow).
func (b *builder) bytes() (used, held int64) {
	used = 8*int64(len(b.raw)+len(b.labelCodes)) + b.textBytes
	held = 8*int64(cap(b.raw)+cap(b.labelCodes)) + b.textBytes
	if sp := b.sp; sp != nil {
		used += 8*int64(len(sp.ptr)+len(sp.val)) + 4*int64(len(sp.ind))
		held += 8*int64(cap(sp.ptr)+cap(sp.val)) + 4*int64(cap(sp.ind))
	}
	for _, t := range b.textCols {
		used += 4 * int64(len(t.codes))
		held += 4 * int64(cap(t.codes))
	}
	return used, held
}

// admit tells the admission, every admitEvery bytes of input (pos bytes
// read), what the loading will hold at the end: what it holds, or what
// it has kept so far scaled to the whole input, whichever is more. It
// returns the admission's refusal (and any met while sizing).
func (b *builder) admit(pos int64) error {
	if b.admitError != nil || b.opts.memory == nil || pos < b.admitAt || b.rows+b.dropped == 0 {
		return b.admitError
	}
	b.admitAt = pos + admitEvery
	used, held := b.bytes()
	b.admitUsed = max(2*used, used+admitEvery)
	rows := int64(b.rows + b.dropped)
	est := held
	if b.size > 0 && pos > b.dataStart {
		f := float64(b.size-b.dataStart) / float64(pos-b.dataStart)
		est = max(held, int64(float64(used)*f))
		rows = int64(float64(rows) * f)
	}
	b.admitError = b.opts.need(est, rows)
	return b.admitError
}

// admitRows tells the admission that the matrices are about to be
// reserved for rows rows, before they are.
func (b *builder) admitRows(rows int) error {
	if b.opts.memory == nil || b.rows+b.dropped == 0 {
		return nil
	}
	used, _ := b.bytes()
	perRow := float64(used) / float64(b.rows+b.dropped)
	return b.opts.need(int64(perRow*float64(rows)), int64(rows))
}

// estimateRows estimates the rows of the whole input from the mean bytes
// per row so far, with 2 % to spare; 0 when the size is unknown.
func (b *builder) estimateRows(pos int64) int {
	if b.size <= 0 || b.rows+b.dropped == 0 {
		return 0
	}
	perRow := float64(pos-b.dataStart) / float64(b.rows+b.dropped)
	if perRow <= 0 {
		return 0
	}
	return int(float64(b.size-b.dataStart)/perRow*1.02) + 16
}

// reserve returns s with room for more elements. It allocates with make,
// which leaves memory fresh from the system untouched, where slices.Grow
// clears all of it: the slack of sizeFrom's estimate then stays out of the
// resident set (peak RSS 981 MB, not 1000 MB, for the benchmark's 1 GiB
// CSV; the speed is the same).
func reserve(s []float64, more int) []float64 {
	t := make([]float64, len(s), len(s)+more)
	copy(t, s)
	return t
}

// toText turns a CSV feature column that met text into a text column; the
// numbers read so far become its first categories.
func (b *builder) toText(c *column, tok []byte, line int) {
	b.densify() // the column is read from dense rows; text features keep them dense
	t := b.newText(true)
	t.numericRows = b.rows
	t.firstText = string(tok)
	t.firstTextLine = line
	for r := range b.rows {
		v := b.raw[r*b.width+c.slot]
		if v != v {
			t.codes = append(t.codes, -1)
			continue
		}
		t.codes = append(t.codes, t.intern([]byte(strconv.FormatFloat(v, 'g', -1, 64)), line))
	}
	c.text = t
	b.textFeatures++
}

// outColumn is one column of the final X.
type outColumn struct {
	name string
	slot int         // raw slot for numeric columns
	text *textColumn // non-nil for indicator columns
	code int32       // the category this indicator column marks
}

// finish checks the whole data set and builds it.
func (b *builder) finish() (*Dataset, error) {
	b.endStream()
	switch {
	case b.rows == 0 && b.dropped > 0:
		return nil, &InputError{Field: "missing", Msg: fmt.Sprintf("every one of the %d data rows has a missing value, so none is left after dropping them", b.dropped)}
	case b.rows == 0:
		return nil, &InputError{Line: firstLine(b.cols), Msg: "the file has a header but no data rows"}
	case b.rows < 2 && b.opts.only == nil:
		return nil, &InputError{Msg: "the file has only 1 data row; at least 2 are needed"}
	}
	ds := &Dataset{}
	for _, c := range b.cols {
		ds.Columns = append(ds.Columns, c.name)
		if c.role == roleLabel {
			ds.LabelColumns = append(ds.LabelColumns, c.name)
		}
	}
	if b.dropped > 0 {
		b.warnings = append(b.warnings, fmt.Sprintf("%d rows with missing values were left out (the first on line %d).", b.dropped, b.firstDropLine))
	}
	if b.opts.only == nil {
		if err := b.labels(ds); err != nil {
			return nil, err
		}
	}
	if err := b.features(ds); err != nil {
		return nil, err
	}
	ds.Warnings = b.warnings
	if b.opts.only == nil {
		settleLabels(ds, b.opts.labelStorage)
	}
	b.settleStream(ds)
	return ds, nil
}

// labels decides the kind and builds Y.
func (b *builder) labels(ds *Dataset) error {
	var labelCols []*column
	for i := range b.cols {
		if b.cols[i].role == roleLabel {
			labelCols = append(labelCols, &b.cols[i])
		}
	}
	q := len(labelCols)
	binary := make([][]float64, q) // per column: code → 0/1, nil if not binary
	allBinary := true
	for j, c := range labelCols {
		var fam uint8 = 0xff
		m := make([]float64, len(c.text.values))
		for k, v := range c.text.values {
			var f uint8
			m[k], f = binaryValue(v)
			fam &= f
		}
		if fam != 0 {
			binary[j] = m
		} else {
			allBinary = false
		}
	}
	kind := b.opts.Kind
	if kind == "" {
		kind = MultiDim
		if allBinary {
			kind = MultiLabel
		} else if w := strayLabelValues(labelCols, binary, b.labelCodes, b.rows); w != nil {
			b.warnings = append(b.warnings, w...)
		} else if w := binaryLookalike(labelCols, binary); w != "" {
			b.warnings = append(b.warnings, w)
		}
	}
	ds.Kind = kind
	// Y takes the codes' memory: each code is read, then its value written.
	y := mat.NewDense(b.rows, q, slices.Clip(b.labelCodes[:b.rows*q]))
	yd := y.RawMatrix().Data
	var constant, labelNames []string
	for j, c := range labelCols {
		name := labelName(c.name, b.opts.prefix())
		labelNames = append(labelNames, name)
		var m []float64
		if kind == MultiLabel {
			if binary[j] == nil {
				return nonBinaryLabel(c)
			}
			m = binary[j]
		} else {
			cats, order := categoryOrder(c)
			ds.Categories = append(ds.Categories, cats)
			m = order
		}
		seen := make([]bool, 2)
		var distinct int
		for i := range b.rows {
			v := m[int(yd[i*q+j])]
			yd[i*q+j] = v
			if kind == MultiLabel && !seen[int(v)] {
				seen[int(v)] = true
				distinct++
			}
		}
		if kind == MultiDim {
			distinct = len(c.text.values)
		}
		if distinct < 2 {
			constant = append(constant, name)
		}
	}
	ds.Y = y
	ds.Labels = ListNames(labelNames)
	if len(constant) > 0 {
		b.warnings = append(b.warnings, fmt.Sprintf("%d labels are constant (the same value in every row) and carry no information: %s.",
			len(constant), quoteList(constant, 10)))
	}
	b.labelCodes = nil
	return nil
}

// binaryLookalike explains an automatic multi-dimensional decision when
// every label column has at most two values, so the user may have meant
// binary labels with an unusual code (e.g. 1/2 or 0/−1).
func binaryLookalike(cols []*column, binary [][]float64) string {
	for _, c := range cols {
		if len(c.text.values) > 2 {
			return ""
		}
	}
	for j, c := range cols {
		if binary[j] == nil {
			return fmt.Sprintf("The labels were read as multi-dimensional class variables because column %s holds {%s}, "+
				"which is not a binary code (0/1, ±1, true/false, yes/no); recode it, or choose kind=multilabel to be told where.",
				quote(c.name), strings.Join(cutAll(c.text.values), ", "))
		}
	}
	return ""
}

func labelName(col, prefix string) string {
	if n, ok := strings.CutPrefix(col, prefix); ok && n != "" {
		return n
	}
	return col
}

func nonBinaryLabel(c *column) error {
	values := c.text.values
	for k, v := range values {
		if _, f := binaryValue(v); f == 0 {
			return &InputError{Line: c.text.firstLine[k], Column: c.name, Field: "kind", Msg: fmt.Sprintf(
				"%s is not a binary label value (0/1, ±1, true/false or yes/no), so the data cannot be multi-label; "+
					"choose kind=multidim for categorical class variables", quote(v))}
		}
	}
	// Every value is binary on its own, but they mix codes (e.g. 0 and -1):
	// report the first value that shares no code family with those before it.
	mixed := len(values) - 1
	var fam uint8 = 0xff
	for k, v := range values {
		_, f := binaryValue(v)
		if fam &= f; fam == 0 {
			mixed = k
			break
		}
	}
	return &InputError{Line: c.text.firstLine[mixed], Column: c.name, Field: "kind", Msg: fmt.Sprintf(
		"the label values {%s} mix binary codes; use one of 0/1, ±1, true/false or yes/no per column", strings.Join(cutAll(values), ", "))}
}

// categoryOrder returns the categories of a class variable in their order
// (declared order for ARFF, numeric when all are numbers, else text order)
// and the map from intern code to category index.
func categoryOrder(c *column) ([]string, []float64) {
	vals := c.text.values
	idx := make([]int, len(vals))
	for i := range idx {
		idx[i] = i
	}
	rank := func(i int) (float64, bool) {
		return numberValue(vals[i])
	}
	numeric := true
	for i := range vals {
		if _, ok := rank(i); !ok {
			numeric = false
		}
	}
	switch {
	case c.declared != nil:
		pos := make(map[string]int, len(c.declared))
		for i, d := range c.declared {
			pos[d] = i
		}
		slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(pos[vals[a]], pos[vals[b]]) })
	case numeric:
		slices.SortFunc(idx, func(a, b int) int {
			fa, _ := rank(a)
			fb, _ := rank(b)
			return cmp.Compare(fa, fb)
		})
	default:
		slices.SortFunc(idx, func(a, b int) int { return strings.Compare(vals[a], vals[b]) })
	}
	cats := make([]string, len(vals))
	order := make([]float64, len(vals))
	for k, i := range idx {
		cats[k] = vals[i]
		order[i] = float64(k)
	}
	return cats, order
}

// features imputes, encodes text columns and builds X.
func (b *builder) features(ds *Dataset) error {
	b.finishStorage()
	var out []outColumn
	var droppedText, encoded []string
	for i := range b.cols {
		c := &b.cols[i]
		if c.role != roleFeature {
			continue
		}
		if c.text == nil {
			if b.opts.missing() == MissingMean && c.missing > 0 {
				if c.missing == b.rows {
					return &InputError{Column: c.name, Field: "missing", Msg: "the column has no values at all, so its mean cannot replace the missing ones"}
				}
				if b.sp == nil {
					b.impute(c)
				}
			}
			out = append(out, outColumn{name: c.name, slot: c.slot})
			continue
		}
		if b.opts.nominal() == NominalDrop {
			droppedText = append(droppedText, c.name)
			continue
		}
		cols, err := oneHot(c)
		if err != nil {
			return err
		}
		encoded = append(encoded, c.name)
		out = append(out, cols...)
	}
	if b.sp != nil && b.imputed > 0 {
		b.sparseImpute()
	}
	if len(out) == 0 {
		return &InputError{Field: "nominal", Msg: fmt.Sprintf("no feature column is left: every feature column holds text (%s)", quoteList(droppedText, 5))}
	}
	if b.imputed > 0 {
		b.warnings = append(b.warnings, fmt.Sprintf("%d missing feature values were replaced by their column's mean.", b.imputed))
	}
	if len(droppedText) > 0 {
		b.warnings = append(b.warnings, fmt.Sprintf("%d text columns were left out (nominal=drop): %s.", len(droppedText), quoteList(droppedText, 10)))
	}
	if len(encoded) > 0 {
		b.warnings = append(b.warnings, fmt.Sprintf("%d text columns were one-hot encoded: %s.", len(encoded), quoteList(encoded, 10)))
	}
	names := make(map[string]bool, len(out))
	features := make([]string, 0, len(out))
	for _, o := range out {
		if names[o.name] {
			return &InputError{Column: o.name, Field: "nominal", Msg: "one-hot encoding made a column name that is already taken; rename the column"}
		}
		names[o.name] = true
		features = append(features, o.name)
	}
	ds.Features = ListNames(features)
	if b.sp != nil {
		// Sparse mode holds numeric columns only, each in its slot.
		ds.Sparse = b.sparseMatrix()
	} else {
		if len(out) != b.width { // a new matrix: the columns encoded or left out
			_, held := b.bytes()
			if err := b.opts.need(held+8*int64(b.rows)*int64(len(out)), int64(b.rows)); err != nil {
				return err
			}
		}
		ds.X = b.assemble(out)
	}
	b.raw = nil
	// Text columns keep the builder dense (sparseEligible); once they are
	// encoded or left out, the matrix is held sparse when the storage is
	// forced, or, as all-numeric data are, when it is sparse enough.
	if ds.X != nil && (b.opts.storage == StorageSparse ||
		(b.opts.storage == "" && b.opts.only == nil && len(droppedText)+len(encoded) > 0 && denseIsSparse(ds.X))) {
		ds.Sparse, ds.X = sparseFrom(ds.X), nil
	}
	b.zeroVariance(ds)
	return nil
}

func (b *builder) impute(c *column) {
	mean := b.meanOf(c)
	for r := range b.rows {
		if p := &b.raw[r*b.width+c.slot]; *p != *p {
			*p = mean
		}
	}
}

// oneHot makes the indicator columns of a text feature column.
func oneHot(c *column) ([]outColumn, error) {
	t := c.text
	if t.firstText != "" && t.numericRows > 0 && len(t.values) > MaxOneHotCategories {
		return nil, &InputError{Line: t.firstTextLine, Column: c.name, Field: "nominal", Msg: fmt.Sprintf(
			"the column holds numbers and text (%s): it cannot be one-hot encoded with %d distinct values; fix the value or drop the column", quote(t.firstText), len(t.values))}
	}
	if len(t.values) > MaxOneHotCategories {
		return nil, &InputError{Column: c.name, Field: "nominal", Msg: fmt.Sprintf(
			"the column has %d distinct values, too many to one-hot encode (at most %d): it looks like an identifier; leave it out with drop=%s",
			len(t.values), MaxOneHotCategories, c.name)}
	}
	cats := t.values
	if c.declared != nil {
		cats = c.declared
	}
	if yes, ok := yesNoPair(cats); ok {
		code, present := t.index[yes]
		if !present {
			code = -2 // never "yes": an all-zero column
		}
		return []outColumn{{name: c.name, text: t, code: code}}, nil
	}
	out := make([]outColumn, 0, len(cats))
	for _, v := range cats {
		code, ok := t.index[v]
		if !ok {
			code = -2 // declared but absent: an all-zero column
		}
		out = append(out, outColumn{name: c.name + "=" + v, text: t, code: code})
	}
	return out, nil
}

// yesNoPair reports whether one or two categories read as (part of) a
// yes/no pair, and which value means "yes" (it may be absent from values).
func yesNoPair(values []string) (string, bool) {
	if len(values) == 0 || len(values) > 2 {
		return "", false
	}
	pairs := [][2]string{{"yes", "no"}, {"true", "false"}, {"y", "n"}, {"t", "f"}}
	for _, p := range pairs {
		yes, all := "", true
		for _, v := range values {
			switch strings.ToLower(v) {
			case p[0]:
				yes = v
			case p[1]:
			default:
				all = false
			}
		}
		if all {
			if yes == "" {
				yes = p[0] // absent: no row says yes
			}
			return yes, true
		}
	}
	return "", false
}

// assemble builds X from the raw rows, in place when no column is added.
func (b *builder) assemble(out []outColumn) *mat.Dense {
	w := len(out)
	inPlace, same := w <= b.width, w == b.width
	for j, o := range out {
		if o.text != nil {
			inPlace = false
		}
		same = same && o.text == nil && o.slot == j
	}
	if same {
		// X is the raw rows as they are (the common case): nothing to move.
		b.xIsRaw = true
		return mat.NewDense(b.rows, w, slices.Clip(b.raw[:b.rows*w]))
	}
	var data []float64
	if inPlace {
		data = b.raw[:b.rows*w]
	} else {
		data = make([]float64, b.rows*w)
	}
	for r := range b.rows {
		src := b.raw[r*b.width : (r+1)*b.width]
		dst := data[r*w : (r+1)*w]
		for j, o := range out {
			if o.text == nil {
				dst[j] = src[o.slot]
			} else if o.text.codes[r] == o.code {
				dst[j] = 1
			} else {
				dst[j] = 0
			}
		}
	}
	return mat.NewDense(b.rows, w, slices.Clip(data))
}

func (b *builder) zeroVariance(ds *Dataset) {
	if ds.Sparse != nil {
		count, first := sparseConstant(ds.Sparse)
		b.warnConstant(ds.Features, count, first)
		return
	}
	n, d := ds.X.Dims()
	raw := ds.X.RawMatrix()
	first := raw.Data[:d]
	constant := make([]bool, d)
	for j := range constant {
		constant[j] = true
	}
	var mu sync.Mutex
	inParts(n, d, func(lo, hi int) {
		differs := make([]bool, d) // this part's rows against the first
		for i := max(lo, 1); i < hi; i++ {
			row := raw.Data[i*raw.Stride : i*raw.Stride+d]
			for j, v := range row {
				if v != first[j] {
					differs[j] = true
				}
			}
		}
		mu.Lock()
		defer mu.Unlock()
		for j, x := range differs {
			if x {
				constant[j] = false
			}
		}
	})
	count, firstConst := constantOf(constant)
	b.warnConstant(ds.Features, count, firstConst)
}

// constantOf counts the columns marked constant and returns the first
// firstConstant of them.
func constantOf(constant []bool) (count int, first []int) {
	for j, c := range constant {
		if c {
			count++
			if len(first) < firstConstant {
				first = append(first, j)
			}
		}
	}
	return count, first
}

// warnConstant warns of count constant features, the first of which are
// first.
func (b *builder) warnConstant(features Names, count int, first []int) {
	if w := constantFeatures(features, count, first); w != "" {
		b.warnings = append(b.warnings, w)
	}
}

// constantFeatures is the warning of count features that have zero
// variance, naming the first of them ("" when there are none).
func constantFeatures(features Names, count int, first []int) string {
	if count == 0 {
		return ""
	}
	names := make([]string, len(first))
	for k, j := range first {
		names[k] = features.At(j)
	}
	return fmt.Sprintf("%d features have zero variance (the same value in every row) and carry no information: %s.",
		count, quoteFirst(names, count))
}

// quoteFirst quotes names, the first of total, adding how many more there
// are.
func quoteFirst(names []string, total int) string {
	s := quoteList(names, len(names))
	if more := total - len(names); more > 0 {
		s += fmt.Sprintf(" and %d more", more)
	}
	return s
}
