package export

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"

	"gonum.org/v1/gonum/mat"
)

// SafeCell returns the text s as a CSV cell that a spreadsheet shows as
// text. Excel, LibreOffice Calc and Google Sheets read a cell that starts
// with '=', '+', '-', '@', a tab or a carriage return as a formula (CSV
// injection: "=HYPERLINK(…)" becomes a link, "=cmd|…" may run a command),
// so such a cell gets a leading "'", which they take as "this is text" and
// do not show. A number ("-1.5", "+2", "-Inf") is returned as it is, as is
// any other cell. Every CSV the product writes for download passes its
// names and text cells through SafeCell.
func SafeCell(s string) string {
	if s == "" {
		return s
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r':
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			return s
		}
		return "'" + s
	}
	return s
}

// appendSafe appends SafeCell of each of cells to rec.
func appendSafe(rec []string, cells ...string) []string {
	for _, c := range cells {
		rec = append(rec, SafeCell(c))
	}
	return rec
}

// WriteMatrixCSV writes the r×c matrix m to w as CSV (encoding/csv: RFC 4180
// quoting, "\n" line ends). The header is first followed by colNames; then
// comes one line per row: rowNames[i] followed by the row's values, each in
// the shortest form that parses back to the same float64
// (strconv.FormatFloat(v, 'g', -1, 64); NaN and ±Inf are written as "NaN",
// "+Inf" and "-Inf", which strconv.ParseFloat reads back).
//
// Names pass through SafeCell, so a name such as "=HYPERLINK(…)" is written
// "'=HYPERLINK(…)".
//
// If rowNames is nil there is no name column and first is ignored; a non-nil
// rowNames must hold r names, and colNames must hold c names. projection.csv,
// for instance, is WriteMatrixCSV(w, featureNames, ComponentNames(d), "name", P).
//
// It returns an error if the lengths do not match, if rowNames is nil and m
// has no columns (every line would be empty, which CSV readers skip), or if
// writing to w fails.
func WriteMatrixCSV(w io.Writer, rowNames, colNames []string, first string, m mat.Matrix) error {
	r, c := m.Dims()
	if len(colNames) != c {
		return fmt.Errorf("export: writing CSV: got %d column names for %d columns", len(colNames), c)
	}
	named := rowNames != nil
	if named && len(rowNames) != r {
		return fmt.Errorf("export: writing CSV: got %d row names for %d rows", len(rowNames), r)
	}
	if !named && c == 0 {
		return errors.New("export: writing CSV: no row names and no columns, so every line would be empty")
	}

	cw := csv.NewWriter(w)
	rec := make([]string, 0, c+1)
	if named {
		rec = appendSafe(rec, first)
	}
	rec = appendSafe(rec, colNames...)
	if err := cw.Write(rec); err != nil {
		return fmt.Errorf("export: writing the CSV header: %w", err)
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("export: writing CSV: %w", err)
	}
	// The rows are formatted a chunk at a time on every core (InOrder),
	// each chunk by its own csv.Writer into its own buffer.
	format := func(lo, hi int, dst []byte) ([]byte, error) {
		buf := bytes.NewBuffer(dst)
		cw := csv.NewWriter(buf)
		rec := make([]string, 0, c+1)
		for i := lo; i < hi; i++ {
			rec = rec[:0]
			if named {
				rec = appendSafe(rec, rowNames[i])
			}
			for j := range c {
				rec = append(rec, strconv.FormatFloat(m.At(i, j), 'g', -1, 64))
			}
			if err := cw.Write(rec); err != nil {
				return nil, fmt.Errorf("export: writing CSV row %d: %w", i+1, err)
			}
		}
		cw.Flush()
		return buf.Bytes(), cw.Error()
	}
	return InOrder(r, csvChunk, format, func(b []byte) error {
		if _, err := w.Write(b); err != nil {
			return fmt.Errorf("export: writing CSV: %w", err)
		}
		return nil
	})
}

// csvChunk is how many rows WriteMatrixCSV formats on one goroutine at a
// time.
const csvChunk = 512
