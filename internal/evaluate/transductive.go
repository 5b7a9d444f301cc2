package evaluate

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/analysis"
	"mldr/internal/sparse"
)

// transductive evaluates a method that embeds the rows it is fitted on
// and projects no others (mds): on each split the training and test rows
// are embedded together (together), the classifier trains on the
// training rows' coordinates and is tested on the test rows'. Classical
// mds is fitted once at the grid's largest d and cut to each d (its
// coordinates are nested); metric and nonmetric mds (SMACOF) are fitted
// once per d of the grid, their coordinates being other at each d.
func (r *runner) transductive(ctx context.Context, run MethodRun, train, test analysis.Input, f int) error {
	all := together(train, test)
	ntr, _ := features(train).Dims()
	nAll, nFeat := features(all).Dims()
	r.note("%s: evaluated transductively: on each split the training and test rows were embedded together, no label read, "+
		"and the classifier was trained on the training rows' coordinates and tested on those of the test rows", run.ID)
	p := run.Params
	explicit := len(r.spec.Grid.Dims) > 0 || len(r.spec.Grid.Percent) > 0
	if !explicit {
		m, err := r.fit(ctx, run.ID, all, p)
		if err != nil {
			return err
		}
		return r.embedded(ctx, run.ID, m.Projected, ntr, []point{{d: m.Dim, own: true}}, train, test, f)
	}
	var model *analysis.Model
	limit, limitOf := min(nAll-1, 200), "rows − 1, at most 200"
	if !p.SMACOF() {
		p.D, p.Thr, p.MaxDim = 0, 0, r.spec.Grid.maxDim(nFeat, r.rankBase[run.ID])
		var err error
		if model, err = r.fit(ctx, run.ID, all, p); err != nil {
			return err
		}
		limit, limitOf = gridLimit(model)
	}
	usable := r.within(run.ID, r.gridPoints(run.ID, nFeat, limit), limit, limitOf)
	for _, group := range byD(usable) {
		d := group[0].d
		var z *mat.Dense
		if model != nil {
			m, err := model.WithDim(d)
			if err != nil {
				return err
			}
			z = m.Projected
		} else {
			q := run.Params
			q.D, q.Thr = d, 0
			m, err := r.fit(ctx, run.ID, all, q)
			if err != nil {
				return err
			}
			z = m.Projected
		}
		if err := r.embedded(ctx, run.ID, z, ntr, group, train, test, f); err != nil {
			return err
		}
	}
	return nil
}

// embedded classifies with the embedding z of the training rows (its
// first ntr rows) and the test rows (the rest), at the points' d.
func (r *runner) embedded(ctx context.Context, id string, z *mat.Dense, ntr int, pts []point, train, test analysis.Input, f int) error {
	n, c := z.Dims()
	xtr := mat.DenseCopyOf(z.Slice(0, ntr, 0, c))
	xte := mat.DenseCopyOf(z.Slice(ntr, n, 0, c))
	metrics, pred, err := r.classify(ctx, xtr, xte, train, test, nil)
	if err != nil {
		return fmt.Errorf("evaluate: %s: %w", id, err)
	}
	r.recordErrors(id, pts[0].errD(), f, test.LabelMatrix(), pred, test.MultiDim())
	r.addPoints(id, pts, f, metrics)
	return nil
}

// together is the training rows then the test rows of a split, as one
// Input to fit a transductive method on. The test rows' labels are not
// given to it: their rows of Y are 0 (class 0 of each variable on
// multi-dimensional data), or empty when the labels are sparse. No
// transductive method reads the labels; the placeholders only keep the
// Input whole.
func together(train, test analysis.Input) analysis.Input {
	out := analysis.Input{Classes: train.Classes, FeatureNames: train.FeatureNames}
	ntr, _ := features(train).Dims()
	nte, _ := features(test).Dims()
	if train.Sparse != nil {
		out.Sparse = sparse.Stack(train.Sparse, test.Sparse)
	} else {
		out.X = new(mat.Dense)
		out.X.Stack(train.X, test.X)
	}
	if train.Labels != nil {
		_, q := train.Labels.Dims()
		out.Labels = sparse.Stack(train.Labels, &sparse.CSR{R: nte, C: q, Ptr: make([]int64, nte+1)})
	} else {
		_, q := train.Y.Dims()
		out.Y = mat.NewDense(ntr+nte, q, nil)
		out.Y.Slice(0, ntr, 0, q).(*mat.Dense).Copy(train.Y)
	}
	return out
}
