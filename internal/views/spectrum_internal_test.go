package views

import (
	"strings"
	"testing"

	"mldr/internal/analysis"
	"mldr/internal/jobs"
	"mldr/internal/plots"
)

// TestSpectrumPartial: the spectrum of a fit that computed only the
// leading eigenvalues says in its text alternative how many of how many,
// and what share of the trace they hold; a complete one does not.
func TestSpectrumPartial(t *testing.T) {
	for _, tc := range []struct {
		name  string
		eigen jobs.EigenFile
		want  string
	}{
		{"partial", jobs.EigenFile{Eigenvalues: []float64{40, 30, 20, 3.1}, D: 3, Energy: 0.9, Rank: 4, Order: 5000, Total: 100, RankAtLeast: true},
			"Bars of the 4 leading eigenvalues of PCA (4 of " + plots.GroupDigits(5000) + " computed; they hold 93.1% of the trace) as shares of the trace, " +
				"with the cumulative share; d = 3 keeps 90.0%."},
		{"complete", jobs.EigenFile{Eigenvalues: []float64{40, 30, 20, 10}, D: 3, Energy: 0.9, Rank: 4, Order: 4, Total: 100},
			"Bars of the 4 eigenvalues of PCA as shares of their sum, with the cumulative share; d = 3 keeps 90.0%."},
		{"written before order", jobs.EigenFile{Eigenvalues: []float64{40, 30, 20, 10}, D: 3, Energy: 0.9, Rank: 4},
			"Bars of the 4 eigenvalues of PCA as shares of their sum, with the cumulative share; d = 3 keeps 90.0%."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := jobs.MethodResult{Method: "pca", Eigen: tc.eigen, Manifest: &jobs.Manifest{Params: analysis.Params{D: 3}}}
			f, alt, err := Spectrum(m, []string{"pca"}, false, 0)
			if err != nil {
				t.Fatalf("Spectrum: %v", err)
			}
			if alt != tc.want {
				t.Errorf("got alt %q, want %q", alt, tc.want)
			}
			if has := strings.Contains(f.Meta().Note, "eigenvalues computed"); has != (tc.eigen.Order > len(tc.eigen.Eigenvalues)) {
				t.Errorf("got note %q: says computed %v, want %v", f.Meta().Note, has, !has)
			}
		})
	}
}
