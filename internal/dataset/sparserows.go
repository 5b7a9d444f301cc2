package dataset

import "math"

// A sparse ARFF row ("{index value, …}") gives a few cells; every other
// column holds its default: 0 for a numeric attribute, the first declared
// value for a nominal one. addSparseRow reads it at the cost of what it
// gives, not of the columns the file declares: it reads the cells given,
// and of the others only those every row must keep something of (the
// labels, text features, and numeric features whose default is not 0).
// The builder holds such rows sparse from the first one, when the
// features may be held sparse at all, and decides at sizeRows rows
// whether to keep them so, as it does for dense rows; so a file of a few
// entries a row over a million declared columns is never a dense matrix.
// What it keeps is exactly what addRow keeps of the same row written out
// in full.

// sparseCell is one cell of a sparse row: its column and its text.
type sparseCell struct {
	col int
	val []byte
}

// setDefaults records each column's value in a sparse row that does not
// give it, and which columns every sparse row must read.
func (b *builder) setDefaults(defaults [][]byte) {
	b.defaults = defaults
	b.stamp = make([]int, len(b.cols))
	for i := range b.cols {
		c := &b.cols[i]
		switch {
		case c.role == roleDrop:
			continue
		case c.role == roleLabel || c.text != nil:
			b.always = append(b.always, i)
			continue
		}
		v, ok, _, _ := parseNumber(trimSpace(defaults[i]))
		switch {
		case !ok:
			b.always = append(b.always, i) // checked (and refused) as addRow would
		case !storedZero(v) || (c.declared != nil && !declared(c.declared, defaults[i])):
			b.always = append(b.always, i)
		}
	}
}

// addSparseRow adds one sparse row that started on line: cells, in the
// order of their columns (each column at most once), and every other
// column's default.
func (b *builder) addSparseRow(line int, cells []sparseCell) error {
	for _, c := range cells {
		if len(c.val) > MaxCell {
			return longCellError(line, b.cols[c.col].name, len(c.val))
		}
	}
	if b.rows == 0 && b.dropped == 0 && !b.decided && b.sp == nil && b.sparseEligible() {
		// Sparse rows are held sparse until the storage is decided.
		b.sp = newSparseRows()
	}
	b.stampNow++
	for _, c := range cells {
		b.stamp[c.col] = b.stampNow
	}
	rc := b.newRowCheck(line)
	// The cells to read, in column order: those given, and the columns
	// every row reads (merged; a column in both is read once).
	b.visit = b.visit[:0]
	k := 0
	for _, i := range b.always {
		for k < len(cells) && cells[k].col < i {
			b.visit = append(b.visit, cells[k])
			k++
		}
		if b.stamp[i] != b.stampNow {
			b.visit = append(b.visit, sparseCell{col: i, val: b.defaults[i]})
		}
	}
	b.visit = append(b.visit, cells[k:]...)
	b.rowValues = b.rowValues[:0]
	for _, cell := range b.visit {
		c := &b.cols[cell.col]
		if c.role == roleDrop {
			continue
		}
		v, isNumber, err := rc.cell(c, trimSpace(cell.val))
		if err != nil {
			return err
		}
		if isNumber {
			b.rowValues = append(b.rowValues, slotValue{slot: c.slot, v: v})
		}
	}
	if rc.dropRow {
		b.dropRow(line)
		return nil
	}
	// Commit the row: its values are in slot order, as their columns are.
	if b.sp != nil {
		for _, sv := range b.rowValues {
			if !storedZero(sv.v) {
				b.sp.ind = append(b.sp.ind, int32(sv.slot))
				b.sp.val = append(b.sp.val, sv.v)
			}
		}
		b.sp.ptr = append(b.sp.ptr, int64(len(b.sp.val)))
	} else {
		clear(b.scratch)
		for _, sv := range b.rowValues {
			b.scratch[sv.slot] = sv.v
		}
		b.raw = append(b.raw, b.scratch...)
		b.nnz += nnzOf(b.scratch)
	}
	vals := b.rowValues
	for _, cell := range b.visit {
		c := &b.cols[cell.col]
		if c.role == roleDrop {
			continue
		}
		v := math.NaN()
		if c.role == roleFeature && c.text == nil {
			v, vals = vals[0].v, vals[1:]
		}
		b.commitCell(line, c, trimSpace(cell.val), v)
	}
	return b.endRow()
}

// slotValue is a numeric feature's value in a row and its slot.
type slotValue struct {
	slot int
	v    float64
}
