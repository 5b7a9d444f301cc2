package explore

import "mldr/internal/dataset"

// Sets lists the distinct label sets (class combinations) of the view's
// rows as Colours' "set" does, most frequent first (ties by name), with
// their counts, and gives each row's set as an index into them: what
// Values("set") gives, with the sets it indexes, in one pass.
func (v *View) Sets() (sets []string, counts []int, of []int) {
	sets, counts = v.sets()
	at := make(map[string]int, len(sets))
	for i, s := range sets {
		at[s] = i
	}
	of = make([]int, v.Rows())
	for i := range of {
		of[i] = at[v.setKey(i)]
	}
	return sets, counts, of
}

// Classes returns row's class of each class variable, as indices into
// Categories; nil for multi-label data.
func (v *View) Classes(row int) []int {
	if v.Kind != dataset.MultiDim {
		return nil
	}
	has := v.has(row)
	out := make([]int, len(has))
	for j, l := range has {
		out[j] = int(l) - v.offset[j]
	}
	return out
}
