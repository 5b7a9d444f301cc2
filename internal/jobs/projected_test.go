package jobs

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/export"
)

// projectedCSV is projected.csv as encoding/csv writes it, as jobs wrote
// it before FileProjectedRows: the reference that the CSV derived from it
// must match byte for byte (downloads stay the same).
func projectedCSV(w io.Writer, p *plan, z *mat.Dense, d int) error {
	order := p.rowOrder()
	if zr, _ := z.Dims(); zr == len(p.fitRows) && zr != len(p.rowSplit) {
		order = p.fitRows
		z = expandRows(z, p.fitRows, len(p.rowSplit))
	}
	cw := csv.NewWriter(w)
	rec := []string{"row", "split"}
	if p.rowFold != nil {
		rec = append(rec, "fold")
	}
	rec = append(rec, export.ComponentNames(d)...)
	cw.Write(rec)
	for _, i := range order {
		rec = append(rec[:0], strconv.Itoa(p.rowNumber[i]), p.rowSplit[i])
		if p.rowFold != nil {
			fold := ""
			if p.rowFold[i] > 0 {
				fold = strconv.Itoa(p.rowFold[i])
			}
			rec = append(rec, fold)
		}
		for _, v := range z.RawRowView(i)[:d] {
			rec = append(rec, strconv.FormatFloat(v, 'g', -1, 64))
		}
		cw.Write(rec)
	}
	cw.Flush()
	return cw.Error()
}

// projectedPlan is a plan of n rows: a holdout (train and test rows
// interleaved) or, with folds, every row in part all with its fold (0 for
// some).
func projectedPlan(n int, folds bool, rng *rand.Rand) *plan {
	p := &plan{rowSplit: make([]string, n), rowNumber: make([]int, n)}
	if folds {
		p.rowFold = make([]int, n)
	}
	for i := range n {
		p.rowNumber[i] = i + 1
		switch {
		case folds:
			p.rowSplit[i] = PartAll
			p.rowFold[i] = rng.IntN(4) // 0: no fold tests it
			p.fitRows = append(p.fitRows, i)
		case rng.IntN(5) == 0:
			p.rowSplit[i] = PartTest
		default:
			p.rowSplit[i] = PartTrain
			p.fitRows = append(p.fitRows, i)
		}
	}
	return p
}

// expandRows places the rows of z (one per fit row) at their data rows.
func expandRows(z *mat.Dense, rows []int, n int) *mat.Dense {
	_, d := z.Dims()
	out := mat.NewDense(n, d, nil)
	for k, i := range rows {
		out.SetRow(i, z.RawRowView(k))
	}
	return out
}

// derivedCSV writes FileProjectedRows of z, then projected.csv from it,
// as a job and then its first download do.
func derivedCSV(w io.Writer, p *plan, z *mat.Dense, d int) error {
	var bin bytes.Buffer
	if err := writeProjectedRows(&bin, p, z, d); err != nil {
		return err
	}
	f, err := openProjected(bytes.NewReader(bin.Bytes()), int64(bin.Len()))
	if err != nil {
		return err
	}
	return writeProjectedCSV(w, f)
}

// failWriter fails its n-th write.
type failWriter struct{ n int }

func (f *failWriter) Write(b []byte) (int, error) {
	if f.n--; f.n == 0 {
		return 0, io.ErrShortWrite
	}
	return len(b), nil
}

// projected.csv derived from FileProjectedRows is byte for byte what
// encoding/csv wrote from the rows, whatever the values (NaN, ±Inf, −0,
// subnormal, huge), the parts, the folds, the number of rows (one block or
// many) and mds's rows of the fit rows only; every component read back
// from FileProjectedRows is the value, bit for bit; a failing writer's
// error comes back.
func TestWriteProjectedBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 3))
	special := []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 5e-324, 1.7976931348623157e308, 1e21, 1e-7, 0.1, -2.5}
	for _, c := range []struct {
		name  string
		rows  int
		d     int
		folds bool
		mds   bool
	}{
		{"empty", 0, 2, false, false},
		{"one row", 1, 3, false, false},
		{"holdout, one block", projectedBlock - 1, 10, false, false},
		{"holdout, many blocks", 5*projectedBlock + 17, 10, false, false},
		{"folds, many blocks", 3*projectedBlock + 1, 4, true, false},
		{"mds, fit rows only", 2*projectedBlock + 5, 2, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := projectedPlan(c.rows, c.folds, rng)
			zr := c.rows
			if c.mds {
				zr = len(p.fitRows)
			}
			z := mat.NewDense(max(zr, 1), c.d+1, nil) // one column more than written, as a model's Projected may have
			for i := range z.RawMatrix().Data {
				if rng.IntN(10) == 0 {
					z.RawMatrix().Data[i] = special[rng.IntN(len(special))]
				} else {
					z.RawMatrix().Data[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(40)-20))
				}
			}
			if zr == 0 {
				z = &mat.Dense{}
				if c.rows == 0 {
					z = mat.NewDense(1, c.d+1, nil).Slice(0, 0, 0, c.d+1).(*mat.Dense)
				}
			}
			var got, want bytes.Buffer
			if err := derivedCSV(&got, p, z, c.d); err != nil {
				t.Fatalf("derivedCSV: got %v, want no error", err)
			}
			if err := projectedCSV(&want, p, z, c.d); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				i := 0
				for i < min(got.Len(), want.Len()) && got.Bytes()[i] == want.Bytes()[i] {
					i++
				}
				t.Fatalf("got %d bytes, want encoding/csv's %d; first difference at byte %d: got %q, want %q", got.Len(), want.Len(), i,
					got.Bytes()[i:min(i+40, got.Len())], want.Bytes()[i:min(i+40, want.Len())])
			}
			checkProjectedRead(t, p, z, c.d)
			if c.rows > 0 {
				if err := derivedCSV(&failWriter{n: 2}, p, z, c.d); err != io.ErrShortWrite {
					t.Errorf("a writer failing its 2nd write (the first rows): got %v, want io.ErrShortWrite", err)
				}
				if err := writeProjectedRows(&failWriter{n: 2}, p, z, c.d); err != io.ErrShortWrite {
					t.Errorf("FileProjectedRows to a writer failing its 2nd write: got %v, want io.ErrShortWrite", err)
				}
			}
		})
	}
}

// checkProjectedRead reads FileProjectedRows of z back, all components
// and two of them, and compares them with the rows as projectedCSV
// writes them.
func checkProjectedRead(t *testing.T, p *plan, z *mat.Dense, d int) {
	t.Helper()
	var bin bytes.Buffer
	if err := writeProjectedRows(&bin, p, z, d); err != nil {
		t.Fatal(err)
	}
	order := p.rowOrder()
	if zr, _ := z.Dims(); zr == len(p.fitRows) && zr != len(p.rowSplit) {
		order = p.fitRows
		z = expandRows(z, p.fitRows, len(p.rowSplit))
	}
	f, err := openProjected(bytes.NewReader(bin.Bytes()), int64(bin.Len()))
	if err != nil {
		t.Fatal(err)
	}
	for _, cols := range [][]int{nil, {d - 1, 0}} {
		got, err := f.read(cols)
		if err != nil {
			t.Fatalf("components %v: %v", cols, err)
		}
		if cols == nil {
			cols = seq(0, d)
		}
		if len(got.Row) != len(order) || len(got.Coords) != len(order) || (p.rowFold != nil) != (got.Fold != nil) {
			t.Fatalf("components %v: got %d rows (%d coordinates, folds %v), want %d (folds %v)", cols, len(got.Row), len(got.Coords), got.Fold != nil, len(order), p.rowFold != nil)
		}
		for k, i := range order {
			if got.Row[k] != p.rowNumber[i] || got.Split[k] != p.rowSplit[i] || (got.Fold != nil && got.Fold[k] != p.rowFold[i]) {
				t.Fatalf("row %d: got number %d, part %s, want %d, %s", k+1, got.Row[k], got.Split[k], p.rowNumber[i], p.rowSplit[i])
			}
			for j, c := range cols {
				if g, w := math.Float64bits(got.Coords[k][j]), math.Float64bits(z.At(i, c)); g != w {
					t.Fatalf("row %d, component %d: got %v, want %v", k+1, c+1, got.Coords[k][j], z.At(i, c))
				}
			}
		}
	}
	if _, err := f.read([]int{d}); err == nil {
		t.Errorf("component %d of %d: got no error", d+1, d)
	}
	// A file cut short or grown is refused, not read.
	for _, size := range []int{bin.Len() - 1, bin.Len() + 8} {
		b := append(bytes.Clone(bin.Bytes()), make([]byte, 8)...)[:size]
		if _, err := openProjected(bytes.NewReader(b), int64(size)); !errors.Is(err, errBadProjected) {
			t.Errorf("%d bytes of %d: got %v, want errBadProjected", size, bin.Len(), err)
		}
	}
}

// BenchmarkWriteProjected writes the projected rows of 50 000 rows × 10
// components, a pca job's on the 50 000 × 500 data of benchcmp's end-to-end rows: as
// encoding/csv, as FileProjectedRows and then projected.csv derived from
// it (a first download), and as FileProjectedRows alone (a job):
//
//	go test -run '^$' -bench WriteProjected ./internal/jobs/
func BenchmarkWriteProjected(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	p := projectedPlan(50000, false, rng)
	z := mat.NewDense(50000, 10, nil)
	for i := range z.RawMatrix().Data {
		z.RawMatrix().Data[i] = rng.NormFloat64()
	}
	for _, c := range []struct {
		name  string
		write func(io.Writer, *plan, *mat.Dense, int) error
	}{{"encoding-csv", projectedCSV}, {"derived", derivedCSV}, {"binary", writeProjectedRows}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if err := c.write(io.Discard, p, z, 10); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
