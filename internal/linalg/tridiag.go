package linalg

import (
	"context"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/gonum"
)

// Block sizes of the reduction to tridiagonal form, chosen by measurement on
// the benchmarks of this package (2-core AMD EPYC, n = 1000 and 2000).
const (
	// tridiagPanel is the number of columns reduced per panel (LAPACK's NB
	// for DSYTRD): the rank-2·tridiagPanel trailing update runs at matrix
	// multiplication speed, the panel itself in matrix-vector products.
	tridiagPanel = 32
	// tridiagUnblocked is the order below which the rest of the matrix is
	// reduced one column at a time (LAPACK's NX).
	tridiagUnblocked = 64
	// tridiagUpdateRows is the height of the row blocks of the trailing
	// update; only the blocks on and right of the diagonal are computed.
	tridiagUpdateRows = 192
	// symvRows is the height of the row blocks of symvUpper.
	symvRows = 16
	// backPanel is the number of reflectors applied together by applyQT.
	backPanel = 64
)

// tridiagonal is the reduction A = Q T Qᵀ of a symmetric n×n matrix to a
// symmetric tridiagonal T by Householder reflections, as LAPACK's DSYTRD with
// UPLO = 'L' computes it (Golub and Van Loan, Matrix Computations, 4th ed.,
// §8.3.1; the blocking is Dongarra, Sorensen and Hammarling, "Block reduction
// of matrices to condensed forms for eigenvalue computations", J. Comput.
// Appl. Math. 27, 1989).
//
// Q = H_0 H_1 ⋯ H_{n-2} with H_j = I − τ_j v_j v_jᵀ, where v_j is zero in
// entries 0…j, one in entry j+1, and a[j*n+j+2 : j*n+n] in the rest.
type tridiagonal struct {
	n   int
	d   []float64 // diagonal of T, length n
	e   []float64 // off-diagonal of T, length n−1
	tau []float64 // τ_j, length n−1
	// a is n×n row-major. On entry to reduce, its upper triangle (row i,
	// columns i…n−1) holds the upper triangle of A; the strictly lower
	// triangle is never read. Afterwards row j holds v_j in columns j+2…n−1.
	a []float64
}

// newTridiagonal allocates the reduction of an n×n matrix whose upper
// triangle the caller writes into t.a before calling reduce.
func newTridiagonal(n int) *tridiagonal {
	return &tridiagonal{
		n:   n,
		d:   make([]float64, n),
		e:   make([]float64, max(n-1, 0)),
		tau: make([]float64, max(n-1, 0)),
		a:   make([]float64, n*n),
	}
}

// reduce computes T and the reflectors. It is LAPACK's blocked DSYTRD
// ('L', read column-major, which is the upper triangle of a row-major
// array): panels of tridiagPanel columns are reduced with matrix-vector
// products against the not yet updated trailing matrix (DLATRD), and the
// trailing matrix is then updated by A ← A − VWᵀ − WVᵀ in matrix
// multiplications.
//
// It returns ctx.Err() if ctx is canceled between two panels.
func (t *tridiagonal) reduce(ctx context.Context) error {
	n := t.n
	if n == 0 {
		return nil
	}
	k := 0
	var upd trailingUpdate
	if n > tridiagUnblocked {
		wbuf := make([]float64, tridiagPanel*n)
		for ; n-k > tridiagUnblocked; k += tridiagPanel {
			if err := ctx.Err(); err != nil {
				return err
			}
			m := n - k
			wp := wbuf[:tridiagPanel*m]
			t.panel(k, tridiagPanel, wp)
			upd.apply(t.a, n, k, tridiagPanel, wp)
			for j := k; j < k+tridiagPanel; j++ {
				t.a[j*n+j+1] = t.e[j]
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	// The last columns in one panel, whose trailing matrix is the last
	// diagonal entry.
	if rest := n - 1 - k; rest > 0 {
		wp := make([]float64, rest*(n-k))
		t.panel(k, rest, wp)
		upd.apply(t.a, n, k, rest, wp)
		for j := k; j < n-1; j++ {
			t.a[j*n+j+1] = t.e[j]
		}
	}
	t.d[n-1] = t.a[(n-1)*n+n-1]
	return nil
}

// panel reduces columns k…k+p−1 (LAPACK's DLATRD with UPLO = 'L'): it
// computes v_j, τ_j, e_j and d_j for them and the rows of W (p × m, m = n−k,
// row j holds w_j in columns j+1…m−1 relative to k) such that the trailing
// matrix is A₂₂ − VWᵀ − WVᵀ. While it runs, the entry j+1 of v_j is set to
// one in t.a; the caller restores e_j there. The trailing matrix beyond the
// panel is left as it was.
func (t *tridiagonal) panel(k, p int, wp []float64) {
	n := t.n
	a := t.a
	m := n - k
	impl := gonum.Implementation{}
	bl := blas64.Implementation()
	// V's rows are rows k… of a (stride n), W's rows those of wp (stride m);
	// both are read as i × len matrices by the matrix-vector products.
	cv := make([]float64, p)
	cw := make([]float64, p)
	for i := range p {
		c := k + i // global column
		row := a[c*n : c*n+n]
		if i > 0 {
			// A(c:n, c) −= V(c:n, 0:i) W(c, 0:i)ᵀ + W(c:n, 0:i) V(c, 0:i)ᵀ.
			for j := range i {
				cw[j] = wp[j*m+i]
				cv[j] = a[(k+j)*n+c]
			}
			x := row[c:]
			bl.Dgemv(blas.Trans, i, len(x), -1, a[k*n+c:], n, cw[:i], 1, 1, x, 1)
			bl.Dgemv(blas.Trans, i, len(x), -1, wp[i:], m, cv[:i], 1, 1, x, 1)
		}
		t.d[c] = row[c]
		// The reflector that annihilates A(c+2:n, c).
		beta, tau := impl.Dlarfg(n-c-1, row[c+1], row[min(c+2, n):], 1)
		t.e[c] = beta
		t.tau[c] = tau
		row[c+1] = 1
		v := row[c+1:]
		wi := wp[i*m+i+1 : i*m+m]
		// w_i = A₂₂ v with the trailing matrix as it was before the panel.
		symvUpper(a, n, c+1, v, wi)
		if i > 0 {
			// Corrections for the panel's earlier reflectors:
			// w_i −= V (Wᵀv) + W (Vᵀv).
			vk := a[k*n+c+1:]
			wk := wp[i+1:]
			bl.Dgemv(blas.NoTrans, i, len(v), 1, wk, m, v, 1, 0, cw[:i], 1)
			bl.Dgemv(blas.NoTrans, i, len(v), 1, vk, n, v, 1, 0, cv[:i], 1)
			bl.Dgemv(blas.Trans, i, len(v), -1, vk, n, cw[:i], 1, 1, wi, 1)
			bl.Dgemv(blas.Trans, i, len(v), -1, wk, m, cv[:i], 1, 1, wi, 1)
		}
		bl.Dscal(len(wi), tau, wi, 1)
		alpha := -0.5 * tau * bl.Ddot(len(v), wi, 1, v, 1)
		bl.Daxpy(len(v), alpha, v, 1, wi, 1)
	}
}

// trailingUpdate holds the work space of the rank-2p update of the trailing
// matrix after a panel.
type trailingUpdate struct {
	xt []float64 // [V W] as an m′ × 2p matrix
	y  []float64 // [W; V] as a 2p × m′ matrix
}

// apply computes A(s:n, s:n) −= V Wᵀ + W Vᵀ on the upper triangle of the
// row-major a, with s = k+p, V the rows k…k+p−1 of a and W the rows of wp
// (p × (n−k)), both restricted to the columns s…n−1. It runs in row blocks
// of tridiagUpdateRows through gonum's parallel Dgemm, computing only the
// blocks that meet the upper triangle.
func (u *trailingUpdate) apply(a []float64, n, k, p int, wp []float64) {
	s := k + p
	mt := n - s
	if mt <= 0 {
		return
	}
	m := n - k
	q := 2 * p
	if cap(u.xt) < mt*q {
		u.xt = make([]float64, mt*q)
		u.y = make([]float64, mt*q)
	}
	xt := u.xt[:mt*q]
	y := u.y[:mt*q]
	for j := range p {
		vj := a[(k+j)*n+s : (k+j)*n+n]
		wj := wp[j*m+p : j*m+m]
		copy(y[j*mt:(j+1)*mt], wj)
		copy(y[(p+j)*mt:(p+j+1)*mt], vj)
		for r, x := range vj {
			xt[r*q+j] = x
		}
		for r, x := range wj {
			xt[r*q+p+j] = x
		}
	}
	for r0 := 0; r0 < mt; r0 += tridiagUpdateRows {
		rb := min(tridiagUpdateRows, mt-r0)
		gemm(rb, mt-r0, q, -1, xt[r0*q:], q, y[r0:], mt, 1, a[(s+r0)*n+s+r0:], n)
	}
}

// symvUpper sets y = S x, where S is the symmetric matrix whose upper
// triangle is rows and columns s…n−1 of the row-major n×n array a, and x,
// y have length n−s. The triangle is taken in blocks of symvRows rows: the
// small triangle on the diagonal directly, and the rectangle R right of it
// by gonum's matrix-vector kernels, y_B += R x_rest and y_rest += Rᵀ x_B,
// which read R from memory once since it stays in cache between the two.
//
// The product is limited by the bandwidth of the shared cache: a second
// goroutine made it slower on the benchmark machine, so it runs on one.
func symvUpper(a []float64, n, s int, x, y []float64) {
	m := n - s
	x = x[:m]
	y = y[:m]
	clear(y)
	bl := blas64.Implementation()
	for r := 0; r < m; r += symvRows {
		re := min(r+symvRows, m)
		for i := r; i < re; i++ {
			row := a[(s+i)*n+s : (s+i)*n+s+re]
			xi := x[i]
			sum := row[i] * xi
			for c := i + 1; c < re; c++ {
				v := row[c]
				sum += v * x[c]
				y[c] += v * xi
			}
			y[i] += sum
		}
		if re < m {
			rect := a[(s+r)*n+s+re:]
			bl.Dgemv(blas.NoTrans, re-r, m-re, 1, rect, n, x[re:], 1, 1, y[r:re], 1)
			bl.Dgemv(blas.Trans, re-r, m-re, 1, rect, n, x[r:re], 1, 1, y[re:], 1)
		}
	}
}

// applyQT overwrites the nz × n row-major zt with zt Qᵀ, so that each row z
// becomes Q z: eigenvectors of T become eigenvectors of A. It is LAPACK's
// DORMTR, run backwards in blocks of backPanel reflectors with the compact
// WY form I − V T Vᵀ (Schreiber and Van Loan, "A storage-efficient WY
// representation for products of Householder transformations", SIAM J. Sci.
// Stat. Comput. 10, 1989), so that all its 2·nz·n² flops are in matrix
// multiplications. It returns ctx.Err() if ctx is canceled between blocks.
func (t *tridiagonal) applyQT(ctx context.Context, zt []float64, nz int) error {
	n := t.n
	if n < 2 || nz == 0 {
		return nil
	}
	nr := n - 1 // number of reflectors
	vb := make([]float64, backPanel*(n-1))
	vbt := make([]float64, backPanel*(n-1))
	tt := make([]float64, backPanel*backPanel)
	w := make([]float64, nz*backPanel)
	w2 := make([]float64, nz*backPanel)
	gram := make([]float64, backPanel*backPanel)
	last := ((nr - 1) / backPanel) * backPanel
	for j0 := last; j0 >= 0; j0 -= backPanel {
		if err := ctx.Err(); err != nil {
			return err
		}
		b := min(backPanel, nr-j0)
		m := n - j0 - 1
		v := vb[:b*m]
		// The reflectors as rows of V, over the indices j0+1…n−1.
		for jj := range b {
			j := j0 + jj
			row := v[jj*m : (jj+1)*m]
			clear(row[:jj])
			row[jj] = 1
			copy(row[jj+1:], t.a[j*n+j+2:j*n+n])
		}
		// The triangular factor (DLARFT, forward, column-wise), from the
		// Gram matrix G = V Vᵀ: T(0:i, i) = −τ_i T(0:i, 0:i) G(0:i, i).
		tb := tt[:b*b]
		gemmNT(b, b, m, 1, v, m, v, m, 0, gram[:b*b], b)
		clear(tb)
		for i := range b {
			tau := t.tau[j0+i]
			tb[i*b+i] = tau
			if i == 0 || tau == 0 {
				continue
			}
			for r := range i {
				s := 0.0
				for l := r; l < i; l++ {
					s += tb[r*b+l] * gram[l*b+i]
				}
				tb[r*b+i] = -tau * s
			}
		}
		vt := vbt[:m*b]
		for jj := range b {
			for r, x := range v[jj*m : (jj+1)*m] {
				vt[r*b+jj] = x
			}
		}
		ww := w[:nz*b]
		wt := w2[:nz*b]
		zsub := zt[j0+1:]
		// Z ← Z − (Z V) Tᵀ Vᵀ.
		gemm(nz, b, m, 1, zsub, n, vt, b, 0, ww, b)
		gemmNT(nz, b, b, 1, ww, b, tb, b, 0, wt, b)
		gemm(nz, m, b, -1, wt, b, v, m, 1, zsub, n)
	}
	return nil
}

// tridiagResidual is ‖Tx − λx‖₂.
func tridiagResidual(d, e []float64, lambda float64, x []float64) float64 {
	n := len(d)
	ss := 0.0
	for i := range n {
		r := (d[i] - lambda) * x[i]
		if i > 0 {
			r += e[i-1] * x[i-1]
		}
		if i < n-1 {
			r += e[i] * x[i+1]
		}
		ss += r * r
	}
	return math.Sqrt(ss)
}
