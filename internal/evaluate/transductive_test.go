package evaluate

import (
	"context"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/analysis"
)

// TestTransductiveMDS evaluates mds of each kind on two folds: each fit
// sees the split's training and test rows together (training first), no
// test label reaches it (the test rows' labels are placeholders, and
// permuting the test rows' labels leaves every embedding unchanged), and
// every row says transductive. On a grid classical mds is fitted once per
// split and cut, metric and nonmetric once per d.
func TestTransductiveMDS(t *testing.T) {
	for _, tc := range []struct {
		name    string
		classes []int
		p       analysis.Params
		grid    Grid
		fits    int // per split
	}{
		{"classical, multi-label", nil, analysis.Params{D: 2}, Grid{}, 1},
		{"classical grid, multi-dimensional", []int{3, 2}, analysis.Params{}, Grid{Dims: []int{1, 3}}, 1},
		{"metric grid, multi-label", nil, analysis.Params{MDSKind: analysis.MDSMetric, Starts: 2}, Grid{Dims: []int{1, 2}}, 2},
		{"nonmetric, multi-dimensional", []int{3, 2}, analysis.Params{MDSKind: analysis.MDSNonmetric, Starts: 2, D: 2}, Grid{}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := runData(11, 60, 4, 3, tc.classes)
			folds, err := KFold(60, 2, 1)
			if err != nil {
				t.Fatal(err)
			}
			spec := Spec{Methods: []MethodRun{{ID: "mds", Params: tc.p}}, Grid: tc.grid, Options: Options{Classifier: ClassifierRidge}}
			// run evaluates data and returns the embeddings fitted, in order.
			run := func(data analysis.Input) ([]*mat.Dense, *Result) {
				r, err := newRunner(data, folds, spec, nil)
				if err != nil {
					t.Fatal(err)
				}
				var embs []*mat.Dense
				fold := 0
				r.fitFunc = func(ctx context.Context, id string, in analysis.Input, p analysis.Params, pr analysis.Progress) (*analysis.Model, error) {
					sp := folds[fold%len(folds)]
					n, _ := in.X.Dims()
					if n != len(sp.Train)+len(sp.Test) {
						t.Errorf("the fit has %d rows, want the split's %d training and %d test rows", n, len(sp.Train), len(sp.Test))
					}
					for i, row := range slices.Concat(sp.Train, sp.Test) {
						if !slices.Equal(in.X.RawRowView(i), data.X.RawRowView(row)) {
							t.Fatalf("row %d of the fit is not row %d of the data (training rows, then test rows)", i, row)
						}
					}
					for i := len(sp.Train); i < n; i++ {
						if slices.ContainsFunc(in.Y.RawRowView(i), func(v float64) bool { return v != 0 }) {
							t.Fatalf("row %d of the fit, a test row, carries labels %v", i, in.Y.RawRowView(i))
						}
					}
					m, err := analysis.Fit(ctx, id, in, p, pr)
					if err == nil {
						embs = append(embs, mat.DenseCopyOf(m.Projected))
					}
					if len(embs)%tc.fits == 0 {
						fold++
					}
					return m, err
				}
				res, err := r.run(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				return embs, res
			}
			embs, res := run(data)
			if len(embs) != tc.fits*len(folds) {
				t.Errorf("%d fits, want %d per split", len(embs), tc.fits)
			}
			for _, row := range res.Rows {
				if row.Method == "mds" && !row.Transductive {
					t.Errorf("mds row (d = %d, fold %v) is not marked transductive", row.D, row.Fold)
				}
				if row.Method == Ori && row.Transductive {
					t.Error("ori's row is marked transductive")
				}
			}
			if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.HasPrefix(n, "mds: evaluated transductively") }) {
				t.Errorf("notes %q: none says mds was evaluated transductively", res.Notes)
			}
			// The test rows' labels permuted within each fold's test part.
			perm := analysis.Input{X: data.X, Y: mat.DenseCopyOf(data.Y), Classes: data.Classes}
			for _, sp := range folds {
				for i, row := range sp.Test {
					perm.Y.SetRow(row, data.Y.RawRowView(sp.Test[(i+7)%len(sp.Test)]))
				}
			}
			embs2, _ := run(perm)
			for i := range embs {
				if !mat.Equal(embs[i], embs2[i]) {
					t.Errorf("fit %d: the embedding changed when the test rows' labels were permuted", i+1)
				}
			}
		})
	}
}
