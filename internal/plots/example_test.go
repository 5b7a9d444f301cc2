package plots_test

import (
	"fmt"
	"io"
	"math"

	"mldr/internal/plots"
)

func ExampleSpectrum() {
	fig, err := plots.Spectrum(plots.SpectrumInput{
		Title:       "pca eigenvalue spectrum",
		Eigenvalues: []float64{6, 2, 1, 0.5, 0.5, -0.1},
		D:           3,
		Thr:         0.9,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := fig.Render(io.Discard, "svg"); err != nil {
		fmt.Println(err)
		return
	}
	m := fig.Meta()
	fmt.Println(m.Kind, m.Series[0].Y[:3], m.Note)
	// Output:
	// spectrum [0.6 0.2 0.1] 1 negative eigenvalue counted as 0; d = 3 keeps 0.900 of the sum
}

func ExampleLabelFrequency() {
	_, err := plots.LabelFrequency([]string{"beach", "sunset"}, []float64{0.4}, nil)
	fmt.Println(err)
	// Output:
	// plots: freq: has 1 value, want 2 (one per label)
}

func ExampleCriticalDifference() {
	// Demšar (JMLR 2006) §3.2.2: four variants of C4.5 on 14 data sets,
	// and the Nemenyi critical difference at α = 0.10.
	fig, err := plots.CriticalDifference(plots.CriticalDifferenceInput{
		Title:    "C4.5 variants",
		Methods:  []string{"C4.5", "C4.5+m", "C4.5+cf", "C4.5+m+cf"},
		AvgRanks: []float64{3.143, 2.000, 2.893, 1.964},
		CD:       1.12,
		Alpha:    "0.10",
		Datasets: 14,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	m := fig.Meta()
	fmt.Println(m.Kind, m.Cols, m.Values[0])
	fmt.Println(m.Note)
	// Output:
	// cd [C4.5+m+cf C4.5+m C4.5+cf C4.5] [1.964 2 2.893 3.143]
	// CD = 1.12 at α = 0.10
}

func ExampleRankHeatmap() {
	fig, err := plots.RankHeatmap(plots.RankHeatmapInput{
		Methods:  []string{"pca", "mddmp", "cplst"},
		Datasets: []string{"yeast", "emotions", "scene"},
		Ranks: [][]float64{
			{3, 1, 2},
			{2.5, 1, 2.5},
			{2, math.NaN(), 1}, // mddmp has no result on scene
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	m := fig.Meta()
	fmt.Println(m.Kind, m.Values[2], m.Avg)
	// Output:
	// ranks [2 0 1] [2.5 1 1.8333333333333333]
}
