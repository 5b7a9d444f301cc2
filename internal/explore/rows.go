package explore

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"mldr/internal/dataset"
	"mldr/internal/jobs"
)

// View is what the explorer shows of one method's rows of a succeeded job:
// for each row of the method's projected.csv, in its order, where it comes
// from and its labels (the job's, as it ran). It holds 4 bytes a row and
// a label, and 13 bytes a row besides, so that a server can keep views of
// large jobs in a cache.
type View struct {
	// Kind, Names and Categories describe the labels: Names are the
	// labels (multi-label) or the class variables (multi-dimensional),
	// Categories each variable's classes.
	Kind       dataset.Kind
	Names      []string
	Categories [][]string
	// Number is each row's number as the selection takes it: its row in
	// its data set (1-based), the test data set's rows numbered after the
	// training set's (TrainRows of them).
	Number    []int32
	TrainRows int
	// Gen is the training data set's generation when the job read it.
	Gen int
	// Fold is the fold each row is tested in (0: none; nil without folds).
	Fold []int32
	// part indexes parts for each row (train, test or all).
	part  []uint8
	parts []string
	// labels are each row's labels (multi-dimensional: "variable=class").
	labels *Labels
	// offset is, for multi-dimensional data, each variable's first index
	// in labels.Names.
	offset []int
	// at maps a number to its row + 1 (0: none).
	at []int32
}

// NewView joins a method's projected rows with the labels the job ran
// with. A projected row the labels do not have is an error (the job's
// files disagree).
func NewView(p *jobs.Projected, l *jobs.RunLabels) (*View, error) {
	n := len(p.Row)
	v := &View{Kind: l.Kind, Names: l.Labels, Categories: l.Categories, TrainRows: l.TrainRows, Gen: l.Gen,
		Number: make([]int32, n), part: make([]uint8, n), at: make([]int32, l.TrainRows+l.TestRows+1),
		labels: &Labels{Start: make([]int32, 1, n+1)}}
	if p.Fold != nil {
		v.Fold = make([]int32, n)
	}
	if v.Kind == dataset.MultiDim {
		v.offset = make([]int, len(v.Names))
		for j, name := range v.Names {
			if j > 0 {
				v.offset[j] = v.offset[j-1] + len(v.Categories[j-1])
			}
			for _, c := range v.Categories[j] {
				v.labels.Names = append(v.labels.Names, name+"="+c)
			}
		}
	} else {
		v.labels.Names = v.Names
	}
	for i, r := range p.Row {
		test := p.Split[i] == jobs.PartTest && l.TestRows > 0
		var y []int32
		if v.Kind == dataset.MultiDim {
			y = l.Classes(test, r-1)
		} else {
			y = l.Ones(test, r-1)
		}
		if y == nil {
			return nil, fmt.Errorf("projected row %d (row %d of the %s) has no labels in the job's labels file", i+1, r, dataSetWord(test))
		}
		num := r
		if test {
			num += l.TrainRows
		}
		v.Number[i] = int32(num)
		v.at[num] = int32(i + 1)
		at := slices.Index(v.parts, p.Split[i])
		if at < 0 {
			at = len(v.parts)
			v.parts = append(v.parts, p.Split[i])
		}
		v.part[i] = uint8(at)
		if p.Fold != nil {
			v.Fold[i] = int32(p.Fold[i])
		}
		if v.Kind == dataset.MultiDim {
			for j, x := range y {
				v.labels.Index = append(v.labels.Index, int32(v.offset[j]+int(x)))
			}
		} else {
			v.labels.Index = append(v.labels.Index, y...)
		}
		v.labels.Start = append(v.labels.Start, int32(len(v.labels.Index)))
	}
	return v, nil
}

func dataSetWord(test bool) string {
	if test {
		return "test data set"
	}
	return "training data set"
}

// Rows is the number of rows.
func (v *View) Rows() int { return len(v.Number) }

// Part is row i's part: train, test or all.
func (v *View) Part(i int) string { return v.parts[v.part[i]] }

// Source tells where row i is: in the test data set or the training one,
// and its 0-based row there.
func (v *View) Source(i int) (test bool, index int) {
	n := int(v.Number[i])
	if n > v.TrainRows {
		return true, n - 1 - v.TrainRows
	}
	return false, n - 1
}

// Positions turns row numbers into rows of the view, refusing a number the
// view does not have or one given twice, with the first such number.
func (v *View) Positions(numbers []int) ([]int, error) {
	pos := make([]int, len(numbers))
	seen := make([]bool, len(v.at))
	for i, n := range numbers {
		if n < 1 || n >= len(v.at) || v.at[n] == 0 {
			return nil, fmt.Errorf("row %d is not a row of this projection (its rows are numbered as in projected.csv, the test data set's after the training set's)", n)
		}
		if seen[n] {
			return nil, fmt.Errorf("row %d is given twice", n)
		}
		seen[n] = true
		pos[i] = int(v.at[n]) - 1
	}
	return pos, nil
}

// Labels are the view's labels in the form Enrich takes: each label, or
// for multi-dimensional data each "variable=class", present in a row.
func (v *View) Labels() *Labels { return v.labels }

// has returns row i's label indices.
func (v *View) has(i int) []int32 { return v.labels.Index[v.labels.Start[i]:v.labels.Start[i+1]] }

// LabelNames names a row's labels (multi-label) or its classes
// ("variable=class").
func (v *View) LabelNames(row int) []string {
	var out []string
	for _, j := range v.has(row) {
		out = append(out, v.labels.Names[j])
	}
	return out
}

// Colour is a way to colour the rows: a key of Values and what it shows.
type Colour struct {
	Key  string `json:"key"`
	Text string `json:"text"`
	// Type is "categorical" (Values are indices into Categories; NaN is
	// none) or "continuous".
	Type       string   `json:"type"`
	Categories []string `json:"categories,omitempty"`
	// Counts are the rows of each category, where it helps (label sets).
	Counts []int `json:"counts,omitempty"`
}

// Colour types.
const (
	Categorical = "categorical"
	Continuous  = "continuous"
)

// Colours lists the ways the view's rows can be coloured, but features and
// errors (the caller adds those it has): the number of labels, the label
// set, each label or class variable, the part and the fold.
func (v *View) Colours() []Colour {
	var out []Colour
	if v.Kind != dataset.MultiDim {
		most := 0
		for i := range v.Rows() {
			most = max(most, len(v.has(i)))
		}
		c := Colour{Key: "count", Text: "number of labels", Type: Categorical}
		for k := 0; k <= most; k++ {
			c.Categories = append(c.Categories, strconv.Itoa(k))
		}
		out = append(out, c)
	}
	sets, counts := v.sets()
	out = append(out, Colour{Key: "set", Text: setWord(v.Kind), Type: Categorical, Categories: sets, Counts: counts})
	for j, name := range v.Names {
		if v.Kind == dataset.MultiDim {
			out = append(out, Colour{Key: "class:" + name, Text: "class variable " + name, Type: Categorical, Categories: v.Categories[j]})
		} else {
			out = append(out, Colour{Key: "label:" + name, Text: "label " + name, Type: Categorical, Categories: []string{"without " + name, "with " + name}})
		}
	}
	out = append(out, Colour{Key: "part", Text: "train / test", Type: Categorical, Categories: v.parts})
	if v.Fold != nil {
		most := int(slices.Max(v.Fold))
		c := Colour{Key: "fold", Text: "test fold", Type: Categorical}
		for f := 1; f <= most; f++ {
			c.Categories = append(c.Categories, strconv.Itoa(f))
		}
		out = append(out, c)
	}
	return out
}

func setWord(k dataset.Kind) string {
	if k == dataset.MultiDim {
		return "class combination"
	}
	return "label set"
}

// setKey names a row's label set ("a, b"; "none" without labels) or class
// combination ("u=x, v=y").
func (v *View) setKey(row int) string {
	names := v.LabelNames(row)
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// sets lists the distinct label sets, most frequent first (ties by name),
// with their counts.
func (v *View) sets() ([]string, []int) {
	n := map[string]int{}
	for i := range v.Rows() {
		n[v.setKey(i)]++
	}
	keys := make([]string, 0, len(n))
	for k := range n {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return cmp.Or(cmp.Compare(n[b], n[a]), strings.Compare(a, b)) })
	counts := make([]int, len(keys))
	for i, k := range keys {
		counts[i] = n[k]
	}
	return keys, counts
}

// Values returns, for each row, its value under a colour key of Colours
// (a category's index, NaN for none) or "row" (its number). Other keys are
// an error naming the keys there are.
func (v *View) Values(key string) ([]float32, error) {
	out := make([]float32, v.Rows())
	nan := float32(math.NaN())
	switch kind, name, _ := strings.Cut(key, ":"); {
	case key == "row":
		for i, n := range v.Number {
			out[i] = float32(n)
		}
	case key == "count" && v.Kind != dataset.MultiDim:
		for i := range out {
			out[i] = float32(len(v.has(i)))
		}
	case key == "set":
		sets, _ := v.sets()
		at := make(map[string]int, len(sets))
		for i, s := range sets {
			at[s] = i
		}
		for i := range out {
			out[i] = float32(at[v.setKey(i)])
		}
	case (kind == "label" && v.Kind != dataset.MultiDim) || (kind == "class" && v.Kind == dataset.MultiDim):
		j := slices.Index(v.Names, name)
		if j < 0 {
			return nil, &KeyError{Key: key, Msg: fmt.Sprintf("%s names no %s of this job", key, map[string]string{"label": "label", "class": "class variable"}[kind])}
		}
		for i := range out {
			out[i] = 0
			for _, l := range v.has(i) {
				switch {
				case v.Kind == dataset.MultiDim && int(l) >= v.offset[j] && int(l) < v.offset[j]+len(v.Categories[j]):
					out[i] = float32(int(l) - v.offset[j])
				case v.Kind != dataset.MultiDim && int(l) == j:
					out[i] = 1
				}
			}
		}
	case key == "part":
		for i, p := range v.part {
			out[i] = float32(p)
		}
	case key == "fold" && v.Fold != nil:
		for i, f := range v.Fold {
			out[i] = nan
			if f > 0 {
				out[i] = float32(f - 1)
			}
		}
	default:
		var keys []string
		for _, c := range v.Colours() {
			keys = append(keys, c.Key)
		}
		return nil, &KeyError{Key: key, Msg: fmt.Sprintf("no values %q for this job; they are row, %s, feature:NAME and error:KIND:METHOD:D", key, strings.Join(keys, ", "))}
	}
	return out, nil
}

// KeyError is a colour key the view does not have.
type KeyError struct{ Key, Msg string }

func (e *KeyError) Error() string { return e.Msg }
