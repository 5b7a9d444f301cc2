package dataset_test

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/dataset"
)

// benchBinary writes the binary form of a seeded rows × features data set
// with 20 labels to a file and returns its path: 50 000 × 500 is the
// stored data of benchcmp's end-to-end rows (200 MB of features).
func benchBinary(b *testing.B, rows, features int) string {
	b.Helper()
	rng := rand.New(rand.NewPCG(1, 1))
	x := mat.NewDense(rows, features, nil)
	for i := range x.RawMatrix().Data {
		x.RawMatrix().Data[i] = rng.NormFloat64()
	}
	y := mat.NewDense(rows, 20, nil)
	for i := range y.RawMatrix().Data {
		y.RawMatrix().Data[i] = float64(rng.IntN(2))
	}
	names := func(prefix string, n int) []string {
		s := make([]string, n)
		for i := range s {
			s[i] = prefix + strconv.Itoa(i+1)
		}
		return s
	}
	ds := &dataset.Dataset{Name: "bench", Features: dataset.ListNames(names("f", features)), Labels: dataset.ListNames(names("l", 20)), X: x, Y: y, Kind: dataset.MultiLabel}
	var buf bytes.Buffer
	if err := dataset.WriteBinary(&buf, ds); err != nil {
		b.Fatal(err)
	}
	p := filepath.Join(b.TempDir(), "data.bin")
	if err := os.WriteFile(p, buf.Bytes(), 0o600); err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkReadBinary reads a stored 50 000 × 500 data set from a file
// (in the page cache), with the checksum and, as store.Files does for a
// file it verified before, without it:
//
//	go test -run '^$' -bench ReadBinary -benchtime 10x ./internal/dataset/
func BenchmarkReadBinary(b *testing.B) {
	p := benchBinary(b, 50000, 500)
	for _, c := range []struct {
		name string
		read func(*os.File, int64) (*dataset.Dataset, error)
	}{{"checked", func(f *os.File, n int64) (*dataset.Dataset, error) { return dataset.ReadBinary(f, n) }},
		{"verified", func(f *os.File, n int64) (*dataset.Dataset, error) { return dataset.ReadBinaryVerified(f, n) }}} {
		b.Run(c.name, func(b *testing.B) {
			st, err := os.Stat(p)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(st.Size())
			for b.Loop() {
				f, err := os.Open(p)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := c.read(f, st.Size()); err != nil {
					b.Fatal(err)
				}
				f.Close()
			}
		})
	}
}
