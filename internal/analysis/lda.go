package analysis

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// ldaRidgeScale sets LDA's and MLDA's default ε relative to the right-hand
// matrix: ε = 1e-4 · tr(Sw)/D.
const ldaRidgeScale = 1e-4

// fitLDA is Fisher's linear discriminant, one per class variable: for
// multi-dimensional data each class variable j (seed 003, §4.4: "LDA on each
// dimension's labels independently"), for multi-label data each binary
// label (a 2-class variable). For variable j with classes c (N_c rows, mean
// m_c; m the overall mean):
//
//	Sb = Σ_c N_c (m_c − m)(m_c − m)ᵀ,  Sw = XcᵀXc − Sb,  Sb w = λ (Sw + εI) w,
//
// ε = ridge, default 1e-4·tr(Sw)/D. Sb = FFᵀ with F's columns
// XcᵀZ_c/√N_c, so one thin SVD of a D×K_j matrix solves each variable; each
// gives at most K_j − 1 directions (one per binary label), of unit length
// (normalize = unit, the default) or B-orthonormal, Pᵀ(Sw + εI)P = I
// (normalize = b). With several variables, P puts their directions side by
// side (Model.Blocks says which columns are whose) and d applies to each
// (at most K_j − 1). One pass over the rows serves every variable. With
// fewer rows than features, Sb and Sw come from the rows of Xc in its row
// space (rowspace.go) and the problems are solved there, exactly; a ridge
// of 0 is refused then (Sw would be singular).
func fitLDA(ctx context.Context, in Input, p Params, st stage) (*Model, error) {
	classes := in.Classes
	if classes == nil {
		_, q := in.Y.Dims()
		classes = slices.Repeat([]int{2}, q)
	}
	z := oneHotRows(in.Y, classes)
	s, err := featureStats(ctx, in.X, statsSpec{gram: true, labels: z}, useRowSpace(in), st.sub(0, 0.6, "scatter matrices"))
	if err != nil {
		return nil, err
	}
	if p.Ridge != nil {
		if err := s.needRidge(*p.Ridge, ParamRidge, "Sw + εI"); err != nil {
			return nil, err
		}
	}
	type block struct {
		e     eigenResult
		limit int
		eps   float64
	}
	blocks := make([]block, len(classes))
	off := 0
	maxLimit := 0
	var notes []string
	for j, k := range classes {
		if err := st.checkpoint(ctx, 0.6+0.35*float64(j)/float64(len(classes))); err != nil {
			return nil, err
		}
		var cols []int
		for c := range k {
			if s.labelMean[off+c] > 0 {
				cols = append(cols, off+c)
			}
		}
		off += k
		if len(cols) < 2 {
			notes = append(notes, fmt.Sprintf("Class variable %d has a single class in these rows and gives no direction.", j+1))
			continue
		}
		f := mat.NewDense(s.d, len(cols), nil)
		for a, c := range cols {
			nc := s.labelMean[c] * float64(s.n)
			for i := range s.d {
				f.Set(i, a, s.cross.At(i, c)/math.Sqrt(nc))
			}
		}
		sw := mat.NewSymDense(s.d, nil)
		sw.CopySym(s.gram)
		sw.SymRankK(sw, -1, f)
		e, limit, eps, err := discriminant(ctx, f, sw, p.Ridge, s)
		if err != nil {
			return nil, err
		}
		if e, err = s.up(ctx, eigenResult{values: e.values, vectors: sliceCols(e.vectors, limit)}); err != nil {
			return nil, err
		}
		normalizeDirections(e.vectors, p)
		blocks[j] = block{e: e, limit: limit, eps: eps}
		maxLimit = max(maxLimit, limit)
	}
	if maxLimit == 0 {
		return nil, unservable("", 0, "lda gives no direction: no class variable has two classes in these rows")
	}
	if p.D > maxLimit {
		return nil, unservable(ParamD, maxLimit, "d = %d exceeds the %d directions LDA can give per class variable here (number of classes − 1)", p.D, maxLimit)
	}
	p.Normalize = p.normalization()
	if len(classes) == 1 {
		b := blocks[0]
		p.Ridge = Float(b.eps)
		m, err := newFeatureModel("lda", p, eigenResult{values: b.e.values[:b.limit], vectors: sliceCols(b.e.vectors, b.limit)},
			b.limit, "number of classes − 1", s.mean, in.X)
		if m != nil {
			m.Notes = notes
		}
		return m, err
	}
	// Several variables: side by side.
	var cols []*mat.Dense
	var all []float64
	m := &Model{Method: "lda", Space: FeatureSpace, Params: p, Means: s.mean, RankOf: "sum over class variables of (number of classes − 1)", Notes: notes}
	kept, total := 0.0, 0.0
	for j, b := range blocks {
		if b.limit == 0 {
			continue
		}
		vals := b.e.values[:b.limit]
		dj := min(p.D, b.limit)
		if p.D == 0 {
			var err error
			if dj, err = chooseDim("lda", vals, b.limit, "number of classes − 1", p); err != nil {
				return nil, err
			}
		}
		m.Blocks = append(m.Blocks, Block{Variable: j, Start: m.Dim, Dim: dj, Values: vals})
		cols = append(cols, sliceCols(b.e.vectors, dj))
		m.Dim += dj
		m.Rank += b.limit
		for i, v := range vals {
			if v > 0 {
				total += v
				if i < dj {
					kept += v
				}
			}
		}
		all = append(all, vals...)
	}
	m.Basis = hstack(s.dim, cols)
	slices.SortFunc(all, func(a, b float64) int { return cmp.Compare(b, a) })
	m.Eigenvalues, m.Order, m.Total = all, len(all), total
	if total > 0 {
		m.Energy = kept / total
	}
	if p.Ridge == nil {
		m.Notes = append(m.Notes, fmt.Sprintf("ridge ε = %g·tr(Sw)/D for each class variable.", ldaRidgeScale))
	}
	m.Projected = Project(in.X, s.mean, m.Basis)
	return m, nil
}

// fitMLDA is multi-label LDA (Wang, Ding & Huang, ECCV 2010). The label
// correlation is the cosine C_kl = y_kᵀy_l/(‖y_k‖‖y_l‖) of label columns; each
// row's class weights are its row of YC, normalised to sum 1 (rows without
// labels weigh nothing). With W_k = Σ_i Z_ik and weighted class means m_k:
//
//	Sb = Σ_k W_k (m_k − m)(m_k − m)ᵀ,  Sw = Σ_k Σ_i Z_ik (x_i − m_k)(x_i − m_k)ᵀ,
//	Sb w = λ (Sw + εI) w,
//
// m the weighted overall mean, ε = ridge, default 1e-4·tr(Sw)/D. As the
// weights of a row sum to 1, Sw = Σ_i s_i xc_i xc_iᵀ − Σ_k W_k mc_k mc_kᵀ
// (s_i = 1 for labelled rows): one pass, O(N·D² + N·q·D); Sb has rank
// ≤ q − 1 and comes from a D×q matrix. The N×N path is lda's. The
// directions are unit-length or B-orthonormal as normalize says (lda's).
func fitMLDA(ctx context.Context, in Input, p Params, st stage) (*Model, error) {
	y := binaryRows(in.Y)
	q := y.cols
	counts := make([]float64, q*q)
	for i := range y.rows {
		idx, _ := y.row(i)
		for _, a := range idx {
			for _, b := range idx {
				counts[int(a)*q+int(b)]++
			}
		}
	}
	corr := make([]float64, q*q)
	for a := range q {
		for b := range q {
			if na, nb := counts[a*q+a], counts[b*q+b]; na > 0 && nb > 0 {
				corr[a*q+b] = counts[a*q+b] / math.Sqrt(na*nb)
			}
		}
		corr[a*q+a] = 1
	}
	z := newSparse(y.rows, q)
	weights := make([]float64, y.rows)
	unlabelled := 0
	row := make([]float64, q)
	for i := range y.rows {
		idx, _ := y.row(i)
		clear(row)
		sum := 0.0
		for _, l := range idx {
			for k := range q {
				row[k] += corr[int(l)*q+k]
				sum += corr[int(l)*q+k]
			}
		}
		if sum > 0 {
			weights[i] = 1
			for k, v := range row {
				if v > 0 {
					z.add(k, v/sum)
				}
			}
		} else {
			unlabelled++
		}
		z.endRow()
	}
	spec := statsSpec{labels: z}
	if unlabelled > 0 {
		spec.weights = weights
	} else {
		spec.gram = true
	}
	s, err := featureStats(ctx, in.X, spec, useRowSpace(in), st.sub(0, 0.7, "weighted scatter"))
	if err != nil {
		return nil, err
	}
	if p.Ridge != nil {
		if err := s.needRidge(*p.Ridge, ParamRidge, "Sw + εI"); err != nil {
			return nil, err
		}
	}
	if err := st.checkpoint(ctx, 0.7); err != nil {
		return nil, err
	}
	sw := s.gram
	if sw == nil {
		sw = s.wgram
	}
	// Weighted class sums XcᵀZ_k = W_k·mc_k; the overall weighted mean is
	// their sum over the total weight.
	total := float64(s.n - unlabelled)
	mc := make([]float64, s.d)
	var cols []int
	for k := range q {
		if s.labelMean[k] > 0 {
			cols = append(cols, k)
			for i := range s.d {
				mc[i] += s.cross.At(i, k) / total
			}
		}
	}
	if len(cols) < 2 {
		return nil, unservable("", 0, "mlda needs at least two labels that occur in these rows")
	}
	f := mat.NewDense(s.d, len(cols), nil)
	within := mat.NewDense(s.d, len(cols), nil)
	for a, k := range cols {
		w := s.labelMean[k] * float64(s.n)
		for i := range s.d {
			ck := s.cross.At(i, k)
			f.Set(i, a, math.Sqrt(w)*(ck/w-mc[i]))
			within.Set(i, a, ck/math.Sqrt(w))
		}
	}
	right := mat.NewSymDense(s.d, nil)
	right.CopySym(sw)
	right.SymRankK(right, -1, within)
	e, limit, eps, err := discriminant(ctx, f, right, p.Ridge, s)
	if err != nil {
		return nil, err
	}
	if e, err = s.up(ctx, eigenResult{values: e.values, vectors: sliceCols(e.vectors, limit)}); err != nil {
		return nil, err
	}
	p.Ridge = Float(eps)
	p.Normalize = normalizeDirections(e.vectors, p)
	return newFeatureModel("mlda", p, eigenResult{values: e.values[:limit], vectors: sliceCols(e.vectors, limit)},
		limit, "number of labels − 1", s.mean, in.X)
}

// discriminant solves Sb w = λ(Sw + εI)w for Sb = FFᵀ (F is D×c, one
// column per class): ε is ridge if given (≥ 0), else ldaRidgeScale·tr(Sw)/D.
// Sw is changed in place; the trace is over s's D features (on the N×N path
// f and sw are in the row space). It returns the decomposition, how many
// directions count (at most c − 1, the rank of the centred class means) and
// the ε used.
func discriminant(ctx context.Context, f *mat.Dense, sw *mat.SymDense, ridge *float64, s *stats) (eigenResult, int, float64, error) {
	eps, err := nonNegative(ParamRidge, ridge, ldaRidgeScale*s.meanDiag(sw))
	if err != nil {
		return eigenResult{}, 0, 0, err
	}
	addDiag(sw, eps)
	l, err := cholesky(sw, ParamRidge, "Sw + εI")
	if err != nil {
		return eigenResult{}, 0, 0, err
	}
	e, err := lowRankGenEig(ctx, f, l)
	if err != nil {
		return eigenResult{}, 0, 0, err
	}
	_, c := f.Dims()
	return e, min(c-1, rankOf(e.values)), eps, nil
}

// sliceCols copies the first k columns of m.
func sliceCols(m *mat.Dense, k int) *mat.Dense {
	r, _ := m.Dims()
	return mat.DenseCopyOf(m.Slice(0, r, 0, k))
}

// hstack puts matrices of r rows side by side.
func hstack(r int, ms []*mat.Dense) *mat.Dense {
	c := 0
	for _, m := range ms {
		_, mc := m.Dims()
		c += mc
	}
	out := mat.NewDense(r, c, nil)
	off := 0
	for _, m := range ms {
		_, mc := m.Dims()
		out.Slice(0, r, off, off+mc).(*mat.Dense).Copy(m)
		off += mc
	}
	return out
}

// memLDA: the one-hot Z, C and XcᵀZ (D×D, D×ΣK_j; or N×N-path forms), then
// per class variable its D×K_j F, Sw + εI and its Cholesky factor, the
// low-rank generalised problem (all released before the next variable),
// and its K_j − 1 directions, kept (lifted to D on the N×N path); then P
// side by side and the projection.
func memLDA(p Params, s Shape) float64 {
	classes := s.Classes
	if classes == nil {
		classes = make([]int, s.Q)
		for j := range classes {
			classes[j] = 2
		}
	}
	l := newLedger()
	n, d := float64(s.N), float64(s.D)
	sumK := 0.0
	for _, kj := range classes {
		sumK += float64(kj)
	}
	l.labelRows(n, n*float64(len(classes)))
	rows := rowsFor(s)
	k := d
	if rows {
		k = min(n, d)
		l.hold(d)
		l.rowSpace(n, d)
	}
	l.stats(n, k, memSpec{gram: true, c: sumK})
	dims := 0.0
	for _, kj := range classes {
		c := float64(kj)
		one := newLedger()
		one.hold(k*c + 2*k*k) // F, Sw, its factor
		one.burst(k * k)      // mat.Cholesky's copy
		one.hold(k * c)
		one.lowRank(k, c)
		l.burst(2 * one.peak) // the previous variable's buffers may not be reclaimed yet
		kept := min(c-1, k)
		if rows {
			l.burst(k*kept + d*kept + float64(rowSpaceBlock)*float64(rowSpaceBlock) + 65*64)
		}
		l.hold(d*kept + c)
		dims += min(kept, chosenDim("lda", p, s))
	}
	l.hold(d * dims) // P side by side (or one variable's copy)
	l.burst(d*(math.Ceil(dims/8)*8) + l.workers*(8*d+64))
	l.hold(n * dims)
	return l.peak
}

// memMLDA: the label correlation (q×q twice), the weighted one-hot rows
// (up to N·q entries), Sw or the weighted Gram and XcᵀZ (D×D, D×q; or
// N×N-path forms), F and the within-class columns (D×q each), Sw + εI and
// its factor, the low-rank generalised problem.
func memMLDA(p Params, s Shape) float64 {
	n, q := float64(s.N), float64(s.Q)
	ones := labelOnes(s)
	return nnzPlus(s, ones, 2*q*q+n+q) + nnzPlus(s, n*q, featureFit("mlda", p, s, rowsFor(s), memSpec{gram: true, c: q}, func(l *memoryLedger, k float64) float64 {
		l.hold(k + 2*k*q + k*k)
		l.chol(k)
		l.hold(k * q)
		l.lowRank(k, q)
		return min(k, q)
	}))
}
