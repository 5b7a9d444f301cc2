package dataset_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mldr/internal/dataset"
)

// streamCSV makes a CSV of rows rows: cols numeric features (random, with
// a few digits, or mostly zeros when sparse) and two labels; edit, if not
// nil, may change the text of any cell (row, column) before it is written.
func streamCSV(rows, cols int, sparse bool, edit func(r, c int, cell string) string) string {
	rng := rand.New(rand.NewPCG(uint64(rows), uint64(cols)))
	var b strings.Builder
	for c := range cols {
		fmt.Fprintf(&b, "f%d,", c+1)
	}
	b.WriteString("label:a,label:b\n")
	for r := range rows {
		for c := range cols {
			cell := "0"
			if !sparse || rng.IntN(50) == 0 {
				cell = fmt.Sprintf("%.4g", rng.NormFloat64()*10)
			}
			if edit != nil {
				cell = edit(r, c, cell)
			}
			b.WriteString(cell + ",")
		}
		fmt.Fprintf(&b, "%d,%d\n", rng.IntN(2), r%2)
	}
	return b.String()
}

// streamARFF is a dense ARFF file of rows rows, cols features, two labels.
func streamARFF(rows, cols int) string {
	rng := rand.New(rand.NewPCG(7, uint64(cols)))
	var b strings.Builder
	b.WriteString("@relation streamed\n")
	for c := range cols {
		fmt.Fprintf(&b, "@attribute f%d numeric\n", c+1)
	}
	b.WriteString("@attribute a {0,1}\n@attribute b {0,1}\n@data\n")
	for r := range rows {
		for range cols {
			fmt.Fprintf(&b, "%.5g,", rng.NormFloat64())
		}
		fmt.Fprintf(&b, "%d,%d\n", rng.IntN(2), r%2)
	}
	return b.String()
}

// loadStreamed loads text with opts through a BinaryStream into a file in
// dir, finishes it for the data set (named name), and returns the data
// set, whether the file was usable, and the file's bytes.
func loadStreamed(t *testing.T, dir, text string, opts dataset.Options) (*dataset.Dataset, bool, []byte) {
	t.Helper()
	f, err := os.CreateTemp(dir, "stream-*")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var writes int
	var next int64 = -1
	s := dataset.NewBinaryStream(f, func(off, n int64) {
		if next >= 0 && off != next {
			t.Errorf("rows written at %d after %d", off, next)
		}
		next, writes = off+n, writes+1
	})
	ds, err := dataset.LoadStreaming(strings.NewReader(text), opts, s)
	if err != nil {
		t.Fatalf("LoadStreaming: %v", err)
	}
	ds.Name = "streamed"
	ok, err := s.Finish(ds)
	if err != nil {
		t.Fatalf("Finish: %v", err)
	}
	b, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	return ds, ok, b
}

// A data set loaded through a BinaryStream is the one Load gives, and when
// the stream says its file is usable, the file reads back (by ReadBinary,
// and in place by ViewBinary with every check) as exactly that data set;
// when the rows change after they were streamed (imputation, a column that
// turns out text, sparse storage) or none were streamed (too few rows, a
// libsvm file), the stream says so.
func TestBinaryStream(t *testing.T) {
	late := func(r, c int, cell string) string {
		switch {
		case c != 3:
			return cell
		case r == 2500:
			return "high"
		}
		return fmt.Sprint(r % 3)
	}
	missing := func(r, c int, cell string) string {
		if r%97 == 5 && c == 1 {
			return "?"
		}
		return cell
	}
	tests := []struct {
		name   string
		text   string
		opts   dataset.Options
		usable bool
	}{
		{"dense CSV", streamCSV(3000, 60, false, nil), dataset.Options{}, true},
		{"dense CSV, one batch", streamCSV(400, 30, false, nil), dataset.Options{}, true},
		{"dense CSV by the slow path", streamCSV(3000, 60, false, func(r, c int, cell string) string {
			if r == 0 && c == 0 {
				return `"` + cell + `"` // a quote sends the loader off the fast path
			}
			return cell
		}), dataset.Options{}, true},
		{"dense ARFF", streamARFF(2000, 70), dataset.Options{Labels: []string{"a", "b"}}, true},
		{"missing values dropped", streamCSV(3000, 60, false, missing), dataset.Options{Missing: dataset.MissingDropRows}, true},
		{"missing values imputed", streamCSV(3000, 60, false, missing), dataset.Options{Missing: dataset.MissingMean}, false},
		{"a column that turns out text, one-hot", streamCSV(3000, 60, false, late), dataset.Options{Nominal: dataset.NominalOneHot}, false},
		{"a column that turns out text, dropped", streamCSV(3000, 60, false, late), dataset.Options{Nominal: dataset.NominalDrop}, false},
		{"sparse features", streamCSV(3000, 400, true, nil), dataset.Options{}, false},
		{"too few rows to stream", streamCSV(100, 10, false, nil), dataset.Options{}, false},
		{"libsvm", "1,2 1:0.5 3:1\n2 2:1.5\n1 1:2 2:1\n", dataset.Options{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want, err := dataset.Load(strings.NewReader(tc.text), tc.opts)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			want.Name = "streamed"
			got, ok, file := loadStreamed(t, t.TempDir(), tc.text, tc.opts)
			sameDataset(t, got, want)
			checkStrings(t, "Warnings", got.Warnings, want.Warnings)
			if ok != tc.usable {
				t.Fatalf("usable: got %v, want %v", ok, tc.usable)
			}
			if !ok {
				return
			}
			back, err := dataset.ReadBinary(bytes.NewReader(file), int64(len(file)))
			if err != nil {
				t.Fatalf("ReadBinary of the streamed file: %v", err)
			}
			sameDataset(t, back, want)
			checkStrings(t, "Warnings read back", back.Warnings, want.Warnings)
			view := make([]byte, len(file)+8)[:len(file)] // a []byte from make is 8-aligned
			copy(view, file)
			viewed, inPlace, err := dataset.ViewBinary(view, dataset.CheckAll)
			if err != nil || !inPlace {
				t.Fatalf("ViewBinary of the streamed file: in place %v, %v", inPlace, err)
			}
			sameDataset(t, viewed, want)
			var written bytes.Buffer
			if err := dataset.WriteBinary(&written, want); err != nil {
				t.Fatal(err)
			}
			// The same file but for the header's padding: the arrays and the
			// header's JSON are WriteBinary's.
			wb := written.Bytes()
			arrays := 8 * want.Rows() * (want.Features.Len() + want.Labels.Len())
			if !bytes.Equal(file[len(file)-4-arrays:len(file)-4], wb[len(wb)-4-arrays:len(wb)-4]) {
				t.Error("the arrays differ from WriteBinary's")
			}
		})
	}
}

// failAfter is a StreamFile whose writes fail once n bytes are written.
type failAfter struct {
	*os.File
	n int
}

var errDiskFull = errors.New("no space left on device (injected)")

func (f *failAfter) Write(p []byte) (int, error) {
	if f.n -= len(p); f.n < 0 {
		return 0, errDiskFull
	}
	return f.File.Write(p)
}

// A write that fails while the rows stream does not stop the loading; the
// failure comes out of Finish.
func TestBinaryStreamWriteError(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "data"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	text := streamCSV(3000, 60, false, nil)
	s := dataset.NewBinaryStream(&failAfter{File: f, n: 1 << 20}, nil)
	ds, err := dataset.LoadStreaming(strings.NewReader(text), dataset.Options{}, s)
	if err != nil {
		t.Fatalf("LoadStreaming: %v", err)
	}
	if r, c := ds.X.Dims(); r != 3000 || c != 60 {
		t.Fatalf("X is %d×%d", r, c)
	}
	ok, err := s.Finish(ds)
	if ok || !errors.Is(err, errDiskFull) {
		t.Fatalf("Finish: %v, %v; want the write's error", ok, err)
	}
}

// A refused file still ends the stream's writer (no goroutine is left
// waiting for rows).
func TestBinaryStreamRefused(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "data"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	text := streamCSV(3000, 60, false, func(r, c int, cell string) string {
		if r == 2900 && c == 2 {
			return "x"
		}
		return cell
	})
	s := dataset.NewBinaryStream(f, nil)
	if _, err := dataset.LoadStreaming(strings.NewReader(text), dataset.Options{}, s); err == nil {
		t.Fatal("LoadStreaming accepted a text cell with nominal=reject")
	}
	if ok, err := s.Finish(&dataset.Dataset{}); ok || err != nil {
		t.Fatalf("Finish after a refusal: %v, %v", ok, err)
	}
}
