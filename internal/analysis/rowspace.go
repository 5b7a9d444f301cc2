package analysis

import (
	"context"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// The N×N path. With fewer rows than features, every D×D matrix the
// feature-space methods build lives in the row space of Xc: with the thin
// QR factorisation Xcᵀ = QR (Q is D×N with orthonormal columns, R is N×N),
// Xc = RᵀQᵀ, so
//
//	XcᵀMXc = Q (R M Rᵀ) Qᵀ        for any N×N matrix M,
//
// XcᵀL = Q (R L) for the label cross products, and the identity I is
// Q Qᵀ + Q⊥Q⊥ᵀ. A problem A p = λ (B + εI) p with A = Q Ã Qᵀ and
// B = Q B̃ Qᵀ therefore splits into Ã v = λ (B̃ + εI) v on span(Q), with
// p = Qv and the same λ, and A p = 0 on the complement (eigenvalue 0, which
// counts towards no rank). An ordinary problem (B = 0, ε = 1) is the same.
// So every statistic is formed from the N×N matrix U = Rᵀ (the rows of Xc
// in the basis Q: row i of U is Qᵀ(x_i − x̄)) exactly as it is from Xc, the
// N-dimensional problem is solved by the same code, and its vectors are
// mapped back by Q. Nothing is approximated: the eigenvalues are the same,
// PᵀP = VᵀQᵀQV = VᵀV = I, PᵀBP = Vᵀ(B̃ + εI)V = I. The accuracy is that of
// the D×D path: Householder QR is backward stable, and RRᵀ carries the
// squared condition of Xc exactly as XcᵀXc does.
//
// Cost: the QR takes 2·D·N² flops and D·N memory (the reflectors, in the
// copy of Xcᵀ), against N·D²/2 flops and D² memory (several times) for the
// D×D path, whose eigen-decomposition adds some 9·D³ flops.

// rowSpaceBlock is how many columns of Xcᵀ one step of the blocked QR
// factorises (and how many reflectors one step of lift applies) between two
// checks of the context.
const rowSpaceBlock = 64

// rowSpace is the thin QR factorisation of (X − 1·shiftᵀ)ᵀ = QR, Q of
// k = min(N, D) orthonormal columns (k = N on the N×N path; tests also
// force it with N > D, where Q is square).
type rowSpace struct {
	d, n, k int
	// refl holds the factorisation as LAPACK's Dgeqrf leaves it (D×N): the
	// Householder vectors below the diagonal, R on and above it.
	refl blas64.General
	tau  []float64
	// coords is U = Rᵀ (N×k): row i is row i of X − 1·shiftᵀ in the
	// basis Q.
	coords *mat.Dense
	// lifting is held by lift: LAPACK's unblocked Dorm2r sets each
	// reflector's diagonal to 1 while it applies it and then restores it,
	// so two lifts through one factorisation (a Shared's) must not overlap.
	lifting sync.Mutex
}

// useRowSpace reports whether a fit on n rows of d features takes the N×N
// path: when there are fewer rows than features, where it is cheaper in
// time (2·D·N² + O(N³) against N·D² + O(D³)) and in memory (D·N against
// several D²).
func useRowSpace(in Input) bool {
	n, d := in.dims()
	switch in.path {
	case pathFeatures:
		return false
	case pathRows:
		return true
	}
	return n < d
}

// pathChoice forces a path, for tests that compare the two on the same
// data; the zero value chooses by the shape.
type pathChoice int

const (
	pathAuto pathChoice = iota
	pathFeatures
	pathRows
)

// newRowSpace factorises (X − 1·shiftᵀ)ᵀ = QR (shift nil: X as given) by
// blocked Householder QR, checking the context between blocks.
func newRowSpace(ctx context.Context, x *mat.Dense, shift []float64, st stage) (*rowSpace, error) {
	n, d := x.Dims()
	xr := x.RawMatrix()
	at := make([]float64, d*n) // (X − 1·shiftᵀ)ᵀ, D×N row-major
	const tile = 32
	for i0 := 0; i0 < n; i0 += tile {
		i1 := min(i0+tile, n)
		for j0 := 0; j0 < d; j0 += tile {
			j1 := min(j0+tile, d)
			for i := i0; i < i1; i++ {
				row := xr.Data[i*xr.Stride : i*xr.Stride+d]
				for j := j0; j < j1; j++ {
					v := row[j]
					if shift != nil {
						v -= shift[j]
					}
					at[j*n+i] = v
				}
			}
		}
	}
	return factorRowSpace(ctx, at, n, d, st)
}

// factorRowSpace factorises at = (X − 1·shiftᵀ)ᵀ (D×N, row-major; it
// becomes the reflectors) by blocked Householder QR, checking the context
// between blocks.
func factorRowSpace(ctx context.Context, at []float64, n, d int, st stage) (*rowSpace, error) {
	kk := min(n, d)
	rs := &rowSpace{d: d, n: n, k: kk, refl: blas64.General{Rows: d, Cols: n, Stride: n, Data: at}, tau: make([]float64, kk)}
	work := make([]float64, rowSpaceWork(n))
	for k := 0; k < kk; k += rowSpaceBlock {
		if err := st.checkpoint(ctx, float64(k)/float64(kk)); err != nil {
			return nil, err
		}
		nb := min(rowSpaceBlock, kk-k)
		panel := rs.sub(k, k, d-k, nb)
		lapack64.Geqrf(panel, rs.tau[k:k+nb], work, len(work))
		if rest := n - k - nb; rest > 0 {
			lapack64.Ormqr(blas.Left, blas.Trans, panel, rs.tau[k:k+nb], rs.sub(k, k+nb, d-k, rest), work, len(work))
		}
	}
	if err := st.checkpoint(ctx, 1); err != nil {
		return nil, err
	}
	rs.coords = mat.NewDense(n, kk, nil)
	for r := range kk { // U[i][r] = R[r][i], i ≥ r
		for i := r; i < n; i++ {
			rs.coords.Set(i, r, at[r*n+i])
		}
	}
	return rs, nil
}

// rowSpaceWork is the workspace newRowSpace and lift use for reflectors
// applied from the left to c columns: Dgeqrf on a panel of rowSpaceBlock
// columns needs rowSpaceBlock·nb, Dormqr c·nb (nb ≤ 64, its block size)
// plus a (64+1)×64 triangular factor. It does not grow with D.
func rowSpaceWork(c int) int {
	return rowSpaceBlock*max(c, rowSpaceBlock) + 65*64
}

// sub is the rows×cols part of the reflectors at (i, j).
func (rs *rowSpace) sub(i, j, rows, cols int) blas64.General {
	return blas64.General{Rows: rows, Cols: cols, Stride: rs.refl.Stride, Data: rs.refl.Data[i*rs.refl.Stride+j:]}
}

// lift maps k-dimensional vectors (the columns of v, k×r) to D-space,
// P = Q·v (D×r), applying the reflectors a block at a time, and fixes their
// signs by the package's convention.
func (rs *rowSpace) lift(ctx context.Context, v *mat.Dense) (*mat.Dense, error) {
	vn, r := v.Dims()
	if vn != rs.k {
		panic("analysis: lifting vectors of the wrong length") // a bug, as in mat
	}
	p := mat.NewDense(rs.d, r, nil)
	p.Slice(0, rs.k, 0, r).(*mat.Dense).Copy(v)
	if r == 0 {
		return p, nil
	}
	pr := p.RawMatrix()
	work := make([]float64, rowSpaceWork(r))
	rs.lifting.Lock()
	defer rs.lifting.Unlock()
	// Q·[v; 0] = H_1(H_2(…(H_N [v; 0]))): the last block of reflectors first.
	last := (rs.k - 1) / rowSpaceBlock * rowSpaceBlock
	for k := last; k >= 0; k -= rowSpaceBlock {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		nb := min(rowSpaceBlock, rs.k-k)
		c := blas64.General{Rows: rs.d - k, Cols: r, Stride: pr.Stride, Data: pr.Data[k*pr.Stride:]}
		lapack64.Ormqr(blas.Left, blas.NoTrans, rs.sub(k, k, rs.d-k, nb), rs.tau[k:k+nb], c, work, len(work))
	}
	fixSigns(p)
	return p, nil
}
