package linalg

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas/blas64"
)

const (
	// invitMaxIter bounds the inverse iterations per eigenvector (LAPACK's
	// DSTEIN allows five plus two).
	invitMaxIter = 8
	// invitResidual is the accepted residual ‖Tv − λv‖ of a tridiagonal
	// eigenvector, in units of n·ε·‖T‖.
	invitResidual = 4
)

// tridiagVectors computes unit eigenvectors of the n×n symmetric
// tridiagonal T (diagonal d, off-diagonal e) for the eigenvalues lambda
// (from DSTERF, which are accurate to ε‖T‖) by inverse iteration, as
// LAPACK's DSTEIN does, but reorthogonalizing every vector against all the
// ones before it (modified Gram–Schmidt, twice), which for the few vectors
// SymEigTop asks for costs O(n·k²) and makes the set orthonormal to working
// accuracy whatever the clustering. Equal eigenvalues are separated by
// tiny shifts, as in DSTEIN.
//
// Row i of the k×n row-major result belongs to lambda[i]. ok is false when
// a vector's residual ‖Tv − λv‖ stays above invitResidual·n·ε·‖T‖; the
// caller then uses divide and conquer instead.
func tridiagVectors(d, e, lambda []float64) (vt []float64, ok bool) {
	n := len(d)
	k := len(lambda)
	vt = make([]float64, k*n)
	if n == 1 {
		for i := range k {
			vt[i] = 1
		}
		return vt, true
	}
	tnorm := 0.0
	for i := range n {
		s := math.Abs(d[i])
		if i > 0 {
			s += math.Abs(e[i-1])
		}
		if i < n-1 {
			s += math.Abs(e[i])
		}
		tnorm = math.Max(tnorm, s)
	}
	if tnorm == 0 {
		for i := range k {
			vt[i*n+i] = 1
		}
		return vt, true
	}
	bl := blas64.Implementation()
	rng := rand.New(rand.NewPCG(0x1f, uint64(n)))
	var lu tridiagLU
	lu.init(n)
	pertol := 10 * dlamchE * tnorm
	accept := invitResidual * float64(n) * dlamchE * tnorm
	shift := math.Inf(1)
	for j, lam := range lambda {
		// Separate (nearly) equal eigenvalues so that the factorizations
		// differ.
		sigma := lam
		if j > 0 && math.Abs(sigma-shift) < pertol {
			sigma = shift - pertol
		}
		shift = sigma
		lu.factor(d, e, sigma, dlamchE*tnorm)
		x := vt[j*n : (j+1)*n]
		for i := range x {
			x[i] = rng.Float64()*2 - 1
		}
		done := false
		for it := 0; it < invitMaxIter && !done; it++ {
			lu.solve(x)
			for range 2 {
				for i := range j {
					q := vt[i*n : (i+1)*n]
					bl.Daxpy(n, -bl.Ddot(n, q, 1, x, 1), q, 1, x, 1)
				}
			}
			nrm := bl.Dnrm2(n, x, 1)
			if nrm == 0 || math.IsInf(nrm, 0) || math.IsNaN(nrm) {
				for i := range x {
					x[i] = rng.Float64()*2 - 1
				}
				continue
			}
			bl.Dscal(n, 1/nrm, x, 1)
			done = tridiagResidual(d, e, lam, x) <= 2*math.Sqrt(float64(n))*dlamchE*tnorm
		}
		if tridiagResidual(d, e, lam, x) > accept {
			return nil, false
		}
	}
	return vt, true
}

// tridiagLU is the LU factorization with partial pivoting of T − σI
// (LAPACK's DGTTRF), with zero pivots replaced by a tiny number so that
// solves with a (nearly) singular matrix return the large, nearly null
// vectors inverse iteration wants.
type tridiagLU struct {
	l, u0, u1, u2 []float64 // multipliers; diagonal and two superdiagonals of U
	swap          []bool    // rows i and i+1 interchanged at step i
}

func (f *tridiagLU) init(n int) {
	f.l = make([]float64, n)
	f.u0 = make([]float64, n)
	f.u1 = make([]float64, n)
	f.u2 = make([]float64, n)
	f.swap = make([]bool, n)
}

// factor computes the factorization of T − σI; pivots smaller than tiny in
// magnitude become ±tiny.
func (f *tridiagLU) factor(d, e []float64, sigma, tiny float64) {
	n := len(d)
	for i := range n {
		f.u0[i] = d[i] - sigma
		f.u2[i] = 0
		f.swap[i] = false
		if i < n-1 {
			f.u1[i] = e[i]
			f.l[i] = e[i]
		}
	}
	for i := 0; i < n-1; i++ {
		sub := f.l[i] // T(i+1, i)
		if math.Abs(f.u0[i]) >= math.Abs(sub) {
			if f.u0[i] == 0 {
				f.u0[i] = tiny
			}
			m := sub / f.u0[i]
			f.l[i] = m
			f.u0[i+1] -= m * f.u1[i]
		} else {
			// Interchange rows i and i+1.
			m := f.u0[i] / sub
			f.u0[i] = sub
			f.l[i] = m
			t := f.u1[i]
			f.u1[i] = f.u0[i+1]
			f.u0[i+1] = t - m*f.u0[i+1]
			if i < n-2 {
				f.u2[i] = e[i+1]
				f.u1[i+1] = -m * e[i+1]
			}
			f.swap[i] = true
		}
	}
	if math.Abs(f.u0[n-1]) < tiny {
		f.u0[n-1] = math.Copysign(tiny, f.u0[n-1])
	}
	for i := range n {
		if math.Abs(f.u0[i]) < tiny {
			f.u0[i] = math.Copysign(tiny, f.u0[i])
		}
	}
}

// solve overwrites x with (T − σI)⁻¹ x.
func (f *tridiagLU) solve(x []float64) {
	n := len(x)
	for i := 0; i < n-1; i++ {
		if f.swap[i] {
			x[i], x[i+1] = x[i+1], x[i]-f.l[i]*x[i+1]
		} else {
			x[i+1] -= f.l[i] * x[i]
		}
	}
	x[n-1] /= f.u0[n-1]
	if n > 1 {
		x[n-2] = (x[n-2] - f.u1[n-2]*x[n-1]) / f.u0[n-2]
	}
	for i := n - 3; i >= 0; i-- {
		x[i] = (x[i] - f.u1[i]*x[i+1] - f.u2[i]*x[i+2]) / f.u0[i]
	}
}
