package dataset

import (
	"errors"
	"fmt"
	"strconv"
)

// InputError reports input the loader refuses: a malformed file, a value
// outside what a column may hold, or options that do not fit the file.
// Every refusal of user input is an *InputError, so callers can tell it from
// an I/O failure with errors.As.
type InputError struct {
	// Line is the 1-based line of the input the problem is on, or 0 when it
	// is not tied to one line (e.g. "no label column found").
	Line int
	// Column names the column (attribute) involved, or is "" when none is.
	// A column without a name is given as "#n", its 1-based position.
	Column string
	// Field names the request option involved (e.g. "labels"), if any.
	Field string
	// Msg is the human sentence, without the line and column prefix.
	Msg string
}

// Error returns the whole sentence a user sees, e.g.
// `line 17, column "Att12": "abc" is not a number`.
func (e *InputError) Error() string {
	switch {
	case e.Line > 0 && e.Column != "":
		return fmt.Sprintf("line %d, column %s: %s", e.Line, quote(e.Column), e.Msg)
	case e.Line > 0:
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	case e.Column != "":
		return fmt.Sprintf("column %s: %s", quote(e.Column), e.Msg)
	default:
		return e.Msg
	}
}

// errorf builds an *InputError at a line and column.
func errorf(line int, column, format string, args ...any) *InputError {
	return &InputError{Line: line, Column: column, Msg: fmt.Sprintf(format, args...)}
}

// optionError builds an *InputError about a request option.
func optionError(field, format string, args ...any) *InputError {
	return &InputError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// ErrCorrupt is returned (wrapped) by ReadBinary when stored data fail their
// checksum or structure checks.
var ErrCorrupt = errors.New("stored data set is corrupt")

// MaxQuoted is the most runes of a cell or a column name that a message
// quotes; a longer one is cut to its first MaxQuoted-3 runes and "…".
const MaxQuoted = 60

// Cut returns s as messages and logs show it: whole when it has at most
// MaxQuoted runes, else its first MaxQuoted-3 runes followed by "…". Bytes
// that are not UTF-8 count as a rune each and are kept as they are.
func Cut[T ~string | ~[]byte](s T) string {
	str := string(s)
	n, end := 0, 0
	for i := range str {
		if n == MaxQuoted-3 {
			end = i
		}
		if n == MaxQuoted {
			return str[:end] + "…"
		}
		n++
	}
	return str
}

// quote is Cut(s) in Go's double quotes with escapes, as %q writes it.
func quote[T ~string | ~[]byte](s T) string { return strconv.Quote(Cut(s)) }
