package store

import (
	"errors"
	"fmt"
)

// ErrNotFound is returned for an id that names nothing stored.
var ErrNotFound = errors.New("not found")

// ErrConflict is returned when a change meets a record that changed meanwhile
// or is in a state that forbids the change.
var ErrConflict = errors.New("conflict")

// TooLargeError is returned when an upload exceeds its size limit.
type TooLargeError struct {
	Limit int64 // bytes
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the file is larger than the upload limit of %s", FormatBytes(e.Limit))
}

// FormatBytes writes a byte count for people: "1 GiB", "12.5 MiB", "300 B".
func FormatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	v := float64(n) / float64(div)
	suffix := []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}[exp]
	if v == float64(int64(v)) {
		return fmt.Sprintf("%d %s", int64(v), suffix)
	}
	return fmt.Sprintf("%.1f %s", v, suffix)
}
