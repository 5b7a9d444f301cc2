package dataset

import (
	"errors"
	"fmt"
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
		return fmt.Sprintf("line %d, column %q: %s", e.Line, e.Column, e.Msg)
	case e.Line > 0:
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	case e.Column != "":
		return fmt.Sprintf("column %q: %s", e.Column, e.Msg)
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
