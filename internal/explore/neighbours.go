package explore

import (
	"fmt"
	"math"
	"slices"

	"mldr/internal/dataset"
)

// Neighbour is a row near another: its number, its distance and its
// labels.
type Neighbour struct {
	Row      int      `json:"row"`
	Distance float64  `json:"distance"`
	Labels   []string `json:"labels"`
}

// Nearest returns the k rows of the view nearest to row from (not itself)
// by the Euclidean distance between their vectors, vec(i) giving row i's
// (nil: left out, such as a row an embedding has no coordinates for);
// ties go to the earlier row. One pass over the rows keeping the k best:
// O(N·(d + k)).
func (v *View) Nearest(from, k int, vec func(i int) []float64) []Neighbour {
	a := vec(from)
	type cand struct {
		i int
		d float64
	}
	var best []cand
	for i := range v.Rows() {
		b := vec(i)
		if i == from || b == nil {
			continue
		}
		s := 0.0
		for j := range a {
			t := a[j] - b[j]
			s += t * t
		}
		if len(best) == k && s >= best[k-1].d {
			continue
		}
		at, _ := slices.BinarySearchFunc(best, s, func(c cand, s float64) int {
			if c.d <= s {
				return -1 // after equal distances: the earlier row first
			}
			return 1
		})
		best = slices.Insert(best, at, cand{i, s})
		if len(best) > k {
			best = best[:k]
		}
	}
	out := make([]Neighbour, len(best))
	for n, c := range best {
		out[n] = Neighbour{Row: int(v.Number[c.i]), Distance: math.Sqrt(c.d), Labels: v.LabelNames(c.i)}
	}
	return out
}

// Features returns a function giving each row's features, from the job's
// training data set and (with one) its test data set.
func (v *View) Features(train, test *dataset.Dataset) (func(i int) []float64, error) {
	for i := range v.Rows() {
		t, at := v.Source(i)
		ds := train
		if t {
			ds = test
		}
		if ds == nil || at >= ds.Rows() {
			return nil, fmt.Errorf("row %d of the projection is not in the data set any more", v.Number[i])
		}
	}
	return func(i int) []float64 {
		t, at := v.Source(i)
		if t {
			return test.X.RawRowView(at)
		}
		return train.X.RawRowView(at)
	}, nil
}

// Feature returns each row's value of the feature name.
func (v *View) Feature(train, test *dataset.Dataset, name string) ([]float32, error) {
	j := slices.Index(train.Features, name)
	if j < 0 {
		return nil, &KeyError{Key: "feature:" + name, Msg: fmt.Sprintf("feature:%s names no feature of this job's data set", name)}
	}
	rows, err := v.Features(train, test)
	if err != nil {
		return nil, err
	}
	out := make([]float32, v.Rows())
	for i := range out {
		out[i] = float32(rows(i)[j])
	}
	return out, nil
}

// Span is the smallest and largest value that is not NaN (NaN, NaN when
// every value is).
func Span(x []float32) (lo, hi float64) {
	lo, hi = math.NaN(), math.NaN()
	for _, f := range x {
		v := float64(f)
		if math.IsNaN(v) {
			continue
		}
		if math.IsNaN(lo) {
			lo, hi = v, v
		}
		lo, hi = min(lo, v), max(hi, v)
	}
	return lo, hi
}
