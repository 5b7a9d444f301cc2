package dataset

import (
	"fmt"
	"strings"
)

// When the kind is decided from the values, one stray value in a label
// column (a single 2 among 0/1) makes the whole data set multi-dimensional.
// The rule stays; the loader warns when that is what happened: when every
// label column that is not binary is a binary code except for a few cells.
const (
	// strayMaxValues is the most distinct stray values a column may hold.
	strayMaxValues = 3
	// strayMaxCells is the most stray cells a column may hold whatever its
	// length; strayMaxShare the share of its cells they may be beyond that.
	strayMaxCells = 3
	strayMaxShare = 0.01
	// strayMinCode is the share of a column's cells its binary code must
	// hold in any case, so that a short column is not "binary except for"
	// a third of it.
	strayMinCode = 0.9
	// strayMaxColumns is how many columns the warnings name one by one.
	strayMaxColumns = 5
)

// binaryCodes is how many families of binary codes binaryValue knows.
const binaryCodes = 4

// codeName names family f of binaryValue.
func codeName(f int) string {
	return [binaryCodes]string{"0/1", "±1", "true/false", "yes/no"}[f]
}

// strayLabelValues returns warnings, one per column (at most
// strayMaxColumns, then one for the rest), when the data were read as
// multi-dimensional only because of a few stray values: every label column
// that is not binary (binary[j] == nil) holds one binary code except for at
// most strayMaxValues distinct values in at most strayMaxCells cells or
// fewer than strayMaxShare of its cells, the code holding at least
// strayMinCode of them. codes are the rows × len(cols) intern codes of the
// label cells, row-major. Nil when some column is not so (the data are
// multi-dimensional whatever the stray values) or none is.
func strayLabelValues(cols []*column, binary [][]float64, codes []float64, rows int) []string {
	if rows == 0 {
		return nil
	}
	q := len(cols)
	var out []string
	n := 0
	for j, c := range cols {
		if binary[j] != nil {
			continue
		}
		// The candidate codes: those that leave few distinct values out.
		var candidates []int
		for f := range binaryCodes {
			off := 0
			for _, v := range c.text.values {
				if _, fam := binaryValue(v); fam&(1<<f) == 0 {
					off++
				}
			}
			if off <= strayMaxValues && off < len(c.text.values) {
				candidates = append(candidates, f)
			}
		}
		if len(candidates) == 0 {
			return nil
		}
		count := make([]int, len(c.text.values))
		for i := range rows {
			count[int(codes[i*q+j])]++
		}
		best, bestOff := -1, rows+1
		for _, f := range candidates {
			off := 0
			for k, v := range c.text.values {
				if _, fam := binaryValue(v); fam&(1<<f) == 0 {
					off += count[k]
				}
			}
			if off < bestOff {
				best, bestOff = f, off
			}
		}
		few := bestOff <= strayMaxCells || float64(bestOff) < strayMaxShare*float64(rows)
		if !few || float64(rows-bestOff) < strayMinCode*float64(rows) {
			return nil
		}
		if n++; n <= strayMaxColumns {
			out = append(out, strayWarning(c, best, count, bestOff))
		}
	}
	if n > strayMaxColumns {
		out = append(out, fmt.Sprintf("%d more label columns are binary except for a few cells; they too make the data set multi-dimensional.", n-strayMaxColumns))
	}
	return out
}

// strayWarning says that column c is binary code f except for its values
// outside f, count[k] cells of value k, off cells in all.
func strayWarning(c *column, f int, count []int, off int) string {
	var parts []string
	for k, v := range c.text.values {
		if _, fam := binaryValue(v); fam&(1<<f) != 0 {
			continue
		}
		where := fmt.Sprintf("on line %d (1 cell)", c.text.firstLine[k])
		if count[k] > 1 {
			where = fmt.Sprintf("(%d cells, the first on line %d)", count[k], c.text.firstLine[k])
		}
		parts = append(parts, strayValue(v)+" "+where)
	}
	what, fix := "the value "+parts[0], "that value is a typo, fix it"
	if len(parts) > 1 {
		what = "the values " + strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
		fix = "those values are typos, fix them"
	}
	cells := ""
	if len(parts) > 1 {
		cells = fmt.Sprintf(" (%d cells)", off)
	}
	return fmt.Sprintf("Label column %s is %s except for %s%s, so the data set is read as multi-dimensional; "+
		"if %s and upload again (or choose kind=multidim to keep the classes as they are).", quote(c.name), codeName(f), what, cells, fix)
}

// strayValue writes a value as it is when it is a plain number or word,
// else quoted.
func strayValue(v string) string {
	for _, r := range v {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '.' || r == '-' || r == '+') {
			return quote(v)
		}
	}
	if v == "" {
		return quote(v)
	}
	return Cut(v)
}
