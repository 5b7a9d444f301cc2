package evaluate

import (
	"cmp"
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestRankOf: rankOf gives each label the rank the stable ascending sort of
// the scores gives (q − position), which MultiLabelMetrics used to compute
// by sorting every row: on scores with many ties, NaN and infinities.
func TestRankOf(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	values := []float64{0, 0.25, 0.5, 1, math.NaN(), math.Inf(1), math.Inf(-1), -0.5}
	for trial := range 500 {
		q := 1 + rng.IntN(12)
		s := make([]float64, q)
		for l := range s {
			if rng.IntN(3) == 0 {
				s[l] = rng.Float64()
			} else {
				s[l] = values[rng.IntN(len(values))]
			}
		}
		order := make([]int, q)
		for l := range order {
			order[l] = l
		}
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(s[a], s[b]) })
		for pos, l := range order {
			if got, want := rankOf(s, l), q-pos; got != want {
				t.Fatalf("trial %d, scores %v: rankOf(label %d): got %d, want %d", trial, s, l, got, want)
			}
		}
	}
}

// BenchmarkMLkNNLargeQ runs ML-kNN and the metrics at q = 4 000 labels,
// about 10 a row, on 10 projected features:
//
//	go test -run '^$' -bench MLkNNLargeQ -benchtime 3x ./internal/evaluate/
func BenchmarkMLkNNLargeQ(b *testing.B) {
	const train, test, q, d = 8_000, 2_000, 4_000, 10
	rng := rand.New(rand.NewPCG(1, 1))
	rows := func(n int) (*mat.Dense, *mat.Dense) {
		x, y := mat.NewDense(n, d, nil), mat.NewDense(n, q, nil)
		for i := range n {
			for j := range d {
				x.Set(i, j, rng.NormFloat64())
			}
			for range 1 + rng.IntN(20) {
				l := int(float64(q) * rng.Float64() * rng.Float64())
				y.Set(i, l, 1)
				x.Set(i, l%d, x.At(i, l%d)+1)
			}
		}
		return x, y
	}
	xtr, ytr := rows(train)
	xte, yte := rows(test)
	ctx := context.Background()
	model, err := MLkNN{}.Fit(ctx, xtr, ytr)
	if err != nil {
		b.Fatal(err)
	}
	pred, post, err := model.Predict(ctx, xte)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("fit", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := (MLkNN{}).Fit(ctx, xtr, ytr); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("predict", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := model.Predict(ctx, xte); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("metrics", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			MultiLabelMetrics(yte, pred, post)
		}
	})
}
