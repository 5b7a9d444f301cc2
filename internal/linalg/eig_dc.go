package linalg

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"

	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/gonum"
)

const (
	// dcLeaf is the largest tridiagonal block solved directly by implicit
	// QL/QR (LAPACK's SMLSIZ for DSTEDC).
	dcLeaf = 25
	// dcParallel is the smallest block whose two halves are solved
	// concurrently.
	dcParallel = 400
	// dcSecularParallel is the smallest rank-one problem whose roots are
	// split over goroutines.
	dcSecularParallel = 200
)

// tridiagEig computes every eigenpair of the n×n symmetric tridiagonal
// matrix with diagonal d and off-diagonal e by Cuppen's divide and conquer
// as LAPACK's DSTEDC (COMPZ = 'I') does it: J. J. M. Cuppen, "A divide and
// conquer method for the symmetric tridiagonal eigenproblem", Numer. Math.
// 36, 1981; M. Gu and S. C. Eisenstat, "A divide-and-conquer algorithm for
// the symmetric tridiagonal eigenproblem", SIAM J. Matrix Anal. Appl. 16,
// 1995, for the orthogonality of the computed vectors.
//
// zt is n×n row-major with stride ld and must be zero on entry. On return
// row i of zt is a unit eigenvector of T for the eigenvalue d[i], and
// order lists the rows by ascending eigenvalue. e is destroyed. It returns
// ctx.Err() if ctx is canceled between two merges, and ErrNoConvergence if
// an eigenvalue iteration fails.
func tridiagEig(ctx context.Context, d, e, zt []float64, ld int) (order []int, err error) {
	n := len(d)
	order = make([]int, n)
	s := &dcSolver{d: d, e: e, zt: zt, ld: ld, order: order}
	for start := 0; start < n; {
		// The next unreduced block: e_i is negligible against the geometric
		// mean of its neighbours on the diagonal.
		finish := start
		for finish < n-1 {
			tiny := dlamchE * math.Sqrt(math.Abs(d[finish])) * math.Sqrt(math.Abs(d[finish+1]))
			if math.Abs(e[finish]) <= tiny {
				break
			}
			finish++
		}
		m := finish - start + 1
		switch {
		case m == 1:
			zt[start*ld+start] = 1
		case m <= dcLeaf:
			if err := s.leaf(start, m); err != nil {
				return nil, err
			}
		default:
			// Solve on the scale of one, as DSTEDC does.
			scale := 0.0
			for _, v := range d[start : start+m] {
				scale = math.Max(scale, math.Abs(v))
			}
			for _, v := range e[start : start+m-1] {
				scale = math.Max(scale, math.Abs(v))
			}
			for i := start; i < start+m; i++ {
				d[i] /= scale
			}
			for i := start; i < start+m-1; i++ {
				e[i] /= scale
			}
			if err := s.solve(ctx, start, m); err != nil {
				return nil, err
			}
			for i := start; i < start+m; i++ {
				d[i] *= scale
			}
		}
		start = finish + 1
	}
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case d[a] < d[b]:
			return -1
		case d[a] > d[b]:
			return 1
		}
		return 0
	})
	return order, nil
}

// dcSolver is the state of one divide and conquer: the tridiagonal matrix,
// the eigenvector rows, and for every block the ascending order of its
// eigenvalues (order[off+j] is the block-relative row of its j-th smallest).
type dcSolver struct {
	d, e  []float64
	zt    []float64
	ld    int
	order []int
}

// row returns the part of row off+i of zt that lies in the block of order m
// starting at off.
func (s *dcSolver) row(off, m, i int) []float64 {
	o := (off+i)*s.ld + off
	return s.zt[o : o+m]
}

// solve computes the eigen-decomposition of the unreduced block of order m
// at off (LAPACK's DLAED0, written recursively): the block is torn in two by
// a rank-one modification, the halves are solved, and merge joins them.
func (s *dcSolver) solve(ctx context.Context, off, m int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if m <= dcLeaf {
		return s.leaf(off, m)
	}
	m1 := m / 2
	cut := off + m1 - 1
	rho := s.e[cut]
	s.d[cut] -= math.Abs(rho)
	s.d[cut+1] -= math.Abs(rho)
	if m >= dcParallel {
		var wg sync.WaitGroup
		var errLeft error
		wg.Add(1)
		go func() {
			defer wg.Done()
			errLeft = s.solve(ctx, off, m1)
		}()
		errRight := s.solve(ctx, off+m1, m-m1)
		wg.Wait()
		if errLeft != nil {
			return errLeft
		}
		if errRight != nil {
			return errRight
		}
	} else {
		if err := s.solve(ctx, off, m1); err != nil {
			return err
		}
		if err := s.solve(ctx, off+m1, m-m1); err != nil {
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return s.merge(off, m, m1, rho)
}

// leaf solves a block of order m ≤ dcLeaf by implicit QL/QR (DSTEQR).
func (s *dcSolver) leaf(off, m int) error {
	q := make([]float64, m*m)
	work := make([]float64, max(1, 2*m-2))
	var impl gonum.Implementation
	if !impl.Dsteqr(lapack.EVTridiag, m, s.d[off:off+m], s.e[off:off+m-1], q, m, work) {
		return fmt.Errorf("linalg: implicit QL of a %d×%d tridiagonal block at %d: %w", m, m, off, ErrNoConvergence)
	}
	// Dsteqr leaves the vectors in the columns of q.
	for i := range m {
		r := s.row(off, m, i)
		for j := range m {
			r[j] = q[j*m+i]
		}
	}
	for i := range m {
		s.order[off+i] = i
	}
	return nil
}

// Column types of the eigenvectors in a merge (DLAED2's COLTYP): where their
// non-zeros are, so that the products skip the zero halves.
const (
	typeTop     = 1 // non-zero in the first n1 entries only
	typeDense   = 2
	typeBottom  = 3 // non-zero in the last n2 entries only
	typeDeflate = 4
)

// merge joins the eigen-decompositions of the halves (orders n1 and m−n1)
// of the block of order m at off, torn apart by rho (LAPACK's DLAED1, DLAED2
// and DLAED3). The rank-one modification is first deflated: eigenpairs
// whose component of the updating vector z is negligible, or whose
// eigenvalues coincide to working accuracy (after a rotation in their
// plane), are kept as they are. For the remaining k pairs the roots of the
// secular equation are the new eigenvalues; the eigenvectors of the
// modified diagonal matrix are built from the Löwner formula for a
// recomputed z (Gu and Eisenstat), which makes them orthogonal to working
// accuracy, and multiplied into the old ones in two matrix products.
func (s *dcSolver) merge(off, m, n1 int, rho float64) error {
	n2 := m - n1
	d := s.d[off : off+m]
	ord := s.order[off : off+m]

	// The updating vector: last row of the first half's eigenvectors, first
	// row of the second's (as columns of Q; here, entries of the rows).
	z := make([]float64, m)
	for i := range n1 {
		z[i] = s.row(off, m, i)[n1-1]
	}
	for i := n1; i < m; i++ {
		z[i] = s.row(off, m, i)[n1]
	}
	if rho < 0 {
		for i := n1; i < m; i++ {
			z[i] = -z[i]
		}
	}
	// ‖z‖² = 2: normalize and fold the factor into ρ.
	for i := range z {
		z[i] *= 1 / math.Sqrt2
	}
	rho = math.Abs(2 * rho)

	// Ascending order of all m eigenvalues, from the halves' orders.
	for i := n1; i < m; i++ {
		ord[i] += n1
	}
	indx := make([]int, m)
	mergeOrder(indx, ord[:n1], ord[n1:], d)

	zmax, dmax := 0.0, 0.0
	for i := range m {
		zmax = math.Max(zmax, math.Abs(z[i]))
		dmax = math.Max(dmax, math.Abs(d[i]))
	}
	tol := 8 * dlamchE * math.Max(dmax, zmax)
	if rho*zmax <= tol {
		// The modification is negligible: only the order changes.
		copy(ord, indx)
		return nil
	}

	// Deflation (DLAED2).
	coltyp := make([]int8, m)
	for i := range m {
		if i < n1 {
			coltyp[i] = typeTop
		} else {
			coltyp[i] = typeBottom
		}
	}
	nondefl := make([]int, 0, m)
	defl := make([]int, 0, m)
	pj := -1
	for _, nj := range indx {
		if rho*math.Abs(z[nj]) <= tol {
			// Negligible component of z.
			coltyp[nj] = typeDeflate
			defl = append(defl, nj)
			continue
		}
		if pj < 0 {
			pj = nj
			continue
		}
		// Close eigenvalues: rotate z_pj onto z_nj and deflate pj if the
		// rotation perturbs the matrix negligibly.
		sn, cs := z[pj], z[nj]
		tau := math.Hypot(cs, sn)
		t := d[nj] - d[pj]
		cs /= tau
		sn = -sn / tau
		if math.Abs(t*cs*sn) <= tol {
			z[nj] = tau
			z[pj] = 0
			if coltyp[nj] != coltyp[pj] {
				coltyp[nj] = typeDense
			}
			coltyp[pj] = typeDeflate
			rotRows(s.row(off, m, pj), s.row(off, m, nj), cs, sn)
			dp, dn := d[pj], d[nj]
			d[pj] = dp*cs*cs + dn*sn*sn
			d[nj] = dp*sn*sn + dn*cs*cs
			defl = append(defl, pj)
		} else {
			nondefl = append(nondefl, pj)
		}
		pj = nj
	}
	nondefl = append(nondefl, pj)
	k := len(nondefl)

	// Group the k vectors by type: top-only, dense, bottom-only.
	var ctot [4]int
	for _, j := range nondefl {
		ctot[coltyp[j]-1]++
	}
	n12 := ctot[0] + ctot[1]
	n23 := ctot[1] + ctot[2]
	next := [3]int{0, ctot[0], ctot[0] + ctot[1]}
	pos := make([]int, k)
	for i, j := range nondefl {
		t := coltyp[j] - 1
		pos[i] = next[t]
		next[t]++
	}
	q2up := make([]float64, n12*n1)
	q2lo := make([]float64, n23*n2)
	dlamda := make([]float64, k)
	w := make([]float64, k)
	for i, j := range nondefl {
		dlamda[i] = d[j]
		w[i] = z[j]
		r := s.row(off, m, j)
		if p := pos[i]; p < n12 {
			copy(q2up[p*n1:(p+1)*n1], r[:n1])
		}
		if p := pos[i] - ctot[0]; p >= 0 {
			copy(q2lo[p*n2:(p+1)*n2], r[n1:])
		}
	}
	nd := len(defl)
	dq := make([]float64, nd*m)
	dd := make([]float64, nd)
	for i, j := range defl {
		copy(dq[i*m:(i+1)*m], s.row(off, m, j))
		dd[i] = d[j]
	}

	// The secular equation (DLAED3): st row j becomes the eigenvector of
	// diag(dlamda) + ρ w wᵀ for its j-th root, in the grouped order.
	st := make([]float64, k*k)
	if err := secularVectors(dlamda, w, rho, d[:k], st, pos); err != nil {
		return fmt.Errorf("linalg: merging a %d×%d tridiagonal block at %d: %w", m, m, off, err)
	}

	// New eigenvectors: rows 0…k−1 of the block are St times the old ones.
	ld := s.ld
	top := s.zt[off*ld+off:]
	if n12 > 0 {
		gemm(k, n1, n12, 1, st, k, q2up, n1, 0, top, ld)
	} else {
		for i := range k {
			clear(s.row(off, m, i)[:n1])
		}
	}
	if n23 > 0 {
		gemm(k, n2, n23, 1, st[ctot[0]:], k, q2lo, n2, 0, top[n1:], ld)
	} else {
		for i := range k {
			clear(s.row(off, m, i)[n1:])
		}
	}
	// The deflated pairs follow, unchanged.
	for i := range nd {
		copy(s.row(off, m, k+i), dq[i*m:(i+1)*m])
		d[k+i] = dd[i]
	}

	// Ascending order: the roots are ascending, the deflated values are
	// sorted and merged in.
	lo := make([]int, k)
	for i := range lo {
		lo[i] = i
	}
	hi := make([]int, nd)
	for i := range hi {
		hi[i] = k + i
	}
	slices.SortStableFunc(hi, func(a, b int) int {
		switch {
		case d[a] < d[b]:
			return -1
		case d[a] > d[b]:
			return 1
		}
		return 0
	})
	mergeOrder(ord, lo, hi, d)
	return nil
}

// secularVectors solves the rank-one problem diag(dlamda) + ρ w wᵀ of order
// k (dlamda strictly increasing): lambda gets its eigenvalues, ascending,
// and row j of the k×k st the unit eigenvector for lambda[j], its entry i
// stored at column pos[i].
func secularVectors(dlamda, w []float64, rho float64, lambda, st []float64, pos []int) error {
	k := len(dlamda)
	switch k {
	case 1:
		lambda[0] = dlamda[0] + rho*w[0]*w[0]
		st[0] = 1
		return nil
	case 2:
		var v [2]float64
		for j := range 2 {
			lambda[j] = secular2(j, dlamda, w, v[:], rho)
			st[j*2+pos[0]] = v[0]
			st[j*2+pos[1]] = v[1]
		}
		return nil
	}
	// The roots, with delta_j(i) = dlamda_i − λ_j in row j of st.
	var failed error
	var mu sync.Mutex
	parallelRange(k, k >= dcSecularParallel, func(j0, j1 int) {
		for j := j0; j < j1; j++ {
			lam, ok := secularRoot(j, dlamda, w, st[j*k:(j+1)*k], rho)
			lambda[j] = lam
			if !ok {
				mu.Lock()
				failed = fmt.Errorf("root %d of the secular equation of order %d: %w", j, k, ErrNoConvergence)
				mu.Unlock()
			}
		}
	})
	if failed != nil {
		return failed
	}
	// Gu and Eisenstat: the z for which the computed roots are exact,
	// ẑ_i² = Π_j (λ_j − dlamda_i) / Π_{j≠i} (dlamda_j − dlamda_i).
	zh := make([]float64, k)
	parallelRange(k, k >= dcSecularParallel, func(i0, i1 int) {
		for i := i0; i < i1; i++ {
			zh[i] = st[i*k+i]
		}
		for j := range k {
			row := st[j*k : (j+1)*k]
			dj := dlamda[j]
			for i := i0; i < i1; i++ {
				if i != j {
					zh[i] *= row[i] / (dlamda[i] - dj)
				}
			}
		}
		for i := i0; i < i1; i++ {
			zh[i] = math.Copysign(math.Sqrt(-zh[i]), w[i])
		}
	})
	// The eigenvectors ẑ_i / (dlamda_i − λ_j), normalized.
	parallelRange(k, k >= dcSecularParallel, func(j0, j1 int) {
		tmp := make([]float64, k)
		for j := j0; j < j1; j++ {
			row := st[j*k : (j+1)*k]
			ss := 0.0
			for i := range k {
				v := zh[i] / row[i]
				tmp[i] = v
				ss += v * v
			}
			inv := 1 / math.Sqrt(ss)
			for i := range k {
				row[pos[i]] = tmp[i] * inv
			}
		}
	})
	return nil
}

// parallelRange calls f on the halves of [0, n) concurrently when par is
// true, and on all of it otherwise.
func parallelRange(n int, par bool, f func(lo, hi int)) {
	if !par {
		f(0, n)
		return
	}
	h := n / 2
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		f(h, n)
	}()
	f(0, h)
	wg.Wait()
}

// mergeOrder merges the index lists a and b, each ascending in d, into dst.
func mergeOrder(dst, a, b []int, d []float64) {
	i, j := 0, 0
	for k := range dst {
		if j >= len(b) || (i < len(a) && d[a[i]] <= d[b[j]]) {
			dst[k] = a[i]
			i++
		} else {
			dst[k] = b[j]
			j++
		}
	}
}

// rotRows applies the plane rotation (c, s) to x and y as BLAS DROT does:
// x ← c x + s y, y ← c y − s x.
func rotRows(x, y []float64, c, s float64) {
	y = y[:len(x)]
	for i, xi := range x {
		yi := y[i]
		x[i] = c*xi + s*yi
		y[i] = c*yi - s*xi
	}
}
