package views

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"mldr/internal/analysis"
	"mldr/internal/dataset"
	"mldr/internal/explore"
	"mldr/internal/jobs"
	"mldr/internal/plots"
	"mldr/web/templates"
)

// Projection plots a method's projected rows on two components, q's (by
// default 1 and 2), coloured by q.Colour (by default the first of the
// options), and gives its text alternative and the colour options. A
// component above the method's d or a colour the job's labels do not
// have is a *BadOption; results whose labels are gone, *Undrawable.
func (b *Builder) Projection(res *jobs.Results, m jobs.MethodResult, q PlotOptions) (*plots.Figure, string, []templates.Option, error) {
	return b.projection(res, m, q, b.loader())
}

func (b *Builder) projection(res *jobs.Results, m jobs.MethodResult, q PlotOptions, data *loader) (*plots.Figure, string, []templates.Option, error) {
	d := m.Eigen.D
	if err := q.checkComponents(m); err != nil {
		return nil, "", nil, err
	}
	q.X, q.Y = q.components(d)
	p, err := b.jobs.Projected(res.Job.ID, m.Method, q.X-1, q.Y-1)
	if err != nil {
		return nil, "", nil, err
	}
	v, err := data.viewOf(res.Job, m.Manifest, p)
	if err != nil {
		return nil, "", nil, err
	}
	opts := colourOptions(v)
	if q.Colour == "" {
		q.Colour = opts[0].Value
	}
	group, legend, seq, err := groups(v, q.Colour)
	if err != nil {
		return nil, "", nil, err
	}
	in := plots.ProjectionInput{Group: group, Legend: legend, Sequential: seq}
	what := "rows"
	if m.Manifest.Space == analysis.LabelSpace {
		what = "label codes"
	}
	in.Title = fmt.Sprintf("%s: %s on components %d and %d", MethodName(m.Method), what, q.X, q.Y)
	in.XLabel, in.YLabel = fmt.Sprintf("component %d", q.X), fmt.Sprintf("component %d", q.Y)
	for i := range p.Row {
		in.X = append(in.X, p.Coords[i][0])
		if d == 1 {
			in.Y = append(in.Y, 0)
		} else {
			in.Y = append(in.Y, p.Coords[i][1])
		}
		in.Test = append(in.Test, p.Split[i] == "test")
		in.Hover = append(in.Hover, fmt.Sprintf("row %d (%s)", p.Row[i], p.Split[i]))
	}
	f, err := plots.Projection(in)
	alt := fmt.Sprintf("Scatter plot of %d %s of %s on components %d and %d, coloured by %s.", len(p.Row), what, MethodName(m.Method), q.X, q.Y, optionText(opts, q.Colour))
	return f, alt, opts, err
}

func optionText(opts []templates.Option, v string) string {
	for _, o := range opts {
		if o.Value == v {
			return o.Text
		}
	}
	return v
}

// MaxLabelOptions is the most labels a list of choices offers (a page's
// select of every label would grow with q: many MB at 100 000 labels);
// others are named by hand.
const MaxLabelOptions = 1000

// colourOptions lists what may colour a projection's points. It offers
// the first MaxLabelOptions labels; any label still colours the points by
// name (?colour=label:NAME).
func colourOptions(v *explore.View) []templates.Option {
	var o []templates.Option
	labels := v.Names[:min(len(v.Names), MaxLabelOptions)]
	if v.Kind == dataset.MultiDim {
		for _, l := range labels {
			o = append(o, templates.Option{Value: "class:" + l, Text: "class of " + l})
		}
		return append(o, templates.Option{Value: "set", Text: "combination of classes"})
	}
	o = append(o, templates.Option{Value: "count", Text: "number of labels"}, templates.Option{Value: "set", Text: "label set"})
	for _, l := range labels {
		o = append(o, templates.Option{Value: "label:" + l, Text: "label " + l})
	}
	return o
}

// maxGroups is how many groups get their own colour; the rest are grey.
const maxGroups = 7

// groups assigns every row of v a colour group by colour (a key of
// colourOptions, or label:NAME / class:NAME of any label) and names the
// groups; the rows' values are the explorer's (View.Values, View.Sets).
func groups(v *explore.View, colour string) (group []int, legend []string, sequential bool, err error) {
	group = make([]int, v.Rows())
	kind, name, _ := strings.Cut(colour, ":")
	switch {
	case colour == "count" && v.Kind == dataset.MultiLabel:
		n, err := v.Values(colour)
		if err != nil {
			return nil, nil, false, err
		}
		top := 0 // the most labels a row has, so that the palette spans what is there
		for i, c := range n {
			group[i] = min(int(c), maxGroups-1)
			top = max(top, group[i])
		}
		for n := range top + 1 {
			switch {
			case n == maxGroups-1:
				legend = append(legend, fmt.Sprintf("%d or more labels", n))
			case n == 1:
				legend = append(legend, "1 label")
			default:
				legend = append(legend, fmt.Sprintf("%d labels", n))
			}
		}
		return group, legend, true, nil
	case kind == "label" && v.Kind == dataset.MultiLabel:
		if !slices.Contains(v.Names, name) {
			return nil, nil, false, badOption("colour", "colour %q names no label of this job; its labels are %s", cut(colour, maxNameInError), nameList(v.Names))
		}
		has, err := v.Values(colour)
		if err != nil {
			return nil, nil, false, err
		}
		for i, x := range has {
			group[i] = int(x)
		}
		return group, []string{"without " + name, "with " + name}, false, nil
	case kind == "class" && v.Kind == dataset.MultiDim:
		j := slices.Index(v.Names, name)
		if j < 0 {
			return nil, nil, false, badOption("colour", "colour %q names no class variable of this job; its class variables are %s", cut(colour, maxNameInError), nameList(v.Names))
		}
		class, err := v.Values(colour)
		if err != nil {
			return nil, nil, false, err
		}
		keys := make([]string, len(v.Categories[j]))
		for c, cat := range v.Categories[j] {
			keys[c] = name + " = " + cat
		}
		of := make([]int, len(class))
		for i, c := range class {
			of[i] = int(c)
		}
		group, legend = topGroups(keys, of, "other classes")
		return group, legend, false, nil
	case colour == "set":
		sets, _, of := v.Sets()
		keys := make([]string, len(sets))
		named := make([]bool, len(sets))
		for i, s := range of {
			if !named[s] {
				keys[s], named[s] = setName(v, i), true
			}
		}
		group, legend = topGroups(keys, of, "other sets")
		return group, legend, false, nil
	}
	if v.Kind == dataset.MultiDim {
		return nil, nil, false, badOption("colour", "colour must be set or class:NAME (NAME a class variable) for this job's multi-dimensional data, not %q", cut(colour, maxNameInError))
	}
	return nil, nil, false, badOption("colour", "colour must be count, set or label:NAME (NAME a label) for this job's multi-label data, not %q", cut(colour, maxNameInError))
}

// setName names row's label set as the static figure's legend does:
// "{a, b}" (multi-label; "no label" for none) or the classes "{x, y}"
// (multi-dimensional).
func setName(v *explore.View, row int) string {
	var names []string
	if v.Kind == dataset.MultiDim {
		for j, c := range v.Classes(row) {
			names = append(names, v.Categories[j][c])
		}
	} else {
		names = v.LabelNames(row)
	}
	if len(names) == 0 {
		return "no label"
	}
	return "{" + strings.Join(names, ", ") + "}"
}

// topGroups gives the most frequent keys a group each (at most
// maxGroups), in frequency order (ties: by key); the rows of the rest get
// −1 (grey), named other. of gives each row's key as an index into keys;
// keys may repeat (a key's rows are counted together).
func topGroups(keys []string, of []int, other string) ([]int, []string) {
	rows := make([]int, len(keys))
	for _, k := range of {
		rows[k]++
	}
	count := map[string]int{}
	for k, n := range rows {
		if n > 0 {
			count[keys[k]] += n
		}
	}
	uniq := make([]string, 0, len(count))
	for k := range count {
		uniq = append(uniq, k)
	}
	slices.SortFunc(uniq, func(a, b string) int { return cmp.Or(cmp.Compare(count[b], count[a]), cmp.Compare(a, b)) })
	limit := maxGroups
	if len(uniq) > maxGroups {
		limit = maxGroups - 1 // leave room for "other" in the legend
	}
	idx := map[string]int{}
	var legend []string
	for i, k := range uniq[:min(limit, len(uniq))] {
		idx[k] = i
		legend = append(legend, fmt.Sprintf("%s (%d)", k, count[k]))
	}
	at := make([]int, len(keys)) // each key's group
	for k, key := range keys {
		g, ok := idx[key]
		if !ok {
			g = -1
		}
		at[k] = g
	}
	group := make([]int, len(of))
	for i, k := range of {
		group[i] = at[k]
	}
	if len(uniq) > limit {
		legend = append(legend, other)
	}
	return group, legend
}
