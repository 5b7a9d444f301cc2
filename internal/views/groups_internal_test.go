package views

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/dataset"
	"mldr/internal/explore"
	"mldr/internal/jobs"
)

// oldGroups is the projection's grouping as internal/handlers/figures.go
// had it before it read the explorer's View (6a00146), from the rows'
// label values y: the reference that groups must equal.
func oldGroups(ds *dataset.Dataset, y [][]float64, colour string) ([]int, []string, bool) {
	group := make([]int, len(y))
	top := func(keys []string, other string) ([]int, []string) {
		count := map[string]int{}
		for _, k := range keys {
			count[k]++
		}
		uniq := make([]string, 0, len(count))
		for k := range count {
			uniq = append(uniq, k)
		}
		slices.SortFunc(uniq, func(a, b string) int { return cmp.Or(cmp.Compare(count[b], count[a]), cmp.Compare(a, b)) })
		limit := maxGroups
		if len(uniq) > maxGroups {
			limit = maxGroups - 1
		}
		idx := map[string]int{}
		var legend []string
		for i, k := range uniq[:min(limit, len(uniq))] {
			idx[k] = i
			legend = append(legend, fmt.Sprintf("%s (%d)", k, count[k]))
		}
		g := make([]int, len(keys))
		for i, k := range keys {
			at, ok := idx[k]
			if !ok {
				at = -1
			}
			g[i] = at
		}
		if len(uniq) > limit {
			legend = append(legend, other)
		}
		return g, legend
	}
	switch {
	case colour == "count":
		var legend []string
		most := 0
		for i, row := range y {
			n := 0
			for _, v := range row {
				n += int(v)
			}
			group[i] = min(n, maxGroups-1)
			most = max(most, group[i])
		}
		for n := range most + 1 {
			switch {
			case n == maxGroups-1:
				legend = append(legend, fmt.Sprintf("%d or more labels", n))
			case n == 1:
				legend = append(legend, "1 label")
			default:
				legend = append(legend, fmt.Sprintf("%d labels", n))
			}
		}
		return group, legend, true
	case strings.HasPrefix(colour, "label:"):
		j := ds.Labels.Index(strings.TrimPrefix(colour, "label:"))
		for i, row := range y {
			group[i] = int(row[j])
		}
		return group, []string{"without " + ds.Labels.At(j), "with " + ds.Labels.At(j)}, false
	case strings.HasPrefix(colour, "class:"):
		j := ds.Labels.Index(strings.TrimPrefix(colour, "class:"))
		keys := make([]string, len(y))
		for i, row := range y {
			keys[i] = ds.Labels.At(j) + " = " + ds.Categories[j][int(row[j])]
		}
		g, legend := top(keys, "other classes")
		return g, legend, false
	}
	keys := make([]string, len(y))
	for i, row := range y {
		var names []string
		for j, v := range row {
			switch {
			case ds.Kind == dataset.MultiDim:
				names = append(names, ds.Categories[j][int(v)])
			case v != 0:
				names = append(names, ds.Labels.At(j))
			}
		}
		keys[i] = "{" + strings.Join(names, ", ") + "}"
		if keys[i] == "{}" {
			keys[i] = "no label"
		}
	}
	g, legend := top(keys, "other sets")
	return g, legend, false
}

// TestGroupsAsBefore: the projection's groups and legends, read from the
// explorer's View, are those the figure drew before, for every colour
// option, on data with ties, many sets (grey "other"), test rows and
// classes that share names across variables.
func TestGroupsAsBefore(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	random := func(kind dataset.Kind, rows int, cats [][]string, labels []string, p float64) *dataset.Dataset {
		ds := &dataset.Dataset{Kind: kind, Labels: dataset.ListNames(labels), Categories: cats, Y: mat.NewDense(rows, len(labels), nil)}
		for i := range rows {
			for j := range labels {
				v := 0.0
				switch {
				case kind == dataset.MultiDim:
					v = float64(rng.IntN(len(cats[j])))
				case rng.Float64() < p:
					v = 1
				}
				ds.Y.Set(i, j, v)
			}
		}
		return ds
	}
	ml := []string{"b", "a", "c d", "e,f", "g", "h", "i", "j"}
	md := []string{"u", "v", "w"}
	mdCats := [][]string{{"x", "y", "z"}, {"x", "q"}, {"p", "q", "r", "s"}}
	for _, tc := range []struct {
		name        string
		train, test *dataset.Dataset
	}{
		{"multi-label, few rows", random(dataset.MultiLabel, 12, nil, ml[:3], 0.4), nil},
		{"multi-label, many sets", random(dataset.MultiLabel, 400, nil, ml, 0.3), nil},
		{"multi-label, sparse, with a test set", random(dataset.MultiLabel, 150, nil, ml, 0.05), random(dataset.MultiLabel, 50, nil, ml, 0.05)},
		{"multi-label, dense", random(dataset.MultiLabel, 300, nil, ml, 0.9), nil},
		{"multi-dimensional", random(dataset.MultiDim, 200, mdCats, md, 0), random(dataset.MultiDim, 30, mdCats, md, 0)},
		{"multi-dimensional, few rows", random(dataset.MultiDim, 5, mdCats, md, 0), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &jobs.Projected{}
			var y [][]float64
			n, _ := tc.train.Y.Dims()
			for i := range n {
				p.Row, p.Split = append(p.Row, i+1), append(p.Split, jobs.PartTrain)
				y = append(y, tc.train.Y.RawRowView(i))
			}
			if tc.test != nil {
				m, _ := tc.test.Y.Dims()
				for i := range m {
					p.Row, p.Split = append(p.Row, i+1), append(p.Split, jobs.PartTest)
					y = append(y, tc.test.Y.RawRowView(i))
				}
			}
			v, err := explore.NewView(p, jobs.RunLabelsOf(tc.train, tc.test))
			if err != nil {
				t.Fatal(err)
			}
			var keys []string
			for _, o := range colourOptions(v) {
				keys = append(keys, o.Value)
			}
			if tc.train.Kind == dataset.MultiLabel {
				keys = append(keys, "label:"+tc.train.Labels.At(tc.train.Labels.Len()-1))
			}
			for _, key := range keys {
				group, legend, seq, err := groups(v, key)
				if err != nil {
					t.Fatalf("%s: %v", key, err)
				}
				wantGroup, wantLegend, wantSeq := oldGroups(tc.train, y, key)
				if !slices.Equal(group, wantGroup) || !slices.Equal(legend, wantLegend) || seq != wantSeq {
					t.Errorf("%s: got legend %q (sequential %v), groups %v,\nwant %q (%v), %v", key, legend, seq, group, wantLegend, wantSeq, wantGroup)
				}
			}
		})
	}
}
