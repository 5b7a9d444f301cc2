package store

import (
	"path/filepath"
	"slices"
	"strings"
)

// PublicError returns err as a user may see it (a failed job's error, an
// answer, a page): its message with every path under the data directory
// written relative to it ("datasets/ID/data.bin" for
// "/srv/mldr/datasets/ID/data.bin"), and the directory itself as "the data
// directory", so the server's file layout is not shown. The result wraps
// err, so errors.Is and errors.As find what err wraps; logs keep err with
// its full paths. It returns err itself when its message names no such
// path, and nil for nil.
func (s *Files) PublicError(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	shown := s.HidePaths(msg)
	if shown == msg {
		return err
	}
	return &publicError{msg: shown, err: err}
}

// HidePaths returns msg with the data directory's absolute spellings taken
// out as PublicError does.
func (s *Files) HidePaths(msg string) string {
	for _, d := range s.dirSpellings() {
		msg = hideDir(msg, d)
	}
	return msg
}

// dirSpellings are the absolute forms under which the data directory may
// appear in an error: as given when absolute, made absolute, and with its
// symbolic links resolved; the longest first.
func (s *Files) dirSpellings() []string {
	var out []string
	add := func(d string) {
		d = filepath.Clean(d)
		if filepath.IsAbs(d) && d != string(filepath.Separator) && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	add(s.dir)
	if abs, err := filepath.Abs(s.dir); err == nil {
		add(abs)
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			add(real)
		}
	}
	slices.SortFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}

// hideDir takes dir out of msg: "dir/x" becomes "x", and dir alone (not
// followed by a character a file name could go on with) becomes "the data
// directory".
func hideDir(msg, dir string) string {
	msg = strings.ReplaceAll(msg, dir+string(filepath.Separator), "")
	var b strings.Builder
	for {
		i := strings.Index(msg, dir)
		if i < 0 {
			b.WriteString(msg)
			return b.String()
		}
		end := i + len(dir)
		b.WriteString(msg[:i])
		if end == len(msg) || !nameChar(msg[end]) {
			b.WriteString("the data directory")
		} else {
			b.WriteString(dir)
		}
		msg = msg[end:]
	}
}

// nameChar reports whether c may continue a file name.
func nameChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_'
}

// publicError is an error shown without the data directory's path.
type publicError struct {
	msg string
	err error
}

func (e *publicError) Error() string { return e.msg }
func (e *publicError) Unwrap() error { return e.err }
