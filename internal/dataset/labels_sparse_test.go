package dataset_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/dataset"
)

// manyLabelsCSV makes a CSV of rows rows: features numeric columns (every
// third cell 0) and q 0/1 label columns, each row with a few labels (a
// few rows none), so that its label matrix is mostly zeros.
func manyLabelsCSV(rows, features, q int) string {
	rng := rand.New(rand.NewPCG(3, uint64(q)))
	var b strings.Builder
	for j := range features {
		fmt.Fprintf(&b, "f%d,", j)
	}
	for j := range q {
		if j > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "label:l%d", j)
	}
	b.WriteByte('\n')
	row := make([]byte, q)
	for i := range rows {
		for j := range features {
			if (i+j)%3 == 0 {
				b.WriteString("0,")
			} else {
				fmt.Fprintf(&b, "%.3g,", rng.NormFloat64())
			}
		}
		clear(row)
		for range rng.IntN(4) {
			row[int(float64(q)*rng.Float64()*rng.Float64())] = 1
		}
		for j, v := range row {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteByte('0' + v)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// sameLabels fails t unless got's labels are want's: the same form, and
// the same 0/1 matrix.
func sameLabels(t *testing.T, what string, got, want *dataset.Dataset) {
	t.Helper()
	if (got.YSparse != nil) != (want.YSparse != nil) {
		t.Errorf("%s: labels held sparse: got %v, want %v", what, got.YSparse != nil, want.YSparse != nil)
	}
	if !mat.Equal(got.DenseY(), want.DenseY()) {
		t.Errorf("%s: the label matrices differ", what)
	}
}

// TestSparseLabels checks the labels held sparse: chosen for a large,
// mostly-zero label matrix and not for a small one; equal to the dense
// form; written and read back (ReadBinary, and ViewBinary in place at
// every level of checks) with dense and with sparse features; written as
// the same CSV as the dense form; and described as the dense form is.
func TestSparseLabels(t *testing.T) {
	text := manyLabelsCSV(1200, 30, 200) // 1.9 MB of dense labels, ~1.5 labels a row
	auto := mustLoad(t, text, dataset.Options{})
	if auto.YSparse == nil {
		t.Fatalf("1 200 rows × 200 labels, ~1.5 a row: got dense labels, want sparse")
	}
	if small := mustLoad(t, manyLabelsCSV(100, 3, 50), dataset.Options{}); small.YSparse != nil {
		t.Errorf("100 rows × 50 labels (40 KB dense): got sparse labels, want dense")
	}
	dense, err := dataset.LoadLabelsStored(strings.NewReader(text), dataset.Options{}, dataset.StorageDense)
	if err != nil {
		t.Fatal(err)
	}
	if dense.Y == nil || !mat.Equal(dense.Y, auto.DenseY()) {
		t.Fatalf("the dense and the sparse labels differ")
	}
	if got, want := auto.LabelOnes(), dense.LabelOnes(); got != want {
		t.Errorf("LabelOnes: got %d, want %d", got, want)
	}
	for i := range 50 {
		if got, want := auto.LabelsOf(i, nil), dense.LabelsOf(i, nil); !slices.Equal(got, want) {
			t.Errorf("LabelsOf(%d): got %v, want %v", i, got, want)
		}
	}
	sAuto, dAuto := dataset.Describe(auto)
	sDense, dDense := dataset.Describe(dense)
	sDense.LabelStorage = dataset.StorageSparse
	if *sAuto.LabelCardinality != *sDense.LabelCardinality || *sAuto.LabelDensity != *sDense.LabelDensity {
		t.Errorf("cardinality, density: got %v, %v with sparse labels, %v, %v with dense ones",
			*sAuto.LabelCardinality, *sAuto.LabelDensity, *sDense.LabelCardinality, *sDense.LabelDensity)
	}
	if (sAuto.Spread == nil) != (sDense.Spread == nil) || sAuto.Spread != nil && *sAuto.Spread != *sDense.Spread {
		t.Errorf("Spread: got %+v with sparse labels, %+v with dense ones", sAuto.Spread, sDense.Spread)
	}
	sAuto.LabelCardinality, sAuto.LabelDensity, sDense.LabelCardinality, sDense.LabelDensity = nil, nil, nil, nil
	sAuto.Spread, sDense.Spread = nil, nil
	if fmt.Sprint(sAuto) != fmt.Sprint(sDense) {
		t.Errorf("Describe: got %+v with sparse labels, %+v with dense ones", sAuto, sDense)
	}
	for j := range 200 {
		if a, b := dAuto.Stat(j), dDense.Stat(j); fmt.Sprint(a) != fmt.Sprint(b) {
			t.Errorf("Stat(%d): got %+v with sparse labels, %+v with dense ones", j, a, b)
		}
	}
	var csvSparse, csvDense bytes.Buffer
	if err := dataset.WriteCSV(&csvSparse, auto); err != nil {
		t.Fatal(err)
	}
	if err := dataset.WriteCSV(&csvDense, dense); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(csvSparse.Bytes(), csvDense.Bytes()) {
		t.Errorf("WriteCSV: the sparse labels' CSV differs from the dense ones'")
	}
	for _, storage := range []dataset.Storage{dataset.StorageDense, dataset.StorageSparse} {
		t.Run("features "+string(storage), func(t *testing.T) {
			want, err := dataset.LoadStored(strings.NewReader(text), dataset.Options{}, storage)
			if err != nil {
				t.Fatal(err)
			}
			if want.YSparse == nil || want.IsSparse() != (storage == dataset.StorageSparse) {
				t.Fatalf("got sparse features %v and sparse labels %v", want.IsSparse(), want.YSparse != nil)
			}
			var buf bytes.Buffer
			if err := dataset.WriteBinary(&buf, want); err != nil {
				t.Fatal(err)
			}
			got, err := dataset.ReadBinary(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
			if err != nil {
				t.Fatalf("ReadBinary: got %q, want no error", err)
			}
			sameLabels(t, "ReadBinary", got, want)
			if !slices.Equal(got.YSparse.Ptr, want.YSparse.Ptr) || !slices.Equal(got.YSparse.Ind, want.YSparse.Ind) {
				t.Errorf("ReadBinary: the sparse labels' arrays differ")
			}
			for _, check := range []dataset.Check{dataset.CheckAll, dataset.CheckValues, dataset.CheckTrusted} {
				b := aligned(buf.Bytes())
				v, inPlace, err := dataset.ViewBinary(b, check)
				if err != nil || !inPlace {
					t.Fatalf("ViewBinary(check %d): got in place %v, %v; want in place, no error", check, inPlace, err)
				}
				sameLabels(t, fmt.Sprintf("ViewBinary(check %d)", check), v, want)
				sameStored(t, v, want)
			}
		})
	}
}

// TestSparseLabelsCorrupt checks that a damaged sparse label section is
// refused with an error wrapping ErrCorrupt, by ReadBinary and by each
// level of ViewBinary's checks that reads values.
func TestSparseLabelsCorrupt(t *testing.T) {
	want, err := dataset.LoadLabelsStored(strings.NewReader(manyLabelsCSV(300, 4, 40)), dataset.Options{}, dataset.StorageSparse)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := dataset.WriteBinary(&buf, want); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	nnz := want.YSparse.NNZ()
	valAt := len(good) - 4 - 8*nnz
	indAt := valAt - 4*nnz - 4*(nnz%2)
	for _, tc := range []struct {
		name string
		edit func(b []byte) []byte
	}{
		{"a label entry of 2", func(b []byte) []byte {
			binary.LittleEndian.PutUint64(b[valAt:], math.Float64bits(2))
			return withCRC(b)
		}},
		{"a label index beyond q", func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b[indAt:], 40)
			return withCRC(b)
		}},
		{"a flipped bit, checksum not updated", func(b []byte) []byte {
			b[indAt] ^= 1
			return b
		}},
		{"cut short", func(b []byte) []byte { return withCRC(append(slices.Clone(b[:valAt]), 0, 0, 0, 0)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.edit(slices.Clone(good))
			if _, err := dataset.ReadBinary(bytes.NewReader(b), int64(len(b))); !errors.Is(err, dataset.ErrCorrupt) {
				t.Errorf("ReadBinary: got %v, want ErrCorrupt", err)
			}
			if _, _, err := dataset.ViewBinary(aligned(b), dataset.CheckAll); !errors.Is(err, dataset.ErrCorrupt) {
				t.Errorf("ViewBinary(CheckAll): got %v, want ErrCorrupt", err)
			}
		})
	}
}

// TestSparseLabelsStreamed checks that a dense CSV with many labels,
// loaded through a BinaryStream, makes a usable file with its labels held
// sparse, which reads back as the data set.
func TestSparseLabelsStreamed(t *testing.T) {
	ds, ok, b := loadStreamed(t, t.TempDir(), manyLabelsCSV(2000, 40, 100), dataset.Options{})
	if !ok || ds.YSparse == nil {
		t.Fatalf("got usable %v, sparse labels %v; want both", ok, ds.YSparse != nil)
	}
	got, err := dataset.ReadBinary(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatalf("ReadBinary: got %q, want no error", err)
	}
	sameStored(t, got, ds)
	sameLabels(t, "streamed", got, ds)
}

// TestDetailsRoundTrip writes and reads back the details of listed,
// numbered and renumbered labels, and of class variables, and refuses a
// damaged file.
func TestDetailsRoundTrip(t *testing.T) {
	for _, tc := range []struct{ name, in string }{
		{"listed labels", multiLabelCSV},
		{"class variables", multiDimCSV},
		{"renumbered labels", "3,77 1:1\n5 2:1\n77 1:3\n"},
		{"declared labels", "3 3 1000\n3,77 1:1\n5 2:1\n77 1:3\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds := mustLoad(t, tc.in, dataset.Options{})
			_, want := dataset.Describe(ds)
			var buf bytes.Buffer
			if err := dataset.WriteDetails(&buf, want); err != nil {
				t.Fatal(err)
			}
			got, err := dataset.ReadDetails(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
			if err != nil {
				t.Fatalf("ReadDetails: got %q, want no error", err)
			}
			if !got.Labels.Equal(want.Labels) || !slices.Equal(got.Columns, want.Columns) || got.Kind != want.Kind || got.Rows != want.Rows {
				t.Errorf("got %v %q %s %d, want %v %q %s %d", got.Labels, got.Columns, got.Kind, got.Rows, want.Labels, want.Columns, want.Kind, want.Rows)
			}
			for j := range want.LabelCount() {
				if a, b := got.Stat(j), want.Stat(j); fmt.Sprint(a) != fmt.Sprint(b) {
					t.Errorf("Stat(%d): got %+v, want %+v", j, a, b)
				}
			}
			if !slices.Equal(got.Top(20), want.Top(20)) {
				t.Errorf("Top(20): got %v, want %v", got.Top(20), want.Top(20))
			}
			b := slices.Clone(buf.Bytes())
			b[len(b)-6] ^= 1
			if _, err := dataset.ReadDetails(bytes.NewReader(b), int64(len(b))); !errors.Is(err, dataset.ErrCorrupt) {
				t.Errorf("a flipped bit: got %v, want ErrCorrupt", err)
			}
		})
	}
}

// TestDetailsTop checks the order of the most frequent labels: by count,
// ties to the earlier label, then the labels no row has in order.
func TestDetailsTop(t *testing.T) {
	// Labels 0…9 declared; 7 in three rows, 2 and 5 in two, 9 in one.
	ds := mustLoad(t, "4 1 10\n7,2,5 0:1\n7,5,2 0:2\n7,9 0:3\n 0:4\n", dataset.Options{})
	_, det := dataset.Describe(ds)
	for _, tc := range []struct {
		n    int
		want []int
	}{
		{1, []int{7}}, {3, []int{7, 2, 5}}, {6, []int{7, 2, 5, 9, 0, 1}}, {10, []int{7, 2, 5, 9, 0, 1, 3, 4, 6, 8}}, {99, []int{7, 2, 5, 9, 0, 1, 3, 4, 6, 8}},
	} {
		if got := det.Top(tc.n); !slices.Equal(got, tc.want) {
			t.Errorf("Top(%d): got %v, want %v", tc.n, got, tc.want)
		}
	}
	if st := det.Stat(3); st.Count != 0 || !st.Constant || st.Name != "l3" {
		t.Errorf("Stat(3): got %+v, want l3, no rows, constant", st)
	}
}

// TestSparseLabelsFile is loadStreamed's counterpart for a file on disk
// read by Load, so that the sizing of the loader from the file's size is
// exercised with sparse labels too.
func TestSparseLabelsFile(t *testing.T) {
	text := manyLabelsCSV(1500, 10, 150)
	got, err := loadFromFile(t, text, dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sameLabels(t, "from a file", got, mustLoad(t, text, dataset.Options{}))
}
