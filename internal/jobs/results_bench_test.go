package jobs

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/store"
)

// benchProjectedJob stores a succeeded pca job whose projected rows are
// rows rows of 10 components, as FileProjectedRows (binary, 93 bytes a
// row) or, as results written before it have them, projected.csv (about
// 200 bytes a row), and returns a service over it.
func benchProjectedJob(b *testing.B, rows int, binary bool) (*Service, string) {
	b.Helper()
	st, err := store.Open(store.Config{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	id := store.NewID()
	now := time.Now()
	j := Job{ID: id, Status: Succeeded, CreatedAt: now, FinishedAt: &now, Request: Request{Dataset: store.NewID(), Method: "pca", Split: &Split{Kind: SplitNone}}}
	data, _ := json.Marshal(j)
	if err := st.SaveJob(id, data); err != nil {
		b.Fatal(err)
	}
	staged, err := st.StageJobResults(id)
	if err != nil {
		b.Fatal(err)
	}
	defer staged.Discard()
	rng := rand.New(rand.NewPCG(1, 1))
	if binary {
		p := &plan{rowSplit: make([]string, rows), rowNumber: make([]int, rows), fitRows: seq(0, rows)}
		z := mat.NewDense(rows, 10, nil)
		for i := range rows {
			p.rowSplit[i], p.rowNumber[i] = PartAll, i+1
			for k := range 10 {
				z.Set(i, k, rng.NormFloat64())
			}
		}
		err = staged.WriteFile("pca/"+FileProjectedRows, func(w io.Writer) error { return writeProjectedRows(w, p, z, 10) })
	} else {
		err = staged.WriteFile("pca/"+FileProjected, writeBenchCSV(rows, rng))
	}
	if err != nil {
		b.Fatal(err)
	}
	if err := st.CommitJobResults(staged); err != nil {
		b.Fatal(err)
	}
	r, err := New(Config{Store: st, Execute: func(ctx context.Context, _ Job, _ Report) ([]string, error) { return nil, nil }})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { r.Shutdown(context.Background()) })
	return NewService(r, st, Limits{}), id
}

// writeBenchCSV writes a projected.csv of rows rows of 10 components.
func writeBenchCSV(rows int, rng *rand.Rand) func(io.Writer) error {
	return func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		bw.WriteString("row,split,c1,c2,c3,c4,c5,c6,c7,c8,c9,c10\n")
		for i := range rows {
			bw.WriteString(strconv.Itoa(i + 1))
			bw.WriteString(",all")
			for range 10 {
				bw.WriteByte(',')
				bw.WriteString(strconv.FormatFloat(rng.NormFloat64(), 'g', -1, 64))
			}
			bw.WriteByte('\n')
		}
		return bw.Flush()
	}
}

// BenchmarkProjected reads two components of every row of the projected
// rows, binary (FileProjectedRows) or CSV (results written before it),
// through Service.Projected at named sizes: "hash" checks the file against
// its SHA-256 at every read, "remembered" finds it verified already (the
// case of every read after the first), "parse" is the parsing alone.
//
//	go test -run '^$' -bench Projected -benchmem ./internal/jobs/
func BenchmarkProjected(b *testing.B) {
	for _, size := range []struct {
		name string
		rows int
	}{{"10k rows", 10_000}, {"500k rows", 500_000}} {
		for _, binary := range []bool{true, false} {
			benchProjected(b, size.name, size.rows, binary)
		}
	}
}

func benchProjected(b *testing.B, name string, rows int, binary bool) {
	svc, id := benchProjectedJob(b, rows, binary)
	touched := time.Now()
	file, format := FileProjected, "csv"
	if binary {
		file, format = FileProjectedRows, "binary"
	}
	path := filepath.Join(svc.store.JobDir(id), "pca", file)
	for _, mode := range []string{"hash", "remembered", "parse"} {
		b.Run(fmt.Sprintf("%s/%s/%s", name, format, mode), func(b *testing.B) {
			for b.Loop() {
				if mode == "parse" {
					f, err := os.Open(path)
					if err != nil {
						b.Fatal(err)
					}
					if binary {
						var pf *projectedFile
						st, _ := f.Stat()
						if pf, err = openProjected(f, st.Size()); err == nil {
							_, err = pf.read([]int{0, 1})
						}
					} else {
						_, err = readProjected(bufio.NewReaderSize(f, 1<<16), []int{0, 1})
					}
					f.Close()
					if err != nil {
						b.Fatal(err)
					}
					continue
				}
				if mode == "hash" { // another modification time: not remembered
					b.StopTimer()
					touched = touched.Add(time.Second)
					if err := os.Chtimes(path, touched, touched); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
				}
				if _, err := svc.Projected(id, "pca", 0, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
