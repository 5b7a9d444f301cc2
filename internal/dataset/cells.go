package dataset

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// Reading a data row's cells into the builder: what a cell means (a number,
// a missing value, a declared value, text), the checks of a row under the
// missing-value policy (rowCheck), a CSV feature column that turns to text,
// and committing the row (its features, label codes, text codes and the
// sums of mean imputation).

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
