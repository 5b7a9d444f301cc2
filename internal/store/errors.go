package store

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrNotFound is returned for an id that names nothing stored.
var ErrNotFound = errors.New("not found")

// ErrConflict is returned when a change meets a record that changed meanwhile
// or is in a state that forbids the change.
var ErrConflict = errors.New("conflict")

// ErrUnavailable is wrapped by the errors of a metadata store that cannot
// be reached: the shared mode's database is down, unreachable, or did not
// answer in time. Nothing was read or changed by the operation that
// failed, and the same request may succeed once the database is back.
var ErrUnavailable = errors.New("the database is unreachable")

// ErrCorruptResult is wrapped by the errors for a job's result file that
// is missing or does not match its checksum.
var ErrCorruptResult = errors.New("corrupt result file")

// CorruptResultError names the result file of a job that failed its
// check, and why. It wraps ErrCorruptResult.
type CorruptResultError struct {
	Job  string // the job's id
	File string // the file's path in the result directory, with slashes
	// Reason says what is wrong: missing, size, hash, not listed.
	Reason string
}

// Error names the file, the job and the reason, and says to run the job
// again.
func (e *CorruptResultError) Error() string {
	return fmt.Sprintf("result file %s of job %s is corrupt (%s); run the job again", e.File, e.Job, e.Reason)
}

// Unwrap returns ErrCorruptResult.
func (e *CorruptResultError) Unwrap() error { return ErrCorruptResult }

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

// ParseBytes reads a size as the command line's flags take it: "1048576",
// "500MB", "1GiB", "2g" (k, m, g alone mean the binary units); it must be
// positive.
func ParseBytes(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	units := []struct {
		suffix string
		mult   int64
	}{
		{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40},
		{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"tb", 1e12},
		{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"t", 1 << 40}, {"b", 1},
	}
	mult := int64(1)
	for _, u := range units {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v <= 0 || v*float64(mult) > 1<<62 {
		return 0, fmt.Errorf("%q is not a positive size such as 1048576, 500MB or 1GiB", s)
	}
	return int64(v * float64(mult)), nil
}
