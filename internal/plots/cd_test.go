package plots

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
)

// demsar is the worked example of Demšar (JMLR 2006) §3.2.2, table 6 and
// fig. 1: four variants of C4.5 ranked on 14 data sets. The critical
// differences are eq. 5's, CD = q_α·√(k(k+1)/6N), with q_0.05 = 2.569 and
// q_0.10 = 2.291 for k = 4 from his table 5(a): 1.25 and 1.12 in the text.
func demsar() (methods []string, ranks []float64, cd05, cd10 float64) {
	methods = []string{"C4.5", "C4.5+m", "C4.5+cf", "C4.5+m+cf"}
	ranks = []float64{3.143, 2.000, 2.893, 1.964}
	f := math.Sqrt(4 * 5 / (6.0 * 14))
	return methods, ranks, 2.569 * f, 2.291 * f
}

// cliquesBrute is Orange's get_lines (graph_ranks) with Demšar's strict
// "< cd": every pair closer than cd, less those inside a longer pair.
func cliquesBrute(ranks []float64, cd float64) [][2]int {
	var close [][2]int
	for i := range ranks {
		for j := i + 1; j < len(ranks); j++ {
			if math.Abs(ranks[i]-ranks[j]) < cd {
				close = append(close, [2]int{i, j})
			}
		}
	}
	var out [][2]int
	for _, p := range close {
		longest := true
		for _, q := range close {
			if (q[0] <= p[0] && q[1] > p[1]) || (q[0] < p[0] && q[1] >= p[1]) {
				longest = false
			}
		}
		if longest {
			out = append(out, p)
		}
	}
	return out
}

func TestCliques(t *testing.T) {
	_, r, cd05, cd10 := demsar()
	sorted := slices.Clone(r)
	slices.Sort(sorted) // C4.5+m+cf, C4.5+m, C4.5+cf, C4.5
	if math.Abs(cd05-1.25) > 0.005 || math.Abs(cd10-1.12) > 0.005 {
		t.Fatalf("Demšar's CDs: got %.3f and %.3f, want 1.25 and 1.12", cd05, cd10)
	}
	cases := []struct {
		name  string
		ranks []float64
		cd    float64
		want  [][2]int
	}{
		// §3.2.2: at α = 0.05 no pair differs; at 0.10 C4.5 is worse
		// than C4.5+m and C4.5+m+cf, and C4.5+cf could be in either
		// group.
		{"Demšar α = 0.05", sorted, cd05, [][2]int{{0, 3}}},
		{"Demšar α = 0.10", sorted, cd10, [][2]int{{0, 2}, {2, 3}}},
		{"no CD", sorted, 0, nil},
		{"NaN CD", sorted, math.NaN(), nil},
		{"negative CD", sorted, -1, nil},
		{"all apart", []float64{1, 2, 3}, 0.5, nil},
		{"a difference of exactly CD is significant", []float64{1, 2}, 1, nil},
		{"two within CD", []float64{1.4, 1.6}, 1.39, [][2]int{{0, 1}}},
		{"contained runs dropped", []float64{1, 1.2, 1.4, 3, 3.2}, 0.5, [][2]int{{0, 2}, {3, 4}}},
		{"a chain", []float64{1, 1.4, 1.8, 2.2}, 0.5, [][2]int{{0, 1}, {1, 2}, {2, 3}}},
		{"overlapping runs", []float64{1, 1.3, 1.6, 1.9, 2.2, 4}, 0.7, [][2]int{{0, 2}, {1, 3}, {2, 4}}},
		{"ties", []float64{2, 2, 2}, 0.1, [][2]int{{0, 2}}},
		{"a loner between groups", []float64{1, 1.1, 2.5, 4, 4.1}, 0.5, [][2]int{{0, 1}, {3, 4}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := cliques(c.ranks, c.cd); !slices.Equal(got, c.want) {
				t.Errorf("cliques(%v, %v) = %v, want %v", c.ranks, c.cd, got, c.want)
			}
		})
	}
	// Against Orange's all-pairs rule on random ranks.
	rng := rand.New(rand.NewPCG(6, 6))
	for trial := range 2000 {
		k := 2 + rng.IntN(29)
		ranks := make([]float64, k)
		for i := range ranks {
			ranks[i] = 1 + math.Round(float64(k-1)*rng.Float64()*4)/4 // quarters, so ties and exact CDs occur
		}
		slices.Sort(ranks)
		cd := math.Round(rng.Float64()*float64(k)*4) / 8
		if got, want := cliques(ranks, cd), cliquesBrute(ranks, cd); !slices.Equal(got, want) {
			t.Fatalf("trial %d: cliques(%v, %v) = %v, want %v (all pairs)", trial, ranks, cd, got, want)
		}
	}
}

// cdNames returns k method names, every third one long.
func cdNames(k int, long string) []string {
	names := make([]string, k)
	for i := range names {
		names[i] = fmt.Sprintf("method-%d", i+1)
		if i%3 == 1 {
			names[i] = fmt.Sprintf("%s-%d", long, i)
		}
	}
	return names
}

// spreadRanks returns k ascending average ranks in [1, k], seeded.
func spreadRanks(k int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, seed))
	r := make([]float64, k)
	for i := range r {
		r[i] = 1 + float64(k-1)*rng.Float64()
	}
	slices.Sort(r)
	return r
}

func overlaps(a, b vg.Rectangle) bool {
	return a.Min.X < b.Max.X && b.Min.X < a.Max.X && a.Min.Y < b.Max.Y && b.Min.Y < a.Max.Y
}

func TestCDLayout(t *testing.T) {
	long := strings.Repeat("a-very-long-method-name", 4)
	for _, k := range []int{2, 3, 4, 7, 8, 15, 16, 29, 30} {
		for _, cd := range []float64{0, 0.8, 0.25 * float64(k), float64(k)} {
			t.Run(fmt.Sprintf("k=%d cd=%g", k, cd), func(t *testing.T) {
				names, ranks := cdNames(k, long), spreadRanks(k, uint64(k))
				l := newCDLayout(names, ranks, cd, cdPreferredWidth, cdLeast("Critical difference diagram"))
				if l.step < cdMinStep-1e-9 {
					t.Errorf("got %v pt per rank, want at least %v", l.step, cdMinStep)
				}
				if got, want := l.x(float64(k)), l.dataW-(l.nameRW+cdNameGap+l.rankW+cdLineGap+cdStub); math.Abs(float64(got-want)) > 1e-9 {
					t.Errorf("rank k at %v, want %v (the right text column after it)", got, want)
				}
				// The better half on the left, best on top; the
				// worst on top on the right.
				if l.nLeft != (k+1)/2 || l.row(0) != 0 || l.row(k-1) != 0 || l.elbowEnd(0) >= l.x(1) || l.elbowEnd(k-1) <= l.x(float64(k)) {
					t.Errorf("got %d on the left, best on row %d, worst on row %d; want %d, 0 and 0", l.nLeft, l.row(0), l.row(k-1), (k+1)/2)
				}
				// No text overlaps other text, all of it lies inside
				// the diagram, outside the axis' span and below the
				// bars.
				lowest := l.yAxis
				if len(l.levels) > 0 {
					lowest = l.yBar0 + vg.Length(maxLevel(l.levels))*cdBarStep + 1.5 // half a bar
				}
				var boxes []vg.Rectangle
				for i := range k {
					rb, nb := l.textBoxes(i)
					boxes = append(boxes, rb, nb)
				}
				for a, b := range boxes {
					if b.Min.X < 0 || b.Max.X > l.dataW || b.Max.Y > l.height {
						t.Errorf("text box %d %v lies outside the diagram (0, 0)–(%v, %v)", a, b, l.dataW, l.height)
					}
					if b.Max.X > l.x(1)-cdStub+1e-9 && b.Min.X < l.x(float64(k))+cdStub-1e-9 {
						t.Errorf("text box %d %v reaches into the axis' span %v…%v", a, b, l.x(1), l.x(float64(k)))
					}
					if b.Min.Y < lowest {
						t.Errorf("text box %d %v rises above %v, the axis or the lowest bar", a, b, lowest)
					}
					for c := a + 1; c < len(boxes); c++ {
						if overlaps(b, boxes[c]) {
							t.Errorf("text boxes %d %v and %d %v overlap", a, b, c, boxes[c])
						}
					}
				}
				// One bar per group, between the axis and the first
				// row; bars on one level clear of each other.
				if got, want := len(l.levels), len(cliques(ranks, cd)); got != want {
					t.Fatalf("got %d bars, want %d", got, want)
				}
				for g, lv := range l.levels {
					y := l.yBar0 + vg.Length(lv)*cdBarStep
					if y <= l.yAxis || y >= l.yRow0-l.rowH/2 {
						t.Errorf("bar %d at %v, want between the axis (%v) and the first row (%v)", g, y, l.yAxis, l.yRow0-l.rowH/2)
					}
					for h := range g {
						if l.levels[h] != lv {
							continue
						}
						a, b := l.groups[h], l.groups[g]
						if gap := (l.x(l.ranks[b[0]]) - cdBarExt) - (l.x(l.ranks[a[1]]) + cdBarExt); gap < cdBarGap {
							t.Errorf("bars %d and %d share level %d with a gap of %v, want at least %v", h, g, lv, gap, cdBarGap)
						}
					}
				}
				// Long names are cut: the diagram is as wide as with
				// names of maxNameRunes.
				cut := newCDLayout(cdNames(k, long[:maxNameRunes-3]), ranks, cd, cdPreferredWidth, cdLeast("Critical difference diagram"))
				if l.dataW > cut.dataW+vg.Points(20) {
					t.Errorf("got %v pt wide with long names, %v with names of %d runes; want about the same", l.dataW, cut.dataW, maxNameRunes)
				}
			})
		}
	}
}

func maxLevel(levels []int) int {
	m := -1
	for _, l := range levels {
		m = max(m, l)
	}
	return m
}

func TestCriticalDifferenceMeta(t *testing.T) {
	methods, ranks, _, cd10 := demsar()
	for _, c := range []struct {
		name, note, subtitle string
		cd                   float64
	}{
		{"α = 0.10", "CD = 1.12 at α = 0.10", "a bar joins methods that do not differ significantly (Nemenyi test, α = 0.10)", cd10},
		{"no CD", "no critical difference", "no critical difference (no significance test), so no groups are drawn", math.NaN()},
	} {
		t.Run(c.name, func(t *testing.T) {
			fig, err := CriticalDifference(CriticalDifferenceInput{Methods: methods, AvgRanks: ranks, CD: c.cd, Alpha: "0.10", Datasets: 14})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(fig.subtitle, "average ranks over 14 data sets, 1 = best") || !strings.Contains(fig.subtitle, c.subtitle) {
				t.Errorf("got subtitle %q, want the data sets and %q", fig.subtitle, c.subtitle)
			}
			m := fig.Meta()
			wantCols := []string{"C4.5+m+cf", "C4.5+m", "C4.5+cf", "C4.5"}
			wantRanks := []float64{1.964, 2.000, 2.893, 3.143}
			if m.Kind != "cd" || !slices.Equal(m.Cols, wantCols) || len(m.Values) != 1 || !slices.Equal(m.Values[0], wantRanks) || m.Note != c.note {
				t.Fatalf("got kind %q, cols %v, values %v, note %q; want cd, %v, [%v], %q", m.Kind, m.Cols, m.Values, m.Note, wantCols, wantRanks, c.note)
			}
			// Meta's x is the rank axis: each method's elbow
			// descends at its rank, and between two elbows there
			// is white.
			cd := c.cd
			if math.IsNaN(cd) {
				cd = 0
			}
			l := newCDLayout(m.Cols, m.Values[0], cd, cdPreferredWidth, cdLeast("Critical difference diagram"))
			img := decodePNG(t, fig)
			yOff := l.yAxis + vg.Points(3) // just under the axis, above every bar
			for i, r := range m.Values[0] {
				vx, vy := toView(m, r, (l.height - yOff).Points())
				if got := pixelAt(img, vx, vy); !near(got, inkColor(), 60) {
					t.Errorf("%s: pixel at (%.1f, %.1f), rank %v on Meta's axis, is %v; want its elbow's ink", m.Cols[i], vx, vy, r, got)
				}
			}
			vx, vy := toView(m, 2.45, (l.height - yOff).Points())
			if got := pixelAt(img, vx, vy); !near(got, rgb(0xFFFFFF), 10) {
				t.Errorf("pixel at rank 2.45, between elbows, is %v; want white", got)
			}
		})
	}
	// One group holding every method says so.
	fig, err := CriticalDifference(CriticalDifferenceInput{Methods: methods, AvgRanks: ranks, CD: 1.25, Alpha: "0.05", Datasets: 14})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(fig.subtitle, "; no two methods differ significantly") {
		t.Errorf("got subtitle %q, want it to say that no two methods differ", fig.subtitle)
	}
}
