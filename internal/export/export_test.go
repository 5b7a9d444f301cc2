package export

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// Golden files in testdata/ are written by numpy 1.24.2 with
// testdata/make_golden.py (run it with /usr/bin/python3; see its doc string).

// debianPython is the interpreter with numpy; the python3 on PATH may lack it.
const debianPython = "/usr/bin/python3"

// requireNumPy skips the test unless debianPython can import numpy.
func requireNumPy(t *testing.T) {
	t.Helper()
	if err := exec.CommandContext(t.Context(), debianPython, "-c", "import numpy").Run(); err != nil {
		t.Skipf("%s with numpy is not available: %v", debianPython, err)
	}
}

// sameBits reports whether a and b have the same shape and bit-identical values.
func sameBits(a, b mat.Matrix) bool {
	ar, ac := a.Dims()
	br, bc := b.Dims()
	if ar != br || ac != bc {
		return false
	}
	for i := range ar {
		for j := range ac {
			if math.Float64bits(a.At(i, j)) != math.Float64bits(b.At(i, j)) {
				return false
			}
		}
	}
	return true
}

// describe names a matrix's shape and first values for failure messages.
func describe(m mat.Matrix) string {
	r, c := m.Dims()
	var vals []string
	for i := range r {
		for j := range c {
			if len(vals) == 6 {
				return fmt.Sprintf("%d×%d [%s …]", r, c, strings.Join(vals, " "))
			}
			vals = append(vals, strconv.FormatFloat(m.At(i, j), 'g', -1, 64))
		}
	}
	return fmt.Sprintf("%d×%d [%s]", r, c, strings.Join(vals, " "))
}

// emptyRows returns a 0×c Dense (c > 0), made the way gonum allows: Slice.
func emptyRows(c int) *mat.Dense {
	return mat.NewDense(1, c, nil).Slice(0, 0, 0, c).(*mat.Dense)
}

// emptyCols returns an r×0 Dense (r > 0).
func emptyCols(r int) *mat.Dense {
	return mat.NewDense(r, 1, nil).Slice(0, r, 0, 0).(*mat.Dense)
}

// seeded returns an r×c matrix of standard normal values.
func seeded(r, c int, seed uint64) *mat.Dense {
	rng := rand.New(rand.NewPCG(seed, seed))
	m := mat.NewDense(r, c, nil)
	for i := range r {
		for j := range c {
			m.Set(i, j, rng.NormFloat64())
		}
	}
	return m
}

// specials holds the values whose bits a careless codec loses.
var specials = []float64{
	math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(),
	math.Float64frombits(0x7ff8dead0000beef), // quiet NaN with a payload
	math.Float64frombits(0x7ff0000000000001), // signalling NaN
	5e-324,                                   // smallest denormal
	2.225073858507201e-308,                   // largest denormal
	-2.2250738585072014e-308,                 // smallest normal, negated
	1e308, -1e308, math.MaxFloat64, 0.1, 1.0 / 3,
}

// withSpecials returns m with the special values written along its rows.
func withSpecials(m *mat.Dense) *mat.Dense {
	_, c := m.Dims()
	for k, v := range specials {
		m.Set(k/c, k%c, v)
	}
	return m
}

// hideLen hides the Len method of a reader, so ReadNPY takes its
// grow-as-data-arrives path.
type hideLen struct{ io.Reader }

// noRaw hides the RawMatrix method of a matrix, so WriteNPY takes its At path.
type noRaw struct{ mat.Matrix }

// encodeNPY returns WriteNPY's bytes for m.
func encodeNPY(t testing.TB, m mat.Matrix) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteNPY(&buf, m); err != nil {
		t.Fatalf("WriteNPY(%s): got error %q, want nil", describe(m), err)
	}
	return buf.Bytes()
}

// npyFile builds an .npy file of the given major version (1 or 2, minor 0)
// with header as given, unpadded, followed by data.
func npyFile(major byte, header string, data []byte) []byte {
	b := []byte("\x93NUMPY")
	b = append(b, major, 0)
	if major == 1 {
		b = binary.LittleEndian.AppendUint16(b, uint16(len(header)))
	} else {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(header)))
	}
	b = append(b, header...)
	return append(b, data...)
}

// f8Header returns a v1.0 '<f8' C-order header dict with the given shape.
func f8Header(shape string) string {
	return "{'descr': '<f8', 'fortran_order': False, 'shape': " + shape + ", }\n"
}

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatalf("%v (regenerate with %s internal/export/testdata/make_golden.py)", err, debianPython)
	}
	return b
}

// goldenSmall is SMALL of make_golden.py.
func goldenSmall() *mat.Dense {
	return mat.NewDense(3, 2, []float64{1, -2.5, 0.1, 1e308, math.Copysign(0, -1), 5e-324})
}

// goldenSeeded returns the values of seeded_103x5.npy from the Python reprs
// in seeded_103x5.txt, a statement of them independent of the .npy reader.
func goldenSeeded(t testing.TB) *mat.Dense {
	t.Helper()
	var data []float64
	rows := 0
	sc := bufio.NewScanner(bytes.NewReader(readTestdata(t, "seeded_103x5.txt")))
	for sc.Scan() {
		rows++
		for _, f := range strings.Fields(sc.Text()) {
			v, err := strconv.ParseFloat(f, 64)
			if err != nil {
				t.Fatalf("seeded_103x5.txt line %d: %v", rows, err)
			}
			data = append(data, v)
		}
	}
	if rows != 103 || len(data) != 103*5 {
		t.Fatalf("seeded_103x5.txt: got %d lines and %d values, want 103 and 515", rows, len(data))
	}
	return mat.NewDense(103, 5, data)
}

func TestNPYRoundTrip(t *testing.T) {
	big := seeded(103, 5, 1)
	for _, tc := range []struct {
		name string
		m    mat.Matrix
	}{
		{"0x3", emptyRows(3)},
		{"4x0", emptyCols(4)},
		{"0x0 zero Dense", &mat.Dense{}},
		{"1x1", mat.NewDense(1, 1, []float64{math.Pi})},
		{"3x5", seeded(3, 5, 2)},
		{"103x5 with specials", withSpecials(seeded(103, 5, 3))},
		{"2x7 specials", mat.NewDense(2, 7, specials)},
		{"1x1 negative zero", mat.NewDense(1, 1, []float64{math.Copysign(0, -1)})},
		{"2x3 view with stride 5", big.Slice(10, 12, 1, 4)},
		{"5x103 transpose via At", big.T()},
		{"103x5 via At", noRaw{big}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := encodeNPY(t, tc.m)
			r, c := tc.m.Dims()
			if want := 128 + 8*r*c; len(b) != want {
				t.Errorf("got %d bytes, want %d (128 of header, 8 per value)", len(b), want)
			}
			for _, rd := range []struct {
				name string
				r    io.Reader
			}{{"bytes.Reader", bytes.NewReader(b)}, {"reader without Len", hideLen{bytes.NewReader(b)}}} {
				got, err := ReadNPY(rd.r)
				if err != nil {
					t.Fatalf("ReadNPY from a %s: got error %q, want nil", rd.name, err)
				}
				if !sameBits(got, tc.m) {
					t.Errorf("ReadNPY from a %s: got %s, want %s bit for bit", rd.name, describe(got), describe(tc.m))
				}
			}
		})
	}
}

func TestReadNPYConsumesOnlyItsArray(t *testing.T) {
	a, b := seeded(2, 3, 4), seeded(1, 2, 5)
	stream := hideLen{bytes.NewReader(append(encodeNPY(t, a), append(encodeNPY(t, b), "tail"...)...))}
	for _, want := range []mat.Matrix{a, b} {
		got, err := ReadNPY(stream)
		if err != nil {
			t.Fatalf("ReadNPY: got error %q, want nil", err)
		}
		if !sameBits(got, want) {
			t.Fatalf("ReadNPY: got %s, want %s", describe(got), describe(want))
		}
	}
	if rest, _ := io.ReadAll(stream); string(rest) != "tail" {
		t.Errorf("left in the stream: got %q, want %q", rest, "tail")
	}
}

func TestWriteNPYMatchesNumPy(t *testing.T) {
	for _, tc := range []struct {
		file string
		m    mat.Matrix
	}{
		{"small_3x2.npy", goldenSmall()},
		{"seeded_103x5.npy", goldenSeeded(t)},
		{"empty_0x3.npy", emptyRows(3)},
	} {
		t.Run(tc.file, func(t *testing.T) {
			want := readTestdata(t, tc.file)
			got := encodeNPY(t, tc.m)
			if !bytes.Equal(got, want) {
				i := 0
				for i < min(len(got), len(want)) && got[i] == want[i] {
					i++
				}
				t.Errorf("got %d bytes, want numpy's %d; first difference at byte %d\ngot  header %q\nwant header %q",
					len(got), len(want), i, got[:min(len(got), 128)], want[:min(len(want), 128)])
			}
		})
	}
}

func TestReadNPYNumPyFiles(t *testing.T) {
	for _, tc := range []struct {
		file string
		want mat.Matrix
	}{
		{"small_3x2.npy", goldenSmall()},
		{"seeded_103x5.npy", goldenSeeded(t)},
		{"empty_0x3.npy", emptyRows(3)},
		{"v2_3x2.npy", goldenSmall()},
		{"vector_4.npy", mat.NewDense(4, 1, []float64{1, -2, 3.5, 1e-310})},
	} {
		t.Run(tc.file, func(t *testing.T) {
			got, err := ReadNPY(bytes.NewReader(readTestdata(t, tc.file)))
			if err != nil {
				t.Fatalf("got error %q, want nil", err)
			}
			if !sameBits(got, tc.want) {
				t.Errorf("got %s, want %s bit for bit", describe(got), describe(tc.want))
			}
		})
	}
}

func TestReadNPYRefuses(t *testing.T) {
	small := readTestdata(t, "small_3x2.npy")
	two := make([]byte, 16)
	for _, tc := range []struct {
		name string
		in   []byte
		want string // in the error message
	}{
		{"empty input", nil, "magic and version: unexpected EOF"},
		{"bad magic", append([]byte("\x93NUMPZ"), small[6:]...), "got magic"},
		{"version 3.0 (numpy)", readTestdata(t, "v3_3x2.npy"), "version 3.0 is not supported"},
		{"version 1.1", append(append([]byte{}, small[:7]...), append([]byte{1}, small[8:]...)...), "version 1.1"},
		{"dtype <f4 (numpy)", readTestdata(t, "f4_3x2.npy"), `dtype "<f4"`},
		{"dtype >f8 (numpy)", readTestdata(t, "be_3x2.npy"), `dtype ">f8"`},
		{"dtype |u1 (numpy)", readTestdata(t, "u1_3x2.npy"), `dtype "|u1"`},
		{"fortran_order True (numpy)", readTestdata(t, "fortran_3x2.npy"), "fortran_order True"},
		{"3-D shape (numpy)", readTestdata(t, "zeros_2x2x2.npy"), "shape (2, 2, 2) has 3 dimensions"},
		{"0-D shape", npyFile(1, f8Header("()"), two[:8]), "shape () has 0 dimensions"},
		{"truncated data (numpy file less 5 bytes)", small[:len(small)-5], "reading npy data"},
		{"truncated header (numpy file cut at 70)", small[:70], "header of 118 bytes: unexpected EOF"},
		{"truncated header length", small[:9], "header length: unexpected EOF"},
		{"header length beyond input", npyFile(1, f8Header("(1, 2)"), two)[:10+40], "header of 60 bytes"},
		{"v1 header length over numpy's limit", npyFile(1, strings.Repeat(" ", 10001), nil), "header length 10001 exceeds"},
		{"v2 header length 2^31", append([]byte("\x93NUMPY\x02\x00\x00\x00\x00\x80"), small[10:]...), "header length 2147483648 exceeds"},
		{"shape too large for the input", npyFile(1, f8Header("(1073741824, 1)"), two), "reading npy data: shape (1073741824, 1) needs 8589934592 bytes"},
		{"shape over the 2^31 values limit", npyFile(1, f8Header("(1048576, 4096)"), two), "more than the 2147483648 values"},
		{"dimension over the limit with no values", npyFile(1, f8Header("(4294967296, 0)"), nil), "more than the 2147483648 values"},
		{"dimension beyond int64", npyFile(1, f8Header("(99999999999999999999, 1)"), two), "too large"},
		{"negative dimension", npyFile(1, f8Header("(-1, 2)"), two), "want a non-negative int"},
		{"leading zero", npyFile(1, f8Header("(01, 2)"), two), "leading zero"},
		{"parenthesised int, not a tuple", npyFile(1, f8Header("(2)"), two), "is an int, not a tuple"},
		{"shape a list", npyFile(1, f8Header("[1, 2]"), two), "want '('"},
		{"missing key", npyFile(1, "{'descr': '<f8', 'fortran_order': False}\n", two), `key "shape" is missing`},
		{"extra key", npyFile(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2), 'x': 1}\n", two), `unexpected key "x"`},
		{"duplicate key", npyFile(1, "{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (1, 2)}\n", two), "appears twice"},
		{"not a dict", npyFile(1, "('<f8', False, (1, 2))\n", two), "want '{'"},
		{"text after the dict", npyFile(1, f8Header("(1, 2)")+"x", two), "after the dict"},
		{"escape in a string", npyFile(1, `{'descr': '<f\x38', 'fortran_order': False, 'shape': (1, 2), }`, two), "escapes"},
		{"quote closed too late", npyFile(1, "{'descr': '<f8, 'fortran_order': False, 'shape': (1, 2), }", two), "got 'f', want '}'"},
		{"unterminated string", npyFile(1, "{'descr': '<f8", two), "unterminated string"},
		{"fortran_order 0", npyFile(1, "{'descr': '<f8', 'fortran_order': 0, 'shape': (1, 2), }\n", two), "want True or False"},
		{"header ends inside the dict", npyFile(1, "{'descr': '<f8'", two), "got the end of the header"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, rd := range []struct {
				name string
				r    io.Reader
			}{{"bytes.Reader", bytes.NewReader(tc.in)}, {"reader without Len", hideLen{bytes.NewReader(tc.in)}}} {
				m, err := ReadNPY(rd.r)
				if err == nil {
					t.Fatalf("from a %s: got %s and no error, want an error containing %q", rd.name, describe(m), tc.want)
				}
				if m != nil {
					t.Errorf("from a %s: got a matrix with the error, want nil", rd.name)
				}
				if !strings.Contains(err.Error(), tc.want) {
					t.Errorf("from a %s: got error %q, want it to contain %q", rd.name, err, tc.want)
				}
			}
		})
	}
}

// TestReadNPYOtherSpellings reads headers as other writers (and Python 2
// numpy) spell them.
func TestReadNPYOtherSpellings(t *testing.T) {
	two := append(binary.LittleEndian.AppendUint64(nil, math.Float64bits(0.5)), binary.LittleEndian.AppendUint64(nil, math.Float64bits(-1))...)
	row, col := mat.NewDense(1, 2, []float64{0.5, -1}), mat.NewDense(2, 1, []float64{0.5, -1})
	for _, tc := range []struct {
		name string
		in   []byte
		want mat.Matrix
	}{
		{"double quotes, other order, no trailing comma", npyFile(1, `{"shape": (1, 2), "fortran_order": False, "descr": "<f8"}`+"\n", two), row},
		{"Python 2 long ints", npyFile(1, f8Header("(2L, 1L)"), two), col},
		{"1-D shape with spaces", npyFile(1, f8Header("( 2 , )"), two), col},
		{"no padding and no newline", npyFile(1, "{'descr':'<f8','fortran_order':False,'shape':(1,2)}", two), row},
		{"tabs and carriage returns", npyFile(1, "{\t'descr': '<f8',\r\n'fortran_order': False, 'shape': (1, 2),}\r\n", two), row},
		{"version 2.0 unpadded", npyFile(2, f8Header("(1, 2)"), two), row},
		{"empty 1-D", npyFile(1, f8Header("(0,)"), nil), emptyRows(1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadNPY(bytes.NewReader(tc.in))
			if err != nil {
				t.Fatalf("got error %q, want nil", err)
			}
			if !sameBits(got, tc.want) {
				t.Errorf("got %s, want %s", describe(got), describe(tc.want))
			}
		})
	}
}

// TestReadNPYAllocatesByInput checks that a header promising 2^31 values
// (16 GiB) with a few bytes after it costs little memory on either path.
func TestReadNPYAllocatesByInput(t *testing.T) {
	in := npyFile(1, f8Header("(2147483648,)"), make([]byte, 1000))
	for _, rd := range []struct {
		name string
		r    io.Reader
	}{{"bytes.Reader", bytes.NewReader(in)}, {"reader without Len", hideLen{bytes.NewReader(in)}}} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := ReadNPY(rd.r)
		runtime.ReadMemStats(&after)
		if err == nil {
			t.Fatalf("from a %s: got no error, want one for the truncated data", rd.name)
		}
		if got, limit := after.TotalAlloc-before.TotalAlloc, uint64(1<<20); got > limit {
			t.Errorf("from a %s: got %d bytes allocated, want at most %d", rd.name, got, limit)
		}
	}
}

// TestNPYHeaderMatchesNumPy compares npyHeader with numpy's
// write_array_header_1_0 for shapes whose row and column counts have from 1
// to 19 digits (np.save pads by the digits of the row count).
func TestNPYHeaderMatchesNumPy(t *testing.T) {
	requireNumPy(t)
	shapes := [][2]int{{0, 0}, {0, 3}, {3, 2}, {103, 5}, {100000, 50}, {1, 1 << 40}, {1e12, 7}, {1 << 31, 1 << 31}, {math.MaxInt64, math.MaxInt64}}
	script := `import io, sys
from numpy.lib import format as f
for arg in sys.argv[1:]:
    r, c = map(int, arg.split("x"))
    b = io.BytesIO()
    f.write_array_header_1_0(b, {"descr": "<f8", "fortran_order": False, "shape": (r, c)})
    print(b.getvalue().hex())
`
	args := []string{"-c", script}
	for _, s := range shapes {
		args = append(args, fmt.Sprintf("%dx%d", s[0], s[1]))
	}
	out, err := exec.CommandContext(t.Context(), debianPython, args...).Output()
	if err != nil {
		t.Fatalf("numpy: %v", err)
	}
	lines := strings.Fields(string(out))
	if len(lines) != len(shapes) {
		t.Fatalf("numpy printed %d headers, want %d", len(lines), len(shapes))
	}
	for k, s := range shapes {
		if got := fmt.Sprintf("%x", npyHeader(s[0], s[1])); got != lines[k] {
			t.Errorf("shape (%d, %d): got header %s, want numpy's %s", s[0], s[1], got, lines[k])
		}
	}
}

// TestNumPyLoadsWriteNPY has numpy 1.24 np.load what WriteNPY writes and
// print the shape, dtype, SHA-256 of the values in C order and their exactly
// rounded sum (math.fsum, as repr), compared with the same computed here.
func TestNumPyLoadsWriteNPY(t *testing.T) {
	requireNumPy(t)
	const script = `import sys, hashlib, math
import numpy as np
a = np.load(sys.argv[1])
s = repr(math.fsum(a.ravel().tolist())) if np.isfinite(a).all() else "nonfinite"
print(a.shape, a.dtype.str, a.flags.c_contiguous, hashlib.sha256(a.tobytes()).hexdigest(), s)
`
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		m    mat.Matrix
	}{
		{"0x3", emptyRows(3)},
		{"4x0", emptyCols(4)},
		{"1x1", mat.NewDense(1, 1, []float64{-1.5})},
		{"3x5", seeded(3, 5, 6)},
		{"103x5", seeded(103, 5, 7)},
		{"1000x50 transposed", seeded(50, 1000, 8).T()},
		{"2x7 specials", mat.NewDense(2, 7, specials)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".npy")
			if err := os.WriteFile(path, encodeNPY(t, tc.m), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.CommandContext(t.Context(), debianPython, "-c", script, path).CombinedOutput()
			if err != nil {
				t.Fatalf("np.load: %v\n%s", err, out)
			}
			r, c := tc.m.Dims()
			h := sha256.New()
			finite := true
			sum := new(big.Float).SetPrec(2200) // wide enough to add float64s exactly
			for i := range r {
				for j := range c {
					v := tc.m.At(i, j)
					h.Write(binary.LittleEndian.AppendUint64(nil, math.Float64bits(v)))
					if math.IsInf(v, 0) || math.IsNaN(v) {
						finite = false
						continue
					}
					sum.Add(sum, new(big.Float).SetFloat64(v))
				}
			}
			want := fmt.Sprintf("(%d, %d) <f8 True %x", r, c, h.Sum(nil))
			fields := strings.Fields(strings.TrimSpace(string(out)))
			if len(fields) != 6 {
				t.Fatalf("numpy printed %q, want 6 fields", out)
			}
			if got := strings.Join(fields[:5], " "); got != want {
				t.Errorf("numpy: got %q, want %q", got, want)
			}
			if !finite {
				if fields[5] != "nonfinite" {
					t.Errorf("numpy sum: got %q, want nonfinite", fields[5])
				}
				return
			}
			got, err := strconv.ParseFloat(fields[5], 64)
			if err != nil {
				t.Fatalf("numpy sum %q: %v", fields[5], err)
			}
			if want, _ := sum.Float64(); got != want {
				t.Errorf("numpy math.fsum: got %v, want %v", got, want)
			}
		})
	}
}

func FuzzReadNPY(f *testing.F) {
	// More seeds, made by numpy and by hand, are in testdata/fuzz/FuzzReadNPY.
	for _, m := range []mat.Matrix{emptyRows(3), mat.NewDense(1, 1, []float64{1}), mat.NewDense(2, 7, specials), seeded(3, 5, 9)} {
		b := encodeNPY(f, m)
		f.Add(b)
		f.Add(b[:len(b)-3])
		f.Add(b[:64])
	}
	for _, name := range []string{"small_3x2.npy", "seeded_103x5.npy", "v2_3x2.npy", "vector_4.npy", "v3_3x2.npy", "zeros_2x2x2.npy"} {
		f.Add(readTestdata(f, name))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		m, err := ReadNPY(bytes.NewReader(in))
		m2, err2 := ReadNPY(hideLen{bytes.NewReader(in)})
		if (err == nil) != (err2 == nil) {
			t.Fatalf("got error %v from a bytes.Reader and %v from a reader without Len, want the same outcome", err, err2)
		}
		if err != nil {
			if m != nil || m2 != nil {
				t.Fatalf("got a matrix with error %q, want nil", err)
			}
			return
		}
		if !sameBits(m, m2) {
			t.Fatalf("got %s from a bytes.Reader and %s from a reader without Len, want the same", describe(m), describe(m2))
		}
		if r, c := m.Dims(); 8*r*c > len(in) {
			t.Fatalf("got %d×%d values from %d bytes of input", r, c, len(in))
		}
		back, err := ReadNPY(bytes.NewReader(encodeNPY(t, m)))
		if err != nil {
			t.Fatalf("ReadNPY(WriteNPY(m)): got error %q, want nil", err)
		}
		if !sameBits(back, m) {
			t.Fatalf("ReadNPY(WriteNPY(m)): got %s, want %s", describe(back), describe(m))
		}
	})
}

func TestWriteMatrixCSV(t *testing.T) {
	for _, tc := range []struct {
		name     string
		rowNames []string
		colNames []string
		first    string
		m        mat.Matrix
		want     string
	}{
		{
			name:     "projection with awkward names",
			rowNames: []string{"plain", "a,b", `say "hi"`, "two\nlines", " lead", ""},
			colNames: []string{"c1", "c,2"},
			first:    "name",
			m:        mat.NewDense(6, 2, []float64{1, -2.5, 0.1, 1e308, math.Copysign(0, -1), 5e-324, math.Inf(1), math.Inf(-1), math.NaN(), 1.0 / 3, 100, 1e21}),
			want: "name,c1,\"c,2\"\n" +
				"plain,1,-2.5\n" +
				"\"a,b\",0.1,1e+308\n" +
				"\"say \"\"hi\"\"\",-0,5e-324\n" +
				"\"two\nlines\",+Inf,-Inf\n" +
				"\" lead\",NaN,0.3333333333333333\n" +
				",100,1e+21\n",
		},
		{
			name:     "no row names",
			colNames: []string{"x", "y"},
			first:    "ignored",
			m:        mat.NewDense(2, 2, []float64{1, 2, 3, 4}),
			want:     "x,y\n1,2\n3,4\n",
		},
		{
			name:     "no rows",
			rowNames: []string{},
			colNames: ComponentNames(3),
			first:    "name",
			m:        emptyRows(3),
			want:     "name,c1,c2,c3\n",
		},
		{
			name:     "no columns",
			rowNames: []string{"a", "b"},
			colNames: nil,
			first:    "name",
			m:        emptyCols(2),
			want:     "name\na\nb\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteMatrixCSV(&buf, tc.rowNames, tc.colNames, tc.first, tc.m); err != nil {
				t.Fatalf("got error %q, want nil", err)
			}
			if got := buf.String(); got != tc.want {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

// TestWriteMatrixCSVRoundTrip reads WriteMatrixCSV's output back with
// encoding/csv and strconv.ParseFloat and expects the names exactly and every
// value bit for bit (any NaN for NaN: its payload is not written).
func TestWriteMatrixCSVRoundTrip(t *testing.T) {
	m := withSpecials(seeded(40, 6, 10))
	_, c := m.Dims()
	rowNames := make([]string, 40)
	for i := range rowNames {
		rowNames[i] = fmt.Sprintf("f%d", i)
	}
	// Not "\r\n": encoding/csv's Reader drops a carriage return before a
	// newline even inside quotes (as its documentation says).
	rowNames[1], rowNames[2], rowNames[3], rowNames[4] = "a,b", `"quoted"`, "line\nbreak", "lone\rcr"
	for _, tc := range []struct {
		name     string
		rowNames []string
	}{{"with names", rowNames}, {"without names", nil}} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteMatrixCSV(&buf, tc.rowNames, ComponentNames(c), "name", m); err != nil {
				t.Fatalf("got error %q, want nil", err)
			}
			recs, err := csv.NewReader(&buf).ReadAll()
			if err != nil {
				t.Fatalf("encoding/csv: %v", err)
			}
			off := 0
			wantHeader := ComponentNames(c)
			if tc.rowNames != nil {
				off = 1
				wantHeader = append([]string{"name"}, wantHeader...)
			}
			if !reflect.DeepEqual(recs[0], wantHeader) {
				t.Errorf("header: got %q, want %q", recs[0], wantHeader)
			}
			if len(recs) != 41 {
				t.Fatalf("got %d records, want 41", len(recs))
			}
			for i, rec := range recs[1:] {
				if tc.rowNames != nil && rec[0] != tc.rowNames[i] {
					t.Errorf("row %d name: got %q, want %q", i, rec[0], tc.rowNames[i])
				}
				for j, f := range rec[off:] {
					got, err := strconv.ParseFloat(f, 64)
					want := m.At(i, j)
					if err != nil {
						t.Fatalf("row %d column %d: %v", i, j, err)
					}
					if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
						t.Errorf("row %d column %d: got %v (%q), want %v", i, j, got, f, want)
					}
				}
			}
		})
	}
}

// failWriter fails every write.
type failWriter struct{}

var errWrite = errors.New("disk full")

func (failWriter) Write([]byte) (int, error) { return 0, errWrite }

func TestWriteMatrixCSVErrors(t *testing.T) {
	m := seeded(2, 3, 11)
	for _, tc := range []struct {
		name     string
		w        io.Writer
		rowNames []string
		colNames []string
		m        mat.Matrix
		want     string
	}{
		{"too few column names", io.Discard, []string{"a", "b"}, []string{"c1", "c2"}, m, "got 2 column names for 3 columns"},
		{"too many column names", io.Discard, nil, ComponentNames(4), m, "got 4 column names for 3 columns"},
		{"too few row names", io.Discard, []string{"a"}, ComponentNames(3), m, "got 1 row names for 2 rows"},
		{"too many row names", io.Discard, []string{"a", "b", "c"}, ComponentNames(3), m, "got 3 row names for 2 rows"},
		{"no names and no columns", io.Discard, nil, nil, emptyCols(2), "every line would be empty"},
		{"failing writer", failWriter{}, nil, ComponentNames(3), m, "disk full"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := WriteMatrixCSV(tc.w, tc.rowNames, tc.colNames, "name", tc.m)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got error %v, want one containing %q", err, tc.want)
			}
		})
	}
	if err := WriteMatrixCSV(failWriter{}, nil, ComponentNames(3), "", m); !errors.Is(err, errWrite) {
		t.Errorf("failing writer: got %v, want an error wrapping %v", err, errWrite)
	}
}

func TestWriteNPYWriterError(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    mat.Matrix
	}{{"header", emptyRows(2)}, {"data", seeded(3, 2, 12)}} {
		t.Run(tc.name, func(t *testing.T) {
			if err := WriteNPY(failWriter{}, tc.m); !errors.Is(err, errWrite) {
				t.Errorf("got %v, want an error wrapping %v", err, errWrite)
			}
		})
	}
	// A writer that fails only after the header fails the data.
	w := &limitWriter{n: 128}
	if err := WriteNPY(w, seeded(3, 2, 12)); err == nil || !strings.Contains(err.Error(), "writing npy data") {
		t.Errorf("failing after the header: got %v, want an error about writing npy data", err)
	}
}

// limitWriter accepts n bytes, then fails.
type limitWriter struct{ n int }

func (w *limitWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		k := w.n
		w.n = 0
		return k, errWrite
	}
	w.n -= len(p)
	return len(p), nil
}

func TestRows(t *testing.T) {
	m := seeded(3, 4, 13)
	for _, tc := range []struct {
		name     string
		m        mat.Matrix
		wantJSON string // empty: not checked
	}{
		{"0x3", emptyRows(3), "[]"},
		{"2x0", emptyCols(2), "[[],[]]"},
		{"2x2", mat.NewDense(2, 2, []float64{1, 0.1, -0.5, 1e21}), "[[1,0.1],[-0.5,1e+21]]"},
		{"3x4", m, ""},
		{"4x3 transpose", m.T(), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows := Rows(tc.m)
			r, c := tc.m.Dims()
			if len(rows) != r {
				t.Fatalf("got %d rows, want %d", len(rows), r)
			}
			for i, row := range rows {
				if len(row) != c || cap(row) != c {
					t.Fatalf("row %d: got length %d and capacity %d, want %d", i, len(row), cap(row), c)
				}
				for j, v := range row {
					if v != tc.m.At(i, j) {
						t.Errorf("row %d column %d: got %v, want %v", i, j, v, tc.m.At(i, j))
					}
				}
			}
			if tc.wantJSON != "" {
				b, err := json.Marshal(rows)
				if err != nil {
					t.Fatal(err)
				}
				if string(b) != tc.wantJSON {
					t.Errorf("JSON: got %s, want %s", b, tc.wantJSON)
				}
			}
		})
	}
	rows := Rows(m)
	rows[0][0] = 42
	if m.At(0, 0) == 42 {
		t.Errorf("changing Rows' result changed the matrix, want a copy")
	}
}

func TestComponentNames(t *testing.T) {
	for _, tc := range []struct {
		d    int
		want []string
	}{
		{0, []string{}},
		{1, []string{"c1"}},
		{3, []string{"c1", "c2", "c3"}},
	} {
		if got := ComponentNames(tc.d); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ComponentNames(%d): got %q, want %q", tc.d, got, tc.want)
		}
	}
	if got := ComponentNames(12)[11]; got != "c12" {
		t.Errorf("ComponentNames(12)[11]: got %q, want %q", got, "c12")
	}
	defer func() {
		if recover() == nil {
			t.Errorf("ComponentNames(-1): got no panic, want one")
		}
	}()
	ComponentNames(-1)
}

// benchSizes runs bench on each named size with a seeded matrix of that
// size and its .npy bytes, and sets b's bytes per operation to the file's
// length, so that b reports MB/s of .npy.
func benchSizes(b *testing.B, bench func(b *testing.B, m *mat.Dense, file []byte)) {
	for _, s := range [][2]int{{1000, 50}, {100000, 50}} {
		m := seeded(s[0], s[1], 14)
		file := encodeNPY(b, m)
		b.Run(fmt.Sprintf("%dx%d", s[0], s[1]), func(b *testing.B) {
			b.SetBytes(int64(len(file)))
			bench(b, m, file)
		})
	}
}

func BenchmarkWriteNPY(b *testing.B) {
	b.Run("Dense", func(b *testing.B) {
		benchSizes(b, func(b *testing.B, m *mat.Dense, _ []byte) {
			for b.Loop() {
				if err := WriteNPY(io.Discard, m); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
	b.Run("At", func(b *testing.B) {
		benchSizes(b, func(b *testing.B, m *mat.Dense, _ []byte) {
			for b.Loop() {
				if err := WriteNPY(io.Discard, noRaw{m}); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
}

func BenchmarkReadNPY(b *testing.B) {
	b.Run("bytes.Reader", func(b *testing.B) {
		benchSizes(b, func(b *testing.B, _ *mat.Dense, file []byte) {
			for b.Loop() {
				if _, err := ReadNPY(bytes.NewReader(file)); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
	b.Run("withoutLen", func(b *testing.B) {
		benchSizes(b, func(b *testing.B, _ *mat.Dense, file []byte) {
			for b.Loop() {
				if _, err := ReadNPY(hideLen{bytes.NewReader(file)}); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
}

// TestWriteMatrixCSVChunks: a matrix of many chunks (csvChunk rows each,
// formatted on every core by InOrder) is written byte for byte as one
// csv.Writer writing its rows in turn would write it, names needing quotes
// and SafeCell included.
func TestWriteMatrixCSVChunks(t *testing.T) {
	const r = 5*csvChunk + 7
	m := withSpecials(seeded(r, 3, 11))
	names := make([]string, r)
	for i := range names {
		names[i] = []string{"f", "a,b", `"q"`, "=x", "line\nbreak"}[i%5] + fmt.Sprint(i)
	}
	var want bytes.Buffer
	cw := csv.NewWriter(&want)
	cw.Write(append([]string{"name"}, ComponentNames(3)...))
	for i := range r {
		rec := []string{SafeCell(names[i])}
		for j := range 3 {
			rec = append(rec, strconv.FormatFloat(m.At(i, j), 'g', -1, 64))
		}
		cw.Write(rec)
	}
	cw.Flush()
	var got bytes.Buffer
	if err := WriteMatrixCSV(&got, names, ComponentNames(3), "name", m); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Errorf("got %d bytes, want %d; they differ", got.Len(), want.Len())
	}
}
