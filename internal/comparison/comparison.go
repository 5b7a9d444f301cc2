// Package comparison builds the comparison of several methods over several
// data sets that a study writes as comparison.json, comparison.csv and
// comparison.tex: per metric and d-choice the methods × data sets table of
// mean scores, the ranks and average ranks, the Friedman and
// Iman–Davenport tests, the Nemenyi critical difference, and for every pair
// of methods wins/ties/losses over data sets with Wilcoxon signed-rank and
// Holm-adjusted p-values, as Demšar recommends ("Statistical Comparisons of
// Classifiers over Multiple Data Sets", JMLR 7 (2006) 1–30), plus paired
// t-tests over the folds of each data set. The statistics are package
// stats'; this package knows results, not jobs or HTTP.
package comparison

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"mldr/internal/evaluate"
	"mldr/internal/stats"
)

// Result is one method's metrics on one data set at one d-choice.
type Result struct {
	Dataset string
	Method  string
	// Mean maps a metric to its mean over folds; NaN (or ±Inf, or a missing
	// key) means undefined.
	Mean map[string]float64
	// Std maps a metric to its standard deviation over folds; nil or a
	// missing key with one fold.
	Std map[string]float64
	// Folds holds the per-fold metrics in fold order; with fewer than 2
	// folds there is no paired t-test on this data set.
	Folds []map[string]float64
}

// Choice is a d-choice: D for a value of d, Percent for a percent grid
// point; both nil means each method at its own d.
type Choice struct {
	D       *int
	Percent *float64
	// PercentOf says what Percent is of: "features" (D) or "rank" (each
	// method's rank); empty without Percent.
	PercentOf string
	// CommonD, with neither D nor Percent, is the d every method but the
	// baseline ran at on every data set, when they all ran at one (a
	// study with params.d and no grid); nil otherwise.
	CommonD *int
}

// Group is the results at one d-choice.
type Group struct {
	Choice  Choice
	Results []Result
}

// Input is what Build compares: the data set ids in order, their display
// names (same length as Datasets; an empty or missing name shows the id),
// the methods in order, and the results per d-choice. Unranked lists
// methods of Methods that are shown (scores, wins/ties/losses, Wilcoxon)
// but left out of the ranks, Friedman, Iman–Davenport and Nemenyi: the
// baseline ori when a study asks so.
type Input struct {
	Datasets, DatasetNames, Methods []string
	Unranked                        []string
	Groups                          []Group
}

// File is comparison.json.
type File struct {
	Comparisons []Comparison `json:"comparisons"`
}

// Comparison is the comparison of the methods at one metric and d-choice.
// Rows of the matrices are Datasets, columns Methods; null is undefined.
type Comparison struct {
	Metric string `json:"metric"`
	// D is the value of d, null when each method ran at its own d (or at a
	// percent grid point: see Percent).
	D       *int     `json:"d"`
	Percent *float64 `json:"percent,omitempty"`
	// PercentOf is what Percent is of: "features" or "rank".
	PercentOf string `json:"percent_of,omitempty"`
	// CommonD is Choice.CommonD: with d null, the one d every method but
	// the baseline ran at, when there is one.
	CommonD *int `json:"common_d,omitempty"`
	// Better is "lower" or "higher" (evaluate.LowerIsBetter).
	Better       string   `json:"better"`
	Methods      []string `json:"methods"`
	Datasets     []string `json:"datasets"`
	DatasetNames []string `json:"dataset_names"`
	// Scores are the means over folds; Std their standard deviations.
	Scores [][]*float64 `json:"scores"`
	Std    [][]*float64 `json:"std"`
	// Ranks are the ranks within each data set used by the tests (1 =
	// best, ties averaged); a row of nulls for a data set left out.
	Ranks [][]*float64 `json:"ranks"`
	// Unranked are the methods left out of the ranks, Friedman,
	// Iman–Davenport and Nemenyi on purpose (Input.Unranked): their ranks
	// and average ranks are null, their pairs are compared.
	Unranked []string `json:"unranked,omitempty"`
	// AverageRanks are the mean ranks over the data sets used; null for
	// a method left out or when no data set is usable.
	AverageRanks map[string]*float64 `json:"average_ranks"`
	// RankedDatasets is the number N of data sets the ranks, Friedman,
	// Iman–Davenport and Nemenyi use (those where every ranked method has
	// a score).
	RankedDatasets int            `json:"ranked_datasets"`
	Friedman       *FriedmanTest  `json:"friedman"`
	ImanDavenport  *ImanDavenport `json:"iman_davenport"`
	// NemenyiCD maps α ("0.05", "0.10") to the critical difference of
	// average ranks.
	NemenyiCD map[string]float64 `json:"nemenyi_cd"`
	Pairs     []Pair             `json:"pairs"`
	PairedT   []DatasetPairedT   `json:"paired_t"`
	Notes     []string           `json:"notes"`
}

// FriedmanTest is the Friedman statistic χ²_F and its p-value.
type FriedmanTest struct {
	Chi2 float64 `json:"chi2"`
	P    float64 `json:"p"`
}

// ImanDavenport is Iman and Davenport's F_F and its p-value; F is null
// when infinite (every data set ranks the methods the same way; p is 0).
type ImanDavenport struct {
	F *float64 `json:"f"`
	P float64  `json:"p"`
}

// Pair compares two methods over the data sets where both have a score.
// A is the one with the better (lower) average rank, or the earlier in
// Methods when equal or undefined; a method left out of the ranks
// (Unranked) is B against a ranked one. Wins counts data sets where A's score
// is better than B's, Ties where they are equal (exactly, or within 1e−12
// relative), Losses where it is worse. WilcoxonP is scipy's default
// two-sided Wilcoxon signed-rank p-value of A's scores against B's, null
// when it cannot be computed; HolmP is it adjusted by Holm over the pairs
// of this comparison that have one.
type Pair struct {
	A         string   `json:"a"`
	B         string   `json:"b"`
	Datasets  int      `json:"datasets"`
	Wins      int      `json:"wins"`
	Ties      int      `json:"ties"`
	Losses    int      `json:"losses"`
	WilcoxonP *float64 `json:"wilcoxon_p"`
	HolmP     *float64 `json:"holm_p"`
}

// DatasetPairedT holds the paired t-tests over the folds of one data set
// (seed 000's protocol).
type DatasetPairedT struct {
	Dataset string    `json:"dataset"`
	Folds   int       `json:"folds"`
	Pairs   []PairedT `json:"pairs"`
}

// PairedT is scipy's ttest_rel of A's fold scores against B's (A and B as
// in Pair). T is null when infinite (the difference is the same in every
// fold; P is then 0) or undefined (T and P null: no difference at all).
type PairedT struct {
	A string   `json:"a"`
	B string   `json:"b"`
	T *float64 `json:"t"`
	P *float64 `json:"p"`
}

// Nemenyi levels reported, as keys of Comparison.NemenyiCD.
var nemenyiLevels = []struct {
	key   string
	alpha float64
}{{"0.05", 0.05}, {"0.10", 0.10}}

// tieRel is the relative difference below which two scores tie in
// wins/ties/losses.
const tieRel = 1e-12

// Build compares in.Methods over in.Datasets: one Comparison per metric
// (sorted by name) and d-choice (in the order of in.Groups), for every
// metric some result of the group has. Results naming a data set or method
// not in in are ignored with a note, as are repeated (data set, method)
// results after the first. What cannot be computed is null, with a note
// saying why.
func Build(in Input) File {
	f := File{Comparisons: []Comparison{}}
	for _, g := range in.Groups {
		var metrics []string
		for _, r := range g.Results {
			for m := range r.Mean {
				if !slices.Contains(metrics, m) {
					metrics = append(metrics, m)
				}
			}
		}
		slices.Sort(metrics)
		for _, m := range metrics {
			f.Comparisons = append(f.Comparisons, buildOne(in, g, m))
		}
	}
	// Metric outer, d-choice inner.
	slices.SortStableFunc(f.Comparisons, func(a, b Comparison) int {
		return strings.Compare(a.Metric, b.Metric)
	})
	return f
}

// finite returns a pointer to v, or nil when v is NaN or infinite.
func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

func buildOne(in Input, g Group, metric string) Comparison {
	c := Comparison{
		Metric:       metric,
		D:            g.Choice.D,
		Percent:      g.Choice.Percent,
		PercentOf:    g.Choice.PercentOf,
		CommonD:      g.Choice.CommonD,
		Better:       "higher",
		Methods:      slices.Clone(in.Methods),
		Datasets:     slices.Clone(in.Datasets),
		DatasetNames: make([]string, len(in.Datasets)),
		AverageRanks: map[string]*float64{},
		Pairs:        []Pair{},
		PairedT:      []DatasetPairedT{},
		Notes:        []string{},
	}
	for _, m := range in.Unranked {
		if slices.Contains(in.Methods, m) {
			c.Unranked = append(c.Unranked, m)
		}
	}
	lower := evaluate.LowerIsBetter(metric)
	if lower {
		c.Better = "lower"
	}
	for i, id := range in.Datasets {
		c.DatasetNames[i] = id
		if i < len(in.DatasetNames) && in.DatasetNames[i] != "" {
			c.DatasetNames[i] = in.DatasetNames[i]
		}
	}
	nd, nm := len(in.Datasets), len(in.Methods)
	c.Scores = nullMatrix(nd, nm)
	c.Std = nullMatrix(nd, nm)
	c.Ranks = nullMatrix(nd, nm)
	folds := make([][][]map[string]float64, nd)
	for i := range folds {
		folds[i] = make([][]map[string]float64, nm)
	}
	seen := map[[2]int]bool{}
	for _, r := range g.Results {
		i, j := slices.Index(in.Datasets, r.Dataset), slices.Index(in.Methods, r.Method)
		if i < 0 || j < 0 {
			c.Notes = append(c.Notes, fmt.Sprintf("a result of method %q on data set %q is not part of this study; ignored", r.Method, r.Dataset))
			continue
		}
		if seen[[2]int{i, j}] {
			c.Notes = append(c.Notes, fmt.Sprintf("%s on %s: a second result at this d-choice; only the first is used", r.Method, c.DatasetNames[i]))
			continue
		}
		seen[[2]int{i, j}] = true
		if v, ok := r.Mean[metric]; ok {
			c.Scores[i][j] = finite(v)
		}
		if v, ok := r.Std[metric]; ok {
			c.Std[i][j] = finite(v)
		}
		folds[i][j] = r.Folds
	}

	// Methods with a score somewhere are ranked and tested, but for those
	// left out of the ranks on purpose, which are only tested in pairs.
	var ranked, paired []int
	for j, m := range in.Methods {
		has := false
		for i := range nd {
			has = has || c.Scores[i][j] != nil
		}
		switch {
		case has && slices.Contains(c.Unranked, m):
			c.AverageRanks[m] = nil
			paired = append(paired, j)
			c.Notes = append(c.Notes, fmt.Sprintf("%s is left out of the ranks, Friedman, Iman–Davenport and Nemenyi, as the study asked; its pairs are compared", m))
		case has:
			ranked = append(ranked, j)
			paired = append(paired, j)
		default:
			c.AverageRanks[m] = nil
			c.Notes = append(c.Notes, fmt.Sprintf("%s has no %s score on any data set; left out of the ranks and tests", m, metric))
		}
	}
	// oriented makes higher-is-better scores rank like lower-is-better.
	oriented := func(v float64) float64 {
		if lower {
			return v
		}
		return -v
	}
	var rows [][]float64
	sums := make([]float64, len(ranked))
	for i := range nd {
		row := make([]float64, 0, len(ranked))
		var missing []string
		for _, j := range ranked {
			if c.Scores[i][j] == nil {
				missing = append(missing, in.Methods[j])
				continue
			}
			row = append(row, oriented(*c.Scores[i][j]))
		}
		if len(ranked) == 0 {
			continue
		}
		if len(missing) > 0 {
			c.Notes = append(c.Notes, fmt.Sprintf("data set %s left out of the ranks, Friedman, Iman–Davenport and Nemenyi: no %s score for %s", c.DatasetNames[i], metric, strings.Join(missing, ", ")))
			continue
		}
		r := stats.Rank(row)
		for jj, j := range ranked {
			c.Ranks[i][j] = finite(r[jj])
			sums[jj] += r[jj]
		}
		rows = append(rows, row)
	}
	n, k := len(rows), len(ranked)
	c.RankedDatasets = n
	avg := make([]float64, nm)
	for j := range avg {
		avg[j] = math.NaN()
	}
	for jj, j := range ranked {
		if n > 0 {
			avg[j] = sums[jj] / float64(n)
		}
		c.AverageRanks[in.Methods[j]] = finite(avg[j])
	}
	switch {
	case k < 2:
		c.Notes = append(c.Notes, fmt.Sprintf("Friedman, Iman–Davenport and Nemenyi need at least 2 methods with %s scores; %d here", metric, k))
	case n < 2:
		c.Notes = append(c.Notes, fmt.Sprintf("Friedman, Iman–Davenport and Nemenyi need at least 2 data sets where every method has a %s score; %d here", metric, n))
	default:
		chi2, p, err := stats.Friedman(rows)
		if err != nil {
			c.Notes = append(c.Notes, fmt.Sprintf("no Friedman or Iman–Davenport test: every data set gives all methods the same %s", metric))
		} else {
			c.Friedman = &FriedmanTest{Chi2: chi2, P: p}
			fF, pF := stats.ImanDavenport(chi2, n, k)
			c.ImanDavenport = &ImanDavenport{F: finite(fF), P: pF}
			if math.IsInf(fF, 1) {
				c.Notes = append(c.Notes, "the Iman–Davenport F is infinite (every data set ranks the methods the same way): f is null and p is 0")
			}
		}
		c.NemenyiCD = map[string]float64{}
		for _, l := range nemenyiLevels {
			c.NemenyiCD[l.key] = stats.NemenyiCD(k, n, l.alpha)
		}
	}

	// Pairs over the data sets where both have a score; a method left out
	// of the ranks is the second of its pairs.
	var wp []float64
	var wpIdx []int
	for x := 0; x < len(paired); x++ {
		for y := x + 1; y < len(paired); y++ {
			a, b := paired[x], paired[y]
			unranked := slices.Contains(c.Unranked, in.Methods[a]) && !slices.Contains(c.Unranked, in.Methods[b])
			if avg[b] < avg[a] || unranked {
				a, b = b, a
			}
			pr := Pair{A: in.Methods[a], B: in.Methods[b]}
			var xs, ys []float64
			for i := range nd {
				sa, sb := c.Scores[i][a], c.Scores[i][b]
				if sa == nil || sb == nil {
					continue
				}
				pr.Datasets++
				switch oa, ob := oriented(*sa), oriented(*sb); {
				case tied(oa, ob):
					pr.Ties++
				case oa < ob:
					pr.Wins++
				default:
					pr.Losses++
				}
				xs, ys = append(xs, *sa), append(ys, *sb)
			}
			if pr.Datasets == 0 {
				c.Notes = append(c.Notes, fmt.Sprintf("%s vs %s: no data set where both have a %s score; no Wilcoxon p-value", pr.A, pr.B, metric))
			} else if _, p, err := stats.Wilcoxon(xs, ys); err != nil {
				c.Notes = append(c.Notes, fmt.Sprintf("%s vs %s: the same %s on all %d data sets; no Wilcoxon p-value", pr.A, pr.B, metric, pr.Datasets))
			} else {
				pr.WilcoxonP = finite(p)
				wp = append(wp, p)
				wpIdx = append(wpIdx, len(c.Pairs))
			}
			c.Pairs = append(c.Pairs, pr)
		}
	}
	for i, h := range stats.Holm(wp) {
		c.Pairs[wpIdx[i]].HolmP = finite(h)
	}

	// Paired t-tests over the folds of each data set.
	for i := range nd {
		dt := DatasetPairedT{Dataset: in.Datasets[i], Pairs: []PairedT{}}
		for _, pr := range c.Pairs {
			a, b := slices.Index(in.Methods, pr.A), slices.Index(in.Methods, pr.B)
			fa, fb := folds[i][a], folds[i][b]
			dt.Folds = max(dt.Folds, len(fa), len(fb))
			if len(fa) < 2 || len(fb) < 2 {
				continue
			}
			where := fmt.Sprintf("%s, %s vs %s", c.DatasetNames[i], pr.A, pr.B)
			if len(fa) != len(fb) {
				c.Notes = append(c.Notes, fmt.Sprintf("%s: %d folds against %d; no paired t-test", where, len(fa), len(fb)))
				continue
			}
			var xs, ys []float64
			for f := range fa {
				va, oka := fa[f][metric]
				vb, okb := fb[f][metric]
				if oka && okb && finite(va) != nil && finite(vb) != nil {
					xs, ys = append(xs, va), append(ys, vb)
				}
			}
			if len(xs) < len(fa) && len(xs) >= 2 {
				c.Notes = append(c.Notes, fmt.Sprintf("%s: %s undefined in %d of %d folds; the paired t-test uses the other %d", where, metric, len(fa)-len(xs), len(fa), len(xs)))
			}
			pt := PairedT{A: pr.A, B: pr.B}
			t, p, err := stats.PairedT(xs, ys)
			switch {
			case err != nil && len(xs) < 2:
				c.Notes = append(c.Notes, fmt.Sprintf("%s: fewer than 2 folds with a %s score for both; no paired t-test", where, metric))
			case err != nil:
				c.Notes = append(c.Notes, fmt.Sprintf("%s: both have the same %s in every fold; no paired t-test", where, metric))
			default:
				pt.T, pt.P = finite(t), &p
				if math.IsInf(t, 0) {
					c.Notes = append(c.Notes, fmt.Sprintf("%s: the %s difference is the same in every fold, so t is infinite: t is null and p is 0", where, metric))
				}
			}
			dt.Pairs = append(dt.Pairs, pt)
		}
		if len(dt.Pairs) > 0 {
			c.PairedT = append(c.PairedT, dt)
		}
	}
	return c
}

// tied reports whether a and b are equal or within tieRel of each other.
func tied(a, b float64) bool {
	return a == b || math.Abs(a-b) <= tieRel*math.Max(math.Abs(a), math.Abs(b))
}

func nullMatrix(r, c int) [][]*float64 {
	m := make([][]*float64, r)
	for i := range m {
		m[i] = make([]*float64, c)
	}
	return m
}
