package explore

import (
	"fmt"
	"math"
	"slices"

	"mldr/internal/dataset"
	"mldr/internal/sparse"
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
	return v.nearest(from, k, func(i int) (float64, bool) {
		b := vec(i)
		if b == nil {
			return 0, false
		}
		s := 0.0
		for j := range a {
			t := a[j] - b[j]
			s += t * t
		}
		return s, true
	})
}

// NearestFeatures returns the k rows of the view nearest to row from (not
// itself) in feature space, as Nearest does: from the sparse rows of a data
// set stored sparse (sparse.Dist, the same squared distance to the last
// bit as on the dense rows, so the same neighbours and ties), never a dense
// copy. O(N·(D + k)) for dense rows, O(N·(nnz per row + k)) for sparse.
func (v *View) NearestFeatures(from, k int, rows *FeatureRows) []Neighbour {
	return v.nearest(from, k, func(i int) (float64, bool) { return rows.dist(from, i), true })
}

// nearest keeps the k rows of smallest squared distance dist(i) (false:
// left out), ties to the earlier row.
func (v *View) nearest(from, k int, dist func(i int) (float64, bool)) []Neighbour {
	type cand struct {
		i int
		d float64
	}
	var best []cand
	for i := range v.Rows() {
		if i == from {
			continue
		}
		s, ok := dist(i)
		if !ok {
			continue
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

// FeatureRows reads the features of a view's rows from the job's training
// data set and (with one) its test data set, each as it is held: dense
// rows, or the sparse rows of a data set stored sparse.
type FeatureRows struct {
	v           *View
	train, test *dataset.Dataset
}

// Features returns the features of the view's rows, from the job's
// training data set and (with one) its test data set; an error when a row
// of the view is not in them any more.
func (v *View) Features(train, test *dataset.Dataset) (*FeatureRows, error) {
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
	return &FeatureRows{v: v, train: train, test: test}, nil
}

// source is the data set and row that row i of the view comes from.
func (f *FeatureRows) source(i int) (*dataset.Dataset, int) {
	t, at := f.v.Source(i)
	if t {
		return f.test, at
	}
	return f.train, at
}

// At returns row i's value of feature j (0-based).
func (f *FeatureRows) At(i, j int) float64 {
	ds, at := f.source(i)
	if ds.Sparse != nil {
		return ds.Sparse.At(at, j)
	}
	return ds.X.At(at, j)
}

// dist is the squared Euclidean distance between rows a and b of the view,
// summed in column order: sparse.Dist when both are sparse, the dense sum
// when both are dense, and a sparse row against a dense one (a job with a
// test set stored the other way) over every column.
func (f *FeatureRows) dist(a, b int) float64 {
	da, ra := f.source(a)
	db, rb := f.source(b)
	switch {
	case da.Sparse != nil && db.Sparse != nil:
		ai, av := da.Sparse.Row(ra)
		bi, bv := db.Sparse.Row(rb)
		return sparse.Dist(ai, av, bi, bv)
	case da.Sparse == nil && db.Sparse == nil:
		x, y := da.X.RawRowView(ra), db.X.RawRowView(rb)
		s := 0.0
		for j := range x {
			t := x[j] - y[j]
			s += t * t
		}
		return s
	}
	if da.Sparse == nil { // the sparse row first
		da, ra, db, rb = db, rb, da, ra
	}
	ind, val := da.Sparse.Row(ra)
	s, k := 0.0, 0
	for j, y := range db.X.RawRowView(rb) {
		x := 0.0
		if k < len(ind) && int(ind[k]) == j {
			x = val[k]
			k++
		}
		t := x - y
		s += t * t
	}
	return s
}

// Feature returns each row's value of the feature name.
func (v *View) Feature(train, test *dataset.Dataset, name string) ([]float32, error) {
	j := train.Features.Index(name)
	if j < 0 {
		return nil, &KeyError{Key: "feature:" + name, Msg: fmt.Sprintf("feature:%s names no feature of this job's data set", name)}
	}
	rows, err := v.Features(train, test)
	if err != nil {
		return nil, err
	}
	out := make([]float32, v.Rows())
	for i := range out {
		out[i] = float32(rows.At(i, j))
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
