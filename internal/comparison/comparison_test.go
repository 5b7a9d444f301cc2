package comparison

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"math/rand/v2"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func ip(v int) *int         { return &v }
func fp(v float64) *float64 { return &v }
func res(ds, m string, mean map[string]float64) Result {
	return Result{Dataset: ds, Method: m, Mean: mean}
}

func near(got *float64, want float64, tol float64) bool {
	return got != nil && math.Abs(*got-want) <= tol*math.Max(1, math.Abs(want))
}

func show(v *float64) any {
	if v == nil {
		return nil
	}
	return *v
}

// TestTwoByTwo: 2 data sets × 2 methods, hamming_loss, mddmp better on both.
// By hand: ranks mddmp 1, pca 2 on both; χ²_F = 12/(2·2·3)·(2²+4²) − 3·2·3 = 2,
// p = P(χ²₁ > 2) = 0.157299207; χ²_F = N(k−1) so F_F is infinite, p 0;
// CD₀.₀₅ = 1.959964·√(2·3/12) = 1.385904; Wilcoxon on d = [−0.125, −0.25]:
// r+ = 0 of n = 2, exact p = 2·P(R ≤ 0) = 2·1/4 = 0.5; Holm of one p is it.
func TestTwoByTwo(t *testing.T) {
	in := Input{
		Datasets: []string{"ID1", "ID2"}, DatasetNames: []string{"emotions", "yeast"},
		Methods: []string{"pca", "mddmp"},
		Groups: []Group{{Results: []Result{
			res("ID1", "pca", map[string]float64{"hamming_loss": 0.25}),
			res("ID1", "mddmp", map[string]float64{"hamming_loss": 0.125}),
			res("ID2", "pca", map[string]float64{"hamming_loss": 0.5}),
			res("ID2", "mddmp", map[string]float64{"hamming_loss": 0.25}),
		}}},
	}
	f := Build(in)
	if len(f.Comparisons) != 1 {
		t.Fatalf("got %d comparisons, want 1", len(f.Comparisons))
	}
	c := f.Comparisons[0]
	if c.Better != "lower" || c.D != nil || c.Percent != nil {
		t.Errorf("better, d, percent = %q, %v, %v, want lower, nil, nil", c.Better, c.D, c.Percent)
	}
	if !near(c.AverageRanks["pca"], 2, 0) || !near(c.AverageRanks["mddmp"], 1, 0) {
		t.Errorf("average ranks = %v, %v, want pca 2, mddmp 1", show(c.AverageRanks["pca"]), show(c.AverageRanks["mddmp"]))
	}
	if c.Friedman == nil || math.Abs(c.Friedman.Chi2-2) > 1e-12 || math.Abs(c.Friedman.P-0.157299207050285) > 1e-12 {
		t.Errorf("friedman = %+v, want χ² 2, p 0.157299207050285", c.Friedman)
	}
	if c.ImanDavenport == nil || c.ImanDavenport.F != nil || c.ImanDavenport.P != 0 {
		t.Errorf("iman_davenport = %+v, want f null, p 0", c.ImanDavenport)
	}
	if got := c.NemenyiCD["0.05"]; math.Abs(got-1.959963984540054*math.Sqrt(0.5)) > 1e-9 {
		t.Errorf("nemenyi_cd 0.05 = %v, want %v", got, 1.959963984540054*math.Sqrt(0.5))
	}
	want := Pair{A: "mddmp", B: "pca", Datasets: 2, Wins: 2}
	if len(c.Pairs) != 1 {
		t.Fatalf("got %d pairs, want 1", len(c.Pairs))
	}
	p := c.Pairs[0]
	if p.A != want.A || p.B != want.B || p.Datasets != 2 || p.Wins != 2 || p.Ties != 0 || p.Losses != 0 || !near(p.WilcoxonP, 0.5, 1e-15) || !near(p.HolmP, 0.5, 1e-15) {
		t.Errorf("pair = %+v (wilcoxon %v, holm %v), want %+v with p 0.5, 0.5", p, show(p.WilcoxonP), show(p.HolmP), want)
	}
	if len(c.PairedT) != 0 {
		t.Errorf("paired_t = %+v, want none (no folds)", c.PairedT)
	}
	wantNotes := []string{"the Iman–Davenport F is infinite (every data set ranks the methods the same way): f is null and p is 0"}
	if !slices.Equal(c.Notes, wantNotes) {
		t.Errorf("notes = %q, want %q", c.Notes, wantNotes)
	}
}

// TestTiesAndNaN: 3 data sets × 3 methods, micro_f1 (higher is better),
// a tie on D1 and b undefined on D2. By hand: D2 is left out; ranks D1
// a 1.5 b 1.5 c 3, D3 a 3 b 2 c 1; average a 2.25 b 1.75 c 2;
// χ²_F = (½·(4.5²+3.5²+4²) − 24)/(1 − 6/48) = 0.25/0.875, p = e^(−χ²/2);
// pairs in average-rank order: b–a on D1, D3: 1 win 1 tie, Wilcoxon with a
// zero → normal approximation on n = 1: z = (0 − ½)/½, p = erfc(1/√2);
// c–a on all three: 1 win 2 losses, d = [−¼, −¼, ½], r+ = 3 = centre, p 1;
// b–c on D1, D3: 1–0–1, r+ = 1.5 → 1 = centre of n = 2, p 1.
// Holm: 3·0.3173 = 0.9519, then 1, 1.
func TestTiesAndNaN(t *testing.T) {
	m := func(v float64) map[string]float64 { return map[string]float64{"micro_f1": v} }
	in := Input{
		Datasets: []string{"D1", "D2", "D3"}, DatasetNames: []string{"one", "", "three"},
		Methods: []string{"a", "b", "c"},
		Groups: []Group{{Choice: Choice{D: ip(4)}, Results: []Result{
			res("D1", "a", m(0.5)), res("D1", "b", m(0.5)), res("D1", "c", m(0.25)),
			res("D2", "a", m(0.75)), res("D2", "b", m(math.NaN())), res("D2", "c", m(0.5)),
			res("D3", "a", m(0.25)), res("D3", "b", m(0.5)), res("D3", "c", m(0.75)),
		}}},
	}
	c := Build(in).Comparisons[0]
	if c.Better != "higher" || c.D == nil || *c.D != 4 || c.DatasetNames[1] != "D2" || c.RankedDatasets != 2 {
		t.Errorf("better %q, d %v, names %q, ranked %d; want higher, 4, D2 for the empty name, 2", c.Better, show2(c.D), c.DatasetNames, c.RankedDatasets)
	}
	for name, want := range map[string]float64{"a": 2.25, "b": 1.75, "c": 2} {
		if !near(c.AverageRanks[name], want, 1e-15) {
			t.Errorf("average rank of %s = %v, want %v", name, show(c.AverageRanks[name]), want)
		}
	}
	if c.Ranks[1][0] != nil || !near(c.Ranks[0][0], 1.5, 0) || !near(c.Ranks[2][2], 1, 0) {
		t.Errorf("ranks = %v %v %v, want D2 null, D1 a 1.5, D3 c 1", c.Ranks[1][0], show(c.Ranks[0][0]), show(c.Ranks[2][2]))
	}
	chi2 := 0.25 / 0.875
	if c.Friedman == nil || math.Abs(c.Friedman.Chi2-chi2) > 1e-12 || math.Abs(c.Friedman.P-math.Exp(-chi2/2)) > 1e-12 {
		t.Errorf("friedman = %+v, want χ² %v, p %v", c.Friedman, chi2, math.Exp(-chi2/2))
	}
	pz := math.Erfc(1 / math.Sqrt2)
	want := []struct {
		a, b      string
		w, t, l   int
		p, holm   float64
		nDatasets int
	}{
		{"b", "a", 1, 1, 0, pz, 3 * pz, 2},
		{"c", "a", 1, 0, 2, 1, 1, 3},
		{"b", "c", 1, 0, 1, 1, 1, 2},
	}
	if len(c.Pairs) != len(want) {
		t.Fatalf("got %d pairs, want %d", len(c.Pairs), len(want))
	}
	for i, w := range want {
		p := c.Pairs[i]
		if p.A != w.a || p.B != w.b || p.Wins != w.w || p.Ties != w.t || p.Losses != w.l || p.Datasets != w.nDatasets ||
			!near(p.WilcoxonP, w.p, 1e-12) || !near(p.HolmP, w.holm, 1e-12) {
			t.Errorf("pair %d = %+v (p %v, holm %v), want %+v", i, p, show(p.WilcoxonP), show(p.HolmP), w)
		}
	}
	wantNotes := []string{"data set D2 left out of the ranks, Friedman, Iman–Davenport and Nemenyi: no micro_f1 score for b"}
	if !slices.Equal(c.Notes, wantNotes) {
		t.Errorf("notes = %q, want %q", c.Notes, wantNotes)
	}
}

func show2(v *int) any {
	if v == nil {
		return nil
	}
	return *v
}

// TestTooFew: one data set, and a method without any score.
func TestTooFew(t *testing.T) {
	in := Input{
		Datasets: []string{"D1"}, Methods: []string{"a", "b", "lda"},
		Groups: []Group{{Results: []Result{
			res("D1", "a", map[string]float64{"coverage": 2}),
			res("D1", "b", map[string]float64{"coverage": 2}),
			res("D1", "lda", map[string]float64{}),
			res("D9", "a", map[string]float64{"coverage": 1}),
		}}},
	}
	c := Build(in).Comparisons[0]
	if c.Friedman != nil || c.ImanDavenport != nil || c.NemenyiCD != nil {
		t.Errorf("friedman %v, iman_davenport %v, nemenyi %v; want all null", c.Friedman, c.ImanDavenport, c.NemenyiCD)
	}
	if v, ok := c.AverageRanks["lda"]; !ok || v != nil {
		t.Errorf("average rank of lda = %v (present %v), want null", v, ok)
	}
	if len(c.Pairs) != 1 || c.Pairs[0].Ties != 1 || c.Pairs[0].WilcoxonP != nil || c.Pairs[0].HolmP != nil {
		t.Errorf("pairs = %+v, want a–b with one tie and null p-values", c.Pairs)
	}
	wantNotes := []string{
		`a result of method "a" on data set "D9" is not part of this study; ignored`,
		"lda has no coverage score on any data set; left out of the ranks and tests",
		"Friedman, Iman–Davenport and Nemenyi need at least 2 data sets where every method has a coverage score; 1 here",
		"a vs b: the same coverage on all 1 data sets; no Wilcoxon p-value",
	}
	if !slices.Equal(c.Notes, wantNotes) {
		t.Errorf("notes =\n%q\nwant\n%q", c.Notes, wantNotes)
	}
}

// TestPairedTFolds: the paired t-test over folds, with an infinite t.
func TestPairedTFolds(t *testing.T) {
	fold := func(vs ...float64) []map[string]float64 {
		var out []map[string]float64
		for _, v := range vs {
			out = append(out, map[string]float64{"hamming_loss": v})
		}
		return out
	}
	r := func(ds, m string, mean float64, folds []map[string]float64) Result {
		return Result{Dataset: ds, Method: m, Mean: map[string]float64{"hamming_loss": mean}, Folds: folds}
	}
	in := Input{
		Datasets: []string{"D1", "D2"}, Methods: []string{"a", "b"},
		Groups: []Group{{Results: []Result{
			// b − a = [−1, −2, −3]: mean −2, sd 1, t = −2·√3, p from t(2).
			r("D1", "a", 2, fold(2, 3, 4)), r("D1", "b", 1, fold(1, 1, 1)),
			// b − a = [−1, −1]: t = −Inf, p = 0.
			r("D2", "a", 1, fold(1, 2)), r("D2", "b", 0, fold(0, 1)),
		}}},
	}
	c := Build(in).Comparisons[0]
	if len(c.PairedT) != 2 {
		t.Fatalf("paired_t = %+v, want 2 data sets", c.PairedT)
	}
	// b is better on both data sets, so the pair is b–a and t = mean(b − a).
	p0 := c.PairedT[0].Pairs[0]
	// scipy.stats.ttest_rel([1,1,1],[2,3,4]) = (-3.4641016151377544, 0.07417990022744853)
	if c.PairedT[0].Dataset != "D1" || c.PairedT[0].Folds != 3 || p0.A != "b" || !near(p0.T, -3.4641016151377544, 1e-12) || !near(p0.P, 0.07417990022744853, 1e-12) {
		t.Errorf("D1: %+v t %v p %v, want b–a over 3 folds, t −3.4641016151377544, p 0.07417990022744853", c.PairedT[0], show(p0.T), show(p0.P))
	}
	p1 := c.PairedT[1].Pairs[0]
	if p1.T != nil || !near(p1.P, 0, 0) {
		t.Errorf("D2: t %v p %v, want null, 0", show(p1.T), show(p1.P))
	}
	if want := "D2, b vs a: the hamming_loss difference is the same in every fold, so t is infinite: t is null and p is 0"; !slices.Contains(c.Notes, want) {
		t.Errorf("notes = %q, want one %q", c.Notes, want)
	}
}

// study is a small study for the goldens: 3 data sets (one name needing
// escapes), 3 methods, two d-choices, folds, an undefined score.
func study() Input {
	fold := func(method string, m map[string]float64, k int) []map[string]float64 {
		var out []map[string]float64
		for i := range k {
			f := map[string]float64{}
			for key, v := range m {
				f[key] = v + 0.01*float64(i-k/2) + 0.002*float64((i*len(method))%3)
			}
			out = append(out, f)
		}
		return out
	}
	r := func(ds, m string, hl, f1 float64) Result {
		mean := map[string]float64{"hamming_loss": hl, "micro_f1": f1}
		return Result{Dataset: ds, Method: m, Mean: mean,
			Std: map[string]float64{"hamming_loss": 0.01, "micro_f1": 0.02}, Folds: fold(m, mean, 3)}
	}
	return Input{
		Datasets:     []string{"ID1", "ID2", "ID3"},
		DatasetNames: []string{"emotions", "yeast_train & 10% #2", "scene"},
		Methods:      []string{"pca", "mddmp", "cplst"},
		Groups: []Group{
			{Results: []Result{
				r("ID1", "pca", 0.21, 0.6), r("ID1", "mddmp", 0.2, 0.62), r("ID1", "cplst", 0.2, 0.61),
				r("ID2", "pca", 0.3, 0.5), r("ID2", "mddmp", 0.29, 0.52), r("ID2", "cplst", 0.31, math.NaN()),
				r("ID3", "pca", 0.11, 0.7), r("ID3", "mddmp", 0.1, 0.72), r("ID3", "cplst", 0.12, 0.69),
			}},
			{Choice: Choice{Percent: fp(50)}, Results: []Result{
				r("ID1", "pca", 0.22, 0.58), r("ID1", "mddmp", 0.21, 0.6), r("ID1", "cplst", 0.215, 0.59),
				r("ID2", "pca", 0.31, 0.49), r("ID2", "mddmp", 0.3, 0.5), r("ID2", "cplst", 0.305, 0.495),
				r("ID3", "pca", 0.12, 0.68), r("ID3", "mddmp", 0.11, 0.7), r("ID3", "cplst", 0.13, 0.67),
			}},
		},
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update once)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden (go test ./internal/comparison -update rewrites it); got\n%s", name, got)
	}
}

func TestGoldens(t *testing.T) {
	f := Build(study())
	js, err := json.MarshalIndent(f, "", " ")
	if err != nil {
		t.Fatalf("json: %v", err)
	}
	golden(t, "comparison.json", append(js, '\n'))
	var csvBuf, texBuf bytes.Buffer
	if err := WriteCSV(&csvBuf, f); err != nil {
		t.Fatal(err)
	}
	golden(t, "comparison.csv", csvBuf.Bytes())
	tab := paperTable(t, f, 0, 2)
	for _, w := range []struct {
		name  string
		write func(io.Writer, *Table) error
	}{{"comparison.tex", WriteTeX}, {"comparison-standalone.tex", WriteStandaloneTeX}, {"comparison.md", WriteMarkdown}} {
		texBuf.Reset()
		if err := w.write(&texBuf, tab); err != nil {
			t.Fatal(err)
		}
		golden(t, w.name, texBuf.Bytes())
	}

	// The shape scripts rely on: a list of comparisons, each a JSON object.
	var generic struct {
		Comparisons []map[string]json.RawMessage `json:"comparisons"`
	}
	if err := json.Unmarshal(js, &generic); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"metric", "d", "better", "methods", "datasets", "scores", "average_ranks", "friedman", "iman_davenport", "nemenyi_cd", "pairs", "dataset_names", "std", "ranks", "paired_t", "notes"} {
		for i, c := range generic.Comparisons {
			if _, ok := c[key]; !ok {
				t.Errorf("comparison %d has no %q", i, key)
			}
		}
	}
	if _, ok := generic.Comparisons[1]["percent"]; !ok {
		t.Errorf("the percent comparison has no \"percent\"")
	}
	if _, ok := generic.Comparisons[0]["percent"]; ok {
		t.Errorf("the own-d comparison has a \"percent\"")
	}
}

func TestTeXEscape(t *testing.T) {
	tests := []struct{ in, want string }{
		{"yeast_train & 10% #2 $5", `yeast\_train \& 10\% \#2 \$5`},
		{`a\b{c}~^`, `a\textbackslash{}b\{c\}\textasciitilde{}\textasciicircum{}`},
		{`50% & $x_1$ {#} \\ ~^`, `50\% \& \$x\_1\$ \{\#\} \textbackslash{}\textbackslash{} \textasciitilde{}\textasciicircum{}`},
		{"<a>|b", `\textless{}a\textgreater{}\textbar{}b`},
		{"a--b ``q'' ,,x !`", "a-{}-b `{}`q'{}' ,{},x !{}`"},
		{"two\nlines\tand tab", "two lines and tab"},
		{"plain", "plain"},
	}
	for _, tc := range tests {
		if got := TeXEscape(tc.in); got != tc.want {
			t.Errorf("TeXEscape(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestCSVSafeCells: a name a spreadsheet would run as a formula is quoted.
func TestCSVSafeCells(t *testing.T) {
	in := Input{Datasets: []string{"=HYPERLINK(1)"}, DatasetNames: []string{"@evil"}, Methods: []string{"a"},
		Groups: []Group{{Results: []Result{res("=HYPERLINK(1)", "a", map[string]float64{"hamming_loss": -0.5})}}}}
	var b bytes.Buffer
	if err := WriteCSV(&b, Build(in)); err != nil {
		t.Fatal(err)
	}
	if want := "hamming_loss,,,'=HYPERLINK(1),'@evil,-0.5,\n"; !strings.Contains(b.String(), want) {
		t.Errorf("csv =\n%s\nwant a line %q", b.String(), want)
	}
}

// TestAgainstScipy builds a random study and has testdata/compare_check.py
// recompute the ranks, Friedman, Iman–Davenport, Nemenyi, wins/ties/losses,
// Wilcoxon, Holm and the paired t-tests with scipy from the same scores.
func TestAgainstScipy(t *testing.T) {
	const py = "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		t.Skip("no /usr/bin/python3 (Debian's python3-scipy)")
	}
	if err := exec.Command(py, "-c", "import scipy.stats").Run(); err != nil {
		t.Skip("no scipy for /usr/bin/python3")
	}
	rng := rand.New(rand.NewPCG(13, 13))
	metrics := []string{"hamming_loss", "micro_f1", "coverage"}
	var in Input
	for i := range 12 {
		in.Datasets = append(in.Datasets, "D"+string(rune('A'+i)))
		in.DatasetNames = append(in.DatasetNames, "")
	}
	in.Methods = []string{"pca", "mddmp", "cplst", "lpp", "mlsi"}
	type foldsOut struct {
		Dataset, Method string
		Folds           []map[string]float64
	}
	var folds []foldsOut
	for gi := range 2 {
		g := Group{Choice: Choice{D: ip(gi + 2)}}
		for di, ds := range in.Datasets {
			for mi, m := range in.Methods {
				r := Result{Dataset: ds, Method: m, Mean: map[string]float64{}, Std: map[string]float64{}}
				nf := 5
				for range nf {
					r.Folds = append(r.Folds, map[string]float64{})
				}
				for _, met := range metrics {
					base := 0.2 + 0.1*float64(di) + 0.01*float64(rng.IntN(4))*float64(mi%3)
					sum := 0.0
					for f := range nf {
						v := math.Round((base+0.02*rng.Float64())*1e4) / 1e4
						if mi == 4 && met == "coverage" {
							v = r.Folds[f]["hamming_loss"] // constant difference patterns
						}
						r.Folds[f][met] = v
						sum += v
					}
					r.Mean[met] = sum / float64(nf)
					if rng.IntN(5) == 0 {
						r.Mean[met] = base // exact ties between methods
					}
					r.Std[met] = 0.01
				}
				if di == 3 && mi == 2 {
					r.Mean["micro_f1"] = math.NaN()
				}
				g.Results = append(g.Results, r)
				if gi == 0 {
					folds = append(folds, foldsOut{ds, m, r.Folds})
				}
			}
		}
		in.Groups = append(in.Groups, g)
	}
	f := Build(in)
	dir := t.TempDir()
	write := func(name string, v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cmd := exec.Command(py, "testdata/compare_check.py", write("comparison.json", f), write("folds.json", folds))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("compare_check.py: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "checked") {
		t.Fatalf("compare_check.py said %q, want a line starting \"checked\"", out)
	}
	t.Logf("%s", out)
}

// TestNearTie: 0.1+0.2 and 0.3 differ in the last bit; they tie in
// wins/ties/losses and are both bold in the TeX table.
func TestNearTie(t *testing.T) {
	x, y := 0.1, 0.2 // variables: the constant 0.1 + 0.2 is exactly 0.3
	if x+y == 0.3 {
		t.Fatal("0.1+0.2 == 0.3 in float64; the test needs a near tie")
	}
	in := Input{
		Datasets: []string{"D1", "D2"}, Methods: []string{"a", "b"},
		Groups: []Group{{Results: []Result{
			res("D1", "a", map[string]float64{"hamming_loss": x + y}),
			res("D1", "b", map[string]float64{"hamming_loss": 0.3}),
			res("D2", "a", map[string]float64{"hamming_loss": 0.5}),
			res("D2", "b", map[string]float64{"hamming_loss": 0.25}),
		}}},
	}
	f := Build(in)
	if p := f.Comparisons[0].Pairs[0]; p.A != "b" || p.Wins != 1 || p.Ties != 1 || p.Losses != 0 {
		t.Errorf("pair = %+v, want b–a with 1 win, 1 tie, 0 losses", p)
	}
	var b bytes.Buffer
	if err := WriteTeX(&b, paperTable(t, f, 0)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"D1 & a & \\textbf{0.3000} \\\\\n & b & \\textbf{0.3000} \\\\\n", "D2 & a & \\underline{0.5000} \\\\\n & b & \\textbf{0.2500} \\\\\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("tex =\n%s\nwant the lines %q", b.String(), want)
		}
	}
}

// paperTable is the table of f's comparisons at the given indices, with
// the display names and citations a study gives.
func paperTable(t *testing.T, f File, at ...int) *Table {
	t.Helper()
	var cs []Comparison
	for _, i := range at {
		cs = append(cs, f.Comparisons[i])
	}
	tab, err := NewTable(cs, TableSpec{Study: "0123abcd", Label: "tab:mldr-0123abcd", Classifier: "ML-kNN (k = 10, s = 1)",
		Split: "3-fold cross-validation, seed 1", Dims: "each method at its own d (thr = 0.99)",
		MethodNames: map[string]string{"pca": "PCA", "mddmp": "MDDM (orthonormal directions)", "cplst": "CPLST"},
		MetricNames: map[string]string{"hamming_loss": "Hamming loss", "micro_f1": "Micro-F1"},
		Cites: map[string]Cite{"pca": {Key: "jolliffe2002", Reference: "Jolliffe, Principal Component Analysis"},
			"mddmp": {Key: "zhang2008mddm", Reference: "Zhang & Zhou, Multi-Label Dimensionality Reduction via Dependence Maximization, AAAI 2008"}}})
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

func TestMarkdownEscape(t *testing.T) {
	tests := []struct{ in, want string }{
		{`50% & $x_1$ {#} \\ ~^`, `50\% \& \$x\_1\$ \{\#\} \\\\ \~\^`},
		{"a|b <img src=x> *em* [l](u) `c`", "a\\|b \\<img src=x\\> \\*em\\* \\[l\\](u) \\`c\\`"},
		{"emotions-train 0.5", "emotions-train 0.5"},
		{"two\nlines", "two lines"},
	}
	for _, tc := range tests {
		if got := MarkdownEscape(tc.in); got != tc.want {
			t.Errorf("MarkdownEscape(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestUnranked: ori left out of the ranks is shown and paired, second in
// its pairs, but has no rank, and Friedman and Nemenyi rank the other
// two. By hand: ranks b 1, a 2 on both data sets; χ²_F = 2 (as in
// TestTwoByTwo); the pair a–ori: a better on both, Wilcoxon p = 0.5.
func TestUnranked(t *testing.T) {
	m := func(v float64) map[string]float64 { return map[string]float64{"hamming_loss": v} }
	in := Input{
		Datasets: []string{"D1", "D2"}, Methods: []string{"ori", "a", "b"}, Unranked: []string{"ori", "nope"},
		Groups: []Group{{Results: []Result{
			res("D1", "ori", m(0.4)), res("D1", "a", m(0.3)), res("D1", "b", m(0.1)),
			res("D2", "ori", m(0.5)), res("D2", "a", m(0.2)), res("D2", "b", m(0.1)),
		}}},
	}
	c := Build(in).Comparisons[0]
	if !slices.Equal(c.Unranked, []string{"ori"}) || c.AverageRanks["ori"] != nil || c.Ranks[0][0] != nil || !near(c.AverageRanks["b"], 1, 0) || !near(c.AverageRanks["a"], 2, 0) {
		t.Errorf("unranked %v, average ranks ori %v a %v b %v, rank of ori %v; want [ori], null, 2, 1, null",
			c.Unranked, show(c.AverageRanks["ori"]), show(c.AverageRanks["a"]), show(c.AverageRanks["b"]), show(c.Ranks[0][0]))
	}
	if c.Friedman == nil || math.Abs(c.Friedman.Chi2-2) > 1e-12 || c.RankedMethods() != 2 {
		t.Errorf("friedman %+v over %d methods, want χ² 2 over 2", c.Friedman, c.RankedMethods())
	}
	var got []string
	for _, p := range c.Pairs {
		got = append(got, fmt.Sprintf("%s-%s %d/%d/%d", p.A, p.B, p.Wins, p.Ties, p.Losses))
	}
	if want := []string{"a-ori 2/0/0", "b-ori 2/0/0", "b-a 2/0/0"}; !slices.Equal(got, want) {
		t.Errorf("pairs %q, want %q", got, want)
	}
	tab := paperTable(t, Build(in), 0)
	if mk := tab.Cells[0][0][0]; mk.Mark != Plain || tab.Ranks[0][0].Text != "" {
		t.Errorf("ori in the table: %+v, rank %+v; want unmarked, no rank", mk, tab.Ranks[0][0])
	}
	if tab.Cells[0][2][0].Mark != Best || tab.Cells[0][1][0].Mark != Second {
		t.Errorf("D1: b %+v, a %+v; want b best, a second", tab.Cells[0][2][0], tab.Cells[0][1][0])
	}
}

// TestCaveats: the smallest Wilcoxon p and the tests over ranks' caveats
// at the sizes that call for them, and none where none is due.
func TestCaveats(t *testing.T) {
	build := func(nd, nm int) Comparison {
		var in Input
		for i := range nd {
			in.Datasets = append(in.Datasets, fmt.Sprintf("D%d", i))
		}
		for j := range nm {
			in.Methods = append(in.Methods, fmt.Sprintf("m%d", j))
		}
		var g Group
		for i, ds := range in.Datasets {
			for j, me := range in.Methods {
				g.Results = append(g.Results, res(ds, me, map[string]float64{"hamming_loss": float64(j+1) + 0.1*float64(i%2)*float64(j)}))
			}
		}
		in.Groups = []Group{g}
		return Build(in).Comparisons[0]
	}
	tests := []struct {
		nd, nm   int
		wilcoxon string
		ranks    []string
	}{
		{3, 3, "With N = 3 data sets the smallest two-sided Wilcoxon p-value attainable is 0.25 (after Holm's adjustment over the 3 pairs, 0.75): no pair can differ significantly at the 0.05 level, whatever the scores.",
			[]string{"fewer than 5 data sets (N = 3 here)"}},
		{6, 2, "With N = 6 data sets the smallest two-sided Wilcoxon p-value attainable is 0.0312.",
			[]string{"fewer than 3 methods ranked (k = 2 here)"}},
		{6, 3, "With N = 6 data sets the smallest two-sided Wilcoxon p-value attainable is 0.0312 (after Holm's adjustment over the 3 pairs, 0.0938): no pair can differ significantly at the 0.05 level, whatever the scores.", nil},
		{8, 4, "With N = 8 data sets the smallest two-sided Wilcoxon p-value attainable is 0.00781 (after Holm's adjustment over the 6 pairs, 0.0469).", nil},
	}
	for _, tc := range tests {
		c := build(tc.nd, tc.nm)
		if got := c.WilcoxonCaveat(); got != tc.wilcoxon {
			t.Errorf("N = %d, k = %d: Wilcoxon caveat\n%q, want\n%q", tc.nd, tc.nm, got, tc.wilcoxon)
		}
		got := c.RankCaveats()
		if len(got) != len(tc.ranks) {
			t.Errorf("N = %d, k = %d: rank caveats %q, want %d", tc.nd, tc.nm, got, len(tc.ranks))
			continue
		}
		for i, want := range tc.ranks {
			if !strings.Contains(got[i], want) || !strings.Contains(got[i], "Demšar 2006") {
				t.Errorf("N = %d, k = %d: rank caveat %q, want one with %q citing Demšar 2006", tc.nd, tc.nm, got[i], want)
			}
		}
	}
}
