package dataset

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"

	"mldr/internal/export"
)

// WriteCSV writes d as CSV that Load reads back to the same data set (a
// sparse data set as the same dense table, zeros written "0"): a
// header of the feature names and the label names prefixed with
// DefaultLabelPrefix, then one line per row. Features are written in the
// shortest form that round-trips; labels as 0/1 (MultiLabel) or as their
// category (MultiDim). Names and categories pass through export.SafeCell,
// so one that a spreadsheet would take for a formula ("=SUM(…)", "-x",
// "@a") is written, and read back, with a leading "'".
func WriteCSV(w io.Writer, d *Dataset) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	cw := csv.NewWriter(bw)
	nf, nl := d.Features.Len(), d.Labels.Len()
	rec := make([]string, 0, nf+nl)
	for j := range nf {
		rec = append(rec, export.SafeCell(d.Features.At(j)))
	}
	for j := range nl {
		rec = append(rec, export.SafeCell(DefaultLabelPrefix+d.Labels.At(j)))
	}
	if err := cw.Write(rec); err != nil {
		return fmt.Errorf("writing the CSV header: %w", err)
	}
	for i := range d.Rows() {
		rec = rec[:0]
		if d.Sparse != nil {
			// The cells a sparse row leaves out are zeros.
			for range nf {
				rec = append(rec, "0")
			}
			ind, val := d.Sparse.Row(i)
			for k, j := range ind {
				rec[j] = strconv.FormatFloat(val[k], 'g', -1, 64)
			}
		} else {
			for j := range nf {
				rec = append(rec, strconv.FormatFloat(d.X.At(i, j), 'g', -1, 64))
			}
		}
		if d.YSparse != nil {
			start := len(rec)
			for range nl {
				rec = append(rec, "0")
			}
			ind, _ := d.YSparse.Row(i)
			for _, j := range ind {
				rec[start+int(j)] = "1"
			}
		} else {
			for j := range nl {
				v := int(d.Y.At(i, j))
				if d.Kind == MultiDim {
					rec = append(rec, export.SafeCell(d.Categories[j][v]))
				} else {
					rec = append(rec, strconv.Itoa(v))
				}
			}
		}
		if err := cw.Write(rec); err != nil {
			return fmt.Errorf("writing CSV row %d: %w", i+1, err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("writing CSV: %w", err)
	}
	return bw.Flush()
}
