package dataset

import (
	"encoding/binary"
	"sync/atomic"
)

// Summary describes a data set for people: its size, its labels and what the
// loader warned about. It is what the API returns for a data set.
type Summary struct {
	Rows     int      `json:"rows"`
	Features int      `json:"features"`
	Labels   []string `json:"labels"`
	Kind     Kind     `json:"kind"`
	// Storage says how the features are stored: StorageDense or
	// StorageSparse ("" in records made before sparse storage existed).
	Storage Storage `json:"storage,omitempty"`
	// NonZeros counts the feature cells that are not zero, and Density is
	// NonZeros / (Rows·Features).
	NonZeros int64   `json:"nonzeros"`
	Density  float64 `json:"density"`
	// LabelCardinality is the mean number of labels per row and
	// LabelDensity that divided by q; both are nil for MultiDim data.
	LabelCardinality *float64 `json:"label_cardinality"`
	LabelDensity     *float64 `json:"label_density"`
	// DistinctLabelsets counts the distinct rows of Y.
	DistinctLabelsets int `json:"distinct_labelsets"`
	// LabelStats has one entry per label or class variable.
	LabelStats []LabelStat `json:"label_stats"`
	Warnings   []string    `json:"warnings"`
}

// LabelStat describes one label (MultiLabel) or class variable (MultiDim).
type LabelStat struct {
	Name string `json:"name"`
	// Count is the number of rows that have the label (MultiLabel), or the
	// number of rows of the most frequent class (MultiDim).
	Count int `json:"count"`
	// Frequency is Count / Rows.
	Frequency float64 `json:"frequency"`
	// Constant is true when the label never varies.
	Constant bool `json:"constant"`
	// Classes counts each category, in category order (MultiDim only).
	Classes []ClassCount `json:"classes,omitempty"`
}

// ClassCount is the number of rows in one category of a class variable.
type ClassCount struct {
	Value string `json:"value"`
	Count int    `json:"count"`
}

// Summarize computes the Summary of d in one pass over Y (and, for dense
// features, one over X to count the zeros). Its memory beyond the summary
// grows with the distinct label sets and the labels they hold, not with
// N·q.
func Summarize(d *Dataset) Summary {
	n, nf := d.featureDims()
	_, q := d.Y.Dims()
	s := Summary{Rows: n, Features: nf, Labels: d.Labels, Kind: d.Kind, Warnings: d.Warnings}
	s.Storage, s.NonZeros = StorageDense, nonZeros(d)
	if d.Sparse != nil {
		s.Storage = StorageSparse
	}
	if n > 0 && nf > 0 {
		s.Density = float64(s.NonZeros) / (float64(n) * float64(nf))
	}
	if s.Warnings == nil {
		s.Warnings = []string{}
	}
	counts := make([][]int, q)
	for j := range q {
		k := 2
		if d.Kind == MultiDim {
			k = len(d.Categories[j])
		}
		counts[j] = make([]int, k)
	}
	// A row's label set is keyed by the indices of its labels
	// (multi-label: a few bytes for a few labels, whatever q) or by its
	// classes (multi-dimensional, q small).
	sets := make(map[string]struct{})
	var key []byte
	total := 0
	for i := range n {
		key = key[:0]
		for j, x := range d.Y.RawRowView(i)[:q] {
			v := int(x)
			counts[j][v]++
			total += v
			switch {
			case d.Kind == MultiDim:
				key = binary.AppendUvarint(key, uint64(v))
			case v != 0:
				key = binary.AppendUvarint(key, uint64(j))
			}
		}
		sets[string(key)] = struct{}{}
	}
	s.DistinctLabelsets = len(sets)
	for j := range q {
		st := LabelStat{Name: d.Labels[j]}
		distinct := 0
		for _, c := range counts[j] {
			if c > 0 {
				distinct++
			}
		}
		st.Constant = distinct < 2
		if d.Kind == MultiLabel {
			st.Count = counts[j][1]
		} else {
			for c, cnt := range counts[j] {
				st.Classes = append(st.Classes, ClassCount{Value: d.Categories[j][c], Count: cnt})
				st.Count = max(st.Count, cnt)
			}
		}
		st.Frequency = float64(st.Count) / float64(n)
		s.LabelStats = append(s.LabelStats, st)
	}
	if d.Kind == MultiLabel && n > 0 {
		card := float64(total) / float64(n)
		dens := card / float64(max(q, 1))
		s.LabelCardinality, s.LabelDensity = &card, &dens
	}
	return s
}

// nonZeros counts the feature cells of d that are not zero (-0 is zero).
func nonZeros(d *Dataset) int64 {
	var nz int64
	if d.Sparse != nil {
		for _, v := range d.Sparse.Val {
			if v != 0 {
				nz++
			}
		}
		return nz
	}
	raw := d.X.RawMatrix()
	var total atomic.Int64
	inParts(raw.Rows, raw.Cols, func(lo, hi int) {
		var nz int64
		for i := lo; i < hi; i++ {
			for _, v := range raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols] {
				if v != 0 {
					nz++
				}
			}
		}
		total.Add(nz)
	})
	return total.Load()
}
