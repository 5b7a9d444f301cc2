package dataset

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"mldr/internal/export"
)

// WriteCSV writes d as CSV that Load reads back to the same data set (a
// sparse data set as the same dense table, zeros written "0"): a
// header of the feature names and the label names prefixed with
// DefaultLabelPrefix, then one line per row. Features are written in the
// shortest form that round-trips; labels as 0/1 (MultiLabel) or as their
// category (MultiDim). Names and categories pass through export.SafeCell,
// so one that a spreadsheet would take for a formula ("=SUM(…)", "-x",
// "@a") is written, and read back, with a leading "'". Cells are written
// one by one (quoted as encoding/csv quotes them), so that the memory it
// takes does not grow with the width of a row; CSVCells says how large
// the text will be.
func WriteCSV(w io.Writer, d *Dataset) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	nf, nl := d.Features.Len(), d.Labels.Len()
	first := true
	cell := func(s string) {
		if !first {
			bw.WriteByte(',')
		}
		first = false
		writeField(bw, s)
	}
	endLine := func() { bw.WriteByte('\n'); first = true }
	for j := range nf {
		cell(export.SafeCell(d.Features.At(j)))
	}
	for j := range nl {
		cell(export.SafeCell(DefaultLabelPrefix + d.Labels.At(j)))
	}
	endLine()
	var num []byte
	number := func(v float64) {
		if !first {
			bw.WriteByte(',')
		}
		first = false
		num = strconv.AppendFloat(num[:0], v, 'g', -1, 64)
		bw.Write(num)
	}
	for i := range d.Rows() {
		if d.Sparse != nil {
			// The cells a sparse row leaves out are zeros.
			ind, val := d.Sparse.Row(i)
			k := 0
			for j := range nf {
				if k < len(ind) && int(ind[k]) == j {
					number(val[k])
					k++
				} else {
					number(0)
				}
			}
		} else {
			for _, v := range d.X.RawRowView(i) {
				number(v)
			}
		}
		switch {
		case d.YSparse != nil:
			ind, _ := d.YSparse.Row(i)
			k := 0
			for j := range nl {
				v := 0.0
				if k < len(ind) && int(ind[k]) == j {
					v = 1
					k++
				}
				number(v)
			}
		case d.Kind == MultiDim:
			for j, v := range d.Y.RawRowView(i) {
				cell(export.SafeCell(d.Categories[j][int(v)]))
			}
		default:
			for _, v := range d.Y.RawRowView(i) {
				number(v)
			}
		}
		endLine()
		if err := bw.Flush(); err != nil {
			return fmt.Errorf("writing CSV row %d: %w", i+1, err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing CSV: %w", err)
	}
	return nil
}

// writeField writes s as one CSV field, quoted as encoding/csv quotes it:
// when it holds a comma, a quote or a line break, starts with white
// space, or is `\.`.
func writeField(bw *bufio.Writer, s string) {
	r, _ := utf8.DecodeRuneInString(s)
	if s == "" || (!strings.ContainsAny(s, ",\"\r\n") && !unicode.IsSpace(r) && s != `\.`) {
		bw.WriteString(s)
		return
	}
	bw.WriteByte('"')
	for _, c := range []byte(s) {
		if c == '"' {
			bw.WriteByte('"')
		}
		bw.WriteByte(c)
	}
	bw.WriteByte('"')
}

// CSVCells is the number of cells WriteCSV writes for a data set of
// rows × (features + labels), its header included.
func CSVCells(rows, features, labels int) int64 {
	return (int64(rows) + 1) * (int64(features) + int64(labels))
}
