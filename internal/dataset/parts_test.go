package dataset

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestInParts checks that inParts covers every row once, in as many parts
// as the cells and GOMAXPROCS allow.
func TestInParts(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	for _, tc := range []struct {
		n, cols, parts int
	}{
		{0, 10, 1},
		{1, 1, 1},
		{100, 100, 1},                      // 10 000 cells: one part
		{2*minPartCells - 1, 1, 1},         // just below two parts' worth
		{2 * minPartCells, 1, 2},           // two parts
		{2, minPartCells, 2},               // two long rows
		{3, 4 * minPartCells, 3},           // no more parts than rows
		{10 * minPartCells, 1, 4},          // no more parts than GOMAXPROCS
		{1000, 5 * minPartCells / 1000, 4}, // 5 parts' worth, 4 processors
		{7, 3 * minPartCells / 7, 2},       // a little under 3 parts' worth: 2
	} {
		t.Run(fmt.Sprintf("%dx%d", tc.n, tc.cols), func(t *testing.T) {
			var mu sync.Mutex
			seen := make([]int, tc.n)
			calls := 0
			inParts(tc.n, tc.cols, func(lo, hi int) {
				mu.Lock()
				defer mu.Unlock()
				calls++
				if lo >= hi && tc.n > 0 {
					t.Errorf("an empty part [%d, %d)", lo, hi)
				}
				for i := lo; i < hi; i++ {
					seen[i]++
				}
			})
			if calls != tc.parts {
				t.Errorf("got %d parts, want %d", calls, tc.parts)
			}
			for i, k := range seen {
				if k != 1 {
					t.Fatalf("row %d was given %d times", i, k)
				}
			}
		})
	}
}

// TestPassesInParts checks the passes that end a load, made in parts, on a
// matrix large enough for two: what each finds in the second part's rows,
// and the first error in row order whichever part finds its own first.
func TestPassesInParts(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	const n, d = 600, 500 // 300 000 cells: two parts, rows [0, 300) and [300, 600)
	rng := rand.New(rand.NewPCG(3, 4))
	x := mat.NewDense(n, d, nil)
	for i := range n {
		for j := range d {
			x.Set(i, j, rng.NormFloat64())
		}
	}
	features := make([]string, d)
	for j := range features {
		features[j] = fmt.Sprintf("f%d", j)
	}
	for i := range n {
		x.Set(i, 0, 7)  // constant
		x.Set(i, 1, 2)  // constant but in the last row
		x.Set(i, 2, 0)  // 0, and -0 in the second part: equal, so constant
		x.Set(i, 3, 0)  // zeros, counted as such
		x.Set(i, 4, -1) // constant but in the first row
	}
	x.Set(n-1, 1, 3)
	for i := n / 2; i < n; i++ {
		x.Set(i, 2, math.Copysign(0, -1))
	}
	x.Set(0, 4, 1)
	ds := &Dataset{X: x, Y: mat.NewDense(n, 1, nil), Features: ListNames(features), Labels: ListNames([]string{"l"}), Kind: MultiLabel}

	b := &builder{}
	b.zeroVariance(ds)
	if len(b.warnings) != 1 || !strings.HasPrefix(b.warnings[0], "3 features have zero variance") ||
		!strings.Contains(b.warnings[0], `"f0", "f2", "f3"`) {
		t.Errorf("zeroVariance warned %q, want f0, f2 and f3", b.warnings)
	}

	var want int64
	for _, v := range x.RawMatrix().Data {
		if v != 0 {
			want++
		}
	}
	if want != int64(n*(d-2)) {
		t.Fatalf("the test's matrix has %d non-zeros, want %d", want, n*(d-2))
	}
	if got := nonZeros(ds); got != want {
		t.Errorf("nonZeros: got %d, want %d", got, want)
	}

	if err := ds.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	x.Set(550, 9, math.NaN())
	if err := ds.Validate(); err == nil || !strings.Contains(err.Error(), "NaN") {
		t.Errorf("Validate with a NaN in row 550: got %v", err)
	}
	x.Set(450, 9, math.Inf(1))
	x.Set(310, 9, math.Inf(-1))
	if err := ds.Validate(); err == nil || !strings.Contains(err.Error(), "-Inf") {
		t.Errorf("Validate with -Inf in row 310, +Inf in 450 and NaN in 550: got %v, want the first, -Inf", err)
	}
	x.Set(5, 5, math.Inf(1))
	if err := ds.Validate(); err == nil || !strings.Contains(err.Error(), "+Inf") {
		t.Errorf("Validate with +Inf in row 5 (the first part) and more in the second: got %v, want +Inf", err)
	}
}

// TestPartsPanicInCaller checks that a panic in a part of inParts or
// onePass reaches the caller's goroutine, where the caller's recovery can
// take it, instead of ending the process from a goroutine of its own.
func TestPartsPanicInCaller(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	caught := func(run func()) (v any) {
		defer func() { v = recover() }()
		run()
		return nil
	}
	n := 4 * minPartCells
	v := caught(func() {
		inParts(n, 1, func(lo, hi int) {
			if hi == n {
				panic("the last part's own panic")
			}
		})
	})
	if s, _ := v.(string); !strings.Contains(s, "the last part's own panic") {
		t.Errorf("inParts: the caller recovered %v, want the last part's panic", v)
	}
	b := make([]byte, 4*onePassPart)
	v = caught(func() {
		_, _ = onePass(b, true, func(lo, hi int) error {
			if hi == len(b) {
				panic("the last chunk's own panic")
			}
			return nil
		})
	})
	if s, _ := v.(string); !strings.Contains(s, "the last chunk's own panic") {
		t.Errorf("onePass: the caller recovered %v, want the last chunk's panic", v)
	}
}
