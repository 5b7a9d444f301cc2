package explore

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// labelsOf builds a Labels from each row's label indices.
func labelsOf(names []string, rows [][]int32) *Labels {
	l := &Labels{Names: names, Start: make([]int32, 1, len(rows)+1)}
	for _, r := range rows {
		l.Index = append(l.Index, r...)
		l.Start = append(l.Start, int32(len(l.Index)))
	}
	return l
}

// near reports whether got is want to rel relative (exactly when want is 0).
func near(got, want, rel float64) bool {
	return math.Abs(got-want) <= rel*math.Abs(want)
}

// enrichGolden is testdata/enrich.json, written by testdata/enrich_check.py
// with Debian's python3 (scipy 1.10.1, numpy 1.24).
type enrichGolden struct {
	Scipy      string    `json:"scipy"`
	Names      []string  `json:"names"`
	Rows       [][]int32 `json:"rows"`
	Selections []struct {
		Note    string    `json:"note"`
		Rows    []int     `json:"rows"`
		MaxSets int       `json:"max_sets"`
		Want    Selection `json:"want"`
	} `json:"selections"`
}

func TestEnrichGolden(t *testing.T) {
	b, err := os.ReadFile("testdata/enrich.json")
	if err != nil {
		t.Fatal(err)
	}
	var g enrichGolden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	if g.Scipy != "1.10.1" || len(g.Rows) != 2000 || len(g.Names) != 12 || len(g.Selections) < 5 {
		t.Fatalf("golden from scipy %s with %d rows, %d labels, %d selections; want 1.10.1, 2000, 12, at least 5",
			g.Scipy, len(g.Rows), len(g.Names), len(g.Selections))
	}
	l := labelsOf(g.Names, g.Rows)
	for _, s := range g.Selections {
		t.Run(s.Note, func(t *testing.T) {
			got := Enrich(l, s.Rows, s.MaxSets)
			want := s.Want
			if got.Count != want.Count {
				t.Errorf("count %d, want %d", got.Count, want.Count)
			}
			if len(got.Labels) != len(want.Labels) {
				t.Fatalf("%d labels, want %d", len(got.Labels), len(want.Labels))
			}
			for i, w := range want.Labels {
				e := got.Labels[i]
				if e.Label != w.Label || e.InSelection != w.InSelection || e.Overall != w.Overall {
					t.Errorf("labels[%d] = %s k=%d K=%d, want %s k=%d K=%d (order by p, q, name)",
						i, e.Label, e.InSelection, e.Overall, w.Label, w.InSelection, w.Overall)
					continue
				}
				tol := 1e-12
				if w.P < 1e-100 {
					tol = 1e-9
				}
				if !near(e.Lift, w.Lift, 1e-14) {
					t.Errorf("%s: lift %v, want %v", w.Label, e.Lift, w.Lift)
				}
				if !near(e.P, w.P, tol) {
					t.Errorf("%s: p %v, want %v (scipy hypergeom.sf(%d, …))", w.Label, e.P, w.P, w.InSelection-1)
				}
				if !near(e.Q, w.Q, tol) {
					t.Errorf("%s: q %v, want %v (numpy BH)", w.Label, e.Q, w.Q)
				}
			}
			if !reflect.DeepEqual(got.LabelSets, want.LabelSets) {
				t.Errorf("label sets\n got %v\nwant %v", got.LabelSets, want.LabelSets)
			}
		})
	}
}

func TestEnrichHand(t *testing.T) {
	// rows: 0 {a}, 1 {a, b}, 2 {b}, 3 {}, 4 {a, c}; d on no row
	names := []string{"a", "b", "c", "d"}
	l := labelsOf(names, [][]int32{{0}, {0, 1}, {1}, {}, {0, 2}})
	set := func(count int, labels ...string) LabelSet {
		if labels == nil {
			labels = []string{}
		}
		return LabelSet{Labels: labels, Count: count}
	}
	cases := []struct {
		name    string
		rows    []int
		maxSets int
		want    Selection
	}{
		{
			// N = 5, n = 2. a: k=2 K=3, p = C(3,2)/C(5,2) = 3/10, lift (2/2)/(3/5).
			// b: k=1 K=2, p = 1 − C(3,2)/C(5,2) = 7/10, lift (1/2)/(2/5).
			// c: k=0 K=1, p = 1, lift 0. d: K = 0, p = 1, lift 0.
			// BH over 3/10, 7/10, 1, 1: 3/10·4, 7/10·4/2, 1, 1 → 1, 1, 1, 1 after the cap.
			name: "two rows", rows: []int{1, 0}, maxSets: -1,
			want: Selection{Count: 2, Labels: []LabelEnrichment{
				{"a", 2, 3, 5.0 / 3, 0.3, 1},
				{"b", 1, 2, 1.25, 0.7, 1},
				{"c", 0, 1, 0, 1, 1},
				{"d", 0, 0, 0, 1, 1},
			}, LabelSets: []LabelSet{set(1, "a"), set(1, "a", "b")}},
		},
		{
			// a: k=3 K=3 n=3, p = 1/C(5,3) = 1/10; c: k=1 K=1, p = 3/5; b: k=1 K=2,
			// p = 1 − C(3,3)/C(5,3) = 9/10. BH: 1/10·4 = 0.4, 3/5·2 = 1.2, 9/10·4/3, 1 → 0.4, 1, 1, 1.
			name: "every a", rows: []int{0, 1, 4}, maxSets: 2,
			want: Selection{Count: 3, Labels: []LabelEnrichment{
				{"a", 3, 3, 5.0 / 3, 0.1, 0.4},
				{"c", 1, 1, 5.0 / 3, 0.6, 1},
				{"b", 1, 2, 5.0 / 6, 0.9, 1},
				{"d", 0, 0, 0, 1, 1},
			}, LabelSets: []LabelSet{set(1, "a"), set(1, "a", "b")}},
		},
		{
			name: "the row with no label", rows: []int{3}, maxSets: 5,
			want: Selection{Count: 1, Labels: []LabelEnrichment{
				{"a", 0, 3, 0, 1, 1}, {"b", 0, 2, 0, 1, 1}, {"c", 0, 1, 0, 1, 1}, {"d", 0, 0, 0, 1, 1},
			}, LabelSets: []LabelSet{set(1)}},
		},
		{
			name: "every row", rows: []int{4, 3, 2, 1, 0}, maxSets: 0,
			want: Selection{Count: 5, Labels: []LabelEnrichment{
				{"a", 3, 3, 1, 1, 1}, {"b", 2, 2, 1, 1, 1}, {"c", 1, 1, 1, 1, 1}, {"d", 0, 0, 0, 1, 1},
			}, LabelSets: []LabelSet{}},
		},
		{
			name: "empty selection", rows: []int{}, maxSets: -1,
			want: Selection{Count: 0, Labels: []LabelEnrichment{
				{"a", 0, 3, 0, 1, 1}, {"b", 0, 2, 0, 1, 1}, {"c", 0, 1, 0, 1, 1}, {"d", 0, 0, 0, 1, 1},
			}, LabelSets: []LabelSet{}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Enrich(l, c.rows, c.maxSets)
			if got.Count != c.want.Count {
				t.Errorf("count %d, want %d", got.Count, c.want.Count)
			}
			if len(got.Labels) != len(c.want.Labels) {
				t.Fatalf("got %d labels, want %d", len(got.Labels), len(c.want.Labels))
			}
			for i, w := range c.want.Labels {
				e := got.Labels[i]
				if e.Label != w.Label || e.InSelection != w.InSelection || e.Overall != w.Overall ||
					!near(e.Lift, w.Lift, 1e-15) || !near(e.P, w.P, 1e-15) || !near(e.Q, w.Q, 1e-15) {
					t.Errorf("labels[%d] = %+v, want %+v", i, e, w)
				}
			}
			if !reflect.DeepEqual(got.LabelSets, c.want.LabelSets) {
				t.Errorf("label sets %v, want %v", got.LabelSets, c.want.LabelSets)
			}
		})
	}
}

// TestEnrichJSON checks that edge cases encode (a NaN or an infinity would
// make json.Marshal fail) and that empty lists are [] and not null.
func TestEnrichJSON(t *testing.T) {
	cases := []struct {
		name string
		l    *Labels
		rows []int
		want string
	}{
		{"no rows at all", &Labels{Names: []string{"a"}}, nil,
			`{"count":0,"labels":[{"label":"a","in_selection":0,"overall":0,"lift":0,"p":1,"q":1}],"label_sets":[]}`},
		{"no labels", labelsOf(nil, [][]int32{{}, {}}), []int{1},
			`{"count":1,"labels":[],"label_sets":[{"labels":[],"count":1}]}`},
		{"label on every row, all selected", labelsOf([]string{"x=1"}, [][]int32{{0}, {0}}), []int{0, 1},
			`{"count":2,"labels":[{"label":"x=1","in_selection":2,"overall":2,"lift":1,"p":1,"q":1}],"label_sets":[{"labels":["x=1"],"count":2}]}`},
		{"empty selection", labelsOf([]string{"a"}, [][]int32{{0}, {}}), []int{},
			`{"count":0,"labels":[{"label":"a","in_selection":0,"overall":1,"lift":0,"p":1,"q":1}],"label_sets":[]}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := json.Marshal(Enrich(c.l, c.rows, -1))
			if err != nil {
				t.Fatalf("json.Marshal: %v", err)
			}
			if string(b) != c.want {
				t.Errorf("got  %s\nwant %s", b, c.want)
			}
		})
	}
}

func TestEnrichPanicsOnBadRows(t *testing.T) {
	l := labelsOf([]string{"a"}, [][]int32{{0}, {}, {0}})
	cases := []struct {
		rows []int
		want string
	}{
		{[]int{0, 3}, "explore: Enrich: row 3 outside [0, 3)"},
		{[]int{-1}, "explore: Enrich: row -1 outside [0, 3)"},
		{[]int{2, 0, 2}, "explore: Enrich: row 2 selected twice"},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.rows), func(t *testing.T) {
			defer func() {
				if r := recover(); r != c.want {
					t.Errorf("Enrich(%v) panicked with %v, want %q", c.rows, r, c.want)
				}
			}()
			Enrich(l, c.rows, -1)
		})
	}
}

// referenceSets counts label sets the slow way, a string key per row.
func referenceSets(l *Labels, rows []int) map[string]int {
	m := make(map[string]int)
	for _, r := range rows {
		m[fmt.Sprint(l.row(r))]++
	}
	return m
}

// TestLabelSetsAgainstStrings checks the hashed counting against a count by
// strings, with the real hash and with one that makes every set collide (so
// the chains are walked), on random data.
func TestLabelSetsAgainstStrings(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	names := make([]string, 9)
	for j := range names {
		names[j] = fmt.Sprintf("l%d", j)
	}
	rows := make([][]int32, 3000)
	for i := range rows {
		for j := range names {
			if rng.Float64() < 0.25 {
				rows[i] = append(rows[i], int32(j))
			}
		}
	}
	l := labelsOf(names, rows)
	sel := rng.Perm(len(rows))[:1200]
	want := referenceSets(l, sel)
	for _, h := range []struct {
		name string
		f    func([]int32) uint64
	}{{"hashIndices", hashIndices}, {"every set colliding", func([]int32) uint64 { return 7 }}} {
		t.Run(h.name, func(t *testing.T) {
			count := func() *setCounter {
				c := newSetCounter(l, h.f, len(sel))
				for _, r := range sel {
					c.add(r, l.row(r))
				}
				return c
			}
			got := count().top(-1)
			for _, m := range []int{0, 1, 7, 50, len(got) - 1, len(got), len(got) + 3} {
				if top := count().top(m); !reflect.DeepEqual(top, got[:min(m, len(got))]) {
					t.Errorf("top(%d) = %v, want the first %d of top(-1)", m, top, m)
				}
			}
			if len(got) != len(want) {
				t.Fatalf("%d label sets, want %d", len(got), len(want))
			}
			index := make(map[string]int32, len(names))
			for j, n := range names {
				index[n] = int32(j)
			}
			total := 0
			for i, s := range got {
				idx := make([]int32, len(s.Labels))
				for j, n := range s.Labels {
					idx[j] = index[n]
				}
				if key := fmt.Sprint(idx); want[key] != s.Count {
					t.Errorf("set %v counted %d, want %d", s.Labels, s.Count, want[key])
				}
				if i > 0 {
					prev := got[i-1]
					if prev.Count < s.Count || (prev.Count == s.Count && !setBefore(prev.Labels, s.Labels, index)) {
						t.Errorf("set %v (%d) after %v (%d): want most frequent first, ties by label indices",
							s.Labels, s.Count, prev.Labels, prev.Count)
					}
				}
				total += s.Count
			}
			if total != len(sel) {
				t.Errorf("label sets count %d rows, want %d", total, len(sel))
			}
		})
	}
}

func setBefore(a, b []string, index map[string]int32) bool {
	return slices.CompareFunc(a, b, func(x, y string) int { return int(index[x] - index[y]) }) < 0
}

// TestEnrichSortsTiesByName checks the order of labels whose p and q are
// equal: by name.
func TestEnrichSortsTiesByName(t *testing.T) {
	l := labelsOf([]string{"zeta", "alpha", "mu"}, [][]int32{{0, 1, 2}, {}, {0, 1, 2}, {}})
	got := Enrich(l, []int{0}, -1)
	var order []string
	for _, e := range got.Labels {
		order = append(order, e.Label)
	}
	if want := "alpha mu zeta"; strings.Join(order, " ") != want {
		t.Errorf("order %v, want %s (equal p and q, then by name)", order, want)
	}
}
