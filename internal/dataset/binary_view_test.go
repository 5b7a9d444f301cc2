package dataset_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"mldr/internal/dataset"
)

// viewCSV makes a CSV of rows rows: features columns of random numbers
// (every zeroEvery-th cell 0, so that it can be stored sparse), then the
// labels: multi-label 0/1 columns, or one class variable of three classes.
func viewCSV(rows, features, zeroEvery int, multiDim bool) string {
	r := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	for j := range features {
		fmt.Fprintf(&b, "f%d,", j)
	}
	if multiDim {
		b.WriteString("label:c\n")
	} else {
		b.WriteString("label:a,label:b,label:c\n")
	}
	k := 0
	for i := range rows {
		for range features {
			if k++; zeroEvery > 0 && k%zeroEvery != 0 {
				b.WriteString("0,")
			} else {
				fmt.Fprintf(&b, "%v,", r.NormFloat64())
			}
		}
		if multiDim {
			fmt.Fprintf(&b, "%c\n", 'x'+i%3)
		} else {
			fmt.Fprintf(&b, "%d,%d,%d\n", i%2, (i/2)%2, r.IntN(2))
		}
	}
	return b.String()
}

// stored returns the binary form of the CSV s, stored as storage says.
func stored(t *testing.T, s string, storage dataset.Storage) []byte {
	t.Helper()
	ds, err := dataset.LoadStored(strings.NewReader(s), dataset.Options{}, storage)
	if err != nil {
		t.Fatalf("LoadStored: got %q, want no error", err)
	}
	var buf bytes.Buffer
	if err := dataset.WriteBinary(&buf, ds); err != nil {
		t.Fatalf("WriteBinary: got %q, want no error", err)
	}
	return buf.Bytes()
}

// aligned copies b to memory that starts at a multiple of 8 bytes, as a
// mapped file does.
func aligned(b []byte) []byte {
	words := make([]float64, (len(b)+7)/8)
	out := unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), len(b))
	copy(out, b)
	return out
}

// withCRC sets the last 4 bytes of b to the CRC-32C of the others.
func withCRC(b []byte) []byte {
	binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.Checksum(b[:len(b)-4], crc32.MakeTable(crc32.Castagnoli)))
	return b
}

// arraysAt is where the arrays of the stored file b start (after its
// magic, length and header).
func arraysAt(b []byte) int { return 16 + int(binary.LittleEndian.Uint64(b[8:16])) }

// unpadded rewrites the stored file b as files were written before the
// header was padded: its header without the padding spaces and then with
// spaces until the arrays start 3 bytes past a multiple of 8; a sparse
// file as version 1, without the padding after its column indices.
func unpadded(t *testing.T, b []byte) []byte {
	t.Helper()
	at := arraysAt(b)
	h := slices.Clone(bytes.TrimRight(b[16:at], " "))
	for (16+len(h))%8 != 3 {
		h = append(h, ' ')
	}
	body := b[at : len(b)-4]
	magic := slices.Clone(b[:8])
	if bytes.HasPrefix(b, []byte("MLDRSP")) {
		var sh struct {
			Rows int `json:"rows"`
			NNZ  int `json:"nnz"`
		}
		if err := json.Unmarshal(h, &sh); err != nil {
			t.Fatal(err)
		}
		if sh.NNZ%2 == 1 {
			ind := 8*(sh.Rows+1) + 4*sh.NNZ
			body = append(slices.Clone(body[:ind]), body[ind+4:]...)
		}
		magic[7] = 1
	}
	out := append(magic, binary.LittleEndian.AppendUint64(nil, uint64(len(h)))...)
	out = append(append(out, h...), body...)
	return withCRC(append(out, 0, 0, 0, 0))
}

// sameStored fails t unless got and want hold the same data set, every
// array bit for bit.
func sameStored(t *testing.T, got, want *dataset.Dataset) {
	t.Helper()
	sameDataset(t, got, want)
	if want.Sparse != nil {
		g, w := got.Sparse, want.Sparse
		bits := func(v []float64) []uint64 {
			out := make([]uint64, len(v))
			for i, x := range v {
				out[i] = math.Float64bits(x)
			}
			return out
		}
		if g.R != w.R || g.C != w.C || !slices.Equal(g.Ptr, w.Ptr) || !slices.Equal(g.Ind, w.Ind) || !slices.Equal(bits(g.Val), bits(w.Val)) {
			t.Errorf("sparse X: got %d×%d %v %v %v, want %d×%d %v %v %v", g.R, g.C, g.Ptr, g.Ind, g.Val, w.R, w.C, w.Ptr, w.Ind, w.Val)
		}
	}
}

// viewCases are stored files of each form: dense multi-label and
// multi-dimensional data over several chunks of the one pass, sparse data
// with an odd and an even number of entries, and a tiny data set.
func viewCases(t *testing.T) []struct {
	name string
	file []byte
} {
	return []struct {
		name string
		file []byte
	}{
		{"dense multi-label", stored(t, viewCSV(3000, 6, 0, false), dataset.StorageDense)},
		{"dense multi-dimensional", stored(t, viewCSV(2000, 5, 0, true), dataset.StorageDense)},
		{"dense, quoted categories", stored(t, multiDimCSV, dataset.StorageDense)},
		{"sparse, odd entries", stored(t, viewCSV(2000, 40, 13, false), dataset.StorageSparse)},
		{"sparse, even entries", stored(t, viewCSV(1999, 40, 13, true), dataset.StorageSparse)},
		{"sparse, no entries", stored(t, "a,b,label:y\n0,0,1\n0,0,0\n", dataset.StorageSparse)},
	}
}

// TestViewBinary checks that ViewBinary gives, bit for bit, what
// ReadBinary reads, in place for the files WriteBinary writes now and by
// a copy for files written before the header was padded (and sparse
// files of version 1), with every level of checks.
func TestViewBinary(t *testing.T) {
	for _, c := range viewCases(t) {
		for _, old := range []bool{false, true} {
			file := c.file
			if old {
				file = unpadded(t, file)
			}
			want, err := dataset.ReadBinary(bytes.NewReader(file), int64(len(file)))
			if err != nil {
				t.Fatalf("%s: ReadBinary: got %q, want no error", c.name, err)
			}
			if (want.Sparse != nil) != strings.HasPrefix(c.name, "sparse") {
				t.Fatalf("%s: got sparse %v, want the name's", c.name, want.Sparse != nil)
			}
			for _, check := range []dataset.Check{dataset.CheckAll, dataset.CheckValues, dataset.CheckTrusted} {
				t.Run(fmt.Sprintf("%s/old %v/check %d", c.name, old, check), func(t *testing.T) {
					b := aligned(file)
					got, inPlace, err := dataset.ViewBinary(b, check)
					if err != nil {
						t.Fatalf("got %q, want no error", err)
					}
					if inPlace == old {
						t.Errorf("got in place %v, want %v", inPlace, !old)
					}
					sameStored(t, got, want)
					// In place, the matrices are b's memory: a change to b shows;
					// a copy does not change.
					ys := got.Y.RawMatrix().Data
					if len(ys) == 0 {
						return
					}
					b[len(b)-4-8*len(ys)+7] ^= 0x40 // an exponent bit of Y[0][0]
					if changed := got.Y.At(0, 0) != want.Y.At(0, 0); changed != inPlace {
						t.Errorf("after changing b: got Y[0][0] = %v (was %v), want it changed %v", got.Y.At(0, 0), want.Y.At(0, 0), inPlace)
					}
				})
			}
		}
	}
}

// TestViewBinaryCorrupt checks what each level of checks of ViewBinary
// finds in damaged files, in place and for old files read by a copy.
func TestViewBinaryCorrupt(t *testing.T) {
	dense := stored(t, viewCSV(3000, 6, 0, false), dataset.StorageDense)
	multi := stored(t, viewCSV(2000, 5, 0, true), dataset.StorageDense)
	sp := stored(t, viewCSV(2000, 40, 13, false), dataset.StorageSparse) // 6 153 entries
	big := stored(t, viewCSV(60000, 20, 0, false), dataset.StorageDense) // 11 MB: the pass in parts
	lastBigX := len(big) - 4 - 8*60000*3 - 8
	lastX := func(b []byte) int { return len(b) - 4 - 8*3000*3 - 8 } // the last value of X in dense
	set := func(b []byte, at int, v float64) []byte {
		b = slices.Clone(b)
		binary.LittleEndian.PutUint64(b[at:], math.Float64bits(v))
		return withCRC(b)
	}
	flip := func(b []byte, at int, bit byte) []byte {
		b = slices.Clone(b)
		b[at] ^= bit
		return b
	}
	for _, c := range []struct {
		name string
		file []byte
		// Whether CheckAll, CheckValues and CheckTrusted refuse it.
		all, values, trusted bool
	}{
		{"intact", dense, false, false, false},
		{"a low bit of X flipped, far into the file", flip(dense, lastX(dense), 0x01), true, false, false},
		{"NaN in X, checksum matching", set(dense, lastX(dense), math.NaN()), true, true, false},
		{"+Inf in the first value of X, checksum matching", set(dense, arraysAt(dense), math.Inf(1)), true, true, false},
		{"a label 2 in multi-label Y, checksum matching", set(dense, len(dense)-4-8, 2), true, true, false},
		{"a class code 3 of 3 classes, checksum matching", set(multi, len(multi)-4-8, 3), true, true, false},
		{"a class code 0.5, checksum matching", set(multi, len(multi)-4-16, 0.5), true, true, false},
		{"the checksum flipped", flip(dense, len(dense)-1, 0x80), true, false, false},
		{"cut by 8 bytes", dense[:len(dense)-8], true, true, true},
		{"a header length past the end", flip(dense, 15, 0x10), true, true, true},
		{"bad magic", flip(dense, 0, 0x01), true, true, true},
		{"sparse: a value bit flipped", flip(sp, len(sp)-4-8*3*2000-3, 0x01), true, false, false},
		{"sparse: a column out of range, checksum matching", withCRC(flip(sp, arraysAt(sp)+8*2000+1, 0x70)), true, true, false},
		{"sparse: the padding not zero, checksum matching", withCRC(flip(sp, len(sp)-4-8*3*2000-8*spNNZ(t, sp)-1, 0x01)), true, true, true},
		{"large: a low bit of X flipped in the last part", flip(big, lastBigX, 0x01), true, false, false},
		{"large: NaN in X in the last part, checksum matching", set(big, lastBigX, math.NaN()), true, true, false},
		{"large: a label 2 in the first row of Y, checksum matching", set(big, arraysAt(big)+8*60000*20, 2), true, true, false},
		{"old dense: a low bit of X flipped", flip(unpadded(t, dense), len(dense)-4-8*9000-9, 0x01), true, false, false},
	} {
		for _, lv := range []struct {
			check dataset.Check
			want  bool
		}{{dataset.CheckAll, c.all}, {dataset.CheckValues, c.values}, {dataset.CheckTrusted, c.trusted}} {
			t.Run(fmt.Sprintf("%s/check %d", c.name, lv.check), func(t *testing.T) {
				_, _, err := dataset.ViewBinary(aligned(c.file), lv.check)
				if errors.Is(err, dataset.ErrCorrupt) != lv.want {
					t.Errorf("got %v, want corrupt %v", err, lv.want)
				}
				if err != nil && !errors.Is(err, dataset.ErrCorrupt) {
					t.Errorf("got %v, want an error wrapping ErrCorrupt", err)
				}
			})
		}
	}
}

// spNNZ is the number of entries of the sparse stored file b.
func spNNZ(t *testing.T, b []byte) int {
	t.Helper()
	var h struct {
		NNZ int `json:"nnz"`
	}
	if err := json.Unmarshal(b[16:arraysAt(b)], &h); err != nil {
		t.Fatal(err)
	}
	if h.NNZ%2 == 0 {
		t.Fatalf("got %d entries, want an odd number (a padding to damage)", h.NNZ)
	}
	return h.NNZ
}
