package analysis

import (
	"context"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"mldr/internal/linalg"
)

// eigenResult is a decomposition: values descending, and the matching
// directions as the columns of vectors.
type eigenResult struct {
	values  []float64
	vectors *mat.Dense
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
func fixSigns(v *mat.Dense) {
	r, c := v.Dims()
	for k := range c {
		best, at := -1.0, 0
		for i := range r {
			if a := math.Abs(v.At(i, k)); a > best {
				best, at = a, i
			}
		}
		if v.At(at, k) < 0 {
			for i := range r {
				v.Set(i, k, -v.At(i, k))
			}
		}
	}
}

// cholesky factors a symmetric positive definite B = LLᵀ; param names the
// parameter that makes B definite, for the error when it is not.
func cholesky(b mat.Symmetric, param, what string) (*mat.TriDense, error) {
	var ch mat.Cholesky
	if !ch.Factorize(b) {
		return nil, unservable(param, 0, "%s is not positive definite on these data; give a larger %s", what, param)
	}
	var l mat.TriDense
	ch.LTo(&l)
	return &l, nil
}

// genEig solves the symmetric-definite problem A p = λ B p with B = LLᵀ:
// C = L⁻¹AL⁻ᵀ is decomposed, and P = L⁻ᵀU, so that PᵀBP = I.
func genEig(ctx context.Context, a mat.Symmetric, l *mat.TriDense) (eigenResult, error) {
	n := a.SymmetricDim()
	c := mat.DenseCopyOf(a)
	lr := l.RawTriangular()
	cr := c.RawMatrix()
	blas64.Trsm(blas.Left, blas.NoTrans, 1, lr, cr) // L⁻¹A
	blas64.Trsm(blas.Right, blas.Trans, 1, lr, cr)  // L⁻¹AL⁻ᵀ
	sym := mat.NewSymDense(n, nil)
	symmetrize(c, sym)
	e, err := symEig(ctx, sym)
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

// lowRankEig decomposes S = FFᵀ (F is D×r) without forming S when r ≤ D:
// the left singular vectors of F are the eigenvectors of S and the squared
// singular values its eigenvalues. It returns the min(D, r) leading pairs;
// the other D − r eigenvalues of S are zero.
func lowRankEig(ctx context.Context, f *mat.Dense) (eigenResult, error) {
	d, r := f.Dims()
	if r > d {
		s := mat.NewSymDense(d, nil)
		s.SymOuterK(1, f)
		return symEig(ctx, s)
	}
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

// lowRankGenEig solves FFᵀ p = λ B p with B = LLᵀ: the left singular
// vectors U of L⁻¹F give P = L⁻ᵀU (PᵀBP = I), the squared singular values
// the eigenvalues.
func lowRankGenEig(ctx context.Context, f *mat.Dense, l *mat.TriDense) (eigenResult, error) {
	g := mat.DenseCopyOf(f)
	blas64.Trsm(blas.Left, blas.NoTrans, 1, l.RawTriangular(), g.RawMatrix())
	e, err := lowRankEig(ctx, g)
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
