package analysis

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/linalg"
	"mldr/internal/sparse"
)

// Space says what a method projects.
type Space string

const (
	// FeatureSpace methods project the features: P is D×d.
	FeatureSpace Space = "feature"
	// LabelSpace methods project the labels: P is q×M (the rows of V as
	// columns), and codes t = Vz are learned from the features.
	LabelSpace Space = "label"
)

// rankTol is the relative size below which an eigenvalue counts as zero:
// λ ≤ rankTol·λ₁ does not add to the rank.
const rankTol = 1e-10

// Model is a fitted reduction.
type Model struct {
	// Method is the method's id.
	Method string
	Space  Space
	// Params are the parameters used, defaults filled in.
	Params Params
	// Basis holds every direction computed, best first, as columns: D×r
	// for feature-space methods, q×r for label-space ones. P is its first
	// Dim columns. It is nil for mds, which has no projection.
	Basis *mat.Dense
	// Means are the centring means: of the D features, or, for label-space
	// methods, of the q coded labels (see LabelCoding).
	Means []float64
	// Eigenvalues are those of the method's matrix, descending. For
	// low-rank methods (at most r non-zero eigenvalues) only the first r
	// are given; the rest are zero. When only the leading eigenpairs were
	// computed (Order > len(Eigenvalues)), only those. With Blocks, every
	// block's eigenvalues sorted together (each block's own are in
	// Block.Values).
	Eigenvalues []float64
	// Order is how many eigenvalues the method's matrix has when only the
	// leading ones were computed, Eigenvalues holding the first
	// len(Eigenvalues) of them; otherwise it is len(Eigenvalues), which
	// then holds every eigenvalue that is not exactly zero.
	Order int
	// Total is the sum of the positive eigenvalues of the method's matrix,
	// of which Energy and thr take shares: when Order > len(Eigenvalues),
	// the trace of the matrix (positive semi-definite by construction, so
	// the two agree up to rounding); otherwise their sum.
	Total float64
	// Rank is the largest dimension the method can give on these data;
	// RankOf says of what. With RankAtLeast it is only a lower bound: only
	// the leading Order > len(Eigenvalues) eigenvalues were computed and
	// every one counts, so the rank is at least that many.
	Rank        int
	RankOf      string
	RankAtLeast bool `json:",omitempty"`
	// Residuals, when the pairs came from an operator route (the
	// matrix-free route, plst's label-Gram operator, cplst's iteration on
	// its formed matrix), are ‖A·v_i − λ_i·v_i‖₂ / ‖A‖₂ of each computed
	// pair (‖A‖₂ = λ₁, the matrices being positive semi-definite), measured
	// with one more product after the iteration; nil from the direct
	// routes.
	Residuals []float64 `json:",omitempty"`
	// Dim is the chosen dimension d (or M) and Energy the fraction of the
	// positive eigenvalues' sum (Total) that the first Dim keep.
	Dim    int
	Energy float64
	// Projected holds the training rows projected (N×Dim): (X − means)·P
	// for feature-space methods, the codes for label-space ones, the
	// embedding for mds.
	Projected *mat.Dense
	// LabelCoding, for label-space methods, is how labels are coded before
	// centring: "pm1" (0/1 → −1/+1, as the CPLST authors' code does).
	LabelCoding string `json:",omitempty"`
	// Blocks, for lda with several class variables (or labels), says which
	// columns of P belong to which variable; then Basis is P itself.
	Blocks []Block `json:",omitempty"`
	// Notes tell what the fit did that a user should know.
	Notes []string `json:",omitempty"`
	// Kernel, for the kernel methods (kpca, kmddm), is the kernel and the
	// basis rows that Basis (the dual coefficients α, B×r) and Means (k̄,
	// the column means of the training rows' kernel with the basis rows)
	// belong to: a row x projects to (k(x) − Means)·P. nil for the others.
	Kernel *KernelBasis `json:",omitempty"`
	// Stress, for metric and nonmetric mds, is how well the embedding
	// keeps the rows' distances; nil for the others.
	Stress *Stress `json:",omitempty"`

	embedding *mat.Dense // mds: every embedding coordinate computed
	dual      *mat.Dense // kcplst: (λI + K)⁻¹Z, N×q, for KernelCodes
	// The label-space methods whose decoding is not Basis itself
	// (lsbase.go): decoder (q×r) reconstructs the codes, t·decoderᵀ
	// (mlcssp, faie); implicit (N×r) are faie's codes of the fit rows,
	// which no encoding of their labels gives; regressor (D×r) and
	// regressorMeans are leml's own linear regressor, (x − μ)·W.
	decoder, implicit, regressor *mat.Dense
	regressorMeans               []float64
	// seed is SeedDim of the method and the data fitted, which Choose
	// applies as Fit does.
	seed int
}

// seedDim records that the fit's data give the method seed 003's
// dimension seed (SeedDim), and notes it when the fit took it (seed > 0;
// classes are the data's).
func (m *Model) seedDim(seed int, classes []int) {
	m.seed = SeedDim(m.Method, classes)
	if seed > 0 {
		m.Notes = append(m.Notes, seedNote(m, seed, classes))
	}
}

// Block is the part of P that one class variable's LDA gave.
type Block struct {
	Variable int // class variable (or label) index
	Start    int // first column of P
	Dim      int // columns
	// Values are this variable's eigenvalues, descending.
	Values []float64
}

// Computed is how many eigenvalues of the method's matrix the model holds:
// len(Eigenvalues), fewer than Order when only the leading ones were
// computed.
func (m *Model) Computed() int { return len(m.Eigenvalues) }

// Directions is how many directions the model holds: the columns of Basis
// (for mds, of its embedding). WithDim gives at most that many.
func (m *Model) Directions() int {
	switch {
	case m.Basis != nil:
		_, c := m.Basis.Dims()
		return c
	case m.embedding != nil:
		_, c := m.embedding.Dims()
		return c
	}
	return m.Dim
}

// P returns the projection: the first Dim columns of Basis (D×Dim, or
// q×Dim), or nil for mds. For faie, whose Basis is its decoder, it is the
// least-squares encoder of the first Dim columns (Decoding).
func (m *Model) P() *mat.Dense {
	if m.Basis == nil {
		return nil
	}
	if m.implicit != nil {
		return leastSquaresEncoder(m.Decoding())
	}
	r, _ := m.Basis.Dims()
	return mat.DenseCopyOf(m.Basis.Slice(0, r, 0, m.Dim))
}

// WithDim returns the model cut to d directions, with Energy for d and
// without Projected (use Transform). It is how one fit serves a curve
// over d.
func (m *Model) WithDim(d int) (*Model, error) {
	if d < 1 || (d > m.Rank && !m.RankAtLeast) {
		return nil, unservable(ParamD, m.Rank, "d = %d is outside 1…%d, the %s", d, m.Rank, m.RankOf)
	}
	if len(m.Blocks) > 0 {
		return nil, invalid(ParamD, "%s on multi-dimensional data has one block per class variable; refit it with another d", m.Method)
	}
	if m.Stress != nil && d != m.Dim {
		return nil, invalid(ParamD, "d = %d: the coordinates of %s mds are not nested, so this fit at d = %d gives no other d; fit it again with d = %d",
			d, m.Params.mdsKind(), m.Dim, d)
	}
	if k := m.Directions(); d > k {
		return nil, invalid(ParamD, "d = %d: this fit of %s computed only its %d leading directions; fit it again with d = %d", d, m.Method, k, d)
	}
	c := *m
	c.Dim = d
	c.Energy = energyOf(m.Eigenvalues, d, m.Total)
	c.Projected = nil
	if m.embedding != nil {
		r, _ := m.embedding.Dims()
		c.Projected = mat.DenseCopyOf(m.embedding.Slice(0, r, 0, d))
	}
	return &c, nil
}

// Transform projects new rows: (x − Means)·P. For label-space methods the
// rows are labels (0/1), coded as in training, and the result their codes.
// Feature rows may be a *sparse.CSR (projected without densifying). A
// kernel model (Kernel set) projects (k(x) − Means)·P, k(x) the kernel
// with its basis rows (KernelBasis.Project).
func (m *Model) Transform(x mat.Matrix) (*mat.Dense, error) {
	if m.Basis == nil {
		return nil, ErrTransductive
	}
	if m.Kernel != nil {
		return m.Kernel.Project(x, m.Means, m.P())
	}
	_, c := x.Dims()
	if want, _ := m.Basis.Dims(); c != want {
		return nil, invalid("", "the rows to project have %d columns; the model was fitted on %d", c, want)
	}
	if m.Space == LabelSpace {
		if sx, ok := x.(*sparse.CSR); ok && m.LabelCoding == "pm1" {
			n, q := sx.Dims()
			if int64(n)*int64(q) > codeDenseCells {
				return m.projectSparseCodes(sx), nil
			}
			// The ±1 codes of sparse labels are dense: they are formed
			// codeBlock rows at a time, each block projected as dense
			// labels are (the same numbers, row for row).
			out := mat.NewDense(n, m.Dim, nil)
			for i0 := 0; i0 < n; i0 += codeBlock {
				i1 := min(n, i0+codeBlock)
				z := Project(codeLabels(sx.RowRange(i0, i1).Dense(), m.LabelCoding), m.Means, m.P())
				for i := range i1 - i0 {
					out.SetRow(i0+i, z.RawRowView(i))
				}
			}
			return out, nil
		}
		return Project(codeLabels(x, m.LabelCoding), m.Means, m.P()), nil
	}
	return Project(x, m.Means, m.P()), nil
}

// codeBlock is how many rows of sparse labels Transform codes at a time.
const codeBlock = 256

// codeDenseCells is the most N·q cells of sparse labels whose ±1 codes
// Transform forms (a block at a time), for the dense route's numbers to
// the last bit. Beyond, it projects them from the sparse product
// (projectSparseCodes), O(nnz·d) instead of O(N·q·d): a plst job on
// AmazonCat-13K's 1 186 239 rows of 13 330 labels spent 2 minutes coding
// them, its fit 10 s.
const codeDenseCells = 1 << 27

// projectSparseCodes is (2Y − 1 − 1μᵀ)·P for the sparse 0/1 labels y,
// never forming the dense codes: Y·2P − 1·((1 + μ)ᵀP). It equals the
// coded route to rounding (TestProjectSparseCodes).
func (m *Model) projectSparseCodes(y *sparse.CSR) *mat.Dense {
	shift := make([]float64, len(m.Means))
	for j, v := range m.Means {
		shift[j] = (1 + v) / 2
	}
	var p2 mat.Dense
	p2.Scale(2, m.P())
	return Project(y, shift, &p2)
}

// Decode maps label-space scores (N×Dim, e.g. a regressor's predicted
// codes) back to 0/1 labels: round-based decoding h = round(Vᵀr + ȳ), for
// ±1 coding the sign with 0 counted as −1, with Decoding in the place of
// Vᵀ.
func (m *Model) Decode(scores mat.Matrix) (*mat.Dense, error) {
	if m.Space != LabelSpace {
		return nil, fmt.Errorf("analysis: %s is not a label-space method", m.Method)
	}
	if _, c := scores.Dims(); c != m.Dim {
		return nil, invalid("", "got %d scores per row, want %d", c, m.Dim)
	}
	return m.Decide(m.LabelScores(scores)), nil
}

// LabelScores are a label-space model's label scores of codes r (N×Dim):
// r·Decodingᵀ + ȳ (N×q), which Decide turns into labels.
func (m *Model) LabelScores(codes mat.Matrix) *mat.Dense {
	var rec mat.Dense
	rec.Mul(codes, m.Decoding().T())
	n, _ := rec.Dims()
	for i := range n {
		row := rec.RawRowView(i)
		for j, mu := range m.Means {
			row[j] += mu
		}
	}
	return &rec
}

// Decide maps a label-space model's label scores Vᵀr + ȳ (N×q, as Decode
// forms them from the codes r) to 0/1 labels: 1 above 0.5, or for ±1
// coding above 0. A caller that keeps the scores decides from them
// instead of decoding the codes a second time.
func (m *Model) Decide(scores *mat.Dense) *mat.Dense {
	n, q := scores.Dims()
	out := mat.NewDense(n, q, nil)
	cut := 0.5
	if m.LabelCoding == "pm1" {
		cut = 0
	}
	for i := range n {
		for j, v := range scores.RawRowView(i) {
			if v > cut {
				out.Set(i, j, 1)
			}
		}
	}
	return out
}

// codeLabels codes 0/1 labels: "pm1" maps them to −1/+1.
func codeLabels(y mat.Matrix, coding string) mat.Matrix {
	if coding != "pm1" {
		return y
	}
	var c mat.Dense
	c.Apply(func(_, _ int, v float64) float64 { return 2*v - 1 }, y)
	return &c
}

// Project computes (x − 1·meanᵀ)·p without forming the centred x: x·p −
// 1·(pᵀmean)ᵀ. Models project with it; so must anything that applies a
// stored projection, to give the same numbers to the last bit. x may be a
// *sparse.CSR: then x·p is the sparse product (sparse.Mul), never
// densifying x.
func Project(x mat.Matrix, mean []float64, p *mat.Dense) *mat.Dense {
	n, _ := x.Dims()
	_, c := p.Dims()
	out := mat.NewDense(n, c, nil)
	var err error
	if sx, ok := x.(*sparse.CSR); ok {
		err = sparse.Mul(context.Background(), sx, p.RawMatrix(), out.RawMatrix()) // no context to stop: no error but shapes
	} else {
		rx, ok := x.(mat.RawMatrixer)
		if !ok {
			rx = mat.DenseCopyOf(x)
		}
		err = linalg.Mul(rx.RawMatrix(), p.RawMatrix(), out.RawMatrix())
	}
	if err != nil {
		panic(err) // the shapes are the caller's: a mismatch is a bug, as in mat.Dense.Mul
	}
	var shift mat.VecDense
	shift.MulVec(p.T(), mat.NewVecDense(len(mean), mean))
	for i := range n {
		row := out.RawRowView(i)
		for j := range row {
			row[j] -= shift.AtVec(j)
		}
	}
	return out
}

// rankOf counts the eigenvalues above rankTol·λ₁ (positive ones only).
func rankOf(vals []float64) int {
	if len(vals) == 0 || vals[0] <= 0 {
		return 0
	}
	r := 0
	for _, v := range vals {
		if v > rankTol*vals[0] {
			r++
		}
	}
	return r
}

// rankAtLeast reports whether rank, counted by rankOf on a partial
// spectrum e, is only a lower bound: every computed eigenvalue counts, and
// the trace leaves more than rankTol·λ₁ to the others (when it leaves
// less, they are zero and the rank is exact).
func rankAtLeast(e eigenResult, rank int) bool {
	return e.partial() && rank >= len(e.values) && e.total-positiveSum(e.values) > rankTol*e.values[0]
}

// energyOf is the fraction of total, the positive eigenvalues' sum, that
// the first d of vals keep.
func energyOf(vals []float64, d int, total float64) float64 {
	if total <= 0 {
		return 0
	}
	kept := 0.0
	for _, v := range vals[:min(d, len(vals))] {
		if v > 0 {
			kept += v
		}
	}
	return min(kept/total, 1)
}

// energy is the fraction of the positive eigenvalues' sum the first d
// keep, all of them being in vals.
func energy(vals []float64, d int) float64 {
	return energyOf(vals, d, positiveSum(vals))
}

// chooseDim picks d: p.D, checked against limit, or the smallest d whose
// eigenvalues keep p.Thr of the positive sum (MDDM's rule, seed 000), the
// whole spectrum being in vals; or, with MaxDim alone, MaxDim up to limit.
func chooseDim(method string, vals []float64, limit int, what string, p Params) (int, error) {
	return chooseDimOf(method, vals, positiveSum(vals), false, limit, what, p)
}

// chooseDimOf is chooseDim on vals whose positive sum is total; partial
// says vals are only the leading eigenvalues, and thr then refuses a d
// beyond them (the caller fits again).
func chooseDimOf(method string, vals []float64, total float64, partial bool, limit int, what string, p Params) (int, error) {
	if limit < 1 {
		return 0, unservable("", 0, "%s gives no direction on these data: the %s is 0", method, what)
	}
	if p.D > 0 {
		if p.D > limit {
			return 0, unservable(ParamD, limit, "d = %d exceeds the %s, %d: the largest d %s can give on these data is %d",
				p.D, what, limit, method, limit)
		}
		return p.D, nil
	}
	thr := p.Thr
	if thr == 0 {
		if p.MaxDim > 0 {
			return min(p.MaxDim, limit), nil
		}
		thr = DefaultThr
	}
	if total <= 0 {
		return 0, unservable(ParamThr, 0, "%s has no positive eigenvalue on these data, so thr cannot choose d; give d", method)
	}
	kept := 0.0
	for i, v := range vals[:min(limit, len(vals))] {
		if v > 0 {
			kept += v
		}
		if kept >= thr*total*(1-1e-12) {
			return i + 1, nil
		}
	}
	if partial {
		return 0, invalid(ParamThr, "the %d eigenvalues of %s computed keep %.4g of the total, less than thr = %v; fit it again with this thr",
			len(vals), method, kept/total, thr)
	}
	return limit, nil
}

// newFeatureModel assembles a feature-space model from a decomposition:
// it chooses d, and projects the training rows. limit is the rank
// (rankOf(e.values), or a method's own bound).
func newFeatureModel(id string, p Params, e eigenResult, limit int, what string, mean []float64, x mat.Matrix) (*Model, error) {
	total := e.positiveSum()
	d, err := chooseDimOf(id, e.values, total, e.partial(), limit, what, p)
	if err != nil {
		return nil, err
	}
	m := &Model{Method: id, Space: FeatureSpace, Params: p, Basis: e.vectors, Means: mean,
		Eigenvalues: e.values, Order: max(e.order, len(e.values)), Total: total,
		Rank: limit, RankOf: what, RankAtLeast: rankAtLeast(e, limit), Dim: d, Energy: energyOf(e.values, d, total), Residuals: e.residuals}
	m.Projected = Project(x, mean, m.P())
	return m, nil
}

// Choose returns the model cut to the d that p selects — p.D, or p.Thr's
// rule, or the method's default (SeedDim on multi-dimensional data for the
// methods it concerns) — on this decomposition, as Fit would have chosen
// it. It is how a cached decomposition serves another d or thr.
func (m *Model) Choose(p Params) (*Model, error) {
	if p.D == 0 && p.Thr == 0 && p.MaxDim == 0 && m.seed > 0 { // seed 003's d′, as Fit
		p.MaxDim = m.seed
	}
	if sizedByDim(m.Method) && (p.D != m.Dim || p.Thr != 0) {
		return nil, invalid(ParamD, "%s's model depends on its M (a sample, a sketch or a rank of that size): fit it again for another M", m.Method)
	}
	d := p.D
	if d == 0 {
		if m.Method == "occa" && p.Thr == 0 { // occa's default: every direction
			d = m.Rank
		} else {
			var err error
			partial := m.Order > len(m.Eigenvalues)
			if d, err = chooseDimOf(m.Method, m.Eigenvalues, m.Total, partial, m.Rank, m.RankOf, p); err != nil {
				return nil, err
			}
		}
	}
	return m.WithDim(d)
}
