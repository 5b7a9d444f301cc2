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
	var z *sparseRows
	if classes == nil {
		// Each binary label j is a variable of two classes, but only
		// its ones are read: class 1's column of XcᵀZ is XcᵀY_j and
		// class 0's is −XcᵀY_j (the columns of Xc sum to 0), so Z's N·q
		// entries are never formed.
		_, q := in.LabelDims()
		classes = slices.Repeat([]int{2}, q)
		z = in.ones()
	} else {
		z = oneHotRows(in.Y, classes)
	}
	// class is the column of XcᵀZ for class c of variable j (whose
	// columns start at off) as a signed column of s.cross, and the share
	// of rows in it.
	class := func(s *stats, j, off, c int) (sign float64, col int, share float64) {
		if in.Classes != nil {
			return 1, off + c, s.labelMean[off+c]
		}
		if c == 1 {
			return 1, j, s.labelMean[j]
		}
		return -1, j, 1 - s.labelMean[j]
	}
	s, err := featureStats(ctx, in, statsSpec{gram: true, labels: z}, useRowSpace(in), st.sub(0, 0.6, "scatter matrices"))
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
			if _, _, share := class(s, j, off, c); share > 0 {
				cols = append(cols, c)
			}
		}
		if len(cols) < 2 {
			off += k
			notes = append(notes, fmt.Sprintf("Class variable %d has a single class in these rows and gives no direction.", j+1))
			continue
		}
		f := mat.NewDense(s.d, len(cols), nil)
		for a, c := range cols {
			sign, col, share := class(s, j, off, c)
			nc := share * float64(s.n)
			for i := range s.d {
				f.Set(i, a, sign*s.cross.At(i, col)/math.Sqrt(nc))
			}
		}
		off += k
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
			b.limit, "number of classes − 1", s.mean, in.matrix())
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
	m.Projected = Project(in.matrix(), s.mean, m.Basis)
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
	y := in.ones()
	q := y.cols
	// The label co-occurrence counts, then in place their cosines C.
	corr := make([]float64, q*q)
	for i := range y.rows {
		idx, _ := y.row(i)
		for _, a := range idx {
			for _, b := range idx {
				corr[int(a)*q+int(b)]++
			}
		}
	}
	diag := make([]float64, q)
	for a := range q {
		diag[a] = corr[a*q+a]
	}
	rowSum := make([]float64, q) // Σ_k C_lk
	for a := range q {
		for b := range q {
			if na, nb := diag[a], diag[b]; na > 0 && nb > 0 {
				corr[a*q+b] /= math.Sqrt(na * nb)
			}
		}
		corr[a*q+a] = 1
		for _, v := range corr[a*q : (a+1)*q] {
			rowSum[a] += v
		}
	}
	// Row i's class weights are (y_iᵀC)/s_i, s_i = Σ_{l∈y_i} rowSum_l, so
	// Z = ỸC with Ỹ the ones of Y scaled by 1/s_i: XcᵀZ = (XcᵀỸ)C and the
	// class weights' means are those of Ỹ times C. Ỹ has Y's ones, never
	// the N·q entries of Z.
	weights := make([]float64, y.rows)
	unlabelled := 0
	for i := range y.rows {
		idx, val := y.row(i)
		sum := 0.0
		for _, l := range idx {
			sum += rowSum[l]
		}
		if sum > 0 {
			weights[i] = 1
			for k := range val {
				val[k] = 1 / sum
			}
		} else {
			unlabelled++
		}
	}
	spec := statsSpec{labels: y}
	if unlabelled > 0 {
		spec.weights = weights
	} else {
		spec.gram = true
	}
	s, err := featureStats(ctx, in, spec, useRowSpace(in), st.sub(0, 0.7, "weighted scatter"))
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
	c := mat.NewSymDense(q, corr)
	var cross mat.Dense // XcᵀZ
	cross.Mul(s.cross, c)
	labelMean := make([]float64, q) // W_k / N
	for l, m := range s.labelMean {
		if m != 0 {
			for k, v := range corr[l*q : (l+1)*q] {
				labelMean[k] += m * v
			}
		}
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
		if labelMean[k] > 0 {
			cols = append(cols, k)
			for i := range s.d {
				mc[i] += cross.At(i, k) / total
			}
		}
	}
	if len(cols) < 2 {
		return nil, unservable("", 0, "mlda needs at least two labels that occur in these rows")
	}
	f := mat.NewDense(s.d, len(cols), nil)
	within := mat.NewDense(s.d, len(cols), nil)
	for a, k := range cols {
		w := labelMean[k] * float64(s.n)
		for i := range s.d {
			ck := cross.At(i, k)
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
		limit, "number of labels − 1", s.mean, in.matrix())
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
	e, err := lowRankGenEig(ctx, f, l, Params{MaxDim: MaxDimAll}) // every pair: the limit is c − 1
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

// memLDA: the one-hot Z (multi-label data: the ones of Y), C and XcᵀZ
// (D×D, D×ΣK_j, or D×q on multi-label data; or N×N-path forms), then
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
	l.sparseFor(s, rowsFor(s))
	n, d := float64(s.N), float64(s.D)
	sumK, nnz := 0.0, n*float64(len(classes))
	for _, kj := range classes {
		sumK += float64(kj)
	}
	if s.Classes == nil { // only the ones of Y: q columns
		sumK, nnz = float64(s.Q), labelOnes(s)
	}
	l.labelRows(n, nnz)
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

// memMLDA: the label correlation C (q×q, the counts turned into it in
// place), the ones of Y scaled per row (Ỹ) and the row weights, Sw or the
// weighted Gram and XcᵀỸ (D×D, D×q; or N×N-path forms), XcᵀZ = (XcᵀỸ)C,
// F and the within-class columns (D×q each), Sw + εI and its factor, the
// low-rank generalised problem.
func memMLDA(p Params, s Shape) float64 {
	n, q := float64(s.N), float64(s.Q)
	ones := labelOnes(s)
	return nnzPlus(s, ones, q*q+2*q+n+featureFit("mlda", p, s, rowsFor(s), memSpec{gram: true, c: q}, func(l *memoryLedger, k float64) float64 {
		l.hold(k*q + q) // XcᵀZ, the class weights' means
		l.hold(k + 2*k*q + k*k)
		l.chol(k)
		l.hold(k * q)
		l.lowRank(k, q)
		return min(k, q)
	}))
}
