package dataset_test

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

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

// The benchmark sizes: a mid size that BenchmarkLoadCSV measures in
// process, and the large size (1 GiB) that only BenchmarkLoadCSVProcess
// reaches (run it with -bench LoadCSVProcess; plain go test never does).
const (
	benchMidBytes   = benchMinBytes
	benchLargeBytes = 1 << 30
)

// BenchmarkLoadCSV loads a generated CSV of over 100 MB from disk. Besides
// MB/s it reports alloc-B/B: bytes allocated per byte of input.
func BenchmarkLoadCSV(b *testing.B) {
	path := filepath.Join(b.TempDir(), "bench.csv")
	size, rows, err := writeBenchCSV(path, benchMidBytes)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size)
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for b.Loop() {
		ds, err := loadBenchFile(path)
		if err != nil {
			b.Fatal(err)
		}
		if ds.Rows() != rows || ds.Features.Len() != benchFeatures || ds.Labels.Len() != benchLabels {
			b.Fatalf("got %d×%d with %d labels, want %d×%d with %d", ds.Rows(), ds.Features.Len(), ds.Labels.Len(), rows, benchFeatures, benchLabels)
		}
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/(float64(b.N)*float64(size)), "alloc-B/B")
}

// BenchmarkLoadCSVProcess loads generated CSVs of the mid and the large size,
// each load in a fresh process (this test binary run again, see TestMain),
// so that the process's peak resident memory (VmHWM in /proc/self/status)
// is that of one load. Besides MB/s (wall time, the ~10 ms start of the
// process included) it reports cpu-s/op, the child's user and system CPU
// time (less sensitive than wall time to other work on the machine),
// peak-RSS-MB, peak-RSS/X, the peak over the N×D float64 feature matrix X,
// and peak-RSS/XY, the peak over X and the N×q label matrix Y together (the
// data set the load returns).
func BenchmarkLoadCSVProcess(b *testing.B) {
	for _, sz := range []struct {
		name  string
		bytes int64
	}{{"100MiB", benchMidBytes}, {"1GiB", benchLargeBytes}} {
		b.Run(sz.name, func(b *testing.B) {
			if runtime.GOOS != "linux" {
				b.Skip("peak memory is read from /proc/self/status")
			}
			path := filepath.Join(b.TempDir(), "bench.csv")
			size, rows, err := writeBenchCSV(path, sz.bytes)
			if err != nil {
				b.Fatal(err)
			}
			exe, err := os.Executable()
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(size)
			var peak float64
			var cpu time.Duration
			var x, xy int64
			for b.Loop() {
				cmd := exec.Command(exe)
				cmd.Env = append(os.Environ(), loadChildEnv+"="+path)
				cmd.Stderr = os.Stderr
				out, err := cmd.Output()
				if err != nil {
					b.Fatalf("child load: %v", err)
				}
				var r childReport
				if _, err := fmt.Sscanf(string(out), childFormat, &r.rows, &r.cols, &r.x, &r.xy, &r.hwm); err != nil {
					b.Fatalf("child load: got %q, want %q: %v", out, childFormat, err)
				}
				if r.rows != rows || r.cols != benchFeatures {
					b.Fatalf("got %d×%d, want %d×%d", r.rows, r.cols, rows, benchFeatures)
				}
				x, xy = r.x, r.xy
				peak = max(peak, float64(r.hwm))
				cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			}
			b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
			b.ReportMetric(peak/1e6, "peak-RSS-MB")
			b.ReportMetric(peak/float64(x), "peak-RSS/X")
			b.ReportMetric(peak/float64(xy), "peak-RSS/XY")
		})
	}
}

// loadChildEnv, when set to a path, makes the test binary load that CSV,
// print a childFormat line to stdout and exit (see TestMain).
const loadChildEnv = "MLDR_BENCH_LOAD_CHILD"

// childFormat is the child's report: rows, features, the bytes of X (of
// its CSR form when sparse), of X and Y, and the process's peak resident
// bytes.
const childFormat = "rows=%d cols=%d x=%d xy=%d hwm=%d\n"

type childReport struct {
	rows, cols int
	x, xy, hwm int64
}

// TestMain runs the benchmark's child load when loadChildEnv is set, and
// the tests otherwise.
func TestMain(m *testing.M) {
	if path := os.Getenv(loadChildEnv); path != "" {
		if err := loadChild(path); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// loadChild loads path once and prints its childFormat report.
func loadChild(path string) error {
	ds, err := loadBenchFile(path)
	if err != nil {
		return err
	}
	hwm, err := peakRSS()
	if err != nil {
		return err
	}
	n, d := ds.Rows(), ds.Features.Len()
	_, q := ds.Y.Dims()
	x := int64(n) * int64(d) * 8
	if ds.IsSparse() {
		x = ds.Sparse.Bytes()
	}
	_, err = fmt.Printf(childFormat, n, d, x, x+int64(n)*int64(q)*8, hwm)
	return err
}

// peakRSS reads the process's peak resident set size (VmHWM) in bytes.
func peakRSS() (int64, error) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(status)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no VmHWM in /proc/self/status")
}

// loadBenchFile loads path with the default options.
func loadBenchFile(path string) (*dataset.Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return dataset.Load(f, dataset.Options{})
}

// The wide sparse benchmark (benchcmp's wide rows): a bag-of-words-like table of
// 20 000 rows × 5 000 features, 2 % of them not zero, and 400 labels, a
// CSV of 226 MB.
const (
	sparseBenchRows     = 20_000
	sparseBenchFeatures = 5_000
	sparseBenchLabels   = 400
	sparseBenchDensity  = 0.02
)

// wideDirEnv names a directory to keep BenchmarkLoadCSVWide's files in.
const wideDirEnv = "MLDR_BENCH_WIDE_DIR"

// writeSparseBenchCSV writes the wide sparse benchmark's CSV to path: a
// cell is not zero with probability sparseBenchDensity, then written like
// 0.1234; a label is 1 with probability 0.01. The content is fixed by the
// PCG seed. It returns the file's size.
func writeSparseBenchCSV(path string) (int64, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	for j := range sparseBenchFeatures {
		fmt.Fprintf(w, "f%d,", j+1)
	}
	for j := range sparseBenchLabels {
		if j > 0 {
			w.WriteByte(',')
		}
		fmt.Fprintf(w, "label:L%d", j+1)
	}
	w.WriteByte('\n')
	rng := rand.New(rand.NewPCG(15, 2))
	var buf []byte
	for range sparseBenchRows {
		buf = buf[:0]
		for range sparseBenchFeatures {
			if rng.Float64() < sparseBenchDensity {
				buf = strconv.AppendFloat(buf, 0.0001+rng.Float64(), 'f', 4, 64)
			} else {
				buf = append(buf, '0')
			}
			buf = append(buf, ',')
		}
		for j := range sparseBenchLabels {
			if j > 0 {
				buf = append(buf, ',')
			}
			if rng.Float64() < 0.01 {
				buf = append(buf, '1')
			} else {
				buf = append(buf, '0')
			}
		}
		buf = append(buf, '\n')
		if _, err := w.Write(buf); err != nil {
			return 0, err
		}
	}
	if err := w.Flush(); err != nil {
		return 0, err
	}
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return st.Size(), f.Close()
}

// BenchmarkLoadCSVWide loads the wide sparse CSV (held sparse) and a dense
// CSV of the same size (benchFeatures columns of numbers), each from disk
// in this process; MB/s is end to end, Load from the open file to the
// data set, and cpu-s/op the CPU time of a load. It writes 450 MB of files
// to the test's temporary directory (TMPDIR), or once to the directory
// wideDirEnv names, where later runs find them (and the child loads of
// BenchmarkLoadCSVProcess can be pointed at them).
//
//	MLDR_BENCH_WIDE_DIR=/some/dir go test ./internal/dataset -run X -bench LoadCSVWide -benchtime 3x
//	MLDR_BENCH_LOAD_CHILD=/some/dir/sparse.csv go test ./internal/dataset   # peak memory of one load
func BenchmarkLoadCSVWide(b *testing.B) {
	dir := os.Getenv(wideDirEnv)
	if dir == "" {
		dir = b.TempDir()
	}
	sparsePath := filepath.Join(dir, "sparse.csv")
	densePath := filepath.Join(dir, "dense.csv")
	if _, err := os.Stat(densePath); err != nil {
		size, err := writeSparseBenchCSV(sparsePath)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := writeBenchCSV(densePath, size); err != nil {
			b.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name, path string
		sparse     bool
	}{{"sparse-2%", sparsePath, true}, {"dense", densePath, false}} {
		b.Run(tc.name, func(b *testing.B) {
			st, err := os.Stat(tc.path)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(st.Size())
			cpu := processCPU()
			for b.Loop() {
				ds, err := loadBenchFile(tc.path)
				if err != nil {
					b.Fatal(err)
				}
				if ds.IsSparse() != tc.sparse {
					b.Fatalf("sparse: got %v, want %v", ds.IsSparse(), tc.sparse)
				}
			}
			// CPU time, less sensitive than wall time to other work on a
			// shared machine: MB a CPU-second, times the cores, is the wall
			// speed on an idle machine when the load keeps every core busy.
			secs := (processCPU() - cpu).Seconds() / float64(b.N)
			b.ReportMetric(secs, "cpu-s/op")
			b.ReportMetric(float64(st.Size())/1e6/secs, "MB/cpu-s")
		})
	}
}
