package dataset_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/dataset"
	"mldr/internal/sparse"
)

// TestSparseRealDatasets loads medical and enron (sparse ARFF, and the CSV
// converted from it) as Load chooses, which is sparse, and with the
// features forced dense, the form every load had before sparse storage:
// the sparse data set's Dense() must equal the dense X bit for bit, and
// survive the binary round trip and the CSV export unchanged.
func TestSparseRealDatasets(t *testing.T) {
	skipWithoutDatasets(t)
	for _, name := range []string{"medical", "medical-train", "medical-test", "enron", "enron-train", "enron-test"} {
		for _, ext := range []string{".arff", ".csv"} {
			t.Run(name+ext, func(t *testing.T) {
				dir := filepath.Join(datasetsDir, strings.Split(name, "-")[0])
				opts := dataset.Options{}
				if ext == ".arff" {
					opts.LabelXML = labelXML(t, dir)
				}
				raw, err := os.ReadFile(filepath.Join(dir, name+ext))
				if err != nil {
					t.Fatal(err)
				}
				dense, err := dataset.LoadStored(bytes.NewReader(raw), opts, dataset.StorageDense)
				if err != nil {
					t.Fatalf("Load (dense): got error %q, want none", err)
				}
				got, err := dataset.Load(bytes.NewReader(raw), opts)
				if err != nil {
					t.Fatalf("Load: got error %q, want none", err)
				}
				if err := got.Validate(); err != nil {
					t.Fatalf("Validate: got %q, want nil", err)
				}
				if !got.IsSparse() || dense.IsSparse() {
					t.Fatalf("sparse: got %v (chosen) and %v (forced dense), want true and false", got.IsSparse(), dense.IsSparse())
				}
				if d := diffLoads(got, nil, dense, nil); d != "sparse: got true, want false" {
					t.Fatalf("sparse against dense: got %q, want only the form to differ", d)
				}
				want := realFiles[name]
				checkRealCounts(t, got, want)
				s := dataset.Summarize(got)
				if s.Storage != dataset.StorageSparse || s.NonZeros != int64(got.Sparse.NNZ()) || s.Density > 0.1 {
					t.Errorf("Summary: got storage %q, %d non-zeros, density %v; want sparse, %d, below 0.1", s.Storage, s.NonZeros, s.Density, got.Sparse.NNZ())
				}
				if ds := dataset.Summarize(dense); ds.NonZeros != s.NonZeros || ds.Storage != dataset.StorageDense {
					t.Errorf("Summary (dense): got %q with %d non-zeros, want dense with %d", ds.Storage, ds.NonZeros, s.NonZeros)
				}

				var bin bytes.Buffer
				if err := dataset.WriteBinary(&bin, got); err != nil {
					t.Fatalf("WriteBinary: got %q, want no error", err)
				}
				var dbin bytes.Buffer
				if err := dataset.WriteBinary(&dbin, dense); err != nil {
					t.Fatal(err)
				}
				if bin.Len()*4 > dbin.Len() {
					t.Errorf("stored size: got %d bytes sparse against %d dense, want at most a quarter", bin.Len(), dbin.Len())
				}
				back, err := dataset.ReadBinary(bytes.NewReader(bin.Bytes()), int64(bin.Len()))
				if err != nil {
					t.Fatalf("ReadBinary: got %q, want no error", err)
				}
				if d := diffLoads(back, nil, got, nil); d != "" {
					t.Errorf("binary round trip: %s", d)
				}

				var sc, dc bytes.Buffer
				if err := dataset.WriteCSV(&sc, got); err != nil {
					t.Fatal(err)
				}
				if err := dataset.WriteCSV(&dc, dense); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(sc.Bytes(), dc.Bytes()) {
					t.Errorf("WriteCSV: got %d bytes from the sparse data set, want the %d of the dense one, the same", sc.Len(), dc.Len())
				}
			})
		}
	}
}

// wideCSV returns a CSV of rows×cols features where row i has a non-zero
// in column j when (i+j)%every == 0 (every ≤ 1: all), and two labels.
func wideCSV(rows, cols, every int) string {
	var b strings.Builder
	for j := range cols {
		fmt.Fprintf(&b, "f%d,", j+1)
	}
	b.WriteString("label:a,label:b\n")
	for i := range rows {
		for j := range cols {
			if every <= 1 || (i+j)%every == 0 {
				fmt.Fprintf(&b, "%d.5,", (i+j)%7-3)
			} else {
				b.WriteString("0,")
			}
		}
		fmt.Fprintf(&b, "%d,%d\n", i%2, (i/2)%2)
	}
	return b.String()
}

// TestStorageChoice checks which form Load chooses: sparse when the CSR
// form takes at most half the dense bytes and the matrix has at least
// MinSparseCells cells, dense otherwise; with text columns (which the
// builder holds dense), the same once they are encoded or left out.
func TestStorageChoice(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		opts   dataset.Options
		sparse bool
	}{
		{"wide, 1 in 10 not zero", wideCSV(300, 300, 10), dataset.Options{}, true},
		{"wide, 1 in 4 not zero (CSR 3/8 of dense)", wideCSV(300, 300, 4), dataset.Options{}, true},
		{"wide, 1 in 2 not zero (CSR 3/4 of dense)", wideCSV(300, 300, 2), dataset.Options{}, false},
		{"wide, no zeros", wideCSV(300, 300, 1), dataset.Options{}, false},
		{"sparse but small (300×200 < MinSparseCells)", wideCSV(300, 200, 10), dataset.Options{}, false},
		{"sparse, unknown size", wideCSV(40, 2000, 10), dataset.Options{}, true},
		{"sparse first rows, dense later", wideCSV(300, 300, 10) + strings.Repeat(strings.Repeat("1,", 300)+"0,1\n", 600), dataset.Options{}, false},
		{"dense first rows, sparse later", strings.Replace(wideCSV(3000, 300, 10), "\n", "\n"+strings.Repeat("1,", 300)+"0,1\n", 256), dataset.Options{}, true},
		{"missing values imputed", strings.Replace(wideCSV(300, 300, 10), "\n0,", "\n?,", 3), dataset.Options{Missing: dataset.MissingMean}, true},
		{"a text column one-hot encoded", strings.Replace(strings.Replace(wideCSV(300, 300, 10), "f1,", "t,f1,", 1), "\n", "\nx,", 300), dataset.Options{Nominal: dataset.NominalOneHot}, true},
		{"a text column left out", strings.Replace(strings.Replace(wideCSV(300, 300, 10), "f1,", "t,f1,", 1), "\n", "\nx,", 300), dataset.Options{Nominal: dataset.NominalDrop}, true},
		{"a text column one-hot encoded, dense data", strings.Replace(strings.Replace(wideCSV(300, 300, 2), "f1,", "t,f1,", 1), "\n", "\nx,", 300), dataset.Options{Nominal: dataset.NominalOneHot}, false},
		{"a text column one-hot encoded, small", strings.Replace(strings.Replace(wideCSV(300, 200, 10), "f1,", "t,f1,", 1), "\n", "\nx,", 300), dataset.Options{Nominal: dataset.NominalOneHot}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ds := mustLoad(t, tc.in, tc.opts)
			if ds.IsSparse() != tc.sparse {
				t.Errorf("sparse: got %v, want %v", ds.IsSparse(), tc.sparse)
			}
			dense, err := dataset.LoadStored(strings.NewReader(tc.in), tc.opts, dataset.StorageDense)
			if err != nil {
				t.Fatal(err)
			}
			if d := diffLoads(ds, nil, dense, nil); d != "" && !strings.HasPrefix(d, "sparse:") {
				t.Errorf("against the dense load: %s", d)
			}
		})
	}
	t.Run("unknown size", func(t *testing.T) {
		in := wideCSV(40, 2000, 10)
		ds, err := dataset.Load(struct{ *strings.Reader }{strings.NewReader(in)}, dataset.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !ds.IsSparse() {
			t.Errorf("sparse: got false, want true")
		}
	})
}

// TestSparseKeepsNegativeZero checks that -0, a zero the sparse form would
// leave out, comes back as -0.
func TestSparseKeepsNegativeZero(t *testing.T) {
	in := "a,b,label:y\n-0,0,1\n0,-0.0,0\n"
	ds, err := dataset.LoadStored(strings.NewReader(in), dataset.Options{}, dataset.StorageSparse)
	if err != nil {
		t.Fatal(err)
	}
	negZero := math.Copysign(0, -1)
	checkMatrix(t, "X", ds.Dense(), [][]float64{{negZero, 0}, {0, negZero}})
	checkWarning(t, ds, `2 features have zero variance`)
}

// sparseBinary returns the sparse binary form of a small data set and the
// data set.
func sparseBinary(t *testing.T) ([]byte, *dataset.Dataset) {
	t.Helper()
	ds, err := dataset.LoadStored(strings.NewReader("a,b,c,label:y,label:z\n0,1.5,0,1,0\n0,0,0,0,1\n-2,0,3,1,1\n"), dataset.Options{}, dataset.StorageSparse)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := dataset.WriteBinary(&buf, ds); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), ds
}

// TestSparseBinaryRoundTrip checks the sparse form's round trip and
// layout.
func TestSparseBinaryRoundTrip(t *testing.T) {
	good, ds := sparseBinary(t)
	if !bytes.HasPrefix(good, []byte("MLDRSP\x00\x02")) {
		t.Fatalf("got magic %q, want MLDRSP\\x00\\x02", good[:8])
	}
	back, err := dataset.ReadBinary(bytes.NewReader(good), int64(len(good)))
	if err != nil {
		t.Fatalf("ReadBinary: got %q, want no error", err)
	}
	sameDataset(t, back, ds)
	checkStrings(t, "Warnings", back.Warnings, ds.Warnings)
	checkStrings(t, "Columns", back.Columns, ds.Columns)
	if got, want := back.Sparse.NNZ(), 3; got != want {
		t.Errorf("NNZ: got %d, want %d", got, want)
	}
}

// craftSparse builds the sparse binary form by hand, with a correct
// CRC-32C.
func craftSparse(header string, ptr []int64, ind []int32, val, y []float64) []byte {
	b := []byte("MLDRSP\x00\x01")
	b = binary.LittleEndian.AppendUint64(b, uint64(len(header)))
	b = append(b, header...)
	for _, v := range ptr {
		b = binary.LittleEndian.AppendUint64(b, uint64(v))
	}
	for _, v := range ind {
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	for _, v := range append(append([]float64(nil), val...), y...) {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)))
}

// TestSparseBinaryCorrupt checks that every damaged sparse file is refused
// with an error wrapping ErrCorrupt.
func TestSparseBinaryCorrupt(t *testing.T) {
	good, _ := sparseBinary(t)
	n := int64(len(good))
	read := func(b []byte, size int64) error {
		_, err := dataset.ReadBinary(bytes.NewReader(b), size)
		return err
	}
	flip := func(i int) []byte {
		b := bytes.Clone(good)
		b[i] ^= 0x01
		return b
	}
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"one bit flipped in the values", read(flip(len(good)-4-6*8-3), n)},
		{"one bit flipped in the checksum", read(flip(len(good)-1), n)},
		{"truncated by one byte", read(good[:n-1], n-1)},
		{"truncated in the header", read(good[:20], 20)},
		{"magic alone", read(good[:8], 8)},
		{"size one too large", read(good, n+1)},
		{"size one too small", read(good, n-1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !errors.Is(tc.err, dataset.ErrCorrupt) {
				t.Errorf("got %v, want an error wrapping ErrCorrupt", tc.err)
			}
		})
	}
	t.Run("every byte flipped", func(t *testing.T) {
		for i := range good {
			if err := read(flip(i), n); !errors.Is(err, dataset.ErrCorrupt) {
				t.Errorf("byte %d of %d flipped: got %v, want an error wrapping ErrCorrupt", i, n, err)
			}
		}
	})
	t.Run("crafted with a valid checksum", func(t *testing.T) {
		// Structure checks must not rely on the checksum.
		h := func(rows, nnz int) string {
			return fmt.Sprintf(`{"rows":%d,"features":["a","b"],"labels":["y"],"kind":"multilabel","nnz":%d}`, rows, nnz)
		}
		for _, c := range []struct {
			name, header string
			ptr          []int64
			ind          []int32
			val, y       []float64
		}{
			{"rows overflow the size", h(1<<61, 0), nil, nil, nil, nil},
			{"entries overflow the size", h(1, 1<<61), nil, nil, nil, nil},
			{"negative entries", h(1, -1), []int64{0, 0}, nil, nil, []float64{1}},
			{"row pointers not from 0", h(1, 1), []int64{1, 1}, []int32{0}, []float64{1}, []float64{1}},
			{"row pointers decreasing", h(2, 1), []int64{0, 1, 0}, []int32{0}, []float64{1}, []float64{1, 0}},
			{"column out of range", h(1, 1), []int64{0, 1}, []int32{2}, []float64{1}, []float64{1}},
			{"negative column", h(1, 1), []int64{0, 1}, []int32{-1}, []float64{1}, []float64{1}},
			{"columns not ascending", h(1, 2), []int64{0, 2}, []int32{1, 0}, []float64{1, 2}, []float64{1}},
			{"NaN value", h(1, 1), []int64{0, 1}, []int32{0}, []float64{math.NaN()}, []float64{1}},
			{"label 2 in multi-label data", h(1, 1), []int64{0, 1}, []int32{0}, []float64{1}, []float64{2}},
		} {
			b := craftSparse(c.header, c.ptr, c.ind, c.val, c.y)
			if err := read(b, int64(len(b))); !errors.Is(err, dataset.ErrCorrupt) {
				t.Errorf("%s: got %v, want an error wrapping ErrCorrupt", c.name, err)
			}
		}
		// The crafting itself is right: a well-formed file reads.
		b := craftSparse(h(2, 1), []int64{0, 1, 1}, []int32{1}, []float64{2.5}, []float64{1, 0})
		ds, err := dataset.ReadBinary(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatalf("well-formed crafted file: got %v, want no error", err)
		}
		checkMatrix(t, "X", ds.Dense(), [][]float64{{0, 2.5}, {0, 0}})
	})
}

// TestValidateSparse checks Validate on sparse data sets built by hand.
func TestValidateSparse(t *testing.T) {
	y := mat.NewDense(2, 1, []float64{0, 1})
	good := func() *dataset.Dataset {
		return &dataset.Dataset{Features: dataset.ListNames([]string{"a", "b"}), Labels: dataset.ListNames([]string{"y"}), Kind: dataset.MultiLabel, Y: y,
			Sparse: &sparse.CSR{R: 2, C: 2, Ptr: []int64{0, 1, 2}, Ind: []int32{1, 0}, Val: []float64{3, 4}}}
	}
	if err := good().Validate(); err != nil {
		t.Fatalf("valid: got %q, want nil", err)
	}
	for _, tc := range []struct {
		name   string
		change func(*dataset.Dataset)
		want   string
	}{
		{"X and Sparse both set", func(d *dataset.Dataset) { d.X = mat.NewDense(2, 2, nil) }, "exactly one of X and Sparse"},
		{"neither set", func(d *dataset.Dataset) { d.Sparse = nil }, "exactly one of X and Sparse"},
		{"too few columns", func(d *dataset.Dataset) { d.Sparse.C = 1 }, "outside"},
		{"rows differ from Y", func(d *dataset.Dataset) {
			d.Sparse = &sparse.CSR{R: 1, C: 2, Ptr: []int64{0, 0}}
		}, "Y has 2"},
		{"Inf value", func(d *dataset.Dataset) { d.Sparse.Val[0] = math.Inf(1) }, "holds +Inf"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := good()
			tc.change(d)
			err := d.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
