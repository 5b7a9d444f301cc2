package dataset

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// A header larger than the room kept for it makes the stream unusable
// (Finish: false, no error); the same rows with room enough make a file
// that reads back.
func TestBinaryStreamHeaderRoom(t *testing.T) {
	const rows, cols = 3, 100
	ds := &Dataset{Name: "wide names", Kind: MultiLabel, Labels: ListNames([]string{"a"}),
		X: mat.NewDense(rows, cols, nil), Y: mat.NewDense(rows, 1, []float64{0, 1, 1})}
	var features []string
	for j := range cols {
		features = append(features, fmt.Sprintf("%s%d", strings.Repeat("n", 100), j))
		for i := range rows {
			ds.X.Set(i, j, float64(i*cols+j)/7)
		}
	}
	ds.Features = ListNames(features)
	for _, tc := range []struct {
		reserve int64
		ok      bool
	}{{4096, false}, {16384, true}} {
		f, err := os.Create(filepath.Join(t.TempDir(), "data"))
		if err != nil {
			t.Fatal(err)
		}
		s := NewBinaryStream(f, nil)
		s.start(tc.reserve)
		s.rows(ds.X.RawMatrix().Data)
		s.usable = true
		ok, err := s.Finish(ds)
		f.Close()
		if ok != tc.ok || err != nil {
			t.Fatalf("reserve %d: Finish gave %v, %v; want %v", tc.reserve, ok, err, tc.ok)
		}
		if !ok {
			continue
		}
		b, err := os.ReadFile(f.Name())
		if err != nil {
			t.Fatal(err)
		}
		back, err := ReadBinary(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatalf("ReadBinary: %v", err)
		}
		if !mat.Equal(back.X, ds.X) || !mat.Equal(back.Y, ds.Y) || back.Features.Len() != cols {
			t.Fatal("the file does not read back as the data set")
		}
	}
}

// streamReserve keeps room for every name as JSON escapes it, twice,
// and not much more.
func TestStreamReserve(t *testing.T) {
	cols := []column{{name: strings.Repeat("\x01", 1000)}, {name: "b"}, {name: `"q"`}}
	need := int64(2 * ((6*1000 + 2 + 1) + (3 + 1) + (7 + 1)))
	got := streamReserve(cols)
	if got < need+64<<10 || got%4096 != 0 || got > need+64<<10+4096 {
		t.Fatalf("streamReserve = %d for names needing %d bytes", got, need)
	}
}

// Rows changed after they were streamed make the stream unusable, even
// when the loader took it for usable: Finish compares checksums.
func TestBinaryStreamChangedRows(t *testing.T) {
	x := mat.NewDense(4, 3, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	ds := &Dataset{Name: "d", Kind: MultiLabel, Features: ListNames([]string{"a", "b", "c"}), Labels: ListNames([]string{"y"}),
		X: x, Y: mat.NewDense(4, 1, []float64{0, 1, 0, 1})}
	f, err := os.Create(filepath.Join(t.TempDir(), "data"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := NewBinaryStream(f, nil)
	s.start(4096)
	s.rows(append([]float64(nil), x.RawMatrix().Data...))
	s.wait()
	x.Set(2, 1, 8.5) // as a mean imputation would, after the streaming
	s.usable = true
	if ok, err := s.Finish(ds); ok || err != nil {
		t.Fatalf("Finish after a change: %v, %v; want false, nil", ok, err)
	}
}
