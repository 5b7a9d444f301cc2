package analysis

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"

	"mldr/internal/linalg"
)

// Label-space dimension reduction (seed 001: Chen & Lin, NIPS 2012).
//
// Every method here works on multi-label 0/1 data, coded ±1 and centred as
// the CPLST authors' code does: Ypm = 2Y − 1, ȳ the column means of Ypm and
// Z = Ypm − 1ȳᵀ (N×q). Since Z = 2·Yc, ZᵀZ = 4·YcᵀYc, and because Z has zero
// column means, XᵀZ = XcᵀZ = 2·XcᵀY: both come from computeStats, with
// the cross product folded into its pass over the rows. A method decomposes a symmetric q×q matrix; the rows
// of V (M×q) are its top eigenvectors, held as the columns of Model.Basis,
// and the codes of the training rows are Z·V_Mᵀ = Z·Basis[:, :M] (N×M).

// maxNKCPLST is the largest number of rows kcplst accepts. Kernel-CPLST
// needs the N×N Gaussian kernel matrix and its Cholesky factor, held in one
// N×N buffer: N² floats are 512 MB at N = 8000, and the factorisation costs
// N³/3 ≈ 1.7·10¹¹ flops (some 15 s on two cores; time grows as N³). Above it,
// sample the rows or use cplst.
const maxNKCPLST = 8000

// kernelBlock is how many rows of the kernel matrix (and columns of its
// Cholesky factor) are formed between two checks of the context.
const kernelBlock = 256

// labelSide is what the label-space methods know of the labels.
type labelSide struct {
	ones *sparseRows // the ones of the 0/1 matrix Y (N×q)
	mean []float64   // ȳ: the column means of Ypm = 2Y − 1
}

// newLabelSide codes the 0/1 column means m01 as ±1 means: ȳ = 2·m01 − 1.
func newLabelSide(ones *sparseRows, m01 []float64) labelSide {
	mean := make([]float64, len(m01))
	for j, v := range m01 {
		mean[j] = 2*v - 1
	}
	return labelSide{ones: ones, mean: mean}
}

// labelMeans01 is the column means of the 0/1 label matrix.
func labelMeans01(y *sparseRows) []float64 {
	m := make([]float64, y.cols)
	for i := range y.rows {
		idx, val := y.row(i)
		for k, j := range idx {
			m[j] += val[k]
		}
	}
	for j := range m {
		m[j] /= float64(y.rows)
	}
	return m
}

// codes computes Z·P (N×m) for the first m columns P of v (q×r) from the
// ones of Y, without forming Z: row i of Z is 2yᵢ − (1 + ȳ), so its code is
// 2·Σ_{j: y_ij = 1} P_j − (1 + ȳ)ᵀP. Cost O((nnz(Y) + N)·m + q·m).
func (l labelSide) codes(v *mat.Dense, m int) *mat.Dense {
	q := len(l.mean)
	shift := make([]float64, m)
	for j := range q {
		for k := range m {
			shift[k] += (1 + l.mean[j]) * v.At(j, k)
		}
	}
	out := mat.NewDense(l.ones.rows, m, nil)
	raw := out.RawMatrix()
	for i := range l.ones.rows {
		row := raw.Data[i*raw.Stride : i*raw.Stride+m]
		for k := range m {
			row[k] = -shift[k]
		}
		idx, _ := l.ones.row(i)
		for _, j := range idx {
			for k := range m {
				row[k] += 2 * v.At(int(j), k)
			}
		}
	}
	return out
}

// dense returns Z (N×q) itself, for kcplst, which needs it in full.
func (l labelSide) dense() *mat.Dense {
	q := len(l.mean)
	z := mat.NewDense(l.ones.rows, q, nil)
	raw := z.RawMatrix()
	for i := range l.ones.rows {
		row := raw.Data[i*raw.Stride : i*raw.Stride+q]
		for j, m := range l.mean {
			row[j] = -1 - m
		}
		idx, _ := l.ones.row(i)
		for _, j := range idx {
			row[j] += 2
		}
	}
	return z
}

// newLabelModel assembles a label-space model from the decomposition of the
// method's q×q matrix, with dimension dim already chosen.
// finishLabelModel chooses M by d or thr up to the rank of e and builds the
// model: the shared ending of plst, cplst and kcplst.
func finishLabelModel(ctx context.Context, st stage, id string, p Params, e eigenResult, what string, l labelSide) (*Model, error) {
	rank := rankOf(e.values)
	dim, err := chooseDimOf(id, e.values, e.positiveSum(), e.partial(), rank, what, p)
	if err != nil {
		return nil, err
	}
	if err := st.checkpoint(ctx, 0); err != nil {
		return nil, err
	}
	return newLabelModel(id, p, e, dim, rank, what, l), nil
}

func newLabelModel(id string, p Params, e eigenResult, dim, rank int, rankOf string, l labelSide) *Model {
	total := e.positiveSum()
	return &Model{Method: id, Space: LabelSpace, Params: p, Basis: e.vectors, Means: l.mean,
		Eigenvalues: e.values, Order: max(e.order, len(e.values)), Total: total,
		Rank: rank, RankOf: rankOf, RankAtLeast: rankAtLeast(e, rank), Dim: dim, Energy: energyOf(e.values, dim, total), Residuals: e.residuals,
		Projected: l.codes(e.vectors, dim), LabelCoding: "pm1"}
}

// fitPLST is PLST (Tai & Lin 2012; seed 001 §2.1): the top-M eigenvectors
// of ZᵀZ (q×q), the right singular vectors of Z, which minimise the
// encoding error ‖Z − ZVᵀV‖²_F. ZᵀZ = 4·YcᵀYc is formed from the ones of Y
// in O(Σᵢ nnz(yᵢ)²); the features are not read. The eigen-decomposition
// costs O(q³). M ≤ the rank of ZᵀZ (q unless labels are constant or
// collinear). lambda is not used by the fit: it is the ridge of the
// regressor that evaluation couples with the codes, resolved here (default
// DefaultLambda, > 0) so that the model records it.
func fitPLST(ctx context.Context, in Input, p Params, st stage) (*Model, error) {
	lambda, err := positive(ParamLambda, p.Lambda, DefaultLambda)
	if err != nil {
		return nil, err
	}
	p.Lambda = Float(lambda)
	if err := st.checkpoint(ctx, 0); err != nil {
		return nil, err
	}
	ones := in.ones()
	m01 := labelMeans01(ones)
	if k, ok := labelFree(in, ones, p); ok {
		e, err := labelGramTop(ctx, ones, m01, k, st.sub(0.05, 0.9, opPhase))
		if err != nil {
			return nil, err
		}
		return finishLabelModel(ctx, st.sub(0.9, 1, "codes"), "plst", p, e, "rank of ZᵀZ", newLabelSide(ones, m01))
	}
	ztz := mat.NewSymDense(ones.cols, nil)
	ztz.ScaleSym(4, centredLabelGram(ones, m01))
	if err := st.sub(0.4, 0.9, "eigen-decomposition").checkpoint(ctx, 0); err != nil {
		return nil, err
	}
	e, err := symEigFor(ctx, ztz, p, true)
	if err != nil {
		return nil, err
	}
	return finishLabelModel(ctx, st.sub(0.9, 1, "codes"), "plst", p, e, "rank of ZᵀZ", newLabelSide(ones, m01))
}

// ridgeHat holds ZᵀZ and ZᵀĤZ (both q×q) for the ridge hat matrix
// Ĥ = X(XᵀX + λI)⁻¹Xᵀ on X as given.
type ridgeHat struct {
	labels labelSide
	ztz    *mat.SymDense // ZᵀZ
	zhz    *mat.SymDense // ZᵀĤZ
}

// computeRidgeHat forms ZᵀĤZ = (XᵀZ)ᵀ(XᵀX + λI)⁻¹(XᵀZ) without the N×N hat
// matrix, as the CPLST authors' code does: X neither centred nor with a
// bias column. One call to computeStats gives the centred Gram XcᵀXc, the
// cross product XcᵀY and YcᵀYc; then XᵀZ = 2·XcᵀY (Z has zero column means)
// and ZᵀZ = 4·YcᵀYc. The raw Gram is rebuilt as XᵀX = XcᵀXc + N·μμᵀ rather
// than summed in a pass of its own: both terms are positive semidefinite,
// so their sum has no cancellation, each entry keeps an error of order
// ε·‖X_{:a}‖·‖X_{:b}‖ as a direct XᵀX would, and the pass over the rows is
// shared with the cross product. With XᵀX + λI = LLᵀ (Cholesky, O(D³)) and
// F = L⁻¹XᵀZ (O(D²q)), ZᵀĤZ = FᵀF (O(Dq²)); no inverse is formed. The whole
// costs O(N·D² + D³ + D²q). XᵀX + λI is formed in the Gram's own buffer and
// factored there (linalg.Cholesky, L = Uᵀ), F overwrites the cross product
// (linalg.SolveUpperT), and FᵀF is linalg.Gram: one D×D matrix is alive,
// and the D³/3 and D²q flops run on the packed kernel on every core. With fewer rows than features it takes the
// N×N path (rowspace.go), O(D·N² + N³ + N²q), the exact equivalent of the
// push-through identity (XᵀX + λI)⁻¹Xᵀ = Xᵀ(XXᵀ + λI)⁻¹.
func computeRidgeHat(ctx context.Context, in Input, lambda float64, st stage) (*ridgeHat, error) {
	f, labels, lg, err := ridgeFactor(ctx, in, lambda, true, st.sub(0, 0.95, "ridge hat matrix"))
	if err != nil {
		return nil, err
	}
	zhz := mat.NewSymDense(len(labels.mean), nil)
	if err := linalg.Gram(ctx, f.RawMatrix(), nil, nil, zhz.RawSymmetric(), nil); err != nil {
		return nil, err
	}
	ztz := mat.NewSymDense(len(labels.mean), nil)
	ztz.ScaleSym(4, lg)
	return &ridgeHat{labels: labels, ztz: ztz, zhz: zhz}, nil
}

// ridgeFactor is computeRidgeHat up to F = L⁻¹XᵀZ (k×q, k = D, or N on
// the N×N path), with LLᵀ = XᵀX + λI, so that ZᵀĤZ = FᵀF; with labelGram
// it also gives YcᵀYc (q×q). rembrandt sketches F without forming FᵀF.
func ridgeFactor(ctx context.Context, in Input, lambda float64, labelGram bool, st stage) (*mat.Dense, labelSide, *mat.SymDense, error) {
	ones := in.ones()
	spec := statsSpec{gram: true, labels: ones, labelGram: labelGram}
	var s *stats
	var err error
	if useRowSpace(in) {
		// The N×N path (push-through): with Xᵀ = QR (X as given, not
		// centred), XᵀX + λI = Q(RRᵀ + λI)Qᵀ + λQ⊥Q⊥ᵀ and XᵀZ = Q·RZ, so
		// ZᵀĤZ = (RZ)ᵀ(RRᵀ + λI)⁻¹(RZ): the same computation on the rows
		// U = Rᵀ of X in the basis Q, whose statistics below are those of
		// X with Q applied (the means too).
		rs, _, err := in.rowSpace(ctx, false, nil, func([]float64) (*rowSpace, error) {
			if in.Sparse != nil {
				return newRowSpaceSparse(ctx, in.Sparse, nil, st.sub(0, 0.5, "row space"))
			}
			return newRowSpace(ctx, in.X, nil, st.sub(0, 0.5, "row space"))
		})
		if err != nil {
			return nil, labelSide{}, nil, err
		}
		s, err = computeStats(ctx, rs.coords, nil, spec, st.sub(0.5, 0.8, "XᵀX and XᵀZ"))
		if err != nil {
			return nil, labelSide{}, nil, err
		}
	} else if s, err = statsOf(ctx, in, spec, st.sub(0, 0.8, "XᵀX and XᵀZ")); err != nil {
		return nil, labelSide{}, nil, err
	}
	if err := st.checkpoint(ctx, 0.8); err != nil {
		return nil, labelSide{}, nil, err
	}
	// XᵀX + λI = XcᵀXc + N·μμᵀ + λI, formed and factored (UᵀU, upper) in
	// the statistics' own D×D buffer: the only D×D matrix alive.
	s.ownGramAndCross()
	g := s.gram.RawSymmetric()
	nf := float64(s.n)
	for i := range s.d {
		row := g.Data[i*g.Stride : i*g.Stride+s.d]
		mi := nf * s.mean[i]
		for j := i; j < s.d; j++ {
			row[j] += mi * s.mean[j]
		}
		row[i] += lambda
	}
	s.gram = nil
	if err := linalg.Cholesky(ctx, g); err != nil {
		return nil, labelSide{}, nil, choleskyError(ctx, err, ParamLambda, "XᵀX + λI")
	}
	if err := st.checkpoint(ctx, 0.95); err != nil {
		return nil, labelSide{}, nil, err
	}
	// F = L⁻¹XᵀZ = U⁻ᵀ(2·XcᵀY), in the cross product's buffer.
	f := s.cross
	f.Scale(2, f)
	u := blas64.Triangular{N: g.N, Stride: g.Stride, Data: g.Data, Uplo: blas.Upper, Diag: blas.NonUnit}
	if err := linalg.SolveUpperT(ctx, u, f.RawMatrix()); err != nil {
		return nil, labelSide{}, nil, err
	}
	return f, newLabelSide(ones, s.labelMean), s.labelGram, nil
}

// fitCPLST is CPLST (seed 001, §3.1, algorithm 1): the top-M eigenvectors
// of ZᵀĤZ (q×q) with the ridge hat matrix Ĥ = X(XᵀX + λI)⁻¹Xᵀ on X as
// given (λ default DefaultLambda, > 0; λ → 0 is the paper's linear
// regression), formed as in computeRidgeHat in O(N·D² + D³ + D²q), then
// decomposed in O(q³). These directions minimise the sum of the encoding
// and the prediction error of eq. (1) for linear regression (eq. 5–6).
// M ≤ the rank of ZᵀĤZ, at most min(D, q).
func fitCPLST(ctx context.Context, in Input, p Params, st stage) (*Model, error) {
	lambda, err := positive(ParamLambda, p.Lambda, DefaultLambda)
	if err != nil {
		return nil, err
	}
	p.Lambda = Float(lambda)
	h, err := computeRidgeHat(ctx, in, lambda, st.sub(0, 0.85, "ridge hat matrix"))
	if err != nil {
		return nil, err
	}
	e, ok, err := formedTop(ctx, in, h.zhz, p, st.sub(0.85, 0.95, krylovPhase))
	if err != nil {
		return nil, err
	}
	if !ok {
		if err := st.sub(0.85, 0.95, "eigen-decomposition").checkpoint(ctx, 0); err != nil {
			return nil, err
		}
		if e, err = symEigFor(ctx, h.zhz, p, true); err != nil {
			return nil, err
		}
	}
	return finishLabelModel(ctx, st.sub(0.95, 1, "codes"), "cplst", p, e, "rank of ZᵀĤZ", h.labels)
}

// fitOCCA is orthogonally constrained CCA (seed 001, §3, eq. 3–4): the
// top-M eigenvectors of Zᵀ(Ĥ − I)Z = ZᵀĤZ − ZᵀZ (q×q), with the same ridge
// hat matrix as cplst (λ default DefaultLambda, > 0; the paper's Ĥ = XX† is
// the limit λ → 0), at the same cost, O(N·D² + D³ + D²q + q³). These are the
// directions whose codes linear regression predicts best.
//
// The ridge hat matrix has eigenvalues in [0, 1), so every eigenvalue of
// Zᵀ(Ĥ − I)Z is ≤ 0 (minus the residual of predicting that direction);
// positive ones can only be rounding and are set to 0. An energy threshold
// has no meaning on such a spectrum, so occa takes d only: M defaults to q
// (every direction), Rank is q, and Energy is 0 (the package's energy counts
// positive eigenvalues only, and so does WithDim). Directions in the null
// space of Z (constant labels) have eigenvalue 0, the largest possible, and
// come first.
func fitOCCA(ctx context.Context, in Input, p Params, st stage) (*Model, error) {
	lambda, err := positive(ParamLambda, p.Lambda, DefaultLambda)
	if err != nil {
		return nil, err
	}
	p.Lambda = Float(lambda)
	h, err := computeRidgeHat(ctx, in, lambda, st.sub(0, 0.85, "ridge hat matrix"))
	if err != nil {
		return nil, err
	}
	if err := st.sub(0.85, 0.95, "eigen-decomposition").checkpoint(ctx, 0); err != nil {
		return nil, err
	}
	a := mat.NewSymDense(h.zhz.SymmetricDim(), nil)
	a.ScaleSym(-1, h.ztz)
	a.AddSym(h.zhz, a)
	need := p // without d, every direction (M defaults to q)
	if p.D == 0 {
		need.MaxDim = MaxDimAll
	}
	e, err := symEigFor(ctx, a, need, false) // ≤ 0: the trace is no positive sum
	if err != nil {
		return nil, err
	}
	for i, v := range e.values {
		e.values[i] = min(v, 0)
	}
	const what = "number of labels"
	q := len(h.labels.mean)
	dim := q
	var notes []string
	if p.D == 0 {
		notes = append(notes, fmt.Sprintf("occa has no energy threshold (its eigenvalues are ≤ 0), so M defaults to all %d directions", q))
	} else if dim, err = chooseDim("occa", e.values, q, what, p); err != nil {
		return nil, err
	}
	if err := st.checkpoint(ctx, 0.95); err != nil {
		return nil, err
	}
	m := newLabelModel("occa", p, e, dim, q, what, h.labels)
	m.Notes = notes
	return m, nil
}

// fitKCPLST is kernel-CPLST (seed 001, §3.2, eq. 8): the top-M
// eigenvectors of Zᵀ(2KQ − QKKQ)Z (q×q), with the N×N Gaussian kernel
// K_ij = exp(−γ‖xᵢ − xⱼ‖²) and Q = (λI + K)⁻¹, the matrix of kernel ridge
// regression with the same γ and λ. Because KQ = (λI + K − λI)Q = I − λQ,
// 2KQ − QKKQ = I − λ²Q², so the matrix is ZᵀZ − λ²(QZ)ᵀ(QZ): positive
// semidefinite, as λQ has eigenvalues in (0, 1].
//
// γ defaults to 1/(D·mean feature variance) (the "scale" rule; population
// variances; 1/D when every feature is constant), λ to DefaultLambda; both
// must be > 0. K + λI is formed in blocks of rows (O(N²D)) and factored in
// place by a blocked Cholesky (O(N³/3)), checking the context between
// blocks; QZ is one Cholesky solve (O(N²q)). Memory is one N×N matrix, so
// Fit refuses more than maxNKCPLST rows. M ≤ the rank of the matrix (q
// unless labels are constant or collinear, or rows repeat).
func fitKCPLST(ctx context.Context, in Input, p Params, st stage) (*Model, error) {
	lambda, err := positive(ParamLambda, p.Lambda, DefaultLambda)
	if err != nil {
		return nil, err
	}
	if p.Gamma != nil {
		if _, err := positive(ParamGamma, p.Gamma, 0); err != nil {
			return nil, err
		}
	}
	p.Lambda = Float(lambda)
	xc, sq := centredRows(in.X)
	var notes []string
	if p.Gamma == nil {
		n, d := in.X.Dims()
		total := 0.0
		for _, v := range sq {
			total += v
		}
		gamma := scaleGamma(n, d, total)
		p.Gamma = Float(gamma)
		notes = append(notes, fmt.Sprintf("gamma = %.6g, by the scale rule 1/(D·mean feature variance)", gamma))
	}
	a, err := kernelPlusRidge(ctx, xc, sq, *p.Gamma, lambda, st.sub(0, 0.15, "kernel matrix"))
	if err != nil {
		return nil, err
	}
	t, err := choleskyInPlace(ctx, a, st.sub(0.15, 0.95, "Cholesky factor of λI + K"))
	if err != nil {
		return nil, err
	}
	ones := in.ones()
	labels := newLabelSide(ones, labelMeans01(ones))
	z := labels.dense()
	w := mat.DenseCopyOf(z)
	lapack64.Potrs(t, w.RawMatrix()) // W = (λI + K)⁻¹Z = QZ
	if err := st.sub(0.95, 0.98, "eigen-decomposition").checkpoint(ctx, 0); err != nil {
		return nil, err
	}
	s := mat.NewSymDense(len(labels.mean), nil)
	blas64.Syrk(blas.Trans, 1, z.RawMatrix(), 0, s.RawSymmetric())
	blas64.Syrk(blas.Trans, -lambda*lambda, w.RawMatrix(), 1, s.RawSymmetric())
	e, err := symEigFor(ctx, s, p, true) // ZᵀZ − λ²(QZ)ᵀ(QZ) is semi-definite
	if err != nil {
		return nil, err
	}
	m, err := finishLabelModel(ctx, st.sub(0.98, 1, "codes"), "kcplst", p, e, "rank of Zᵀ(2KQ − QKKQ)Z", labels)
	if m != nil {
		m.Notes = notes
		m.dual = w
	}
	return m, err
}

// KernelCodes predicts the codes of new rows x with the kernel ridge
// regression kcplst's fit implies (seed 001, eq. 7, same γ and λ): with
// k(x) the kernel between x and the training rows,
// codes = k(x)ᵀ·(λI + K)⁻¹·Z·V_M, using the (λI + K)⁻¹Z the fit kept. train
// must be the rows the model was fitted on. Blocks of 256 rows of x are
// done at a time: O(rows·N) memory, O(|x|·N·(D + M)) time.
func (m *Model) KernelCodes(ctx context.Context, train, x *mat.Dense) (*mat.Dense, error) {
	if m.dual == nil {
		return nil, fmt.Errorf("analysis: %s has no kernel regressor", m.Method)
	}
	n, _ := train.Dims()
	if dn, _ := m.dual.Dims(); dn != n {
		return nil, fmt.Errorf("analysis: the model was fitted on %d rows, not %d", dn, n)
	}
	q, _ := x.Dims() // blocks refuses other features than train's
	var alpha mat.Dense
	alpha.Mul(m.dual, m.P()) // (λI + K)⁻¹·Z·V_M, N×M
	out := mat.NewDense(q, m.Dim, nil)
	err := Kernel{Kind: KernelRBF, Gamma: *m.Params.Gamma}.blocks(ctx, x, train, func(i0 int, kb *mat.Dense) error {
		rows, _ := kb.Dims()
		out.Slice(i0, i0+rows, 0, m.Dim).(*mat.Dense).Mul(kb, &alpha)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// scaleGamma is the rbf width of the scale rule, 1/(D·mean feature
// variance), from total = Σᵢ‖xᵢ − x̄‖² over the n rows of d features
// (total/(N·D) is the mean population variance): n/total, or 1/d when
// every feature is constant.
func scaleGamma(n, d int, total float64) float64 {
	if total > 0 {
		return float64(n) / total
	}
	return 1 / float64(d)
}

// centredBy returns x − 1·meanᵀ and the squared norms of its rows.
func centredBy(x *mat.Dense, mean []float64) (*mat.Dense, []float64) {
	n, d := x.Dims()
	c := mat.NewDense(n, d, nil)
	sq := make([]float64, n)
	for i := range n {
		for j := range d {
			v := x.At(i, j) - mean[j]
			c.Set(i, j, v)
			sq[i] += v * v
		}
	}
	return c, sq
}

// centredRows returns X with its column means removed (N×D, a copy) and
// the squared norms of its rows. Distances do not change with the shift,
// and ‖a‖² + ‖b‖² − 2aᵀb loses far less to cancellation on centred rows.
func centredRows(x *mat.Dense) (*mat.Dense, []float64) {
	n, d := x.Dims()
	mean := make([]float64, d)
	for i := range n {
		axpy(1, x.RawRowView(i), mean)
	}
	for j := range mean {
		mean[j] /= float64(n)
	}
	xc := mat.NewDense(n, d, nil)
	sq := make([]float64, n)
	for i := range n {
		src, dst := x.RawRowView(i), xc.RawRowView(i)
		for j, v := range src {
			dst[j] = v - mean[j]
			sq[i] += dst[j] * dst[j]
		}
	}
	return xc, sq
}

// kernelPlusRidge forms λI + K (N×N, upper triangle) with
// K_ij = exp(−γ‖xᵢ − xⱼ‖²) from the centred rows xc and their squared
// norms sq: each block of rows is one Gemm, −2·xc[block]·xc[i0:]ᵀ, to which
// the norms are added; rounding can leave a tiny negative distance, which
// is clamped to 0. The diagonal is exactly 1 + λ.
func kernelPlusRidge(ctx context.Context, xc *mat.Dense, sq []float64, gamma, lambda float64, st stage) (*mat.SymDense, error) {
	n, d := xc.Dims()
	a := mat.NewSymDense(n, nil)
	ar := a.RawSymmetric()
	xr := xc.RawMatrix()
	for i0 := 0; i0 < n; i0 += kernelBlock {
		rows := min(kernelBlock, n-i0)
		blk := blas64.General{Rows: rows, Cols: d, Stride: xr.Stride, Data: xr.Data[i0*xr.Stride:]}
		rest := blas64.General{Rows: n - i0, Cols: d, Stride: xr.Stride, Data: xr.Data[i0*xr.Stride:]}
		dst := blas64.General{Rows: rows, Cols: n - i0, Stride: ar.Stride, Data: ar.Data[i0*ar.Stride+i0:]}
		blas64.Gemm(blas.NoTrans, blas.Trans, -2, blk, rest, 0, dst)
		for r := range rows {
			i := i0 + r
			row := ar.Data[i*ar.Stride : (i+1)*ar.Stride]
			clear(row[i0:i]) // below the diagonal: not part of the upper triangle
			row[i] = 1 + lambda
			for j := i + 1; j < n; j++ {
				row[j] = math.Exp(-gamma * max(sq[i]+sq[j]+row[j], 0))
			}
		}
		left := float64(n-i0-rows) / float64(n)
		if err := st.checkpoint(ctx, 1-left*left); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// choleskyInPlace factors the positive definite a = UᵀU in place (upper
// triangle; a no longer holds its matrix afterwards), by blocks of
// kernelBlock columns, checking the context between blocks: a single
// LAPACK call at N = 8000 would run for seconds without a check, and
// mat.Cholesky would copy the N×N matrix twice. For each block,
// U₁₁ = chol(A₁₁), U₁₂ = U₁₁⁻ᵀA₁₂ and A₂₂ ← A₂₂ − U₁₂ᵀU₁₂.
func choleskyInPlace(ctx context.Context, a *mat.SymDense, st stage) (blas64.Triangular, error) {
	ar := a.RawSymmetric()
	n, s := ar.N, ar.Stride
	for k := 0; k < n; k += kernelBlock {
		nb := min(kernelBlock, n-k)
		diag := blas64.Symmetric{N: nb, Stride: s, Data: ar.Data[k*s+k:], Uplo: blas.Upper}
		u11, ok := lapack64.Potrf(diag)
		if !ok {
			return blas64.Triangular{}, unservable(ParamLambda, 0,
				"λI + K is not positive definite on these data; give a larger %s", ParamLambda)
		}
		if rest := n - k - nb; rest > 0 {
			u12 := blas64.General{Rows: nb, Cols: rest, Stride: s, Data: ar.Data[k*s+k+nb:]}
			blas64.Trsm(blas.Left, blas.Trans, 1, u11, u12)
			a22 := blas64.Symmetric{N: rest, Stride: s, Data: ar.Data[(k+nb)*s+k+nb:], Uplo: blas.Upper}
			blas64.Syrk(blas.Trans, -1, u12, 1, a22)
		}
		left := float64(n-k-nb) / float64(n)
		if err := st.checkpoint(ctx, 1-left*left*left); err != nil {
			return blas64.Triangular{}, err
		}
	}
	return blas64.Triangular{N: n, Stride: s, Data: ar.Data, Uplo: blas.Upper, Diag: blas.NonUnit}, nil
}

// labelModelMem is newLabelModel's codes (N×M) and the shift.
func labelModelMem(l *memoryLedger, id string, p Params, s Shape) {
	m := min(chosenDim(id, p, s), float64(s.Q))
	l.hold(float64(s.N)*m + m)
}

// memPLST: the ones of Y, then on the operator route (labelFreeRule) their
// CSR copy and the iteration's basis and blocks (the q side's, the larger), or else ZᵀZ (q×q, formed through two q×q
// buffers) and its decomposition; the codes.
func memPLST(p Params, s Shape) float64 {
	l := newLedger()
	q := float64(s.Q)
	l.labelRows(float64(s.N), labelOnes(s))
	if k, ok := labelFreeRule(s.N, s.Q, labelOnes(s), p, false); ok {
		l.hold(q)
		l.hold(1.5*labelOnes(s) + float64(s.N) + 1) // the ones in CSR form, 12 bytes each, a row pointer a row
		l.topOp(float64(s.N), q, float64(k))
	} else {
		l.hold(3*q*q + q)
		l.eig(q)
	}
	labelModelMem(l, "plst", p, s)
	return l.peak
}

// ridgeHatMem follows computeRidgeHat: the statistics of X (D×D, D×q, q×q)
// or on the N×N path the D×N reflectors and the statistics of the rows of
// X in its row space (N×N, N×q); XᵀX + λI is formed and factored in the
// Gram's buffer and F in the cross product's, so only linalg.Cholesky's
// and SolveUpperT's packed panels (two of 256 rows) come on top; then
// ZᵀĤZ (with linalg.Gram's accumulators) and ZᵀZ.
func ridgeHatMem(l *memoryLedger, s Shape) {
	q := float64(s.Q)
	k := ridgeFactorMem(l, s, true)
	q8 := math.Ceil(q/8) * 8
	l.hold(2 * q * q)
	l.burst(l.gang(k, 128) * (q8*q8 + 128*q8))
}

// ridgeFactorMem follows ridgeFactor up to F (with YcᵀYc when
// labelGram) and returns the order k of its statistics.
func ridgeFactorMem(l *memoryLedger, s Shape, labelGram bool) float64 {
	n, d, q := float64(s.N), float64(s.D), float64(s.Q)
	l.sparseFor(s, rowsFor(s))
	l.labelRows(n, labelOnes(s))
	k := d
	if rowsFor(s) {
		k = min(n, d)
		l.rowSpace(n, d)
	}
	l.stats(n, k, memSpec{gram: true, c: q, labelGram: labelGram})
	l.burst(2 * 256 * (k + 8))
	return k
}

// memCPLST: the ridge hat matrix (ridgeHatMem), the q×q decomposition, the
// codes.
func memCPLST(p Params, s Shape) float64 {
	l := newLedger()
	ridgeHatMem(l, s)
	l.eig(float64(s.Q))
	labelModelMem(l, "cplst", p, s)
	return l.peak
}

// memOCCA is cplst's with one more q×q matrix.
func memOCCA(p Params, s Shape) float64 {
	l := newLedger()
	ridgeHatMem(l, s)
	q := float64(s.Q)
	l.hold(q * q)
	l.eig(q)
	labelModelMem(l, "occa", p, s)
	return l.peak
}

// memKCPLST: centred X (N×D), the N×N kernel factored in place, Z and
// (λI + K)⁻¹Z (N×q each; the model keeps the latter), the q×q matrix and
// its decomposition, the codes.
func memKCPLST(p Params, s Shape) float64 {
	l := newLedger()
	n, d, q := float64(s.N), float64(s.D), float64(s.Q)
	l.hold(n*d + n + d)
	l.hold(n * n)
	l.labelRows(n, labelOnes(s))
	l.hold(2*n*q + q)
	l.hold(q * q)
	l.eig(q)
	labelModelMem(l, "kcplst", p, s)
	return l.peak
}
