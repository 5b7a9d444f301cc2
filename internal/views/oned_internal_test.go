package views

import (
	"strings"
	"testing"

	"mldr/internal/evaluate"
	"mldr/internal/jobs"
)

// TestCurvesAtOneD: an evaluation at one d is drawn as a dot plot (one
// row a method, with its error bar), titled with the d, not as a column
// of lone error bars; methods at different single d name theirs.
func TestCurvesAtOneD(t *testing.T) {
	hl := evaluate.HammingLoss
	row := func(m string, d int, v, sd float64) evaluate.Row {
		return evaluate.Row{Method: m, D: d, Metrics: map[string]float64{hl: v}, Std: map[string]float64{hl: sd}, Folds: 5}
	}
	for _, c := range []struct {
		name      string
		rows      []evaluate.Row
		kind      string
		title     string
		rowNames  []string
		altPrefix string
	}{
		{
			name:      "one d for every method",
			rows:      []evaluate.Row{row("pca", 6, 0.21, 0.01), row("mddmp", 6, 0.19, 0.02), row(evaluate.Ori, 24, 0.2, 0.01)},
			kind:      "dots",
			title:     "hamming loss, d = 6 for every method",
			rowNames:  []string{"PCA", "MDDM (orthonormal directions)"},
			altPrefix: "Dot plot of hamming loss, d = 6 for every method, for 2 methods",
		},
		{
			name:      "each method at its own d",
			rows:      []evaluate.Row{row("pca", 6, 0.21, 0.01), row("mddmp", 3, 0.19, 0.02)},
			kind:      "dots",
			title:     "hamming loss, each method at its own d",
			rowNames:  []string{"PCA (d = 6)", "MDDM (orthonormal directions) (d = 3)"},
			altPrefix: "Dot plot of hamming loss, each method at its own d",
		},
		{
			name:  "a grid of d",
			rows:  []evaluate.Row{row("pca", 2, 0.22, 0.01), row("pca", 6, 0.21, 0.01), row("mddmp", 6, 0.19, 0.02)},
			kind:  "curves",
			title: "hamming loss against d",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := &jobs.Results{
				Job:     jobs.Job{Request: jobs.Request{Methods: []string{"pca", "mddmp"}}},
				Metrics: &jobs.MetricsFile{Rows: c.rows},
			}
			f, alt, err := Curves(res, hl, []string{"pca", "mddmp"}, "linear", nil)
			if err != nil {
				t.Fatalf("Curves: %v", err)
			}
			if got, want := OneD(res), c.kind == "dots"; got != want {
				t.Errorf("OneD: got %v, want %v", got, want)
			}
			m := f.Meta()
			if m.Kind != c.kind {
				t.Errorf("got a figure of kind %q, want %q", m.Kind, c.kind)
			}
			if got := f.Title(); got != c.title {
				t.Errorf("the figure is titled %q, want %q", got, c.title)
			}
			var names []string
			for _, s := range m.Series {
				if !s.Baseline {
					names = append(names, s.Name)
				}
			}
			if c.rowNames != nil && strings.Join(names, "|") != strings.Join(c.rowNames, "|") {
				t.Errorf("rows %q, want %q", names, c.rowNames)
			}
			if c.altPrefix != "" && !strings.HasPrefix(alt, c.altPrefix) {
				t.Errorf("alt text %q: want it to start %q", alt, c.altPrefix)
			}
		})
	}
}
