package dataset_test

import (
	"bytes"
	"errors"
	"testing"

	"mldr/internal/dataset"
)

// ReadBinaryVerified, for a file whose checksum was verified before, does
// not compute it (a value bit flipped since reads), and makes every other
// check ReadBinary makes; ReadBinary refuses the same flipped bit.
func TestReadBinaryVerified(t *testing.T) {
	ds := mustLoad(t, multiDimCSV, dataset.Options{})
	var buf bytes.Buffer
	if err := dataset.WriteBinary(&buf, ds); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	x := len(good) - 4 - 8*ds.Rows()*(ds.Features.Len()+ds.Labels.Len()) // the first value of X
	flip := func(i int) []byte {
		b := bytes.Clone(good)
		b[i] ^= 0x01
		return b
	}
	for _, c := range []struct {
		name         string
		file         []byte
		size         int64
		verified     bool // ReadBinaryVerified refuses it as corrupt
		checked      bool // ReadBinary does
		wantX00Moved bool
	}{
		{"intact", good, int64(len(good)), false, false, false},
		{"a low bit of X flipped", flip(x), int64(len(good)), false, true, true},
		{"the checksum flipped", flip(len(good) - 1), int64(len(good)), false, true, false},
		{"the checksum cut off", good[:len(good)-4], int64(len(good) - 4), true, true, false},
		{"bad magic", flip(0), int64(len(good)), true, true, false},
		{"a label code that is no category", flip(len(good) - 5 - 6), int64(len(good)), true, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := dataset.ReadBinaryVerified(bytes.NewReader(c.file), c.size)
			if errors.Is(err, dataset.ErrCorrupt) != c.verified {
				t.Errorf("ReadBinaryVerified: got %v, want corrupt %v", err, c.verified)
			}
			if err == nil && (got.X.At(0, 0) != ds.X.At(0, 0)) != c.wantX00Moved {
				t.Errorf("ReadBinaryVerified: got X[0][0] = %v, want it changed %v (written %v)", got.X.At(0, 0), c.wantX00Moved, ds.X.At(0, 0))
			}
			if _, err := dataset.ReadBinary(bytes.NewReader(c.file), c.size); errors.Is(err, dataset.ErrCorrupt) != c.checked {
				t.Errorf("ReadBinary: got %v, want corrupt %v", err, c.checked)
			}
		})
	}
}
