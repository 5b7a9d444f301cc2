// Package explore turns a job's results into what the explorer shows and
// answers its questions about them: the points, colours and rows of the
// interactive scatter, and the statistics of a selection of rows. It knows
// numbers and names, not HTTP.
package explore

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"

	"mldr/internal/stats"
)

// Labels are the labels of a job's rows, in the order of its projected rows:
// for each row the indices (into Names) of its labels, in CSR form.
//
// Enrich only reads a Labels, so one may serve any number of concurrent
// calls.
type Labels struct {
	Names []string // label names; for multi-dimensional data "variable=class"
	Start []int32  // row i's labels are Index[Start[i]:Start[i+1]]; len(Start) = rows+1
	Index []int32  // sorted within a row
}

// Rows returns the number of rows, len(Start)−1 (0 for an empty Labels).
func (l *Labels) Rows() int {
	if len(l.Start) == 0 {
		return 0
	}
	return len(l.Start) - 1
}

// row returns row i's label indices, a view into Index.
func (l *Labels) row(i int) []int32 {
	return l.Index[l.Start[i]:l.Start[i+1]]
}

// Selection is the answer to "what is in these rows?": how many rows there
// are, how each label's share among them compares with its share among all
// rows, and which label sets they carry.
type Selection struct {
	Count     int               `json:"count"`
	Labels    []LabelEnrichment `json:"labels"`     // sorted by p, then q, then label name
	LabelSets []LabelSet        `json:"label_sets"` // most frequent first
}

// LabelEnrichment is one label's frequency in a selection of n of the N
// rows against its frequency in all of them, and how surprising it is.
// None of its numbers is ever NaN or infinite.
type LabelEnrichment struct {
	Label       string  `json:"label"`
	InSelection int     `json:"in_selection"` // k, the selected rows with the label
	Overall     int     `json:"overall"`      // K, all rows with the label
	Lift        float64 `json:"lift"`         // (k/n)/(K/N); 0 when K = 0 or n = 0
	P           float64 `json:"p"`            // P(X ≥ k), X ~ Hypergeom(N, K, n)
	Q           float64 `json:"q"`            // p adjusted by Benjamini–Hochberg over the labels
}

// LabelSet is one combination of labels and the number of selected rows
// that carry exactly it. Labels are in the order of Labels.Names; a row
// with no label has the empty set, [] in JSON.
type LabelSet struct {
	Labels []string `json:"labels"`
	Count  int      `json:"count"`
}

// Enrich returns the statistics of a selection of rows (0-based positions,
// each once; the caller has checked them): for each label its count in the
// selection and overall, lift = (k/n)/(K/N), p = stats.HypergeomSF(k, N, K,
// n), q = stats.BenjaminiHochberg over the labels; the label sets of the
// selection, most frequent first (at most maxSets of them; all when maxSets
// is negative).
//
// N is l.Rows(), every row of the job, and n = len(rows). Labels are sorted
// by p, then q, then name; label sets by count, ties by their label indices
// compared as sequences (so {a} before {a, b} before {b} when Names is
// a, b). An empty selection has count 0, every p and q 1 and no label sets.
//
// A row outside [0, N) or given twice is the caller's mistake, and Enrich
// panics saying which. It reads every row's labels once (for K) and the
// selected rows' once more: about 20 ms at N = 1e6 rows, 100 labels, 4 a
// row, n = 1e5 selected rows carrying 56 800 distinct label sets; 0.2 s for
// all 1e6 rows with 400 000 distinct sets (BenchmarkEnrich, 2 cores).
func Enrich(l *Labels, rows []int, maxSets int) Selection {
	N, n, q := l.Rows(), len(rows), len(l.Names)

	overall := make([]int, q)
	if N > 0 {
		for _, j := range l.Index[l.Start[0]:l.Start[N]] {
			overall[j]++
		}
	}
	seen := make([]uint64, (N+63)/64)
	for _, r := range rows {
		if r < 0 || r >= N {
			panic(fmt.Sprintf("explore: Enrich: row %d outside [0, %d)", r, N))
		}
		if seen[r/64]&(1<<(r%64)) != 0 {
			panic(fmt.Sprintf("explore: Enrich: row %d selected twice", r))
		}
		seen[r/64] |= 1 << (r % 64)
	}
	// The selected rows in ascending order, from the bit set, so that at
	// N = 1e6 their labels are read in memory order, not at random.
	in := make([]int, q)
	hint := n
	if maxSets == 0 {
		hint = 0 // no label sets wanted
	}
	sets := newSetCounter(l, hashIndices, hint)
	for w, word := range seen {
		for word != 0 {
			r := w*64 + bits.TrailingZeros64(word)
			word &= word - 1
			idx := l.row(r)
			for _, j := range idx {
				in[j]++
			}
			if maxSets != 0 {
				sets.add(r, idx)
			}
		}
	}

	out := Selection{Count: n, Labels: make([]LabelEnrichment, q)}
	p := make([]float64, q)
	for j, name := range l.Names {
		k, K := in[j], overall[j]
		e := LabelEnrichment{Label: name, InSelection: k, Overall: K, P: stats.HypergeomSF(k, N, K, n)}
		if K > 0 && n > 0 {
			e.Lift = (float64(k) / float64(n)) / (float64(K) / float64(N))
		}
		out.Labels[j] = e
		p[j] = e.P
	}
	for j, v := range stats.BenjaminiHochberg(p) {
		out.Labels[j].Q = v
	}
	slices.SortStableFunc(out.Labels, func(a, b LabelEnrichment) int {
		return cmp.Or(cmp.Compare(a.P, b.P), cmp.Compare(a.Q, b.Q), cmp.Compare(a.Label, b.Label))
	})
	out.LabelSets = sets.top(maxSets)
	return out
}

// setCount is a distinct label set met among the selected rows: a row that
// carries it, how many rows do, and the next set whose hash is the same.
type setCount struct {
	row   int
	count int
	next  int // index in setCounter.sets, −1 at the end of the chain
}

// setCounter counts the label sets of rows by a hash of each row's index
// slice (no string per row), comparing the slices themselves only when
// hashes meet.
type setCounter struct {
	l    *Labels
	hash func([]int32) uint64 // hashIndices but for tests that make every set collide
	head map[uint64]int       // hash → first set with it
	sets []setCount
}

// newSetCounter returns a counter for about n rows, with room for n/4
// distinct sets (the map grows past that).
func newSetCounter(l *Labels, hash func([]int32) uint64, n int) *setCounter {
	return &setCounter{l: l, hash: hash, head: make(map[uint64]int, n/4), sets: make([]setCount, 0, n/4)}
}

// add counts row r, whose labels are idx.
func (c *setCounter) add(r int, idx []int32) {
	h := c.hash(idx)
	i, ok := c.head[h]
	if !ok {
		c.head[h] = len(c.sets)
		c.sets = append(c.sets, setCount{row: r, count: 1, next: -1})
		return
	}
	for {
		if slices.Equal(c.l.row(c.sets[i].row), idx) {
			c.sets[i].count++
			return
		}
		if c.sets[i].next < 0 {
			c.sets[i].next = len(c.sets)
			c.sets = append(c.sets, setCount{row: r, count: 1, next: -1})
			return
		}
		i = c.sets[i].next
	}
}

// top returns the maxSets most frequent sets (all when maxSets < 0), ties by
// their label indices compared as sequences. It reorders c.sets.
func (c *setCounter) top(maxSets int) []LabelSet {
	l, sets := c.l, c.sets
	order := func(a, b setCount) int {
		if a.count != b.count { // not cmp.Or, which would compare the slices every time
			return cmp.Compare(b.count, a.count)
		}
		return slices.Compare(l.row(a.row), l.row(b.row))
	}
	if maxSets >= 0 && len(sets) > maxSets {
		sets = smallest(sets, maxSets, order)
	}
	slices.SortFunc(sets, order)
	out := make([]LabelSet, len(sets))
	for i, s := range sets {
		idx := l.row(s.row)
		names := make([]string, len(idx))
		for j, x := range idx {
			names[j] = l.Names[x]
		}
		out[i] = LabelSet{Labels: names, Count: s.count}
	}
	return out
}

// smallest returns the m first of s under order (0 ≤ m < len(s)), in no
// particular order, keeping them in a heap with the last of them at its
// root: most sets meet only the root, so a selection with many distinct sets
// is not sorted whole. It reuses s's storage.
func smallest(s []setCount, m int, order func(a, b setCount) int) []setCount {
	if m == 0 {
		return s[:0]
	}
	h := s[:m]
	down := func(i int) {
		for {
			c := 2*i + 1
			if c >= m {
				return
			}
			if c+1 < m && order(h[c+1], h[c]) > 0 {
				c++
			}
			if order(h[c], h[i]) <= 0 {
				return
			}
			h[i], h[c] = h[c], h[i]
			i = c
		}
	}
	for i := m/2 - 1; i >= 0; i-- {
		down(i)
	}
	for _, x := range s[m:] {
		if order(x, h[0]) < 0 {
			h[0] = x
			down(0)
		}
	}
	return h
}

// hashIndices hashes a row's label indices (FNV-1a over the values, then a
// final mix), so that equal sets meet in one bucket.
func hashIndices(idx []int32) uint64 {
	h := uint64(14695981039346656037)
	for _, x := range idx {
		h ^= uint64(uint32(x))
		h *= 1099511628211
	}
	h ^= uint64(len(idx))
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	return h
}
