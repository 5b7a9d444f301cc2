package linalg

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/mat"
)

var (
	// ErrNotFinite is returned, wrapped with the position, for a matrix with
	// a NaN or infinite entry.
	ErrNotFinite = errors.New("matrix entry is not finite")
	// ErrEmpty is returned for a matrix of order zero.
	ErrEmpty = errors.New("matrix is empty")
	// ErrNoConvergence is returned, wrapped, when an eigenvalue iteration
	// fails to converge. It is not known to happen on finite input.
	ErrNoConvergence = errors.New("eigenvalue iteration did not converge")
)

// SymEig computes every eigenpair of the symmetric n×n matrix a: values in
// descending order, and vectors, n×n, whose orthonormal columns are the
// matching eigenvectors. Each column's entry of largest magnitude (the first
// one on a tie) is positive, the convention of the analysis package.
//
// The algorithm is LAPACK's DSYEVD, in three stages:
//
//  1. reduction to tridiagonal form A = Q T Qᵀ by blocked Householder
//     reflections (DSYTRD), 4n³/3 flops, half of them in symmetric
//     matrix-vector products, which are bound by memory bandwidth, and half
//     in matrix multiplications;
//  2. every eigenpair of T by divide and conquer (DSTEDC), whose cost is
//     dominated by matrix multiplications of at most 4n³/3 flops and much
//     less when eigenvalues cluster, because such pairs deflate;
//  3. back-transformation of the eigenvectors by Q in blocks of reflectors
//     (DORMTR), 2n³ flops, all in matrix multiplications.
//
// gonum's mat.EigenSym (DSYEV) uses the implicit QL/QR iteration instead of
// stage 2 and accumulates its rotations into the vectors: about 6n³ flops
// of level-1 work that cannot use matrix multiplication. Inverse iteration
// (DSTEIN) would be cheaper on well-separated spectra but must
// reorthogonalize within clusters, which for n ≥ 1000 (relative gaps near
// 1/n) means nearly everything; divide and conquer is both faster there and
// exact on the multiple eigenvalues of rank-deficient Gram matrices, which
// deflate. All matrix multiplications go through gemm (eig_gemm.go), twice
// as fast as gonum's Dgemm here. Timings are in eig_bench_test.go.
//
// The residual ‖AV − VΛ‖ and the loss of orthogonality ‖VᵀV − I‖ are of
// the order of n·ε·‖A‖ and n·ε, as for LAPACK.
//
// SymEig returns ErrEmpty for a matrix of order zero, ErrNotFinite (wrapped
// with the position) for a NaN or infinite entry, ErrNoConvergence (wrapped)
// if an iteration fails, and ctx.Err() if ctx is canceled; it checks ctx
// between the panels, merges and blocks of its stages.
func SymEig(ctx context.Context, a mat.Symmetric) (values []float64, vectors *mat.Dense, err error) {
	if nativeSymEig != nil && a.SymmetricDim() >= nativeMinOrder {
		return nativeEig(ctx, a)
	}
	t, scale, err := reduceSym(ctx, a)
	if err != nil {
		return nil, nil, err
	}
	n := t.n
	d := append([]float64(nil), t.d...)
	e := append([]float64(nil), t.e...)
	zt := make([]float64, n*n)
	order, err := tridiagEig(ctx, d, e, zt, n)
	if err != nil {
		return nil, nil, err
	}
	if err := t.applyQT(ctx, zt, n); err != nil {
		return nil, nil, err
	}
	values = make([]float64, n)
	rows := make([]int, n)
	for c := range n {
		rows[c] = order[n-1-c]
		values[c] = d[rows[c]] / scale
	}
	return values, columnsFromRows(zt, n, rows), nil
}

// SymEigValues computes every eigenvalue of the symmetric matrix a, in
// descending order: the reduction to tridiagonal form of SymEig followed by
// the root-free QR iteration of LAPACK's DSTERF (Pal, Walker and Kahan). Its
// errors are SymEig's.
func SymEigValues(ctx context.Context, a mat.Symmetric) ([]float64, error) {
	t, scale, err := reduceSym(ctx, a)
	if err != nil {
		return nil, err
	}
	n := t.n
	if !sterf(t.d, t.e) {
		return nil, fmt.Errorf("linalg: eigenvalues of a %d×%d tridiagonal matrix: %w", n, n, ErrNoConvergence)
	}
	values := make([]float64, n)
	for i, v := range t.d {
		values[n-1-i] = v / scale
	}
	return values, nil
}

// reduceSym validates a, copies its upper triangle scaled into a safe range
// (as DSYEVD scales) and reduces it to tridiagonal form. It returns the
// reduction and the scale factor applied to a.
func reduceSym(ctx context.Context, a mat.Symmetric) (*tridiagonal, float64, error) {
	n := a.SymmetricDim()
	if n == 0 {
		return nil, 0, fmt.Errorf("linalg: %w", ErrEmpty)
	}
	t := newTridiagonal(n)
	if err := copyUpper(t.a, a); err != nil {
		return nil, 0, err
	}
	scale := safeScale(t.a, n)
	if err := t.reduce(ctx); err != nil {
		return nil, 0, err
	}
	return t, scale, nil
}

// copyUpper writes the upper triangle of a into the row-major n×n dst and
// checks that it is finite.
func copyUpper(dst []float64, a mat.Symmetric) error {
	n := a.SymmetricDim()
	if rs, ok := a.(mat.RawSymmetricer); ok {
		if raw := rs.RawSymmetric(); raw.Uplo == blas.Upper {
			for i := range n {
				copy(dst[i*n+i:(i+1)*n], raw.Data[i*raw.Stride+i:i*raw.Stride+n])
			}
			return checkFinite(dst, n)
		}
	}
	for i := range n {
		for j := i; j < n; j++ {
			dst[i*n+j] = a.At(i, j)
		}
	}
	return checkFinite(dst, n)
}

// checkFinite reports the first non-finite entry of the upper triangle.
func checkFinite(u []float64, n int) error {
	for i := range n {
		for j, v := range u[i*n+i : (i+1)*n] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("linalg: %w: a[%d][%d] = %v", ErrNotFinite, i, i+j, v)
			}
		}
	}
	return nil
}

// safeScale multiplies the upper triangle by the factor that brings its
// largest entry to the nearer end of [√(safmin/ε), √(ε/safmin)] when it
// lies outside, as DSYEVD does, so that no intermediate result over- or
// underflows. It returns the factor (1 when unchanged).
func safeScale(u []float64, n int) float64 {
	anrm := 0.0
	for i := range n {
		for _, v := range u[i*n+i : (i+1)*n] {
			anrm = math.Max(anrm, math.Abs(v))
		}
	}
	const safmin = 0x1p-1022
	smlnum := safmin / dlamchE
	rmin := math.Sqrt(smlnum)
	rmax := math.Sqrt(1 / smlnum)
	scale := 1.0
	switch {
	case anrm > 0 && anrm < rmin:
		scale = rmin / anrm
	case anrm > rmax:
		scale = rmax / anrm
	default:
		return 1
	}
	for i := range n {
		blas64.Implementation().Dscal(n-i, scale, u[i*n+i:(i+1)*n], 1)
	}
	return scale
}

// columnsFromRows returns the n × len(rows) matrix whose column c is row
// rows[c] of the row-major zt (stride n), with the sign convention of
// SymEig applied.
func columnsFromRows(zt []float64, n int, rows []int) *mat.Dense {
	k := len(rows)
	for _, r := range rows {
		fixSign(zt[r*n : (r+1)*n])
	}
	out := mat.NewDense(n, k, nil)
	raw := out.RawMatrix()
	// Transpose in tiles so that both sides stay in cache.
	const tile = 32
	for c0 := 0; c0 < k; c0 += tile {
		c1 := min(c0+tile, k)
		for i0 := 0; i0 < n; i0 += tile {
			i1 := min(i0+tile, n)
			for c := c0; c < c1; c++ {
				src := zt[rows[c]*n : (rows[c]+1)*n]
				for i := i0; i < i1; i++ {
					raw.Data[i*raw.Stride+c] = src[i]
				}
			}
		}
	}
	return out
}

// nativeMinOrder is the smallest matrix SymEig hands to a native solver.
// Smaller ones are as fast in Go, and OpenBLAS's threads, once woken, spin
// for a while and take the cores from the Go kernels that run next
// (cplst's q×q decomposition made its next Gram matrix 20% slower).
const nativeMinOrder = 200

// nativeEig is SymEig by the native solver of the build: the same checks
// and conventions, without stops inside the decomposition.
func nativeEig(ctx context.Context, a mat.Symmetric) ([]float64, *mat.Dense, error) {
	n := a.SymmetricDim()
	if n == 0 {
		return nil, nil, fmt.Errorf("linalg: %w", ErrEmpty)
	}
	zt := make([]float64, n*n)
	if err := copyUpper(zt, a); err != nil {
		return nil, nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	asc, err := nativeSymEig(zt, n)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrNoConvergence, err)
	}
	values := make([]float64, n)
	rows := make([]int, n)
	for c := range n {
		rows[c] = n - 1 - c
		values[c] = asc[n-1-c]
	}
	return values, columnsFromRows(zt, n, rows), ctx.Err()
}

// fixSign negates v if its entry of largest magnitude (the first one on a
// tie) is negative.
func fixSign(v []float64) {
	best, at := -1.0, 0
	for i, x := range v {
		if a := math.Abs(x); a > best {
			best, at = a, i
		}
	}
	if v[at] < 0 {
		for i := range v {
			v[i] = -v[i]
		}
	}
}

// sterf computes the eigenvalues of the symmetric tridiagonal matrix (d, e)
// in ascending order into d with gonum's Dsterf, destroying e. Dsterf
// rescales an unreduced block whose largest entry is outside
// [√safmin/ε², √safmax/3], and in gonum v0.17 that rescaling panics (it
// passes the vector's length as its stride). sterf therefore splits T at
// the same negligible off-diagonal entries Dsterf would, and brings each
// block into range itself by a power of four, which changes neither the
// splitting test nor any rounding.
func sterf(d, e []float64) bool {
	n := len(d)
	const (
		safmin = 0x1p-1022
		safmax = 1 / safmin
	)
	ssfmax := math.Sqrt(safmax) / 3
	ssfmin := math.Sqrt(safmin) / (dlamchE * dlamchE)
	var impl gonum.Implementation
	for start := 0; start < n; {
		end := start
		for end < n-1 && math.Abs(e[end]) > math.Sqrt(math.Abs(d[end]))*math.Sqrt(math.Abs(d[end+1]))*dlamchE {
			end++
		}
		m := end - start + 1
		if m > 1 {
			bd := d[start : end+1]
			be := e[start:end]
			anorm := 0.0
			for _, v := range bd {
				anorm = math.Max(anorm, math.Abs(v))
			}
			for _, v := range be {
				anorm = math.Max(anorm, math.Abs(v))
			}
			scale := 1.0
			if anorm > ssfmax || (anorm > 0 && anorm < ssfmin) {
				// 4^j with 4^j·anorm near 1.
				_, exp := math.Frexp(anorm)
				scale = math.Ldexp(1, -2*(exp/2))
			}
			for i := range bd {
				bd[i] *= scale
			}
			for i := range be {
				be[i] *= scale
			}
			if !impl.Dsterf(m, bd, be) {
				return false
			}
			for i := range bd {
				bd[i] /= scale
			}
		}
		if end < n-1 {
			e[end] = 0
		}
		start = end + 1
	}
	slices.Sort(d)
	return true
}
