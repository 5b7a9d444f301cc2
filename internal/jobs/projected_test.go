package jobs

import (
	"bytes"
	"encoding/csv"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/export"
)

// projectedCSV is projected.csv as encoding/csv writes it: the reference
// writeProjected must match byte for byte (downloads stay the same).
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

// failWriter fails its n-th write.
type failWriter struct{ n int }

func (f *failWriter) Write(b []byte) (int, error) {
	if f.n--; f.n == 0 {
		return 0, io.ErrShortWrite
	}
	return len(b), nil
}

// writeProjected's bytes are encoding/csv's, whatever the values (NaN,
// ±Inf, −0, subnormal, huge), the parts, the folds, the number of rows
// (one block or many) and mds's rows of the fit rows only; a failing
// writer's error comes back.
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
			if err := writeProjected(&got, p, z, c.d); err != nil {
				t.Fatalf("writeProjected: got %v, want no error", err)
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
			if c.rows > 0 {
				if err := writeProjected(&failWriter{n: 2}, p, z, c.d); err != io.ErrShortWrite {
					t.Errorf("a writer failing its 2nd write (the first rows): got %v, want io.ErrShortWrite", err)
				}
			}
		})
	}
}

// BenchmarkWriteProjected writes projected.csv of 50 000 rows × 10
// components, a pca job's on issue 15's stored 50 000 × 500 data:
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
	}{{"encoding-csv", projectedCSV}, {"writeProjected", writeProjected}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if err := c.write(io.Discard, p, z, 10); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
