package stats

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"
)

// num is a golden float: a JSON number, or "nan", "inf", "-inf".
type num float64

func (n *num) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		switch s {
		case "nan":
			*n = num(math.NaN())
		case "inf":
			*n = num(math.Inf(1))
		case "-inf":
			*n = num(math.Inf(-1))
		default:
			return fmt.Errorf("golden float %q", s)
		}
		return nil
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	*n = num(f)
	return nil
}

func floats(a []num) []float64 {
	out := make([]float64, len(a))
	for i, v := range a {
		out[i] = float64(v)
	}
	return out
}

// goldens is testdata/goldens.json, written by testdata/make_goldens.py
// with Debian's python3-scipy 1.10.1 and numpy 1.24.
type goldens struct {
	Scipy string `json:"scipy"`
	Rank  []struct {
		X, Want []num
	} `json:"rank"`
	Friedman []struct {
		Scores [][]num
		K, N   int
		Chi2   num
		P      num
		F      *num
		FP     *num `json:"f_p"`
		Error  bool
	} `json:"friedman"`
	Wilcoxon []struct {
		X, Y    []num
		Note    string
		Stat, P num
		Error   bool
	} `json:"wilcoxon"`
	Holm []struct {
		P, Want []num
	} `json:"holm"`
	TTest []struct {
		X, Y  []num
		Note  string
		T, P  num
		Error bool
	} `json:"ttest_rel"`
	SRange []struct {
		K     int
		Alpha float64
		Q     num
	} `json:"studentized_range"`
}

func loadGoldens(t *testing.T) goldens {
	t.Helper()
	b, err := os.ReadFile("testdata/goldens.json")
	if err != nil {
		t.Fatal(err)
	}
	var g goldens
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	if g.Scipy != "1.10.1" {
		t.Fatalf("goldens from scipy %s, want 1.10.1", g.Scipy)
	}
	return g
}

// close reports whether got is want within rel relative tolerance (absolute
// near 0), infinities and NaN matching exactly.
func close(got, want, rel float64) bool {
	if math.IsNaN(want) || math.IsInf(want, 0) {
		return got == want || (math.IsNaN(got) && math.IsNaN(want))
	}
	return math.Abs(got-want) <= rel*math.Max(math.Abs(want), 1e-300) || math.Abs(got-want) <= 1e-300
}

func TestRankGoldens(t *testing.T) {
	for i, c := range loadGoldens(t).Rank {
		got := Rank(floats(c.X))
		for j, w := range floats(c.Want) {
			if !close(got[j], w, 0) {
				t.Errorf("case %d: Rank(%v)[%d] = %v, want %v (scipy rankdata)", i, floats(c.X), j, got[j], w)
			}
		}
	}
}

func TestRankHand(t *testing.T) {
	tests := []struct {
		x, want []float64
	}{
		{nil, []float64{}},
		{[]float64{5}, []float64{1}},
		{[]float64{10, 20, 10, 30}, []float64{1.5, 3, 1.5, 4}},
		{[]float64{2, 2, 2}, []float64{2, 2, 2}},
		{[]float64{3, 1, 2}, []float64{3, 1, 2}},
		// scipy 1.10 gives all NaN here (its NaN check sums x); see Rank.
		{[]float64{math.Inf(1), 1, math.Inf(-1), math.Inf(1)}, []float64{3.5, 2, 1, 3.5}},
		{[]float64{1e308, 1e308, -1}, []float64{2.5, 2.5, 1}},
	}
	for _, tc := range tests {
		got := Rank(tc.x)
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("Rank(%v) = %v, want %v", tc.x, got, tc.want)
		}
	}
}

// TestRankProperties checks on random integer data (many ties) that the
// ranks sum to n(n+1)/2 and keep the order of the values.
func TestRankProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for range 200 {
		n := 1 + rng.IntN(40)
		x := make([]float64, n)
		for i := range x {
			x[i] = float64(rng.IntN(6))
		}
		r := Rank(x)
		sum := 0.0
		for i := range r {
			sum += r[i]
			for j := range r {
				if (x[i] < x[j]) != (r[i] < r[j]) || (x[i] == x[j]) != (r[i] == r[j]) {
					t.Fatalf("Rank(%v) = %v: order of %d and %d not kept", x, r, i, j)
				}
			}
		}
		if want := float64(n*(n+1)) / 2; sum != want {
			t.Fatalf("Rank(%v) sums to %v, want %v", x, sum, want)
		}
	}
}

func FuzzRank(f *testing.F) {
	f.Add(1.0, 2.0, 2.0, -0.0, 0.0)
	f.Fuzz(func(t *testing.T, a, b, c, d, e float64) {
		x := []float64{a, b, c, d, e}
		r := Rank(x)
		sum := 0.0
		for _, v := range r {
			sum += v
		}
		for _, v := range x {
			if math.IsNaN(v) {
				if !math.IsNaN(sum) {
					t.Fatalf("Rank(%v) = %v, want all NaN", x, r)
				}
				return
			}
		}
		if sum != 15 {
			t.Fatalf("Rank(%v) = %v sums to %v, want 15", x, r, sum)
		}
	})
}

func TestFriedmanGoldens(t *testing.T) {
	g := loadGoldens(t)
	for i, c := range g.Friedman {
		scores := make([][]float64, len(c.Scores))
		for r, row := range c.Scores {
			scores[r] = floats(row)
		}
		chi2, p, err := Friedman(scores)
		if c.Error {
			if err == nil {
				t.Errorf("case %d (k=%d n=%d): Friedman = %v, %v, want an error (scipy: NaN)", i, c.K, c.N, chi2, p)
			} else if !errors.Is(err, ErrAllTied) {
				t.Errorf("case %d: error %v, want ErrAllTied", i, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("case %d (k=%d n=%d): %v", i, c.K, c.N, err)
			continue
		}
		if !close(chi2, float64(c.Chi2), 1e-12) || !close(p, float64(c.P), 1e-12) {
			t.Errorf("case %d (k=%d n=%d): Friedman = %v, %v, want %v, %v", i, c.K, c.N, chi2, p, c.Chi2, c.P)
		}
		if c.F == nil {
			continue
		}
		f, fp := ImanDavenport(chi2, c.N, c.K)
		if !close(f, float64(*c.F), 1e-12) || !close(fp, float64(*c.FP), 1e-12) {
			t.Errorf("case %d (k=%d n=%d): ImanDavenport(%v) = %v, %v, want %v, %v (scipy f.sf)", i, c.K, c.N, chi2, f, fp, *c.F, *c.FP)
		}
	}
}

func TestFriedmanErrors(t *testing.T) {
	tests := []struct {
		name   string
		scores [][]float64
		want   string
	}{
		{"no rows", nil, "stats: Friedman test: no data set given; it needs at least one row of scores"},
		{"one method", [][]float64{{1}, {2}}, "stats: Friedman test: 1 method(s) given; it needs at least 2"},
		{"ragged", [][]float64{{1, 2}, {2}}, "stats: Friedman test: row 1 has 1 scores, row 0 has 2; every row needs one score per method"},
		{"nan", [][]float64{{1, 2}, {2, math.NaN()}}, "stats: Friedman test: score [1][1] is NaN; leave that data set out"},
		{"all tied", [][]float64{{1, 1}, {2, 2}}, "stats: Friedman test: every data set gives all methods the same score, so the statistic is undefined"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Friedman(tc.scores)
			if err == nil || err.Error() != tc.want {
				t.Errorf("got error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestImanDavenportEdges(t *testing.T) {
	tests := []struct {
		chi2  float64
		n, k  int
		f, p  float64
		isNaN bool
	}{
		{chi2: 8, n: 4, k: 3, f: math.Inf(1), p: 0},
		{chi2: 0, n: 4, k: 3, f: 0, p: 1},
		{chi2: 1, n: 1, k: 3, isNaN: true},
		{chi2: 1, n: 4, k: 1, isNaN: true},
		{chi2: math.NaN(), n: 4, k: 3, isNaN: true},
	}
	for _, tc := range tests {
		f, p := ImanDavenport(tc.chi2, tc.n, tc.k)
		if tc.isNaN {
			if !math.IsNaN(f) || !math.IsNaN(p) {
				t.Errorf("ImanDavenport(%v, %d, %d) = %v, %v, want NaN, NaN", tc.chi2, tc.n, tc.k, f, p)
			}
			continue
		}
		if f != tc.f || p != tc.p {
			t.Errorf("ImanDavenport(%v, %d, %d) = %v, %v, want %v, %v", tc.chi2, tc.n, tc.k, f, p, tc.f, tc.p)
		}
	}
}

func TestWilcoxonGoldens(t *testing.T) {
	for i, c := range loadGoldens(t).Wilcoxon {
		stat, p, err := Wilcoxon(floats(c.X), floats(c.Y))
		if c.Error {
			if !errors.Is(err, ErrAllZero) {
				t.Errorf("case %d (%s, n=%d): got %v, %v, %v, want ErrAllZero (scipy raises)", i, c.Note, len(c.X), stat, p, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("case %d (%s, n=%d): %v", i, c.Note, len(c.X), err)
			continue
		}
		if stat != float64(c.Stat) || !close(p, float64(c.P), 1e-12) {
			t.Errorf("case %d (%s, n=%d): Wilcoxon = %v, %v, want %v, %v (scipy wilcoxon)", i, c.Note, len(c.X), stat, p, c.Stat, c.P)
		}
	}
}

func TestWilcoxonErrors(t *testing.T) {
	tests := []struct {
		name string
		x, y []float64
		want string
	}{
		{"lengths", []float64{1, 2}, []float64{1}, "stats: Wilcoxon test: x has 2 values and y 1; the samples must be paired"},
		{"empty", nil, nil, "stats: Wilcoxon test: no pairs given; it needs at least one"},
		{"nan", []float64{1, math.NaN()}, []float64{0, 0}, "stats: Wilcoxon test: pair 1 is NaN (x = NaN, y = 0); leave it out"},
		{"all zero", []float64{1, 2}, []float64{1, 2}, "stats: Wilcoxon test: all differences are zero (2 pairs), so there is nothing to rank and no p-value"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Wilcoxon(tc.x, tc.y)
			if err == nil || err.Error() != tc.want {
				t.Errorf("got error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestHolmGoldens(t *testing.T) {
	for i, c := range loadGoldens(t).Holm {
		got := Holm(floats(c.P))
		for j, w := range floats(c.Want) {
			if !close(got[j], w, 1e-15) {
				t.Errorf("case %d: Holm(%v)[%d] = %v, want %v", i, floats(c.P), j, got[j], w)
			}
		}
	}
}

func TestHolmNaN(t *testing.T) {
	got := Holm([]float64{0.01, math.NaN(), 0.04})
	want := []float64{0.02, math.NaN(), 0.04}
	for i := range want {
		if !close(got[i], want[i], 1e-15) {
			t.Errorf("Holm with a NaN: [%d] = %v, want %v (NaN left out of m)", i, got[i], want[i])
		}
	}
}

func TestPairedTGoldens(t *testing.T) {
	for i, c := range loadGoldens(t).TTest {
		tt, p, err := PairedT(floats(c.X), floats(c.Y))
		if c.Error {
			if !errors.Is(err, ErrNoVariance) {
				t.Errorf("case %d (%s): got %v, %v, %v, want ErrNoVariance (scipy: NaN)", i, c.Note, tt, p, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("case %d (%s, n=%d): %v", i, c.Note, len(c.X), err)
			continue
		}
		if !close(tt, float64(c.T), 1e-12) || !close(p, float64(c.P), 1e-11) {
			t.Errorf("case %d (%s, n=%d): PairedT = %v, %v, want %v, %v (scipy ttest_rel)", i, c.Note, len(c.X), tt, p, c.T, c.P)
		}
	}
}

func TestPairedTErrors(t *testing.T) {
	tests := []struct {
		name string
		x, y []float64
		want string
	}{
		{"lengths", []float64{1, 2}, []float64{1}, "stats: paired t-test: x has 2 values and y 1; the samples must be paired"},
		{"one pair", []float64{1}, []float64{2}, "stats: paired t-test: 1 pair(s) given; it needs at least 2"},
		{"nan", []float64{1, math.NaN()}, []float64{0, 0}, "stats: paired t-test: pair 1 is NaN (x = NaN, y = 0); leave it out"},
		{"all zero", []float64{1, 2}, []float64{1, 2}, "stats: paired t-test: all differences are zero (2 pairs), so t is 0/0 and there is no p-value"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := PairedT(tc.x, tc.y)
			if err == nil || err.Error() != tc.want {
				t.Errorf("got error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestStudentizedRangeGoldens(t *testing.T) {
	for _, c := range loadGoldens(t).SRange {
		got := StudentizedRangeQuantile(1-c.Alpha, c.K)
		if !close(got, float64(c.Q), 1e-9) {
			t.Errorf("StudentizedRangeQuantile(%v, %d) = %.15g, want %.15g (scipy studentized_range.ppf, df=inf)", 1-c.Alpha, c.K, got, c.Q)
		}
	}
}

// TestNemenyiDemsar checks q_α = CD/√(k(k+1)/(6N)) against Demšar (2006),
// table 5(a), to one unit of the third decimal printed: three of its entries
// are not the rounded exact value (k=3, α=0.05: 2.34370 printed 2.343; k=7,
// α=0.05: 2.94832 printed 2.949; k=5, α=0.10: 2.45952 printed 2.459), so
// half a unit would fail on the table, not on the code. The exact values
// are checked against scipy in TestStudentizedRangeGoldens.
func TestNemenyiDemsar(t *testing.T) {
	q05 := []float64{1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164}
	q10 := []float64{1.645, 2.052, 2.291, 2.459, 2.589, 2.693, 2.780, 2.855, 2.920}
	for i := range q05 {
		k := i + 2
		for _, c := range []struct {
			alpha, want float64
		}{{0.05, q05[i]}, {0.10, q10[i]}} {
			n := 7
			cd := NemenyiCD(k, n, c.alpha)
			q := cd / math.Sqrt(float64(k*(k+1))/(6*float64(n)))
			if math.Abs(q-c.want) > 0.001 {
				t.Errorf("k=%d α=%v: q = %.6f, want %.3f (Demšar table 5(a))", k, c.alpha, q, c.want)
			}
		}
	}
	for _, bad := range []struct {
		k, n  int
		alpha float64
	}{{1, 5, 0.05}, {3, 0, 0.05}, {3, 5, 0}, {3, 5, 1}} {
		if got := NemenyiCD(bad.k, bad.n, bad.alpha); !math.IsNaN(got) {
			t.Errorf("NemenyiCD(%d, %d, %v) = %v, want NaN", bad.k, bad.n, bad.alpha, got)
		}
	}
}

func TestPairwiseSumMatchesNumpy(t *testing.T) {
	// np.sum of 0.1 repeated: numpy 1.24 gives these (pairwise summation);
	// a left-to-right sum gives 0.9999999999999999 for 10 and
	// 9.99999999999998 for 100.
	tests := []struct {
		n    int
		want float64
	}{{10, 1.0}, {100, 9.999999999999998}, {7, 0.7}}
	for _, tc := range tests {
		x := make([]float64, tc.n)
		for i := range x {
			x[i] = 0.1
		}
		if got := pairwiseSum(x); got != tc.want {
			t.Errorf("pairwiseSum(0.1 × %d) = %.17g, want %.17g", tc.n, got, tc.want)
		}
	}
}

// TestWilcoxonMinP checks the smallest attainable p against scipy
// (testdata/wilcoxon_min_p.json, made by
// testdata/make_wilcoxon_min_goldens.py with scipy 1.10.1: the minimum of
// scipy's wilcoxon over every outcome for n ≤ 14, the extreme outcome
// beyond) and against hand-computed values: with every difference of one
// sign r+ is 0 or n(n+1)/2, each of probability 2^−n, so p = 2·2^−n.
func TestWilcoxonMinP(t *testing.T) {
	b, err := os.ReadFile("testdata/wilcoxon_min_p.json")
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Scipy string `json:"scipy"`
		Cases []struct {
			N    int     `json:"n"`
			MinP float64 `json:"min_p"`
		} `json:"wilcoxon_min_p"`
	}
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	if g.Scipy != "1.10.1" || len(g.Cases) != 60 {
		t.Fatalf("goldens from scipy %s with %d cases, want 1.10.1 and 60", g.Scipy, len(g.Cases))
	}
	for _, c := range g.Cases {
		if got := WilcoxonMinP(c.N); !close(got, c.MinP, 1e-12) {
			t.Errorf("WilcoxonMinP(%d) = %v, want %v (scipy wilcoxon)", c.N, got, c.MinP)
		}
	}
	tests := []struct {
		n    int
		want float64
	}{{1, 1}, {2, 0.5}, {3, 0.25}, {4, 0.125}, {5, 0.0625}, {6, 0.03125}, {10, 2.0 / 1024}}
	for _, tc := range tests {
		if got := WilcoxonMinP(tc.n); got != tc.want {
			t.Errorf("WilcoxonMinP(%d) = %v, want %v (2·2^−n, by hand)", tc.n, got, tc.want)
		}
	}
	if got := WilcoxonMinP(0); !math.IsNaN(got) {
		t.Errorf("WilcoxonMinP(0) = %v, want NaN", got)
	}
}
