package analysis

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// tuManyLabels is seeded multi-label data with q labels of skewed
// frequency, 1 to 2·per of them a row, and features that depend on them.
func tuManyLabels(seed uint64, n, d, q, per int) Input {
	rng := rand.New(rand.NewPCG(seed, 11))
	x := mat.NewDense(n, d, nil)
	y := mat.NewDense(n, q, nil)
	for i := range n {
		for j := range d {
			x.Set(i, j, rng.NormFloat64())
		}
		for range 1 + rng.IntN(2*per) {
			l := int(float64(q) * rng.Float64() * rng.Float64())
			y.Set(i, l, 1)
			x.Set(i, l%d, x.At(i, l%d)+1)
		}
	}
	return Input{X: x, Y: y}
}

// tuAllocated is the bytes f allocates.
func tuAllocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// TestLabelMethodsLargeQ: at q in the thousands, the methods that read the
// labels allocate with the labels present and the matrices their algebra
// needs, never a value per row and label (lda's one-hot Z of two columns
// a label, mlda's N×q class weights: 1.6 and 1.2 GB allocated here before)
// nor a q×q matrix the algebra does not need (the graph embeddings' K = 2I:
// 32 MB at q = 2 000). Each cap is about 1.5 times what the fit allocates;
// lda's includes its N×q projection (one direction per label, d = 1).
func TestLabelMethodsLargeQ(t *testing.T) {
	if testing.Short() {
		t.Skip("fits on 20 000 rows and 1 000 labels")
	}
	wide := tuManyLabels(1, 20_000, 20, 1_000, 10)
	square := tuManyLabels(2, 4_000, 20, 2_000, 10)
	for _, tc := range []struct {
		id  string
		in  Input
		max uint64 // bytes
	}{
		{"lda", wide, 300 << 20},
		{"mlda", wide, 40 << 20},
		{"ge-hamming", square, 12 << 20},
		{"ge-euclid-y", square, 12 << 20},
	} {
		t.Run(tc.id, func(t *testing.T) {
			var err error
			got := tuAllocated(func() { _, err = Fit(context.Background(), tc.id, tc.in, Params{D: 1}, nil) })
			if err != nil {
				t.Fatal(err)
			}
			n, q := tc.in.Y.Dims()
			if got > tc.max {
				t.Errorf("N = %d, q = %d: got %d MB allocated, want at most %d MB", n, q, got>>20, tc.max>>20)
			}
		})
	}
}

// TestLabelNMILargeQ: LabelNMI holds one q×q matrix (the result, in which
// the pair counts are made), not a matrix of counts besides.
func TestLabelNMILargeQ(t *testing.T) {
	in := tuManyLabels(2, 4_000, 1, 2_000, 10)
	_, q := in.Y.Dims()
	got := tuAllocated(func() { LabelNMI(in.Y) })
	if most := uint64(8*q*q) + 4<<20; got > most {
		t.Errorf("q = %d: got %d MB allocated, want at most %d MB (the result and a few MB)", q, got>>20, most>>20)
	}
}

// TestLDABinaryLabels: lda on multi-label data, which reads only the ones
// of Y, gives what lda gives on the same labels as multi-dimensional data
// of two classes each (the one-hot path).
func TestLDABinaryLabels(t *testing.T) {
	ml := tuMultiLabel(3, 120, 6, 5)
	md := Input{X: ml.X, Y: ml.Y, Classes: slices.Repeat([]int{2}, 5)}
	for _, p := range []Params{{D: 1}, {D: 1, Normalize: NormalizeB}, {D: 1, Ridge: Float(0.5)}} {
		a, err := Fit(context.Background(), "lda", ml, p, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Fit(context.Background(), "lda", md, p, nil)
		if err != nil {
			t.Fatal(err)
		}
		tuCloseValues(t, "eigenvalues", a.Eigenvalues, b.Eigenvalues, len(b.Eigenvalues), 1e-10)
		if !mat.EqualApprox(a.Basis, b.Basis, 1e-10) {
			t.Errorf("%+v: got directions\n%v\nwant\n%v", p, mat.Formatted(a.Basis), mat.Formatted(b.Basis))
		}
		if !slices.Equal(a.Notes, b.Notes) || a.Rank != b.Rank || a.Dim != b.Dim {
			t.Errorf("%+v: got rank %d, d %d, notes %q; want %d, %d, %q", p, a.Rank, a.Dim, a.Notes, b.Rank, b.Dim, b.Notes)
		}
	}
}

// benchManyLabels is the size of the large-q benchmarks: q = 4 000 labels
// (eurlex has about as many), about 4 a row.
var benchManyLabels = benchSize{n: 20_000, d: 100, q: 4_000}

// BenchmarkLabelNMI computes the label NMI at large q: the whole q×q matrix
// (ge-gh's), the data set page's heatmap of its 50 most frequent labels
// and one answer of nmi.json (316 × 316 labels):
//
//	go test -run '^$' -bench LabelNMI -benchtime 3x ./internal/analysis/
func BenchmarkLabelNMI(b *testing.B) {
	y := benchInput(benchManyLabels).Y
	_, q := y.Dims()
	first := func(k int) []int {
		idx := make([]int, k)
		for i := range idx {
			idx[i] = i * (q / k)
		}
		return idx
	}
	b.Run("all/"+benchManyLabels.String(), func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			LabelNMI(y)
		}
	})
	for _, k := range []int{50, 316} {
		idx := first(k)
		b.Run(fmt.Sprintf("block=%d/%s", k, benchManyLabels), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				LabelNMIBlock(y, idx, idx)
			}
		})
	}
}

// BenchmarkFitLargeQ fits the methods that read the labels at q = 4 000:
//
//	go test -run '^$' -bench FitLargeQ -benchtime 1x ./internal/analysis/
func BenchmarkFitLargeQ(b *testing.B) {
	for _, id := range []string{"mddmp", "mlda", "ge-hamming", "ge-gh", "cplst"} {
		b.Run(id+"/"+benchManyLabels.String(), func(b *testing.B) { benchFit(b, id, benchManyLabels, Params{D: 20}) })
	}
	b.Run("lda/"+benchManyLabels.String(), func(b *testing.B) { benchFit(b, "lda", benchManyLabels, Params{D: 1}) })
}
