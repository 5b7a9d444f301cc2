package jobs

import (
	"encoding/csv"
	"io"
	"runtime"
	"strconv"
	"sync"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/export"
)

// projectedBlock is how many rows of projected.csv one goroutine formats
// at a time.
const projectedBlock = 2048

// writeProjected writes projected.csv: row (1-based, in its data set),
// split (train, test or all), with folds the fold the row is tested in
// (empty for a row no predefined fold tests), then c1…cd; the training
// rows first, then the test rows.
//
// The bytes are those encoding/csv writes (no field of it needs quotes:
// numbers, part names and empty folds), made faster: blocks of rows are
// formatted on every core, at most two blocks a core in memory at once,
// and written in order as they come.
func writeProjected(w io.Writer, p *plan, z *mat.Dense, d int) error {
	var order []int
	if zr, _ := z.Dims(); zr == len(p.fitRows) && zr != len(p.rowSplit) { // mds: fit rows only
		order = p.fitRows
		z = expandRows(z, p.fitRows, len(p.rowSplit))
	} else {
		order = p.rowOrder()
	}
	cw := csv.NewWriter(w)
	rec := []string{"row", "split"}
	if p.rowFold != nil {
		rec = append(rec, "fold")
	}
	rec = append(rec, export.ComponentNames(d)...)
	for i, name := range rec {
		rec[i] = export.SafeCell(name) // fixed names, but one rule for every CSV
	}
	if err := cw.Write(rec); err != nil {
		return err
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	format := func(rows []int, b []byte) []byte {
		for _, i := range rows {
			b = strconv.AppendInt(b, int64(p.rowNumber[i]), 10)
			b = append(b, ',')
			b = append(b, p.rowSplit[i]...)
			if p.rowFold != nil {
				b = append(b, ',')
				if p.rowFold[i] > 0 {
					b = strconv.AppendInt(b, int64(p.rowFold[i]), 10)
				}
			}
			for _, v := range z.RawRowView(i)[:d] {
				b = append(b, ',')
				b = strconv.AppendFloat(b, v, 'g', -1, 64)
			}
			b = append(b, '\n')
		}
		return b
	}
	workers := runtime.GOMAXPROCS(0)
	if workers == 1 || len(order) <= projectedBlock {
		var b []byte
		for from := 0; from < len(order); from += projectedBlock {
			b = format(order[from:min(from+projectedBlock, len(order))], b[:0])
			if _, err := w.Write(b); err != nil {
				return err
			}
		}
		return nil
	}
	// Blocks go out in order: each has its own channel, queued in order;
	// the queue's capacity bounds the blocks formatted ahead.
	type block struct {
		rows []int
		out  chan []byte
	}
	queue := make(chan chan []byte, 2*workers)
	work := make(chan block)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for bl := range work {
				bl.out <- format(bl.rows, make([]byte, 0, 24*(d+2)*len(bl.rows)))
			}
		})
	}
	go func() {
		defer close(queue)
		defer close(work)
		for from := 0; from < len(order); from += projectedBlock {
			out := make(chan []byte, 1)
			queue <- out
			work <- block{rows: order[from:min(from+projectedBlock, len(order))], out: out}
		}
	}()
	var err error
	for out := range queue {
		b := <-out
		if err == nil {
			_, err = w.Write(b)
		}
	}
	wg.Wait()
	return err
}
