package dataset

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"gonum.org/v1/gonum/mat"
)

// The features at the end of a loading: mean imputation, text columns left
// out or one-hot encoded, X assembled from the raw rows (in place when it
// can be), and the warning of constant features.

// meanOf is the mean of column c's values over the rows that have one:
// c.sum, summed as the rows came, over the rows less c's missing values.
// The zeros sparse rows leave out are values too, and need not be added:
// a sum that starts at +0 is never -0, so adding +0 never changes it.
func (b *builder) meanOf(c *column) float64 {
	return c.sum / float64(b.rows-c.missing)
}

// outColumn is one column of the final X.
type outColumn struct {
	name string
	slot int         // raw slot for numeric columns
	text *textColumn // non-nil for indicator columns
	code int32       // the category this indicator column marks
}

// features imputes, encodes text columns and builds X.
func (b *builder) features(ds *Dataset) error {
	b.finishStorage()
	var out []outColumn
	var droppedText, encoded []string
	for i := range b.cols {
		c := &b.cols[i]
		if c.role != roleFeature {
			continue
		}
		if c.text == nil {
			if b.opts.missing() == MissingMean && c.missing > 0 {
				if c.missing == b.rows {
					return &InputError{Column: c.name, Field: "missing", Msg: "the column has no values at all, so its mean cannot replace the missing ones"}
				}
				if b.sp == nil {
					b.impute(c)
				}
			}
			out = append(out, outColumn{name: c.name, slot: c.slot})
			continue
		}
		if b.opts.nominal() == NominalDrop {
			droppedText = append(droppedText, c.name)
			continue
		}
		cols, err := oneHot(c)
		if err != nil {
			return err
		}
		encoded = append(encoded, c.name)
		out = append(out, cols...)
	}
	if b.sp != nil && b.imputed > 0 {
		b.sparseImpute()
	}
	if len(out) == 0 {
		return &InputError{Field: "nominal", Msg: fmt.Sprintf("no feature column is left: every feature column holds text (%s)", quoteList(droppedText, 5))}
	}
	if b.imputed > 0 {
		b.warnings = append(b.warnings, fmt.Sprintf("%d missing feature values were replaced by their column's mean.", b.imputed))
	}
	if len(droppedText) > 0 {
		b.warnings = append(b.warnings, fmt.Sprintf("%d text columns were left out (nominal=drop): %s.", len(droppedText), quoteList(droppedText, 10)))
	}
	if len(encoded) > 0 {
		b.warnings = append(b.warnings, fmt.Sprintf("%d text columns were one-hot encoded: %s.", len(encoded), quoteList(encoded, 10)))
	}
	names := make(map[string]bool, len(out))
	features := make([]string, 0, len(out))
	for _, o := range out {
		if names[o.name] {
			return &InputError{Column: o.name, Field: "nominal", Msg: "one-hot encoding made a column name that is already taken; rename the column"}
		}
		names[o.name] = true
		features = append(features, o.name)
	}
	ds.Features = ListNames(features)
	if b.sp != nil {
		// Sparse mode holds numeric columns only, each in its slot.
		ds.Sparse = b.sparseMatrix()
	} else {
		if len(out) != b.width { // a new matrix: the columns encoded or left out
			_, held := b.bytes()
			if err := b.opts.need(held+8*int64(b.rows)*int64(len(out)), int64(b.rows)); err != nil {
				return err
			}
		}
		ds.X = b.assemble(out)
	}
	b.raw = nil
	// Text columns keep the builder dense (sparseEligible); once they are
	// encoded or left out, the matrix is held sparse when the storage is
	// forced, or, as all-numeric data are, when it is sparse enough.
	if ds.X != nil && (b.opts.storage == StorageSparse ||
		(b.opts.storage == "" && b.opts.only == nil && len(droppedText)+len(encoded) > 0 && denseIsSparse(ds.X))) {
		ds.Sparse, ds.X = sparseFrom(ds.X), nil
	}
	b.zeroVariance(ds)
	return nil
}

func (b *builder) impute(c *column) {
	mean := b.meanOf(c)
	for r := range b.rows {
		if p := &b.raw[r*b.width+c.slot]; *p != *p {
			*p = mean
		}
	}
}

// oneHot makes the indicator columns of a text feature column.
func oneHot(c *column) ([]outColumn, error) {
	t := c.text
	if t.firstText != "" && t.numericRows > 0 && len(t.values) > MaxOneHotCategories {
		return nil, &InputError{Line: t.firstTextLine, Column: c.name, Field: "nominal", Msg: fmt.Sprintf(
			"the column holds numbers and text (%s): it cannot be one-hot encoded with %d distinct values; fix the value or drop the column", quote(t.firstText), len(t.values))}
	}
	if len(t.values) > MaxOneHotCategories {
		return nil, &InputError{Column: c.name, Field: "nominal", Msg: fmt.Sprintf(
			"the column has %d distinct values, too many to one-hot encode (at most %d): it looks like an identifier; leave it out with drop=%s",
			len(t.values), MaxOneHotCategories, c.name)}
	}
	cats := t.values
	if c.declared != nil {
		cats = c.declared
	}
	if yes, ok := yesNoPair(cats); ok {
		code, present := t.index[yes]
		if !present {
			code = -2 // never "yes": an all-zero column
		}
		return []outColumn{{name: c.name, text: t, code: code}}, nil
	}
	out := make([]outColumn, 0, len(cats))
	for _, v := range cats {
		code, ok := t.index[v]
		if !ok {
			code = -2 // declared but absent: an all-zero column
		}
		out = append(out, outColumn{name: c.name + "=" + v, text: t, code: code})
	}
	return out, nil
}

// yesNoPair reports whether one or two categories read as (part of) a
// yes/no pair, and which value means "yes" (it may be absent from values).
func yesNoPair(values []string) (string, bool) {
	if len(values) == 0 || len(values) > 2 {
		return "", false
	}
	pairs := [][2]string{{"yes", "no"}, {"true", "false"}, {"y", "n"}, {"t", "f"}}
	for _, p := range pairs {
		yes, all := "", true
		for _, v := range values {
			switch strings.ToLower(v) {
			case p[0]:
				yes = v
			case p[1]:
			default:
				all = false
			}
		}
		if all {
			if yes == "" {
				yes = p[0] // absent: no row says yes
			}
			return yes, true
		}
	}
	return "", false
}

// assemble builds X from the raw rows, in place when no column is added.
func (b *builder) assemble(out []outColumn) *mat.Dense {
	w := len(out)
	inPlace, same := w <= b.width, w == b.width
	for j, o := range out {
		if o.text != nil {
			inPlace = false
		}
		same = same && o.text == nil && o.slot == j
	}
	if same {
		// X is the raw rows as they are (the common case): nothing to move.
		b.xIsRaw = true
		return mat.NewDense(b.rows, w, slices.Clip(b.raw[:b.rows*w]))
	}
	var data []float64
	if inPlace {
		data = b.raw[:b.rows*w]
	} else {
		data = make([]float64, b.rows*w)
	}
	for r := range b.rows {
		src := b.raw[r*b.width : (r+1)*b.width]
		dst := data[r*w : (r+1)*w]
		for j, o := range out {
			if o.text == nil {
				dst[j] = src[o.slot]
			} else if o.text.codes[r] == o.code {
				dst[j] = 1
			} else {
				dst[j] = 0
			}
		}
	}
	return mat.NewDense(b.rows, w, slices.Clip(data))
}

func (b *builder) zeroVariance(ds *Dataset) {
	if ds.Sparse != nil {
		count, first := sparseConstant(ds.Sparse)
		b.warnConstant(ds.Features, count, first)
		return
	}
	n, d := ds.X.Dims()
	raw := ds.X.RawMatrix()
	first := raw.Data[:d]
	constant := make([]bool, d)
	for j := range constant {
		constant[j] = true
	}
	var mu sync.Mutex
	inParts(n, d, func(lo, hi int) {
		differs := make([]bool, d) // this part's rows against the first
		for i := max(lo, 1); i < hi; i++ {
			row := raw.Data[i*raw.Stride : i*raw.Stride+d]
			for j, v := range row {
				if v != first[j] {
					differs[j] = true
				}
			}
		}
		mu.Lock()
		defer mu.Unlock()
		for j, x := range differs {
			if x {
				constant[j] = false
			}
		}
	})
	count, firstConst := constantOf(constant)
	b.warnConstant(ds.Features, count, firstConst)
}

// constantOf counts the columns marked constant and returns the first
// firstConstant of them.
func constantOf(constant []bool) (count int, first []int) {
	for j, c := range constant {
		if c {
			count++
			if len(first) < firstConstant {
				first = append(first, j)
			}
		}
	}
	return count, first
}

// warnConstant warns of count constant features, the first of which are
// first.
func (b *builder) warnConstant(features Names, count int, first []int) {
	if w := constantFeatures(features, count, first); w != "" {
		b.warnings = append(b.warnings, w)
	}
}

// constantFeatures is the warning of count features that have zero
// variance, naming the first of them ("" when there are none).
func constantFeatures(features Names, count int, first []int) string {
	if count == 0 {
		return ""
	}
	names := make([]string, len(first))
	for k, j := range first {
		names[k] = features.At(j)
	}
	return fmt.Sprintf("%d features have zero variance (the same value in every row) and carry no information: %s.",
		count, quoteFirst(names, count))
}

// quoteFirst quotes names, the first of total, adding how many more there
// are.
func quoteFirst(names []string, total int) string {
	s := quoteList(names, len(names))
	if more := total - len(names); more > 0 {
		s += fmt.Sprintf(" and %d more", more)
	}
	return s
}
