package comparison

import (
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"

	"mldr/internal/export"
)

// AverageRankRow is the dataset cell of the row of comparison.csv that
// holds each comparison's average ranks.
const AverageRankRow = "average rank"

// WriteCSV writes f as comparison.csv: the header
// metric,d,percent,dataset,dataset_name,<m>_mean,<m>_std,… over the methods
// of all comparisons (in the order they first appear), then per comparison
// one row per data set with its means and standard deviations, and a last
// row whose dataset is "average rank" with the average ranks in the _mean
// columns. An undefined value, and d or percent when not set, is an empty
// cell; numbers are written in full (strconv 'g', shortest exact). Names
// pass through export.SafeCell.
func WriteCSV(w io.Writer, f File) error {
	var methods []string
	for _, c := range f.Comparisons {
		for _, m := range c.Methods {
			if !slices.Contains(methods, m) {
				methods = append(methods, m)
			}
		}
	}
	cw := csv.NewWriter(w)
	header := []string{"metric", "d", "percent", "dataset", "dataset_name"}
	for _, m := range methods {
		header = append(header, export.SafeCell(m+"_mean"), export.SafeCell(m+"_std"))
	}
	if err := cw.Write(header); err != nil {
		return fmt.Errorf("comparison: writing comparison.csv: %w", err)
	}
	for _, c := range f.Comparisons {
		d, pct := "", ""
		if c.D != nil {
			d = strconv.Itoa(*c.D)
		}
		if c.Percent != nil {
			pct = strconv.FormatFloat(*c.Percent, 'g', -1, 64)
		}
		lead := []string{export.SafeCell(c.Metric), d, pct}
		for i, id := range c.Datasets {
			rec := append(slices.Clone(lead), export.SafeCell(id), export.SafeCell(c.DatasetNames[i]))
			for _, m := range methods {
				j := slices.Index(c.Methods, m)
				if j < 0 {
					rec = append(rec, "", "")
					continue
				}
				rec = append(rec, cell(c.Scores[i][j]), cell(c.Std[i][j]))
			}
			if err := cw.Write(rec); err != nil {
				return fmt.Errorf("comparison: writing comparison.csv: %w", err)
			}
		}
		rec := append(slices.Clone(lead), AverageRankRow, "")
		for _, m := range methods {
			rec = append(rec, cell(c.AverageRanks[m]), "")
		}
		if err := cw.Write(rec); err != nil {
			return fmt.Errorf("comparison: writing comparison.csv: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("comparison: writing comparison.csv: %w", err)
	}
	return nil
}

// cell formats v for CSV: empty when nil.
func cell(v *float64) string {
	if v == nil {
		return ""
	}
	return strconv.FormatFloat(*v, 'g', -1, 64)
}
