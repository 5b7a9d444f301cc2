package xcdata

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
)

// Version names the generator's output: files written by a generator of
// another version differ, so caches put it in their names.
const Version = "xc1"

// The generator's constants.
const (
	// topicColumns is how many topic columns each label has.
	topicColumns = 4
	// topicShare is the share of a row's feature draws that fall on its
	// labels' topic columns; the rest follow the columns' Zipf law.
	topicShare = 0.3
	// featureOffset is the q of the columns' Zipf–Mandelbrot law,
	// p(rank r) ∝ 1/(r + featureOffset): the most frequent columns are
	// less dominant than under Zipf's law, as in a vocabulary without its
	// stop words.
	featureOffset = 10
	// lengthSigma is the σ of the log-normal law of a row's non-zero
	// features.
	lengthSigma = 0.5
	// minLabelExponent and maxLabelExponent bound the exponent of the
	// labels' power law.
	minLabelExponent, maxLabelExponent = 0.5, 3.0
)

// Part is one file of a set: its training or its test rows.
type Part int

const (
	// Train is the training file, Shape.Train rows.
	Train Part = iota
	// Test is the test file, Shape.Test rows.
	Test
)

// String is "train" or "test".
func (p Part) String() string {
	if p == Test {
		return "test"
	}
	return "train"
}

// Stats count what Write wrote.
type Stats struct {
	// Rows is the number of rows.
	Rows int
	// NonZeros is the number of feature entries (all positive).
	NonZeros int64
	// LabelOnes is the number of labels of all rows.
	LabelOnes int64
	// LabelRows[j] is the number of rows with label j.
	LabelRows []int
}

// LongTail is the number of labels that 1 to 5 rows have.
func (st Stats) LongTail() int {
	n := 0
	for _, c := range st.LabelRows {
		if c >= 1 && c <= 5 {
			n++
		}
	}
	return n
}

// model is what a set's training and test rows are drawn from: the labels'
// and the columns' laws, the columns' idf and the labels' topic columns.
type model struct {
	s Shape
	// labelCDF and featureCDF are the cumulative laws of label j and
	// column k (label 0 and column 0 the most frequent).
	labelCDF, featureCDF []float64
	// labelExponent is the α of p(label j) ∝ (j+1)^−α.
	labelExponent float64
	// idf[k] is column k's inverse document frequency, ln(1 + 1/(m·p_k))
	// for m non-zero features a row.
	idf []float64
	// topics[j*topicColumns:(j+1)*topicColumns] are label j's topic
	// columns.
	topics []int32
}

// newModel builds the laws of s. The labels' exponent α is the one at which
// the rarest label's expected number of training rows is 1, so that the
// tail of labels with a few rows reaches single rows; it is kept within
// [0.5, 3].
func newModel(s Shape, seed uint64) *model {
	m := &model{s: s}
	m.labelExponent = labelExponent(float64(s.Train)*s.LabelsPerRow, s.Labels)
	m.labelCDF = cumulative(s.Labels, func(r float64) float64 { return math.Pow(r, -m.labelExponent) })
	m.featureCDF = cumulative(s.Features, func(r float64) float64 { return 1 / (r + featureOffset) })
	m.idf = make([]float64, s.Features)
	prev := 0.0
	for k, c := range m.featureCDF {
		m.idf[k] = math.Log(1 + 1/(s.FeaturesPerRow*(c-prev)))
		prev = c
	}
	// Topic columns: beyond the 1 % most frequent columns, so that they
	// stand out of the background.
	rng := rand.New(rand.NewPCG(seed, 3))
	lo := s.Features / 100
	m.topics = make([]int32, s.Labels*topicColumns)
	for i := range m.topics {
		m.topics[i] = int32(lo + rng.IntN(s.Features-lo))
	}
	return m
}

// labelExponent is the α in [minLabelExponent, maxLabelExponent] at which
// the last of q labels, drawn total times from p(rank r) ∝ r^−α, is
// expected once.
func labelExponent(total float64, q int) float64 {
	last := func(a float64) float64 {
		sum := 0.0
		for r := 1; r <= q; r++ {
			sum += math.Pow(float64(r), -a)
		}
		return total * math.Pow(float64(q), -a) / sum
	}
	lo, hi := minLabelExponent, maxLabelExponent
	switch {
	case last(lo) <= 1:
		return lo
	case last(hi) >= 1:
		return hi
	}
	for range 40 {
		mid := (lo + hi) / 2
		if last(mid) > 1 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// cumulative is the cumulative law of n outcomes of weights w(rank), rank
// 1…n, normalised to end at 1.
func cumulative(n int, w func(rank float64) float64) []float64 {
	c := make([]float64, n)
	sum := 0.0
	for i := range c {
		sum += w(float64(i + 1))
		c[i] = sum
	}
	for i := range c {
		c[i] /= sum
	}
	c[n-1] = 1
	return c
}

// draw is an outcome of the cumulative law c.
func draw(rng *rand.Rand, c []float64) int {
	return min(len(c)-1, sort.SearchFloat64s(c, rng.Float64()))
}

// poisson draws from a Poisson law of mean lambda (Knuth's method; the
// means here are below 30).
func poisson(rng *rand.Rand, lambda float64) int {
	if lambda <= 0 {
		return 0
	}
	limit, p, k := math.Exp(-lambda), 1.0, 0
	for {
		p *= rng.Float64()
		if p <= limit {
			return k
		}
		k++
	}
}

// rowMaker draws rows; its buffers are reused from row to row.
type rowMaker struct {
	m      *model
	rng    *rand.Rand
	tf     []int32 // per column, the draws of the current row
	cols   []int32 // the current row's columns
	labels []int32
	line   []byte
}

// drawLabels draws a row's labels: 1 + Poisson(L − 1) of them (at most q),
// distinct, each from the labels' power law, ascending.
func (r *rowMaker) drawLabels() {
	s := r.m.s
	k := min(s.Labels, 1+poisson(r.rng, s.LabelsPerRow-1))
	r.labels = r.labels[:0]
	for tries := 0; len(r.labels) < k && tries < 100*k; tries++ {
		j := int32(draw(r.rng, r.m.labelCDF))
		if !slices.Contains(r.labels, j) {
			r.labels = append(r.labels, j)
		}
	}
	slices.Sort(r.labels)
}

// drawColumn draws one feature column of the row: with probability
// topicShare a topic column of one of its labels, else a column of the
// Zipf–Mandelbrot law.
func (r *rowMaker) drawColumn() int32 {
	if len(r.labels) > 0 && r.rng.Float64() < topicShare {
		j := r.labels[r.rng.IntN(len(r.labels))]
		return r.m.topics[int(j)*topicColumns+r.rng.IntN(topicColumns)]
	}
	return int32(draw(r.rng, r.m.featureCDF))
}

// drawFeatures draws the row's features: a length from a log-normal law of
// mean FeaturesPerRow (within 1…D), then columns (drawColumn) until that
// many are distinct, counting the draws of each as its term frequency. A
// dense set's row has every column once, then as many draws again.
func (r *rowMaker) drawFeatures() {
	s := r.m.s
	r.cols = r.cols[:0]
	add := func(c int32) {
		if r.tf[c] == 0 {
			r.cols = append(r.cols, c)
		}
		r.tf[c]++
	}
	if s.Dense {
		for c := range s.Features {
			add(int32(c))
		}
		for range s.Features {
			add(r.drawColumn())
		}
		return
	}
	mu := math.Log(s.FeaturesPerRow) - lengthSigma*lengthSigma/2
	n := int(math.Round(math.Exp(mu + lengthSigma*r.rng.NormFloat64())))
	n = min(max(n, 1), s.Features)
	for tries := 0; len(r.cols) < n && tries < 20*n+100; tries++ {
		add(r.drawColumn())
	}
}

// appendRow appends the row's line: its labels, comma-separated, then its
// features as column:value, ascending, the values (1 + ln tf)·idf scaled
// to unit L2 norm, six significant digits. It clears the term frequencies.
func (r *rowMaker) appendRow(st *Stats) {
	b := r.line[:0]
	for i, j := range r.labels {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(j), 10)
		st.LabelRows[j]++
	}
	slices.Sort(r.cols)
	norm := 0.0
	val := func(c int32) float64 { return (1 + math.Log(float64(r.tf[c]))) * r.m.idf[c] }
	for _, c := range r.cols {
		v := val(c)
		norm += v * v
	}
	norm = math.Sqrt(norm)
	for _, c := range r.cols {
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(c), 10)
		b = append(b, ':')
		b = strconv.AppendFloat(b, val(c)/norm, 'g', 6, 64)
		r.tf[c] = 0
	}
	r.line = append(b, '\n')
	st.Rows++
	st.NonZeros += int64(len(r.cols))
	st.LabelOnes += int64(len(r.labels))
}

// Write writes the part's rows of s to w in the repository's format: the
// header "N D q", then a row a line, "l1,l2,… f:v f:v …" with 0-based
// label and feature indices. The rows are deterministic by seed (the two
// parts drawn from the same laws and topic columns, as different rows);
// the labels' law depends on s.Train, so a scaled shape gives other rows.
// It holds O(D + q) numbers and one row at a time. An error is w's, or a
// shape without rows, features or labels.
func Write(w io.Writer, s Shape, part Part, seed uint64) (Stats, error) {
	if s.Train < 1 || s.Test < 1 || s.Features < 1 || s.Labels < 1 || s.LabelsPerRow < 1 || s.FeaturesPerRow < 1 {
		return Stats{}, fmt.Errorf("xcdata: the shape %+v needs rows, features, labels and at least one label and feature a row", s)
	}
	n := s.Train
	if part == Test {
		n = s.Test
	}
	m := newModel(s, seed)
	r := &rowMaker{m: m, rng: rand.New(rand.NewPCG(seed, 1+uint64(part))), tf: make([]int32, s.Features)}
	st := Stats{LabelRows: make([]int, s.Labels)}
	bw := bufio.NewWriterSize(w, 1<<20)
	if _, err := fmt.Fprintf(bw, "%d %d %d\n", n, s.Features, s.Labels); err != nil {
		return st, err
	}
	for range n {
		r.drawLabels()
		r.drawFeatures()
		r.appendRow(&st)
		if _, err := bw.Write(r.line); err != nil {
			return st, err
		}
	}
	return st, bw.Flush()
}

// WriteFile writes the part's rows of s (Write) to the file at path
// (mode 0644), through a temporary file beside it renamed at the end, so
// that a file at path is always whole.
func WriteFile(path string, s Shape, part Part, seed uint64) (Stats, error) {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp-*")
	if err != nil {
		return Stats{}, fmt.Errorf("xcdata: %w", err)
	}
	defer os.Remove(f.Name()) // after the rename, nothing to remove
	st, err := Write(f, s, part, seed)
	if err == nil {
		err = f.Chmod(0o644) // CreateTemp's 0600 is for a secret, not a data file
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		return st, fmt.Errorf("xcdata: writing %s: %w", path, err)
	}
	return st, nil
}
