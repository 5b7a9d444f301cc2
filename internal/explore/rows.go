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
// from and its labels (the job's, as it ran).
type View struct {
	// Kind, Names and Categories describe the labels: Names are the
	// labels (multi-label) or the class variables (multi-dimensional),
	// Categories each variable's classes.
	Kind       dataset.Kind
	Names      []string
	Categories [][]string
	// Number is each row's number as the selection takes it: its row in
	// its data set (1-based), the test data set's rows numbered after the
	// training set's.
	Number []int
	// Test tells the rows of the test data set; Index is each row's
	// 0-based row in its own data set.
	Test  []bool
	Index []int
	// Part is each row's part (train, test or all); Fold the fold it is
	// tested in (0: none; nil without folds).
	Part []string
	Fold []int
	// Y holds each row's labels (0/1) or class indices.
	Y [][]float64
	// at maps a Number to its row.
	at map[int]int
}

// NewView joins a method's projected rows with the labels the job ran
// with. A projected row the labels do not have is an error (the job's
// files disagree).
func NewView(p *jobs.Projected, l *jobs.RunLabels) (*View, error) {
	v := &View{Kind: l.Kind, Names: l.Labels, Categories: l.Categories, Fold: p.Fold, at: make(map[int]int, len(p.Row))}
	for i, r := range p.Row {
		test := p.Split[i] == jobs.PartTest && l.TestRows > 0
		y := l.Row(test, r-1)
		if y == nil {
			return nil, fmt.Errorf("projected row %d (row %d of the %s) has no labels in the job's labels file", i+1, r, dataSetWord(test))
		}
		n := r
		if test {
			n += l.TrainRows
		}
		v.Number = append(v.Number, n)
		v.Test = append(v.Test, test)
		v.Index = append(v.Index, r-1)
		v.Part = append(v.Part, p.Split[i])
		v.Y = append(v.Y, y)
		v.at[n] = i
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

// Positions turns row numbers into rows of the view, refusing a number the
// view does not have or one given twice, with the first such number.
func (v *View) Positions(numbers []int) ([]int, error) {
	pos := make([]int, len(numbers))
	seen := make(map[int]bool, len(numbers))
	for i, n := range numbers {
		at, ok := v.at[n]
		if !ok {
			return nil, fmt.Errorf("row %d is not a row of this projection (its rows are numbered as in projected.csv, the test data set's after the training set's)", n)
		}
		if seen[n] {
			return nil, fmt.Errorf("row %d is given twice", n)
		}
		seen[n] = true
		pos[i] = at
	}
	return pos, nil
}

// Labels are the view's labels in the form Enrich takes: each label, or
// for multi-dimensional data each "variable=class", present in a row.
func (v *View) Labels() *Labels {
	l := &Labels{Start: make([]int32, 1, v.Rows()+1)}
	if v.Kind == dataset.MultiDim {
		offset := make([]int, len(v.Names))
		for j, name := range v.Names {
			if j > 0 {
				offset[j] = offset[j-1] + len(v.Categories[j-1])
			}
			for _, c := range v.Categories[j] {
				l.Names = append(l.Names, name+"="+c)
			}
		}
		for _, y := range v.Y {
			for j, c := range y {
				l.Index = append(l.Index, int32(offset[j]+int(c)))
			}
			l.Start = append(l.Start, int32(len(l.Index)))
		}
		return l
	}
	l.Names = v.Names
	for _, y := range v.Y {
		for j, x := range y {
			if x == 1 {
				l.Index = append(l.Index, int32(j))
			}
		}
		l.Start = append(l.Start, int32(len(l.Index)))
	}
	return l
}

// LabelNames names a row's labels (multi-label) or its classes
// ("variable=class").
func (v *View) LabelNames(row int) []string {
	var out []string
	for j, x := range v.Y[row] {
		switch {
		case v.Kind == dataset.MultiDim:
			out = append(out, v.Names[j]+"="+v.Categories[j][int(x)])
		case x == 1:
			out = append(out, v.Names[j])
		}
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
		for _, y := range v.Y {
			most = max(most, count(y))
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
	out = append(out, Colour{Key: "part", Text: "train / test", Type: Categorical, Categories: distinct(v.Part)})
	if v.Fold != nil {
		most := slices.Max(v.Fold)
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

func count(y []float64) int {
	n := 0
	for _, x := range y {
		if x == 1 {
			n++
		}
	}
	return n
}

func distinct(s []string) []string {
	var out []string
	for _, x := range s {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
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
	for i := range v.Y {
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
		for i, y := range v.Y {
			out[i] = float32(count(y))
		}
	case key == "set":
		sets, _ := v.sets()
		at := make(map[string]int, len(sets))
		for i, s := range sets {
			at[s] = i
		}
		for i := range v.Y {
			out[i] = float32(at[v.setKey(i)])
		}
	case (kind == "label" && v.Kind != dataset.MultiDim) || (kind == "class" && v.Kind == dataset.MultiDim):
		j := slices.Index(v.Names, name)
		if j < 0 {
			return nil, &KeyError{Key: key, Msg: fmt.Sprintf("%s names no %s of this job", key, map[string]string{"label": "label", "class": "class variable"}[kind])}
		}
		for i, y := range v.Y {
			out[i] = float32(y[j])
		}
	case key == "part":
		parts := distinct(v.Part)
		for i, p := range v.Part {
			out[i] = float32(slices.Index(parts, p))
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
