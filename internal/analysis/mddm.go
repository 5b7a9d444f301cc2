package analysis

import (
	"context"
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/sparse"
)

// maxLabelsets bounds the distinct label sets of the RBF label kernel: its
// kernel matrix between them is decomposed in full.
const maxLabelsets = 2000

// fitMDDMp is MDDM with orthonormal projection directions (seed 000, eq.
// 3–4): the top-d eigenvectors of S = XᵀHLHX, L the label kernel.
//
//   - linear, l(y, y') = ⟨y, y'⟩: S = BBᵀ with B = XcᵀY (D×q), so P is the
//     top-d left singular vectors of B and the eigenvalues are σ²; no XᵀX
//     is formed, and B costs O(nnz(Y)·D).
//   - quadratic, l(y, y') = (⟨y, y'⟩ + 1)²: the kernel's feature map on 0/1
//     labels is √3·y_a and √2·y_a·y_b (a < b) (the constant vanishes in
//     HLH), so S = BBᵀ again, B = XcᵀΦ with q(q+1)/2 columns.
//   - rbf, l(y, y') = exp(−γ‖y − y'‖²), γ default 1/q: L depends on the
//     label sets only, so with E the N×G indicator of the G distinct label
//     sets and K their G×G kernel, S = (XcᵀE)K(XcᵀE)ᵀ; K = RRᵀ gives
//     S = FFᵀ, F = XcᵀE·R. G may be at most maxLabelsets.
//
// The D×c matrix B (c the kernel's columns) costs D·c memory and its SVD
// D·c² time; when N < D and N < c the N×N path (rowspace.go) is cheaper:
// B = Q·(UᵀΦ), with U (N×N) the rows of Xc in the basis Q, so only the N×c
// matrix UᵀΦ is formed. With the linear kernel on sparse features, when
// those dense matrices would exceed mddmpDenseBudget, S = XcᵀYcYcᵀXc is
// applied as an operator instead (the matrix-free route, sparse_op.go),
// forming none of them.
func fitMDDMp(ctx context.Context, in Input, p Params, st stage) (*Model, error) {
	kernel := p.LabelKernel
	if kernel == "" {
		kernel = KernelLinear
	}
	if p.Gamma != nil && kernel != KernelRBF {
		return nil, invalid(ParamGamma, "gamma is the width of the rbf label kernel; the %s kernel takes none", kernel)
	}
	y := in.ones()
	var labels *sparseRows
	var rbf *labelsetKernel
	switch kernel {
	case KernelLinear:
		labels = y
	case KernelQuadratic:
		if err := checkLabelKernel(kernel, y.cols, 0); err != nil {
			return nil, err
		}
		labels = quadraticRows(y)
	case KernelRBF:
		_, q := in.LabelDims()
		gamma, err := positive(ParamGamma, p.Gamma, 1/float64(q))
		if err != nil {
			return nil, err
		}
		p.Gamma = Float(gamma)
		if rbf, err = newLabelsetKernel(ctx, y, gamma); err != nil {
			return nil, err
		}
		labels = rbf.indicator
	default:
		return nil, invalid(ParamLabelKernel, "label_kernel must be %s, %s or %s, not %q", KernelLinear, KernelQuadratic, KernelRBF, p.LabelKernel)
	}
	p.LabelKernel = kernel
	if in.Sparse != nil && kernel == KernelLinear && in.route != routeGram && in.path != pathRows {
		n, d := in.dims()
		if k, ok := mddmpFreeRule(n, d, labels.cols, int64(in.Sparse.NNZ()), p, in.route == routeFree); ok {
			e, mean, ok, err := fitMatrixFree(ctx, in, k, labels, 0, 1, st.sub(0, 0.95, "XᵀHY"))
			if err != nil {
				return nil, err
			}
			if ok {
				e.order = min(e.order, labels.cols) // as the low-rank route's, of the c columns of XᵀHY
				return newFeatureModel("mddmp", p, e, rankOf(e.values), "rank of XᵀHY", mean, in.matrix())
			}
		}
	}
	s, err := featureStats(ctx, in, statsSpec{labels: labels}, lowRankRows(in, labels.cols), st.sub(0, 0.8, "XᵀHY"))
	if err != nil {
		return nil, err
	}
	if err := st.checkpoint(ctx, 0.8); err != nil {
		return nil, err
	}
	f := s.cross
	if rbf != nil {
		f = new(mat.Dense)
		f.Mul(s.cross, rbf.root)
	}
	e, err := lowRankEig(ctx, f, p)
	if err != nil {
		return nil, err
	}
	if e, err = s.up(ctx, e); err != nil {
		return nil, err
	}
	what := "rank of XᵀHY"
	if kernel != KernelLinear {
		what = "rank of XᵀHLHX"
	}
	return newFeatureModel("mddmp", p, e, rankOf(e.values), what, s.mean, in.matrix())
}

// mddmpDenseBudget is the most the low-rank route's dense matrices may
// take before mddmp with the linear kernel on sparse features is fitted
// matrix-free whatever the costs (on AmazonCat-13K's shape, 203 882
// features and 13 330 labels, F alone is 21.7 GB).
const mddmpDenseBudget = 1 << 30

// mddmpOpCost is mddmpFreeRule's cost of the matrix-free route in flops
// per non-zero of the features: some 6k vectors (the iteration's products
// for k pairs) times the four sparse products of each (Lc·u, Xcᵀ, Xc,
// Lcᵀ; about 4·nnz flops), times 4 for the sparse products' lower speed
// than the dense kernels', per pair asked for.
const mddmpOpCost = 6 * 4 * 4

// mddmpFreeRule reports whether mddmp with the linear kernel on n sparse
// rows of d features with nnz entries and c label columns takes the
// matrix-free route, and its k pairs: A = XcᵀLcLcᵀXc applied as an
// operator (covOp with alpha 0, gamma 1: the same matrix as FFᵀ, F =
// XcᵀHY), when the k pairs are iterated (iteratedTop) and k is within the
// rank's bound min(c, n − 1), and either the low-rank route's dense
// matrices — F (8·D·c), or on the N×N path (n < d and n < c) the D×N
// reflectors and N×c product — would exceed mddmpDenseBudget, or the
// operator's products (mddmpOpCost·k·nnz flops) are predicted cheaper than
// that route's Gram FᵀF and its iteration (D·c² + 3 000·c²). On a fold of
// EURLex-4K's shape (12 431 × 5 000, 3 993 labels, d = 100) the operator
// takes 1.5 s where the low-rank route took 5.7 s; with a few dozen labels
// the low-rank route's c×c matrices cost next to nothing and it stays.
// forced skips both tests.
func mddmpFreeRule(n, d, c int, nnz int64, p Params, forced bool) (int, bool) {
	k, ok := iteratedTop(p, d)
	if !ok || k > min(c, n-1) || nnz <= 0 {
		return 0, false
	}
	nf, df, cf := float64(n), float64(d), float64(c)
	dense := 8 * df * cf
	if n < d && n < c {
		dense = 8*df*nf + 8*nf*cf
	}
	formed := df*cf*cf + 3000*cf*cf
	op := mddmpOpCost * float64(k) * float64(nnz)
	return k, forced || dense > mddmpDenseBudget || op < formed
}

// quadraticRows is the feature map of the quadratic kernel (⟨y, y'⟩ + 1)²
// on 0/1 labels, without its constant: √3·y_a for each label, then
// √2·y_a·y_b for each pair a < b.
func quadraticRows(y *sparseRows) *sparseRows {
	q := y.cols
	pair := func(a, b int) int { return q + a*(2*q-a-1)/2 + (b - a - 1) }
	s := newSparse(y.rows, q+q*(q-1)/2)
	for i := range y.rows {
		idx, _ := y.row(i)
		for _, a := range idx {
			s.add(int(a), math.Sqrt(3))
		}
		for x, a := range idx {
			for _, b := range idx[x+1:] {
				s.add(pair(int(a), int(b)), math.Sqrt2)
			}
		}
		s.endRow()
	}
	return s
}

// labelsetKernel is the RBF label kernel over the distinct label sets.
type labelsetKernel struct {
	indicator *sparseRows // N×G: row i has a 1 at its label set
	root      *mat.Dense  // G×r with root·rootᵀ = the G×G kernel
}

func newLabelsetKernel(ctx context.Context, y *sparseRows, gamma float64) (*labelsetKernel, error) {
	group := make(map[string]int)
	var sets [][]int32
	ind := newSparse(y.rows, 0)
	var key strings.Builder
	for i := range y.rows {
		idx, _ := y.row(i)
		key.Reset()
		for _, j := range idx {
			fmt.Fprintf(&key, "%d,", j)
		}
		g, ok := group[key.String()]
		if !ok {
			g = len(sets)
			group[key.String()] = g
			sets = append(sets, idx)
			if len(sets) > maxLabelsets {
				return nil, unservable(ParamLabelKernel, 0, "the rbf label kernel is computed between the distinct label sets, "+
					"and these data have more than %d; it serves at most %d. Use the linear or quadratic kernel, or fewer labels",
					maxLabelsets, maxLabelsets)
			}
		}
		ind.add(g, 1)
		ind.endRow()
	}
	ind.cols = len(sets)
	G := len(sets)
	k := mat.NewSymDense(G, nil)
	for a := range G {
		for b := a; b < G; b++ {
			k.SetSym(a, b, math.Exp(-gamma*float64(sparse.SymmetricDifference(sets[a], sets[b]))))
		}
	}
	e, err := symEig(ctx, k)
	if err != nil {
		return nil, err
	}
	r := rankOf(e.values)
	root := mat.NewDense(G, r, nil)
	for c := range r {
		sq := math.Sqrt(e.values[c])
		for a := range G {
			root.Set(a, c, e.vectors.At(a, c)*sq)
		}
	}
	return &labelsetKernel{indicator: ind, root: root}, nil
}

// fitMDDMf is MDDM with orthonormal projected features (seed 004, eq.
// 19–20): S p = λ(βC + (1−β)I)p with S = BBᵀ, B = XcᵀY and C = XcᵀXc. With
// B̃ = L⁻¹B for βC + (1−β)I = LLᵀ, P = L⁻ᵀU from the left singular vectors U
// of B̃, so Pᵀ(βC + (1−β)I)P = I: uncorrelated projected features are the
// method's definition, so it keeps this normalisation always and takes no
// normalize parameter. β = 0 is mddmp. The right-hand matrix is
// D×D, so with fewer rows than features the N×N path (rowspace.go) solves
// it: (βRRᵀ + (1−β)I)·, exactly.
func fitMDDMf(ctx context.Context, in Input, p Params, st stage) (*Model, error) {
	if p.Beta != nil && *p.Beta == 1 {
		return nil, invalid(ParamBeta, "beta = 1 makes the right-hand matrix XcᵀXc, which is singular whenever features are collinear "+
			"or outnumber the rows; mddmf takes beta in [0, 1)")
	}
	beta, err := p.beta(1, true)
	if err != nil {
		return nil, err
	}
	p.Beta = Float(beta)
	s, err := featureStats(ctx, in, statsSpec{gram: beta > 0, labels: in.ones()}, useRowSpace(in), st.sub(0, 0.7, "XᵀX and XᵀHY"))
	if err != nil {
		return nil, err
	}
	if err := st.checkpoint(ctx, 0.7); err != nil {
		return nil, err
	}
	right := mat.NewSymDense(s.d, nil)
	if beta > 0 {
		right.ScaleSym(beta, s.gram)
	}
	addDiag(right, 1-beta)
	l, err := cholesky(right, ParamBeta, "βXcᵀXc + (1−β)I")
	if err != nil {
		return nil, err
	}
	e, err := lowRankGenEig(ctx, s.cross, l, p)
	if err != nil {
		return nil, err
	}
	if e, err = s.up(ctx, e); err != nil {
		return nil, err
	}
	return newFeatureModel("mddmf", p, e, rankOf(e.values), "rank of XᵀHY", s.mean, in.matrix())
}

// memMDDMp: the label kernel's sparse columns — q (linear), q(q+1)/2
// (quadratic; at most Σ|y_i|(|y_i|+1)/2 ones) or the G label sets (rbf:
// their G×G kernel and its decomposition) — then XcᵀΦ (D×c) and its thin
// SVD, or on the N×N path (N < D, N < c) the D×N reflectors and UᵀΦ (N×c).
func memMDDMp(p Params, s Shape) float64 {
	n, q := float64(s.N), float64(s.Q)
	ones := labelOnes(s)
	c, nnz := q, ones
	extra := 0.0
	switch p.LabelKernel {
	case KernelQuadratic:
		c = q * (q + 1) / 2
		nnz = min(n*c, ones*(q+1)/2)
		extra = 4.5*ones + n // y, besides Φ
	case KernelRBF:
		g := labelSetsOf(s)
		c, nnz = g, n
		// y, the map of label-set keys, the G×G kernel, its decomposition
		// and root.
		extra = 4.5*ones + n + g*(ones/n+8) + 8*g*g + 64*g
	}
	if s.NNZ > 0 && (p.LabelKernel == "" || p.LabelKernel == KernelLinear) {
		if k, ok := mddmpFreeRule(s.N, s.D, s.Q, s.NNZ, p, false); ok {
			l := newLedger()
			l.memFree(n, float64(s.D), float64(k), q, chooseSide(s.N, s.D, s.Q, 0))
			l.featureModel(n, float64(s.D), min(chosenDim("mddmp", p, s), float64(k)))
			return nnzPlus(s, nnz, l.peak)
		}
	}
	rows := rowsFor(s) && n < c
	peak := featureFit("mddmp", p, s, rows, memSpec{c: c}, func(l *memoryLedger, k float64) float64 {
		if p.LabelKernel == KernelRBF {
			l.hold(k * c) // F = XcᵀE·R
		}
		l.lowRank(k, c)
		return min(k, c)
	})
	return nnzPlus(s, nnz, peak) + extra
}

// labelSetsOf is G: s.LabelSets, or min(N, 2^q) when unknown, and at most
// one more than the rbf kernel accepts (the fit stops there).
func labelSetsOf(s Shape) float64 {
	g := float64(s.LabelSets)
	if g <= 0 {
		g = min(float64(s.N), math.Pow(2, float64(s.Q)))
	}
	return min(g, maxLabelsets+1)
}

// memMDDMf: C (when β > 0) and B (D×D, D×q; or N×N-path forms), the
// right-hand matrix, its Cholesky factor, and the low-rank generalised
// problem on B.
func memMDDMf(p Params, s Shape) float64 {
	_, nnz := labelColumns(s)
	q := float64(s.Q)
	gram := p.Beta == nil || *p.Beta > 0
	return nnzPlus(s, nnz, featureFit("mddmf", p, s, rowsFor(s), memSpec{gram: gram, c: q}, func(l *memoryLedger, k float64) float64 {
		l.hold(k * k)
		l.chol(k)
		l.hold(k * q)
		l.lowRank(k, q)
		return min(k, q)
	}))
}
