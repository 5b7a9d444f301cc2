package comparison

import (
	"fmt"
	"math"
	"slices"
	"strconv"
)

// Cite is what a table for papers says of a method's paper: a BibTeX key
// for \cite and the reference in words (for the bibliography entry).
type Cite struct {
	Key, Reference string
}

// TableSpec says what a study's table for papers shows and how it names
// things. Text fields are plain text: each writer escapes them.
type TableSpec struct {
	// Study is the study's id, named in the files' first comment.
	Study string
	// Label is the table's \label key (letters, digits, ':', '-' and '.'
	// kept, anything else dropped).
	Label string
	// Classifier, Split and Dims are the caption's phrases: the classifier
	// with its parameters, how the rows were held out, and d.
	Classifier, Split, Dims string
	// MethodNames and MetricNames map ids and keys to display names; a
	// missing one shows the id.
	MethodNames, MetricNames map[string]string
	// Cites maps a method to its paper; a missing one cites nothing.
	Cites map[string]Cite
}

// Mark is how a cell of a table for papers stands out in its column.
type Mark int

// Marks: the best of a column in bold, the second underlined.
const (
	Plain Mark = iota
	Best
	Second
)

// Cell is a number of a table for papers: its text as written (4
// decimals for scores, 2 for ranks, "" when undefined), the standard
// deviation's ("" without one) and its mark.
type Cell struct {
	Text, Std string
	Mark      Mark
}

// TableMetric is a column of a table for papers.
type TableMetric struct {
	Key, Name string
	// Lower is true when lower is better.
	Lower bool
	// FriedmanP and CD are the column's Friedman p-value and Nemenyi
	// critical difference at 0.05; nil when there is none.
	FriedmanP, CD *float64
}

// Table is a study's table for papers: for each data set a block of rows,
// one per method, a column per metric, each cell the mean ± std over
// folds; then a block of the average ranks per metric, and the Friedman
// p-value and Nemenyi critical difference of each metric. In each data
// set's block and in the average ranks, the best of a column is marked
// Best and the next Second, ties as written sharing their mark; methods
// left out of the ranks are never marked.
type Table struct {
	Spec     TableSpec
	Datasets []string
	// Methods are ids; Name and CiteKey name them.
	Methods []string
	Metrics []TableMetric
	// Cells are [data set][method][metric]; Ranks [method][metric].
	Cells [][][]Cell
	Ranks [][]Cell
	// Caveats are the limits of the tests at this size (Comparison.Caveats),
	// each once.
	Caveats []string
}

// NewTable builds the table of cs, the comparisons of one study at one
// d-choice, one per metric in the order of the columns. It refuses none,
// and comparisons of other methods, data sets or d-choices than the first.
func NewTable(cs []Comparison, spec TableSpec) (*Table, error) {
	if len(cs) == 0 {
		return nil, fmt.Errorf("comparison: building a table: no comparison given")
	}
	first := cs[0]
	t := &Table{Spec: spec, Datasets: first.DatasetNames, Methods: first.Methods}
	for _, c := range cs {
		if !slices.Equal(c.Methods, first.Methods) || !slices.Equal(c.Datasets, first.Datasets) || !sameChoice(c, first) {
			return nil, fmt.Errorf("comparison: building a table: %s compares other methods, data sets or d than %s", c.Metric, first.Metric)
		}
		m := TableMetric{Key: c.Metric, Name: c.Metric, Lower: c.Better == "lower"}
		if n := spec.MetricNames[c.Metric]; n != "" {
			m.Name = n
		}
		if c.Friedman != nil {
			m.FriedmanP = finite(c.Friedman.P)
		}
		if cd, ok := c.NemenyiCD["0.05"]; ok {
			m.CD = finite(cd)
		}
		t.Metrics = append(t.Metrics, m)
	}
	t.Caveats = tableCaveats(cs, t.Metrics)
	ranked := make([]bool, len(first.Methods))
	for j, m := range first.Methods {
		ranked[j] = !slices.Contains(first.Unranked, m)
	}
	t.Cells = make([][][]Cell, len(first.Datasets))
	for i := range first.Datasets {
		t.Cells[i] = make([][]Cell, len(first.Methods))
		for j := range first.Methods {
			t.Cells[i][j] = make([]Cell, len(cs))
		}
		for k, c := range cs {
			texts := make([]string, len(c.Methods))
			for j := range c.Methods {
				texts[j] = fixed(c.Scores[i][j], 4)
				t.Cells[i][j][k] = Cell{Text: texts[j], Std: fixed(c.Std[i][j], 4)}
			}
			for j, mk := range marks(texts, ranked, c.Better == "lower") {
				t.Cells[i][j][k].Mark = mk
			}
		}
	}
	t.Ranks = make([][]Cell, len(first.Methods))
	for j := range first.Methods {
		t.Ranks[j] = make([]Cell, len(cs))
	}
	for k, c := range cs {
		texts := make([]string, len(c.Methods))
		for j, m := range c.Methods {
			texts[j] = fixed(c.AverageRanks[m], 2)
			t.Ranks[j][k] = Cell{Text: texts[j]}
		}
		for j, mk := range marks(texts, ranked, true) {
			t.Ranks[j][k].Mark = mk
		}
	}
	return t, nil
}

// tableCaveats are the caveats of cs, each once: prefixed by the names of
// the metrics it applies to when not all of them.
func tableCaveats(cs []Comparison, metrics []TableMetric) []string {
	var order []string
	who := map[string][]string{}
	for i, c := range cs {
		for _, cv := range c.Caveats() {
			if _, ok := who[cv]; !ok {
				order = append(order, cv)
			}
			who[cv] = append(who[cv], metrics[i].Name)
		}
	}
	out := make([]string, 0, len(order))
	for _, cv := range order {
		if len(who[cv]) < len(cs) {
			cv = englishList(who[cv]) + ": " + cv
		}
		out = append(out, cv)
	}
	return out
}

// eachRow calls f for each row of the table's body in order: for each
// data set (block = its index) and then for the average ranks (block =
// len(Datasets)), each method j's cells.
func (t *Table) eachRow(f func(block, j int, cells []Cell)) {
	for i := range t.Datasets {
		for j := range t.Methods {
			f(i, j, t.Cells[i][j])
		}
	}
	for j := range t.Methods {
		f(len(t.Datasets), j, t.Ranks[j])
	}
}

// Name is a method's display name.
func (t *Table) Name(method string) string {
	if n := t.Spec.MethodNames[method]; n != "" {
		return n
	}
	return method
}

// sameChoice reports whether a and b are at the same d-choice.
func sameChoice(a, b Comparison) bool {
	eq := func(x, y *float64) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	eqi := func(x, y *int) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	return eqi(a.D, b.D) && eq(a.Percent, b.Percent)
}

// fixed writes v with n decimals, "" when nil.
func fixed(v *float64, n int) string {
	if v == nil {
		return ""
	}
	return strconv.FormatFloat(*v, 'f', n, 64)
}

// marks marks the best and second of texts, numbers as written: the
// eligible ones equal to the best value Best, those equal to the best of
// the rest Second. Empty texts and ineligible ones are Plain.
func marks(texts []string, eligible []bool, lower bool) []Mark {
	out := make([]Mark, len(texts))
	vals := make([]float64, len(texts))
	var distinct []float64
	for j, s := range texts {
		vals[j] = math.NaN()
		if s == "" || !eligible[j] {
			continue
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			continue
		}
		vals[j] = v
		if !slices.Contains(distinct, v) {
			distinct = append(distinct, v)
		}
	}
	slices.Sort(distinct)
	if !lower {
		slices.Reverse(distinct)
	}
	for j, v := range vals {
		switch {
		case len(distinct) > 0 && v == distinct[0]:
			out[j] = Best
		case len(distinct) > 1 && v == distinct[1]:
			out[j] = Second
		}
	}
	return out
}

// cellStyle is how a writer marks up a table's cells.
type cellStyle struct {
	// best and second mark up a number; pm goes between a mean and its
	// std; none is an undefined number.
	best, second func(string) string
	pm, none     string
}

// The writers' cell styles.
var (
	texStyle = cellStyle{best: func(s string) string { return `\textbf{` + s + `}` }, second: func(s string) string { return `\underline{` + s + `}` },
		pm: ` $\pm$ `, none: "--"}
	mdStyle = cellStyle{best: func(s string) string { return "**" + s + "**" }, second: func(s string) string { return "<ins>" + s + "</ins>" },
		pm: " ± ", none: "–"}
)

// cell writes c: the number marked up by its mark, then pm and the std,
// or none when undefined.
func (st cellStyle) cell(c Cell) string {
	if c.Text == "" {
		return st.none
	}
	s := c.Text
	switch c.Mark {
	case Best:
		s = st.best(s)
	case Second:
		s = st.second(s)
	}
	if c.Std != "" {
		s += st.pm + c.Std
	}
	return s
}

// optional writes v with format, or none when nil.
func (st cellStyle) optional(v *float64, format func(float64) string) string {
	if v == nil {
		return st.none
	}
	return format(*v)
}
