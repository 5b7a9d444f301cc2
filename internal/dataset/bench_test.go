package dataset_test

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"mldr/internal/dataset"
)

// Benchmark sizes: a yeast-like table (103 features, 14 labels) scaled up
// past 100 MB so the loader's streaming, not start-up, is measured.
const (
	benchFeatures = 110
	benchLabels   = 14
	benchMinBytes = 100 << 20
)

// writeBenchCSV writes a CSV of at least minBytes to path: benchFeatures
// columns of numbers written like 0.123456 or -1.234e-03, then benchLabels
// "label:…" 0/1 columns. The content is fixed by the PCG seed. It returns
// the file's size and row count.
func writeBenchCSV(path string, minBytes int64) (size int64, rows int, err error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	for j := range benchFeatures {
		fmt.Fprintf(w, "f%d,", j+1)
	}
	for j := range benchLabels {
		if j > 0 {
			w.WriteByte(',')
		}
		fmt.Fprintf(w, "label:L%d", j+1)
	}
	w.WriteByte('\n')
	rng := rand.New(rand.NewPCG(1, 1))
	var buf []byte
	for size = int64(w.Buffered()); size < minBytes; rows++ {
		buf = buf[:0]
		for range benchFeatures {
			v := rng.NormFloat64()
			if rng.IntN(4) == 0 {
				buf = strconv.AppendFloat(buf, v/1000, 'e', 3, 64) // -1.234e-03
			} else {
				buf = strconv.AppendFloat(buf, v, 'f', 6, 64) // 0.123456
			}
			buf = append(buf, ',')
		}
		for j := range benchLabels {
			if j > 0 {
				buf = append(buf, ',')
			}
			buf = append(buf, '0'+byte(rng.IntN(2)))
		}
		buf = append(buf, '\n')
		if _, err := w.Write(buf); err != nil {
			return 0, 0, err
		}
		size += int64(len(buf))
	}
	if err := w.Flush(); err != nil {
		return 0, 0, err
	}
	return size, rows, f.Close()
}

// BenchmarkLoadCSV loads a generated CSV of over 100 MB from disk. Besides
// MB/s it reports alloc-B/B: bytes allocated per byte of input.
func BenchmarkLoadCSV(b *testing.B) {
	path := filepath.Join(b.TempDir(), "bench.csv")
	size, rows, err := writeBenchCSV(path, benchMinBytes)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size)
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for b.Loop() {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		ds, err := dataset.Load(f, dataset.Options{})
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		if ds.Rows() != rows || len(ds.Features) != benchFeatures || len(ds.Labels) != benchLabels {
			b.Fatalf("got %d×%d with %d labels, want %d×%d with %d", ds.Rows(), len(ds.Features), len(ds.Labels), rows, benchFeatures, benchLabels)
		}
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/(float64(b.N)*float64(size)), "alloc-B/B")
}
