package store

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPublicError checks that the data directory's absolute path is taken
// out of an error's message and that what the error wraps is still found.
func TestPublicError(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, openErr := os.Open(filepath.Join(dir, "datasets", "x", "data-1.bin"))
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"a file under it", openErr, "open datasets/x/data-1.bin: no such file or directory"},
		{"the directory itself", errors.New("cannot lock " + dir + ": busy"), "cannot lock the data directory: busy"},
		{"a sibling with a longer name", errors.New("open " + dir + "x/a"), "open " + dir + "x/a"},
		{"no path", errors.New("d = 40 exceeds the rank 14"), "d = 40 exceeds the rank 14"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := s.PublicError(tc.err)
			if got.Error() != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			if !errors.Is(got, tc.err) {
				t.Errorf("got an error that does not wrap %v", tc.err)
			}
		})
	}
	if s.PublicError(nil) != nil {
		t.Errorf("PublicError(nil): got an error, want nil")
	}
	if strings.Contains(s.PublicError(openErr).Error(), dir) || !errors.Is(s.PublicError(openErr), os.ErrNotExist) {
		t.Errorf("got %v, want no directory and os.ErrNotExist wrapped", s.PublicError(openErr))
	}
}
