package plots_test

import (
	"fmt"
	"io"

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
