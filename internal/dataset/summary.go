package dataset

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
)

// Summary describes a data set for people in a bounded size, whatever its
// width: its shape, how it is stored, its label statistics as numbers and
// what the loader warned about. It is what every list of data sets shows
// and what a data set's record keeps; the lists that grow with the
// columns and labels (their names, each label's counts) are its Details.
type Summary struct {
	Rows     int `json:"rows"`
	Features int `json:"features"`
	// LabelCount is q, the number of labels or class variables.
	LabelCount int  `json:"label_count"`
	Kind       Kind `json:"kind"`
	// Storage says how the features are stored: StorageDense or
	// StorageSparse ("" in records made before sparse storage existed).
	Storage Storage `json:"storage,omitempty"`
	// LabelStorage says how the labels are stored: StorageSparse for
	// multi-label labels held sparse (Dataset.YSparse), else
	// StorageDense.
	LabelStorage Storage `json:"label_storage,omitempty"`
	// NonZeros counts the feature cells that are not zero, and Density is
	// NonZeros / (Rows·Features).
	NonZeros int64   `json:"nonzeros"`
	Density  float64 `json:"density"`
	// LabelOnes is Σ_i |y_i|, the labels the rows have (multi-label).
	LabelOnes int64 `json:"label_ones"`
	// LabelCardinality is the mean number of labels per row and
	// LabelDensity that divided by q; both are nil for MultiDim data.
	LabelCardinality *float64 `json:"label_cardinality"`
	LabelDensity     *float64 `json:"label_density"`
	// DistinctLabelsets counts the distinct rows of Y.
	DistinctLabelsets int `json:"distinct_labelsets"`
	// ConstantLabels counts the labels (class variables) that hold one
	// value in every row.
	ConstantLabels int `json:"constant_labels"`
	// Classes is Σ_j K_j, the classes of all class variables, and
	// MaxClasses the largest K_j (MultiDim).
	Classes    int `json:"classes,omitempty"`
	MaxClasses int `json:"max_classes,omitempty"`
	// LabelsDigest is the SHA-256 of the label names in order, so that
	// two data sets' labels can be compared without reading them.
	LabelsDigest string `json:"labels_digest"`
	// Warnings are the loader's, each at most MaxWarningBytes long, at
	// most MaxWarnings of them.
	Warnings []string `json:"warnings"`
	// Spread compares the features' scales (nil when fewer than two
	// vary, and in records made before it existed).
	Spread *Spread `json:"spread,omitempty"`

	// LegacyLabels and LegacyStats are what records made before Details
	// existed held of every label; a store moves them into a details
	// file (LegacyDetails, Upgrade) and leaves them empty.
	LegacyLabels []string    `json:"labels,omitempty"`
	LegacyStats  []LabelStat `json:"label_stats,omitempty"`
}

// Legacy reports whether s is a summary of a record made before Details
// existed, whose lists LegacyDetails and Upgrade move out of it.
func (s Summary) Legacy() bool { return s.LabelsDigest == "" }

// LegacyDetails are the Details of a data set whose record was made
// before Details existed, from the lists its record held.
func LegacyDetails(s Summary, columns, labelColumns []string) *Details {
	d := &Details{Kind: s.Kind, Rows: s.Rows, Columns: columns, LabelColumns: labelColumns, Labels: ListNames(s.LegacyLabels)}
	if s.Kind == MultiDim {
		d.Classes = make([][]ClassCount, len(s.LegacyLabels))
		for j := range d.Classes {
			if j < len(s.LegacyStats) {
				d.Classes[j] = s.LegacyStats[j].Classes
			}
		}
		return d
	}
	for j, st := range s.LegacyStats {
		if st.Count > 0 && j < len(s.LegacyLabels) {
			d.used = append(d.used, int32(j))
			d.count = append(d.count, int32(st.Count))
		}
	}
	return d
}

// Upgrade makes the legacy summary s one of today's from its details d
// (LegacyDetails), leaving its lists out.
func (s Summary) Upgrade(d *Details) Summary {
	s.LabelCount = d.LabelCount()
	s.LabelsDigest = NamesDigest(d.Labels)
	if s.LabelStorage == "" {
		s.LabelStorage = StorageDense
	}
	s.ConstantLabels, s.Classes, s.MaxClasses, s.LabelOnes = 0, 0, 0, 0
	for j := range s.LabelCount {
		if d.Stat(j).Constant {
			s.ConstantLabels++
		}
		if d.Kind == MultiDim {
			s.Classes += len(d.Classes[j])
			s.MaxClasses = max(s.MaxClasses, len(d.Classes[j]))
		} else {
			s.LabelOnes += int64(d.Count(j))
		}
	}
	s.Warnings = boundWarnings(s.Warnings)
	s.LegacyLabels, s.LegacyStats = nil, nil
	return s
}

// The bounds of a Summary's warnings.
const (
	// MaxWarnings is the most warnings a summary keeps.
	MaxWarnings = 20
	// MaxWarningBytes is the longest warning a summary keeps, in bytes;
	// a longer one is cut with "…".
	MaxWarningBytes = 1000
)

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

// Details are the lists of a data set that grow with its width: the
// columns of its file, its label names and each label's statistics. A
// store keeps them in a file of their own, read only by the views that
// show them. A multi-label data set's label counts are held for the
// labels that occur only, so that labels a file declares but no row has
// cost nothing.
type Details struct {
	Kind Kind
	Rows int
	// Columns names every column of the input file in order; LabelColumns
	// the label columns among them. Both are empty for a file whose
	// columns are numbered, not named (libsvm).
	Columns      []string
	LabelColumns []string
	// Labels are the label (class variable) names.
	Labels Names
	// used lists the labels that occur (MultiLabel), ascending, and count
	// the rows of each.
	used  []int32
	count []int32
	// Classes, for MultiDim data, counts each class variable's
	// categories, in category order.
	Classes [][]ClassCount

	// byCount is used ordered by count, most first (ties to the earlier
	// label), made once by Top: Details are shared by the requests that
	// read them.
	byCount     []int32
	byCountOnce sync.Once
	// find looks names up, made once by Find.
	find     func(string) int
	findOnce sync.Once
}

// Find returns the index of the label (class variable) named name, or
// -1. Its first call makes an index of the names (none for names numbered
// from a first one), which the details keep for the requests after it.
func (d *Details) Find(name string) int {
	d.findOnce.Do(func() { d.find = d.Labels.Lookup() })
	return d.find(name)
}

// LabelCount is q.
func (d *Details) LabelCount() int { return d.Labels.Len() }

// Count is the number of rows that have label j (MultiLabel), or of the
// most frequent class of variable j (MultiDim).
func (d *Details) Count(j int) int {
	if d.Kind == MultiDim {
		c := 0
		for _, cc := range d.Classes[j] {
			c = max(c, cc.Count)
		}
		return c
	}
	if k, ok := slices.BinarySearch(d.used, int32(j)); ok {
		return int(d.count[k])
	}
	return 0
}

// Stat describes label (class variable) j.
func (d *Details) Stat(j int) LabelStat {
	st := LabelStat{Name: d.Labels.At(j), Count: d.Count(j)}
	if d.Rows > 0 {
		st.Frequency = float64(st.Count) / float64(d.Rows)
	}
	if d.Kind == MultiDim {
		st.Classes = d.Classes[j]
		distinct := 0
		for _, c := range st.Classes {
			if c.Count > 0 {
				distinct++
			}
		}
		st.Constant = distinct < 2
		return st
	}
	st.Constant = st.Count == 0 || st.Count == d.Rows
	return st
}

// Top returns the n most frequent labels (at most q), most frequent
// first, ties to the earlier label: it sorts the labels that occur and
// fills up with those that do not, in order, so that it costs nothing
// per label no row has.
func (d *Details) Top(n int) []int {
	n = min(n, d.Labels.Len())
	if d.Kind == MultiDim {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	d.byCountOnce.Do(func() {
		// Positions in used, which is ascending: a stable sort keeps
		// ties in label order.
		pos := make([]int32, len(d.used))
		for k := range pos {
			pos[k] = int32(k)
		}
		slices.SortStableFunc(pos, func(a, b int32) int { return cmp.Compare(d.count[b], d.count[a]) })
		d.byCount = make([]int32, len(pos))
		for i, k := range pos {
			d.byCount[i] = d.used[k]
		}
	})
	out := make([]int, 0, n)
	for _, j := range d.byCount[:min(n, len(d.byCount))] {
		out = append(out, int(j))
	}
	// The labels no row has, in order, after those that occur.
	k := 0
	for j := 0; len(out) < n; j++ {
		for k < len(d.used) && int(d.used[k]) < j {
			k++
		}
		if k < len(d.used) && int(d.used[k]) == j {
			continue
		}
		out = append(out, j)
	}
	return out
}

// Bytes estimates the memory d holds, with the indexes Top and Find make.
func (d *Details) Bytes() int64 {
	b := d.Labels.Bytes() + 8*int64(len(d.used)+len(d.count)) + 256
	if d.Labels.list != nil || d.Labels.nums != nil {
		b += 48 * int64(d.Labels.Len()) // Find's map
	}
	for _, l := range [][]string{d.Columns, d.LabelColumns} {
		b += ListNames(l).Bytes()
	}
	for _, cs := range d.Classes {
		for _, c := range cs {
			b += 32 + int64(len(c.Value))
		}
	}
	return b
}

// Summarize computes the Summary of d (see Describe).
func Summarize(d *Dataset) Summary {
	s, _ := Describe(d)
	return s
}

// Describe computes the Summary and the Details of d in one pass over its
// labels (and, for dense features, one over X to count the zeros). Its
// memory beyond the result grows with the distinct label sets and the
// labels they hold, not with N·q, and nothing is held per label that no
// row has.
func Describe(d *Dataset) (Summary, *Details) {
	n, nf := d.featureDims()
	_, q := d.LabelDims()
	s := Summary{Rows: n, Features: nf, LabelCount: q, Kind: d.Kind, Warnings: boundWarnings(d.Warnings)}
	s.Storage, s.NonZeros = StorageDense, nonZeros(d)
	if d.Sparse != nil {
		s.Storage = StorageSparse
	}
	s.LabelStorage = StorageDense
	if d.YSparse != nil {
		s.LabelStorage = StorageSparse
	}
	if n > 0 && nf > 0 {
		s.Density = float64(s.NonZeros) / (float64(n) * float64(nf))
	}
	s.LabelsDigest = NamesDigest(d.Labels)
	s.Spread = columnSpread(d)
	det := &Details{Kind: d.Kind, Rows: n, Columns: d.Columns, LabelColumns: d.LabelColumns, Labels: d.Labels}
	// A row's label set is keyed by the indices of its labels
	// (multi-label: a few bytes for a few labels, whatever q) or by its
	// classes (multi-dimensional, q small).
	sets := make(map[string]struct{})
	var key []byte
	if d.Kind == MultiDim {
		counts := make([][]int, q)
		for j := range q {
			counts[j] = make([]int, len(d.Categories[j]))
		}
		for i := range n {
			key = key[:0]
			for j, x := range d.Y.RawRowView(i)[:q] {
				counts[j][int(x)]++
				key = binary.AppendUvarint(key, uint64(x))
			}
			sets[string(key)] = struct{}{}
		}
		det.Classes = make([][]ClassCount, q)
		for j := range q {
			for c, cnt := range counts[j] {
				det.Classes[j] = append(det.Classes[j], ClassCount{Value: d.Categories[j][c], Count: cnt})
			}
			s.Classes += len(counts[j])
			s.MaxClasses = max(s.MaxClasses, len(counts[j]))
			if det.Stat(j).Constant {
				s.ConstantLabels++
			}
		}
	} else {
		counts := map[int32]int32{}
		var buf []int32
		for i := range n {
			buf = d.LabelsOf(i, buf[:0])
			key = key[:0]
			for _, j := range buf {
				counts[j]++
				key = binary.AppendUvarint(key, uint64(j))
			}
			s.LabelOnes += int64(len(buf))
			sets[string(key)] = struct{}{}
		}
		det.used = make([]int32, 0, len(counts))
		for j := range counts {
			det.used = append(det.used, j)
		}
		slices.Sort(det.used)
		det.count = make([]int32, len(det.used))
		s.ConstantLabels = q - len(det.used)
		for k, j := range det.used {
			det.count[k] = counts[j]
			if int(counts[j]) == n {
				s.ConstantLabels++
			}
		}
		if n > 0 {
			card := float64(s.LabelOnes) / float64(n)
			dens := card / float64(max(q, 1))
			s.LabelCardinality, s.LabelDensity = &card, &dens
		}
	}
	s.DistinctLabelsets = len(sets)
	return s, det
}

// ClassList is a list of q class counts K_j with the sum and the largest
// of s's (MultiDim; nil for multi-label data): the checks and memory
// estimates of a job depend on the count, the sum and the largest of the
// K_j only, which a record keeps whatever the number of class variables.
func (s Summary) ClassList() []int {
	if s.Kind != MultiDim || s.LabelCount == 0 {
		return nil
	}
	q := s.LabelCount
	out := make([]int, q)
	out[0] = s.MaxClasses
	rest, others := s.Classes-s.MaxClasses, q-1
	for j := 1; j < q; j++ {
		// The remainder spread as evenly as integers allow: none above
		// the largest, since rest ≤ others·MaxClasses.
		out[j] = rest / others
		if j <= rest%others {
			out[j]++
		}
	}
	return out
}

// NamesDigest is the SHA-256 of names in order, hex-encoded: equal for
// equal names held the same way. Names numbered from a first are hashed
// as their rule (prefix, first, count), so that a file that declares
// two billion labels costs nothing here either; other names are hashed
// one by one.
func NamesDigest(names Names) string {
	h := sha256.New()
	var b []byte
	if names.rule && names.nums == nil {
		b = fmt.Appendf(b, "numbered %q %d %d", names.prefix, names.first, names.n)
		h.Write(b)
		return hex.EncodeToString(h.Sum(nil))
	}
	for i := range names.Len() {
		b = b[:0]
		if names.rule {
			b = append(b, names.prefix...)
			b = strconv.AppendInt(b, int64(names.nums[i]), 10)
		} else {
			b = append(b, names.list[i]...)
		}
		h.Write(binary.AppendUvarint(nil, uint64(len(b))))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// boundWarnings keeps the first MaxWarnings warnings, each cut to
// MaxWarningBytes.
func boundWarnings(w []string) []string {
	out := make([]string, 0, min(len(w), MaxWarnings))
	for _, s := range w[:min(len(w), MaxWarnings)] {
		out = append(out, cutText(s, MaxWarningBytes))
	}
	if len(w) > MaxWarnings {
		out[MaxWarnings-1] = cutText(out[MaxWarnings-1], MaxWarningBytes-40) + " (and more warnings not shown)"
	}
	return out
}

// cutText cuts s to at most n bytes, on a character boundary, ending it
// with "…" when cut.
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n - len("…")
	for i > 0 && s[i]&0xC0 == 0x80 { // not in the middle of a character
		i--
	}
	return s[:i] + "…"
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
