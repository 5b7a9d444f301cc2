package analysis

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/sparse"
)

// TestSparseStats holds computeStatsSparse (XᵀX − N·μμᵀ and the other
// uncentred products) to computeStats (which centres every row before
// the product) on data made to cancel: a column of ones, a column whose
// mean is 10⁶ times its spread (κ ≈ 10¹², where the plain subtraction
// would keep no digit), a column filled with one value in 99 % of the rows (κ ≈ 199, left to
// the subtraction),
// empty rows and columns, with and without weights and labels.
func TestSparseStats(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		n, d int
		fill func(rng *rand.Rand, i, j int) float64
		// repaired is how many columns the cancellation guard must redo.
		repaired int
	}{
		{"sparse", 300, 25, func(rng *rand.Rand, i, j int) float64 {
			if rng.Float64() < 0.1 {
				return rng.NormFloat64()
			}
			return 0
		}, 0},
		{"cancelling columns", 400, 12, func(rng *rand.Rand, i, j int) float64 {
			switch {
			case j == 0:
				return 1
			case j == 1:
				return 1e6 + rng.NormFloat64()
			case j == 2 && i%100 != 0:
				return 3.5
			case i%7 == 0 || j == 11:
				return 0
			case rng.Float64() < 0.3:
				return rng.NormFloat64() * 100
			}
			return 0
		}, 2}, // the ones and the 10⁶ column; the 99 % column has κ ≈ 199
		{"fewer rows than columns", 9, 30, func(rng *rand.Rand, i, j int) float64 {
			if rng.Float64() < 0.2 {
				return rng.Float64()
			}
			return 0
		}, 0},
	} {
		rng := rand.New(rand.NewPCG(3, 4))
		x := mat.NewDense(tc.n, tc.d, nil)
		for i := range tc.n {
			for j := range tc.d {
				x.Set(i, j, tc.fill(rng, i, j))
			}
		}
		y := tuMultiLabel(5, tc.n, 2, 6).Y
		labels := binaryRows(y)
		weights := make([]float64, tc.n)
		for i := range weights {
			weights[i] = float64(i%3) + 0.5
		}
		sx := sparse.FromDense(x)
		mean, _ := sparseMeans(ctx, sx)
		if got := len(badColumns(sx, mean)); got != tc.repaired {
			t.Errorf("%s: %d columns repaired, want %d", tc.name, got, tc.repaired)
		}
		for _, spec := range []statsSpec{
			{gram: true},
			{gram: true, labels: labels, labelGram: true},
			{weights: weights, labels: labels},
			{gram: true, weights: weights},
		} {
			t.Run(tc.name, func(t *testing.T) {
				want, err := computeStats(ctx, x, nil, spec, stage{})
				if err != nil {
					t.Fatal(err)
				}
				got, err := computeStatsSparse(ctx, sx, spec, stage{})
				if err != nil {
					t.Fatal(err)
				}
				for j := range tc.d {
					if e := math.Abs(got.mean[j] - want.mean[j]); e > 1e-15*math.Abs(want.mean[j])+1e-300 {
						t.Errorf("mean %d = %v, want %v", j, got.mean[j], want.mean[j])
					}
				}
				// Each entry within 1e-11 of its features' centred scale.
				scale := func(c *mat.SymDense, a, b int) float64 {
					return math.Sqrt(math.Abs(c.At(a, a)*c.At(b, b))) + 1e-300
				}
				for _, g := range []struct {
					what      string
					got, want *mat.SymDense
				}{{"XcᵀXc", got.gram, want.gram}, {"Xcᵀ·diag(w)·Xc", got.wgram, want.wgram}} {
					if (g.got == nil) != (g.want == nil) {
						t.Fatalf("%s: got %v, want %v", g.what, g.got != nil, g.want != nil)
					}
					if g.want == nil {
						continue
					}
					for a := range tc.d {
						for b := a; b < tc.d; b++ {
							if e := math.Abs(g.got.At(a, b) - g.want.At(a, b)); e > 1e-11*scale(g.want, a, b) {
								t.Fatalf("%s (%d, %d) = %v, want %v: error %.2g of the scale %.3g", g.what, a, b, g.got.At(a, b), g.want.At(a, b), e, scale(g.want, a, b))
							}
						}
					}
				}
				if spec.labels != nil {
					lc := mat.NewDense(tc.n, labels.cols, nil)
					for j := range labels.cols {
						for i := range tc.n {
							lc.Set(i, j, y.At(i, j)-want.labelMean[j])
						}
					}
					for a := range tc.d {
						ca := math.Sqrt(math.Abs(want.gramOrW().At(a, a)))
						for j := range labels.cols {
							lj := mat.Norm(lc.ColView(j), 2)
							if e := math.Abs(got.cross.At(a, j) - want.cross.At(a, j)); e > 1e-11*(ca*lj+1e-300) {
								t.Fatalf("XcᵀL (%d, %d) = %v, want %v", a, j, got.cross.At(a, j), want.cross.At(a, j))
							}
						}
					}
					if spec.labelGram && !mat.EqualApprox(got.labelGram, want.labelGram, 1e-12) {
						t.Errorf("LcᵀLc differs")
					}
				}
			})
		}
	}
}

// gramOrW is the Gram the test scales the cross products by.
func (s *stats) gramOrW() *mat.SymDense {
	if s.gram != nil {
		return s.gram
	}
	return s.wgram
}

// TestSparseInputRefused: the features must be given once, finite, in a
// well-formed CSR; the scale check reads the sparse values.
func TestSparseInputRefused(t *testing.T) {
	base := tuMultiLabel(1, 20, 4, 3)
	good := sparse.FromDense(base.X)
	nan := sparse.FromDense(base.X)
	nan.Val[3] = math.NaN()
	huge := sparse.FromDense(base.X)
	huge.Val[0] = 1e300
	bad := sparse.FromDense(base.X)
	bad.Ind[0], bad.Ind[1] = bad.Ind[1], bad.Ind[0]
	for _, tc := range []struct {
		name string
		in   Input
		kind ErrorKind
		want string
	}{
		{"both", Input{X: base.X, Sparse: good, Y: base.Y}, Invalid, "both dense and sparse"},
		{"neither", Input{Y: base.Y}, Invalid, "missing"},
		{"not finite", Input{Sparse: nan, Y: base.Y}, Invalid, "NaN"},
		{"columns out of order", Input{Sparse: bad, Y: base.Y}, Invalid, "lists column"},
		{"overflowing squares", Input{Sparse: huge, Y: base.Y}, Unservable, "overflow"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Fit(context.Background(), "pca", tc.in, Params{D: 1}, nil)
			var e *Error
			if !errors.As(err, &e) || e.Kind != tc.kind || !strings.Contains(e.Msg, tc.want) {
				t.Fatalf("got %v, want a %v error containing %q", err, tc.kind, tc.want)
			}
		})
	}
	if _, err := Fit(context.Background(), "pca", Input{Sparse: good, Y: base.Y}, Params{D: 1}, nil); err != nil {
		t.Fatalf("the good sparse input: got %v, want no error", err)
	}
}

// TestEstimateMemorySparse holds EstimateMemory with Shape.NNZ to the
// measured peak of fits on sparse features (5 % of the cells), as
// TestEstimateMemory does for dense ones: measured ≤ estimate ≤
// estimateSlack × measured + estimateFloor, on both paths.
func TestEstimateMemorySparse(t *testing.T) {
	if testing.Short() {
		t.Skip("fits every method on four shapes")
	}
	shapes := []struct{ n, d, q int }{{400, 160, 8}, {150, 600, 12}, {900, 450, 10}, {3000, 300, 10}}
	if RaceEnabled {
		shapes = shapes[:2] // every shape in the pass without the race detector
	}
	for _, m := range Methods() {
		for _, sh := range shapes {
			c := memCase{id: m.ID, p: Params{D: 2}, n: sh.n, d: sh.d, q: sh.q}
			in, s := memInput(m, c, 1)
			raw := in.X.RawMatrix()
			for i, v := range raw.Data {
				if (i*7919)%20 != 0 {
					raw.Data[i] = 0
				} else {
					raw.Data[i] = v + 1 // non-zero
				}
			}
			in.Sparse, in.X = sparse.FromDense(in.X), nil
			s.NNZ = int64(in.Sparse.NNZ())
			est, err := EstimateMemory(c.id, c.p, s)
			if err != nil {
				t.Fatal(err)
			}
			var fitErr error
			peak, _ := measurePeakFor(est, func() { _, fitErr = Fit(context.Background(), c.id, in, c.p, nil) })
			if fitErr != nil {
				continue // a shape the method refuses (its rank): nothing to measure
			}
			if peak > est {
				t.Errorf("%s N=%d D=%d q=%d sparse: measured peak %d bytes, above the estimate %d", c.id, c.n, c.d, c.q, peak, est)
			}
			if est > estimateSlack*peak+estimateFloor {
				t.Errorf("%s N=%d D=%d q=%d sparse: estimate %d bytes, more than %d × the measured peak %d + %d",
					c.id, c.n, c.d, c.q, est, estimateSlack, peak, estimateFloor)
			}
		}
	}
}
