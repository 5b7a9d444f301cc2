package plots

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gonum.org/v1/plot/cmpimg"
)

var update = flag.Bool("update", false, "regenerate the golden images in testdata/")

// goldenDelta is the tolerance of the PNG comparison (cmpimg.EqualApprox's
// normalised YIQ distance per pixel): anti-aliasing may move a little
// between renderer versions, a changed figure may not. SVG is compared
// byte for byte (cmpimg compares SVG exactly).
const goldenDelta = 0.01

// Example data, generated deterministically.

func freqData(n int) (labels []string, freq []float64, constant []bool) {
	rng := rand.New(rand.NewPCG(1, 1))
	words := []string{"amazed-surprised", "happy-pleased", "relaxing-calm", "quiet-still", "sad-lonely", "angry-aggressive", "beach", "sunset", "fall_foliage", "field", "mountain", "urban", "Class", "genre/rock", "genre/jazz"}
	for i := range n {
		name := words[i%len(words)]
		if i >= len(words) {
			name = fmt.Sprintf("%s-%d", name, i/len(words)+1)
		}
		labels = append(labels, name)
		freq = append(freq, math.Round(0.9*math.Pow(rng.Float64(), 1.6)*1000)/1000)
		constant = append(constant, false)
	}
	// One constant label (in no row), one in nearly every row.
	freq[n/2], constant[n/2] = 0, true
	freq[1] = 0.97
	return labels, freq, constant
}

// nmiSquare is an NMI matrix of q labels, seeded, with no constant label.
func nmiSquare(q int) (labels []string, m [][]float64, constant []bool) {
	rng := rand.New(rand.NewPCG(3, 3))
	m = make([][]float64, q)
	for i := range m {
		m[i] = make([]float64, q)
		labels = append(labels, fmt.Sprintf("label-%d", i+1))
	}
	for i := range q {
		for j := range i + 1 {
			v := 1.0
			if i != j {
				v = math.Round(math.Pow(rng.Float64(), 3)*100) / 100
			}
			m[i][j], m[j][i] = v, v
		}
	}
	return labels, m, make([]bool, q)
}

// nmiPart is the heatmap of shown of a data set's of labels, as the data
// set page draws it beyond its cap.
func nmiPart(shown, of int) (*Figure, error) {
	labels, m, constant := nmiSquare(shown)
	return NMIHeatmapPart(labels, m, constant, Part{Of: of, Which: "the most frequent"})
}

func nmiData() (labels []string, m [][]float64, constant []bool) {
	rng := rand.New(rand.NewPCG(2, 2))
	labels = []string{"beach", "sunset", "fall_foliage", "field", "mountain", "urban"}
	q := len(labels)
	constant = make([]bool, q)
	constant[3] = true
	m = make([][]float64, q)
	for i := range m {
		m[i] = make([]float64, q)
	}
	for i := range q {
		for j := range i + 1 {
			v := 1.0
			if i != j {
				v = math.Round(math.Pow(rng.Float64(), 2.5)*100) / 100
			}
			if constant[i] || constant[j] {
				v = 0
			}
			m[i][j], m[j][i] = v, v
		}
	}
	return labels, m, constant
}

func spectrumData() SpectrumInput {
	ev := make([]float64, 30)
	for i := range ev {
		ev[i] = 120 * math.Exp(-0.45*float64(i))
	}
	ev[27], ev[28], ev[29] = 0, -0.02, -0.05
	// d by the thr rule: the smallest d keeping thr of the positive sum.
	const thr = 0.99
	var sum, acc float64
	for _, l := range ev {
		sum += math.Max(l, 0)
	}
	d := 0
	for acc < thr*sum {
		acc += ev[d]
		d++
	}
	return SpectrumInput{Title: "pca eigenvalue spectrum", Eigenvalues: ev, D: d, Thr: thr, MaxComponents: 20, Color: 1}
}

// clusters returns n points in k Gaussian clusters; group k-1 is "other"
// (-1) and every fifth point is a test point.
func clusters(n, k int) ProjectionInput {
	rng := rand.New(rand.NewPCG(3, 3))
	in := ProjectionInput{
		Title:  "mddmp projection",
		XLabel: "direction 1", YLabel: "direction 2",
		Legend: []string{"sunset", "beach", "mountain"},
	}
	for i := range n {
		g := i % k
		cx, cy := 3*math.Cos(float64(g)*2.1), 2*math.Sin(float64(g)*2.1)
		in.X = append(in.X, cx+rng.NormFloat64())
		in.Y = append(in.Y, cy+0.8*rng.NormFloat64())
		if g == k-1 {
			g = -1
		}
		in.Group = append(in.Group, g)
		in.Test = append(in.Test, i%5 == 0)
	}
	return in
}

func curvesData() CurvesInput {
	rng := rand.New(rand.NewPCG(4, 4))
	ds := []float64{1, 2, 4, 6, 8, 10, 12, 14}
	mk := func(name string, color int, top, rate float64) Series {
		s := Series{Name: name, Color: color}
		for _, d := range ds {
			s.X = append(s.X, d)
			s.Y = append(s.Y, top-0.25*math.Exp(-rate*d)+0.004*rng.NormFloat64())
			s.Err = append(s.Err, 0.006+0.008*rng.Float64())
		}
		return s
	}
	return CurvesInput{
		Title:  "Average precision on yeast (10 folds)",
		YLabel: "average precision", XLabel: "d",
		Series: []Series{
			{Name: "ori", Color: 7, Y: []float64{0.755}, Err: []float64{0.012}, Baseline: true},
			mk("pca", 0, 0.74, 0.25),
			mk("mddmp", 1, 0.76, 0.5),
			mk("cplst", 2, 0.75, 0.35),
		},
	}
}

// goldenCases are the figures with golden images.
func goldenCases(t *testing.T) []struct {
	name string
	fig  *Figure
	svg  bool
} {
	t.Helper()
	must := func(f *Figure, err error) *Figure {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	log := spectrumData()
	log.Log, log.Title = true, "pca eigenvalue spectrum (log)"
	big := clusters(24170, 4)
	big.Title = "mddmp projection, all rows"
	wide := curvesData() // label-space methods to d = 6, pca to d = 294
	wide.Title, wide.XLog = "Average precision, d on a log axis", true
	for i, x := range wide.Series[1].X {
		wide.Series[1].X[i] = 21 * x
	}
	// A study at one d: each method's single point, ori as a baseline.
	oneD := curvesData()
	oneD.Title, oneD.Subtitle = "Average precision, d = 6 for every method", "10 folds"
	for i, s := range oneD.Series {
		if !s.Baseline {
			oneD.Series[i].X, oneD.Series[i].Y, oneD.Series[i].Err = s.X[3:4], s.Y[3:4], s.Err[3:4]
		}
	}
	methods, ranks, _, cd10 := demsar()
	cd := CriticalDifferenceInput{Title: "C4.5 variants (Demšar 2006, fig. 1)", Methods: methods, AvgRanks: ranks, CD: cd10, Alpha: "0.10", Datasets: 14}
	cd30 := CriticalDifferenceInput{
		Title:   "Hamming loss: 30 methods",
		Methods: cdNames(30, "a-very-long-method-name-with-options"), AvgRanks: spreadRanks(30, 30),
		CD: 7.36, Alpha: "0.05", Datasets: 50,
	}
	cdNone := CriticalDifferenceInput{Methods: []string{"pca", "mddmp", "cplst", "mlsi"}, AvgRanks: []float64{2.5, 1.5, 3, 3}, CD: math.NaN(), Datasets: 2}
	return []struct {
		name string
		fig  *Figure
		svg  bool
	}{
		{"frequency", must(LabelFrequency(freqData(14))), true},
		{"frequency_60", must(LabelFrequency(freqData(60))), false},
		{"nmi", must(NMIHeatmap(nmiData())), true},
		{"nmi_part", must(nmiPart(50, 5000)), false},
		{"spectrum", must(Spectrum(spectrumData())), true},
		{"spectrum_log", must(Spectrum(log)), true},
		{"projection", must(Projection(clusters(400, 4))), true},
		{"projection_subsampled", must(Projection(big)), false},
		{"curves", must(Curves(curvesData())), true},
		{"curves_log", must(Curves(wide)), true},
		{"dots", must(Dots(oneD)), true},
		{"cd", must(CriticalDifference(cd)), true},
		{"cd_30", must(CriticalDifference(cd30)), false},
		{"cd_none", must(CriticalDifference(cdNone)), false},
		{"ranks", must(RankHeatmap(rankData(15, 8))), true},
	}
}

func TestGolden(t *testing.T) {
	for _, c := range goldenCases(t) {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			formats := []string{"png"}
			if c.svg {
				formats = append(formats, "svg")
			}
			for _, format := range formats {
				var got bytes.Buffer
				if err := c.fig.Render(&got, format); err != nil {
					t.Fatalf("Render(%s): %v", format, err)
				}
				path := filepath.Join("testdata", c.name+"."+format)
				if *update {
					if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run go test -update to create the golden files)", err)
				}
				ok, err := cmpimg.EqualApprox(format, got.Bytes(), want, goldenDelta)
				if err != nil {
					t.Fatalf("comparing %s: %v", path, err)
				}
				if !ok {
					out := filepath.Join(t.TempDir(), c.name+"."+format)
					if dir := os.Getenv("PLOTS_FAILED_DIR"); dir != "" {
						out = filepath.Join(dir, c.name+"."+format)
					}
					_ = os.WriteFile(out, got.Bytes(), 0o644)
					t.Errorf("%s: the rendered figure differs from the golden file (got written to %s; set PLOTS_FAILED_DIR to keep it; go test -update accepts it)", path, out)
				}
			}
		})
	}
}

func TestDeterministic(t *testing.T) {
	for _, c := range goldenCases(t) {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			for _, format := range []string{"svg", "png"} {
				var a, b bytes.Buffer
				if err := c.fig.Render(&a, format); err != nil {
					t.Fatal(err)
				}
				if err := c.fig.Render(&b, format); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(a.Bytes(), b.Bytes()) {
					t.Errorf("%s: two renders differ (%d and %d bytes)", format, a.Len(), b.Len())
				}
			}
		})
	}
	// A figure rebuilt from the same input renders the same too.
	f1, _ := Projection(clusters(9000, 4))
	f2, _ := Projection(clusters(9000, 4))
	var a, b bytes.Buffer
	if err := f1.Render(&a, "svg"); err != nil {
		t.Fatal(err)
	}
	if err := f2.Render(&b, "svg"); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two subsampled projections of the same data differ")
	}
}

func TestConcurrentRender(t *testing.T) {
	fig, err := NMIHeatmap(nmiData())
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := fig.Render(&want, "svg"); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 4)
	for range 4 {
		go func() {
			var got bytes.Buffer
			err := fig.Render(&got, "svg")
			if err == nil && !bytes.Equal(got.Bytes(), want.Bytes()) {
				err = errors.New("a concurrent render differs")
			}
			errc <- err
		}()
	}
	for range 4 {
		if err := <-errc; err != nil {
			t.Error(err)
		}
	}
}

// decodePNG renders f as PNG and decodes it.
func decodePNG(t *testing.T, f *Figure) image.Image {
	t.Helper()
	var buf bytes.Buffer
	if err := f.Render(&buf, "png"); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// toView maps data coordinates to the viewBox with m's transform, as a
// hover script would.
func toView(m Meta, x, y float64) (float64, float64) {
	norm := func(v, lo, hi float64, log bool) float64 {
		if log {
			return math.Log(v/lo) / math.Log(hi/lo)
		}
		return (v - lo) / (hi - lo)
	}
	return m.X0 + (m.X1-m.X0)*norm(x, m.XMin, m.XMax, m.XLog),
		m.Y1 - (m.Y1-m.Y0)*norm(y, m.YMin, m.YMax, m.YLog)
}

// pixelAt returns the PNG's colour at viewBox point (x, y).
func pixelAt(img image.Image, x, y float64) color.RGBA {
	s := float64(PNGDPI) / 72
	return color.RGBAModel.Convert(img.At(int(x*s), int(y*s))).(color.RGBA)
}

func near(a, b color.Color, tol int) bool {
	ar, ag, ab, _ := a.RGBA()
	br, bg, bb, _ := b.RGBA()
	d := func(x, y uint32) bool { return math.Abs(float64(x>>8)-float64(y>>8)) <= float64(tol) }
	return d(ar, br) && d(ag, bg) && d(ab, bb)
}

func TestMetaScatter(t *testing.T) {
	// Points at the corners of fixed ranges, and one inside.
	in := ProjectionInput{
		X:      []float64{0, 10, 0, 10, 4},
		Y:      []float64{-2, -2, 3, 3, 1},
		Group:  []int{0, 0, 0, 0, 0},
		Legend: []string{"a"},
		XRange: &[2]float64{0, 10},
		YRange: &[2]float64{-2, 3},
	}
	fig, err := Projection(in)
	if err != nil {
		t.Fatal(err)
	}
	m := fig.Meta()
	if m.Kind != "scatter" || m.Shown != 5 || m.Total != 5 || len(m.Points) != 5 {
		t.Fatalf("got kind %q, %d of %d shown, %d points; want scatter, 5 of 5, 5", m.Kind, m.Shown, m.Total, len(m.Points))
	}
	if !(0 < m.X0 && m.X0 < m.X1 && m.X1 < m.Width && 0 < m.Y0 && m.Y0 < m.Y1 && m.Y1 < m.Height) {
		t.Fatalf("got data area (%v, %v)–(%v, %v) in %v×%v, want a rectangle inside", m.X0, m.Y0, m.X1, m.Y1, m.Width, m.Height)
	}
	if m.XMin != 0 || m.XMax != 10 || m.YMin != -2 || m.YMax != 3 {
		t.Errorf("got ranges x [%v, %v] y [%v, %v], want [0, 10] [-2, 3]", m.XMin, m.XMax, m.YMin, m.YMax)
	}
	// The extremes map to the edges of the data area.
	corners := []struct{ x, y, vx, vy float64 }{
		{0, -2, m.X0, m.Y1}, {10, -2, m.X1, m.Y1}, {0, 3, m.X0, m.Y0}, {10, 3, m.X1, m.Y0},
	}
	for _, c := range corners {
		vx, vy := toView(m, c.x, c.y)
		if math.Abs(vx-c.vx) > 1e-9 || math.Abs(vy-c.vy) > 1e-9 {
			t.Errorf("(%v, %v) maps to (%v, %v), want the corner (%v, %v)", c.x, c.y, vx, vy, c.vx, c.vy)
		}
	}
	// And the rendered image has the points there.
	img := decodePNG(t, fig)
	for _, p := range m.Points {
		vx, vy := toView(m, p.X, p.Y)
		if got := pixelAt(img, vx, vy); !near(got, SeriesColor(0), 8) {
			t.Errorf("pixel at (%v, %v), where Meta puts (%v, %v), is %v; want the point's colour %v", vx, vy, p.X, p.Y, got, SeriesColor(0))
		}
	}
	// Meta is JSON for the page's script.
	js, err := json.Marshal(m)
	if err != nil || !bytes.Contains(js, []byte(`"kind":"scatter"`)) || !bytes.Contains(js, []byte(`"x0":`)) {
		t.Errorf("json.Marshal(Meta) = %.80s…, %v; want compact JSON with kind and x0", js, err)
	}
	// The SVG's viewBox is the Meta's coordinate system.
	svg, err := fig.InlineSVG()
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf(`viewBox="0 0 %g %g"`, m.Width, m.Height); !strings.Contains(svg, want) {
		t.Errorf("InlineSVG has no %s", want)
	}
}

func TestMetaHeatmap(t *testing.T) {
	labels, mat, constant := nmiData()
	fig, err := NMIHeatmap(labels, mat, constant)
	if err != nil {
		t.Fatal(err)
	}
	m := fig.Meta()
	q := len(labels)
	if m.Kind != "heatmap" || len(m.Rows) != q || len(m.Cols) != q || len(m.Values) != q {
		t.Fatalf("got kind %q with %d rows, %d cols, %d value rows; want heatmap %d×%d", m.Kind, len(m.Rows), len(m.Cols), len(m.Values), q, q)
	}
	for i := range q {
		if m.Rows[i] != labels[i] || m.Cols[i] != labels[i] || m.Constant[i] != constant[i] {
			t.Errorf("label %d: got row %q col %q constant %v, want %q, %v", i, m.Rows[i], m.Cols[i], m.Constant[i], labels[i], constant[i])
		}
		for j := range q {
			if m.Values[i][j] != mat[i][j] {
				t.Errorf("Values[%d][%d] = %v, want %v", i, j, m.Values[i][j], mat[i][j])
			}
		}
	}
	// The data area is square and cell (i, j) sits at x = j, y = q−1−i:
	// its colour there (off-centre, clear of the printed value) is the
	// value's on the palette, and grey for constant labels.
	if w, h := m.X1-m.X0, m.Y1-m.Y0; math.Abs(w-h) > 1e-6 {
		t.Errorf("data area %v×%v, want square", w, h)
	}
	img := decodePNG(t, fig)
	for i := range q {
		for j := range q {
			vx, vy := toView(m, float64(j)+0.3, float64(q-1-i)+0.3)
			got := pixelAt(img, vx, vy)
			want := color.Color(viridis(mat[i][j]))
			if constant[i] || constant[j] {
				if !near(got, constantFill(), 40) && !near(got, constantHatch(), 40) {
					t.Errorf("cell (%d, %d) of a constant label: got %v, want grey", i, j, got)
				}
				continue
			}
			if !near(got, want, 10) {
				t.Errorf("cell (%d, %d) = %v: got colour %v, want %v", i, j, mat[i][j], got, want)
			}
		}
	}
}

func TestMetaSpectrum(t *testing.T) {
	in := spectrumData()
	in.Log = true
	fig, err := Spectrum(in)
	if err != nil {
		t.Fatal(err)
	}
	m := fig.Meta()
	if m.Kind != "spectrum" || !m.YLog || m.XLog {
		t.Fatalf("got kind %q, log x %v, log y %v; want spectrum with log y", m.Kind, m.XLog, m.YLog)
	}
	if len(m.Series) != 2 || len(m.Series[0].Y) != 20 {
		t.Fatalf("got %d series, want share and cumulative with 20 components", len(m.Series))
	}
	var sum float64
	for _, l := range in.Eigenvalues {
		sum += math.Max(l, 0)
	}
	if got, want := m.Series[0].Y[0], in.Eigenvalues[0]/sum; math.Abs(got-want) > 1e-12 {
		t.Errorf("share of λ1 = %v, want %v", got, want)
	}
	if !strings.Contains(m.Note, "2 negative eigenvalues counted as 0") || !strings.Contains(m.Note, "first 20 of 30") {
		t.Errorf("got note %q, want the negative eigenvalues and the cut mentioned", m.Note)
	}
}

// TestSpectrumPartial: with only the leading eigenvalues of a larger matrix
// (Order > len), the shares are of Total, and the subtitle and the note say
// how many were computed and how much of the trace they hold.
func TestSpectrumPartial(t *testing.T) {
	for _, tc := range []struct {
		name  string
		in    SpectrumInput
		note  string
		share float64 // of λ1
		axis  string  // the y-axis label
		kept  string  // the d note
	}{
		{"partial", SpectrumInput{Eigenvalues: []float64{40, 30, 20, 3.1}, Order: 5000, Total: 100, D: 3},
			"4 of " + GroupDigits(5000) + " eigenvalues computed; they hold 93.1% of the trace", 0.4,
			"share of the trace", "d = 3 keeps 0.900 of the trace"},
		{"all", SpectrumInput{Eigenvalues: []float64{40, 30, 20, 10}, Order: 4, Total: 100, D: 3}, "", 0.4,
			"share of the eigenvalue sum", "d = 3 keeps 0.900 of the sum"},
		{"no total", SpectrumInput{Eigenvalues: []float64{3, 1}}, "", 0.75, "share of the eigenvalue sum", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fig, err := Spectrum(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			m := fig.Meta()
			if got := m.Series[0].Y[0]; math.Abs(got-tc.share) > 1e-12 {
				t.Errorf("share of λ1: got %v, want %v", got, tc.share)
			}
			has := strings.Contains(m.Note, "eigenvalues computed")
			if tc.note == "" && has || tc.note != "" && (!strings.Contains(m.Note, tc.note) || !strings.Contains(fig.subtitle, tc.note)) {
				t.Errorf("got note %q, subtitle %q; want %q in both", m.Note, fig.subtitle, tc.note)
			}
			if !strings.Contains(m.Note, tc.kept) {
				t.Errorf("got note %q, want %q in it", m.Note, tc.kept)
			}
			svg, err := fig.InlineSVG()
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(svg, ">"+tc.axis+"<") {
				t.Errorf("the y axis does not read %q", tc.axis)
			}
		})
	}
}

func TestSubsample(t *testing.T) {
	in := clusters(24170, 4)
	fig, err := Projection(in)
	if err != nil {
		t.Fatal(err)
	}
	m := fig.Meta()
	if m.Shown != DefaultMaxPoints || m.Total != 24170 || len(m.Points) != DefaultMaxPoints {
		t.Fatalf("got %d of %d shown, %d points; want %d of 24170", m.Shown, m.Total, len(m.Points), DefaultMaxPoints)
	}
	if m.Note != "5 000 of 24 170 points shown" {
		t.Errorf("got note %q", m.Note)
	}
	// Every stratum keeps about its share.
	count := map[[2]int]int{}
	for _, p := range m.Points {
		t := 0
		if p.Test {
			t = 1
		}
		count[[2]int{p.Group, t}]++
	}
	if len(count) != 8 {
		t.Errorf("got %d (group, test) strata, want 8: %v", len(count), count)
	}
	// A tiny group survives subsampling.
	g := make([]int, 10000)
	g[1234] = 1
	idx := subsample(g, make([]bool, 10000), 100)
	if len(idx) != 100 {
		t.Errorf("got %d rows, want 100", len(idx))
	}
	found := false
	for _, i := range idx {
		found = found || i == 1234
	}
	if !found {
		t.Error("the one row of group 1 was dropped")
	}
}

func TestInlineSVG(t *testing.T) {
	f, err := LabelFrequency(freqData(14))
	if err != nil {
		t.Fatal(err)
	}
	s, err := f.InlineSVG()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(s, "<svg") || !strings.HasSuffix(s, "</svg>") {
		t.Errorf("InlineSVG is not one <svg> element: starts %.20q, ends %q", s, s[max(0, len(s)-10):])
	}
	if strings.Contains(s, "<?xml") {
		t.Error("InlineSVG has an XML declaration")
	}
	open := s[:strings.Index(s, ">")]
	for _, want := range []string{`role="img"`, `aria-labelledby="`, `viewBox="0 0 480 `, `width="640"`} {
		if !strings.Contains(open, want) {
			t.Errorf("the <svg> tag %q has no %s", open, want)
		}
	}
	if regexp.MustCompile(`(width|height)="[0-9.]+pt"`).MatchString(open) {
		t.Errorf("the <svg> tag %q sizes in pt, want CSS px", open)
	}
	id := regexp.MustCompile(`aria-labelledby="([^"]+)"`).FindStringSubmatch(open)
	if id == nil || !strings.Contains(s, `<title id="`+id[1]+`">Label frequency</title>`) {
		t.Error("aria-labelledby does not point at a <title> with the figure's title")
	}

	var doc bytes.Buffer
	if err := f.Render(&doc, "svg"); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(doc.String(), "<?xml") || !strings.Contains(doc.String(), ">Label frequency</title>") {
		t.Error("Render(svg) is not a complete SVG document with its title")
	}
	if err := f.Render(&doc, "gif"); err == nil {
		t.Error("Render(gif) succeeded, want an error")
	}
}

func TestValidation(t *testing.T) {
	nan := math.NaN()
	okSeries := Series{Name: "a", X: []float64{1, 2}, Y: []float64{0.5, 0.6}}
	cases := []struct {
		name  string
		build func() (*Figure, error)
		field string
	}{
		{"freq empty", func() (*Figure, error) { return LabelFrequency(nil, nil, nil) }, "labels"},
		{"freq lengths", func() (*Figure, error) { return LabelFrequency([]string{"a", "b"}, []float64{0.1}, nil) }, "freq"},
		{"freq constant length", func() (*Figure, error) {
			return LabelFrequency([]string{"a"}, []float64{0.1}, []bool{true, false})
		}, "constant"},
		{"freq NaN", func() (*Figure, error) { return LabelFrequency([]string{"a"}, []float64{nan}, nil) }, "freq[0]"},
		{"freq above 1", func() (*Figure, error) { return LabelFrequency([]string{"a"}, []float64{1.5}, nil) }, "freq[0]"},
		{"nmi empty", func() (*Figure, error) { return NMIHeatmap(nil, nil, nil) }, "labels"},
		{"nmi rows", func() (*Figure, error) { return NMIHeatmap([]string{"a", "b"}, [][]float64{{1, 0}}, nil) }, "m"},
		{"nmi ragged", func() (*Figure, error) { return NMIHeatmap([]string{"a", "b"}, [][]float64{{1, 0}, {0}}, nil) }, "m[1]"},
		{"nmi NaN", func() (*Figure, error) { return NMIHeatmap([]string{"a"}, [][]float64{{nan}}, nil) }, "m[0][0]"},
		{"nmi range", func() (*Figure, error) { return NMIHeatmap([]string{"a"}, [][]float64{{2}}, nil) }, "m[0][0]"},
		{"nmi too many labels", func() (*Figure, error) {
			labels, m, _ := nmiSquare(MaxHeatmapLabels + 1)
			return NMIHeatmap(labels, m, nil)
		}, "labels"},
		{"freq too many labels", func() (*Figure, error) {
			labels, freq, _ := freqData(MaxFrequencyLabels + 1)
			return LabelFrequency(labels, freq, nil)
		}, "labels"},
		{"spectrum empty", func() (*Figure, error) { return Spectrum(SpectrumInput{}) }, "Eigenvalues"},
		{"spectrum NaN", func() (*Figure, error) { return Spectrum(SpectrumInput{Eigenvalues: []float64{1, nan}}) }, "Eigenvalues[1]"},
		{"spectrum no positive", func() (*Figure, error) { return Spectrum(SpectrumInput{Eigenvalues: []float64{0, -1}}) }, "Eigenvalues"},
		{"spectrum d", func() (*Figure, error) { return Spectrum(SpectrumInput{Eigenvalues: []float64{1}, D: 2}) }, "D"},
		{"spectrum thr", func() (*Figure, error) { return Spectrum(SpectrumInput{Eigenvalues: []float64{1}, Thr: 1.2}) }, "Thr"},
		{"spectrum ymax", func() (*Figure, error) {
			return Spectrum(SpectrumInput{Eigenvalues: []float64{1}, YMax: math.Inf(1)})
		}, "YMax"},
		{"spectrum order", func() (*Figure, error) { return Spectrum(SpectrumInput{Eigenvalues: []float64{2, 1}, Order: 1}) }, "Order"},
		{"spectrum total", func() (*Figure, error) { return Spectrum(SpectrumInput{Eigenvalues: []float64{2, 1}, Total: 2.5}) }, "Total"},
		{"spectrum total NaN", func() (*Figure, error) { return Spectrum(SpectrumInput{Eigenvalues: []float64{2, 1}, Total: nan}) }, "Total"},
		{"projection empty", func() (*Figure, error) { return Projection(ProjectionInput{}) }, "X"},
		{"projection lengths", func() (*Figure, error) {
			return Projection(ProjectionInput{X: []float64{1, 2}, Y: []float64{1}})
		}, "Y"},
		{"projection test length", func() (*Figure, error) {
			return Projection(ProjectionInput{X: []float64{1}, Y: []float64{1}, Test: []bool{true, true}})
		}, "Test"},
		{"projection NaN", func() (*Figure, error) {
			return Projection(ProjectionInput{X: []float64{1}, Y: []float64{nan}})
		}, "Y[0]"},
		{"projection group", func() (*Figure, error) {
			return Projection(ProjectionInput{X: []float64{1}, Y: []float64{1}, Group: []int{1}, Legend: []string{"a"}})
		}, "Group[0]"},
		{"projection range", func() (*Figure, error) {
			return Projection(ProjectionInput{X: []float64{1}, Y: []float64{1}, XRange: &[2]float64{1, 1}})
		}, "XRange"},
		{"curves empty", func() (*Figure, error) { return Curves(CurvesInput{}) }, "Series"},
		{"curves no points", func() (*Figure, error) { return Curves(CurvesInput{Series: []Series{{Name: "a"}}}) }, "Series[0].Y"},
		{"curves lengths", func() (*Figure, error) {
			return Curves(CurvesInput{Series: []Series{okSeries, {X: []float64{1}, Y: []float64{1, 2}}}})
		}, "Series[1].X"},
		{"curves err length", func() (*Figure, error) {
			return Curves(CurvesInput{Series: []Series{{X: []float64{1}, Y: []float64{1}, Err: []float64{}}}})
		}, "Series[0].Err"},
		{"curves Inf", func() (*Figure, error) {
			return Curves(CurvesInput{Series: []Series{{X: []float64{1}, Y: []float64{math.Inf(-1)}}}})
		}, "Series[0].Y[0]"},
		{"curves negative err", func() (*Figure, error) {
			return Curves(CurvesInput{Series: []Series{{X: []float64{1}, Y: []float64{1}, Err: []float64{-1}}}})
		}, "Series[0].Err[0]"},
		{"curves range", func() (*Figure, error) {
			return Curves(CurvesInput{Series: []Series{okSeries}, YRange: &[2]float64{1, nan}})
		}, "YRange[1]"},
		{"curves log of 0", func() (*Figure, error) {
			return Curves(CurvesInput{Series: []Series{{X: []float64{0, 1}, Y: []float64{1, 2}}}, XLog: true})
		}, "Series[0].X[0]"},
		{"cd one method", func() (*Figure, error) {
			return CriticalDifference(CriticalDifferenceInput{Methods: []string{"a"}, AvgRanks: []float64{1}, Datasets: 3})
		}, "Methods"},
		{"cd too many methods", func() (*Figure, error) {
			k := MaxRankMethods + 1
			return CriticalDifference(CriticalDifferenceInput{Methods: cdNames(k, "m"), AvgRanks: spreadRanks(k, 1), Datasets: 3})
		}, "Methods"},
		{"cd ranks length", func() (*Figure, error) {
			return CriticalDifference(CriticalDifferenceInput{Methods: []string{"a", "b"}, AvgRanks: []float64{1}, Datasets: 3})
		}, "AvgRanks"},
		{"cd rank NaN", func() (*Figure, error) {
			return CriticalDifference(CriticalDifferenceInput{Methods: []string{"a", "b"}, AvgRanks: []float64{1, nan}, Datasets: 3})
		}, "AvgRanks[1]"},
		{"cd rank above k", func() (*Figure, error) {
			return CriticalDifference(CriticalDifferenceInput{Methods: []string{"a", "b"}, AvgRanks: []float64{1, 2.5}, Datasets: 3})
		}, "AvgRanks[1]"},
		{"cd rank below 1", func() (*Figure, error) {
			return CriticalDifference(CriticalDifferenceInput{Methods: []string{"a", "b"}, AvgRanks: []float64{0, 2}, Datasets: 3})
		}, "AvgRanks[0]"},
		{"cd negative", func() (*Figure, error) {
			return CriticalDifference(CriticalDifferenceInput{Methods: []string{"a", "b"}, AvgRanks: []float64{1, 2}, CD: -1, Datasets: 3})
		}, "CD"},
		{"cd Inf", func() (*Figure, error) {
			return CriticalDifference(CriticalDifferenceInput{Methods: []string{"a", "b"}, AvgRanks: []float64{1, 2}, CD: math.Inf(1), Datasets: 3})
		}, "CD"},
		{"cd alpha", func() (*Figure, error) {
			return CriticalDifference(CriticalDifferenceInput{Methods: []string{"a", "b"}, AvgRanks: []float64{1, 2}, CD: 1, Alpha: "5%", Datasets: 3})
		}, "Alpha"},
		{"cd alpha range", func() (*Figure, error) {
			return CriticalDifference(CriticalDifferenceInput{Methods: []string{"a", "b"}, AvgRanks: []float64{1, 2}, CD: 1, Alpha: "1.5", Datasets: 3})
		}, "Alpha"},
		{"cd datasets", func() (*Figure, error) {
			return CriticalDifference(CriticalDifferenceInput{Methods: []string{"a", "b"}, AvgRanks: []float64{1, 2}})
		}, "Datasets"},
		{"ranks no methods", func() (*Figure, error) {
			return RankHeatmap(RankHeatmapInput{Datasets: []string{"d"}, Ranks: [][]float64{{}}})
		}, "Methods"},
		{"ranks too many methods", func() (*Figure, error) { return RankHeatmap(rankData(2, MaxRankMethods+1)) }, "Methods"},
		{"ranks no data sets", func() (*Figure, error) { return RankHeatmap(RankHeatmapInput{Methods: []string{"a"}}) }, "Datasets"},
		{"ranks too many data sets", func() (*Figure, error) { return RankHeatmap(rankData(MaxRankDatasets+1, 3)) }, "Datasets"},
		{"ranks rows", func() (*Figure, error) {
			return RankHeatmap(RankHeatmapInput{Methods: []string{"a"}, Datasets: []string{"d", "e"}, Ranks: [][]float64{{1}}})
		}, "Ranks"},
		{"ranks ragged", func() (*Figure, error) {
			return RankHeatmap(RankHeatmapInput{Methods: []string{"a", "b"}, Datasets: []string{"d", "e"}, Ranks: [][]float64{{1, 2}, {1}}})
		}, "Ranks[1]"},
		{"ranks Inf", func() (*Figure, error) {
			return RankHeatmap(RankHeatmapInput{Methods: []string{"a", "b"}, Datasets: []string{"d"}, Ranks: [][]float64{{1, math.Inf(1)}}})
		}, "Ranks[0][1]"},
		{"ranks above k", func() (*Figure, error) {
			return RankHeatmap(RankHeatmapInput{Methods: []string{"a", "b"}, Datasets: []string{"d"}, Ranks: [][]float64{{1, 3}}})
		}, "Ranks[0][1]"},
		{"ranks averages length", func() (*Figure, error) {
			return RankHeatmap(RankHeatmapInput{Methods: []string{"a", "b"}, Datasets: []string{"d"}, Ranks: [][]float64{{1, 2}}, AvgRanks: []float64{1}})
		}, "AvgRanks"},
		{"ranks average range", func() (*Figure, error) {
			return RankHeatmap(RankHeatmapInput{Methods: []string{"a", "b"}, Datasets: []string{"d"}, Ranks: [][]float64{{1, 2}}, AvgRanks: []float64{1, 0.5}})
		}, "AvgRanks[1]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := c.build()
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("got figure %v, error %v; want an *InputError", f != nil, err)
			}
			if ie.Field != c.field {
				t.Errorf("got error on %q (%v), want on %q", ie.Field, err, c.field)
			}
		})
	}
	// Edge cases that are valid.
	valid := []struct {
		name  string
		build func() (*Figure, error)
	}{
		{"one label", func() (*Figure, error) { return LabelFrequency([]string{"only"}, []float64{1}, nil) }},
		{"one nmi label", func() (*Figure, error) { return NMIHeatmap([]string{"only"}, [][]float64{{1}}, []bool{true}) }},
		{"one eigenvalue", func() (*Figure, error) { return Spectrum(SpectrumInput{Eigenvalues: []float64{3}, D: 1, Log: true}) }},
		{"one point", func() (*Figure, error) { return Projection(ProjectionInput{X: []float64{1}, Y: []float64{1}}) }},
		{"baseline only", func() (*Figure, error) {
			return Curves(CurvesInput{Series: []Series{{Name: "ori", Y: []float64{0.5}, Baseline: true}}})
		}},
		{"cd two methods", func() (*Figure, error) {
			return CriticalDifference(CriticalDifferenceInput{Methods: []string{"a", "b"}, AvgRanks: []float64{1, 2}, CD: 1.39, Alpha: "0.05", Datasets: 5})
		}},
		{"cd ties, no CD", func() (*Figure, error) {
			return CriticalDifference(CriticalDifferenceInput{Methods: []string{"a", "b", "c"}, AvgRanks: []float64{2, 2, 2}, Datasets: 1})
		}},
		{"one rank", func() (*Figure, error) {
			return RankHeatmap(RankHeatmapInput{Methods: []string{"a"}, Datasets: []string{"d"}, Ranks: [][]float64{{1}}})
		}},
		{"a method without results", func() (*Figure, error) {
			return RankHeatmap(RankHeatmapInput{Methods: []string{"a", "b"}, Datasets: []string{"d", "e"}, Ranks: [][]float64{{1, nan}, {1, nan}}})
		}},
	}
	for _, c := range valid {
		t.Run(c.name, func(t *testing.T) {
			f, err := c.build()
			if err != nil {
				t.Fatal(err)
			}
			for _, format := range []string{"svg", "png"} {
				if err := f.Render(&bytes.Buffer{}, format); err != nil {
					t.Errorf("Render(%s): %v", format, err)
				}
			}
		})
	}
}

func TestSeriesColor(t *testing.T) {
	want := []uint32{0xE69F00, 0x56B4E9, 0x009E73, 0x0072B2, 0xD55E00, 0xCC79A7, 0xF0E442, 0x000000}
	for i, w := range want {
		for _, k := range []int{i, i + 8, i - 8} {
			if got := SeriesColor(k); got != color.Color(rgb(w)) {
				t.Errorf("SeriesColor(%d) = %v, want #%06X", k, got, w)
			}
		}
	}
}

// BenchmarkNMIHeatmapPart draws the data set page's largest heatmap (50
// of 5 000 labels) as SVG and as PNG: each should take well under a second.
func BenchmarkNMIHeatmapPart(b *testing.B) {
	for _, format := range []string{"svg", "png"} {
		b.Run(format, func(b *testing.B) {
			for b.Loop() {
				f, err := nmiPart(50, 5000)
				if err != nil {
					b.Fatal(err)
				}
				if err := f.Render(io.Discard, format); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
