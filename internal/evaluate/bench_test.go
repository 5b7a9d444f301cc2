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

// benchRows are the evaluation's benchmark size: 20 000 training and 5 000 test rows of
// d = 50 features, 20 labels following the first features.
func benchRows() (xtr, xte, y *mat.Dense) {
	rng := rand.New(rand.NewPCG(1, 2))
	gen := func(n, d int) *mat.Dense {
		x := mat.NewDense(n, d, nil)
		for i := range x.RawMatrix().Data {
			x.RawMatrix().Data[i] = rng.NormFloat64()
		}
		return x
	}
	xtr, xte = gen(20000, 50), gen(5000, 50)
	y = mat.NewDense(20000, 20, nil)
	for i := range 20000 {
		for l := range 20 {
			if xtr.At(i, l%50)+rng.NormFloat64() > 1 {
				y.Set(i, l, 1)
			}
		}
	}
	return xtr, xte, y
}

// BenchmarkMLkNN: training (the neighbours of every training row) and
// prediction at the evaluation's benchmark size (benchRows), d = 50.
//
//	go test -run '^$' -bench MLkNN -benchtime 1x ./internal/evaluate/
func BenchmarkMLkNN(b *testing.B) {
	xtr, xte, y := benchRows()
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

// BenchmarkSVM: the svm's binary relevance (20 SVMs, LIBLINEAR's -s 3 -B 1,
// c = 1, eps = 1e-4) fitted and predicting at the same size.
//
//	go test -run '^$' -bench SVM -benchtime 1x ./internal/evaluate/
func BenchmarkSVM(b *testing.B) {
	xtr, xte, y := benchRows()
	b.ReportAllocs()
	for range b.N {
		_, _, fits, err := SVM{}.PredictLabels(context.Background(), xtr, y, xte)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(fits.Capped), "capped")
	}
}

// BenchmarkCurveYeast: 5 methods × 10 values of d × 10 folds on yeast,
// with ML-kNN.
func BenchmarkCurveYeast(b *testing.B) {
	ds := sharedDataset(b, "yeast")
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

// BenchmarkMLkNNScene: ML-kNN (fit and predict) on scene's first fold of
// 10 (2 166 training and 241 test rows) projected by pca on its first 5
// directions, a size where the neighbour search is most of the time.
//
//	go test -run '^$' -bench MLkNNScene ./internal/evaluate/
func BenchmarkMLkNNScene(b *testing.B) {
	ds := sharedDataset(b, "scene")
	folds, err := KFold(ds.Rows(), 10, 1)
	if err != nil {
		b.Fatal(err)
	}
	all := analysis.Input{X: ds.X, Y: ds.Y}
	train, test := all.SelectRows(folds[0].Train), all.SelectRows(folds[0].Test)
	ctx := context.Background()
	model, err := analysis.Fit(ctx, "pca", train, analysis.Params{D: 5}, nil)
	if err != nil {
		b.Fatal(err)
	}
	xtr, err := model.Transform(train.X)
	if err != nil {
		b.Fatal(err)
	}
	xte, err := model.Transform(test.X)
	if err != nil {
		b.Fatal(err)
	}
	xtr, xte = firstCols(xtr, 5), firstCols(xte, 5)
	b.ReportAllocs()
	for b.Loop() {
		m, err := MLkNN{}.Fit(ctx, xtr, train.Y)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := m.Predict(ctx, xte); err != nil {
			b.Fatal(err)
		}
	}
}

// sharedDataset loads the shared data set name (name/name.csv), or skips
// b when the shared data sets are not there.
func sharedDataset(b *testing.B, name string) *dataset.Dataset {
	f, err := os.Open("../../../shared/datasets/" + name + "/" + name + ".csv")
	if err != nil {
		b.Skip("shared data sets not present")
	}
	defer f.Close()
	ds, err := dataset.Load(f, dataset.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return ds
}

// BenchmarkProtocol: benchcmp's evaluation rows in process, the 10-fold
// evaluation of ori and pca, mddmp, mddmf, cca, cplst at d = 1…5 with
// ML-kNN (k = 10) on scene, yeast and medical, for profiles of where the
// evaluation's time goes:
//
//	go test -run '^$' -bench Protocol/scene -benchtime 1x -cpuprofile cpu.out ./internal/evaluate/
func BenchmarkProtocol(b *testing.B) {
	for _, name := range []string{"scene", "yeast", "medical"} {
		b.Run(name, func(b *testing.B) {
			ds := sharedDataset(b, name)
			folds, err := KFold(ds.Rows(), 10, 1)
			if err != nil {
				b.Fatal(err)
			}
			spec := Spec{
				Methods: []MethodRun{{ID: "pca"}, {ID: "mddmp"}, {ID: "mddmf"}, {ID: "cca"}, {ID: "cplst"}},
				Grid:    Grid{Dims: []int{1, 2, 3, 4, 5}},
				Options: Options{Classifier: "mlknn", K: 10, S: 1},
			}
			data := analysis.Input{X: ds.X, Sparse: ds.Sparse, Y: ds.DenseY()}
			for b.Loop() {
				if _, err := Run(context.Background(), data, folds, spec, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
