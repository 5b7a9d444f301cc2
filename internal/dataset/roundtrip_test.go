package dataset_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/dataset"
)

// Awkward numbers for exact round trips: shortest forms, subnormals, the
// largest double, -0 and long fractions.
const (
	multiLabelCSV = "a,b \"quoted\",c,label:p,label:q\n" +
		"0.1,-2.5e10,5e-324,1,0\n" +
		"3.141592653589793,1.7976931348623157e308,-0,0,1\n" +
		"123456789.123456789,-1e-300,2.2250738585072014e-308,1,1\n"
	multiDimCSV = "x,label:colour,label:n,label:odd\n" +
		"1.5,red,10,\"a,b\"\n" +
		"-0.25,blue,2,\"say \"\"hi\"\"\"\n" +
		"1e-5,green,1,plain\n" +
		"7,blue,10,plain\n"
)

// sameDataset fails t unless got and want are equal, X and Y bit for bit.
func sameDataset(t *testing.T, got, want *dataset.Dataset) {
	t.Helper()
	if got.Name != want.Name {
		t.Errorf("Name: got %q, want %q", got.Name, want.Name)
	}
	checkStrings(t, "Features", got.Features.Strings(), want.Features.Strings())
	checkStrings(t, "Labels", got.Labels.Strings(), want.Labels.Strings())
	if got.Kind != want.Kind {
		t.Errorf("Kind: got %q, want %q", got.Kind, want.Kind)
	}
	if !reflect.DeepEqual(got.Categories, want.Categories) {
		t.Errorf("Categories: got %q, want %q", got.Categories, want.Categories)
	}
	if got.IsSparse() != want.IsSparse() {
		t.Errorf("sparse: got %v, want %v", got.IsSparse(), want.IsSparse())
	}
	checkMatrix(t, "X", got.Dense(), rowsOf(want.Dense()))
	checkMatrix(t, "Y", got.Y, rowsOf(want.Y))
}

// TestBinaryRoundTrip checks that ReadBinary gives back exactly what
// WriteBinary wrote.
func TestBinaryRoundTrip(t *testing.T) {
	for _, tc := range []struct{ name, in string }{
		{"multilabel", multiLabelCSV},
		{"multidim", multiDimCSV},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := mustLoad(t, tc.in, dataset.Options{})
			want.Name = "round trip ✓"
			var buf bytes.Buffer
			if err := dataset.WriteBinary(&buf, want); err != nil {
				t.Fatalf("WriteBinary: got %q, want no error", err)
			}
			got, err := dataset.ReadBinary(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
			if err != nil {
				t.Fatalf("ReadBinary: got %q, want no error", err)
			}
			sameDataset(t, got, want)
			checkStrings(t, "Warnings", got.Warnings, want.Warnings)
			checkStrings(t, "Columns", got.Columns, want.Columns)
			checkStrings(t, "LabelColumns", got.LabelColumns, want.LabelColumns)
		})
	}
	t.Run("real data set", func(t *testing.T) {
		skipWithoutDatasets(t)
		want := loadFile(t, filepath.Join(datasetsDir, "emotions", "emotions.csv"), dataset.Options{})
		var buf bytes.Buffer
		if err := dataset.WriteBinary(&buf, want); err != nil {
			t.Fatalf("WriteBinary: got %q, want no error", err)
		}
		got, err := dataset.ReadBinary(&buf, int64(buf.Len()))
		if err != nil {
			t.Fatalf("ReadBinary: got %q, want no error", err)
		}
		sameDataset(t, got, want)
	})
}

// TestBinaryCorrupt checks that every damaged file is refused with an error
// wrapping ErrCorrupt.
func TestBinaryCorrupt(t *testing.T) {
	ds := mustLoad(t, multiDimCSV, dataset.Options{})
	var buf bytes.Buffer
	if err := dataset.WriteBinary(&buf, ds); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	n := int64(len(good))
	// The payload: X and Y after the header, before the 4-byte checksum.
	xBytes := 8 * ds.Rows() * (ds.Features.Len() + ds.Labels.Len())
	payload := len(good) - 4 - xBytes

	read := func(b []byte, size int64) error {
		_, err := dataset.ReadBinary(bytes.NewReader(b), size)
		return err
	}
	flip := func(i int) []byte {
		b := bytes.Clone(good)
		b[i] ^= 0x01
		return b
	}
	tests := []struct {
		name string
		err  error
	}{
		{"one bit flipped in X", read(flip(payload+3), n)},
		{"one bit flipped in Y", read(flip(len(good)-5), n)},
		{"one bit flipped in the checksum", read(flip(len(good)-1), n)},
		{"one bit flipped in the magic", read(flip(0), n)},
		{"one bit flipped in the header length", read(flip(8), n)},
		{"header length huge", read(append(append(bytes.Clone(good[:8]), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f), good[16:]...), n)},
		{"truncated by one byte", read(good[:n-1], n-1)},
		{"truncated in the payload", read(good[:payload+10], int64(payload+10))},
		{"truncated in the header", read(good[:20], 20)},
		{"empty", read(nil, 0)},
		{"shorter than its size", read(good[:n-1], n)},
		{"size one too large", read(good, n+1)},
		{"size one too small", read(good, n-1)},
		{"size zero", read(good, 0)},
		{"not a stored data set", read([]byte("a,label:y\n1,0\n2,1\n"), 18)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !errors.Is(tc.err, dataset.ErrCorrupt) {
				t.Errorf("got %v, want an error wrapping ErrCorrupt", tc.err)
			}
		})
	}
	t.Run("crafted with a valid checksum", func(t *testing.T) {
		// Structure checks must not rely on the checksum.
		nan := math.Float64bits(math.NaN())
		for _, c := range []struct {
			name, header string
			values       []uint64
		}{
			{"rows overflow the size", `{"rows":2305843009213693952,"features":["a"],"labels":[],"kind":"multilabel"}`, nil},
			{"negative rows", `{"rows":-1,"features":["a"],"labels":["y"],"kind":"multilabel"}`, nil},
			{"header not JSON", `{"rows":1,`, nil},
			{"label 2 in multi-label data", `{"rows":1,"features":["a"],"labels":["y"],"kind":"multilabel"}`,
				[]uint64{math.Float64bits(1), math.Float64bits(2)}},
			{"NaN in X", `{"rows":1,"features":["a"],"labels":["y"],"kind":"multilabel"}`,
				[]uint64{nan, math.Float64bits(1)}},
			{"unknown kind", `{"rows":1,"features":["a"],"labels":["y"],"kind":"other"}`,
				[]uint64{math.Float64bits(1), math.Float64bits(1)}},
		} {
			b := craftBinary(c.header, c.values)
			if err := read(b, int64(len(b))); !errors.Is(err, dataset.ErrCorrupt) {
				t.Errorf("%s: got %v, want an error wrapping ErrCorrupt", c.name, err)
			}
		}
		// The crafting itself is right: a well-formed file reads.
		b := craftBinary(`{"rows":1,"features":["a"],"labels":["y"],"kind":"multilabel"}`,
			[]uint64{math.Float64bits(1.5), math.Float64bits(1)})
		if _, err := dataset.ReadBinary(bytes.NewReader(b), int64(len(b))); err != nil {
			t.Errorf("well-formed crafted file: got %v, want no error", err)
		}
	})
	t.Run("every byte flipped", func(t *testing.T) {
		for i := range good {
			if err := read(flip(i), n); !errors.Is(err, dataset.ErrCorrupt) {
				t.Errorf("byte %d of %d flipped: got %v, want an error wrapping ErrCorrupt", i, n, err)
			}
		}
	})
	t.Run("failing reader", func(t *testing.T) {
		r := io.MultiReader(bytes.NewReader(good[:payload]), errReader{})
		if _, err := dataset.ReadBinary(r, n); err == nil {
			t.Errorf("got no error, want one")
		}
	})
}

// craftBinary builds the binary form by hand, from a JSON header and the
// raw bits of X then Y, with a correct CRC-32C.
func craftBinary(header string, values []uint64) []byte {
	b := []byte("MLDRDS\x00\x01")
	b = binary.LittleEndian.AppendUint64(b, uint64(len(header)))
	b = append(b, header...)
	for _, v := range values {
		b = binary.LittleEndian.AppendUint64(b, v)
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)))
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errInjected }

var errInjected = errors.New("injected read failure")

// TestWriteBinaryRefusesInvalid checks that WriteBinary validates first.
func TestWriteBinaryRefusesInvalid(t *testing.T) {
	ds := &dataset.Dataset{
		Features: dataset.ListNames([]string{"a"}),
		Labels:   dataset.ListNames([]string{"y"}),
		Kind:     dataset.MultiLabel,
		X:        mat.NewDense(2, 1, []float64{1, 2}),
		Y:        mat.NewDense(2, 1, []float64{0, 2}),
	}
	var buf bytes.Buffer
	if err := dataset.WriteBinary(&buf, ds); err == nil {
		t.Errorf("got no error for Y = 2 in multi-label data, want one")
	}
	if buf.Len() != 0 {
		t.Errorf("got %d bytes written, want none", buf.Len())
	}
}

// TestWriteCSVRoundTrip checks that Load reads back exactly what WriteCSV
// wrote.
func TestWriteCSVRoundTrip(t *testing.T) {
	for _, tc := range []struct{ name, in string }{
		{"multilabel", multiLabelCSV},
		{"multidim", multiDimCSV},
		{"multidim with ±1 and yes/no variables", "a,label:s,label:c\n1,yes,-1\n2,no,1\n3,no,0\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := mustLoad(t, tc.in, dataset.Options{})
			var buf bytes.Buffer
			if err := dataset.WriteCSV(&buf, want); err != nil {
				t.Fatalf("WriteCSV: got %q, want no error", err)
			}
			got := mustLoad(t, buf.String(), dataset.Options{})
			sameDataset(t, got, want)
		})
	}
	for _, name := range []string{"yeast/yeast.csv", "song/song.csv"} {
		t.Run(name, func(t *testing.T) {
			skipWithoutDatasets(t)
			want := loadFile(t, filepath.Join(datasetsDir, name), dataset.Options{})
			var buf bytes.Buffer
			if err := dataset.WriteCSV(&buf, want); err != nil {
				t.Fatalf("WriteCSV: got %q, want no error", err)
			}
			got := mustLoad(t, buf.String(), dataset.Options{})
			sameDataset(t, got, want)
		})
	}
	t.Run("failing writer", func(t *testing.T) {
		ds := mustLoad(t, multiLabelCSV, dataset.Options{})
		if err := dataset.WriteCSV(errWriter{}, ds); !errors.Is(err, errInjected) {
			t.Errorf("got %v, want an error wrapping the writer's", err)
		}
		if err := dataset.WriteBinary(errWriter{}, ds); !errors.Is(err, errInjected) {
			t.Errorf("WriteBinary: got %v, want an error wrapping the writer's", err)
		}
	})
}

type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, errInjected }

// ExampleWriteCSV shows the CSV form of a data set.
func ExampleWriteCSV() {
	ds, err := dataset.Load(bytes.NewReader([]byte("a;b;label:y\n1.50;2e3;yes\n-0.25;4;no\n")), dataset.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	var buf bytes.Buffer
	if err := dataset.WriteCSV(&buf, ds); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(buf.String())
	// Output:
	// a,b,label:y
	// 1.5,2000,1
	// -0.25,4,0
}

// TestWriteCSVNeutralisesFormulas checks that names and categories a
// spreadsheet would take for formulas are written with a leading "'",
// and numbers (negative ones too) as they are.
func TestWriteCSVNeutralisesFormulas(t *testing.T) {
	in := "\"=HYPERLINK(\"\"http://x\"\")\",+cmd,@SUM,\"\tx\",-f,label:c\n" +
		"-1.5,1,2,3,4,=1+1\n" +
		"2,-3,4,5,6,-1\n"
	ds := mustLoad(t, in, dataset.Options{Kind: dataset.MultiDim})
	names := slices.Clone(ds.Features.Strings())
	names[3] = "\tx" // the loader trims names; an ARFF name '\tx' keeps it
	ds.Features = dataset.ListNames(names)
	var buf bytes.Buffer
	if err := dataset.WriteCSV(&buf, ds); err != nil {
		t.Fatalf("WriteCSV: got %q, want no error", err)
	}
	want := "\"'=HYPERLINK(\"\"http://x\"\")\",'+cmd,'@SUM,'\tx,'-f,label:c\n" +
		"-1.5,1,2,3,4,'=1+1\n" +
		"2,-3,4,5,6,-1\n"
	if got := buf.String(); got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}
