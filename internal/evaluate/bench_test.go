package evaluate

import (
	"context"
	"math/rand/v2"
	"os"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/analysis"
	"mldr/internal/dataset"
)

// BenchmarkMLkNN: training (the neighbours of every training row) and
// prediction at issue 4's size, d = 50.
//
//	go test -run '^$' -bench MLkNN -benchtime 1x ./internal/evaluate/
func BenchmarkMLkNN(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	gen := func(n, d int) *mat.Dense {
		x := mat.NewDense(n, d, nil)
		for i := range x.RawMatrix().Data {
			x.RawMatrix().Data[i] = rng.NormFloat64()
		}
		return x
	}
	xtr, xte := gen(20000, 50), gen(5000, 50)
	y := mat.NewDense(20000, 20, nil)
	for i := range 20000 {
		for l := range 20 {
			if xtr.At(i, l%50)+rng.NormFloat64() > 1 {
				y.Set(i, l, 1)
			}
		}
	}
	b.ReportAllocs()
	for range b.N {
		m, err := MLkNN{}.Fit(context.Background(), xtr, y)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := m.Predict(context.Background(), xte); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCurveYeast: 5 methods × 10 values of d × 10 folds on yeast,
// with ML-kNN.
func BenchmarkCurveYeast(b *testing.B) {
	f, err := os.Open("../../../shared/datasets/yeast/yeast.csv")
	if err != nil {
		b.Skip("shared data sets not present")
	}
	ds, err := dataset.Load(f, dataset.Options{})
	f.Close()
	if err != nil {
		b.Fatal(err)
	}
	data := analysis.Input{X: ds.X, Y: ds.Y}
	folds, _ := KFold(ds.Rows(), 10, 1)
	spec := Spec{
		Methods: []MethodRun{{ID: "pca"}, {ID: "mddmp"}, {ID: "mvmd"}, {ID: "mlsi"}, {ID: "cca"}},
		Grid:    Grid{Percent: []float64{10, 20, 30, 40, 50, 60, 70, 80, 90, 100}, Of: "rank"},
	}
	b.ReportAllocs()
	for range b.N {
		if _, err := Run(context.Background(), data, folds, spec, nil); err != nil {
			b.Fatal(err)
		}
	}
}
