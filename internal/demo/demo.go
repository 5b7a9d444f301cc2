// Package demo generates small, realistic, seeded data sets so that a new
// user can try every page without a file of their own.
//
// The multi-label set draws four latent factors per row; labels switch on
// when a noisy linear score of the factors passes a threshold, so labels that
// share factors are correlated (as in real data), and frequencies range from
// common to rare. Informative features are noisy linear and non-linear
// functions of the same factors; noise features carry nothing. The
// multi-dimensional set does the same with three categorical class
// variables. No data from elsewhere is embedded.
package demo

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/dataset"
)

// Set is one demo data set, as CSV ready to be uploaded like any file.
type Set struct {
	ID       string // "multilabel" or "multidim"
	Name     string
	FileName string
	CSV      []byte
}

// Seed is the fixed seed of the demo sets: the same demo every time.
const Seed = 2008

// Sets lists the demo sets a user can pick.
func Sets() []string { return []string{"multilabel", "multidim"} }

// Make builds the demo set with the given id and seed.
func Make(id string, seed uint64) (Set, error) {
	var ds *dataset.Dataset
	var name string
	switch id {
	case "multilabel":
		ds, name = MultiLabel(seed), "Demo: synthetic scenes (multi-label)"
	case "multidim":
		ds, name = MultiDim(seed), "Demo: synthetic parts (multi-dimensional)"
	default:
		return Set{}, fmt.Errorf("unknown demo data set %q (choose multilabel or multidim)", id)
	}
	var buf bytes.Buffer
	if err := dataset.WriteCSV(&buf, ds); err != nil {
		return Set{}, fmt.Errorf("writing the demo data set: %w", err)
	}
	return Set{ID: id, Name: name, FileName: "demo-" + id + ".csv", CSV: buf.Bytes()}, nil
}

const latent = 4

// MultiLabel generates 600 rows, 24 features (16 informative "sig…", 8
// noise "noise…") and 6 correlated labels.
func MultiLabel(seed uint64) *dataset.Dataset {
	const n, nsig, nnoise = 600, 16, 8
	rng := rand.New(rand.NewPCG(seed, 1))
	labels := []string{"beach", "sunset", "sea", "mountain", "forest", "urban"}
	// Loadings of each label on the latent factors: beach, sunset and sea
	// share factor 0; mountain and forest share factor 1; urban opposes 1.
	load := [][latent]float64{
		{2.0, 0.3, 0, 0.2},
		{1.2, 0, 1.0, 0},
		{1.8, -0.2, 0.4, 0},
		{0, 1.9, 0, 0.5},
		{0.2, 1.5, -0.6, 0},
		{-0.4, -1.8, 0, 1.2},
	}
	thresh := []float64{1.0, 1.6, 1.2, 0.9, 1.1, 0.8}
	z, x := features(rng, n, nsig, nnoise)
	y := mat.NewDense(n, len(labels), nil)
	for i := range n {
		for j := range labels {
			s := rng.NormFloat64() * 0.6
			for k := range latent {
				s += load[j][k] * z.At(i, k)
			}
			if s > thresh[j] {
				y.Set(i, j, 1)
			}
		}
	}
	return &dataset.Dataset{Features: dataset.ListNames(featureNames(nsig, nnoise)), Labels: dataset.ListNames(labels), Kind: dataset.MultiLabel, X: x, Y: y}
}

// MultiDim generates 400 rows, 10 features and 3 class variables: size
// (small, medium, large), colour (red, green, blue, yellow) and finish
// (matte, glossy).
func MultiDim(seed uint64) *dataset.Dataset {
	const n, nsig, nnoise = 400, 7, 3
	rng := rand.New(rand.NewPCG(seed, 2))
	z, x := features(rng, n, nsig, nnoise)
	vars := []struct {
		name string
		cats []string
		w    [latent]float64
		cuts []float64 // thresholds on the score, ascending
	}{
		{"size", []string{"small", "medium", "large"}, [latent]float64{1.5, 0.5, 0, 0}, []float64{-0.8, 0.8}},
		{"colour", []string{"red", "green", "blue", "yellow"}, [latent]float64{0, 1.2, 1.0, 0}, []float64{-1.0, 0, 1.0}},
		{"finish", []string{"matte", "glossy"}, [latent]float64{0.6, 0, 0, 1.4}, []float64{0.3}},
	}
	y := mat.NewDense(n, len(vars), nil)
	cats := make([][]string, len(vars))
	names := make([]string, len(vars))
	for j, v := range vars {
		cats[j], names[j] = v.cats, v.name
		for i := range n {
			s := rng.NormFloat64() * 0.5
			for k := range latent {
				s += v.w[k] * z.At(i, k)
			}
			c := 0
			for c < len(v.cuts) && s > v.cuts[c] {
				c++
			}
			y.Set(i, j, float64(c))
		}
	}
	return &dataset.Dataset{Features: dataset.ListNames(featureNames(nsig, nnoise)), Labels: dataset.ListNames(names), Kind: dataset.MultiDim,
		X: x, Y: y, Categories: cats}
}

// features draws the latent factors z (n×latent) and the features x: nsig
// informative ones, each a random mix of the factors (every third one passed
// through tanh), on varied scales, and nnoise Gaussian noise features.
func features(rng *rand.Rand, n, nsig, nnoise int) (*mat.Dense, *mat.Dense) {
	z := mat.NewDense(n, latent, nil)
	for i := range n {
		for k := range latent {
			z.Set(i, k, rng.NormFloat64())
		}
	}
	d := nsig + nnoise
	x := mat.NewDense(n, d, nil)
	mix := make([][latent]float64, nsig)
	scale := make([]float64, d)
	for f := range nsig {
		for k := range latent {
			mix[f][k] = rng.NormFloat64()
		}
	}
	for f := range d {
		scale[f] = math.Pow(10, rng.Float64()*2-1) // 0.1 … 10
	}
	for i := range n {
		for f := range nsig {
			s := 0.0
			for k := range latent {
				s += mix[f][k] * z.At(i, k)
			}
			if f%3 == 2 {
				s = 2 * math.Tanh(s/2)
			}
			s += rng.NormFloat64() * 0.7
			x.Set(i, f, round(s*scale[f]))
		}
		for f := nsig; f < d; f++ {
			x.Set(i, f, round(rng.NormFloat64()*scale[f]))
		}
	}
	return z, x
}

// round keeps 6 significant digits, as real files do.
func round(v float64) float64 {
	if v == 0 {
		return 0
	}
	p := math.Pow(10, 5-math.Floor(math.Log10(math.Abs(v))))
	return math.Round(v*p) / p
}

func featureNames(nsig, nnoise int) []string {
	names := make([]string, 0, nsig+nnoise)
	for i := range nsig {
		names = append(names, fmt.Sprintf("sig%02d", i+1))
	}
	for i := range nnoise {
		names = append(names, fmt.Sprintf("noise%02d", i+1))
	}
	return names
}
