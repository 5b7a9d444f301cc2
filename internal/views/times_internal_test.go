package views

import (
	"testing"

	"mldr/internal/evaluate"
	"mldr/internal/jobs"
)

func TestFormatSeconds(t *testing.T) {
	for _, tc := range []struct {
		s    float64
		want string
	}{
		{0, "< 0.01 s"}, {0.004, "< 0.01 s"}, {0.123, "0.12 s"}, {9.994, "9.99 s"}, {9.996, "10.0 s"},
		{12.34, "12.3 s"}, {59.96, "1 min 0 s"}, {63.2, "1 min 3 s"}, {3599.4, "59 min 59 s"}, {7500, "2 h 5 min"}, {-1, "—"},
	} {
		if got := formatSeconds(tc.s); got != tc.want {
			t.Errorf("formatSeconds(%v): got %q, want %q", tc.s, got, tc.want)
		}
	}
}

// TestTimesTableView: the fit per fold counts one fit per method and fold
// (shared by every d), the evaluation is per fold and d, the total is
// both; ori has no fit; a file without times gives no table.
func TestTimesTableView(t *testing.T) {
	f1, f2 := 1, 2
	row := func(m string, d int, fold *int, fit, eval float64) evaluate.Row {
		return evaluate.Row{Method: m, D: d, Fold: fold, FitSeconds: fit, EvalSeconds: eval}
	}
	res := &jobs.Results{Job: jobs.Job{Request: jobs.Request{Methods: []string{"pca"}}}, Metrics: &jobs.MetricsFile{Rows: []evaluate.Row{
		row(evaluate.Ori, 5, &f1, 0, 0.5), row(evaluate.Ori, 5, &f2, 0, 1.5), row(evaluate.Ori, 5, nil, 0, 1),
		row("pca", 1, &f1, 2, 1), row("pca", 1, &f2, 4, 1), row("pca", 1, nil, 3, 1),
		row("pca", 2, &f1, 2, 3), row("pca", 2, &f2, 4, 3), row("pca", 2, nil, 3, 3),
	}}}
	got := TimesTable(res)
	if got == nil || len(got.Rows) != 2 {
		t.Fatalf("got %+v, want rows for ori and pca", got)
	}
	want := [][4]string{{"PCA", "3.00 s", "2.00 s", "14.0 s"}, {"ori", "—", "1.00 s", "2.00 s"}}
	for i, r := range got.Rows {
		if g := [4]string{r.Method, r.Fit, r.Eval, r.Total}; g != want[i] {
			t.Errorf("row %d: got %q, want %q", i, g, want[i])
		}
	}
	for i := range res.Metrics.Rows {
		res.Metrics.Rows[i].FitSeconds, res.Metrics.Rows[i].EvalSeconds = 0, 0
	}
	if got := TimesTable(res); got != nil {
		t.Errorf("a file without times: got %+v, want no table", got)
	}
}
