package dataset

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// The labels at the end of a loading: their kind (multi-label or
// multi-dimensional) decided from the values each label column holds, Y
// made in place of the interned codes, and the categories of class
// variables in their order.

// labels decides the kind and builds Y.
func (b *builder) labels(ds *Dataset) error {
	var labelCols []*column
	for i := range b.cols {
		if b.cols[i].role == roleLabel {
			labelCols = append(labelCols, &b.cols[i])
		}
	}
	q := len(labelCols)
	binary := make([][]float64, q) // per column: code → 0/1, nil if not binary
	allBinary := true
	for j, c := range labelCols {
		var fam uint8 = 0xff
		m := make([]float64, len(c.text.values))
		for k, v := range c.text.values {
			var f uint8
			m[k], f = binaryValue(v)
			fam &= f
		}
		if fam != 0 {
			binary[j] = m
		} else {
			allBinary = false
		}
	}
	kind := b.opts.Kind
	if kind == "" {
		kind = MultiDim
		if allBinary {
			kind = MultiLabel
		} else if w := strayLabelValues(labelCols, binary, b.labelCodes, b.rows); w != nil {
			b.warnings = append(b.warnings, w...)
		} else if w := binaryLookalike(labelCols, binary); w != "" {
			b.warnings = append(b.warnings, w)
		}
	}
	ds.Kind = kind
	// Y takes the codes' memory: each code is read, then its value written.
	y := mat.NewDense(b.rows, q, slices.Clip(b.labelCodes[:b.rows*q]))
	yd := y.RawMatrix().Data
	var constant, labelNames []string
	for j, c := range labelCols {
		name := labelName(c.name, b.opts.prefix())
		labelNames = append(labelNames, name)
		var m []float64
		if kind == MultiLabel {
			if binary[j] == nil {
				return nonBinaryLabel(c)
			}
			m = binary[j]
		} else {
			cats, order := categoryOrder(c)
			ds.Categories = append(ds.Categories, cats)
			m = order
		}
		seen := make([]bool, 2)
		var distinct int
		for i := range b.rows {
			v := m[int(yd[i*q+j])]
			yd[i*q+j] = v
			if kind == MultiLabel && !seen[int(v)] {
				seen[int(v)] = true
				distinct++
			}
		}
		if kind == MultiDim {
			distinct = len(c.text.values)
		}
		if distinct < 2 {
			constant = append(constant, name)
		}
	}
	ds.Y = y
	ds.Labels = ListNames(labelNames)
	if len(constant) > 0 {
		b.warnings = append(b.warnings, fmt.Sprintf("%d labels are constant (the same value in every row) and carry no information: %s.",
			len(constant), quoteList(constant, 10)))
	}
	b.labelCodes = nil
	return nil
}

// binaryLookalike explains an automatic multi-dimensional decision when
// every label column has at most two values, so the user may have meant
// binary labels with an unusual code (e.g. 1/2 or 0/−1).
func binaryLookalike(cols []*column, binary [][]float64) string {
	for _, c := range cols {
		if len(c.text.values) > 2 {
			return ""
		}
	}
	for j, c := range cols {
		if binary[j] == nil {
			return fmt.Sprintf("The labels were read as multi-dimensional class variables because column %s holds {%s}, "+
				"which is not a binary code (0/1, ±1, true/false, yes/no); recode it, or choose kind=multilabel to be told where.",
				quote(c.name), strings.Join(cutAll(c.text.values), ", "))
		}
	}
	return ""
}

func labelName(col, prefix string) string {
	if n, ok := strings.CutPrefix(col, prefix); ok && n != "" {
		return n
	}
	return col
}

func nonBinaryLabel(c *column) error {
	values := c.text.values
	for k, v := range values {
		if _, f := binaryValue(v); f == 0 {
			return &InputError{Line: c.text.firstLine[k], Column: c.name, Field: "kind", Msg: fmt.Sprintf(
				"%s is not a binary label value (0/1, ±1, true/false or yes/no), so the data cannot be multi-label; "+
					"choose kind=multidim for categorical class variables", quote(v))}
		}
	}
	// Every value is binary on its own, but they mix codes (e.g. 0 and -1):
	// report the first value that shares no code family with those before it.
	mixed := len(values) - 1
	var fam uint8 = 0xff
	for k, v := range values {
		_, f := binaryValue(v)
		if fam &= f; fam == 0 {
			mixed = k
			break
		}
	}
	return &InputError{Line: c.text.firstLine[mixed], Column: c.name, Field: "kind", Msg: fmt.Sprintf(
		"the label values {%s} mix binary codes; use one of 0/1, ±1, true/false or yes/no per column", strings.Join(cutAll(values), ", "))}
}

// categoryOrder returns the categories of a class variable in their order
// (declared order for ARFF, numeric when all are numbers, else text order)
// and the map from intern code to category index.
func categoryOrder(c *column) ([]string, []float64) {
	vals := c.text.values
	idx := make([]int, len(vals))
	for i := range idx {
		idx[i] = i
	}
	rank := func(i int) (float64, bool) {
		return numberValue(vals[i])
	}
	numeric := true
	for i := range vals {
		if _, ok := rank(i); !ok {
			numeric = false
		}
	}
	switch {
	case c.declared != nil:
		pos := make(map[string]int, len(c.declared))
		for i, d := range c.declared {
			pos[d] = i
		}
		slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(pos[vals[a]], pos[vals[b]]) })
	case numeric:
		slices.SortFunc(idx, func(a, b int) int {
			fa, _ := rank(a)
			fb, _ := rank(b)
			return cmp.Compare(fa, fb)
		})
	default:
		slices.SortFunc(idx, func(a, b int) int { return strings.Compare(vals[a], vals[b]) })
	}
	cats := make([]string, len(vals))
	order := make([]float64, len(vals))
	for k, i := range idx {
		cats[k] = vals[i]
		order[i] = float64(k)
	}
	return cats, order
}
