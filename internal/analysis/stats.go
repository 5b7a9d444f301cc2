package analysis

import (
	"context"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// statsSpec says which sufficient statistics a method needs.
type statsSpec struct {
	gram   bool        // C = XcᵀXc
	labels *sparseRows // L: the cross product XcᵀL is formed when set
	// labelGram asks for LcᵀLc (with labels set).
	labelGram bool
	// weights, when set, asks for the weighted Gram Xcᵀ·diag(w)·Xc.
	weights []float64
}

// stats are the sufficient statistics of one pass over the rows.
type stats struct {
	n, d      int
	mean      []float64     // D column means of X
	gram      *mat.SymDense // XcᵀXc (D×D)
	cross     *mat.Dense    // XcᵀL = XcᵀLc (D×c)
	labelMean []float64     // c column means of L
	labelGram *mat.SymDense // LcᵀLc (c×c)
	wgram     *mat.SymDense // Xcᵀ·diag(w)·Xc (D×D)
}

// blockRows is how many rows the pass centres and folds in at once: large
// enough for the matrix kernels to run at speed, small enough to check the
// context often.
const blockRows = 256

// computeStats makes two passes over X: the first for the column means, the
// second over centred blocks of rows, which keeps XcᵀXc accurate when the
// means are large next to the spread (no XᵀX − N·μμᵀ cancellation). The
// cross product with the labels costs O(nnz(L)·D): each row adds itself to
// the columns of its non-zero labels.
func computeStats(ctx context.Context, x *mat.Dense, spec statsSpec, st stage) (*stats, error) {
	n, d := x.Dims()
	raw := x.RawMatrix()
	s := &stats{n: n, d: d, mean: make([]float64, d)}
	// Pass 1: means, summed per block to keep rounding small.
	block := make([]float64, d)
	for i0 := 0; i0 < n; i0 += blockRows {
		clear(block)
		for i := i0; i < min(i0+blockRows, n); i++ {
			for j, v := range raw.Data[i*raw.Stride : i*raw.Stride+d] {
				block[j] += v
			}
		}
		for j, v := range block {
			s.mean[j] += v
		}
		if err := st.checkpoint(ctx, 0.1*float64(i0)/float64(n)); err != nil {
			return nil, err
		}
	}
	for j := range s.mean {
		s.mean[j] /= float64(n)
	}
	if spec.gram {
		s.gram = mat.NewSymDense(d, nil)
	}
	if spec.weights != nil {
		s.wgram = mat.NewSymDense(d, nil)
	}
	var crossT []float64 // c×D, row-major: column j of XcᵀL is crossT[j*d:(j+1)*d]
	if spec.labels != nil {
		crossT = make([]float64, spec.labels.cols*d)
	}
	buf := mat.NewDense(blockRows, d, nil)
	var wbuf *mat.Dense
	var wacc *mat.Dense
	if spec.weights != nil {
		wbuf = mat.NewDense(blockRows, d, nil)
		wacc = mat.NewDense(d, d, nil)
	}
	// Pass 2: centred blocks.
	for i0 := 0; i0 < n; i0 += blockRows {
		rows := min(blockRows, n-i0)
		b := buf.Slice(0, rows, 0, d).(*mat.Dense)
		br := b.RawMatrix()
		for r := range rows {
			src := raw.Data[(i0+r)*raw.Stride : (i0+r)*raw.Stride+d]
			dst := br.Data[r*br.Stride : r*br.Stride+d]
			for j, v := range src {
				dst[j] = v - s.mean[j]
			}
			if spec.labels != nil {
				idx, val := spec.labels.row(i0 + r)
				for k, j := range idx {
					axpy(val[k], dst, crossT[int(j)*d:(int(j)+1)*d])
				}
			}
		}
		if spec.gram {
			blas64.Syrk(blas.Trans, 1, br, 1, s.gram.RawSymmetric())
		}
		if spec.weights != nil {
			wb := wbuf.Slice(0, rows, 0, d).(*mat.Dense)
			wr := wb.RawMatrix()
			for r := range rows {
				w := spec.weights[i0+r]
				src := br.Data[r*br.Stride : r*br.Stride+d]
				dst := wr.Data[r*wr.Stride : r*wr.Stride+d]
				for j, v := range src {
					dst[j] = w * v
				}
			}
			blas64.Gemm(blas.Trans, blas.NoTrans, 1, br, wr, 1, wacc.RawMatrix())
		}
		if err := st.checkpoint(ctx, 0.1+0.9*float64(i0+rows)/float64(n)); err != nil {
			return nil, err
		}
	}
	if spec.weights != nil {
		symmetrize(wacc, s.wgram)
	}
	if spec.labels != nil {
		c := spec.labels.cols
		s.cross = mat.NewDense(d, c, nil)
		for j := range c {
			s.cross.SetCol(j, crossT[j*d:(j+1)*d])
		}
		s.labelMean = make([]float64, c)
		for i := range n {
			idx, val := spec.labels.row(i)
			for k, j := range idx {
				s.labelMean[j] += val[k]
			}
		}
		for j := range s.labelMean {
			s.labelMean[j] /= float64(n)
		}
		if spec.labelGram {
			s.labelGram = centredLabelGram(spec.labels, s.labelMean)
		}
	}
	return s, nil
}

// centredLabelGram forms LcᵀLc = LᵀL − N·l̄l̄ᵀ from the sparse rows: the
// products of 0/1 labels are exact counts, so the subtraction is safe.
func centredLabelGram(l *sparseRows, mean []float64) *mat.SymDense {
	c := l.cols
	g := make([]float64, c*c)
	for i := range l.rows {
		idx, val := l.row(i)
		for a, ja := range idx {
			for b, jb := range idx {
				g[int(ja)*c+int(jb)] += val[a] * val[b]
			}
		}
	}
	out := mat.NewSymDense(c, nil)
	n := float64(l.rows)
	for a := range c {
		for b := a; b < c; b++ {
			out.SetSym(a, b, g[a*c+b]-n*mean[a]*mean[b])
		}
	}
	return out
}

// symmetrize writes (a + aᵀ)/2 into s.
func symmetrize(a *mat.Dense, s *mat.SymDense) {
	n, _ := a.Dims()
	for i := range n {
		for j := i; j < n; j++ {
			s.SetSym(i, j, (a.At(i, j)+a.At(j, i))/2)
		}
	}
}

func axpy(alpha float64, x, y []float64) {
	for i, v := range x {
		y[i] += alpha * v
	}
}
