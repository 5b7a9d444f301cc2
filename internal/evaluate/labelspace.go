package evaluate

import (
	"context"
	"maps"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/analysis"
	"mldr/internal/sparse"
)

// Label-space evaluation: a label-space method's regressor from the features
// to its codes (ridge, sparse ridge with the split's factor kept, kcplst's
// kernel ridge, leml's own) and the decoding of the predicted codes at each
// M, with the encoding and prediction errors.

// sparseRidge is fitRidgeBiasSparse with the factor of the system kept
// for the split: plst and cplst (and any label-space method with the same
// λ) regress their codes from the same rows, so the second solves with
// the first's factor, which on a fold of EURLex-4K's shape saves forming
// and factoring a 5 001 × 5 001 system (about 2 s). x identifies the
// training part as ytr does for inverseProps: each split's rows are a new
// CSR, and the factor held keeps its address from being reused.
func (r *runner) sparseRidge(ctx context.Context, x *sparse.CSR, t *mat.Dense, lambda float64) (*ridgeModel, error) {
	if r.ridge == nil || r.ridge.x != x || r.ridge.lambda != lambda {
		r.ridge = nil // the previous split's, collected before this one is formed
		f, err := factorRidgeBiasSparse(ctx, x, lambda)
		if err != nil {
			return nil, err
		}
		r.ridge = f
	}
	return r.ridge.solve(ctx, t)
}

// labelSpace evaluates a label-space model at every M: one regression to
// the full codes serves all M (ridge regression is column-wise).
func (r *runner) labelSpace(ctx context.Context, model *analysis.Model, pts []point, train, test analysis.Input, f int) error {
	full, err := model.WithDim(pts[len(pts)-1].d)
	if err != nil {
		return err
	}
	codes, err := full.FitCodes(train.LabelMatrix()) // faie's are implicit
	if err != nil {
		return err
	}
	r.decoders[model.Method] = decoderOf(model)
	var pred *mat.Dense // predicted codes of the test rows, for the largest M
	switch {
	case model.HasRegressor(): // leml's regressor comes with its fit
		if pred, err = full.RegressCodes(features(test)); err != nil {
			return err
		}
	case model.Method != "kcplst" && train.Sparse != nil && sparseRegressor(train.Sparse.R, train.Sparse.C, int64(train.Sparse.NNZ())):
		reg, err := r.sparseRidge(ctx, train.Sparse, codes, *model.Params.Lambda)
		if err != nil {
			return err
		}
		if pred, err = reg.predictSparse(ctx, test.Sparse); err != nil {
			return err
		}
	case model.Method == "kcplst":
		xtr, xte := r.denseFeatures(train, model.Method+"'s regressor from the features"), r.denseFeatures(test, "")
		if pred, err = full.KernelCodes(ctx, xtr, xte); err != nil {
			return err
		}
	default:
		xtr, xte := r.denseFeatures(train, model.Method+"'s regressor from the features"), r.denseFeatures(test, "")
		reg, err := fitRidgeBias(xtr, codes, *model.Params.Lambda)
		if err != nil {
			return err
		}
		pred = reg.predict(xte)
	}
	for _, group := range byD(pts) {
		if err := r.decodeAt(ctx, model, group, pred, train, test, f); err != nil {
			return err
		}
	}
	return nil
}

// decodeBlock is how many test rows a label-space model decodes at a time
// when the labels are held sparse: its q-wide rows (codes, scores,
// decisions) then take 4·decodeBlock·q values, where the dense path holds
// them for every test row.
const decodeBlock = 256

// decodeAt scores a label-space model at the d of group from pred, the
// predicted codes of the test rows: the decoded labels and their scores
// (Vᵀr + ȳ), the metrics, the per-row errors, and the encoding and
// prediction errors of the test codes. Dense labels go in one block of
// every test row; labels held sparse in blocks of decodeBlock rows, made
// dense one block at a time; the sums run over the rows in the same order
// either way.
func (r *runner) decodeAt(ctx context.Context, model *analysis.Model, group []point, pred *mat.Dense, train, test analysis.Input, f int) error {
	d := group[0].d
	m, err := model.WithDim(d)
	if err != nil {
		return err
	}
	v, dec := m.P(), m.Decoding() // encoder and decoder: the same but for mlcssp and faie
	nte, q := test.LabelDims()
	block := nte
	if test.Labels != nil {
		block = decodeBlock
	}
	ml := newMultiLabelAcc(q)
	var xc *xcAcc
	if train.Labels != nil {
		xc = newXCAcc(r.inversePropsSparse(train.Labels))
	} else {
		xc = newXCAcc(r.inverseProps(train.Y))
	}
	var decided mat.Matrix // the decisions, for the per-row errors
	var sparseDecided *sparse.Builder
	if test.Labels != nil {
		sparseDecided = sparse.NewBuilder(q, nte)
	}
	var encSq, diffSq float64
	for i0 := 0; i0 < nte; i0 += block {
		if err := ctx.Err(); err != nil {
			return err
		}
		i1 := min(nte, i0+block)
		var yb *mat.Dense
		if test.Labels != nil {
			yb = test.Labels.RowRange(i0, i1).Dense()
		} else {
			yb = test.Y
		}
		pd := mat.DenseCopyOf(pred.Slice(i0, i1, 0, d))
		var tz, enc mat.Dense
		scores := m.LabelScores(pd) // Vᵀr + ȳ: the scores the labels are decided from
		labels := m.Decide(scores)
		for i := range i1 - i0 {
			row := scores.RawRowView(i)
			ml.addRow(yb.RawRowView(i), labels.RawRowView(i), row)
			xc.addRow(yb.RawRowView(i), row)
		}
		if sparseDecided != nil {
			for i := range i1 - i0 {
				for l, x := range labels.RawRowView(i) {
					if x != 0 {
						sparseDecided.Add(l, 1)
					}
				}
				sparseDecided.EndRow()
			}
		} else {
			decided = labels
		}
		zte := codedCentred(yb, model.Means)
		tz.Mul(zte, v) // Z_te V
		enc.Mul(&tz, dec.T())
		enc.Sub(zte, &enc)
		var diff mat.Dense
		diff.Sub(pd, &tz)
		if m.OwnDecoder() { // the error in the labels it decodes to: ‖(r − t)·Dᵀ‖, as ‖r − t‖ for orthonormal V
			var lab mat.Dense
			lab.Mul(&diff, dec.T())
			diff = lab
		}
		encSq = addSq(encSq, &enc)
		diffSq = addSq(diffSq, &diff)
	}
	metrics := ml.metrics()
	maps.Copy(metrics, xc.metrics())
	if sparseDecided != nil {
		decided = sparseDecided.Build()
	}
	r.recordErrors(model.Method, group[0].errD(), f, test.LabelMatrix(), decided, false)
	metrics[EncodingError] = encSq / float64(nte)
	metrics[PredictionError] = diffSq / float64(nte)
	metrics[LossBound] = metrics[EncodingError] + metrics[PredictionError]
	r.addPoints(model.Method, group, f, metrics)
	return nil
}

// codedCentred is (2Y − 1) − mean: test labels in the ±1 coding with the
// training means.
func codedCentred(y *mat.Dense, mean []float64) *mat.Dense {
	n, q := y.Dims()
	z := mat.NewDense(n, q, nil)
	for i := range n {
		for j := range q {
			z.Set(i, j, 2*y.At(i, j)-1-mean[j])
		}
	}
	return z
}

// addSq adds the squares of m's entries to s, row by row.
func addSq(s float64, m *mat.Dense) float64 {
	r, _ := m.Dims()
	for i := range r {
		for _, v := range m.RawRowView(i) {
			s += v * v
		}
	}
	return s
}
