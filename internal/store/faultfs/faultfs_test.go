package faultfs_test

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"mldr/internal/store/faultfs"
)

// Five writes to one file under each kind of fault: which fail, and what
// reaches the disk.
func TestFaults(t *testing.T) {
	cases := []struct {
		name  string
		set   func(*faultfs.FS)
		fails []bool // per write
		file  string // what the file holds after the five writes of "abcd"
	}{
		{"none", func(*faultfs.FS) {}, []bool{false, false, false, false, false}, "abcdabcdabcdabcdabcd"},
		{"the 2nd", func(f *faultfs.FS) { f.FailNth(faultfs.Write, 2, syscall.ENOSPC) }, []bool{false, true, false, false, false}, "abcdababcdabcdabcd"},
		{"from the 4th", func(f *faultfs.FS) { f.FailFrom(faultfs.Write, 4, syscall.ENOSPC) }, []bool{false, false, false, true, true}, "abcdabcdabcdabab"},
		{"another kind", func(f *faultfs.FS) { f.FailNth(faultfs.Sync, 1, syscall.EIO) }, []bool{false, false, false, false, false}, "abcdabcdabcdabcdabcd"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ffs := faultfs.New(nil)
			c.set(ffs)
			p := filepath.Join(t.TempDir(), "f")
			f, err := ffs.OpenFile(p, os.O_CREATE|os.O_WRONLY, 0o600)
			if err != nil {
				t.Fatal(err)
			}
			fired := 0
			for i, want := range c.fails {
				n, err := f.Write([]byte("abcd"))
				if got := err != nil; got != want {
					t.Errorf("write %d: got error %v, want failure %v", i+1, err, want)
				}
				if err != nil {
					fired++
					var pe *os.PathError
					if !errors.Is(err, syscall.ENOSPC) || !errors.As(err, &pe) || pe.Path != p || n != 2 {
						t.Errorf("write %d: got %d, %v; want 2 bytes and a PathError for %s wrapping ENOSPC", i+1, n, err, p)
					}
				}
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(p); string(got) != c.file {
				t.Errorf("the file holds %q, want %q", got, c.file)
			}
			if ffs.Fired() != fired || ffs.Count(faultfs.Write) != len(c.fails) {
				t.Errorf("Fired %d, Count %d; want %d and %d", ffs.Fired(), ffs.Count(faultfs.Write), fired, len(c.fails))
			}
		})
	}
}

// Every kind of operation can be made to fail, and Heal ends the fault.
func TestEveryOp(t *testing.T) {
	dir := t.TempDir()
	do := map[faultfs.Op]func(f *faultfs.FS) error{
		faultfs.Create: func(f *faultfs.FS) error { _, err := f.CreateTemp(dir, "x"); return err },
		faultfs.Open:   func(f *faultfs.FS) error { _, err := f.Open(dir); return err },
		faultfs.Write: func(f *faultfs.FS) error {
			file, err := f.CreateTemp(dir, "w")
			if err != nil {
				return err
			}
			defer file.Close()
			_, err = file.Write([]byte("x"))
			return err
		},
		faultfs.Sync: func(f *faultfs.FS) error {
			d, err := f.Open(dir)
			if err != nil {
				return err
			}
			defer d.Close()
			return d.Sync()
		},
		faultfs.Close: func(f *faultfs.FS) error {
			d, err := f.Open(dir)
			if err != nil {
				return err
			}
			return d.Close()
		},
		faultfs.Rename: func(f *faultfs.FS) error {
			os.WriteFile(filepath.Join(dir, "r"), nil, 0o600)
			return f.Rename(filepath.Join(dir, "r"), filepath.Join(dir, "r2"))
		},
		faultfs.Mkdir:   func(f *faultfs.FS) error { return f.MkdirAll(filepath.Join(dir, "d"), 0o750) },
		faultfs.Remove:  func(f *faultfs.FS) error { return f.RemoveAll(filepath.Join(dir, "nothing")) },
		faultfs.ReadDir: func(f *faultfs.FS) error { _, err := f.ReadDir(dir); return err },
	}
	for _, op := range faultfs.Ops {
		t.Run(string(op), func(t *testing.T) {
			ffs := faultfs.New(nil)
			ffs.FailFrom(op, 1, syscall.EIO)
			if err := do[op](ffs); !errors.Is(err, syscall.EIO) {
				t.Errorf("with the fault: got %v, want EIO", err)
			}
			ffs.Heal()
			if err := do[op](ffs); err != nil {
				t.Errorf("healed: got %v", err)
			}
		})
	}
}
