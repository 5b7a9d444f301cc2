package plots

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"image/color"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
)

// rankData returns the ranks of k methods on n data sets, seeded: a
// permutation per data set, the best two tied on every fourth, and no
// result for method 1 on data set 1.
func rankData(n, k int) RankHeatmapInput {
	rng := rand.New(rand.NewPCG(7, 7))
	base := []string{"pca", "mddmp", "mddmf", "cplst", "plst", "mlsi", "cca", "lpp", "lda", "mlda", "sdem", "ori"}
	in := RankHeatmapInput{Title: "Hamming loss ranks"}
	for j := range k {
		name := base[j%len(base)]
		if j >= len(base) {
			name = fmt.Sprintf("%s-%d", name, j/len(base)+1)
		}
		in.Methods = append(in.Methods, name)
	}
	for i := range n {
		in.Datasets = append(in.Datasets, fmt.Sprintf("dataset-%d", i+1))
		row := make([]float64, k)
		for j, p := range rng.Perm(k) {
			row[j] = float64(p + 1)
		}
		if k > 1 && i%4 == 3 {
			for j, r := range row {
				if r <= 2 {
					row[j] = 1.5
				}
			}
		}
		if i == 1 && k > 1 {
			row[1] = math.NaN()
		}
		in.Ranks = append(in.Ranks, row)
	}
	if n > 2 {
		in.Datasets[2] = "a-data-set-with-a-name-much-longer-than-the-axis-allows"
	}
	if k > 3 {
		in.Methods[3] = "cplst-with-a-very-long-descriptive-name"
	}
	return in
}

func TestRankHeatmapMeta(t *testing.T) {
	for _, size := range [][2]int{{6, 5}, {50, 30}} {
		n, k := size[0], size[1]
		t.Run(fmt.Sprintf("%d×%d", n, k), func(t *testing.T) {
			in := rankData(n, k)
			fig, err := RankHeatmap(in)
			if err != nil {
				t.Fatal(err)
			}
			m := fig.Meta()
			if m.Kind != "ranks" || !slices.Equal(m.Rows, in.Datasets) || !slices.Equal(m.Cols, in.Methods) || len(m.Values) != n || len(m.Avg) != k {
				t.Fatalf("got kind %q, %d rows, %d cols, %d value rows, %d averages; want ranks, %d, %d, %d, %d",
					m.Kind, len(m.Rows), len(m.Cols), len(m.Values), len(m.Avg), n, k, n, k)
			}
			// NaN is 0 in Meta, which JSON carries.
			if m.Values[1][1] != 0 || m.Values[0][0] != in.Ranks[0][0] {
				t.Errorf("got Values[1][1] = %v, Values[0][0] = %v; want 0 (no result) and %v", m.Values[1][1], m.Values[0][0], in.Ranks[0][0])
			}
			if _, err := json.Marshal(m); err != nil {
				t.Errorf("json.Marshal(Meta): %v", err)
			}
			// The average skips the missing result.
			want := 0.0
			for i := 0; i < n; i++ {
				if i != 1 {
					want += in.Ranks[i][1]
				}
			}
			want /= float64(n - 1)
			if math.Abs(m.Avg[1]-want) > 1e-12 {
				t.Errorf("average rank of method 1 = %v, want %v (over the data sets with a result)", m.Avg[1], want)
			}
			if !strings.Contains(fig.subtitle, "— no result (averages over the data sets with a result)") {
				t.Errorf("got subtitle %q, want the missing results explained", fig.subtitle)
			}
			// Each cell, sampled off-centre clear of its number, has
			// its rank's colour (dark for 1, light for k), missing
			// results grey; the average row lies at y = −1.25.
			img := decodePNG(t, fig)
			check := func(what string, x, y, r float64) {
				t.Helper()
				vx, vy := toView(m, x+0.4, y+0.3)
				got := pixelAt(img, vx, vy)
				want := constantFill()
				if !math.IsNaN(r) {
					want = rankColor(r, k)
				}
				if !near(got, want, 10) {
					t.Errorf("%s (rank %v): got colour %v, want %v", what, r, got, want)
				}
			}
			for i, row := range in.Ranks {
				for j, r := range row {
					check(fmt.Sprintf("cell (%d, %d)", i, j), float64(j), float64(n-1-i), r)
				}
			}
			for j := range k {
				check(fmt.Sprintf("average of %d", j), float64(j), -1.25, m.Avg[j])
			}
			// The gap between the data and the average row is white.
			vx, vy := toView(m, 0, -0.625)
			if got := pixelAt(img, vx, vy); !near(got, rgb(0xFFFFFF), 10) {
				t.Errorf("the gap above the average row: got %v, want white", got)
			}
		})
	}
	// Given averages are drawn as given.
	in := rankData(3, 4)
	in.AvgRanks = []float64{1, 2, 3, 4}
	fig, err := RankHeatmap(in)
	if err != nil {
		t.Fatal(err)
	}
	if m := fig.Meta(); !slices.Equal(m.Avg, in.AvgRanks) || strings.Contains(fig.subtitle, "averages over") {
		t.Errorf("got averages %v and subtitle %q, want %v as given", m.Avg, fig.subtitle, in.AvgRanks)
	}
}

func TestRankColor(t *testing.T) {
	// The best is the darkest, and darkness falls with the rank.
	for _, k := range []int{2, 5, 30} {
		prev := -1.0
		for r := 1; r <= k; r++ {
			l := luminance(rankColor(float64(r), k))
			if l <= prev {
				t.Errorf("k = %d: rank %d has luminance %.3f, not above rank %d's %.3f", k, r, l, r-1, prev)
			}
			prev = l
		}
	}
	if got := rankColor(1, 1); got != color.Color(viridis(0)) {
		t.Errorf("rankColor(1, 1) = %v, want the darkest %v", got, viridis(0))
	}
}

func TestRankBarTicks(t *testing.T) {
	cases := []struct {
		k    int
		barH float64
		want string
	}{
		{1, 200, "1"},
		{2, 200, "1 2"},
		{8, 400, "1 2 3 4 5 6 7 8"},
		{12, 230, "1 2 3 4 5 6 7 8 9 10 11 12"},
		{12, 120, "1 3 5 7 9 11"},
		{13, 120, "1 3 5 7 9 11 13"},
		{30, 200, "1 5 10 15 20 25 30"},
		{30, 300, "1 3 5 7 9 11 13 15 17 19 21 23 25 27 29"},
		{30, 500, "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30"},
		{28, 150, "1 5 10 15 20 25 28"},
		{27, 150, "1 5 10 15 20 25"},
		{30, 60, "1 10 20 30"},
	}
	for _, c := range cases {
		ts := rankBarTicks(c.k, vg.Length(c.barH))
		var labels []string
		for i, tk := range ts {
			labels = append(labels, tk.label)
			want := 1.0
			if c.k > 1 {
				var r float64
				fmt.Sscan(tk.label, &r)
				want = 1 - (r-1)/float64(c.k-1)
			}
			if math.Abs(tk.pos-want) > 1e-12 {
				t.Errorf("k = %d, tick %d (%s): got position %v, want %v (1 at the top)", c.k, i, tk.label, tk.pos, want)
			}
		}
		if got := strings.Join(labels, " "); got != c.want {
			t.Errorf("rankBarTicks(%d, %v) labels %q, want %q", c.k, c.barH, got, c.want)
		}
	}
}

func TestFormatCellRank(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{{3, "3"}, {2.5, "2.5"}, {10 / 3.0, "3.33"}, {1.999999, "2"}, {12, "12"}, {10.25, "10.25"}} {
		if got := formatCellRank(c.v); got != c.want {
			t.Errorf("formatCellRank(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}

// TestRankFiguresRender checks that both rank figures, at their extremes,
// render well-formed SVG with their title and description and no NaN,
// and a PNG that decodes at the figure's size.
func TestRankFiguresRender(t *testing.T) {
	methods, ranks, _, cd10 := demsar()
	build := map[string]func() (*Figure, error){
		"cd": func() (*Figure, error) {
			return CriticalDifference(CriticalDifferenceInput{Methods: methods, AvgRanks: ranks, CD: cd10, Alpha: "0.10", Datasets: 14})
		},
		"cd k=2 <&>": func() (*Figure, error) {
			return CriticalDifference(CriticalDifferenceInput{Title: "a <&> b", Methods: []string{"a<b", "c&d"}, AvgRanks: []float64{1.2, 1.8}, CD: 0.5, Datasets: 9})
		},
		"cd k=30 no CD": func() (*Figure, error) {
			return CriticalDifference(CriticalDifferenceInput{Methods: cdNames(30, strings.Repeat("long", 20)), AvgRanks: spreadRanks(30, 3), CD: math.NaN(), Datasets: 2})
		},
		"ranks 50×30": func() (*Figure, error) { return RankHeatmap(rankData(50, 30)) },
		"ranks 1×1":   func() (*Figure, error) { return RankHeatmap(rankData(1, 1)) },
	}
	for name, b := range build {
		t.Run(name, func(t *testing.T) {
			fig, err := b()
			if err != nil {
				t.Fatal(err)
			}
			var buf strings.Builder
			if err := fig.Render(&buf, "svg"); err != nil {
				t.Fatal(err)
			}
			svg := buf.String()
			d := xml.NewDecoder(strings.NewReader(svg))
			var title, desc string
			var in string
			for {
				tok, err := d.Token()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("the SVG is not well-formed: %v", err)
				}
				switch tok := tok.(type) {
				case xml.StartElement:
					in = tok.Name.Local
				case xml.CharData:
					switch in {
					case "title":
						title += string(tok)
					case "desc":
						desc += string(tok)
					}
				case xml.EndElement:
					in = ""
				}
			}
			if title != fig.title || desc != fig.subtitle {
				t.Errorf("got <title> %q and <desc> %q, want %q and %q", title, desc, fig.title, fig.subtitle)
			}
			if strings.Contains(svg, "NaN") {
				t.Error("the SVG contains NaN")
			}
			img := decodePNG(t, fig)
			s := float64(PNGDPI) / 72
			if got, want := img.Bounds().Dx(), int(math.Ceil(fig.width.Points()*s)); abs(got-want) > 1 {
				t.Errorf("PNG is %d px wide, want %d", got, want)
			}
		})
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
