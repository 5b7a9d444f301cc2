package dataset

import (
	"fmt"
	"slices"
	"strings"
	"unsafe"
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
