package analysis

import (
	"errors"
	"fmt"
)

// ErrorKind tells a caller how to answer an *Error.
type ErrorKind int

const (
	// Invalid means the request is wrong on its own: a parameter outside
	// its range, an unknown method or label kernel, NaN in the data. An API
	// answers 400.
	Invalid ErrorKind = iota + 1
	// Unservable means a valid request that the method cannot serve on
	// these data: d above the rank, too many rows for a pairwise method,
	// the wrong kind of labels. An API answers 422.
	Unservable
)

// Error is a refusal of a fit, with what a user needs to fix it.
type Error struct {
	Kind ErrorKind
	// Param names the parameter at fault ("d", "beta", …), or "" when the
	// data are.
	Param string
	// Max is the largest value Param may take on these data (e.g. the rank
	// for d), or 0 when there is none.
	Max int
	Msg string
}

func (e *Error) Error() string { return "analysis: " + e.Msg }

func invalid(param, format string, args ...any) *Error {
	return &Error{Kind: Invalid, Param: param, Msg: fmt.Sprintf(format, args...)}
}

func unservable(param string, max int, format string, args ...any) *Error {
	return &Error{Kind: Unservable, Param: param, Max: max, Msg: fmt.Sprintf(format, args...)}
}

// ErrTransductive is returned by Transform for a method (mds) that embeds
// its training rows only and has no projection for new rows.
var ErrTransductive = errors.New("analysis: this method embeds its training rows only and cannot project new rows")
