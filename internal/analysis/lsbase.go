package analysis

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// The label-space baselines of the LSDR literature beside plst and cplst:
// mlcssp (Bi & Kwok, ICML 2013), faie (Lin, Ding, Hu & Wang, ICML 2014),
// rembrandt (Mineiro & Karampatziakis, ECML-PKDD 2015) and leml (Yu, Jain,
// Kar & Dhillon, ICML 2014). They code the labels as the others do
// (lsdr.go: Z = (2Y − 1) − 1ȳᵀ) and decode by rounding, ŷ = sign(t·Dᵀ + ȳ)
// with 0 counted as −1, where D (q×M) is Model.Decoding: Basis itself for
// rembrandt and leml (orthonormal directions), a separate decoding matrix
// for mlcssp and faie, whose codes are not orthonormal projections.

// Fixed seeds of the randomized methods: like the package's iterative
// solvers (linalg's Krylov start vectors), a fit's random choices come
// from a fixed seed and the shape, so the same data give the same model.
const (
	mlcsspSeed    = 0xc55b
	rembrandtSeed = 0x4e3b
	lemlSeed      = 0x1e31
)

// lemlTol is leml's stopping rule: the sweeps end when the objective falls
// by less than lemlTol of itself in one sweep.
const lemlTol = 1e-15

// sizedByDim reports whether a fit of method id at M is, by design, not
// the cut of a fit at a larger M: mlcssp samples M columns with the
// leverage scores of M directions, rembrandt sketches M + oversample,
// leml fits rank M. Choose refuses another M for them, so that a cached
// fit is only reused for its own M.
func sizedByDim(id string) bool { return id == "mlcssp" || id == "rembrandt" || id == "leml" }

// checkLSBase checks the parameters of the label-space baselines' own.
func checkLSBase(p Params) error {
	if _, err := nonNegative(ParamAlpha, p.Alpha, 0); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		v    *int
	}{{ParamOversample, p.Oversample}, {ParamPowerIters, p.PowerIters}} {
		if f.v != nil && (*f.v < 0 || *f.v > 1000) {
			return invalid(f.name, "%s must be in 0…1000, not %d", f.name, *f.v)
		}
	}
	if p.Iterations < 0 || p.Iterations > 100000 {
		return invalid(ParamIterations, "iterations must be in 1…100000, not %d", p.Iterations)
	}
	return nil
}

// Decoding is the q×Dim decoding matrix of a label-space model: predicted
// codes t decode to round(t·Decodingᵀ + Means). It is P for the methods
// whose codes are orthonormal projections of the labels (plst, cplst,
// rembrandt, leml, …), Y_Cᵀ's least-squares reconstruction for mlcssp and
// ZᵀV for faie.
func (m *Model) Decoding() *mat.Dense {
	if m.decoder == nil {
		return m.P()
	}
	r, _ := m.decoder.Dims()
	return mat.DenseCopyOf(m.decoder.Slice(0, r, 0, m.Dim))
}

// OwnDecoder reports whether Decoding differs from P (mlcssp, faie): the
// codes are then not orthonormal projections of the labels, and an error
// in the codes is measured by what it does to the labels, through
// Decoding.
func (m *Model) OwnDecoder() bool { return m.decoder != nil }

// FitCodes returns the codes a label-space model's regressor learns for
// the rows it was fitted on, whose labels are labels (N×q, 0/1): faie's
// implicit codes V (no encoding of the labels gives them), otherwise
// Transform(labels).
func (m *Model) FitCodes(labels mat.Matrix) (*mat.Dense, error) {
	if m.implicit == nil {
		return m.Transform(labels)
	}
	n, _ := m.implicit.Dims()
	if r, _ := labels.Dims(); r != n {
		return nil, invalid("", "faie's codes are those of the %d rows it was fitted on, not of %d rows", n, r)
	}
	return mat.DenseCopyOf(m.implicit.Slice(0, n, 0, m.Dim)), nil
}

// HasRegressor reports whether the model brings its own regressor from
// the features to the codes (leml), which RegressCodes applies.
func (m *Model) HasRegressor() bool { return m.regressor != nil }

// RegressCodes predicts the codes of feature rows x (dense or
// *sparse.CSR, D columns) with leml's own regressor: (x − μ)·U·R_Vᵀ·E, the
// first Dim columns (fitLEML).
func (m *Model) RegressCodes(x mat.Matrix) (*mat.Dense, error) {
	if m.regressor == nil {
		return nil, fmt.Errorf("analysis: %s has no regressor of its own", m.Method)
	}
	d, _ := m.regressor.Dims()
	if _, c := x.Dims(); c != d {
		return nil, invalid("", "the rows have %d features; the model was fitted on %d", c, d)
	}
	return Project(x, m.regressorMeans, mat.DenseCopyOf(m.regressor.Slice(0, d, 0, m.Dim))), nil
}

// leastSquaresEncoder is E = D(DᵀD)⁺ (q×M) for a decoding matrix D: the
// code t = zE minimises ‖z − tDᵀ‖, so zEDᵀ is z projected on the span of
// D's columns. Directions of D below 1e-12 of its largest singular value
// are left out (the pseudo-inverse).
func leastSquaresEncoder(d *mat.Dense) *mat.Dense {
	var svd mat.SVD
	q, m := d.Dims()
	if !svd.Factorize(d, mat.SVDThin) {
		return mat.NewDense(q, m, nil)
	}
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	s := svd.Values(nil)
	// E = U·Σ⁺·Vᵀ
	for k := range s {
		inv := 0.0
		if s[k] > 1e-12*s[0] {
			inv = 1 / s[k]
		}
		for i := range q {
			u.Set(i, k, u.At(i, k)*inv)
		}
	}
	var e mat.Dense
	e.Mul(&u, v.T())
	return &e
}

// orthonormalCols returns Q (r×c, QᵀQ = I) of the thin Householder QR of a
// (r ≥ c).
func orthonormalCols(a *mat.Dense) *mat.Dense {
	q, _ := thinQR(a)
	return q
}

// thinQR returns Q (r×c, QᵀQ = I) and R (c×c, upper triangular) with
// a = QR (r ≥ c), by LAPACK's geqrf and orgqr; a is not changed.
func thinQR(a *mat.Dense) (*mat.Dense, *mat.Dense) {
	_, c := a.Dims()
	q := mat.DenseCopyOf(a)
	raw := q.RawMatrix()
	tau := make([]float64, c)
	work := []float64{0}
	lapack64.Geqrf(raw, tau, work, -1)
	work = make([]float64, max(int(work[0]), 1))
	lapack64.Geqrf(raw, tau, work, len(work))
	r := mat.NewDense(c, c, nil)
	for i := range c {
		for j := i; j < c; j++ {
			r.Set(i, j, q.At(i, j))
		}
	}
	work = []float64{0}
	lapack64.Orgqr(raw, tau, work, -1)
	work = make([]float64, max(int(work[0]), 1))
	lapack64.Orgqr(raw, tau, work, len(work))
	return q, r
}

// ---------------------------------------------------------------- rembrandt

// fitRembrandt is Rembrandt (Mineiro & Karampatziakis, Fast Label
// Embeddings via Randomized Linear Algebra, ECML-PKDD 2015, algorithm 1):
// the top-M right singular vectors of the projection Π_X·Z of the labels
// on the column space of X, found by a randomized range finder with power
// iterations (Halko, Martinsson & Tropp 2011, algorithms 4.3–4.4, 5.1).
//
// Π_X is realised as cplst's ridge hat matrix Ĥ = X(XᵀX + λI)⁻¹Xᵀ (λ
// default DefaultLambda, > 0; X as given): with XᵀX + λI = LLᵀ and
// F = L⁻¹XᵀZ (k×q, k = D, or N on the N×N path; ridgeFactor), ZᵀĤZ = FᵀF,
// and at λ → 0 F is Π_X·Z in the orthonormal basis X·L⁻ᵀ of X's columns,
// so its right singular vectors are those of Π_X·Z. The sketch: Ω (q×l,
// l = M + oversample, Gaussian, fixed seed), Q = orth(F·Ω); power_iters
// times Q = orth(F·orth(FᵀQ)); then the thin SVD of (QᵀF)ᵀ (q×l) gives
// the directions and σ². With l ≥ rank F the sketch spans F's row space
// and the result is cplst's exactly (up to rounding); below, it
// approximates it, with an error that falls geometrically with the power
// iterations (Halko et al. theorem 9.2). Cost O(N·D² + D³ + D·q·l·(2i+2)),
// against cplst's O(D·q² + q³) more: the saving is the q×q matrix.
//
// M is d, or without d the evaluation's largest (MaxDim), or min(q, k).
// Only the M leading values of the sketch are kept.
func fitRembrandt(ctx context.Context, in Input, p Params, st stage) (*Model, error) {
	lambda, err := positive(ParamLambda, p.Lambda, DefaultLambda)
	if err != nil {
		return nil, err
	}
	p.Lambda = Float(lambda)
	over, power := DefaultOversample, DefaultPowerIters
	if p.Oversample != nil {
		over = *p.Oversample
	}
	if p.PowerIters != nil {
		power = *p.PowerIters
	}
	p.Oversample, p.PowerIters = Int(over), Int(power)
	f, labels, _, err := ridgeFactor(ctx, in, lambda, false, st.sub(0, 0.7, "ridge factor L⁻¹XᵀZ"))
	if err != nil {
		return nil, err
	}
	k0, q := f.Dims()
	top := min(q, k0)
	k := top
	switch {
	case p.D > 0:
		k = min(max(p.D, p.MaxDim), top)
	case p.MaxDim > 0:
		k = min(p.MaxDim, top)
	}
	if p.D > top {
		return nil, unservable(ParamD, top, "M = %d is above %d, the most rembrandt can give here (min(q, features))", p.D, top)
	}
	vals, vecs, total, err := rangeFinderSVD(ctx, f, k, over, power, st.sub(0.7, 0.98, "randomized range finder"))
	if err != nil {
		return nil, err
	}
	e := eigenResult{values: vals, vectors: vecs, order: q, total: total}
	if len(vals) == q {
		e.order = 0
	}
	rank := rankOf(e.values)
	dim := k
	if p.D > 0 {
		dim = p.D
	}
	if dim > rank {
		return nil, unservable(ParamD, rank, "M = %d is above %d, the rank of ZᵀĤZ found by the sketch", dim, rank)
	}
	if err := st.checkpoint(ctx, 0.98); err != nil {
		return nil, err
	}
	return newLabelModel("rembrandt", p, e, dim, rank, "rank of ZᵀĤZ", labels), nil
}

// rangeFinderSVD returns the k leading squared singular values of f
// (r×q) and its right singular vectors (q×k, sign rule applied), by the
// randomized range finder with l = min(k + over, q, r) columns and power
// subspace iterations, and ‖f‖²_F, the sum of every squared singular
// value. The context is checked at every iteration.
func rangeFinderSVD(ctx context.Context, f *mat.Dense, k, over, power int, st stage) ([]float64, *mat.Dense, float64, error) {
	r, q := f.Dims()
	l := min(k+over, q, r)
	rng := rand.New(rand.NewPCG(rembrandtSeed, uint64(q)))
	omega := mat.NewDense(q, l, nil)
	raw := omega.RawMatrix()
	for i := range raw.Data {
		raw.Data[i] = rng.NormFloat64()
	}
	y := mat.NewDense(r, l, nil)
	y.Mul(f, omega)
	qy := orthonormalCols(y)
	for i := range power {
		if err := st.checkpoint(ctx, float64(i)/float64(power+1)); err != nil {
			return nil, nil, 0, err
		}
		w := mat.NewDense(q, l, nil)
		w.Mul(f.T(), qy)
		w = orthonormalCols(w)
		y := mat.NewDense(r, l, nil)
		y.Mul(f, w)
		qy = orthonormalCols(y)
	}
	if err := st.checkpoint(ctx, float64(power)/float64(power+1)); err != nil {
		return nil, nil, 0, err
	}
	bt := mat.NewDense(q, l, nil) // (QᵀF)ᵀ = FᵀQ
	bt.Mul(f.T(), qy)
	var svd mat.SVD
	if !svd.Factorize(bt, mat.SVDThin) {
		return nil, nil, 0, invalid("", "the SVD of rembrandt's sketch did not converge")
	}
	var u mat.Dense
	svd.UTo(&u)
	s := svd.Values(nil)
	vals := make([]float64, k)
	for i := range k {
		vals[i] = s[i] * s[i]
	}
	v := mat.DenseCopyOf(u.Slice(0, q, 0, k))
	fixSigns(v)
	total := 0.0
	fr := f.RawMatrix()
	for i := range r {
		for _, x := range fr.Data[i*fr.Stride : i*fr.Stride+q] {
			total += x * x
		}
	}
	return vals, v, total, nil
}

// memRembrandt: the ridge factor (cplst's statistics and factor, without
// the q×q matrices), the sketch's r×l and q×l blocks, the SVD of the q×l
// matrix, the codes.
func memRembrandt(p Params, s Shape) float64 {
	l := newLedger()
	q := float64(s.Q)
	k := ridgeFactorMem(l, s, false)
	over := float64(DefaultOversample)
	if p.Oversample != nil {
		over = float64(*p.Oversample)
	}
	w := min(chosenDim("rembrandt", p, s)+over, q, k)
	if p.MaxDim > 0 {
		w = min(float64(p.MaxDim)+over, q, k)
	}
	l.hold(2*k*w + 2*q*w)
	l.burst(4*q*w + 6*w*w + 64*(q+w))
	labelModelMem(l, "rembrandt", p, s)
	return l.peak
}

// ---------------------------------------------------------------- mlcssp

// fitMLCSSP is ML-CSSP (Bi & Kwok, Efficient Multi-label Classification
// with Many Labels, ICML 2013, §3–4, algorithm 1): the codes are M of the
// label columns themselves, Z_C = Z·S (S the q×M selection), chosen by
// randomized sampling with the leverage scores of the top-k right singular
// vectors V_k of Z, pᵢ = ‖(V_k)ᵢ‖²/k (they sum to 1). The labels are
// decoded by least squares, Z ≈ Z_C·(Z_C⁺Z).
//
// V_k are plst's directions (the top eigenvectors of ZᵀZ, by the same
// routes), k is M (d, or thr's choice on ZᵀZ's spectrum, or the
// evaluation's largest MaxDim when larger). The M columns are drawn
// without replacement with probabilities proportional to pᵢ (Efraimidis &
// Spirakis' keys uᵢ^(1/pᵢ), u uniform from a fixed seed), in draw order,
// so that the first m of them are a draw of m; a column in the span of
// those already drawn (a duplicate label) is passed over for the next.
// With the thin QR Z_C = QR (Gram–Schmidt in draw order), the model holds
// the encoder E = S·R⁻¹ (Basis: codes t = zE, the rows of Q for the fit
// rows) and the decoder ZᵀQ: t·(ZᵀQ)ᵀ = z·S·(Z_C⁺Z) is the paper's
// reconstruction, and both are nested, so cutting to m < M gives the
// least-squares decoding of the first m columns. Regression to the codes Q
// instead of Z_C changes nothing: ridge regression is equivariant under
// R⁻¹. Eigenvalues, rank, thr and energy are those of ZᵀZ (the spectrum
// the leverage scores come from); a note says which labels were chosen
// and the share of ‖Z‖²_F their reconstruction keeps.
func fitMLCSSP(ctx context.Context, in Input, p Params, st stage) (*Model, error) {
	lambda, err := positive(ParamLambda, p.Lambda, DefaultLambda)
	if err != nil {
		return nil, err
	}
	p.Lambda = Float(lambda)
	ones := in.ones()
	m01 := labelMeans01(ones)
	e, err := labelSpectrum(ctx, in, ones, m01, p, st.sub(0, 0.6, "eigen-decomposition of ZᵀZ"))
	if err != nil {
		return nil, err
	}
	rank := rankOf(e.values)
	const what = "rank of ZᵀZ"
	dim, err := chooseDimOf("mlcssp", e.values, e.positiveSum(), e.partial(), rank, what, p)
	if err != nil {
		return nil, err
	}
	_, have := e.vectors.Dims()
	k := min(max(dim, p.MaxDim), rank, have)
	if p.MaxDim == MaxDimAll {
		k = min(rank, have)
	}
	if err := st.checkpoint(ctx, 0.6); err != nil {
		return nil, err
	}
	labels := newLabelSide(ones, m01)
	order := leverageOrder(e.vectors, k, rand.New(rand.NewPCG(mlcsspSeed, uint64(ones.cols))))
	cols, enc, dec, codes, err := csspFromOrder(ctx, labels, order, k, st.sub(0.6, 1, "selected labels"))
	if err != nil {
		return nil, err
	}
	total := e.positiveSum()
	kept := 0.0
	for j := range dim {
		for i := range ones.cols {
			kept += dec.At(i, j) * dec.At(i, j)
		}
	}
	var names []string
	for _, c := range cols[:min(len(cols), 20)] {
		names = append(names, fmt.Sprint(c))
	}
	if len(cols) > 20 {
		names = append(names, "…")
	}
	m := &Model{Method: "mlcssp", Space: LabelSpace, Params: p, Basis: enc, decoder: dec, Means: labels.mean,
		Eigenvalues: e.values, Order: max(e.order, len(e.values)), Total: total,
		Rank: rank, RankOf: what, RankAtLeast: rankAtLeast(e, rank), Dim: dim, Energy: energyOf(e.values, dim, total), Residuals: e.residuals,
		Projected: mat.DenseCopyOf(codes.Slice(0, ones.rows, 0, dim)), LabelCoding: "pm1"}
	m.Notes = append(m.Notes, fmt.Sprintf("label columns chosen (0-based, in draw order): %s; the first %d keep %.4g of ‖Z‖²_F", strings.Join(names, ", "), dim, kept/math.Max(total, math.SmallestNonzeroFloat64)))
	return m, nil
}

// labelSpectrum is plst's decomposition of ZᵀZ (q×q) for p: by its
// label-Gram operator when labelFree chooses it, else formed.
func labelSpectrum(ctx context.Context, in Input, ones *sparseRows, m01 []float64, p Params, st stage) (eigenResult, error) {
	if k, ok := labelFree(in, ones, p); ok {
		return labelGramTop(ctx, ones, m01, k, st)
	}
	ztz := mat.NewSymDense(ones.cols, nil)
	ztz.ScaleSym(4, centredLabelGram(ones, m01))
	if err := st.checkpoint(ctx, 0.5); err != nil {
		return eigenResult{}, err
	}
	return symEigFor(ctx, ztz, p, true)
}

// leverageProbabilities are ML-CSSP's sampling probabilities (Bi &
// Kwok's leverage scores): pᵢ = ‖row i of V_k‖²/k for the first k columns of v (q×r).
func leverageProbabilities(v *mat.Dense, k int) []float64 {
	q, _ := v.Dims()
	p := make([]float64, q)
	for i := range q {
		for j := range k {
			p[i] += v.At(i, j) * v.At(i, j)
		}
		p[i] /= float64(k)
	}
	return p
}

// leverageOrder orders the q label columns as a weighted draw without
// replacement with the leverage probabilities of v's first k columns:
// by descending key log(u)/pᵢ (Efraimidis & Spirakis 2006, keys
// u^(1/pᵢ)), one uniform u per column from rng; columns of probability 0
// come last, in index order.
func leverageOrder(v *mat.Dense, k int, rng *rand.Rand) []int {
	p := leverageProbabilities(v, k)
	q := len(p)
	keys := make([]float64, q)
	order := make([]int, q)
	for i := range q {
		order[i] = i
		u := rng.Float64()
		for u == 0 {
			u = rng.Float64()
		}
		keys[i] = math.Inf(-1)
		if p[i] > 0 {
			keys[i] = math.Log(u) / p[i]
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(keys[b], keys[a]) })
	return order
}

// csspFromOrder takes the first m columns of Z in order that are not in
// the span of those taken before (relative residual above 1e-8), by
// Gram–Schmidt (twice) on the N-long columns z_j = 2·y_j − (1 + ȳ_j). It
// returns the columns, the encoder E = S·R⁻¹ (q×m), the decoder ZᵀQ (q×m,
// from the ones of Y: 2·YᵀQ − (1 + ȳ)·(1ᵀQ)) and the codes Q (N×m), the
// sign rule applied to E's columns (and the same flips to the others).
func csspFromOrder(ctx context.Context, l labelSide, order []int, m int, st stage) ([]int, *mat.Dense, *mat.Dense, *mat.Dense, error) {
	n, q := l.ones.rows, len(l.mean)
	cols := onesByLabel(l.ones) // row indices of the ones of each label
	qm := mat.NewDense(n, m, nil)
	r := mat.NewDense(m, m, nil)
	var taken []int
	z := make([]float64, n)
	for _, j := range order {
		if len(taken) == m {
			break
		}
		if err := st.checkpoint(ctx, float64(len(taken))/float64(m)); err != nil {
			return nil, nil, nil, nil, err
		}
		for i := range z {
			z[i] = -1 - l.mean[j]
		}
		for _, i := range cols[j] {
			z[i] += 2
		}
		norm0 := blas64.Nrm2(blas64.Vector{N: n, Inc: 1, Data: z})
		if norm0 == 0 {
			continue
		}
		c := len(taken)
		coef := make([]float64, c)
		for range 2 {
			for a := range c {
				qa := blas64.Vector{N: n, Inc: m, Data: qm.RawMatrix().Data[a:]}
				h := blas64.Dot(qa, blas64.Vector{N: n, Inc: 1, Data: z})
				coef[a] += h
				blas64.Axpy(-h, qa, blas64.Vector{N: n, Inc: 1, Data: z})
			}
		}
		norm := blas64.Nrm2(blas64.Vector{N: n, Inc: 1, Data: z})
		if norm <= 1e-8*norm0 {
			continue
		}
		for i := range n {
			qm.Set(i, c, z[i]/norm)
		}
		for a := range c {
			r.Set(a, c, coef[a])
		}
		r.Set(c, c, norm)
		taken = append(taken, j)
	}
	if len(taken) < m {
		return nil, nil, nil, nil, unservable(ParamD, len(taken), "only %d label columns are linearly independent; M = %d is too many", len(taken), m)
	}
	// E = S·R⁻¹: row taken[a] of E is row a of R⁻¹ (upper triangular).
	var rinv mat.Dense
	if err := rinv.Inverse(r); err != nil {
		return nil, nil, nil, nil, unservable(ParamD, 0, "the chosen label columns are too close to collinear: %v", err)
	}
	enc := mat.NewDense(q, m, nil)
	for a, j := range taken {
		for b := a; b < m; b++ {
			enc.Set(j, b, rinv.At(a, b))
		}
	}
	dec := mat.NewDense(q, m, nil)
	colSum := make([]float64, m)
	for i := range n {
		row := qm.RawRowView(i)
		for b, v := range row {
			colSum[b] += v
		}
	}
	for j := range q {
		for _, i := range cols[j] {
			row := qm.RawRowView(int(i))
			for b, v := range row {
				dec.Set(j, b, dec.At(j, b)+2*v)
			}
		}
		for b := range m {
			dec.Set(j, b, dec.At(j, b)-(1+l.mean[j])*colSum[b])
		}
	}
	flipColumns(enc, dec, qm)
	return taken, enc, dec, qm, nil
}

// onesByLabel lists, for each label column, the rows whose label is 1.
func onesByLabel(y *sparseRows) [][]int32 {
	cols := make([][]int32, y.cols)
	for i := range y.rows {
		idx, _ := y.row(i)
		for _, j := range idx {
			cols[j] = append(cols[j], int32(i))
		}
	}
	return cols
}

// memMLCSSP: plst's decomposition of ZᵀZ, then the N×M codes, their
// M×M R and its inverse, the q×M encoder and decoder, the label columns'
// row indices, the model's codes.
func memMLCSSP(p Params, s Shape) float64 {
	n, q := float64(s.N), float64(s.Q)
	m := min(chosenDim("mlcssp", p, s), q)
	if p.MaxDim > 0 {
		m = min(max(m, float64(p.MaxDim)), q)
	}
	l := newLedger()
	l.hold(memPLST(p, s) / memoryMargin)
	l.hold(labelOnes(s)/2 + q + n)
	l.hold(n*m + 2*m*m + 2*q*m + n)
	return l.peak
}

// ---------------------------------------------------------------- faie

// fitFaIE is FaIE (Lin, Ding, Hu & Wang, Multi-label Classification via
// Feature-aware Implicit Label Space Encoding, ICML 2014, §3): the codes V
// (N×M, VᵀV = I) of the rows maximise recoverability and predictability
// together, max tr(Vᵀ·Ω·V) with Ω = ZZᵀ + α·Ĥ (with the ridge hat matrix
// Ĥ = X(XᵀX + λI)⁻¹Xᵀ of the linear predictability term, X as given, as
// cplst), and the labels are decoded by D = VᵀZ:
// Z ≈ V·VᵀZ, so a predicted code t decodes to round(t·(ZᵀV)ᵀ + ȳ).
//
// Ω is N×N, but never formed: Ω = BBᵀ with B = [Z, √α·X·P·(Σ + λI)^(−1/2)]
// (N×(q + D)), XᵀX = PΣPᵀ, so its non-zero eigenpairs come from the
// (q + D)×(q + D) matrix K = BᵀB = [[ZᵀZ, √α·C], [√α·Cᵀ, α·Σ(Σ + λI)⁻¹]],
// C = ZᵀX·P·(Σ + λI)^(−1/2): K·W = W·Λ gives V = B·W·Λ^(−1/2), and the
// decoder ZᵀV = W_Z·Λ^(1/2) (the first q rows of W). Cost O(N·D² + D³ +
// (q + D)³ + N·(q + D)·M), memory (q + D)² and N·M; no N limit. The codes
// V are implicit: no function of a row's labels gives them, so the model
// keeps V for the fit rows (FitCodes), and Transform of new labels gives
// their least-squares codes z·D(DᵀD)⁺, the projection on the span of the
// decoder that the encoding error measures.
//
// α ≥ 0 (default DefaultAlpha; α = 0 is plst's subspace), λ > 0 (default
// DefaultLambda, also the ridge of the regressor the evaluation trains).
// ZZᵀ's eigenvalues grow with N, Ĥ's lie in [0, 1): α of the order of N/q
// makes the two terms weigh alike.
func fitFaIE(ctx context.Context, in Input, p Params, st stage) (*Model, error) {
	lambda, err := positive(ParamLambda, p.Lambda, DefaultLambda)
	if err != nil {
		return nil, err
	}
	alpha, err := nonNegative(ParamAlpha, p.Alpha, DefaultAlpha)
	if err != nil {
		return nil, err
	}
	p.Lambda, p.Alpha = Float(lambda), Float(alpha)
	ones := in.ones()
	s, err := statsOf(ctx, in, statsSpec{gram: true, labels: ones, labelGram: true}, st.sub(0, 0.4, "XᵀX, XᵀZ and ZᵀZ"))
	if err != nil {
		return nil, err
	}
	d, q, nf := s.d, ones.cols, float64(s.n)
	// XᵀX = XcᵀXc + N·μμᵀ (both semi-definite: no cancellation).
	xtx := mat.NewSymDense(d, nil)
	for i := range d {
		for j := i; j < d; j++ {
			xtx.SetSym(i, j, s.gram.At(i, j)+nf*s.mean[i]*s.mean[j])
		}
	}
	if err := st.checkpoint(ctx, 0.4); err != nil {
		return nil, err
	}
	ex, err := symEig(ctx, xtx)
	if err != nil {
		return nil, err
	}
	if err := st.checkpoint(ctx, 0.6); err != nil {
		return nil, err
	}
	// M = P·(Σ + λI)^(−1/2); C = ZᵀX·M = (2·XcᵀY)ᵀM (Z has zero means).
	mm := mat.DenseCopyOf(ex.vectors)
	sig := make([]float64, d)
	for j := range d {
		sig[j] = max(ex.values[j], 0)
		f := 1 / math.Sqrt(sig[j]+lambda)
		for i := range d {
			mm.Set(i, j, mm.At(i, j)*f)
		}
	}
	var c mat.Dense
	c.Mul(s.cross.T(), mm)
	c.Scale(2*math.Sqrt(alpha), &c)
	k := mat.NewSymDense(q+d, nil)
	for i := range q {
		for j := i; j < q; j++ {
			k.SetSym(i, j, 4*s.labelGram.At(i, j))
		}
		for j := range d {
			k.SetSym(i, q+j, c.At(i, j))
		}
	}
	for j := range d {
		k.SetSym(q+j, q+j, alpha*sig[j]/(sig[j]+lambda))
	}
	if err := st.checkpoint(ctx, 0.65); err != nil {
		return nil, err
	}
	e, err := symEigFor(ctx, k, p, true)
	if err != nil {
		return nil, err
	}
	rank := rankOf(e.values)
	const what = "rank of Ω = ZZᵀ + αĤ"
	dim, err := chooseDimOf("faie", e.values, e.positiveSum(), e.partial(), rank, what, p)
	if err != nil {
		return nil, err
	}
	if err := st.checkpoint(ctx, 0.85); err != nil {
		return nil, err
	}
	_, have := e.vectors.Dims()
	r := min(have, rank)
	w := e.vectors.Slice(0, q+d, 0, r)
	// V = (Z·W_Z + √α·X·M·W_X)·Λ^(−1/2); the decoder W_Z·Λ^(1/2).
	labels := newLabelSide(ones, slices.Clone(s.labelMean))
	v := labels.codes(mat.DenseCopyOf(w.(*mat.Dense).Slice(0, q, 0, r)), r)
	var mw mat.Dense
	mw.Mul(mm, w.(*mat.Dense).Slice(q, q+d, 0, r))
	mw.Scale(math.Sqrt(alpha), &mw)
	xv := Project(in.matrix(), make([]float64, d), &mw)
	v.Add(v, xv)
	dec := mat.DenseCopyOf(w.(*mat.Dense).Slice(0, q, 0, r))
	for j := range r {
		sq := math.Sqrt(e.values[j])
		for i := range s.n {
			v.Set(i, j, v.At(i, j)/sq)
		}
		for i := range q {
			dec.Set(i, j, dec.At(i, j)*sq)
		}
	}
	flipColumns(dec, v)
	total := e.positiveSum()
	m := &Model{Method: "faie", Space: LabelSpace, Params: p, Basis: dec, decoder: dec, implicit: v, Means: labels.mean,
		Eigenvalues: e.values, Order: max(e.order, len(e.values)), Total: total,
		Rank: rank, RankOf: what, RankAtLeast: rankAtLeast(e, rank), Dim: dim, Energy: energyOf(e.values, dim, total), Residuals: e.residuals,
		LabelCoding: "pm1"}
	m.Projected = mat.DenseCopyOf(v.Slice(0, s.n, 0, dim))
	return m, st.checkpoint(ctx, 1)
}

// memFaIE: the statistics (D×D, D×q, q×q), XᵀX and its decomposition
// (D×D), P·(Σ + λI)^(−1/2), the (q + D)×(q + D) matrix K and its
// decomposition, the codes V (N×r, twice while they are summed) and the
// decoder.
func memFaIE(p Params, s Shape) float64 {
	l := newLedger()
	n, d, q := float64(s.N), float64(s.D), float64(s.Q)
	l.sparseFor(s, false)
	l.labelRows(n, labelOnes(s))
	l.stats(n, d, memSpec{gram: true, c: q, labelGram: true})
	l.hold(d * d)
	l.eig(d)
	l.hold(d*d + q*d)
	l.hold((q + d) * (q + d))
	l.eig(q + d)
	r := min(q+d, n)
	if p.D > 0 {
		r = min(r, float64(max(p.D, p.MaxDim)))
	}
	l.hold(2*n*r + d*r + q*r)
	l.hold(n * chosenDim("faie", p, s))
	return l.peak
}

// ---------------------------------------------------------------- leml

// lemlFit is the result of leml's alternating least squares.
type lemlFit struct {
	u, v      *mat.Dense // D×M and q×M
	objective []float64  // J after each sweep
}

// lemlALS minimises J(U, V) = ‖Z − Xc·U·Vᵀ‖²_F + (λ/2)(‖U‖²_F + ‖V‖²_F)
// (Yu, Jain, Kar & Dhillon, Large-scale Multi-label Learning with Missing
// Labels, ICML 2014: its objective with the squared loss and every
// label observed) over U (D×M) and V (q×M), by alternating exact minimisation
// from a Gaussian V₀ (fixed seed): each sweep sets U, then V, to their
// minimisers with the other fixed, so J never increases. G = XcᵀXc,
// C = XcᵀZ and ‖Z‖²_F are all it needs. With G = PΣPᵀ (once, O(D³)) the
// sweeps work on Ũ = PᵀU and C̃ = PᵀC, O(D·q·M) each:
//
//   - U: G·U·VᵀV + (λ/2)U = C·V, a Sylvester equation solved exactly in the
//     eigenbases of G and VᵀV = QΘQᵀ: Ũ = (C̃·V·Q ⊘ (σθᵀ + λ/2))·Qᵀ (the
//     paper solves it by conjugate gradients: the same minimiser);
//   - V: V·(ŨᵀΣŨ + (λ/2)I) = C̃ᵀŨ, by Cholesky.
//
// J = ‖Z‖² − 2·tr(ŨᵀC̃V) + tr(ŨᵀΣŨ·VᵀV) + (λ/2)(‖Ũ‖² + ‖V‖²). The sweeps
// end after iters, or when J falls by less than lemlTol·J; the context is
// checked at every sweep. U = P·Ũ at the end.
func lemlALS(ctx context.Context, g *mat.SymDense, c *mat.Dense, zz, lambda float64, m, iters int, st stage) (*lemlFit, error) {
	d, q := c.Dims()
	eg, err := symEig(ctx, g)
	if err != nil {
		return nil, err
	}
	sig := make([]float64, d)
	for i, v := range eg.values {
		sig[i] = max(v, 0)
	}
	var ct mat.Dense
	ct.Mul(eg.vectors.T(), c) // C̃ = PᵀC
	rng := rand.New(rand.NewPCG(lemlSeed, uint64(q*m)))
	v := mat.NewDense(q, m, nil)
	for i := range q {
		for j := range m {
			v.Set(i, j, rng.NormFloat64()/math.Sqrt(float64(q)))
		}
	}
	ut := mat.NewDense(d, m, nil)
	fit := &lemlFit{v: v}
	half := lambda / 2
	var cv mat.Dense // C̃·V: the objective's, then the next sweep's U step's
	cv.Mul(&ct, v)
	for it := range iters {
		if err := st.checkpoint(ctx, float64(it)/float64(iters)); err != nil {
			return nil, err
		}
		lemlStepU(sig, &cv, v, half, ut)
		ugu := lemlUGU(sig, ut)
		if err := lemlStepV(&ct, ut, ugu, half, v); err != nil {
			return nil, err
		}
		cv.Reset()
		cv.Mul(&ct, v)
		j := lemlObjective(zz, half, ut, v, ugu, &cv)
		fit.objective = append(fit.objective, j)
		if n := len(fit.objective); n > 1 && fit.objective[n-2]-j <= lemlTol*math.Abs(j) {
			break
		}
	}
	fit.u = mat.NewDense(d, m, nil)
	fit.u.Mul(eg.vectors, ut)
	return fit, nil
}

// lemlStepU sets ut to argmin ‖Z − XcUVᵀ‖² + h‖U‖² for v fixed, in G's
// eigenbasis (Ũ = PᵀU, C̃ = PᵀC, Σ = sig); cv is C̃·V.
func lemlStepU(sig []float64, cv, v *mat.Dense, h float64, ut *mat.Dense) {
	_, m := v.Dims()
	var vtv mat.SymDense
	vtv.SymOuterK(1, v.T())
	var ev mat.EigenSym
	ev.Factorize(&vtv, true)
	theta := ev.Values(nil)
	var qv mat.Dense
	ev.VectorsTo(&qv)
	var bt mat.Dense
	bt.Mul(cv, &qv)
	for a := range sig {
		for k := range m {
			bt.Set(a, k, bt.At(a, k)/(sig[a]*max(theta[k], 0)+h))
		}
	}
	ut.Mul(&bt, qv.T())
}

// lemlStepV sets v to argmin ‖Z − XcUVᵀ‖² + h‖V‖² for ut = PᵀU fixed;
// ugu is lemlUGU of ut (left as it is).
func lemlStepV(ct, ut *mat.Dense, ugu *mat.SymDense, h float64, v *mat.Dense) error {
	_, m := ut.Dims()
	a := mat.NewSymDense(m, nil)
	a.CopySym(ugu)
	for i := range m {
		a.SetSym(i, i, a.At(i, i)+h)
	}
	var ch mat.Cholesky
	if !ch.Factorize(a) {
		return unservable(ParamLambda, 0, "leml's UᵀXcᵀXcU + (λ/2)I is not positive definite; give a larger %s", ParamLambda)
	}
	var ctu mat.Dense
	ctu.Mul(ct.T(), ut) // q×M; V = C̃ᵀŨ·A⁻¹, i.e. A·Vᵀ = ŨᵀC̃
	var vt mat.Dense
	if err := ch.SolveTo(&vt, ctu.T()); err != nil {
		return fmt.Errorf("leml: solving for V: %w", err)
	}
	v.Copy(vt.T())
	return nil
}

// lemlUGU is UᵀGU = ŨᵀΣŨ (M×M).
func lemlUGU(sig []float64, ut *mat.Dense) *mat.SymDense {
	d, m := ut.Dims()
	a := mat.NewSymDense(m, nil)
	for i := range m {
		for j := i; j < m; j++ {
			s := 0.0
			for r := range d {
				s += ut.At(r, i) * sig[r] * ut.At(r, j)
			}
			a.SetSym(i, j, s)
		}
	}
	return a
}

// lemlObjective is J(U, V) from the statistics in G's eigenbasis
// (lemlALS): ugu is lemlUGU of ut, cv is C̃·V.
func lemlObjective(zz, h float64, ut, v *mat.Dense, ugu *mat.SymDense, cv *mat.Dense) float64 {
	var vtv mat.Dense
	vtv.Mul(v.T(), v)
	cross := 0.0
	d, m := ut.Dims()
	for i := range d {
		for k, x := range ut.RawRowView(i) {
			cross += x * cv.At(i, k)
		}
	}
	quad := 0.0
	for a := range m {
		for b := range m {
			quad += ugu.At(a, b) * vtv.At(b, a)
		}
	}
	fu, fv := mat.Norm(ut, 2), mat.Norm(v, 2)
	return zz - 2*cross + quad + h*(fu*fu+fv*fv)
}

// fitLEML is LEML with the squared loss (lemlALS) on the centred features
// and the coded labels: W = U·Vᵀ (D×q, rank ≤ M) regresses Z on Xc, so the
// centring means play the part of a bias column, unpenalised. λ (`lambda`,
// default DefaultLambda, > 0) is its regulariser, `iterations` (default
// DefaultIterations) the most sweeps.
//
// LEML's regressor comes with its fit, so the model carries it and the
// evaluation uses it instead of training a ridge regression to the codes.
// To decode as the other label-space methods, Xc·U·Vᵀ is rotated to an
// SVD: V = Q_V·R_V (thin QR), R_V·UᵀGU·R_Vᵀ = E·Λ·Eᵀ; Basis = Q_V·E (q×M,
// orthonormal), the regressor U·R_Vᵀ·E (D×M, RegressCodes) and the
// eigenvalues Λ, the squared singular values of the predictions Xc·U·Vᵀ,
// descending. So Xc·regressor·Basisᵀ = Xc·U·Vᵀ, and cutting to m < M keeps
// the best rank-m approximation of LEML's predictions (not a fit of rank
// m: WithDim and an evaluation grid cut the one fit at the largest M).
// M is d, or the evaluation's largest (MaxDim), or min(q, D) without
// either. The notes give the sweeps and the final objective J.
func fitLEML(ctx context.Context, in Input, p Params, st stage) (*Model, error) {
	lambda, err := positive(ParamLambda, p.Lambda, DefaultLambda)
	if err != nil {
		return nil, err
	}
	iters := cmp.Or(p.Iterations, DefaultIterations)
	p.Lambda, p.Iterations = Float(lambda), iters
	ones := in.ones()
	s, err := statsOf(ctx, in, statsSpec{gram: true, labels: ones}, st.sub(0, 0.3, "XcᵀXc and XcᵀZ"))
	if err != nil {
		return nil, err
	}
	d, q := s.d, ones.cols
	top := min(q, d)
	m := top
	switch {
	case p.D > top:
		return nil, unservable(ParamD, top, "M = %d is above %d, the largest rank of W = UVᵀ (min(q, features))", p.D, top)
	case p.D > 0:
		m = min(max(p.D, p.MaxDim), top)
	case p.MaxDim > 0:
		m = min(p.MaxDim, top)
	}
	c := mat.DenseCopyOf(s.cross)
	c.Scale(2, c)
	labels := newLabelSide(ones, slices.Clone(s.labelMean))
	zz := 0.0
	for _, mu := range s.labelMean {
		zz += 4 * float64(s.n) * mu * (1 - mu)
	}
	g := mat.NewSymDense(d, nil)
	g.CopySym(s.gram)
	fit, err := lemlALS(ctx, g, c, zz, lambda, m, iters, st.sub(0.3, 0.95, "alternating least squares"))
	if err != nil {
		return nil, err
	}
	basis, reg, vals := lemlRotate(g, fit.u, fit.v)
	rank := rankOf(vals)
	dim := m
	if p.D > 0 {
		dim = p.D
	}
	if dim > rank {
		return nil, unservable(ParamD, rank, "M = %d is above %d, the rank of LEML's predictions XcUVᵀ at this λ; give a smaller d or a smaller %s", dim, rank, ParamLambda)
	}
	e := eigenResult{values: vals, vectors: basis}
	model := newLabelModel("leml", p, e, dim, rank, "rank of XcUVᵀ", labels)
	model.regressor, model.regressorMeans = reg, slices.Clone(s.mean)
	n := len(fit.objective)
	change := 0.0
	if n > 1 {
		change = (fit.objective[n-2] - fit.objective[n-1]) / math.Abs(fit.objective[n-1])
	}
	model.Notes = append(model.Notes, fmt.Sprintf("alternating least squares: %d sweeps (at most %d), objective J = %.10g, relative change in the last sweep %.3g", n, iters, fit.objective[n-1], change))
	return model, st.checkpoint(ctx, 1)
}

// lemlRotate turns U (D×M), V (q×M) into leml's model (fitLEML): the
// orthonormal Basis Q_V·E, the regressor U·R_Vᵀ·E and the eigenvalues Λ
// of R_V·UᵀGU·R_Vᵀ, descending, with the sign rule on Basis.
func lemlRotate(g *mat.SymDense, u, v *mat.Dense) (*mat.Dense, *mat.Dense, []float64) {
	qv1, r1 := thinQR(v)
	_, m := v.Dims()
	var urt, gu mat.Dense
	urt.Mul(u, r1.T())
	gu.Mul(g, &urt)
	a := mat.NewSymDense(m, nil)
	for i := range m {
		for j := i; j < m; j++ {
			a.SetSym(i, j, mat.Dot(urt.ColView(i), gu.ColView(j)))
		}
	}
	var es mat.EigenSym
	es.Factorize(a, true)
	asc := es.Values(nil)
	var ev mat.Dense
	es.VectorsTo(&ev)
	// descending
	vals := make([]float64, m)
	e := mat.NewDense(m, m, nil)
	for k := range m {
		vals[k] = max(asc[m-1-k], 0)
		e.SetCol(k, mat.Col(nil, m-1-k, &ev))
	}
	var basis, reg mat.Dense
	basis.Mul(qv1, e)
	reg.Mul(&urt, e)
	flipColumns(&basis, &reg)
	return &basis, &reg, vals
}

// memLEML: the statistics (D×D, D×q), the copies of G and C, G's
// decomposition and the sweeps' D×M and q×M matrices, the rotation, the
// codes and the regressor.
func memLEML(p Params, s Shape) float64 {
	l := newLedger()
	n, d, q := float64(s.N), float64(s.D), float64(s.Q)
	l.sparseFor(s, false)
	l.labelRows(n, labelOnes(s))
	l.stats(n, d, memSpec{gram: true, c: q})
	l.hold(d*d + d*q)
	l.eig(d)
	m := min(q, d)
	if p.D > 0 {
		m = min(m, float64(max(p.D, p.MaxDim)))
	} else if p.MaxDim > 0 {
		m = min(m, float64(p.MaxDim))
	}
	l.burst(6*d*m + 4*q*m + 2*q*q + 4*m*m)
	l.hold(q*m + d*m + d)
	labelModelMem(l, "leml", p, s)
	return l.peak
}
