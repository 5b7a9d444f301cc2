package stats

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

// hypergeomGoldens is testdata/hypergeom.json, written by
// testdata/make_hypergeom_goldens.py with Debian's python3 (scipy 1.10.1,
// numpy 1.24, mpmath 1.2.1).
type hypergeomGoldens struct {
	Scipy     string  `json:"scipy"`
	ScipyRel  float64 `json:"scipy_worst_rel"`
	Hypergeom []struct {
		K       int `json:"k"`
		N       int `json:"N"`
		Succ    int `json:"K"`
		Draws   int `json:"n"`
		Want    num `json:"want"`
		LogWant num `json:"log_want"`
		ScipySF num `json:"scipy_sf"`
	} `json:"hypergeom"`
	BH []struct {
		P, Want []num
	} `json:"bh"`
}

func loadHypergeomGoldens(t *testing.T) hypergeomGoldens {
	t.Helper()
	b, err := os.ReadFile("testdata/hypergeom.json")
	if err != nil {
		t.Fatal(err)
	}
	var g hypergeomGoldens
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	if g.Scipy != "1.10.1" {
		t.Fatalf("goldens from scipy %s, want 1.10.1", g.Scipy)
	}
	if len(g.Hypergeom) < 1000 || len(g.BH) < 30 {
		t.Fatalf("%d hypergeom and %d BH goldens, want at least 1000 and 30", len(g.Hypergeom), len(g.BH))
	}
	return g
}

// sfClose reports whether got is want to rel relative, with two units of
// the last place allowed where want is subnormal (exp has no more there).
func sfClose(got, want, rel float64) bool {
	if math.IsNaN(got) {
		return false
	}
	return math.Abs(got-want) <= rel*want+2*math.SmallestNonzeroFloat64
}

func TestHypergeomSFGoldens(t *testing.T) {
	g := loadHypergeomGoldens(t)
	var worst, worstFar float64
	for _, c := range g.Hypergeom {
		got := HypergeomSF(c.K, c.N, c.Succ, c.Draws)
		want := float64(c.Want)
		// mpmath: 1e-12 relative, 1e-9 in the far tail.
		rel := 1e-12
		if want < 1e-100 {
			rel = 1e-9
		}
		if !sfClose(got, want, rel) {
			t.Errorf("HypergeomSF(%d, %d, %d, %d) = %v, want %v (mpmath; log %v)",
				c.K, c.N, c.Succ, c.Draws, got, want, float64(c.LogWant))
		}
		if want >= 0x1p-1022 {
			e := math.Abs(got-want) / want
			if want < 1e-100 {
				worstFar = math.Max(worstFar, e)
			} else {
				worst = math.Max(worst, e)
			}
		}
		// scipy's own sf, to the 1e-9 it has at N = 1e6.
		if s := float64(c.ScipySF); s >= 0x1p-1022 && !sfClose(got, s, 1e-9) {
			t.Errorf("HypergeomSF(%d, %d, %d, %d) = %v, want %v (scipy hypergeom.sf(%d, …))",
				c.K, c.N, c.Succ, c.Draws, got, s, c.K-1)
		}
		// Below the smallest double the answer is 0, and only there.
		if lw := float64(c.LogWant); lw < -1075*math.Ln2 && got != 0 { // log 2⁻¹⁰⁷⁴ less a margin
			t.Errorf("HypergeomSF(%d, %d, %d, %d) = %v, want 0 (log P = %v)", c.K, c.N, c.Succ, c.Draws, got, lw)
		}
	}
	t.Logf("worst relative error against mpmath: %.3g (p ≥ 1e-100), %.3g (far tail); scipy's own: %.3g",
		worst, worstFar, g.ScipyRel)
}

func TestHypergeomSFHand(t *testing.T) {
	cases := []struct {
		name        string
		k, N, K, n  int
		want        float64
		tol         float64
		description string
	}{
		{"k = 0", 0, 10, 3, 4, 1, 0, "P(X ≥ 0) = 1"},
		{"k below 0", -3, 10, 3, 4, 1, 0, ""},
		{"k above min(K, n)", 4, 10, 3, 4, 0, 0, "only 3 successes"},
		{"k above n", 5, 10, 8, 4, 0, 0, "only 4 draws"},
		{"K = 0", 1, 10, 0, 4, 0, 0, ""},
		{"K = N", 4, 10, 10, 4, 1, 0, "every draw a success"},
		{"K = N, k above n", 5, 10, 10, 4, 0, 0, ""},
		{"n = N", 3, 10, 3, 10, 1, 0, "every success drawn"},
		{"n = N, k = K + 1", 4, 10, 3, 10, 0, 0, ""},
		{"n = 0", 1, 10, 3, 0, 0, 0, ""},
		{"forced lower end", 2, 10, 8, 4, 1, 0, "4 draws from 2 failures hold 2 successes at least"},
		{"urn 20/7/12, k = 5", 5, 20, 7, 12, 253.0 / 646, 1e-15, "scipy's example urn: 253/646 by math.comb"},
		{"one in a million", 1, 1000000, 1, 1, 1e-6, 1e-15, "scipy says 1.0000000001143678e-06"},
		{"all 100 of 1e6 in 1e5 draws", 100, 1000000, 100, 100000, 9.564122246956618e-101, 1e-13, "Π (1e5−i)/(1e6−i), mpmath"},
		{"impossible N", 0, -1, 0, 0, math.NaN(), 0, ""},
		{"impossible K", 0, 10, 11, 3, math.NaN(), 0, ""},
		{"impossible n", 0, 10, 3, 11, math.NaN(), 0, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := HypergeomSF(c.k, c.N, c.K, c.n)
			if math.IsNaN(c.want) {
				if !math.IsNaN(got) {
					t.Errorf("HypergeomSF(%d, %d, %d, %d) = %v, want NaN", c.k, c.N, c.K, c.n, got)
				}
				return
			}
			if math.Abs(got-c.want) > c.tol*c.want {
				t.Errorf("HypergeomSF(%d, %d, %d, %d) = %v, want %v (%s)", c.k, c.N, c.K, c.n, got, c.want, c.description)
			}
		})
	}
}

// TestHypergeomSFExactProduct holds the far tail to a product computed
// here: P(X = K) for K ≤ n is Π_{i<K} (n−i)/(N−i), down past 1e-300.
func TestHypergeomSFExactProduct(t *testing.T) {
	const N, n = 1000000, 100000
	for _, K := range []int{1, 10, 100, 200, 300, 305, 307, 310, 320} {
		want := 1.0
		for i := 0; i < K; i++ {
			want *= float64(n-i) / float64(N-i)
		}
		got := HypergeomSF(K, N, K, n)
		if !sfClose(got, want, float64(K)*4e-16+1e-13) {
			t.Errorf("HypergeomSF(%d, %d, %d, %d) = %v, want %v", K, N, K, n, got, want)
		}
	}
}

// TestHypergeomSFSumsToOne checks that P(X ≥ k) − P(X ≥ k+1) are
// probabilities summing to 1 and that the tail falls, over whole supports.
func TestHypergeomSFSumsToOne(t *testing.T) {
	for _, c := range []struct{ N, K, n int }{{50, 20, 10}, {1000, 300, 600}, {100000, 4000, 30000}} {
		prev, total := 1.0, 0.0
		for k := 0; k <= min(c.K, c.n)+1; k++ {
			sf := HypergeomSF(k, c.N, c.K, c.n)
			if sf > prev {
				t.Fatalf("Hypergeom(%d, %d, %d): P(X ≥ %d) = %v above P(X ≥ %d) = %v", c.N, c.K, c.n, k, sf, k-1, prev)
			}
			if k > 0 {
				total += prev - sf
			}
			prev = sf
		}
		if math.Abs(total-1) > 1e-12 {
			t.Errorf("Hypergeom(%d, %d, %d): masses sum to %v, want 1", c.N, c.K, c.n, total)
		}
	}
}

func TestStirlerrTable(t *testing.T) {
	for n := 1; n <= 15; n++ {
		lg, _ := math.Lgamma(float64(n + 1))
		want := lg - (float64(n)+0.5)*math.Log(float64(n)) + float64(n) - 0.5*math.Log(2*math.Pi)
		if got := stirlerr(float64(n)); math.Abs(got-want) > 1e-14 {
			t.Errorf("stirlerr(%d) = %v, want %v", n, got, want)
		}
	}
	// the series meets the table's formula where it takes over
	for _, n := range []float64{16, 20, 36, 81, 501, 1000} {
		lg, _ := math.Lgamma(n + 1)
		want := lg - (n+0.5)*math.Log(n) + n - 0.5*math.Log(2*math.Pi)
		if got := stirlerr(n); math.Abs(got-want) > 1e-12 {
			t.Errorf("stirlerr(%v) = %v, want %v (lgamma)", n, got, want)
		}
	}
}

func TestBenjaminiHochbergGoldens(t *testing.T) {
	for i, c := range loadHypergeomGoldens(t).BH {
		got := BenjaminiHochberg(floats(c.P))
		if len(got) != len(c.P) {
			t.Fatalf("case %d: %d values, want %d", i, len(got), len(c.P))
		}
		for j, w := range floats(c.Want) {
			if !close(got[j], w, 1e-15) {
				t.Errorf("case %d: BenjaminiHochberg(…)[%d] = %v, want %v (p = %v)", i, j, got[j], w, float64(c.P[j]))
			}
		}
	}
}

func TestBenjaminiHochbergHand(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name    string
		p, want []float64
	}{
		{"empty", []float64{}, []float64{}},
		{"one", []float64{0.03}, []float64{0.03}},
		// sorted 0.005 0.01 0.03 0.04: ×4/1, ×4/2, ×4/3, ×4/4 = 0.02 0.02 0.04 0.04
		{"four", []float64{0.01, 0.04, 0.03, 0.005}, []float64{0.02, 0.04, 0.04, 0.02}},
		{"step-up takes the later minimum", []float64{0.04, 0.045}, []float64{0.045, 0.045}},
		{"the largest keeps its p", []float64{0.9, 0.8}, []float64{0.9, 0.9}},
		{"capped at 1", []float64{2, 0.5}, []float64{1, 1}},
		{"NaN left out of m", []float64{0.01, nan, 0.04}, []float64{0.02, nan, 0.04}},
		{"all NaN", []float64{nan, nan}, []float64{nan, nan}},
		{"zeros", []float64{0, 0, 1}, []float64{0, 0, 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := append([]float64(nil), c.p...)
			got := BenjaminiHochberg(c.p)
			for i := range c.want {
				if !close(got[i], c.want[i], 1e-15) {
					t.Errorf("BenjaminiHochberg(%v)[%d] = %v, want %v", in, i, got[i], c.want[i])
				}
				if !close(c.p[i], in[i], 0) {
					t.Errorf("BenjaminiHochberg changed its input: p[%d] = %v, was %v", i, c.p[i], in[i])
				}
			}
		})
	}
}

func BenchmarkHypergeomSF(b *testing.B) {
	// the selection endpoint's worst size: N = 1e6, n = 1e5, near the mean
	for b.Loop() {
		HypergeomSF(40200, 1000000, 400000, 100000)
	}
}
