package analysis

import (
	"context"
	"errors"
	"math"
	"runtime"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"mldr/internal/linalg"
)

// eigenResult is a decomposition: values descending, and the matching
// directions as the columns of vectors (as many as values, or fewer when
// only the leading directions were computed).
//
// order and total describe a partial spectrum: when only the leading
// eigenvalues of a matrix of order n were computed, order is n and total
// its trace, which for a positive semi-definite matrix is the sum of its
// positive eigenvalues up to rounding. When every eigenvalue that is not
// exactly zero was computed, order is 0 and the totals come from values.
type eigenResult struct {
	values  []float64
	vectors *mat.Dense
	order   int
	total   float64
	// residuals are Model.Residuals, from the operator routes; nil from
	// the others.
	residuals []float64
}

// partial reports whether eigenvalues beyond values were left uncomputed.
func (e eigenResult) partial() bool { return e.order > len(e.values) }

// positiveSum is what Energy and thr take shares of: the sum of the
// positive eigenvalues, or for a partial spectrum the trace.
func (e eigenResult) positiveSum() float64 {
	if e.partial() {
		return e.total
	}
	return positiveSum(e.values)
}

// topMinSaving is how much smaller than the order the number of pairs
// asked for must be for the top-d solvers: at k ≥ n/2 the direct method's
// vectors for every pair cost little more than those for k (and the
// openblas build's dsyevd is faster than the pure-Go top-d methods).
const topMinSaving = 2

// need is what a fit needs of a symmetric decomposition, from its
// parameters: every pair, the k leading ones, or enough for thr.
type need struct {
	all bool
	k   int     // leading pairs needed (with thr: at least these vectors)
	thr float64 // choose d by this share of the positive sum; 0: by k
}

// needOf reads p: MaxDimAll needs everything; D needs max(D, MaxDim)
// pairs; Thr (given, or the default when neither D nor MaxDim is) needs
// the whole spectrum and the vectors its d and MaxDim ask; MaxDim alone
// needs MaxDim pairs.
func needOf(p Params) need {
	switch {
	case p.MaxDim == MaxDimAll:
		return need{all: true}
	case p.D > 0:
		return need{k: max(p.D, p.MaxDim)}
	case p.Thr > 0:
		return need{k: p.MaxDim, thr: p.Thr}
	case p.MaxDim > 0:
		return need{k: p.MaxDim}
	}
	return need{thr: DefaultThr}
}

// symEigFor decomposes the symmetric a for a fit with parameters p, and
// computes only what p needs when that costs less (needOf):
//
//   - every pair (linalg.SymEig) for MaxDimAll, or when the pairs needed
//     are not fewer than half the order;
//   - k known (d, or a caller's MaxDim) on a matrix positive semi-definite
//     by construction (psd): the k leading pairs by linalg.SymEigTop
//     (block Krylov–Schur, or its direct method when that is predicted
//     cheaper), a partial spectrum whose total is the trace of a;
//   - k known on a matrix that may be indefinite: linalg.SymEigSelect,
//     every eigenvalue (so Energy and the rank are the full solver's) and
//     the k leading vectors;
//   - thr: linalg.SymEigSelect, choosing d from every eigenvalue by thr
//     exactly as chooseDim does, and the vectors of max(d, MaxDim).
//
// A thr on a partial spectrum would need the trace to stand for the sum
// of the positive eigenvalues, which only holds for semi-definite matrices,
// so thr always sees every eigenvalue here; the trace serves Energy of a
// partial spectrum, and Model.Choose for a cached one.
func symEigFor(ctx context.Context, a mat.Symmetric, p Params, psd bool) (eigenResult, error) {
	n := a.SymmetricDim()
	w := needOf(p)
	k := min(w.k, n)
	if w.all || (w.thr == 0 && topMinSaving*k >= n) {
		return symEig(ctx, a)
	}
	fail := func(err error) (eigenResult, error) {
		if ctx.Err() != nil {
			return eigenResult{}, ctx.Err()
		}
		return eigenResult{}, invalid("", "the eigen-decomposition failed: %v", err)
	}
	if w.thr == 0 && psd {
		vals, v, err := linalg.SymEigTop(ctx, a, k)
		if err != nil {
			return fail(err)
		}
		return eigenResult{values: vals, vectors: v, order: n, total: trace(a)}, nil
	}
	choose := func(vals []float64) int { return max(k, 1) }
	if w.thr > 0 {
		choose = func(vals []float64) int { return min(max(thrDim(vals, w.thr), k, 1), n) }
	}
	vals, v, err := linalg.SymEigSelect(ctx, a, choose)
	if err != nil {
		return fail(err)
	}
	return eigenResult{values: vals, vectors: v}, nil
}

// thrDim is the d that thr chooses on a whole spectrum, as chooseDim does
// with the rank as the limit: the smallest d whose positive eigenvalues
// keep thr of their sum; 1 when no eigenvalue is positive (chooseDim then
// refuses).
func thrDim(vals []float64, thr float64) int {
	total := positiveSum(vals)
	if total == 0 {
		return 1
	}
	kept := 0.0
	limit := rankOf(vals)
	for i, v := range vals[:limit] {
		if v > 0 {
			kept += v
		}
		if kept >= thr*total*(1-1e-12) {
			return i + 1
		}
	}
	return max(limit, 1)
}

// trace is the sum of the diagonal of a.
func trace(a mat.Symmetric) float64 {
	t := 0.0
	for i := range a.SymmetricDim() {
		t += a.At(i, i)
	}
	return t
}

// positiveSum is the sum of the positive values.
func positiveSum(vals []float64) float64 {
	s := 0.0
	for _, v := range vals {
		if v > 0 {
			s += v
		}
	}
	return s
}

// symEig decomposes a symmetric matrix: all eigenvalues, descending, and
// orthonormal eigenvectors (VᵀV = I) with the sign convention, by
// linalg.SymEig (divide and conquer; LAPACK's dsyevd in an openblas build).
func symEig(ctx context.Context, a mat.Symmetric) (eigenResult, error) {
	vals, v, err := linalg.SymEig(ctx, a)
	if err != nil {
		if ctx.Err() != nil {
			return eigenResult{}, ctx.Err()
		}
		return eigenResult{}, invalid("", "the eigen-decomposition failed: %v", err)
	}
	return eigenResult{values: vals, vectors: v}, nil
}

// fixSigns makes the entry of largest magnitude of every column positive
// (the first such entry on a tie), so that results are reproducible.
func fixSigns(v *mat.Dense) { flipColumns(v) }

// flipColumns makes the entry of largest magnitude of every column of
// basis positive (the first such entry on a tie) and flips the same
// columns of others (codes or decoders that go with the directions); it
// reports which columns it negated.
func flipColumns(basis *mat.Dense, others ...*mat.Dense) []bool {
	r, c := basis.Dims()
	flips := make([]bool, c)
	for k := range c {
		best, at := -1.0, 0
		for i := range r {
			if a := math.Abs(basis.At(i, k)); a > best {
				best, at = a, i
			}
		}
		if basis.At(at, k) >= 0 {
			continue
		}
		flips[k] = true
		for _, m := range append([]*mat.Dense{basis}, others...) {
			rm, _ := m.Dims()
			for i := range rm {
				m.Set(i, k, -m.At(i, k))
			}
		}
	}
	return flips
}

// cholesky factors a symmetric positive definite B = LLᵀ; param names the
// parameter that makes B definite, for the error when it is not.
func cholesky(b mat.Symmetric, param, what string) (*mat.TriDense, error) {
	var ch mat.Cholesky
	if !ch.Factorize(b) {
		return nil, notDefinite(param, what)
	}
	var l mat.TriDense
	ch.LTo(&l)
	return &l, nil
}

// notDefinite is the error of a right-hand matrix what that is not positive
// definite; param is the parameter that makes it definite.
func notDefinite(param, what string) error {
	return unservable(param, 0, "%s is not positive definite on these data; give a larger %s", what, param)
}

// choleskyError maps an error of linalg.Cholesky: the context's own error
// when it was cancelled, notDefinite for a matrix that is not positive
// definite, else err.
func choleskyError(ctx context.Context, err error, param, what string) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var nd *linalg.NotPositiveDefiniteError
	if errors.As(err, &nd) {
		return notDefinite(param, what)
	}
	return err
}

// genEig solves the symmetric-definite problem A p = λ B p with B = LLᵀ:
// C = L⁻¹AL⁻ᵀ is decomposed (symEigFor with p and psd: A semi-definite
// makes C so), and P = L⁻ᵀU, so that PᵀBP = I. A partial spectrum's
// total is the trace of C.
func genEig(ctx context.Context, a mat.Symmetric, l *mat.TriDense, p Params, psd bool) (eigenResult, error) {
	n := a.SymmetricDim()
	c := mat.DenseCopyOf(a)
	lr := l.RawTriangular()
	cr := c.RawMatrix()
	blas64.Trsm(blas.Left, blas.NoTrans, 1, lr, cr) // L⁻¹A
	blas64.Trsm(blas.Right, blas.Trans, 1, lr, cr)  // L⁻¹AL⁻ᵀ
	sym := mat.NewSymDense(n, nil)
	symmetrize(c, sym)
	e, err := symEigFor(ctx, sym, p, psd)
	if err != nil {
		return e, err
	}
	backTransform(l, e.vectors)
	return e, nil
}

// backTransform turns eigenvectors U of L⁻¹AL⁻ᵀ into P = L⁻ᵀU in place, and
// fixes their signs again.
func backTransform(l *mat.TriDense, u *mat.Dense) {
	blas64.Trsm(blas.Left, blas.Trans, 1, l.RawTriangular(), u.RawMatrix())
	fixSigns(u)
}

// lowRankEig decomposes S = FFᵀ (F is D×r) for a fit with parameters p,
// without forming S when r ≤ D: the left singular vectors of F are the
// eigenvectors of S and the squared singular values its eigenvalues.
//
// When p needs only the k leading pairs (needOf: d or MaxDim known, and
// k + 1 < r/2) it takes the route through the r×r Gram (lowRankTop): a
// partial spectrum of k pairs, order r and total ‖F‖²_F. Otherwise, or
// when that route's check refuses, the thin SVD of F (lowRankSVD) gives
// the min(D, r) leading pairs; the other D − r eigenvalues of S are zero.
// With r > D it decomposes the D×D matrix S itself.
func lowRankEig(ctx context.Context, f *mat.Dense, p Params) (eigenResult, error) {
	d, r := f.Dims()
	if r > d {
		s := mat.NewSymDense(d, nil)
		s.SymOuterK(1, f)
		return symEig(ctx, s)
	}
	e, ok, err := lowRankTop(ctx, f, p)
	if err != nil || ok {
		return e, err
	}
	if tried := needOf(p); !tried.all && tried.thr == 0 {
		// The Gram route ran and refused: its r×r matrices are garbage.
		// Collected now, they do not sit under the SVD's workspace, and
		// memoryLedger.lowRank counts the larger of the two, not both.
		runtime.GC()
	}
	return lowRankSVD(f)
}

// lowRankSVD is lowRankEig by gonum's thin SVD of F (D×r, r ≤ D): every
// one of the r pairs, accurate to ε·σ₁ in the singular values.
func lowRankSVD(f *mat.Dense) (eigenResult, error) {
	var svd mat.SVD
	if !svd.Factorize(f, mat.SVDThinU) {
		return eigenResult{}, invalid("", "the singular value decomposition did not converge")
	}
	sv := svd.Values(nil)
	var u mat.Dense
	svd.UTo(&u)
	vals := make([]float64, len(sv))
	for i, s := range sv {
		vals[i] = s * s
	}
	fixSigns(&u)
	return eigenResult{values: vals, vectors: &u}, nil
}

// The tolerances of lowRankTop's check, ten times inside what the route
// must give (eigenvalues to 1e-10 relative, subspaces to 1e-8 in sin θ).
const (
	lowRankValTol = 1e-11
	lowRankSubTol = 1e-9
)

// lowRankTop is lowRankEig's route for the k leading pairs of FFᵀ (F is
// D×r, r ≤ D) through the r×r Gram G = FᵀF (linalg.Gram, D·r² multiply-adds
// at the packed kernel's speed, against gonum's thin SVD at several times
// that count and a fraction of the speed): the k + 1 leading eigenpairs
// (λᵢ, vᵢ) of G by linalg.SymEigTop, then U = F·V_k·Σ⁻¹ (σᵢ = √λᵢ) for the
// k only, signs fixed. The result is a partial spectrum: k values, order
// r, total the trace of G, ‖F‖²_F.
//
// Squaring F squares its condition number: G holds the small σᵢ only to
// about ε·σ₁², where the SVD holds them to ε·σ₁. So the route checks its
// own answer, a posteriori, against F itself: the residuals
// rᵢ = Fᵀuᵢ − σᵢvᵢ (Fvᵢ = σᵢuᵢ holds by construction) bound the error of
// each σᵢ by ‖rᵢ‖, so of λᵢ by about 2σᵢ‖rᵢ‖, and the sine of the angle
// between span(U) and the leading k left singular vectors by
// ‖R‖_F/(σ_k − σ_{k+1}) (Wedin's theorem), and they measure everything the
// route rounded: forming G, the eigen-solver, the product. It refuses
// (ok false; lowRankEig then takes the SVD) unless 2‖rᵢ‖ ≤ lowRankValTol·σᵢ
// for every i ≤ k and ‖R‖_F ≤ lowRankSubTol·(σ_k − σ_{k+1}): an
// ill-conditioned F (σ_k ≪ σ₁), or a cluster at the k-th value, takes the
// SVD. It also refuses when p needs every pair or chooses d by thr (the
// whole spectrum, whose small values the Gram cannot give to 1e-10
// relative), or when k + 1 ≥ r/2 (the SVD costs little more).
func lowRankTop(ctx context.Context, f *mat.Dense, p Params) (eigenResult, bool, error) {
	d, r := f.Dims()
	w := needOf(p)
	k := min(w.k, r)
	if w.all || w.thr > 0 || k < 1 || topMinSaving*(k+1) >= r {
		return eigenResult{}, false, nil
	}
	g := mat.NewSymDense(r, nil)
	if err := linalg.Gram(ctx, f.RawMatrix(), nil, nil, g.RawSymmetric(), nil); err != nil {
		return eigenResult{}, false, err
	}
	vals, v, err := linalg.SymEigTop(ctx, g, k+1)
	if err != nil {
		if ctx.Err() != nil {
			return eigenResult{}, false, ctx.Err()
		}
		return eigenResult{}, false, nil // the SVD decides
	}
	if vals[k-1] <= 0 {
		return eigenResult{}, false, nil // rank below k: the SVD gives the zero pairs
	}
	vk := mat.DenseCopyOf(v.Slice(0, r, 0, k))
	u := mat.NewDense(d, k, nil)
	if err := linalg.Mul(f.RawMatrix(), vk.RawMatrix(), u.RawMatrix()); err != nil {
		return eigenResult{}, false, err
	}
	sigma := make([]float64, k)
	for j := range k {
		sigma[j] = math.Sqrt(vals[j])
	}
	ur := u.RawMatrix()
	for i := range d {
		row := ur.Data[i*ur.Stride : i*ur.Stride+k]
		for j := range row {
			row[j] /= sigma[j]
		}
	}
	if err := ctx.Err(); err != nil {
		return eigenResult{}, false, err
	}
	var ftu mat.Dense
	ftu.Mul(f.T(), u)
	if !lowRankAccept(&ftu, vk, sigma, k, math.Sqrt(max(vals[k], 0))) {
		return lowRankRefine(ctx, f, v, vals, k, trace(g))
	}
	fixSigns(u)
	return eigenResult{values: vals[:k:k], vectors: u, order: r, total: trace(g)}, true, nil
}

// lowRankRefine is lowRankTop's second chance, before the thin SVD, when
// the pairs of the Gram G = FᵀF fail its check: one Rayleigh–Ritz step on
// F itself, which does not square F's condition number. From the m = k + 1
// leading eigenvectors V of G (r×m) it takes
//
//	Q = orth(F·V·Σ⁻¹)   (D×m; F·V·Σ⁻¹ is nearly orthonormal already, so
//	                     the Cholesky QR, done twice, keeps Q orthonormal
//	                     to rounding),
//	FᵀQ = V_B·S·W_Bᵀ    (the thin SVD of an r×m matrix),
//	U = Q·W_B, σ = S, V = V_B,
//
// the best approximations to F's singular triplets within span(Q), which
// F itself rounds to ε·σ₁ rather than G's ε·σ₁². Fᵀuᵢ = σᵢvᵢ then holds by
// construction, so the check is on the other side, explicitly:
// rᵢ = F·vᵢ − σᵢuᵢ, with lowRankTop's tolerances (2‖rᵢ‖ ≤ lowRankValTol·σᵢ,
// ‖R‖_F ≤ lowRankSubTol·(σ_k − σ_{k+1})). The whole costs three products
// of F by m vectors and O((D + r)·m²), against the thin SVD's O(D·r²)
// with a large constant: on a 5 000 × 3 993 F (mddmp on EURLex-4K's
// shape, d = 100, where a near gap at the 100th value fails the Gram's
// check) a second against eight minutes. It refuses (ok false; the SVD
// decides) when G gives fewer than k + 1 positive values, the QR breaks
// down, or the check fails.
func lowRankRefine(ctx context.Context, f *mat.Dense, v *mat.Dense, vals []float64, k int, total float64) (eigenResult, bool, error) {
	d, r := f.Dims()
	m := k + 1
	if len(vals) < m || vals[m-1] <= 0 {
		return eigenResult{}, false, nil
	}
	vm := mat.DenseCopyOf(v.Slice(0, r, 0, m))
	q := mat.NewDense(d, m, nil)
	if err := linalg.Mul(f.RawMatrix(), vm.RawMatrix(), q.RawMatrix()); err != nil {
		return eigenResult{}, false, err
	}
	qr := q.RawMatrix()
	for i := range d {
		row := qr.Data[i*qr.Stride : i*qr.Stride+m]
		for j := range row {
			row[j] /= math.Sqrt(vals[j])
		}
	}
	for range 2 {
		if !cholQRStep(q) {
			return eigenResult{}, false, nil
		}
	}
	if err := ctx.Err(); err != nil {
		return eigenResult{}, false, err
	}
	var bt mat.Dense
	bt.Mul(f.T(), q) // r×m
	var svd mat.SVD
	if !svd.Factorize(&bt, mat.SVDThin) {
		return eigenResult{}, false, nil
	}
	sv := svd.Values(nil)
	var vb, wb mat.Dense
	svd.UTo(&vb)
	svd.VTo(&wb)
	u := mat.NewDense(d, m, nil)
	u.Mul(q, &wb)
	u = mat.DenseCopyOf(u.Slice(0, d, 0, k))
	vk := mat.DenseCopyOf(vb.Slice(0, r, 0, k))
	if err := ctx.Err(); err != nil {
		return eigenResult{}, false, err
	}
	fv := mat.NewDense(d, k, nil)
	if err := linalg.Mul(f.RawMatrix(), vk.RawMatrix(), fv.RawMatrix()); err != nil {
		return eigenResult{}, false, err
	}
	if !lowRankAccept(fv, u, sv, k, sv[k]) {
		return eigenResult{}, false, nil
	}
	values := make([]float64, k)
	for j := range k {
		values[j] = sv[j] * sv[j]
	}
	fixSigns(u)
	return eigenResult{values: values, vectors: u, order: r, total: total}, true, nil
}

// lowRankAccept is the check of lowRankTop and lowRankRefine on the
// residuals rⱼ = aⱼ − σⱼbⱼ of the first k columns of a and b: each σⱼ
// positive with 2‖rⱼ‖ ≤ lowRankValTol·σⱼ, and ‖R‖_F ≤
// lowRankSubTol·(σ_k − next), next the (k+1)-th singular value.
func lowRankAccept(a, b *mat.Dense, sigma []float64, k int, next float64) bool {
	rows, _ := a.Dims()
	sumSq := 0.0
	for j := range k {
		res := 0.0
		for i := range rows {
			x := a.At(i, j) - sigma[j]*b.At(i, j)
			res += x * x
		}
		if sigma[j] <= 0 || 2*math.Sqrt(res) > lowRankValTol*sigma[j] {
			return false
		}
		sumSq += res
	}
	return math.Sqrt(sumSq) <= lowRankSubTol*(sigma[k-1]-next)
}

// cholQRStep orthonormalises the columns of q (n×m) in place by one step
// of the Cholesky QR: qᵀq = RᵀR, q ← q·R⁻¹. It reports false when qᵀq is
// not numerically positive definite (q's columns too close to dependent
// for the method). Done twice on columns that are nearly orthonormal to
// begin with, it leaves them orthonormal to rounding.
func cholQRStep(q *mat.Dense) bool {
	_, m := q.Dims()
	g := mat.NewSymDense(m, nil)
	g.SymOuterK(1, q.T())
	var c mat.Cholesky
	if !c.Factorize(g) {
		return false
	}
	var rt mat.TriDense
	c.UTo(&rt)
	blas64.Trsm(blas.Right, blas.NoTrans, 1, rt.RawTriangular(), q.RawMatrix())
	return true
}

// lowRankGenEig solves FFᵀ p = λ B p with B = LLᵀ for a fit with
// parameters p: the left singular vectors U of L⁻¹F give P = L⁻ᵀU
// (PᵀBP = I), the squared singular values the eigenvalues (lowRankEig,
// whose partial spectrum it keeps).
func lowRankGenEig(ctx context.Context, f *mat.Dense, l *mat.TriDense, p Params) (eigenResult, error) {
	g := mat.DenseCopyOf(f)
	blas64.Trsm(blas.Left, blas.NoTrans, 1, l.RawTriangular(), g.RawMatrix())
	e, err := lowRankEig(ctx, g, p)
	if err != nil {
		return e, err
	}
	backTransform(l, e.vectors)
	return e, nil
}

// normalizeDirections scales the directions (the columns of v) of a
// generalised problem A p = λ B p as p asks, in place, and returns the
// normalisation used: NormalizeUnit divides each column by its Euclidean
// length (‖p‖ = 1, as the FSDR reference code of the baselines does before
// it projects); NormalizeB leaves the B-orthonormal columns genEig and
// lowRankGenEig give (PᵀBP = I). Positive scaling keeps the eigenvalues,
// the spanned subspaces and the sign convention. A zero column stays zero.
func normalizeDirections(v *mat.Dense, p Params) string {
	how := p.normalization()
	if how != NormalizeUnit {
		return how
	}
	r, c := v.Dims()
	for k := range c {
		if norm := mat.Norm(v.Slice(0, r, k, k+1), 2); norm > 0 {
			for i := range r {
				v.Set(i, k, v.At(i, k)/norm)
			}
		}
	}
	return how
}

// addDiag adds v to the diagonal of s in place.
func addDiag(s *mat.SymDense, v float64) {
	n := s.SymmetricDim()
	for i := range n {
		s.SetSym(i, i, s.At(i, i)+v)
	}
}

// meanDiag is the mean of the diagonal of s (a scale for relative ridges).
func meanDiag(s mat.Symmetric) float64 {
	n := s.SymmetricDim()
	t := 0.0
	for i := range n {
		t += s.At(i, i)
	}
	return t / float64(n)
}
